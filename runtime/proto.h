/*
 * The protocol dispatcher (runtime/proto.c): the one place that picks the
 * protocol of a message, for blocking and nonblocking sends alike (eager
 * when it fits, a credit is held and nothing waits ahead; rendezvous
 * otherwise and for synchronous sends), posts receives against the
 * unexpected queue, and drains what waits in a peer's queues.
 */
#ifndef RTM_RUNTIME_PROTO_H
#define RTM_RUNTIME_PROTO_H

#include "runtime/eager.h"
#include "runtime/match.h"
#include "runtime/peer.h"
#include "runtime/request.h"
#include "runtime/rt.h"

#include <stddef.h>
#include <stdint.h>

/* The protocol choice, for every send: eager if the message fits and the
 * send is not synchronous, else rendezvous. Out of credits, an eager
 * message goes by rendezvous when its turn comes, detached from its
 * caller's buffer while the peer's RTM_DETACHED_SENDS allow
 * (proto_send_queued). */
static inline rtm_req_op_t proto_pick(const rtm_peer_t *p, size_t len, int sync)
{
    return !sync && eager_fits(p, len) ? RTM_OP_EAGER : RTM_OP_RTS;
}

/* Whether an eager message may leave now: a credit is held and no matched
 * message waits ahead of it. */
static inline int proto_eager_now(const rtm_peer_t *p)
{
    return p->tx_credits > 0 && rtm_list_is_empty(&p->pending_sends);
}

/* A send request complete at once (req_alloc_done) for the eager message
 * of len bytes that left for world rank `world`. */
static inline void proto_eager_done(rtm_request_impl_t *req, int world, int src_rank, int tag,
                                    size_t len)
{
    req->peer = world;
    req->status.source = src_rank;
    req->status.tag = tag;
    req->status.count = len;
}

/* The fast path of a standard nonblocking send to p (world rank `world`):
 * when p is connected, the message goes eagerly and may leave now, it is
 * sent and its request, complete, returned; NULL: nothing was done (not
 * eager now, no queue space, no memory), the caller takes proto_isend's
 * full path. Inline for proto_isend and the binding's send alike.
 * Hot path: no allocation once the request table has grown, no lock, no log. */
static inline rtm_request_impl_t *proto_isend_eager(rtm_peer_t *p, uint32_t ctx, int src_rank,
                                                    const void *buf, size_t len, int world,
                                                    int tag)
{
    rtm_request_impl_t *req;

    if (__builtin_expect(p->ep == NULL || !eager_fits(p, len) || !proto_eager_now(p), 0))
        return NULL;
    req = req_alloc_done(RTM_REQ_SEND);
    if (__builtin_expect(req == NULL, 0))
        return NULL;
    if (__builtin_expect(eager_send(p, ctx, src_rank, tag, buf, len) != RTM_OK, 0)) {
        req_release(req);
        return NULL;
    }
    proto_eager_done(req, world, src_rank, tag, len);
    return req;
}

/* proto_isend_eager's case that makes no call: p is reached through shm,
 * the message is one ring line (eager_ring_fits) and a request is free. For
 * the binding's send (binding_isend), whose fast path then holds no call and
 * keeps no value across one; NULL: nothing was done, the caller takes the
 * full path (proto_isend).
 * Hot path: no call, allocation, lock or log. */
static inline rtm_request_impl_t *proto_isend_ring(rtm_peer_t *p, uint32_t ctx, int src_rank,
                                                   const void *buf, size_t len, int world,
                                                   int tag)
{
    rtm_request_impl_t *req;

    if (__builtin_expect(!eager_ring_fits(p, len) || !proto_eager_now(p) ||
                         req_free_list == NULL, 0))
        return NULL;
    if (__builtin_expect(eager_send_ring(p, ctx, src_rank, tag, buf, len) != RTM_OK, 0))
        return NULL;
    req = req_take_head(req_free_list, RTM_REQ_SEND, RTM_REQ_F_COMPLETE);
    proto_eager_done(req, world, src_rank, tag, len);
    return req;
}

/* A blocking standard send of `len` bytes on context ctx of comm to comm
 * rank dest, without a request: RTM_OK once the transport has copied it
 * out; RTM_ERR_AGAIN when it must take the request path (proto_isend). */
rtm_status_t proto_send_now(const rtm_comm_obj_t *comm, uint32_t ctx, const void *buf,
                            size_t len, int dest, int tag);
/* A send to comm rank dest; *req_p completes when the buffer may be reused
 * (sync: once matched). */
rtm_status_t proto_isend(const rtm_comm_obj_t *comm, uint32_t ctx, const void *buf, size_t len,
                         int dest, int tag, int sync, rtm_request_impl_t **req_p);
/* A receive from comm rank src (or RTM_ANY_SOURCE). */
rtm_status_t proto_irecv(const rtm_comm_obj_t *comm, uint32_t ctx, void *buf, size_t len,
                         int src, int tag, rtm_request_impl_t **req_p);
/* A receive matched an unexpected message (taken out of its queue): its
 * protocol takes over and frees ue. */
void         proto_recv_unexp(rtm_request_impl_t *req, rtm_unexp_t *ue);
/* Drain what waits for one peer, in order; returns messages sent. */
int          proto_flush_peer(rtm_peer_t *p);
/* A communicator context's owner is gone: drop what is still unexpected
 * there (returning credits, releasing rendezvous senders) and free it. */
void         proto_ctx_release(uint32_t ctx_id);

#endif
