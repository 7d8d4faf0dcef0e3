/*
 * MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw and their nonblocking forms:
 * every transfer posted at once, or a pairwise exchange for larger blocks
 * (RTM_MPI_ALLTOALL_PAIRWISE; RTM_MPI_ALLTOALL_PAIRWISE_OVERSUB at a rank
 * whose host is oversubscribed). All three are built as alltoallw. A blocking
 * MPI_Alltoall whose rows fit a slot of the communicator's shared segment
 * goes through it (coll_shm.c).
 */
#include "config.h"

#include "coll.h"
#include "coll_shm.h"
#include "mpi_config.h"

/* ---- Alltoall(v,w) ---- */

/* Everything as (buffer, count, type) per peer; sdispls/rdispls in bytes. */
typedef struct a2a {
    const void *sbuf;
    void       *rbuf;
    int        *scounts, *rcounts;
    MPI_Aint   *sdispls, *rdispls;
    MPI_Datatype *stypes, *rtypes;
} a2a_t;

static int build_alltoallw(rtmpi_sched_t *s, cinfo_t *ci, a2a_t *a, int in_place, int pairwise)
{
    int p = ci->size, r = ci->rank;

    rtmpi_sched_round(s);
    if (in_place) {
        /* Send from a packed copy of what the receive buffer holds now. */
        size_t total = 0;
        for (int i = 0; i < p; i++)
            total += (size_t)a->rcounts[i] * (size_t)rtmpi_dtype_get(a->rtypes[i])->size;
        char *copy = rtmpi_sched_tmp(s, total);
        if (!copy)
            return rtmpi_sched_failed(s);
        size_t off = 0;
        for (int i = 0; i < p; i++) {
            size_t n = (size_t)a->rcounts[i] * (size_t)rtmpi_dtype_get(a->rtypes[i])->size;

            rtmpi_sched_copy(s, (char *)a->rbuf + a->rdispls[i], a->rcounts[i], a->rtypes[i],
                             copy + off, (MPI_Count)n, MPI_BYTE);
            a->sdispls[i] = (MPI_Aint)off;
            a->scounts[i] = (int)n;
            a->stypes[i] = MPI_BYTE;
            off += n;
        }
        a->sbuf = copy;
        rtmpi_sched_round(s);
    }
    rtmpi_sched_copy(s, (const char *)a->sbuf + a->sdispls[r], a->scounts[r], a->stypes[r],
                     (char *)a->rbuf + a->rdispls[r], a->rcounts[r], a->rtypes[r]);
    for (int k = 1; k < p; k++) {
        int to = (r + k) % p, from = (r - k + p) % p;

        rtmpi_sched_send(s, (const char *)a->sbuf + a->sdispls[to], a->scounts[to], a->stypes[to], to);
        rtmpi_sched_recv(s, (char *)a->rbuf + a->rdispls[from], a->rcounts[from], a->rtypes[from],
                         from);
        if (pairwise)
            rtmpi_sched_round(s);
    }
    rtmpi_sched_round(s);
    return rtmpi_sched_failed(s);
}

static a2a_t *a2a_new(rtmpi_sched_t *s, int p)
{
    a2a_t *a = rtmpi_sched_tmp(s, sizeof(*a));
    char *m = rtmpi_sched_tmp(s, (size_t)p * (2 * sizeof(int) + 2 * sizeof(MPI_Aint) +
                                              2 * sizeof(MPI_Datatype)));

    if (!a || !m)
        return NULL;
    a->sdispls = (MPI_Aint *)m;
    a->rdispls = a->sdispls + p;
    a->scounts = (int *)(a->rdispls + p);
    a->rcounts = a->scounts + p;
    a->stypes = a->rcounts + p;
    a->rtypes = a->stypes + p;
    return a;
}

/* Which call: one count and type for all (alltoall), counts and element
 * displacements per rank (alltoallv), counts, byte displacements and types
 * per rank (alltoallw). */
