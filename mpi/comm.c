/*
 * MPI communicators. Each one owns two native communicators: `pt2pt` for
 * the application's messages and a hidden duplicate `coll` on which the
 * collectives run, so a collective can never match a user message.
 */
#include "config.h"

#include "mpi_impl.h"
#include "intercomm.h"
#include "coll_sched.h"
#include "coll_shm.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rtmpi_comm_t **rtmpi_comms;   /* by handle; mpi_impl.h reads it inline */
int rtmpi_ncomms;
static int comms_cap;

static int handle_new(rtmpi_comm_t *c, MPI_Comm *h)
{
    for (int i = MPI_COMM_SELF + 1; i < rtmpi_ncomms; i++) {
        if (!rtmpi_comms[i]) {
            rtmpi_comms[i] = c;
            *h = i;
            return MPI_SUCCESS;
        }
    }
    if (rtmpi_ncomms == 0)
        rtmpi_ncomms = 1;   /* handle 0 is MPI_COMM_NULL */
    if (rtmpi_ncomms >= comms_cap) {
        int cap = comms_cap ? comms_cap * 2 : 16;
        rtmpi_comm_t **t = realloc(rtmpi_comms, (size_t)cap * sizeof(*t));

        if (!t)
            return MPI_ERR_NO_MEM;
        memset(t + comms_cap, 0, (size_t)(cap - comms_cap) * sizeof(*t));
        rtmpi_comms = t;
        comms_cap = cap;
    }
    rtmpi_comms[rtmpi_ncomms] = c;
    *h = rtmpi_ncomms++;
    return MPI_SUCCESS;
}

int rtmpi_comm_add(rtmpi_comm_t *c, MPI_Comm *newcomm_p)
{
    return handle_new(c, newcomm_p);
}

/* coll: the hidden collective communicator made already, or RTM_COMM_NULL
 * to duplicate pt2pt for it (collective over pt2pt). */
static int comm_wrap(rtm_comm_t pt2pt, rtm_comm_t coll, MPI_Comm parent, MPI_Comm *newcomm_p)
{
    rtmpi_comm_t *c = calloc(1, sizeof(*c)), *p = rtmpi_comm_get(parent);
    rtm_status_t st = RTM_OK;
    int rc = MPI_ERR_NO_MEM;

    if (!c) {
        if (coll != RTM_COMM_NULL)
            rtm_comm_free(&coll);
        goto err_free_native;
    }
    c->in_use = 1;
    c->pt2pt = pt2pt;
    c->errhandler = p ? p->errhandler : MPI_ERRORS_ARE_FATAL;
    rtmpi_errhandler_retain(c->errhandler);   /* errors.c counts its users */
    rtm_comm_rank(pt2pt, &c->rank);
    rtm_comm_size(pt2pt, &c->size);
    c->world_ranks = malloc((size_t)c->size * sizeof(int));
    if (!c->world_ranks)
        goto err_free_comm;
    for (int i = 0; i < c->size; i++)
        rtm_comm_world_rank(pt2pt, i, &c->world_ranks[i]);
    if (coll != RTM_COMM_NULL)
        c->coll = coll;
    else
        st = rtm_comm_dup(pt2pt, &c->coll);
    if (st != RTM_OK) {
        rc = rtmpi_class_of(st);
        goto err_free_ranks;
    }
    rc = handle_new(c, newcomm_p);
    if (rc)
        goto err_free_coll;
    return MPI_SUCCESS;

err_free_coll:
    rtm_comm_free(&c->coll);
err_free_ranks:
    free(c->world_ranks);
err_free_comm:
    rtmpi_errhandler_release(c->errhandler);
    free(c);
err_free_native:
    if (pt2pt != RTM_COMM_WORLD && pt2pt != RTM_COMM_SELF)
        rtm_comm_free(&pt2pt);
    return rc;
}

int rtmpi_comm_wrap(rtm_comm_t pt2pt, const char *fn, MPI_Comm parent, MPI_Comm *newcomm_p)
{
    (void)fn;
    return comm_wrap(pt2pt, RTM_COMM_NULL, parent, newcomm_p);
}

