/*
 * The collectives that move data without combining it: MPI_Gather(v) and
 * MPI_Scatter(v) (linear, from or to the root), MPI_Allgather(v) (Bruck
 * for small totals, else a ring: RTM_MPI_ALLGATHER_RING), and their
 * nonblocking forms.
 */
#include "config.h"

#include "coll.h"
#include "coll_shm.h"
#include "mpi_config.h"

/* ---- Gather / Scatter (linear: the root posts every transfer at once) ---- */

static int build_gatherv(rtmpi_sched_t *s, cinfo_t *ci, const void *sbuf, int scount,
                         MPI_Datatype stype, void *rbuf, const int *rcounts, const int *displs,
                         int rcount, MPI_Datatype rtype, int root)
{
    int p = ci->size, r = ci->rank;

    rtmpi_sched_round(s);
    if (r != root) {
        rtmpi_sched_send(s, sbuf, scount, stype, root);
    } else {
        for (int i = 0; i < p; i++) {
            int n = rcounts ? rcounts[i] : rcount;
            void *slot = at(rbuf, rcounts ? displs[i] : (MPI_Aint)i * rcount, rtype);

            if (i == r) {
                if (sbuf != MPI_IN_PLACE)
                    rtmpi_sched_copy(s, sbuf, scount, stype, slot, n, rtype);
            } else {
                rtmpi_sched_recv(s, slot, n, rtype, i);
            }
        }
    }
    rtmpi_sched_round(s);
    return rtmpi_sched_failed(s);
}

int coll_build_scatterv(rtmpi_sched_t *s, cinfo_t *ci, const void *sbuf, const int *scounts,
                        const int *displs, int scount, MPI_Datatype stype, void *rbuf,
                        int rcount, MPI_Datatype rtype, int root)
{
    int p = ci->size, r = ci->rank;

    rtmpi_sched_round(s);
    if (r != root) {
        rtmpi_sched_recv(s, rbuf, rcount, rtype, root);
    } else {
        for (int i = 0; i < p; i++) {
            int n = scounts ? scounts[i] : scount;
            const void *slot = at(sbuf, scounts ? displs[i] : (MPI_Aint)i * scount, stype);

            if (i == r) {
                if (rbuf != MPI_IN_PLACE)
                    rtmpi_sched_copy(s, slot, n, stype, rbuf, rcount, rtype);
            } else {
                rtmpi_sched_send(s, slot, n, stype, i);
            }
        }
    }
    rtmpi_sched_round(s);
    return rtmpi_sched_failed(s);
}

/* ---- Allgather ---- */

/* Bruck: ceil(log2 p) rounds for any p, on packed blocks in rank-rotated
 * order, unrotated into the receive buffer at the end. */
static void allgather_bruck(rtmpi_sched_t *s, cinfo_t *ci, void *rbuf, int rcount,
                            MPI_Datatype rtype)
{
    int p = ci->size, r = ci->rank;
    size_t b = (size_t)rcount * (size_t)rtmpi_dtype_get(rtype)->size;
    char *tmp = rtmpi_sched_tmp(s, b * (size_t)p);

    if (!tmp)
        return;
    rtmpi_sched_round(s);
    rtmpi_sched_copy(s, at(rbuf, (MPI_Aint)r * rcount, rtype), rcount, rtype, tmp, (MPI_Count)b,
                     MPI_BYTE);
    for (int dist = 1; dist < p; dist <<= 1) {
        int n = dist < p - dist ? dist : p - dist;

        rtmpi_sched_send(s, tmp, (MPI_Count)(b * (size_t)n), MPI_BYTE, (r - dist + p) % p);
        rtmpi_sched_recv(s, tmp + b * (size_t)dist, (MPI_Count)(b * (size_t)n), MPI_BYTE,
                         (r + dist) % p);
        rtmpi_sched_round(s);
    }
    for (int i = 1; i < p; i++)
        rtmpi_sched_copy(s, tmp + b * (size_t)i, (MPI_Count)b, MPI_BYTE,
                         at(rbuf, (MPI_Aint)((r + i) % p) * rcount, rtype), rcount, rtype);
    rtmpi_sched_round(s);
}

/* Ring: p-1 rounds, each rank forwards the block it received last. The
 * first round sends this rank's own block from sbuf when there is one, in
 * the round of its local copy: the two overlap, and the peer does not read
 * lines this rank has only just written (2 ranks, 64 KiB: 13.7 us through
 * the copy first, Open MPI 6.7). */
