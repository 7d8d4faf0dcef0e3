/*
 * Collectives on intercommunicators (coll_inter.c): each collective's
 * function in coll_<family>.c hands an intercommunicator to the one here
 * right after checking the communicator (ci filled by coll_get_comm; its
 * size is the remote group's). Arguments as that function's.
 */
#ifndef RTMPI_COLL_INTER_H
#define RTMPI_COLL_INTER_H

/* icoll_alltoall's kind: the values of coll_alltoall.c's enum a2a_kind. */
enum { ICOLL_ALLTOALL, ICOLL_ALLTOALLV, ICOLL_ALLTOALLW };

int icoll_barrier(const char *fn, cinfo_t *ci, MPI_Request *request);
int icoll_bcast(const char *fn, cinfo_t *ci, void *buf, int count, MPI_Datatype dt, int root,
                MPI_Request *request);
int icoll_gather(const char *fn, cinfo_t *ci, const void *sbuf, int scount, MPI_Datatype stype,
                 void *rbuf, const int *rcounts, const int *displs, int rcount,
                 MPI_Datatype rtype, int root, MPI_Request *request);
int icoll_scatter(const char *fn, cinfo_t *ci, const void *sbuf, const int *scounts,
                  const int *displs, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, int root, MPI_Request *request);
int icoll_allgather(const char *fn, cinfo_t *ci, const void *sbuf, int scount,
                    MPI_Datatype stype, void *rbuf, const int *rcounts, const int *displs,
                    int rcount, MPI_Datatype rtype, MPI_Request *request);
int icoll_alltoall(const char *fn, cinfo_t *ci, int kind, const void *sbuf, const int *scounts,
                   const int *sdispls, const MPI_Datatype *stypes, int scount, void *rbuf,
                   const int *rcounts, const int *rdispls, const MPI_Datatype *rtypes,
                   int rcount, MPI_Request *request);
int icoll_reduce(const char *fn, cinfo_t *ci, const void *sbuf, void *rbuf, int count,
                 MPI_Datatype dt, MPI_Op op, int root, MPI_Request *request);
int icoll_allreduce(const char *fn, cinfo_t *ci, const void *sbuf, void *rbuf, int count,
                    MPI_Datatype dt, MPI_Op op, MPI_Request *request);
int icoll_reduce_scatter(const char *fn, cinfo_t *ci, const void *sbuf, void *rbuf,
                         const int *rcounts, int rcount, MPI_Datatype dt, MPI_Op op,
                         MPI_Request *request);

#endif
