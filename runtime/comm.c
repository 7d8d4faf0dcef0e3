/*
 * Communicators: a group of world ranks, this rank's place in it, and two
 * matching contexts (user point-to-point, and collectives/management), so
 * internal traffic never matches a user receive.
 *
 * Context ids (ctxid.h): this process's mask of free slots is AND-reduced
 * over the parent's members (on the parent's collective context) and the
 * lowest slot free everywhere is taken by the members that join. A freed
 * communicator's slot is free again, so the matching table stays as large
 * as the most communicators alive at once, and creating one costs the same
 * however many are alive (handles come from a free list, slots from a
 * bitmask). Disjoint communicators made by one split share a slot
 * harmlessly: no process belongs to two of them.
 *
 * For the MPI binding (binding.h): an intercommunicator's bridge, whose
 * id is agreed in each group and then between the two leaders over a peer
 * communicator; intercommunicators split out of a bridge; and a
 * communicator whose id only its members agree on (MPI_Comm_create_group).
 */
#include "config.h"

#include "runtime/comm.h"
#include "runtime/binding.h"
#include "runtime/ctxid.h"
#include "runtime/match.h"
#include "runtime/peer.h"
#include "runtime/progress.h"
#include "runtime/proto.h"
#include "runtime/request.h"
#include "runtime/rt.h"
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
    COLL_TAG_CTXID     = 3,
    COLL_TAG_BRIDGE_BCAST = 4,
    /* binding_comm_bridge's leaders on the peer communicator and
     * binding_comm_group's members on the parent: these ORed with the
     * caller's tag (its low 28 bits), above every fixed tag here */
    COLL_TAG_BRIDGE    = 1 << 30,
    COLL_TAG_GROUP     = 1 << 29,
    COLL_TAG_GROUP_DOWN = 1 << 28,
    COLL_TAG_USER_MASK = (1 << 28) - 1,
};

/* Slots this process has free (ctxid.h). */
static rtm_ctxid_mask_t ctx_free;
/* Unused handles of rtm_rt.comms, through next_free (-1: none). */
static int comm_free_head = -1;
/* Most communicators alive at once, for the debug line at finalize. */
static int comm_live, comm_live_max;

/* An unused handle: the head of the free list, else the table doubles. */
static rtm_status_t comm_table_slot(int *handle_p)
{
    rtm_comm_obj_t *grown;
    int n;

    if (comm_free_head < 0) {
        n = rtm_rt.num_comms ? rtm_rt.num_comms * 2 : 8;
        grown = realloc(rtm_rt.comms, (size_t)n * sizeof(*grown));
        if (grown == NULL)
            return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a communicator");
        memset(grown + rtm_rt.num_comms, 0, (size_t)(n - rtm_rt.num_comms) * sizeof(*grown));
        for (int i = n - 1; i >= rtm_rt.num_comms; i--) {
            grown[i].next_free = comm_free_head;
            comm_free_head = i;
        }
        rtm_rt.comms = grown;
        rtm_rt.num_comms = n;
    }
    *handle_p = comm_free_head;
    return RTM_OK;
}

