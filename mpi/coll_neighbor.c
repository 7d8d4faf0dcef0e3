/*
 * The neighbourhood collectives (MPI 3.1 section 7.6): MPI_Neighbor_
 * allgather(v), MPI_Neighbor_alltoall(v,w) and their nonblocking forms, on
 * Cartesian, graph and distributed-graph communicators. Every one is built
 * as the same exchange, a buffer, count and type per neighbour, in one
 * round of the schedule (coll_sched.h): every receive, then every send.
 * Block k of the receive buffer comes from in-neighbour k and block k of
 * the send buffer (all of it, for allgather) goes to out-neighbour k, in
 * the order topo.h gives. A neighbour that is MPI_PROC_NULL gets no step,
 * so its block of the receive buffer is left untouched; so does a block of
 * no data (its type signature is empty at both ends, so both skip it).
 *
 * Pairing. Every block travels with the collective's one tag, and between
 * two ranks messages match in the order they were posted; where a rank is
 * a neighbour more than once, the sender must post its blocks to it in the
 * order the receiver posts the receives from it:
 *   - graph and distributed graph: both ends list the edges between them in
 *     the same order (topo.c), so sends go in block order;
 *   - Cartesian: what a rank sends in its +1 block of dimension d arrives in
 *     that neighbour's -1 block of d, and the other way round. When both
 *     neighbours in d are one rank (a periodic dimension of size 1 or 2)
 *     the receiver posts its -1 block first, so the sender posts its +1
 *     block (2d + 1) before its -1 block (2d).
 *
 * The checks are local: a rank whose arguments are wrong returns an error
 * before it communicates, and its neighbours then wait for it (as in any
 * collective whose arguments only one rank can check).
 */
#include "config.h"

#include "coll.h"
#include "topo.h"

enum nbr_kind { NBR_ALLGATHER, NBR_ALLGATHERV, NBR_ALLTOALL, NBR_ALLTOALLV, NBR_ALLTOALLW };

/* The arguments of any of the five; what a kind does not take is unused. */
typedef struct nbr_args {
    enum nbr_kind kind;
    const void   *sbuf;
    int           scount;
    const int    *scounts, *sdispls;
    const MPI_Aint *sdispls_w;
    MPI_Datatype  stype;
    const MPI_Datatype *stypes;
    void         *rbuf;
    int           rcount;
    const int    *rcounts, *rdispls;
    const MPI_Aint *rdispls_w;
    MPI_Datatype  rtype;
    const MPI_Datatype *rtypes;
} nbr_args_t;

/* Block k of the send side: count, type and byte offset in sbuf. */
static void send_block(const nbr_args_t *a, int k, int *count, MPI_Datatype *type, MPI_Aint *off)
{
    switch (a->kind) {
    case NBR_ALLGATHER:
    case NBR_ALLGATHERV:
        *count = a->scount;
        *type = a->stype;
        *off = 0;
        break;
    case NBR_ALLTOALL:
        *count = a->scount;
        *type = a->stype;
        *off = (MPI_Aint)k * a->scount * extent_of(a->stype);
        break;
    case NBR_ALLTOALLV:
        *count = a->scounts[k];
        *type = a->stype;
        *off = (MPI_Aint)a->sdispls[k] * extent_of(a->stype);
        break;
    case NBR_ALLTOALLW:
        *count = a->scounts[k];
        *type = a->stypes[k];
        *off = a->sdispls_w[k];
        break;
    }
}

/* Block k of the receive side. */
static void recv_block(const nbr_args_t *a, int k, int *count, MPI_Datatype *type, MPI_Aint *off)
{
    switch (a->kind) {
    case NBR_ALLGATHER:
    case NBR_ALLTOALL:
        *count = a->rcount;
        *type = a->rtype;
        *off = (MPI_Aint)k * a->rcount * extent_of(a->rtype);
        break;
    case NBR_ALLGATHERV:
    case NBR_ALLTOALLV:
        *count = a->rcounts[k];
        *type = a->rtype;
        *off = (MPI_Aint)a->rdispls[k] * extent_of(a->rtype);
        break;
    case NBR_ALLTOALLW:
        *count = a->rcounts[k];
        *type = a->rtypes[k];
        *off = a->rdispls_w[k];
        break;
    }
}

/* The per-neighbour arrays of a kind are there for `n` neighbours; every
 * block's count and type are valid. */
