/*
 * Communicators: a group of world ranks, this rank's place in it, and two
 * matching contexts (user point-to-point, and collectives/management), so
 * internal traffic never matches a user receive.
 *
 * Context ids: every process keeps next_ctx, the lowest id it may use. A new
 * communicator takes the maximum of next_ctx over the parent's members
 * (gathered on the parent's collective context); all of them then move past
 * it. Disjoint communicators made by one split share an id harmlessly: no
 * process belongs to two of them.
 */
#include "config.h"

#include "runtime/runtime.h"
#include "common/error.h"
#include "common/log.h"

#include <stdlib.h>
#include <string.h>

/* Tags on a collective context. Collectives on one communicator are called
 * in the same order everywhere, and messages between two ranks never
 * overtake, so fixed tags are enough. */
enum {
    COLL_TAG_BARRIER   = 1,
    COLL_TAG_ALLGATHER = 2,
};

#define CTX_WORLD 0u
#define CTX_SELF  2u
#define CTX_FIRST_FREE 4u

static rtm_status_t comm_table_slot(int *handle_p)
{
    rtm_comm_obj_t *grown;
    int n;

    for (int i = 0; i < rtm_rt.num_comms; i++) {
        if (!rtm_rt.comms[i].in_use) {
            *handle_p = i;
            return RTM_OK;
        }
    }
    n = rtm_rt.num_comms ? rtm_rt.num_comms * 2 : 8;
    grown = realloc(rtm_rt.comms, (size_t)n * sizeof(*grown));
    if (grown == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a communicator");
    memset(grown + rtm_rt.num_comms, 0, (size_t)(n - rtm_rt.num_comms) * sizeof(*grown));
    *handle_p = rtm_rt.num_comms;
    rtm_rt.comms = grown;
    rtm_rt.num_comms = n;
    return RTM_OK;
}

/* Takes ownership of world_ranks. */
static rtm_status_t comm_create(int rank, int size, int *world_ranks, uint32_t ctx,
                                rtm_comm_t *handle_p)
{
    rtm_comm_obj_t *c;
    rtm_match_ctx_t *p2p, *coll;
    int handle = -1;
    rtm_status_t status = comm_table_slot(&handle);

    if (status != RTM_OK)
        return status;
    p2p = match_ctx_get(ctx);
    coll = match_ctx_get(ctx + 1);
    if (p2p == NULL || coll == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a communicator context");
    c = &rtm_rt.comms[handle];
    c->in_use = 1;
    c->rank = rank;
    c->size = size;
    c->world_ranks = world_ranks;
    c->ctx_p2p = ctx;
    c->ctx_coll = ctx + 1;
    *handle_p = handle;
    return RTM_OK;
}

rtm_status_t comm_init(void)
{
    int *world = malloc((size_t)rtm_rt.world_size * sizeof(int));
    int *self = malloc(sizeof(int));
    rtm_comm_t h;
    rtm_status_t status;

    if (world == NULL || self == NULL) {
        free(world);
        free(self);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for the world communicator");
    }
    for (int i = 0; i < rtm_rt.world_size; i++)
        world[i] = i;
    self[0] = rtm_rt.world_rank;
    status = comm_create(rtm_rt.world_rank, rtm_rt.world_size, world, CTX_WORLD, &h);
    if (status != RTM_OK) {
        free(world);
        free(self);
        return status;
    }
    status = comm_create(0, 1, self, CTX_SELF, &h);
    if (status != RTM_OK) {
        free(self);
        return status;
    }
    rtm_rt.next_ctx = CTX_FIRST_FREE;
    return RTM_OK;
}

void comm_finalize(void)
{
    for (int i = 0; i < rtm_rt.num_comms; i++) {
        if (rtm_rt.comms[i].in_use)
            free(rtm_rt.comms[i].world_ranks);
    }
    free(rtm_rt.comms);
    rtm_rt.comms = NULL;
    rtm_rt.num_comms = 0;
    for (uint32_t i = 0; i < rtm_rt.num_match_ctxs; i++) {
        rtm_match_ctx_t *mctx = rtm_rt.match_ctxs[i];

        if (mctx == NULL)
            continue;
        while (!rtm_list_is_empty(&mctx->unexpected))
            unexp_free(rtm_container_of(rtm_list_pop_head(&mctx->unexpected),
                                        rtm_unexp_t, link));
        free(mctx);
    }
    free(rtm_rt.match_ctxs);
    rtm_rt.match_ctxs = NULL;
    rtm_rt.num_match_ctxs = 0;
}

rtm_status_t comm_get(rtm_comm_t comm, const char *func, rtm_comm_obj_t **obj_p)
{
    if (comm < 0 || comm >= rtm_rt.num_comms || !rtm_rt.comms[comm].in_use)
        return rtm_error_set(RTM_ERR_COMM, "%s: communicator %d is not valid%s", func, comm,
                             comm == RTM_COMM_NULL ? " (RTM_COMM_NULL)" : " (freed or never created)");
    *obj_p = &rtm_rt.comms[comm];
    return RTM_OK;
}

rtm_status_t coll_sendrecv(rtm_comm_obj_t *comm, const void *sbuf, size_t slen, int dest,
                           void *rbuf, size_t rlen, int src, int tag)
{
    rtm_request_impl_t *sreq, *rreq;
    rtm_status_t status;

    status = proto_irecv(comm, comm->ctx_coll, rbuf, rlen, src, tag, &rreq);
    if (status != RTM_OK)
        return status;
    status = proto_isend(comm, comm->ctx_coll, sbuf, slen, dest, tag, 0, &sreq);
    if (status != RTM_OK) {
        /* the receive stays posted on an internal context: cancel it */
        if (rreq->flags & RTM_REQ_F_POSTED)
            rtm_list_del(&rreq->link);
        req_release(rreq);
        return status;
    }
    progress_wait_flag(&sreq->flags, RTM_REQ_F_COMPLETE);
    progress_wait_flag(&rreq->flags, RTM_REQ_F_COMPLETE);
    status = sreq->status.error != RTM_OK ? sreq->status.error : rreq->status.error;
    req_release(sreq);
    req_release(rreq);
    return status;
}

/* Dissemination barrier: ceil(log2 P) rounds of zero-byte messages. */
rtm_status_t coll_barrier(rtm_comm_obj_t *comm)
{
    int round = 0;

    for (int k = 1; k < comm->size; k <<= 1, round++) {
        int to = (comm->rank + k) % comm->size;
        int from = (comm->rank - k + comm->size) % comm->size;
        rtm_status_t status = coll_sendrecv(comm, NULL, 0, to, NULL, 0, from,
                                            COLL_TAG_BARRIER + (round << 8));

        if (status != RTM_OK)
            return status;
    }
    return RTM_OK;
}

/* Ring allgather of `len` bytes per rank into all (size * len bytes). */
static rtm_status_t coll_allgather(rtm_comm_obj_t *comm, const void *mine, size_t len,
                                   void *all)
{
    int right = (comm->rank + 1) % comm->size;
    int left = (comm->rank - 1 + comm->size) % comm->size;
    char *out = all;

    memcpy(out + (size_t)comm->rank * len, mine, len);
    for (int step = 0; step < comm->size - 1; step++) {
        int send_block = (comm->rank - step + comm->size) % comm->size;
        int recv_block = (comm->rank - step - 1 + comm->size) % comm->size;
        rtm_status_t status = coll_sendrecv(comm, out + (size_t)send_block * len, len, right,
                                            out + (size_t)recv_block * len, len, left,
                                            COLL_TAG_ALLGATHER);

        if (status != RTM_OK)
            return status;
    }
    return RTM_OK;
}

/* What each member contributes to a split. */
typedef struct split_entry {
    int      color;
    int      key;
    uint32_t next_ctx;
} split_entry_t;

static int split_compare(const void *a, const void *b)
{
    const int *x = a, *y = b;   /* pairs (key, parent rank) */

    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : (x[1] > y[1]);
}

static rtm_status_t comm_split_impl(rtm_comm_obj_t *parent, int color, int key,
                                    rtm_comm_t *newcomm_p)
{
    split_entry_t mine = {color, key, rtm_rt.next_ctx};
    split_entry_t *all = malloc((size_t)parent->size * sizeof(*all));
    int *pairs = NULL, *world_ranks = NULL;
    uint32_t ctx = 0;
    int n = 0, my_index = -1;
    rtm_status_t status;

    if (all == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a split of %d ranks",
                             parent->size);
    status = coll_allgather(parent, &mine, sizeof(mine), all);
    if (status != RTM_OK)
        goto out_free_all;
    for (int i = 0; i < parent->size; i++) {
        if (all[i].next_ctx > ctx)
            ctx = all[i].next_ctx;
    }
    rtm_rt.next_ctx = ctx + 2;
    if (color == RTM_UNDEFINED) {
        *newcomm_p = RTM_COMM_NULL;
        goto out_free_all;
    }
    pairs = malloc((size_t)parent->size * 2 * sizeof(int));
    if (pairs == NULL) {
        status = rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a split");
        goto out_free_all;
    }
    for (int i = 0; i < parent->size; i++) {
        if (all[i].color == color) {
            pairs[2 * n] = all[i].key;
            pairs[2 * n + 1] = i;
            n++;
        }
    }
    qsort(pairs, (size_t)n, 2 * sizeof(int), split_compare);
    world_ranks = malloc((size_t)n * sizeof(int));
    if (world_ranks == NULL) {
        status = rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a split");
        goto out_free_pairs;
    }
    for (int i = 0; i < n; i++) {
        world_ranks[i] = parent->world_ranks[pairs[2 * i + 1]];
        if (pairs[2 * i + 1] == parent->rank)
            my_index = i;
    }
    status = comm_create(my_index, n, world_ranks, ctx, newcomm_p);
    if (status != RTM_OK)
        free(world_ranks);
out_free_pairs:
    free(pairs);
out_free_all:
    free(all);
    return status;
}

rtm_status_t rtm_comm_rank(rtm_comm_t comm, int *rank_p)
{
    rtm_comm_obj_t *c;
    rtm_status_t status = rt_check_ready("rtm_comm_rank");

    if (status == RTM_OK)
        status = comm_get(comm, "rtm_comm_rank", &c);
    if (status != RTM_OK)
        return status;
    if (rank_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_comm_rank: rank_p is NULL");
    *rank_p = c->rank;
    return RTM_OK;
}

rtm_status_t rtm_comm_size(rtm_comm_t comm, int *size_p)
{
    rtm_comm_obj_t *c;
    rtm_status_t status = rt_check_ready("rtm_comm_size");

    if (status == RTM_OK)
        status = comm_get(comm, "rtm_comm_size", &c);
    if (status != RTM_OK)
        return status;
    if (size_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_comm_size: size_p is NULL");
    *size_p = c->size;
    return RTM_OK;
}

rtm_status_t rtm_comm_world_rank(rtm_comm_t comm, int rank, int *world_rank_p)
{
    rtm_comm_obj_t *c;
    rtm_status_t status = rt_check_ready("rtm_comm_world_rank");

    if (status == RTM_OK)
        status = comm_get(comm, "rtm_comm_world_rank", &c);
    if (status != RTM_OK)
        return status;
    if (rank < 0 || rank >= c->size)
        return rtm_error_set(RTM_ERR_RANK, "rtm_comm_world_rank: rank %d is not in 0..%d",
                             rank, c->size - 1);
    if (world_rank_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_comm_world_rank: world_rank_p is NULL");
    *world_rank_p = c->world_ranks[rank];
    return RTM_OK;
}

rtm_status_t rtm_comm_dup(rtm_comm_t comm, rtm_comm_t *newcomm_p)
{
    rtm_comm_obj_t *c;
    rtm_status_t status = rt_check_ready("rtm_comm_dup");

    if (status == RTM_OK)
        status = comm_get(comm, "rtm_comm_dup", &c);
    if (status != RTM_OK)
        return status;
    if (newcomm_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_comm_dup: newcomm_p is NULL");
    /* same members, same order: a split with one color keyed by rank */
    return comm_split_impl(c, 0, c->rank, newcomm_p);
}

rtm_status_t rtm_comm_split(rtm_comm_t comm, int color, int key, rtm_comm_t *newcomm_p)
{
    rtm_comm_obj_t *c;
    rtm_status_t status = rt_check_ready("rtm_comm_split");

    if (status == RTM_OK)
        status = comm_get(comm, "rtm_comm_split", &c);
    if (status != RTM_OK)
        return status;
    if (newcomm_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_comm_split: newcomm_p is NULL");
    if (color < 0 && color != RTM_UNDEFINED)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "rtm_comm_split: color %d is negative (use RTM_UNDEFINED to opt out)",
                             color);
    return comm_split_impl(c, color, key, newcomm_p);
}

rtm_status_t rtm_comm_split_type(rtm_comm_t comm, int split_type, int key,
                                 rtm_comm_t *newcomm_p)
{
    rtm_comm_obj_t *c;
    rtm_status_t status = rt_check_ready("rtm_comm_split_type");
    int node;

    if (status == RTM_OK)
        status = comm_get(comm, "rtm_comm_split_type", &c);
    if (status != RTM_OK)
        return status;
    if (newcomm_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_comm_split_type: newcomm_p is NULL");
    if (split_type != RTM_COMM_TYPE_SHARED && split_type != RTM_UNDEFINED)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "rtm_comm_split_type: unknown type %d (RTM_COMM_TYPE_SHARED or RTM_UNDEFINED)",
                             split_type);
    if (split_type == RTM_UNDEFINED)
        return comm_split_impl(c, RTM_UNDEFINED, key, newcomm_p);
    status = rtm_world_node(rtm_rt.world_rank, &node);
    if (status != RTM_OK)
        return status;
    return comm_split_impl(c, node, key, newcomm_p);
}

rtm_status_t rtm_comm_free(rtm_comm_t *comm_p)
{
    rtm_comm_obj_t *c;
    rtm_status_t status = rt_check_ready("rtm_comm_free");

    if (status != RTM_OK)
        return status;
    if (comm_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_comm_free: comm_p is NULL");
    status = comm_get(*comm_p, "rtm_comm_free", &c);
    if (status != RTM_OK)
        return status;
    if (*comm_p == RTM_COMM_WORLD || *comm_p == RTM_COMM_SELF)
        return rtm_error_set(RTM_ERR_COMM, "rtm_comm_free: RTM_COMM_WORLD and RTM_COMM_SELF "
                             "cannot be freed");
    match_ctx_put(c->ctx_p2p);
    match_ctx_put(c->ctx_coll);
    free(c->world_ranks);
    memset(c, 0, sizeof(*c));
    *comm_p = RTM_COMM_NULL;
    return RTM_OK;
}

rtm_status_t rtm_barrier(rtm_comm_t comm)
{
    rtm_comm_obj_t *c;
    rtm_status_t status = rt_check_ready("rtm_barrier");

    if (status == RTM_OK)
        status = comm_get(comm, "rtm_barrier", &c);
    if (status != RTM_OK)
        return status;
    return coll_barrier(c);
}
