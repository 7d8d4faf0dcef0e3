/*
 * The protocol dispatcher (see proto.h). Matched messages (EAGER, RTS) to
 * a peer leave in the order they were posted; control messages (CTS, DATA,
 * FIN, CREDIT) carry no matching information and go first. What the
 * transport could not take yet (RTM_ERR_AGAIN) waits on the peer's lists
 * and is drained by proto_flush_peer from progress.
 */
#include "config.h"

#include "runtime/proto.h"
#include "runtime/credit.h"
#include "runtime/eager.h"
#include "runtime/job.h"
#include "runtime/match.h"
#include "runtime/peer.h"
#include "runtime/request.h"
#include "runtime/rndv.h"
#include "runtime/rt.h"
#include "runtime/rt_config.h"
#include "common/error.h"
#include "common/log.h"

/* A standard send of eager size that finds no eager credit is detached
 * rather than left waiting for its receive: its bytes are copied into
 * memory of the runtime's own (req_copy_in), a request of the runtime's own
 * (released: recycled once done) carries the copy as a rendezvous send, so
 * its RTS -- which needs no credit -- goes now and the receiver's matching
 * and probes see it, and req, the caller's, completes now: MPI lets a
 * standard send complete before its receive is posted. At most
 * RTM_DETACHED_SENDS per peer are out at once (that and the credits bound
 * what a flood holds at the receiver: docs/mpi.md, "Flow control"); past
 * that, or with no memory for the copy, NULL: req goes by rendezvous from
 * the caller's buffer and completes once matched, as before. */
static rtm_request_impl_t *proto_detach(rtm_peer_t *p, rtm_request_impl_t *req)
{
    rtm_request_impl_t *d;

    if (p->detached_tx >= rt_config.detached_sends)
        return NULL;
    d = req_alloc(RTM_REQ_SEND);
    if (d == NULL)
        return NULL;
    if (req_copy_in(d, req->buf, req->len) != RTM_OK) {
        req_release(d);
        return NULL;
    }
    d->flags |= RTM_REQ_F_DETACHED | RTM_REQ_F_RELEASED;
    d->op = RTM_OP_RTS;
    d->peer = req->peer;
    d->ctx = req->ctx;
    d->rank = req->rank;
    d->tag = req->tag;
    d->len = req->len;
    d->status.source = req->status.source;
    d->status.tag = req->tag;
    p->detached_tx++;
    req->op = RTM_OP_NONE;
    req->status.count = req->len;
    req_complete(req);   /* recycled now if its caller freed it already */
    return d;
}

/* A detached send is done (sent eagerly, or its rendezvous ended). */
static inline void proto_detached_done(rtm_peer_t *p, rtm_request_impl_t *req)
{
    if (req->flags & RTM_REQ_F_DETACHED)
        p->detached_tx--;
}

/* Put one queued matched message (EAGER or RTS) on the wire. *req_p may
 * be detached (proto_detach): then it names the runtime's request, the one
 * still to send when the result is RTM_ERR_AGAIN. */
static rtm_status_t proto_send_queued(rtm_peer_t *p, rtm_request_impl_t **req_p)
{
    rtm_request_impl_t *req = *req_p;
    rtm_status_t status;

    if (req->op == RTM_OP_EAGER && p->tx_credits > 0) {
        status = eager_send(p, req->ctx, req->status.source, req->tag, req->buf, req->len);
        if (status != RTM_OK)
            return status;
        req->op = RTM_OP_NONE;
        req->status.count = req->len;
        proto_detached_done(p, req);
        req_complete(req);
        return RTM_OK;
    }
    if (req->op == RTM_OP_EAGER && !(req->flags & RTM_REQ_F_DETACHED)) {
        rtm_request_impl_t *d = proto_detach(p, req);

        if (d != NULL)
            *req_p = req = d;
    }
    return rndv_send_rts(p, req);
}

