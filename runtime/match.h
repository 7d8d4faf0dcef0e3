/*
 * Matching contexts: a communicator context's queue of posted receives (in
 * post order) and queue of unexpected messages (in arrival order), and the
 * table of contexts by id. An incoming message takes the first posted
 * receive it matches; a new receive takes the first unexpected message it
 * matches. Both orders together give MPI's non-overtaking rule, wildcards
 * included.
 *
 * Pure data structures: this module knows no global state, no protocol and
 * no transport (tests/unit/test_match.c links match.c alone). What a
 * message in a queue means is the protocols' business (runtime/proto.c).
 */
#ifndef RTM_RUNTIME_MATCH_H
#define RTM_RUNTIME_MATCH_H

#include "rtmsg.h"
#include "common/list.h"
#include "common/mpool.h"
#include "runtime/request.h"
#include "runtime/wire.h"

#include <stddef.h>
#include <stdint.h>

/* An unexpected message: arrived before a matching receive was posted. */
typedef struct rtm_unexp {
    rtm_list_t      link;
    uint8_t         am_id;       /* RTM_AM_EAGER or RTM_AM_RTS */
    int             peer;        /* world rank of the sender */
    int             src;         /* comm rank of the sender */
    int             tag;
    size_t          len;         /* message bytes */
    rtm_rts_hdr_t   rts;         /* RTS only */
    void           *data;        /* EAGER payload (len bytes): inline_data or malloc'd */
    uint8_t         inline_data[64];
} rtm_unexp_t;

typedef struct rtm_match_ctx {
    rtm_list_t posted;
    rtm_list_t unexpected;
} rtm_match_ctx_t;

/* Contexts by id, created on first use: a message may arrive for a context
 * this process has not created yet (the sender finished rtm_comm_split
 * first), so whichever comes first, message or communicator, creates it. */
typedef struct rtm_match_table {
    rtm_match_ctx_t **ctxs;      /* by context id; NULL: none */
    uint32_t          num;       /* entries in ctxs */
    uint32_t          max_ids;   /* ids are below this */
    rtm_mpool_t       unexp_pool;
    /* unexpected messages held (allocated, not yet freed: queued, or taken
     * by a matched probe and not yet received), and the most ever held at
     * once (MPI_T's performance variables) */
    uint64_t          unexp_held;
    uint64_t          unexp_held_max;
} rtm_match_table_t;

void match_table_init(rtm_match_table_t *tbl, uint32_t max_ids);
/* Frees every context and the unexpected messages still in them. */
void match_table_cleanup(rtm_match_table_t *tbl);
/* Slow path: creates the context on first use. NULL: no memory, or the id
 * is not below max_ids. */
rtm_match_ctx_t *match_ctx_get(rtm_match_table_t *tbl, uint32_t ctx_id);
/* Frees the context if both its queues are empty; returns 1 if freed. */
int  match_ctx_free(rtm_match_table_t *tbl, uint32_t ctx_id);

/* An existing context costs a bounds check and a load, inline; a new one
 * takes the slow path. */
static inline rtm_match_ctx_t *match_ctx_find(rtm_match_table_t *tbl, uint32_t ctx_id)
{
    if (__builtin_expect(ctx_id < tbl->num && tbl->ctxs[ctx_id] != NULL, 1))
        return tbl->ctxs[ctx_id];
    return match_ctx_get(tbl, ctx_id);
}

static inline int match_matches(int want_src, int want_tag, int src, int tag)
{
    return (want_src == RTM_ANY_SOURCE || want_src == src) &&
           (want_tag == RTM_ANY_TAG || want_tag == tag);
}

/* Posted receives (req->rank, req->tag say what they want). */
static inline void match_posted_add(rtm_match_ctx_t *mctx, rtm_request_impl_t *req)
{
    req->flags |= RTM_REQ_F_POSTED;
    rtm_list_push_tail(&mctx->posted, &req->link);
}
rtm_request_impl_t *match_posted_take(rtm_match_ctx_t *mctx, int src, int tag);
/* Takes a posted receive out of its queue (cancel). */
void match_posted_remove(rtm_request_impl_t *req);

/* Unexpected messages. */
rtm_unexp_t *match_unexp_alloc(rtm_match_table_t *tbl);   /* NULL: no memory */
void         match_unexp_free(rtm_match_table_t *tbl, rtm_unexp_t *ue);
static inline void match_unexp_add(rtm_match_ctx_t *mctx, rtm_unexp_t *ue)
{
    rtm_list_push_tail(&mctx->unexpected, &ue->link);
}
/* The first one matching (src, tag), left in the queue. */
rtm_unexp_t *match_unexp_find(rtm_match_ctx_t *mctx, int src, int tag);
void         match_unexp_remove(rtm_unexp_t *ue);
/* The RTS that world rank peer sent for its request sreq, left in the
 * queue; NULL if it is not there (matched, or never came). */
rtm_unexp_t *match_unexp_find_rts(rtm_match_ctx_t *mctx, int peer, uint64_t sreq);
/* The oldest one, taken out of the queue; NULL if none. */
rtm_unexp_t *match_unexp_pop(rtm_match_ctx_t *mctx);

#endif