int rtmpi_comm_init(void)
{
    MPI_Comm h;
    int rc;

    if ((rc = rtmpi_comm_wrap(RTM_COMM_WORLD, "MPI_Init", MPI_COMM_NULL, &h)))
        return rc;
    if ((rc = rtmpi_comm_wrap(RTM_COMM_SELF, "MPI_Init", MPI_COMM_NULL, &h)))
        return rc;
    strcpy(rtmpi_comms[MPI_COMM_WORLD]->name, "MPI_COMM_WORLD");
    strcpy(rtmpi_comms[MPI_COMM_SELF]->name, "MPI_COMM_SELF");
    return MPI_SUCCESS;
}

static void comm_destroy(MPI_Comm h)
{
    rtmpi_comm_t *c = rtmpi_comms[h];

    coll_shm_free(c);
    rtm_comm_free(&c->coll);
    if (h != MPI_COMM_WORLD && h != MPI_COMM_SELF)
        rtm_comm_free(&c->pt2pt);
    rtmpi_errhandler_release(c->errhandler);
    rtmpi_topo_free(c->topo);
    rtmpi_inter_free(c->inter);
    if (c->info != MPI_INFO_NULL)
        PMPI_Info_free(&c->info);
    free(c->world_ranks);
    free(c);
    rtmpi_comms[h] = NULL;
}

void rtmpi_comm_retain(MPI_Comm h)
{
    rtmpi_comm_t *c = rtmpi_comm_obj(h);

    if (c && h > MPI_COMM_SELF)
        c->refs++;
}

void rtmpi_comm_release(MPI_Comm h)
{
    rtmpi_comm_t *c = rtmpi_comm_obj(h);

    if (c && h > MPI_COMM_SELF && --c->refs == 0 && !c->in_use)
        comm_destroy(h);
}

void rtmpi_comm_finalize(void)
{
    /* MPI_COMM_SELF first: tools hang finalization hooks on its attributes. */
    rtmpi_attrs_delete_all(MPI_COMM_SELF, rtmpi_comms[MPI_COMM_SELF]);
    for (int i = 1; i < rtmpi_ncomms; i++)
        if (rtmpi_comms[i] && i != MPI_COMM_SELF)
            rtmpi_attrs_delete_all(i, rtmpi_comms[i]);
    for (int i = 1; i < rtmpi_ncomms; i++)
        if (rtmpi_comms[i])
            comm_destroy(i);
    free(rtmpi_comms);
    rtmpi_comms = NULL;
    rtmpi_ncomms = comms_cap = 0;
}

#define GET_COMM(_comm, _c) \
    rtmpi_comm_t *_c = rtmpi_comm_get(_comm); \
    if (!_c) \
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", _comm)

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    RTMPI_ENTER();
    GET_COMM(comm, c);
    if (!size)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "size is NULL");
    *size = c->inter ? c->inter->local_size : c->size;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_size)

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    RTMPI_ENTER();
    GET_COMM(comm, c);
    if (!rank)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "rank is NULL");
    *rank = c->rank;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_rank)

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    rtm_comm_t n;
    rtm_status_t st;
    int rc;

    RTMPI_ENTER();
    GET_COMM(comm, c);
    if (!newcomm)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "newcomm is NULL");
    if (c->inter) {
        if ((rc = rtmpi_inter_split(__func__, comm, c, 0, c->rank, newcomm)))
            return rc;
    } else {
        st = rtm_comm_dup(c->pt2pt, &n);
        if (st != RTM_OK)
            return rtmpi_error_rtm(comm, __func__, st);
        if ((rc = rtmpi_comm_wrap(n, __func__, comm, newcomm)))
            return rtmpi_error(comm, __func__, rc, "cannot create the communicator");
    }
    rtmpi_comm_t *nc = rtmpi_comm_get(*newcomm);
    nc->topo = rtmpi_topo_copy(c->topo);
    rc = rtmpi_attrs_copy(comm, c, nc);
    if (rc) {
        PMPI_Comm_free(newcomm);
        return rtmpi_error(comm, __func__, rc, "an attribute copy callback failed");
    }
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_dup)

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    int rc;

    RTMPI_ENTER();
    GET_COMM(comm, c);
    (void)c;
    if (info != MPI_INFO_NULL && PMPI_Info_get_nkeys(info, &rc) != MPI_SUCCESS)
        return MPI_ERR_INFO;
    if ((rc = PMPI_Comm_dup(comm, newcomm)))
        return rc;
    /* the new communicator's hints are info's, not comm's */
    return PMPI_Comm_set_info(*newcomm, info);
}
RTMPI_WEAK(Comm_dup_with_info)

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    rtm_comm_t n = RTM_COMM_NULL;
    rtm_status_t st;
    int rc;

    RTMPI_ENTER();
    GET_COMM(comm, c);
    if (!newcomm)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "newcomm is NULL");
    if (c->inter)
        return rtmpi_inter_split(__func__, comm, c, color, key, newcomm);
    if (color < 0 && color != MPI_UNDEFINED)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "color %d is negative", color);
    st = rtm_comm_split(c->pt2pt, color == MPI_UNDEFINED ? RTM_UNDEFINED : color, key, &n);
    if (st != RTM_OK)
        return rtmpi_error_rtm(comm, __func__, st);
    if (n == RTM_COMM_NULL) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if ((rc = rtmpi_comm_wrap(n, __func__, comm, newcomm)))
        return rtmpi_error(comm, __func__, rc, "cannot create the communicator");
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_split)

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                         MPI_Comm *newcomm)
{
    int node = 0;

    (void)info;
    RTMPI_ENTER();
    GET_COMM(comm, c);
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "unknown split type %d", split_type);
    /* A split by host: every rank takes part even with MPI_UNDEFINED. */
    if (split_type == MPI_COMM_TYPE_SHARED) {
        rtm_status_t st = rtm_world_node(rtmpi_state.world_rank, &node);

        if (st != RTM_OK)
            return rtmpi_error_rtm(comm, __func__, st);
    }
    return PMPI_Comm_split(comm, split_type == MPI_UNDEFINED ? MPI_UNDEFINED : node, key,
                           newcomm);
}
RTMPI_WEAK(Comm_split_type)