static int check_side(const char *fn, cinfo_t *ci, const nbr_args_t *a, int send, int n)
{
    int vec = send ? a->kind == NBR_ALLTOALLV || a->kind == NBR_ALLTOALLW
                   : a->kind != NBR_ALLGATHER && a->kind != NBR_ALLTOALL;
    const void *buf = send ? a->sbuf : a->rbuf;
    const char *what = send ? "send" : "receive";
    int rc;

    if (buf == MPI_IN_PLACE)
        return FAIL(ci, fn, MPI_ERR_BUFFER,
                    "MPI_IN_PLACE is not allowed in a neighbourhood collective");
    if (vec && n > 0) {
        const void *counts = send ? (const void *)a->scounts : (const void *)a->rcounts;
        const void *displs = a->kind == NBR_ALLTOALLW
                                 ? (send ? (const void *)a->sdispls_w : (const void *)a->rdispls_w)
                                 : (send ? (const void *)a->sdispls : (const void *)a->rdispls);
        const void *types = send ? (const void *)a->stypes : (const void *)a->rtypes;

        if (!counts || !displs || (a->kind == NBR_ALLTOALLW && !types))
            return FAIL(ci, fn, MPI_ERR_ARG, "%s counts, displacements or types are NULL", what);
    }
    /* one count and type for every block: n blocks of it, or one for
     * allgather's send side */
    int nblocks = send && (a->kind == NBR_ALLGATHER || a->kind == NBR_ALLGATHERV) ? 1 : n;
    if (!vec && n > 0)
        n = 1;
    for (int k = 0; k < n; k++) {
        int count;
        MPI_Datatype type;

        if (send) {
            count = vec ? a->scounts[k] : a->scount;
            type = a->kind == NBR_ALLTOALLW ? a->stypes[k] : a->stype;
        } else {
            count = vec ? a->rcounts[k] : a->rcount;
            type = a->kind == NBR_ALLTOALLW ? a->rtypes[k] : a->rtype;
        }
        if ((rc = a->kind == NBR_ALLTOALLW
                      ? coll_check_wbuf(fn, ci, buf, send ? a->sdispls_w[k] : a->rdispls_w[k],
                                        count, type, what)
                      : coll_check_buf(fn, ci, buf, count, type, NULL, what)))
            return rc;
        /* where the block is: block k of a count, displs[k] elements, or
         * a byte displacement (send_block/recv_block multiply unchecked) */
        if (!vec)
            rc = coll_check_blocks(fn, ci, nblocks, count, type, what);
        else if (a->kind == NBR_ALLTOALLW)
            rc = coll_check_span(fn, ci, send ? a->sdispls_w[k] : a->rdispls_w[k], 0, count,
                                 type, what, k);
        else
            rc = coll_check_span(fn, ci, 0, send ? a->sdispls[k] : a->rdispls[k], count, type,
                                 what, k);
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}

/* One step per block that carries data to or from a real neighbour. */
static int add_step(rtmpi_sched_t *s, const nbr_args_t *a, int send, int k, int peer)
{
    int count;
    MPI_Datatype type;
    MPI_Aint off;

    if (peer == MPI_PROC_NULL)
        return MPI_SUCCESS;
    (send ? send_block : recv_block)(a, k, &count, &type, &off);
    if (count == 0 || rtmpi_dtype_get(type)->size == 0)
        return MPI_SUCCESS;
    if (send)
        return rtmpi_sched_send(s, rtmpi_addr(a->sbuf, off), count, type, peer);
    return rtmpi_sched_recv(s, rtmpi_addr(a->rbuf, off), count, type, peer);
}

static int build_neighbor(rtmpi_sched_t *s, cinfo_t *ci, const nbr_args_t *a, int nin,
                          int nout)
{
    const rtmpi_topo_t *t = ci->c->topo;
    int cart = t->kind == MPI_CART;

    rtmpi_sched_round(s);
    for (int k = 0; k < nin; k++)
        add_step(s, a, 0, k, rtmpi_topo_source(t, ci->rank, k));
    for (int i = 0; i < nout; i++) {
        int k = cart ? i ^ 1 : i;   /* Cartesian: +1 before -1 in each dimension */

        add_step(s, a, 1, k, rtmpi_topo_dest(t, ci->rank, k));
    }
    rtmpi_sched_round(s);
    return rtmpi_sched_failed(s);
}

static int neighbor(const char *fn, const nbr_args_t *a, MPI_Comm comm, MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc, nin, nout;

    if ((rc = coll_get_comm(fn, comm, ci)))
        return rc;
    if (!ci->c->topo)
        return FAIL(ci, fn, MPI_ERR_TOPOLOGY, "the communicator has no topology");
    rtmpi_topo_degrees(ci->c->topo, ci->rank, &nin, &nout);
    if ((rc = check_side(fn, ci, a, 1, nout)) || (rc = check_side(fn, ci, a, 0, nin)))
        return rc;
    NEW_SCHED(s);
    return coll_launch(fn, ci, s, build_neighbor(s, ci, a, nin, nout), request);
}

#define NEED_REQUEST() \
    do { \
        if (!request) \
            return rtmpi_error(comm, __func__, MPI_ERR_ARG, "request is NULL"); \
    } while (0)

/* ---- Neighbor_allgather(v) ---- */

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    nbr_args_t a = { .kind = NBR_ALLGATHER, .sbuf = sendbuf, .scount = sendcount,
                     .stype = sendtype, .rbuf = recvbuf, .rcount = recvcount,
                     .rtype = recvtype };

    RTMPI_ENTER();
    return neighbor(__func__, &a, comm, NULL);
}
RTMPI_WEAK(Neighbor_allgather)

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    nbr_args_t a = { .kind = NBR_ALLGATHER, .sbuf = sendbuf, .scount = sendcount,
                     .stype = sendtype, .rbuf = recvbuf, .rcount = recvcount,
                     .rtype = recvtype };

    RTMPI_ENTER();
    NEED_REQUEST();
    return neighbor(__func__, &a, comm, request);
}
RTMPI_WEAK(Ineighbor_allgather)

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    nbr_args_t a = { .kind = NBR_ALLGATHERV, .sbuf = sendbuf, .scount = sendcount,
                     .stype = sendtype, .rbuf = recvbuf, .rcounts = recvcounts,
                     .rdispls = displs, .rtype = recvtype };

    RTMPI_ENTER();
    return neighbor(__func__, &a, comm, NULL);
}
RTMPI_WEAK(Neighbor_allgatherv)

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    nbr_args_t a = { .kind = NBR_ALLGATHERV, .sbuf = sendbuf, .scount = sendcount,
                     .stype = sendtype, .rbuf = recvbuf, .rcounts = recvcounts,
                     .rdispls = displs, .rtype = recvtype };

    RTMPI_ENTER();
    NEED_REQUEST();
    return neighbor(__func__, &a, comm, request);
}
RTMPI_WEAK(Ineighbor_allgatherv)

