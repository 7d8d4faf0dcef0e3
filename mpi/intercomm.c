/*
 * Intercommunicators (MPI 3.1 section 6.6): MPI_Intercomm_create and
 * _merge, the remote group, and the split every other constructor of an
 * intercommunicator is made of (intercomm.h explains the bridge).
 */
#include "config.h"

#include "intercomm.h"

#include <stdlib.h>
#include <string.h>

void rtmpi_inter_free(rtmpi_inter_t *inter)
{
    if (inter) {
        free(inter->local_world);
        free(inter);
    }
}

/* A handle for native intercommunicator `inter` with bridge `bridge` (both
 * owned from here on, freed on failure); errhandler from parent. */
int rtmpi_inter_wrap(rtm_comm_t inter, rtm_comm_t bridge, int side, MPI_Comm parent,
                     MPI_Comm *newcomm_p)
{
    rtmpi_comm_t *c = calloc(1, sizeof(*c)), *p = rtmpi_comm_get(parent);
    rtmpi_inter_t *in = calloc(1, sizeof(*in));
    int bsize = 0, rc = MPI_ERR_NO_MEM;

    if (!c || !in)
        goto err_free;
    c->in_use = 1;
    c->pt2pt = inter;
    c->coll = bridge;
    c->inter = in;
    c->errhandler = p ? p->errhandler : MPI_ERRORS_ARE_FATAL;
    rtmpi_errhandler_retain(c->errhandler);   /* comm_destroy releases it */
    rtm_comm_rank(inter, &c->rank);
    rtm_comm_size(inter, &c->size);
    rtm_comm_size(bridge, &bsize);
    in->side = side;
    in->local_size = bsize - c->size;
    in->low_size = side ? c->size : in->local_size;
    c->world_ranks = malloc((size_t)c->size * sizeof(int));
    in->local_world = malloc((size_t)in->local_size * sizeof(int));
    if (!c->world_ranks || !in->local_world)
        goto err_free;
    for (int j = 0; j < c->size; j++)
        rtm_comm_world_rank(inter, j, &c->world_ranks[j]);
    for (int i = 0; i < in->local_size; i++)
        rtm_comm_world_rank(bridge, rtmpi_inter_local_br(c, i), &in->local_world[i]);
    rc = rtmpi_comm_add(c, newcomm_p);
    if (rc)
        goto err_free;
    return MPI_SUCCESS;

err_free:
    if (c && c->in_use) {
        rtmpi_errhandler_release(c->errhandler);
        free(c->world_ranks);
    }
    free(c);
    rtmpi_inter_free(in);
    rtm_comm_free(&inter);
    rtm_comm_free(&bridge);
    return rc;
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    rtm_comm_t bridge = RTM_COMM_NULL, inter = RTM_COMM_NULL;
    rtmpi_comm_t *lc, *pc = NULL;
    rtm_status_t st;
    int side = 0, rc;

    RTMPI_ENTER();
    lc = rtmpi_comm_get(local_comm);
    if (!lc)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM,
                           "invalid local communicator %d", local_comm);
    if (lc->inter)
        return rtmpi_error(local_comm, __func__, MPI_ERR_COMM,
                           "the local communicator is an intercommunicator");
    if (!newintercomm)
        return rtmpi_error(local_comm, __func__, MPI_ERR_ARG, "newintercomm is NULL");
    if (local_leader < 0 || local_leader >= lc->size)
        return rtmpi_error(local_comm, __func__, MPI_ERR_RANK,
                           "local_leader %d not in 0..%d", local_leader, lc->size - 1);
    if (tag < 0)
        return rtmpi_error(local_comm, __func__, MPI_ERR_TAG, "tag %d is negative", tag);
    if (lc->rank == local_leader) {
        /* peer_comm and remote_leader mean something at the leader only */
        pc = rtmpi_comm_get(peer_comm);
        if (!pc)
            return rtmpi_error(local_comm, __func__, MPI_ERR_COMM,
                               "invalid peer communicator %d", peer_comm);
        if (remote_leader < 0 || remote_leader >= pc->size ||
            (!pc->inter && remote_leader == pc->rank))
            return rtmpi_error(local_comm, __func__, MPI_ERR_RANK,
                               "remote_leader %d is not another rank of the peer "
                               "communicator (0..%d)", remote_leader, pc->size - 1);
    }
    st = binding_comm_bridge(lc->pt2pt, local_leader, pc ? pc->pt2pt : RTM_COMM_NULL,
                             remote_leader, tag, &side, &bridge);
    if (st != RTM_OK)
        return rtmpi_error_rtm(local_comm, __func__, st);
    st = binding_comm_inter(bridge, 0, side, lc->rank, &inter);
    if (st != RTM_OK) {
        rtm_comm_free(&bridge);
        return rtmpi_error_rtm(local_comm, __func__, st);
    }
    if ((rc = rtmpi_inter_wrap(inter, bridge, side, local_comm, newintercomm)))
        return rtmpi_error(local_comm, __func__, rc, "cannot create the intercommunicator");
    return MPI_SUCCESS;
}
RTMPI_WEAK(Intercomm_create)

