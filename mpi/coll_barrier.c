/*
 * MPI_Barrier, MPI_Ibarrier: dissemination.
 */
#include "config.h"

#include "coll.h"
#include "coll_shm.h"

/* ---- Barrier: dissemination, ceil(log2 p) rounds of zero-byte messages. */
static int build_barrier(rtmpi_sched_t *s, cinfo_t *ci)
{
    int p = ci->size, r = ci->rank;

    for (int k = 1; k < p; k <<= 1) {
        rtmpi_sched_send(s, NULL, 0, MPI_BYTE, (r + k) % p);
        rtmpi_sched_recv(s, NULL, 0, MPI_BYTE, (r - k + p) % p);
        rtmpi_sched_round(s);
    }
    return rtmpi_sched_failed(s);
}

static int barrier(const char *fn, MPI_Comm comm, MPI_Request *request)
{
    cinfo_t ci_ = { 0 }, *ci = &ci_;
    int rc = coll_get_comm(fn, comm, ci);

    if (rc)
        return rc;
    if (ci->c->inter)
        return icoll_barrier(fn, ci, request);
    if (!request && coll_shm_usable(ci)) {
        rtmpi_call_enter(fn, RTMPI_CALL_NONE, RTMPI_CALL_NONE, comm);
        if ((rc = coll_shm_barrier(ci)) != COLL_SHM_DECLINED)
            return rc;
    }
    NEW_SCHED(s);
    return coll_launch(fn, ci, s, build_barrier(s, ci), request);
}

int PMPI_Barrier(MPI_Comm comm)
{
    RTMPI_ENTER();
    return barrier(__func__, comm, NULL);
}
RTMPI_WEAK(Barrier)

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return coll_arg_error(comm, __func__, MPI_ERR_ARG, "request is NULL");
    return barrier(__func__, comm, request);
}
RTMPI_WEAK(Ibarrier)