/* ---- Neighbor_alltoall(v,w) ---- */

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    nbr_args_t a = { .kind = NBR_ALLTOALL, .sbuf = sendbuf, .scount = sendcount,
                     .stype = sendtype, .rbuf = recvbuf, .rcount = recvcount,
                     .rtype = recvtype };

    RTMPI_ENTER();
    return neighbor(__func__, &a, comm, NULL);
}
RTMPI_WEAK(Neighbor_alltoall)

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    nbr_args_t a = { .kind = NBR_ALLTOALL, .sbuf = sendbuf, .scount = sendcount,
                     .stype = sendtype, .rbuf = recvbuf, .rcount = recvcount,
                     .rtype = recvtype };

    RTMPI_ENTER();
    NEED_REQUEST();
    return neighbor(__func__, &a, comm, request);
}
RTMPI_WEAK(Ineighbor_alltoall)

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    nbr_args_t a = { .kind = NBR_ALLTOALLV, .sbuf = sendbuf, .scounts = sendcounts,
                     .sdispls = sdispls, .stype = sendtype, .rbuf = recvbuf,
                     .rcounts = recvcounts, .rdispls = rdispls, .rtype = recvtype };

    RTMPI_ENTER();
    return neighbor(__func__, &a, comm, NULL);
}
RTMPI_WEAK(Neighbor_alltoallv)

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    nbr_args_t a = { .kind = NBR_ALLTOALLV, .sbuf = sendbuf, .scounts = sendcounts,
                     .sdispls = sdispls, .stype = sendtype, .rbuf = recvbuf,
                     .rcounts = recvcounts, .rdispls = rdispls, .rtype = recvtype };

    RTMPI_ENTER();
    NEED_REQUEST();
    return neighbor(__func__, &a, comm, request);
}
RTMPI_WEAK(Ineighbor_alltoallv)

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf,
                            const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    nbr_args_t a = { .kind = NBR_ALLTOALLW, .sbuf = sendbuf, .scounts = sendcounts,
                     .sdispls_w = sdispls, .stypes = sendtypes, .rbuf = recvbuf,
                     .rcounts = recvcounts, .rdispls_w = rdispls, .rtypes = recvtypes };

    RTMPI_ENTER();
    return neighbor(__func__, &a, comm, NULL);
}
RTMPI_WEAK(Neighbor_alltoallw)

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request *request)
{
    nbr_args_t a = { .kind = NBR_ALLTOALLW, .sbuf = sendbuf, .scounts = sendcounts,
                     .sdispls_w = sdispls, .stypes = sendtypes, .rbuf = recvbuf,
                     .rcounts = recvcounts, .rdispls_w = rdispls, .rtypes = recvtypes };

    RTMPI_ENTER();
    NEED_REQUEST();
    return neighbor(__func__, &a, comm, request);
}
RTMPI_WEAK(Ineighbor_alltoallw)
