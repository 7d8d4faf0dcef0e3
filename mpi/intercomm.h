/*
 * Intercommunicators (intercomm.c) and their collectives (coll_inter.c).
 *
 * An intercommunicator's rtmpi_comm_t names the remote group in size and
 * world_ranks (what point-to-point ranks name, so the point-to-point
 * paths need no case of their own) and keeps its own group here. Its
 * hidden `coll` communicator is the bridge, a native intracommunicator of
 * both groups: the side-0 group's ranks first (the group whose rank 0 has
 * the lower world rank when MPI_Intercomm_create made the first one), then
 * side 1's, each in rank order. Collectives run on the bridge's
 * point-to-point context; dup, split, create and merge are splits of it.
 */
#ifndef RTMPI_INTERCOMM_H
#define RTMPI_INTERCOMM_H

#include "mpi_impl.h"

typedef struct rtmpi_inter {
    int  local_size;     /* MPI_Comm_size */
    int *local_world;    /* world rank of each rank of the local group */
    int  side;           /* 0 or 1: where the local group sits in the bridge */
    int  low_size;       /* members of the side-0 group: the bridge's first ranks */
} rtmpi_inter_t;

/* Bridge rank of local rank i, of remote rank j. */
static inline int rtmpi_inter_local_br(const rtmpi_comm_t *c, int i)
{
    return c->inter->side ? c->inter->low_size + i : i;
}

static inline int rtmpi_inter_remote_br(const rtmpi_comm_t *c, int j)
{
    return c->inter->side ? j : c->inter->low_size + j;
}

/* A new handle for c (comm.c). */
int rtmpi_comm_add(rtmpi_comm_t *c, MPI_Comm *newcomm_p);
/* MPI_Comm_split on an intercommunicator (dup: color 0, key = rank;
 * create: color 0 for the group's members, key = rank in the group). */
int rtmpi_inter_split(const char *fn, MPI_Comm comm, rtmpi_comm_t *c, int color, int key,
                      MPI_Comm *newcomm_p);
void rtmpi_inter_free(rtmpi_inter_t *inter);
/* A handle for native intercommunicator inter with bridge bridge, this
 * process on side `side` (both owned from here on, freed on failure);
 * errhandler from parent (MPI_Comm_idup builds the pair itself). */
int rtmpi_inter_wrap(rtm_comm_t inter, rtm_comm_t bridge, int side, MPI_Comm parent,
                     MPI_Comm *newcomm_p);
/* The members of a group (group.c): MPI_ERR_GROUP when it is not valid. */
int rtmpi_group_members(MPI_Group group, int *n_p, const int **world_ranks_p);

#endif
