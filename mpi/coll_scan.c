/*
 * MPI_Scan, MPI_Exscan and their nonblocking forms: recursive doubling.
 */
#include "config.h"

#include "coll.h"

/* ---- Scan / Exscan: recursive doubling; `partial` is the reduction of
 * the ranks of this rank's current block, combined in rank order. */
static int build_scan(rtmpi_sched_t *s, cinfo_t *ci, const void *sbuf, void *rbuf, int count,
                      MPI_Datatype dt, MPI_Op op, int exclusive)
{
    int p = ci->size, r = ci->rank, first = 1;
    const void *input = sbuf == MPI_IN_PLACE ? rbuf : sbuf;

    if (count == 0)
        return MPI_SUCCESS;
    void *partial = rtmpi_sched_tmp_dt(s, count, dt), *tmp = rtmpi_sched_tmp_dt(s, count, dt);
    if (!partial || !tmp)
        return rtmpi_sched_failed(s);
    rtmpi_sched_round(s);
    rtmpi_sched_copy(s, input, count, dt, partial, count, dt);
    if (!exclusive && sbuf != MPI_IN_PLACE)
        rtmpi_sched_copy(s, sbuf, count, dt, rbuf, count, dt);
    for (int mask = 1; mask < p; mask <<= 1) {
        int dst = r ^ mask;

        if (dst >= p)
            continue;
        rtmpi_sched_send(s, partial, count, dt, dst);
        rtmpi_sched_recv(s, tmp, count, dt, dst);
        rtmpi_sched_round(s);
        if (r > dst) {
            if (exclusive && first)
                rtmpi_sched_copy(s, tmp, count, dt, rbuf, count, dt);
            else
                rtmpi_sched_reduce(s, tmp, rbuf, count, dt, op);
            first = 0;
            rtmpi_sched_reduce(s, tmp, partial, count, dt, op);
        } else if (rtmpi_op_commutative(op)) {
            rtmpi_sched_reduce(s, tmp, partial, count, dt, op);
        } else {
            /* partial = partial op tmp, landing in tmp: swap the roles */
            rtmpi_sched_reduce(s, partial, tmp, count, dt, op);
            void *t = partial;
            partial = tmp;
            tmp = t;
        }
    }
    rtmpi_sched_round(s);
    return rtmpi_sched_failed(s);
}

static int scan(const char *fn, const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int exclusive,
                MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc;

    if ((rc = coll_get_comm(fn, comm, ci)))
        return rc;
    if (ci->c->inter)
        return FAIL(ci, fn, MPI_ERR_COMM, "not defined on an intercommunicator");
    if ((sendbuf != MPI_IN_PLACE &&
         (rc = coll_check_buf(fn, ci, sendbuf, count, datatype, NULL, "send"))) ||
        (rc = coll_check_buf(fn, ci, recvbuf, count, datatype, NULL, "receive")) ||
        (rc = coll_check_op(fn, ci, op, datatype)))
        return rc;
    NEW_SCHED(s);
    return coll_launch(fn, ci, s,
                       build_scan(s, ci, sendbuf, recvbuf, count, datatype, op, exclusive),
                       request);
}

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    RTMPI_ENTER();
    return scan(__func__, sendbuf, recvbuf, count, datatype, op, comm, 0, NULL);
}
RTMPI_WEAK(Scan)

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return scan(__func__, sendbuf, recvbuf, count, datatype, op, comm, 0, request);
}
RTMPI_WEAK(Iscan)

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    RTMPI_ENTER();
    return scan(__func__, sendbuf, recvbuf, count, datatype, op, comm, 1, NULL);
}
RTMPI_WEAK(Exscan)

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return scan(__func__, sendbuf, recvbuf, count, datatype, op, comm, 1, request);
}
RTMPI_WEAK(Iexscan)