/* Rank in c of world rank w (the local group of an intercommunicator), or
 * -1. */
static int local_rank_of(const rtmpi_comm_t *c, int w)
{
    const int *ranks = c->inter ? c->inter->local_world : c->world_ranks;
    int n = c->inter ? c->inter->local_size : c->size;

    for (int i = 0; i < n; i++)
        if (ranks[i] == w)
            return i;
    return -1;
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    const int *members;
    int n, grank = -1, color = MPI_UNDEFINED;

    RTMPI_ENTER();
    GET_COMM(comm, c);
    if (!newcomm)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "newcomm is NULL");
    if (rtmpi_group_members(group, &n, &members))
        return rtmpi_error(comm, __func__, MPI_ERR_GROUP, "invalid group %d", group);
    /* every member must be in comm's (local) group */
    for (int i = 0; i < n; i++) {
        int r = local_rank_of(c, members[i]);

        if (r < 0)
            return rtmpi_error(comm, __func__, MPI_ERR_GROUP, "rank %d of the group (world "
                               "rank %d) is not in the communicator's group", i, members[i]);
        if (members[i] == rtmpi_state.world_rank)
            grank = i;
        /* MPI 2.2: the groups may differ between processes if they are
         * disjoint; the color of a group is its rank 0's rank in comm */
        if (i == 0)
            color = r;
    }
    if (grank < 0)
        color = MPI_UNDEFINED;
    /* ranks of the group keep the group's order; the others get COMM_NULL */
    if (c->inter)
        return rtmpi_inter_split(__func__, comm, c, grank < 0 ? MPI_UNDEFINED : 0, grank,
                                 newcomm);
    return PMPI_Comm_split(comm, color, grank, newcomm);
}
RTMPI_WEAK(Comm_create)

int PMPI_Comm_free(MPI_Comm *comm)
{
    int rc;

    RTMPI_ENTER();
    if (!comm)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "comm is NULL");
    GET_COMM(*comm, c);
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return rtmpi_error(*comm, __func__, MPI_ERR_COMM, "%s cannot be freed", c->name);
    if ((rc = rtmpi_attrs_delete_all(*comm, c)))
        return rtmpi_error(*comm, __func__, rc, "an attribute delete callback failed");
    c->in_use = 0;
    if (c->refs == 0)   /* else the last request holding it destroys it */
        comm_destroy(*comm);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_free)

