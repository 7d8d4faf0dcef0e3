/*
 * Matching: each communicator context has a queue of posted receives (in
 * post order) and a queue of unexpected messages (in arrival order). An
 * incoming message takes the first posted receive it matches; a new receive
 * takes the first unexpected message it matches. Both orders together give
 * MPI's non-overtaking rule, wildcards included.
 *
 * Context ids grow monotonically; a message may arrive for a context this
 * process has not created yet (the sender finished rtm_comm_split first), so
 * a context is created by whichever comes first, message or communicator.
 */
#include "config.h"

#include "runtime/runtime.h"
#include "common/log.h"

#include <stdlib.h>
#include <string.h>

/* Slow path only when the context is new. */
rtm_match_ctx_t *match_ctx_get(uint32_t ctx_id)
{
    rtm_match_ctx_t *mctx;

    if (ctx_id < rtm_rt.num_match_ctxs && rtm_rt.match_ctxs[ctx_id] != NULL)
        return rtm_rt.match_ctxs[ctx_id];
    if (ctx_id >= rtm_rt.num_match_ctxs) {
        uint32_t n = rtm_rt.num_match_ctxs ? rtm_rt.num_match_ctxs : 16;
        rtm_match_ctx_t **grown;

        while (n <= ctx_id)
            n *= 2;
        grown = realloc(rtm_rt.match_ctxs, n * sizeof(*grown));
        if (grown == NULL)
            return NULL;
        memset(grown + rtm_rt.num_match_ctxs, 0,
               (n - rtm_rt.num_match_ctxs) * sizeof(*grown));
        rtm_rt.match_ctxs = grown;
        rtm_rt.num_match_ctxs = n;
    }
    mctx = calloc(1, sizeof(*mctx));
    if (mctx == NULL)
        return NULL;
    rtm_list_init(&mctx->posted);
    rtm_list_init(&mctx->unexpected);
    rtm_rt.match_ctxs[ctx_id] = mctx;
    return mctx;
}

void match_ctx_put(uint32_t ctx_id)
{
    rtm_match_ctx_t *mctx;

    if (ctx_id >= rtm_rt.num_match_ctxs || rtm_rt.match_ctxs[ctx_id] == NULL)
        return;
    mctx = rtm_rt.match_ctxs[ctx_id];
    /* Messages still unexpected here can never be received. Drop them, but
     * hand back their credits and release rendezvous senders (a zero-byte
     * receive), so no peer waits forever for them. */
    while (!rtm_list_is_empty(&mctx->unexpected)) {
        rtm_unexp_t *ue = rtm_container_of(rtm_list_pop_head(&mctx->unexpected),
                                           rtm_unexp_t, link);
        rtm_request_impl_t *sink = req_alloc(RTM_REQ_RECV);

        rtm_warn("communicator context %u freed with an unreceived message from rank %d "
                 "(tag %d, %zu bytes): dropped", ctx_id, ue->peer, ue->tag, ue->len);
        if (sink == NULL) {
            unexp_free(ue);
            continue;
        }
        sink->flags |= RTM_REQ_F_RELEASED;
        sink->buf = NULL;
        sink->len = 0;
        sink->ctx = ctx_id;
        proto_recv_unexp(sink, ue);
    }
    if (rtm_list_is_empty(&mctx->posted)) {
        free(mctx);
        rtm_rt.match_ctxs[ctx_id] = NULL;
    }
}

/* Hot path: no allocation, lock or log. */
rtm_request_impl_t *match_posted_take(rtm_match_ctx_t *mctx, int src, int tag)
{
    rtm_list_t *pos;

    rtm_list_for_each(pos, &mctx->posted) {
        rtm_request_impl_t *req = rtm_container_of(pos, rtm_request_impl_t, link);

        if (match_matches(req->rank, req->tag, src, tag)) {
            rtm_list_del(pos);
            req->flags &= (uint16_t)~RTM_REQ_F_POSTED;
            return req;
        }
    }
    return NULL;
}

rtm_unexp_t *match_unexp_find(rtm_match_ctx_t *mctx, int src, int tag)
{
    rtm_list_t *pos;

    rtm_list_for_each(pos, &mctx->unexpected) {
        rtm_unexp_t *ue = rtm_container_of(pos, rtm_unexp_t, link);

        if (match_matches(src, tag, ue->src, ue->tag))
            return ue;
    }
    return NULL;
}
