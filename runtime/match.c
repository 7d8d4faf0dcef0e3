/*
 * Matching (see match.h): the posted and unexpected queues of a context and
 * the table of contexts. No global state, no protocol: the caller owns the
 * table and decides what a queued message means.
 */
#include "config.h"

#include "runtime/match.h"

#include <stdlib.h>
#include <string.h>

void match_table_init(rtm_match_table_t *tbl, uint32_t max_ids)
{
    tbl->ctxs = NULL;
    tbl->num = 0;
    tbl->max_ids = max_ids;
    tbl->unexp_held = 0;
    tbl->unexp_held_max = 0;
    rtm_mpool_init(&tbl->unexp_pool, "unexpected", sizeof(rtm_unexp_t), 256, 0);
}

void match_table_cleanup(rtm_match_table_t *tbl)
{
    for (uint32_t i = 0; i < tbl->num; i++) {
        rtm_match_ctx_t *mctx = tbl->ctxs[i];
        rtm_unexp_t *ue;

        if (mctx == NULL)
            continue;
        while ((ue = match_unexp_pop(mctx)) != NULL)
            match_unexp_free(tbl, ue);
        free(mctx);
    }
    free(tbl->ctxs);
    tbl->ctxs = NULL;
    tbl->num = 0;
    rtm_mpool_cleanup(&tbl->unexp_pool);
}

rtm_match_ctx_t *match_ctx_get(rtm_match_table_t *tbl, uint32_t ctx_id)
{
    rtm_match_ctx_t *mctx;

    if (ctx_id < tbl->num && tbl->ctxs[ctx_id] != NULL)
        return tbl->ctxs[ctx_id];
    if (ctx_id >= tbl->max_ids)
        return NULL;
    if (ctx_id >= tbl->num) {
        uint32_t n = tbl->num ? tbl->num : 16;
        rtm_match_ctx_t **grown;

        while (n <= ctx_id)
            n *= 2;
        if (n > tbl->max_ids)
            n = tbl->max_ids;
        grown = realloc(tbl->ctxs, n * sizeof(*grown));
        if (grown == NULL)
            return NULL;
        memset(grown + tbl->num, 0, (n - tbl->num) * sizeof(*grown));
        tbl->ctxs = grown;
        tbl->num = n;
    }
    mctx = malloc(sizeof(*mctx));
    if (mctx == NULL)
        return NULL;
    rtm_list_init(&mctx->posted);
    rtm_list_init(&mctx->unexpected);
    tbl->ctxs[ctx_id] = mctx;
    return mctx;
}

int match_ctx_free(rtm_match_table_t *tbl, uint32_t ctx_id)
{
    rtm_match_ctx_t *mctx;

    if (ctx_id >= tbl->num || tbl->ctxs[ctx_id] == NULL)
        return 0;
    mctx = tbl->ctxs[ctx_id];
    if (!rtm_list_is_empty(&mctx->posted) || !rtm_list_is_empty(&mctx->unexpected))
        return 0;
    free(mctx);
    tbl->ctxs[ctx_id] = NULL;
    return 1;
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

void match_posted_remove(rtm_request_impl_t *req)
{
    rtm_list_del(&req->link);
    req->flags &= (uint16_t)~RTM_REQ_F_POSTED;
}

rtm_unexp_t *match_unexp_alloc(rtm_match_table_t *tbl)
{
    rtm_unexp_t *ue = rtm_mpool_get(&tbl->unexp_pool);

    if (ue != NULL) {
        ue->data = NULL;
        if (++tbl->unexp_held > tbl->unexp_held_max)
            tbl->unexp_held_max = tbl->unexp_held;
    }
    return ue;
}

void match_unexp_free(rtm_match_table_t *tbl, rtm_unexp_t *ue)
{
    if (ue->data != NULL && ue->data != ue->inline_data)
        free(ue->data);
    tbl->unexp_held--;
    rtm_mpool_put(&tbl->unexp_pool, ue);
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

rtm_unexp_t *match_unexp_find_rts(rtm_match_ctx_t *mctx, int peer, uint64_t sreq)
{
    rtm_list_t *pos;

    rtm_list_for_each(pos, &mctx->unexpected) {
        rtm_unexp_t *ue = rtm_container_of(pos, rtm_unexp_t, link);

        if (ue->am_id == RTM_AM_RTS && ue->peer == peer && ue->rts.sreq == sreq)
            return ue;
    }
    return NULL;
}

void match_unexp_remove(rtm_unexp_t *ue)
{
    rtm_list_del(&ue->link);
}

rtm_unexp_t *match_unexp_pop(rtm_match_ctx_t *mctx)
{
    if (rtm_list_is_empty(&mctx->unexpected))
        return NULL;
    return rtm_container_of(rtm_list_pop_head(&mctx->unexpected), rtm_unexp_t, link);
}