/* MPI_CONGRUENT (same ranks, same order), MPI_SIMILAR or MPI_UNEQUAL. */
static int ranks_compare(int na, const int *a, int nb, const int *b)
{
    if (na != nb)
        return MPI_UNEQUAL;
    if (na == 0 || !memcmp(a, b, (size_t)na * sizeof(int)))
        return MPI_CONGRUENT;
    for (int i = 0; i < na; i++) {
        int found = 0;

        for (int j = 0; j < nb && !found; j++)
            found = a[i] == b[j];
        if (!found)
            return MPI_UNEQUAL;
    }
    return MPI_SIMILAR;
}

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    RTMPI_ENTER();
    GET_COMM(comm1, a);
    GET_COMM(comm2, b);
    if (!result)
        return rtmpi_error(comm1, __func__, MPI_ERR_ARG, "result is NULL");
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (!a->inter != !b->inter) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    *result = ranks_compare(a->size, a->world_ranks, b->size, b->world_ranks);
    if (a->inter && *result != MPI_UNEQUAL) {
        /* both groups: the weaker of the two answers */
        int local = ranks_compare(a->inter->local_size, a->inter->local_world,
                                  b->inter->local_size, b->inter->local_world);

        if (local == MPI_UNEQUAL || (local == MPI_SIMILAR && *result == MPI_CONGRUENT))
            *result = local;
    }
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_compare)

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    RTMPI_ENTER();
    GET_COMM(comm, c);
    if (!group)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "group is NULL");
    int rc = c->inter ? rtmpi_group_new(c->inter->local_size, c->inter->local_world, group)
                      : rtmpi_group_new(c->size, c->world_ranks, group);
    return rc ? rtmpi_error(comm, __func__, rc, "cannot create the group") : MPI_SUCCESS;
}
RTMPI_WEAK(Comm_group)

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    RTMPI_ENTER();
    GET_COMM(comm, c);
    if (!flag)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "flag is NULL");
    *flag = c->inter != NULL;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_test_inter)

int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    RTMPI_ENTER();
    GET_COMM(comm, c);
    if (!comm_name)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "comm_name is NULL");
    snprintf(c->name, sizeof(c->name), "%s", comm_name);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_set_name)

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    RTMPI_ENTER();
    GET_COMM(comm, c);
    if (!comm_name || !resultlen)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "comm_name or resultlen is NULL");
    strcpy(comm_name, c->name);
    *resultlen = (int)strlen(c->name);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_get_name)

/* MPI_Comm_idup agrees on the new communicator's two context ids (its
 * point-to-point one and its hidden collective one) in a schedule, so it
 * waits for nobody. For an intercommunicator the two are those of its
 * native intercommunicator and of its bridge, and the schedule runs on the
 * bridge, so the members of both groups agree on them. The blocking
 * creations AND the members' masks of free ids, which needs every member's
 * mask at one time; here each round every member proposes (and takes, so no
 * other creation can use them) its two lowest free ids from `start` up, the
 * MAX of the proposals is the candidate pair (the second above the first,
 * as on every member), and each member takes it if it can; the MIN of their
 * answers says whether all could. If not, every member gives back what it
 * took and the next round starts above the first candidate, so the rounds
 * end. (Open MPI agrees on its ids in the same way.) */
#define IDUP_NONE INT_MAX   /* no id to propose: above every id */
typedef struct idup {
    MPI_Comm  comm, *newcomm;
    int       rank, size;    /* in the parent's collective communicator */
    int       start;
    int       mine[2];       /* proposed and taken (-1: none) */
    int       held[2];       /* the candidates this member holds */
    int       val[2], tmp[2];
    int       ok, oktmp;
} idup_t;

/* buf = op of every member's buf: a binomial reduce to rank 0 then a
 * binomial broadcast over the same tree (between a parent and a child one
 * message each way). */
