/*
 * What the collective files (coll_*.c) share. A collective is built as a
 * schedule (coll_sched.h) over point-to-point on each communicator's
 * hidden collective communicator; the same builder serves the blocking
 * call (run at once) and the nonblocking one (advanced by progress).
 * docs/collectives.md explains the algorithms and their switch points.
 *
 * One file per family of collectives, each with its builders (build_*)
 * and its MPI functions:
 *   coll_barrier.c   Barrier
 *   coll_bcast.c     Bcast
 *   coll_gather.c    Gather(v), Scatter(v), Allgather(v): data moved, not combined
 *   coll_alltoall.c  Alltoall(v,w)
 *   coll_reduce.c    Reduce, Allreduce, Reduce_scatter(_block): data combined
 *   coll_scan.c      Scan, Exscan
 *   coll.c           the argument checks and the launch every one of them uses
 *   coll_shm.c       Barrier, Bcast, Reduce, Allreduce through shared memory
 *                    among ranks on one host (blocking calls; coll_shm.h)
 *
 * Switch points are rows of the config table (RTM_MPI_*, common/
 * config_table.h); docs/collectives.md gives the measurements behind the
 * defaults.
 */
#ifndef RTMPI_COLL_H
#define RTMPI_COLL_H

#include "coll_sched.h"

typedef struct cinfo {
    MPI_Comm      comm;
    rtmpi_comm_t *c;
    int           rank, size;
} cinfo_t;

/* An argument error of a collective found before its schedule was made
 * (docs/collectives.md, "Argument errors"): raised on ci's communicator,
 * and the instance still uses up its place in the communicator's sequence
 * of collectives (the tag a schedule would have had), so a rank that
 * returned an error and ranks that went on agree on the tags of the
 * collectives that follow. Every check below raises its errors this way;
 * a collective calls them before rtmpi_sched_new. */
int coll_arg_fail(cinfo_t *ci, const char *fn, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same for an argument checked before the communicator was looked up
 * (a NULL request or array in a PMPI_ entry point); comm may be invalid. */
int coll_arg_error(MPI_Comm comm, const char *fn, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define FAIL(_ci, _fn, _cls, ...) coll_arg_fail(_ci, _fn, _cls, __VA_ARGS__)

/* Validates the communicator argument and fills *ci. */
int coll_get_comm(const char *fn, MPI_Comm comm, cinfo_t *ci);
/* A buffer argument (`what`: "send", "receive" or ""): count, datatype,
 * non-NULL when it holds data (NULL is valid with count 0), not
 * MPI_IN_PLACE (the caller accepts that where MPI allows it, before this
 * check); *dp (when dp is not NULL) is its type. */
int coll_check_buf(const char *fn, cinfo_t *ci, const void *buf, int count, MPI_Datatype dt,
                   rtmpi_dtype_t **dp, const char *what);
/* The same for block `disp` bytes into the buffer of a "w" collective
 * (Alltoallw, Neighbor_alltoallw): with buf MPI_BOTTOM a non-zero disp is
 * the block's absolute address (MPI 3.1 4.1.5), so the buffer is NULL only
 * at disp 0. */
int coll_check_wbuf(const char *fn, cinfo_t *ci, const void *buf, MPI_Aint disp, int count,
                    MPI_Datatype dt, const char *what);
/* The buffer of a v-collective: per-rank counts (already checked by
 * coll_check_counts); NULL is valid when every count is 0; every block,
 * counts[i] elements from element displs[i], within 64-bit offsets
 * (coll_check_span). */
int coll_check_vbuf(const char *fn, cinfo_t *ci, const void *buf, const int *counts,
                    const int *displs, MPI_Datatype dt, const char *what);
/* Elements [first, first + n) of dt (already valid), `base` bytes into a
 * buffer: n * size bytes and every offset they reach fit 64 bits, else
 * MPI_ERR_COUNT naming the buffer (`what`) and block. The
 * per-buffer check (coll_check_buf) cannot see products with the number
 * of ranks and displacements: count * p elements of Gather's receive
 * buffer, displs[i] * extent of a v-collective's block. */
int coll_check_span(const char *fn, cinfo_t *ci, MPI_Aint base, MPI_Count first, MPI_Count n,
                    MPI_Datatype dt, const char *what, int block);
/* nblocks blocks of count elements each (Gather at the root, Allgather,
 * Alltoall, ...): coll_check_span of [0, nblocks * count). */
int coll_check_blocks(const char *fn, cinfo_t *ci, int nblocks, int count, MPI_Datatype dt,
                      const char *what);
int coll_check_root(const char *fn, cinfo_t *ci, int root);
/* op is valid and applies to dt. */
int coll_check_op(const char *fn, cinfo_t *ci, MPI_Op op, MPI_Datatype dt);
/* Per-rank counts (none negative) and displacements of a v-collective. */
int coll_check_counts(const char *fn, cinfo_t *ci, const int *counts, const int *displs,
                      const char *what);
/* Runs schedule s, built with result build_rc (blocking), or starts it
 * (request != NULL); frees it on failure to build. */
int coll_launch(const char *fn, cinfo_t *ci, rtmpi_sched_t *s, int build_rc,
                MPI_Request *request);

/* Declares schedule _s on ci's communicator; returns MPI_ERR_NO_MEM from
 * the enclosing function when it cannot be had. */
#define NEW_SCHED(_s) \
    rtmpi_sched_t *_s = rtmpi_sched_new(ci->comm); \
    if (!_s) \
        return FAIL(ci, __func__, MPI_ERR_NO_MEM, "out of memory")

static inline MPI_Aint extent_of(MPI_Datatype dt)
{
    return rtmpi_dtype_get(dt)->extent;
}

/* Element `index` of a buffer of dt. */
static inline void *at(const void *buf, MPI_Aint index, MPI_Datatype dt)
{
    return (char *)buf + index * extent_of(dt);
}

/* Builders one family uses from another: Reduce_scatter of a
 * non-commutative op ends with a scatterv (coll_gather.c). */
int coll_build_scatterv(rtmpi_sched_t *s, cinfo_t *ci, const void *sbuf, const int *scounts,
                        const int *displs, int scount, MPI_Datatype stype, void *rbuf,
                        int rcount, MPI_Datatype rtype, int root);

#include "coll_inter.h"   /* intercommunicators: each collective hands them over */

#endif
