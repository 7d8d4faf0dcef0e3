/*
 * The eager protocol (runtime/eager.c): a message that fits the peer
 * transport's eager limit travels as one EAGER active message (match
 * header + payload) and is done at the sender at once. One send routine,
 * eager_send, serves the blocking send without a request, the nonblocking
 * send and the queued send (runtime/proto.c picks the protocol); the
 * receive side matches it on arrival or keeps it as unexpected.
 */
#ifndef RTM_RUNTIME_EAGER_H
#define RTM_RUNTIME_EAGER_H

#include "runtime/credit.h"
#include "runtime/match.h"
#include "runtime/peer.h"
#include "runtime/request.h"
#include "runtime/wire.h"
#include "transport/shm/shm_direct.h"

#include <stddef.h>
#include <stdint.h>

/* Whether len bytes go eagerly to p (connected) when a credit is held. */
static inline int eager_fits(const rtm_peer_t *p, size_t len)
{
    return len <= p->tl->caps.eager_limit &&
           len + sizeof(rtm_match_hdr_t) <= p->tl->caps.am_max;
}

/* The eager send. The caller checked that p is connected, the message fits
 * (eager_fits), a credit is held and nothing matched waits ahead of it.
 * On RTM_OK the transport has copied the message out; otherwise nothing
 * changed (RTM_ERR_AGAIN: no queue space now). A message of one shm ring
 * line goes into the ring here, without a call (transport/shm/shm_direct.h).
 * Hot path: no allocation, lock or log. */
static inline rtm_status_t eager_send(rtm_peer_t *p, uint32_t ctx, int src_rank, int tag,
                                      const void *buf, size_t len)
{
    rtm_match_hdr_t hdr;
    rtm_status_t status;

    hdr.ctx = ctx;
    hdr.src = src_rank;
    hdr.tag = tag;
    hdr.seq = p->tx_seq;
    hdr.credits = credit_take_owed(p);
    if (p->ring != NULL && len <= SHM_LINE_DATA - sizeof(hdr))
        status = shm_fifo_push_line(p->ring, RTM_AM_EAGER, &hdr, sizeof(hdr), buf, len) == 0
               ? RTM_OK : RTM_ERR_AGAIN;
    else
        status = p->tl->ops->am_send(p->ep, RTM_AM_EAGER, &hdr, sizeof(hdr), buf, len);
    if (__builtin_expect(status != RTM_OK, 0)) {
        credit_untake(p, hdr.credits);
        return status;
    }
    p->tx_seq++;
    p->tx_credits--;
    p->tl->counters.msgs_sent++;
    p->tl->counters.bytes_sent += len;
    return RTM_OK;
}

/* The EAGER handler (am.c's table). */
void eager_recv(int src, const void *data, size_t len);
/* A receive matched an unexpected EAGER: deliver it and free ue. */
void eager_recv_unexp(rtm_request_impl_t *req, rtm_unexp_t *ue);

#endif