static void allgather_ring(rtmpi_sched_t *s, cinfo_t *ci, const void *sbuf, int scount,
                           MPI_Datatype stype, void *rbuf, const int *rcounts,
                           const int *displs, int rcount, MPI_Datatype rtype)
{
    int p = ci->size, r = ci->rank, right = (r + 1) % p, left = (r - 1 + p) % p;

    if (sbuf == MPI_IN_PLACE)
        rtmpi_sched_round(s);
    for (int step = 0; step < p - 1; step++) {
        int sj = (r - step + p) % p, rj = (r - step - 1 + p) % p;

        if (step == 0 && sbuf != MPI_IN_PLACE)
            rtmpi_sched_send(s, sbuf, scount, stype, right);
        else
            rtmpi_sched_send(s, at(rbuf, rcounts ? displs[sj] : (MPI_Aint)sj * rcount, rtype),
                             rcounts ? rcounts[sj] : rcount, rtype, right);
        rtmpi_sched_recv(s, at(rbuf, rcounts ? displs[rj] : (MPI_Aint)rj * rcount, rtype),
                         rcounts ? rcounts[rj] : rcount, rtype, left);
        rtmpi_sched_round(s);
    }
}

static int build_allgatherv(rtmpi_sched_t *s, cinfo_t *ci, const void *sbuf, int scount,
                            MPI_Datatype stype, void *rbuf, const int *rcounts,
                            const int *displs, int rcount, MPI_Datatype rtype)
{
    int p = ci->size, r = ci->rank;
    void *mine = at(rbuf, rcounts ? displs[r] : (MPI_Aint)r * rcount, rtype);

    if (sbuf != MPI_IN_PLACE)
        rtmpi_sched_copy(s, sbuf, scount, stype, mine, rcounts ? rcounts[r] : rcount, rtype);
    if (p == 1)
        return rtmpi_sched_failed(s);
    size_t total = (size_t)rcount * (size_t)rtmpi_dtype_get(rtype)->size * (size_t)p;
    if (!rcounts && total < mpi_config.allgather_ring)
        allgather_bruck(s, ci, rbuf, rcount, rtype);
    else
        allgather_ring(s, ci, sbuf, scount, stype, rbuf, rcounts, displs, rcount, rtype);
    return rtmpi_sched_failed(s);
}

/* vform: Gatherv (recvcounts and displs are significant at the root, and
 * NULL there is an error), else Gather (recvcount). */
/* The root's p blocks of a Gather(v) or Scatter(v): counts, displacements
 * and buffer (v-forms), or the buffer and count x p (the others). */
static int check_root_blocks(const char *fn, cinfo_t *ci, int vform, const void *buf, int count,
                             const int *counts, const int *displs, MPI_Datatype type,
                             const char *what)
{
    int rc;

    if (vform)
        return (rc = coll_check_counts(fn, ci, counts, displs, what))
                   ? rc : coll_check_vbuf(fn, ci, buf, counts, displs, type, what);
    return (rc = coll_check_buf(fn, ci, buf, count, type, NULL, what))
               ? rc : coll_check_blocks(fn, ci, ci->size, count, type, what);
}

static int gather(const char *fn, int vform, const void *sendbuf, int sendcount,
                  MPI_Datatype sendtype, void *recvbuf, const int *recvcounts, const int *displs,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc;

    if ((rc = coll_get_comm(fn, comm, ci)))
        return rc;
    if (ci->c->inter)
        return icoll_gather(fn, ci, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                            recvcount, recvtype, root, request);
    if ((rc = coll_check_root(fn, ci, root)))
        return rc;
    int is_root = ci->rank == root;
    if (sendbuf == MPI_IN_PLACE && !is_root)
        return FAIL(ci, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root");
    if (sendbuf != MPI_IN_PLACE &&
        (rc = coll_check_buf(fn, ci, sendbuf, sendcount, sendtype, NULL, "send")))
        return rc;
    if (is_root && (rc = check_root_blocks(fn, ci, vform, recvbuf, recvcount, recvcounts, displs,
                                           recvtype, "receive")))
        return rc;
    NEW_SCHED(s);
    return coll_launch(fn, ci, s, build_gatherv(s, ci, sendbuf, sendcount, sendtype, recvbuf,
                                                recvcounts, displs, recvcount, recvtype, root),
                       request);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    RTMPI_ENTER();
    return gather(__func__, 0, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
                  recvtype, root, comm, NULL);
}
RTMPI_WEAK(Gather)

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return gather(__func__, 0, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
                  recvtype, root, comm, request);
}
RTMPI_WEAK(Igather)

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    RTMPI_ENTER();
    return gather(__func__, 1, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
                  recvtype, root, comm, NULL);
}
RTMPI_WEAK(Gatherv)

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return gather(__func__, 1, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
                  recvtype, root, comm, request);
}
RTMPI_WEAK(Igatherv)