/* Takes ownership of world_ranks; slot is taken in ctx_free on success. */
static rtm_status_t comm_create(int rank, int size, int *world_ranks, int slot,
                                rtm_comm_t *handle_p)
{
    rtm_comm_obj_t *c;
    rtm_match_ctx_t *p2p, *coll;
    int handle = -1;
    rtm_status_t status = comm_table_slot(&handle);

    if (status != RTM_OK)
        return status;
    p2p = match_ctx_get(&rtm_rt.contexts, ctxid_p2p(slot));
    coll = match_ctx_get(&rtm_rt.contexts, ctxid_coll(slot));
    if (p2p == NULL || coll == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a communicator context");
    c = &rtm_rt.comms[handle];
    comm_free_head = c->next_free;
    c->in_use = 1;
    c->rank = rank;
    c->size = size;
    c->world_ranks = world_ranks;
    c->ctx_p2p = ctxid_p2p(slot);
    c->ctx_coll = ctxid_coll(slot);
    c->ctx_slot = slot;
    c->next_free = -1;
    ctxid_take(&ctx_free, slot);
    if (++comm_live > comm_live_max)
        comm_live_max = comm_live;
    *handle_p = handle;
    return RTM_OK;
}

/* The handle goes back to the free list, and its slot too unless a
 * receive is still posted there (an erroneous program: the slot is then
 * never reused, so that receive cannot match a later communicator). */
static void comm_destroy(rtm_comm_t handle)
{
    rtm_comm_obj_t *c = &rtm_rt.comms[handle];

    proto_ctx_release(c->ctx_p2p);
    proto_ctx_release(c->ctx_coll);
    if (c->ctx_p2p >= rtm_rt.contexts.num || rtm_rt.contexts.ctxs[c->ctx_p2p] == NULL) {
        if (c->ctx_coll >= rtm_rt.contexts.num || rtm_rt.contexts.ctxs[c->ctx_coll] == NULL)
            ctxid_release(&ctx_free, c->ctx_slot);
    }
    free(c->world_ranks);
    memset(c, 0, sizeof(*c));
    c->next_free = comm_free_head;
    comm_free_head = handle;
    comm_live--;
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
    ctxid_init(&ctx_free);
    ctxid_release(&ctx_free, RTM_CTXID_SLOT_WORLD);
    ctxid_release(&ctx_free, RTM_CTXID_SLOT_SELF);
    comm_free_head = -1;
    comm_live = comm_live_max = 0;
    status = comm_create(rtm_rt.world_rank, rtm_rt.world_size, world, RTM_CTXID_SLOT_WORLD,
                         &h);
    if (status != RTM_OK) {
        free(world);
        free(self);
        return status;
    }
    status = comm_create(0, 1, self, RTM_CTXID_SLOT_SELF, &h);
    if (status != RTM_OK) {
        free(self);
        return status;
    }
    return RTM_OK;
}

void comm_finalize(void)
{
    /* tests/integration/comm_recycle.sh reads this line: the tables are as
     * large as the most communicators alive at once, not as many as made */
    rtm_debug("communicators: at most %d alive at once, %d handles, %u matching contexts "
              "in the table", comm_live_max, rtm_rt.num_comms, rtm_rt.contexts.num);
    for (int i = 0; i < rtm_rt.num_comms; i++) {
        if (rtm_rt.comms[i].in_use)
            free(rtm_rt.comms[i].world_ranks);
    }
    free(rtm_rt.comms);
    rtm_rt.comms = NULL;
    rtm_rt.num_comms = 0;
    comm_free_head = -1;
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
            match_posted_remove(rreq);
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

/* One blocking message on the collective context (a receive if sbuf is
 * NULL and rbuf is not), for the tree below. */
static rtm_status_t coll_one(rtm_comm_obj_t *comm, const void *sbuf, void *rbuf, size_t len,
                             int peer, int tag)
{
    rtm_request_impl_t *req;
    rtm_status_t status;

    if (rbuf != NULL)
        status = proto_irecv(comm, comm->ctx_coll, rbuf, len, peer, tag, &req);
    else
        status = proto_isend(comm, comm->ctx_coll, sbuf, len, peer, tag, 0, &req);
    if (status != RTM_OK)
        return status;
    progress_wait_flag(&req->flags, RTM_REQ_F_COMPLETE);
    status = req->status.error;
    req_release(req);
    return status;
}

/* mask &= the mask of every one of the n members (members[i] is the
 * communicator rank of member i, NULL: member i is rank i; me is this
 * rank's index): a binomial-tree reduction to member 0 (tag `up`), then a
 * binomial-tree broadcast of the result (tag `down`), 2 ceil(log2 n) steps. */
static rtm_status_t ctxid_agree_among(rtm_comm_obj_t *comm, const int *members, int n, int me,
                                      int up, int down, rtm_ctxid_mask_t *mask)
{
    rtm_ctxid_mask_t *theirs = malloc(sizeof(*theirs));
    rtm_status_t status = RTM_OK;
    int bit;

#define MEMBER(_i) (members ? members[_i] : (_i))
    if (theirs == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a communicator id");
    for (bit = 1; bit < n; bit <<= 1) {
        if (me & bit) {
            status = coll_one(comm, mask, NULL, sizeof(*mask), MEMBER(me - bit), up);
            break;
        }
        if (me + bit < n) {
            status = coll_one(comm, NULL, theirs, sizeof(*theirs), MEMBER(me + bit), up);
            if (status != RTM_OK)
                break;
            ctxid_and(mask, theirs);
        }
    }
    free(theirs);
    if (status != RTM_OK)
        return status;
    /* member m got its part from m - bit (its lowest set bit); it forwards
     * the result to m + b for every lower b */
    if (me != 0) {
        status = coll_one(comm, NULL, mask, sizeof(*mask), MEMBER(me - bit), down);
        if (status != RTM_OK)
            return status;
    }
    for (bit >>= 1; bit > 0; bit >>= 1) {
        if (me + bit < n) {
            status = coll_one(comm, mask, NULL, sizeof(*mask), MEMBER(me + bit), down);
            if (status != RTM_OK)
                return status;
        }
    }
#undef MEMBER
    return RTM_OK;
}

/* mask &= every member's mask, over the whole communicator. */
static rtm_status_t coll_ctxid_agree(rtm_comm_obj_t *comm, rtm_ctxid_mask_t *mask)
{
    return ctxid_agree_among(comm, NULL, comm->size, comm->rank, COLL_TAG_CTXID,
                             COLL_TAG_CTXID + 256, mask);
}

/* A binomial-tree broadcast of len bytes from root on the collective context. */
static rtm_status_t coll_bcast(rtm_comm_obj_t *comm, int root, void *buf, size_t len, int tag)
{
    int n = comm->size, rel = (comm->rank - root + n) % n, bit;
    rtm_status_t status = RTM_OK;

    for (bit = 1; bit < n; bit <<= 1) {
        if (rel & bit) {
            status = coll_one(comm, NULL, buf, len, (rel - bit + root) % n, tag);
            break;
        }
    }
    if (status != RTM_OK)
        return status;
    for (bit >>= 1; bit > 0; bit >>= 1) {
        if (rel + bit < n) {
            status = coll_one(comm, buf, NULL, len, (rel + bit + root) % n, tag);
            if (status != RTM_OK)
                return status;
        }
    }
    return RTM_OK;
}

/* What each member contributes to a split. */
typedef struct split_entry {
    int      color;
    int      key;
    int      side;      /* binding_comm_inter: 0 or 1; a plain split: -1 */
} split_entry_t;

static int split_compare(const void *a, const void *b)
{
    const int *x = a, *y = b;   /* pairs (key, parent rank) */

    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : (x[1] > y[1]);
}

/* A split of parent (side -1), or the intercommunicators of
 * binding_comm_inter (side 0 or 1): this rank's group is the members of
 * its color and side, the remote group those of its color and the other
 * side, each ordered by (key, parent rank). */
static rtm_status_t comm_split_impl(rtm_comm_obj_t *parent, int color, int key, int side,
                                    rtm_comm_t *newcomm_p)
{
    split_entry_t mine = {color, key, side};
    split_entry_t *all = malloc((size_t)parent->size * sizeof(*all));
    rtm_ctxid_mask_t *agreed = malloc(sizeof(*agreed));
    int *pairs = NULL, *world_ranks = NULL;
    int n = 0, my_index = -1, slot;
    rtm_status_t status;

    if (all == NULL || agreed == NULL) {
        status = rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a split of %d ranks",
                               parent->size);
        goto out_free_all;
    }
    status = coll_allgather(parent, &mine, sizeof(mine), all);
    if (status != RTM_OK)
        goto out_free_all;
    *agreed = ctx_free;
    status = coll_ctxid_agree(parent, agreed);
    if (status != RTM_OK)
        goto out_free_all;
    /* the same answer on every member: the masks agreed on are the same */
    slot = ctxid_lowest(agreed);
    if (slot < 0) {
        status = rtm_error_set(RTM_ERR_NO_MEMORY, "no communicator id is free on every "
                               "member: at most %d communicators may be alive at once in "
                               "a process", RTM_CTXID_SLOTS);
        goto out_free_all;
    }
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
        if (all[i].color == color && (side < 0 || all[i].side == side)) {
            pairs[2 * n] = all[i].key;
            pairs[2 * n + 1] = i;
            n++;
        }
    }
    qsort(pairs, (size_t)n, 2 * sizeof(int), split_compare);
    for (int i = 0; i < n; i++)
        if (pairs[2 * i + 1] == parent->rank)
            my_index = i;
    if (side >= 0) {
        /* the ranks point-to-point names are the remote group's */
        n = 0;
        for (int i = 0; i < parent->size; i++) {
            if (all[i].color == color && all[i].side != side) {
                pairs[2 * n] = all[i].key;
                pairs[2 * n + 1] = i;
                n++;
            }
        }
        if (n == 0) {
            *newcomm_p = RTM_COMM_NULL;
            goto out_free_pairs;
        }
        qsort(pairs, (size_t)n, 2 * sizeof(int), split_compare);
    }
    world_ranks = malloc((size_t)n * sizeof(int));
    if (world_ranks == NULL) {
        status = rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a split");
        goto out_free_pairs;
    }
    for (int i = 0; i < n; i++)
        world_ranks[i] = parent->world_ranks[pairs[2 * i + 1]];
    status = comm_create(my_index, n, world_ranks, slot, newcomm_p);
    if (status != RTM_OK)
        free(world_ranks);
out_free_pairs:
    free(pairs);
out_free_all:
    free(agreed);
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
    return comm_split_impl(c, 0, c->rank, -1, newcomm_p);
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
    return comm_split_impl(c, color, key, -1, newcomm_p);
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
        return comm_split_impl(c, RTM_UNDEFINED, key, -1, newcomm_p);
    status = rtm_world_node(rtm_rt.world_rank, &node);
    if (status != RTM_OK)
        return status;
    return comm_split_impl(c, node, key, -1, newcomm_p);
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
    comm_destroy(*comm_p);
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

/* ---- Intercommunicators and group-collective creation (binding.h) ---- */

/* What a group's leader tells the other's in binding_comm_bridge (then its
 * world ranks), and then tells its own group (then the remote's ranks). */
typedef struct bridge_hello {
    rtm_ctxid_mask_t mask;   /* slots free on every member of the group (then of both) */
    int              size;   /* members of the group */
} bridge_hello_t;

rtm_status_t binding_comm_bridge(rtm_comm_t local, int local_leader, rtm_comm_t peer,
                                 int remote_leader, int tag, int *side_p,
                                 rtm_comm_t *bridge_p)
{
    rtm_comm_obj_t *lc = &rtm_rt.comms[local];
    bridge_hello_t *mine = malloc(sizeof(*mine)), *theirs = malloc(sizeof(*theirs));
    int *remote = NULL, *world = NULL, side, slot, total, wtag;
    rtm_status_t status;

    if (mine == NULL || theirs == NULL) {
        status = rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for an intercommunicator");
        goto out_free;
    }
    mine->mask = ctx_free;
    mine->size = lc->size;
    status = coll_ctxid_agree(lc, &mine->mask);
    if (status != RTM_OK)
        goto out_free;
    if (lc->rank == local_leader) {
        rtm_comm_obj_t *pc = &rtm_rt.comms[peer];

        wtag = COLL_TAG_BRIDGE | (tag & COLL_TAG_USER_MASK);
        status = coll_sendrecv(pc, mine, sizeof(*mine), remote_leader, theirs, sizeof(*theirs),
                               remote_leader, wtag);
        if (status != RTM_OK)
            goto out_free;
        if (theirs->size <= 0 || theirs->size > rtm_rt.world_size) {
            status = rtm_error_set(RTM_ERR_INVALID_ARG, "intercommunicator: the remote leader "
                                   "reports a group of %d ranks", theirs->size);
            goto out_free;
        }
        remote = malloc((size_t)theirs->size * sizeof(int));
        if (remote == NULL) {
            status = rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for an intercommunicator");
            goto out_free;
        }
        status = coll_sendrecv(pc, lc->world_ranks, (size_t)lc->size * sizeof(int),
                               remote_leader, remote, (size_t)theirs->size * sizeof(int),
                               remote_leader, wtag);
        if (status != RTM_OK)
            goto out_free;
        ctxid_and(&theirs->mask, &mine->mask);
    }
    status = coll_bcast(lc, local_leader, theirs, sizeof(*theirs), COLL_TAG_BRIDGE_BCAST);
    if (status != RTM_OK)
        goto out_free;
    if (remote == NULL && (remote = malloc((size_t)theirs->size * sizeof(int))) == NULL) {
        status = rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for an intercommunicator");
        goto out_free;
    }
    status = coll_bcast(lc, local_leader, remote, (size_t)theirs->size * sizeof(int),
                        COLL_TAG_BRIDGE_BCAST);
    if (status != RTM_OK)
        goto out_free;
    /* both groups order the union alike: the group whose rank 0 has the
     * lower world rank first (the groups are disjoint) */
    side = lc->world_ranks[0] < remote[0] ? 0 : 1;
    total = lc->size + theirs->size;
    slot = ctxid_lowest(&theirs->mask);
    if (slot < 0) {
        status = rtm_error_set(RTM_ERR_NO_MEMORY, "no communicator id is free on every "
                               "member of both groups");
        goto out_free;
    }
    world = malloc((size_t)total * sizeof(int));
    if (world == NULL) {
        status = rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for an intercommunicator");
        goto out_free;
    }
    memcpy(world + (side ? theirs->size : 0), lc->world_ranks, (size_t)lc->size * sizeof(int));
    memcpy(world + (side ? 0 : lc->size), remote, (size_t)theirs->size * sizeof(int));
    status = comm_create((side ? theirs->size : 0) + lc->rank, total, world, slot, bridge_p);
    if (status != RTM_OK) {
        free(world);
        goto out_free;
    }
    *side_p = side;
out_free:
    free(remote);
    free(theirs);
    free(mine);
    return status;
}

int binding_ctxid_take_from(int start)
{
    for (int slot = start < 0 ? 0 : start; slot < RTM_CTXID_SLOTS; slot++) {
        if (ctxid_is_free(&ctx_free, slot)) {
            ctxid_take(&ctx_free, slot);
            return slot;
        }
    }
    return -1;
}

int binding_ctxid_take(int slot)
{
    if (slot < 0 || slot >= RTM_CTXID_SLOTS || !ctxid_is_free(&ctx_free, slot))
        return 0;
    ctxid_take(&ctx_free, slot);
    return 1;
}

void binding_ctxid_release(int slot)
{
    if (slot >= 0 && slot < RTM_CTXID_SLOTS)
        ctxid_release(&ctx_free, slot);
}

rtm_status_t binding_comm_clone(rtm_comm_t model, int slot, rtm_comm_t *newcomm_p)
{
    rtm_comm_obj_t *m = &rtm_rt.comms[model];
    int *world = malloc((size_t)m->size * sizeof(int));
    rtm_status_t status;

    if (world == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a communicator");
    memcpy(world, m->world_ranks, (size_t)m->size * sizeof(int));
    status = comm_create(m->rank, m->size, world, slot, newcomm_p);
    if (status != RTM_OK)
        free(world);
    return status;
}

rtm_status_t binding_comm_inter(rtm_comm_t bridge, int color, int side, int key,
                                rtm_comm_t *inter_p)
{
    return comm_split_impl(&rtm_rt.comms[bridge], color, key, side, inter_p);
}

rtm_status_t binding_comm_group(rtm_comm_t comm, int n, const int *members, int tag,
                                rtm_comm_t *newcomm_p)
{
    rtm_comm_obj_t *c = &rtm_rt.comms[comm];
    rtm_ctxid_mask_t *agreed = malloc(sizeof(*agreed));
    int *world = malloc((size_t)n * sizeof(int)), me = -1, slot;
    rtm_status_t status;

    if (agreed == NULL || world == NULL) {
        status = rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a communicator");
        goto out_free;
    }
    for (int i = 0; i < n; i++) {
        world[i] = c->world_ranks[members[i]];
        if (members[i] == c->rank)
            me = i;
    }
    *agreed = ctx_free;
    tag &= COLL_TAG_USER_MASK;
    status = ctxid_agree_among(c, members, n, me, COLL_TAG_GROUP | tag,
                               COLL_TAG_GROUP | COLL_TAG_GROUP_DOWN | tag, agreed);
    if (status != RTM_OK)
        goto out_free;
    slot = ctxid_lowest(agreed);
    if (slot < 0) {
        status = rtm_error_set(RTM_ERR_NO_MEMORY, "no communicator id is free on every "
                               "member of the group");
        goto out_free;
    }
    status = comm_create(me, n, world, slot, newcomm_p);
    if (status == RTM_OK)
        world = NULL;
out_free:
    free(world);
    free(agreed);
    return status;
}
