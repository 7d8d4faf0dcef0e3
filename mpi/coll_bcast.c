/*
 * MPI_Bcast, MPI_Ibcast: a binomial tree, or for large messages a scatter
 * followed by a ring allgather (RTM_MPI_BCAST_LARGE).
 */
#include "config.h"

#include "coll.h"
#include "coll_shm.h"
#include "mpi_config.h"

/* ---- Bcast ---- */

/* Binomial tree rooted at `root` (relative ranks). */
static void bcast_binomial(rtmpi_sched_t *s, cinfo_t *ci, void *buf, MPI_Count count,
                           MPI_Datatype dt, int root)
{
    int p = ci->size, vr = (ci->rank - root + p) % p, mask = 1;

    rtmpi_sched_round(s);
    while (mask < p) {
        if (vr & mask) {
            rtmpi_sched_recv(s, buf, count, dt, (vr - mask + root) % p);
            rtmpi_sched_round(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < p)
            rtmpi_sched_send(s, buf, count, dt, (vr + mask + root) % p);
    rtmpi_sched_round(s);
}

/* Large messages: binomial scatter of p chunks, then a ring allgather, on
 * the data as bytes (van de Geijn): each rank sends about 2x the data
 * instead of log2(p) x. */
static void bcast_scatter_allgather(rtmpi_sched_t *s, cinfo_t *ci, char *data, size_t bytes,
                                    int root)
{
    int p = ci->size, vr = (ci->rank - root + p) % p, mask = 1;
    size_t chunk = bytes / (size_t)p;
#define CHUNK_OFF(_j) ((size_t)(_j) * chunk)
#define CHUNKS_LEN(_a, _b) ((_b) >= p ? bytes - CHUNK_OFF(_a) : CHUNK_OFF(_b) - CHUNK_OFF(_a))

    rtmpi_sched_round(s);
    while (mask < p) {
        if (vr & mask) {
            int hi = vr + mask;

            rtmpi_sched_recv(s, data + CHUNK_OFF(vr), (MPI_Count)CHUNKS_LEN(vr, hi), MPI_BYTE,
                             (vr - mask + root) % p);
            rtmpi_sched_round(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        int child = vr + mask;

        if (child < p)
            rtmpi_sched_send(s, data + CHUNK_OFF(child), (MPI_Count)CHUNKS_LEN(child, child + mask),
                             MPI_BYTE, (child + root) % p);
    }
    rtmpi_sched_round(s);
    int right = (ci->rank + 1) % p, left = (ci->rank - 1 + p) % p;
    for (int step = 0; step < p - 1; step++) {
        int sj = (vr - step + p) % p, rj = (vr - step - 1 + p) % p;

        rtmpi_sched_send(s, data + CHUNK_OFF(sj), (MPI_Count)CHUNKS_LEN(sj, sj + 1), MPI_BYTE, right);
        rtmpi_sched_recv(s, data + CHUNK_OFF(rj), (MPI_Count)CHUNKS_LEN(rj, rj + 1), MPI_BYTE, left);
        rtmpi_sched_round(s);
    }
#undef CHUNK_OFF
#undef CHUNKS_LEN
}

static int build_bcast(const char *fn, rtmpi_sched_t *s, cinfo_t *ci, void *buf, int count,
                       MPI_Datatype dt, int root)
{
    rtmpi_dtype_t *d = rtmpi_dtype_get(dt);
    size_t bytes = (size_t)count * (size_t)d->size;
    MPI_Aint off;

    (void)fn;
    if (ci->size == 1 || bytes == 0)
        return MPI_SUCCESS;
    if (bytes < mpi_config.bcast_large || ci->size < 3 || bytes < (size_t)ci->size) {
        bcast_binomial(s, ci, buf, count, dt, root);
    } else if (rtmpi_dtype_contig(d, count, &off)) {
        bcast_scatter_allgather(s, ci, rtmpi_addr(buf, off), bytes, root);
    } else {
        char *packed = rtmpi_sched_tmp(s, bytes);

        if (!packed)
            return rtmpi_sched_failed(s);
        if (ci->rank == root)
            rtmpi_sched_copy(s, buf, count, dt, packed, (MPI_Count)bytes, MPI_BYTE);
        bcast_scatter_allgather(s, ci, packed, bytes, root);
        if (ci->rank != root)
            rtmpi_sched_copy(s, packed, (MPI_Count)bytes, MPI_BYTE, buf, count, dt);
    }
    return rtmpi_sched_failed(s);
}

static int bcast(const char *fn, void *buffer, int count, MPI_Datatype datatype, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc;

    if ((rc = coll_get_comm(fn, comm, ci)))
        return rc;
    if (ci->c->inter)
        return icoll_bcast(fn, ci, buffer, count, datatype, root, request);
    if ((rc = coll_check_buf(fn, ci, buffer, count, datatype, NULL, "")) ||
        (rc = coll_check_root(fn, ci, root)))
        return rc;
    if (!request && coll_shm_fits(ci, count, datatype, mpi_config.bcast_shm_max,
                                  mpi_config.bcast_shm_max_pair)) {
        rtmpi_call_enter(fn, RTMPI_CALL_NONE, RTMPI_CALL_NONE, comm);
        if ((rc = coll_shm_bcast(ci, buffer, count, datatype, root)) != COLL_SHM_DECLINED)
            return rc ? rtmpi_error(comm, fn, rc, "out of memory") : MPI_SUCCESS;
    }
    NEW_SCHED(s);
    return coll_launch(fn, ci, s, build_bcast(fn, s, ci, buffer, count, datatype, root), request);
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    RTMPI_ENTER();
    return bcast(__func__, buffer, count, datatype, root, comm, NULL);
}
RTMPI_WEAK(Bcast)

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return bcast(__func__, buffer, count, datatype, root, comm, request);
}
RTMPI_WEAK(Ibcast)