/* vform: Scatterv (sendcounts and displs, significant at the root), else
 * Scatter (sendcount). */
static int scatter(const char *fn, int vform, const void *sendbuf, const int *sendcounts,
                   const int *displs, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc;

    if ((rc = coll_get_comm(fn, comm, ci)))
        return rc;
    if (ci->c->inter)
        return icoll_scatter(fn, ci, sendbuf, sendcounts, displs, sendcount, sendtype, recvbuf,
                             recvcount, recvtype, root, request);
    if ((rc = coll_check_root(fn, ci, root)))
        return rc;
    int is_root = ci->rank == root;
    if (recvbuf == MPI_IN_PLACE && !is_root)
        return FAIL(ci, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root");
    if (recvbuf != MPI_IN_PLACE &&
        (rc = coll_check_buf(fn, ci, recvbuf, recvcount, recvtype, NULL, "receive")))
        return rc;
    if (is_root && (rc = check_root_blocks(fn, ci, vform, sendbuf, sendcount, sendcounts, displs,
                                           sendtype, "send")))
        return rc;
    NEW_SCHED(s);
    return coll_launch(fn, ci, s, coll_build_scatterv(s, ci, sendbuf, sendcounts, displs,
                                                      sendcount, sendtype, recvbuf, recvcount,
                                                      recvtype, root),
                       request);
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    RTMPI_ENTER();
    return scatter(__func__, 0, sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, root, comm, NULL);
}
RTMPI_WEAK(Scatter)

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return scatter(__func__, 0, sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, root, comm, request);
}
RTMPI_WEAK(Iscatter)

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    RTMPI_ENTER();
    return scatter(__func__, 1, sendbuf, sendcounts, displs, 0, sendtype, recvbuf, recvcount,
                   recvtype, root, comm, NULL);
}
RTMPI_WEAK(Scatterv)

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return scatter(__func__, 1, sendbuf, sendcounts, displs, 0, sendtype, recvbuf, recvcount,
                   recvtype, root, comm, request);
}
RTMPI_WEAK(Iscatterv)

/* vform: Allgatherv (recvcounts and displs at every rank), else Allgather. */
static int allgather(const char *fn, int vform, const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                     const int *displs, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc;

    if ((rc = coll_get_comm(fn, comm, ci)))
        return rc;
    if (ci->c->inter)
        return icoll_allgather(fn, ci, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                               recvcount, recvtype, request);
    if (sendbuf != MPI_IN_PLACE &&
        (rc = coll_check_buf(fn, ci, sendbuf, sendcount, sendtype, NULL, "send")))
        return rc;
    if (vform ? (rc = coll_check_counts(fn, ci, recvcounts, displs, "receive")) ||
                         (rc = coll_check_vbuf(fn, ci, recvbuf, recvcounts, displs, recvtype,
                                               "receive"))
                   : (rc = coll_check_buf(fn, ci, recvbuf, recvcount, recvtype, NULL, "receive")) ||
                         (rc = coll_check_blocks(fn, ci, ci->size, recvcount, recvtype,
                                                 "receive")))
        return rc;
    if (!vform && !request && coll_shm_usable(ci)) {
        rtmpi_call_enter(fn, RTMPI_CALL_NONE, RTMPI_CALL_NONE, comm);
        if ((rc = coll_shm_allgather(ci, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                     recvtype)) != COLL_SHM_DECLINED)
            return rc ? FAIL(ci, fn, rc, "out of memory for a packed copy") : MPI_SUCCESS;
    }
    NEW_SCHED(s);
    return coll_launch(fn, ci, s, build_allgatherv(s, ci, sendbuf, sendcount, sendtype, recvbuf,
                                                   recvcounts, displs, recvcount, recvtype),
                       request);
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    RTMPI_ENTER();
    return allgather(__func__, 0, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
                     recvtype, comm, NULL);
}
RTMPI_WEAK(Allgather)

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return allgather(__func__, 0, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
                     recvtype, comm, request);
}
RTMPI_WEAK(Iallgather)

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    RTMPI_ENTER();
    return allgather(__func__, 1, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
                     recvtype, comm, NULL);
}
RTMPI_WEAK(Allgatherv)

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return allgather(__func__, 1, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
                     recvtype, comm, request);
}
RTMPI_WEAK(Iallgatherv)