enum a2a_kind { A2A_ALLTOALL, A2A_ALLTOALLV, A2A_ALLTOALLW };

static int alltoall(const char *fn, enum a2a_kind kind, const void *sendbuf,
                    const int *sendcounts, const int *sdispls, const MPI_Datatype *sendtypes,
                    int sendcount, void *recvbuf, const int *recvcounts, const int *rdispls,
                    const MPI_Datatype *recvtypes, int recvcount, MPI_Comm comm,
                    MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc, in_place = sendbuf == MPI_IN_PLACE;

    if ((rc = coll_get_comm(fn, comm, ci)))
        return rc;
    if (ci->c->inter)
        return icoll_alltoall(fn, ci, (int)kind, sendbuf, sendcounts, sdispls, sendtypes, sendcount,
                              recvbuf, recvcounts, rdispls, recvtypes, recvcount, request);
    int p = ci->size;
    if (kind != A2A_ALLTOALL) {
        if ((!in_place && (rc = coll_check_counts(fn, ci, sendcounts, sdispls, "send"))) ||
            (rc = coll_check_counts(fn, ci, recvcounts, rdispls, "receive")))
            return rc;
    }
    if (kind == A2A_ALLTOALLV) {
        /* NULL buffers are valid when all their counts are 0 */
        if ((!in_place &&
             (rc = coll_check_vbuf(fn, ci, sendbuf, sendcounts, sdispls, sendtypes[0],
                                   "send"))) ||
            (rc = coll_check_vbuf(fn, ci, recvbuf, recvcounts, rdispls, recvtypes[0],
                                  "receive")))
            return rc;
    }
    for (int i = 0; i < p && kind != A2A_ALLTOALLV; i++) {
        MPI_Datatype st = kind == A2A_ALLTOALLW ? (in_place ? MPI_BYTE : sendtypes[i])
                                                : sendtypes[0];
        MPI_Datatype rt = kind == A2A_ALLTOALLW ? recvtypes[i] : recvtypes[0];
        int sc = kind == A2A_ALLTOALL ? sendcount : (in_place ? 0 : sendcounts[i]);
        int rcn = kind == A2A_ALLTOALL ? recvcount : recvcounts[i];

        /* Alltoallw: MPI_BOTTOM with displacements that are addresses */
        MPI_Aint sd = kind == A2A_ALLTOALLW && !in_place ? sdispls[i] : 0;
        MPI_Aint rd = kind == A2A_ALLTOALLW ? rdispls[i] : 0;

        if ((!in_place && (rc = coll_check_wbuf(fn, ci, sendbuf, sd, sc, st, "send"))) ||
            (rc = coll_check_wbuf(fn, ci, recvbuf, rd, rcn, rt, "receive")))
            return rc;
        /* Alltoall: p blocks of a count; Alltoallw: a count at a byte
         * displacement */
        if (kind == A2A_ALLTOALL
                ? (!in_place && (rc = coll_check_blocks(fn, ci, p, sc, st, "send"))) ||
                      (rc = coll_check_blocks(fn, ci, p, rcn, rt, "receive"))
                : (!in_place && (rc = coll_check_span(fn, ci, sdispls[i], 0, sc, st, "send", i))) ||
                      (rc = coll_check_span(fn, ci, rdispls[i], 0, rcn, rt, "receive", i)))
            return rc;
        if (kind != A2A_ALLTOALLW)
            break;
    }
    if (kind == A2A_ALLTOALL && !request && coll_shm_usable(ci)) {
        rtmpi_call_enter(fn, RTMPI_CALL_NONE, RTMPI_CALL_NONE, comm);
        if ((rc = coll_shm_alltoall(ci, sendbuf, sendcount, sendtypes[0], recvbuf, recvcount,
                                    recvtypes[0])) != COLL_SHM_DECLINED)
            return rc;
    }
    NEW_SCHED(s);
    a2a_t *a = a2a_new(s, p);
    if (!a)
        return coll_launch(fn, ci, s, MPI_ERR_NO_MEM, request);
    a->sbuf = sendbuf;
    a->rbuf = recvbuf;
    size_t block = 0;
    for (int i = 0; i < p; i++) {
        MPI_Datatype rt = kind == A2A_ALLTOALLW ? recvtypes[i] : recvtypes[0];

        a->rtypes[i] = rt;
        a->rcounts[i] = kind == A2A_ALLTOALL ? recvcount : recvcounts[i];
        a->rdispls[i] = kind == A2A_ALLTOALL ? (MPI_Aint)i * recvcount * extent_of(rt)
                      : kind == A2A_ALLTOALLV ? (MPI_Aint)rdispls[i] * extent_of(rt) : rdispls[i];
        if (!in_place) {
            MPI_Datatype st = kind == A2A_ALLTOALLW ? sendtypes[i] : sendtypes[0];

            a->stypes[i] = st;
            a->scounts[i] = kind == A2A_ALLTOALL ? sendcount : sendcounts[i];
            a->sdispls[i] = kind == A2A_ALLTOALL ? (MPI_Aint)i * sendcount * extent_of(st)
                          : kind == A2A_ALLTOALLV ? (MPI_Aint)sdispls[i] * extent_of(st)
                          : sdispls[i];
        }
        block += (size_t)a->rcounts[i] * (size_t)rtmpi_dtype_get(rt)->size;
    }
    /* On an oversubscribed host every transfer is posted at once up to a
     * larger size: a pairwise step waits for its one peer to be scheduled.
     * Each rank's own view: both ways send the same messages, one per
     * ordered pair, and differ only in when a rank posts them. */
    size_t from = mpi_config.alltoall_pairwise;

    if (mpi_config.alltoall_pairwise_oversub > from && binding_host_oversubscribed())
        from = mpi_config.alltoall_pairwise_oversub;
    int pairwise = p > 2 && block / (size_t)p >= from;
    return coll_launch(fn, ci, s, build_alltoallw(s, ci, a, in_place, pairwise), request);
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    RTMPI_ENTER();
    return alltoall(__func__, A2A_ALLTOALL, sendbuf, NULL, NULL, &sendtype, sendcount, recvbuf,
                    NULL, NULL, &recvtype, recvcount, comm, NULL);
}
RTMPI_WEAK(Alltoall)

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return alltoall(__func__, A2A_ALLTOALL, sendbuf, NULL, NULL, &sendtype, sendcount, recvbuf,
                    NULL, NULL, &recvtype, recvcount, comm, request);
}
RTMPI_WEAK(Ialltoall)

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    RTMPI_ENTER();
    return alltoall(__func__, A2A_ALLTOALLV, sendbuf, sendcounts, sdispls, &sendtype, 0, recvbuf,
                    recvcounts, rdispls, &recvtype, 0, comm, NULL);
}
RTMPI_WEAK(Alltoallv)

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return alltoall(__func__, A2A_ALLTOALLV, sendbuf, sendcounts, sdispls, &sendtype, 0, recvbuf,
                    recvcounts, rdispls, &recvtype, 0, comm, request);
}
RTMPI_WEAK(Ialltoallv)

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    RTMPI_ENTER();
    if (!recvtypes || (sendbuf != MPI_IN_PLACE && !sendtypes))
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "datatype array is NULL");
    return alltoall(__func__, A2A_ALLTOALLW, sendbuf, sendcounts, sdispls, sendtypes, 0, recvbuf,
                    recvcounts, rdispls, recvtypes, 0, comm, NULL);
}
RTMPI_WEAK(Alltoallw)

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    if (!recvtypes || (sendbuf != MPI_IN_PLACE && !sendtypes))
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "datatype array is NULL");
    return alltoall(__func__, A2A_ALLTOALLW, sendbuf, sendcounts, sdispls, sendtypes, 0, recvbuf,
                    recvcounts, rdispls, recvtypes, 0, comm, request);
}
RTMPI_WEAK(Ialltoallw)