static int idup_allreduce(rtmpi_sched_t *s, idup_t *d, int *buf, int *tmp, int count, MPI_Op op)
{
    int mask, lowbit = 1;

    while (lowbit < d->size)
        lowbit <<= 1;   /* rank 0: above every child */
    rtmpi_sched_round(s);
    for (mask = 1; mask < d->size; mask <<= 1) {
        if (d->rank & mask) {
            rtmpi_sched_send(s, buf, count, MPI_INT, d->rank - mask);
            rtmpi_sched_round(s);
            rtmpi_sched_recv(s, buf, count, MPI_INT, d->rank - mask);
            rtmpi_sched_round(s);
            lowbit = mask;
            break;
        }
        if (d->rank + mask < d->size) {
            rtmpi_sched_recv(s, tmp, count, MPI_INT, d->rank + mask);
            rtmpi_sched_round(s);
            rtmpi_sched_reduce(s, tmp, buf, count, MPI_INT, op);
        }
    }
    /* the children are rank + mask for every mask below the lowest bit of rank */
    for (mask = lowbit >> 1; mask > 0; mask >>= 1)
        if (d->rank + mask < d->size)
            rtmpi_sched_send(s, buf, count, MPI_INT, d->rank + mask);
    rtmpi_sched_round(s);
    return rtmpi_sched_failed(s);
}

static int idup_check(rtmpi_sched_t *s, void *arg);
static int idup_decide(rtmpi_sched_t *s, void *arg);

static int idup_propose(rtmpi_sched_t *s, void *arg)
{
    idup_t *d = arg;

    d->mine[0] = binding_ctxid_take_from(d->start);
    d->mine[1] = d->mine[0] >= 0 ? binding_ctxid_take_from(d->mine[0] + 1) : -1;
    for (int k = 0; k < 2; k++)
        d->val[k] = d->mine[k] >= 0 ? d->mine[k] : IDUP_NONE;
    if (idup_allreduce(s, d, d->val, d->tmp, 2, MPI_MAX))
        return MPI_ERR_NO_MEM;
    return rtmpi_sched_call(s, idup_check, d);
}

static int idup_check(rtmpi_sched_t *s, void *arg)
{
    idup_t *d = arg;

    d->ok = 1;
    for (int k = 0; k < 2; k++) {
        int id = d->val[k];

        d->held[k] = id == d->mine[0] || id == d->mine[1] || binding_ctxid_take(id);
        d->ok &= d->held[k];
    }
    for (int k = 0; k < 2; k++)
        if (d->mine[k] >= 0 && d->mine[k] != d->val[0] && d->mine[k] != d->val[1])
            binding_ctxid_release(d->mine[k]);
    d->mine[0] = d->mine[1] = -1;
    if (d->val[1] >= IDUP_NONE) {
        /* some member has no two ids free from start up: all see it */
        for (int k = 0; k < 2; k++)
            if (d->held[k])
                binding_ctxid_release(d->val[k]);
        return MPI_ERR_INTERN;
    }
    if (idup_allreduce(s, d, &d->ok, &d->oktmp, 1, MPI_MIN))
        return MPI_ERR_NO_MEM;
    return rtmpi_sched_call(s, idup_decide, d);
}

