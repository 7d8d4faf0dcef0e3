/*
 * Shared-memory collectives (coll_shm.c): MPI_Barrier, MPI_Bcast,
 * MPI_Reduce, MPI_Allreduce, MPI_Allgather and MPI_Alltoall among the ranks of an intracommunicator
 * that are all on one host, through a segment the communicator's ranks
 * map at its second collective that could use it (collective: every rank
 * agrees to use it or not). Blocking collectives only; the nonblocking ones keep
 * their schedules. docs/collectives.md, "Shared memory".
 *
 * Each coll_shm_* returns COLL_SHM_DECLINED when the communicator has no
 * segment (ranks on several hosts, RTM_MPI_COLL_SHM=0, the segment could
 * not be made at some rank, an intercommunicator) or the datatype cannot
 * go through it; the caller then runs its network algorithm. The answer is
 * the same at every rank, as long as the caller asks with arguments MPI
 * requires to agree (sizes in bytes, the reduction's datatype and op).
 */
#ifndef RTMPI_COLL_SHM_H
#define RTMPI_COLL_SHM_H

#include "coll.h"
#include "mpi_state.h"   /* rtmpi_call_enter, for the callers */

#define COLL_SHM_DECLINED (-1)

/* The communicator may have (or get) a segment: a cheap test before the
 * size checks of a caller. */
int coll_shm_usable(cinfo_t *ci);
/* coll_shm_usable, and count elements of dt within max bytes, within pair
 * on a communicator of 2 ranks (whose one message both ranks copy:
 * RTM_SHM_CMA_SPLIT) */
int coll_shm_fits(cinfo_t *ci, int count, MPI_Datatype dt, size_t max, size_t pair);
int coll_shm_barrier(cinfo_t *ci);
int coll_shm_bcast(cinfo_t *ci, void *buf, int count, MPI_Datatype dt, int root);
int coll_shm_reduce(cinfo_t *ci, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                    MPI_Op op, int root);
/* Allreduce goes through the segment up to RTM_MPI_ALLREDUCE_SHM_MAX
 * bytes, or up to the larger of it and RTM_MPI_ALLREDUCE_SHM_MAX_OVERSUB
 * when the host was oversubscribed at the segment's setup (rank 0's view,
 * agreed by all); coll_shm_allreduce_max is that larger one, also the
 * caller's first test. */
size_t coll_shm_allreduce_max(void);
int coll_shm_allreduce(cinfo_t *ci, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                       MPI_Op op);
/* MPI_Alltoall when a rank's p blocks fit one slot (sbuf may be
 * MPI_IN_PLACE). */
int coll_shm_alltoall(cinfo_t *ci, const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                      int rcount, MPI_Datatype rdt);
/* MPI_Allgather of blocks up to RTM_MPI_ALLGATHER_SHM_MAX bytes (sbuf may
 * be MPI_IN_PLACE). */
int coll_shm_allgather(cinfo_t *ci, const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                       int rcount, MPI_Datatype rdt);
/* Unmaps the communicator's segment (its destruction). */
void coll_shm_free(rtmpi_comm_t *c);

#endif