/* Hot path: no allocation, lock or log. */
rtm_status_t proto_send_now(const rtm_comm_obj_t *comm, uint32_t ctx, const void *buf,
                            size_t len, int dest, int tag)
{
    rtm_peer_t *p = &rtm_rt.peers[comm_world_rank_of(comm, dest)];

    if (p->ep == NULL || proto_pick(p, len, 0) != RTM_OP_EAGER || !proto_eager_now(p))
        return RTM_ERR_AGAIN;
    return eager_send(p, ctx, comm->rank, tag, buf, len);
}

/* Hot path for eager: no allocation once the request table has grown, no
 * lock, no log. */
rtm_status_t proto_isend(const rtm_comm_obj_t *comm, uint32_t ctx, const void *buf, size_t len,
                         int dest, int tag, int sync, rtm_request_impl_t **req_p)
{
    int world = comm_world_rank_of(comm, dest);
    rtm_peer_t *p = &rtm_rt.peers[world];
    rtm_request_impl_t *req;
    rtm_status_t status;

    if (!sync && (req = proto_isend_eager(p, ctx, comm->rank, buf, len, world, tag)) != NULL) {
        *req_p = req;
        return RTM_OK;
    }
    if (p->ep == NULL) {
        status = peer_connect(world);
        if (status != RTM_OK)
            return status;
    }
    req = req_alloc(RTM_REQ_SEND);
    if (req == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a send request");
    req->peer = world;
    req->ctx = ctx;
    req->rank = dest;
    req->tag = tag;
    req->buf = (void *)(uintptr_t)buf;
    req->len = len;
    req->status.source = comm->rank;
    req->status.tag = tag;
    if (sync)
        req->flags |= RTM_REQ_F_SYNC;
    req->op = (uint8_t)proto_pick(p, len, sync);
    if (req->op == RTM_OP_EAGER && p->tx_credits <= 0)
        rtm_rt.credit_stalls++;   /* waits for a credit (MPI_T counts it) */
    if (__builtin_expect(req->op == RTM_OP_EAGER && proto_eager_now(p), 1)) {
        /* The eager fast path: the request completes now (not released yet). */
        status = eager_send(p, ctx, comm->rank, tag, buf, len);
        if (__builtin_expect(status == RTM_OK, 1)) {
            req->op = RTM_OP_NONE;
            req->status.count = len;
            req->flags |= RTM_REQ_F_COMPLETE;
            *req_p = req;
            return RTM_OK;
        }
    } else if (rtm_list_is_empty(&p->pending_sends) &&
               (req->op != RTM_OP_EAGER || p->detached_tx < rt_config.detached_sends)) {
        rtm_request_impl_t *user = req;

        status = proto_send_queued(p, &req);
        if (status == RTM_OK) {
            *req_p = user;
            return RTM_OK;
        }
        if (req != user) {
            /* detached: the caller's request is complete; what is left to
             * send, or to undo on failure, is the runtime's */
            if (status != RTM_ERR_AGAIN) {
                proto_detached_done(p, req);
                req_release(req);
                req_release(user);
                return rtm_error_set(status, "sending to rank %d (%s) failed", world,
                                     job_peer_hostname(world));
            }
            rtm_list_push_tail(&p->pending_sends, &req->link);
            peer_pending_add(p);
            *req_p = user;
            return RTM_OK;
        }
    } else {
        /* Behind earlier sends; or every detached send to p is out: queued
         * for the next progress pass, which reads p's answers (CTS, FIN:
         * detached sends done) before it flushes, so it is detached then
         * if one has ended, else its RTS goes from the caller's buffer. */
        status = RTM_ERR_AGAIN;
    }
    if (status != RTM_ERR_AGAIN) {
        if (req->memh != NULL)
            p->tl->ops->mem_dereg(p->tl->iface, req->memh);
        req_release(req);
        return rtm_error_set(status, "sending to rank %d (%s) failed", world,
                             job_peer_hostname(world));
    }
    rtm_list_push_tail(&p->pending_sends, &req->link);
    peer_pending_add(p);
    *req_p = req;
    return RTM_OK;
}

int proto_flush_peer(rtm_peer_t *p)
{
    int n = 0, credit;
    rtm_status_t status;

    while (!rtm_list_is_empty(&p->pending_ctrl)) {
        rtm_request_impl_t *req = rtm_container_of(p->pending_ctrl.next,
                                                   rtm_request_impl_t, link);

        rtm_list_del(&req->link);
        status = rndv_send_ctrl(p, req);
        if (status == RTM_ERR_AGAIN) {
            rtm_list_push_head(&p->pending_ctrl, &req->link);
            return n;
        }
        if (status != RTM_OK)
            rndv_req_fail(req, status);
        n++;
    }
    while (!rtm_list_is_empty(&p->pending_sends)) {
        rtm_request_impl_t *req = rtm_container_of(p->pending_sends.next,
                                                   rtm_request_impl_t, link);

        rtm_list_del(&req->link);
        status = proto_send_queued(p, &req);
        if (status == RTM_ERR_AGAIN) {
            rtm_list_push_head(&p->pending_sends, &req->link);
            return n;
        }
        if (status != RTM_OK)
            rndv_req_fail(req, status);
        n++;
    }
    credit = credit_flush(p);
    if (credit < 0)
        return n;
    n += credit;
    rtm_list_del(&p->pending_link);
    return n;
}

void proto_recv_unexp(rtm_request_impl_t *req, rtm_unexp_t *ue)
{
    if (ue->am_id == RTM_AM_EAGER)
        eager_recv_unexp(req, ue);
    else
        rndv_recv_unexp(req, ue);
}

rtm_status_t proto_irecv(const rtm_comm_obj_t *comm, uint32_t ctx, void *buf, size_t len,
                         int src, int tag, rtm_request_impl_t **req_p)
{
    rtm_match_ctx_t *mctx = match_ctx_find(&rtm_rt.contexts, ctx);
    rtm_request_impl_t *req;
    rtm_unexp_t *ue;

    if (mctx == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a matching context");
    req = req_alloc(RTM_REQ_RECV);
    if (req == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a receive request");
    req->peer = (src == RTM_ANY_SOURCE) ? -1 : comm_world_rank_of(comm, src);
    req->ctx = ctx;
    req->rank = src;
    req->tag = tag;
    req->buf = buf;
    req->len = len;
    ue = match_unexp_find(mctx, src, tag);
    if (ue != NULL) {
        match_unexp_remove(ue);
        proto_recv_unexp(req, ue);
    } else {
        match_posted_add(mctx, req);
    }
    *req_p = req;
    return RTM_OK;
}

void proto_ctx_release(uint32_t ctx_id)
{
    rtm_match_ctx_t *mctx;
    rtm_unexp_t *ue;

    if (ctx_id >= rtm_rt.contexts.num || rtm_rt.contexts.ctxs[ctx_id] == NULL)
        return;
    mctx = rtm_rt.contexts.ctxs[ctx_id];
    /* Messages still unexpected here can never be received. Drop them, but
     * hand back their credits and release rendezvous senders (a zero-byte
     * receive), so no peer waits forever for them. */
    while ((ue = match_unexp_pop(mctx)) != NULL) {
        rtm_request_impl_t *sink = req_alloc(RTM_REQ_RECV);

        rtm_warn("communicator context %u freed with an unreceived message from rank %d "
                 "(tag %d, %zu bytes): dropped", ctx_id, ue->peer, ue->tag, ue->len);
        if (sink == NULL) {
            match_unexp_free(&rtm_rt.contexts, ue);
            continue;
        }
        sink->flags |= RTM_REQ_F_RELEASED;
        sink->buf = NULL;
        sink->len = 0;
        sink->ctx = ctx_id;
        proto_recv_unexp(sink, ue);
    }
    match_ctx_free(&rtm_rt.contexts, ctx_id);
}