static int idup_decide(rtmpi_sched_t *s, void *arg)
{
    idup_t *d = arg;
    rtmpi_comm_t *c = rtmpi_comm_get(d->comm);
    rtm_comm_t p2p = RTM_COMM_NULL, coll = RTM_COMM_NULL;
    MPI_Comm h;
    int rc;

    if (!d->ok) {
        for (int k = 0; k < 2; k++)
            if (d->held[k])
                binding_ctxid_release(d->val[k]);
        d->start = d->val[0] + 1;
        return idup_propose(s, d);
    }
    if (binding_comm_clone(c->pt2pt, d->val[0], &p2p) != RTM_OK) {
        binding_ctxid_release(d->val[0]);
        binding_ctxid_release(d->val[1]);
        return MPI_ERR_NO_MEM;
    }
    if (binding_comm_clone(c->coll, d->val[1], &coll) != RTM_OK) {
        rtm_comm_free(&p2p);
        binding_ctxid_release(d->val[1]);
        return MPI_ERR_NO_MEM;
    }
    /* an intercommunicator's pt2pt is its native intercommunicator and its
     * coll the bridge: the clones keep both groups, ranks and sides */
    rc = c->inter ? rtmpi_inter_wrap(p2p, coll, c->inter->side, d->comm, &h)
                  : comm_wrap(p2p, coll, d->comm, &h);
    if (rc)
        return rc;
    rtmpi_comm_t *nc = rtmpi_comm_get(h);
    nc->topo = rtmpi_topo_copy(c->topo);
    if ((rc = rtmpi_attrs_copy(d->comm, c, nc))) {
        PMPI_Comm_free(&h);
        return rc;
    }
    *d->newcomm = h;
    return MPI_SUCCESS;
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    rtmpi_sched_t *s;
    idup_t *d;
    int rc;

    RTMPI_ENTER();
    GET_COMM(comm, c);
    if (!newcomm || !request)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "newcomm or request is NULL");
    *newcomm = MPI_COMM_NULL;   /* valid at completion only */
    s = rtmpi_sched_new(comm);
    d = s ? rtmpi_sched_tmp(s, sizeof(*d)) : NULL;
    if (d) {
        memset(d, 0, sizeof(*d));
        d->comm = comm;
        d->newcomm = newcomm;
        /* the agreement runs on the collective communicator: for an
         * intercommunicator the bridge, of both groups */
        d->rank = c->inter ? rtmpi_inter_local_br(c, c->rank) : c->rank;
        d->size = c->inter ? c->inter->local_size + c->size : c->size;
        d->start = 0;
        d->mine[0] = d->mine[1] = -1;
        rtmpi_sched_call(s, idup_propose, d);
    }
    if (!s || (rc = rtmpi_sched_start(s, request)))
        return rtmpi_error(comm, __func__, MPI_ERR_NO_MEM, "no memory for the request");
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_idup)

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    const int *world;
    int n, me = -1, rc, *members;
    rtm_comm_t nc;
    rtm_status_t st;

    RTMPI_ENTER();
    GET_COMM(comm, c);
    if (c->inter)
        return rtmpi_error(comm, __func__, MPI_ERR_COMM, "comm is an intercommunicator");
    if (!newcomm)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "newcomm is NULL");
    if (tag < 0)
        return rtmpi_error(comm, __func__, MPI_ERR_TAG, "tag %d is negative", tag);
    if (rtmpi_group_members(group, &n, &world))
        return rtmpi_error(comm, __func__, MPI_ERR_GROUP, "invalid group %d", group);
    members = malloc((size_t)(n ? n : 1) * sizeof(int));
    if (!members)
        return rtmpi_error(comm, __func__, MPI_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < n; i++) {
        members[i] = local_rank_of(c, world[i]);
        if (members[i] < 0) {
            free(members);
            return rtmpi_error(comm, __func__, MPI_ERR_GROUP, "rank %d of the group (world "
                               "rank %d) is not in the communicator", i, world[i]);
        }
        if (members[i] == c->rank)
            me = i;
    }
    if (me < 0) {
        /* not a member: nothing to take part in */
        free(members);
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    st = binding_comm_group(c->pt2pt, n, members, tag, &nc);
    free(members);
    if (st != RTM_OK)
        return rtmpi_error_rtm(comm, __func__, st);
    if ((rc = rtmpi_comm_wrap(nc, __func__, comm, newcomm)))
        return rtmpi_error(comm, __func__, rc, "cannot create the communicator");
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_create_group)

/* No hint changes how a communicator behaves here: the hints are kept and
 * handed back as they were set. */
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    MPI_Info copy = MPI_INFO_NULL;
    int rc;

    RTMPI_ENTER();
    GET_COMM(comm, c);
    if (info != MPI_INFO_NULL && (rc = PMPI_Info_dup(info, &copy)))
        return rtmpi_error(comm, __func__, rc, "invalid info %d", info);
    if (c->info != MPI_INFO_NULL)
        PMPI_Info_free(&c->info);
    c->info = copy;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_set_info)

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    int rc;

    RTMPI_ENTER();
    GET_COMM(comm, c);
    if (!info_used)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "info_used is NULL");
    rc = c->info != MPI_INFO_NULL ? PMPI_Info_dup(c->info, info_used)
                                  : PMPI_Info_create(info_used);
    return rc ? rtmpi_error(comm, __func__, rc, "cannot create the info object") : MPI_SUCCESS;
}
RTMPI_WEAK(Comm_get_info)

/* Collective: once every member is here (a barrier), the messages each
 * sent on comm before have been received or are matched, and comm is
 * freed. */
int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    int rc;

    RTMPI_ENTER();
    if (!comm)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "comm is NULL");
    GET_COMM(*comm, c);
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return rtmpi_error(*comm, __func__, MPI_ERR_COMM, "%s cannot be disconnected", c->name);
    if ((rc = PMPI_Barrier(*comm)))
        return rc;
    return PMPI_Comm_free(comm);
}
RTMPI_WEAK(Comm_disconnect)