int rtmpi_inter_split(const char *fn, MPI_Comm comm, rtmpi_comm_t *c, int color, int key,
                      MPI_Comm *newcomm_p)
{
    rtm_comm_t inter = RTM_COMM_NULL, bridge = RTM_COMM_NULL;
    int side = c->inter->side, bsize = c->inter->local_size + c->size, newrank = 0;
    rtm_status_t st;

    if (color < 0 && color != MPI_UNDEFINED)
        return rtmpi_error(comm, fn, MPI_ERR_ARG, "color %d is negative", color);
    st = binding_comm_inter(c->coll, color == MPI_UNDEFINED ? RTM_UNDEFINED : color, side, key,
                            &inter);
    if (st != RTM_OK)
        return rtmpi_error_rtm(comm, fn, st);
    if (inter != RTM_COMM_NULL)
        rtm_comm_rank(inter, &newrank);
    /* the new bridge: the new side-0 group, then side 1's, each in its new
     * rank order; who has no intercommunicator takes no part */
    st = rtm_comm_split(c->coll, inter == RTM_COMM_NULL ? RTM_UNDEFINED : color,
                        side * bsize + newrank, &bridge);
    if (st != RTM_OK) {
        if (inter != RTM_COMM_NULL)
            rtm_comm_free(&inter);
        return rtmpi_error_rtm(comm, fn, st);
    }
    if (inter == RTM_COMM_NULL) {
        *newcomm_p = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    int rc = rtmpi_inter_wrap(inter, bridge, side, comm, newcomm_p);
    return rc ? rtmpi_error(comm, fn, rc, "cannot create the intercommunicator") : MPI_SUCCESS;
}

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    rtmpi_comm_t *c;
    rtm_comm_t n;
    rtm_status_t st;
    int rc, bsize;

    RTMPI_ENTER();
    c = rtmpi_comm_get(intercomm);
    if (!c)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d",
                           intercomm);
    if (!c->inter)
        return rtmpi_error(intercomm, __func__, MPI_ERR_COMM, "not an intercommunicator");
    if (!newintracomm)
        return rtmpi_error(intercomm, __func__, MPI_ERR_ARG, "newintracomm is NULL");
    /* the group that passed high = 0 first; when both passed the same, the
     * bridge's order (MPI leaves it open) */
    bsize = c->inter->local_size + c->size;
    st = rtm_comm_split(c->coll, 0, (high ? 2 * bsize : 0) + rtmpi_inter_local_br(c, c->rank),
                        &n);
    if (st != RTM_OK)
        return rtmpi_error_rtm(intercomm, __func__, st);
    if ((rc = rtmpi_comm_wrap(n, __func__, intercomm, newintracomm)))
        return rtmpi_error(intercomm, __func__, rc, "cannot create the communicator");
    return MPI_SUCCESS;
}
RTMPI_WEAK(Intercomm_merge)

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    rtmpi_comm_t *c;

    RTMPI_ENTER();
    c = rtmpi_comm_get(comm);
    if (!c)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d",
                           comm);
    if (!c->inter)
        return rtmpi_error(comm, __func__, MPI_ERR_COMM, "not an intercommunicator");
    if (!size)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "size is NULL");
    *size = c->size;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_remote_size)

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    rtmpi_comm_t *c;
    int rc;

    RTMPI_ENTER();
    c = rtmpi_comm_get(comm);
    if (!c)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d",
                           comm);
    if (!c->inter)
        return rtmpi_error(comm, __func__, MPI_ERR_COMM, "not an intercommunicator");
    if (!group)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "group is NULL");
    rc = rtmpi_group_new(c->size, c->world_ranks, group);
    return rc ? rtmpi_error(comm, __func__, rc, "cannot create the group") : MPI_SUCCESS;
}
RTMPI_WEAK(Comm_remote_group)
