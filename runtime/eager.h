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

/* The match header of the next eager message to p, which hands back
 * what p is owed (credit_untake if it never leaves). */
static inline void eager_hdr(rtm_match_hdr_t *hdr, rtm_peer_t *p, uint32_t ctx, int src_rank,
                             int tag)
{
    hdr->ctx = ctx;
    hdr->src = src_rank;
    hdr->tag = tag;
    hdr->seq = p->tx_seq;
    hdr->credits = credit_take_owed(p);
}

/* An eager message of len bytes left for p. */
static inline void eager_sent(rtm_peer_t *p, size_t len)
{
    p->tx_seq++;
    p->tx_credits--;
    p->tl->counters.msgs_sent++;
    p->tl->counters.bytes_sent += len;
}

_Static_assert(sizeof(rtm_match_hdr_t) + PEER_RING_MAX == SHM_LINE_DATA,
               "a match header and PEER_RING_MAX bytes fill one shm ring line");

/* Whether an eager message of len bytes to p goes into its shm ring,
 * without a call (eager_send_ring, transport/shm/shm_direct.h). Such a
 * message fits (eager_fits): peer_connect gives p a ring only when the
 * transport's limits take every one of them. */
static inline int eager_ring_fits(const rtm_peer_t *p, size_t len)
{
    return p->ring != NULL && len <= PEER_RING_MAX;
}

/* eager_send for a message that eager_ring_fits: its header and payload
 * written straight into a line of the peer's ring (in shm's shared mode, of
 * the peer's queue: the claim reserves the line, shm_fifo.h).
 * Hot path: no call, allocation, lock or log. */
static inline rtm_status_t eager_send_ring(rtm_peer_t *p, uint32_t ctx, int src_rank, int tag,
                                           const void *buf, size_t len)
{
    shm_fifo_tx_t *ring = p->ring;
    shm_line_t *line;
    uint64_t pos;

    if (__builtin_expect(shm_fifo_line_claim(ring, &line, &pos) != 0, 0))
        return RTM_ERR_AGAIN;
    eager_hdr((rtm_match_hdr_t *)(void *)line->data, p, ctx, src_rank, tag);
    shm_copy_small(line->data + sizeof(rtm_match_hdr_t), buf, len);
    shm_fifo_line_commit(ring, line, pos, RTM_AM_EAGER, sizeof(rtm_match_hdr_t) + len);
    eager_sent(p, len);
    return RTM_OK;
}

/* The eager send. The caller checked that p is connected, the message fits
 * (eager_fits), a credit is held and nothing matched waits ahead of it.
 * On RTM_OK the transport has copied the message out; otherwise nothing
 * changed (RTM_ERR_AGAIN: no queue space now).
 * Hot path: no allocation, lock or log. */
static inline rtm_status_t eager_send(rtm_peer_t *p, uint32_t ctx, int src_rank, int tag,
                                      const void *buf, size_t len)
{
    rtm_match_hdr_t hdr;
    rtm_status_t status;

    if (eager_ring_fits(p, len))
        return eager_send_ring(p, ctx, src_rank, tag, buf, len);
    eager_hdr(&hdr, p, ctx, src_rank, tag);
    status = p->tl->ops->am_send(p->ep, RTM_AM_EAGER, &hdr, sizeof(hdr), buf, len);
    if (__builtin_expect(status != RTM_OK, 0)) {
        credit_untake(p, hdr.credits);
        return status;
    }
    eager_sent(p, len);
    return RTM_OK;
}

/* The EAGER handler (am.c's table). */
void eager_recv(int src, const void *data, size_t len);
/* A receive matched an unexpected EAGER: deliver it and free ue. */
void eager_recv_unexp(rtm_request_impl_t *req, rtm_unexp_t *ue);
/* Keeps n bytes of an unexpected message from peer src with its envelope:
 * in the envelope when they fit, else in memory of their own (freed with
 * it); out of memory ends the job with a message naming the peer. Used
 * for an eager message and for a detached send's RTS carrying its bytes. */
void eager_unexp_keep(rtm_unexp_t *ue, int src, const void *bytes, size_t n);

#endif
