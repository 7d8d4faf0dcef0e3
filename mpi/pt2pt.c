/*
 * MPI point-to-point: send modes, receives, probes, matched probes,
 * persistent requests (the buffer of buffered sends is bsend.c's).
 * Contiguous data goes straight to the native API (no copy, no allocation
 * in the blocking calls); other layouts are packed.
 */
#include "config.h"

#include "mpi_impl.h"
#include "mpi_state.h"

#include <limits.h>
#include <stdlib.h>

struct rtmpi_message {
    rtm_message_t native;
    MPI_Comm      comm;
};

/* `count` elements of d: refused when their bytes or the addresses they
 * span do not fit 64 bits (no buffer could hold them; the byte count must
 * not wrap). The fast paths never see such a type: rtmpi_dtype_commit
 * leaves it without `direct`. */
static int check_bytes(const char *fn, MPI_Comm comm, int count, const rtmpi_dtype_t *d)
{
    if (!rtmpi_dtype_count_fits(d, count))
        return rtmpi_error(comm, fn, MPI_ERR_COUNT, "%d elements of %s are more bytes, or "
                           "span more addresses, than 64 bits hold", count, d->name);
    return MPI_SUCCESS;
}

/* Validates the arguments every send shares; on success *cp and *dp are set. */
static int check_send(const char *fn, const void *buf, int count, MPI_Datatype dt, int dest,
                      int tag, MPI_Comm comm, rtmpi_comm_t **cp, rtmpi_dtype_t **dp)
{
    rtmpi_comm_t *c = rtmpi_comm_get(comm);
    int rc;

    if (!c)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_COMM, "invalid communicator %d", comm);
    if (count < 0)
        return rtmpi_error(comm, fn, MPI_ERR_COUNT, "negative count %d", count);
    if (rtmpi_dtype_check(dt, dp))
        return rtmpi_error(comm, fn, MPI_ERR_TYPE, "invalid or uncommitted datatype %d", dt);
    if (dest != MPI_PROC_NULL && (dest < 0 || dest >= c->size))
        return rtmpi_error(comm, fn, MPI_ERR_RANK,
                           "destination %d out of range for a communicator of size %d", dest,
                           c->size);
    if (tag < 0 || tag > RTM_TAG_UB)
        return rtmpi_error(comm, fn, MPI_ERR_TAG, "tag %d not in 0..%d", tag, RTM_TAG_UB);
    if (!buf && count > 0 && (*dp)->size > 0 && (*dp)->true_lb == 0)
        return rtmpi_error(comm, fn, MPI_ERR_BUFFER, "buffer is NULL with count %d", count);
    if ((rc = check_bytes(fn, comm, count, *dp)))
        return rc;
    *cp = c;
    return MPI_SUCCESS;
}

static int check_recv(const char *fn, const void *buf, int count, MPI_Datatype dt, int source,
                      int tag, MPI_Comm comm, rtmpi_comm_t **cp, rtmpi_dtype_t **dp)
{
    rtmpi_comm_t *c = rtmpi_comm_get(comm);
    int rc;

    if (!c)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_COMM, "invalid communicator %d", comm);
    if (count < 0)
        return rtmpi_error(comm, fn, MPI_ERR_COUNT, "negative count %d", count);
    if (rtmpi_dtype_check(dt, dp))
        return rtmpi_error(comm, fn, MPI_ERR_TYPE, "invalid or uncommitted datatype %d", dt);
    if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE && (source < 0 || source >= c->size))
        return rtmpi_error(comm, fn, MPI_ERR_RANK,
                           "source %d out of range for a communicator of size %d", source,
                           c->size);
    if (tag != MPI_ANY_TAG && (tag < 0 || tag > RTM_TAG_UB))
        return rtmpi_error(comm, fn, MPI_ERR_TAG, "tag %d not in 0..%d", tag, RTM_TAG_UB);
    if (!buf && count > 0 && (*dp)->size > 0 && (*dp)->true_lb == 0)
        return rtmpi_error(comm, fn, MPI_ERR_BUFFER, "buffer is NULL with count %d", count);
    if ((rc = check_bytes(fn, comm, count, *dp)))
        return rc;
    *cp = c;
    return MPI_SUCCESS;
}

static int check_probe(const char *fn, int source, int tag, MPI_Comm comm, rtmpi_comm_t **cp)
{
    rtmpi_comm_t *c = rtmpi_comm_get(comm);

    if (!c)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_COMM, "invalid communicator %d", comm);
    if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE && (source < 0 || source >= c->size))
        return rtmpi_error(comm, fn, MPI_ERR_RANK,
                           "source %d out of range for a communicator of size %d", source,
                           c->size);
    if (tag != MPI_ANY_TAG && (tag < 0 || tag > RTM_TAG_UB))
        return rtmpi_error(comm, fn, MPI_ERR_TAG, "tag %d not in 0..%d", tag, RTM_TAG_UB);
    *cp = c;
    return MPI_SUCCESS;
}

/* Gives r its handle in *request; on failure releases it. */
static int handle_out(const char *fn, MPI_Comm comm, rtmpi_request_t *r, MPI_Request *request)
{
    if (rtmpi_handle_new(r, request) != MPI_SUCCESS) {
        rtmpi_req_release(r);
        return rtmpi_error(comm, fn, MPI_ERR_NO_MEM, "out of memory for a request");
    }
    return MPI_SUCCESS;
}

/* ---- Sends --------------------------------------------------------------- */

static int send_common(const char *fn, const void *buf, int count, MPI_Datatype dt, int dest,
                       int tag, MPI_Comm comm, rtmpi_send_mode_t mode)
{
    rtmpi_comm_t *c;
    rtmpi_dtype_t *d;
    MPI_Aint off;
    int rc;

    RTMPI_ENTER();
    rtmpi_call_enter(fn, dest, tag, comm);   /* job-state reports (mpi_state.h) */
    if ((rc = check_send(fn, buf, count, dt, dest, tag, comm, &c, &d)))
        return rc;
    if (mode == RTMPI_SEND_BUFFERED)
        return rtmpi_bsend_start(fn, buf, count, d, dest, tag, comm, c);
    /* Fast path: nothing of the binding's own needs driving meanwhile. */
    if (rtmpi_dtype_contig(d, count, &off) && !rtmpi_own_work()) {
        size_t bytes = (size_t)count * (size_t)d->size;
        rtm_status_t st = mode == RTMPI_SEND_SYNC
                        ? rtm_ssend(rtmpi_addr(buf, off), bytes, dest, tag, c->pt2pt)
                        : rtm_send(rtmpi_addr(buf, off), bytes, dest, tag, c->pt2pt);

        return st == RTM_OK ? MPI_SUCCESS : rtmpi_error_rtm(comm, fn, st);
    }
    rtmpi_request_t *r = rtmpi_req_alloc(RTMPI_REQ_SEND, comm);
    if (!r)
        return rtmpi_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    rc = rtmpi_p2p_start(r, RTMPI_REQ_SEND, buf, count, dt, dest, tag, c->pt2pt, mode);
    if (rc) {
        rtmpi_req_release(r);
        return rtmpi_error(comm, fn, rc, "%s", rtm_last_error());
    }
    rtmpi_req_wait_complete(r);
    rc = r->status.MPI_ERROR;
    rtmpi_req_release(r);
    return rc ? rtmpi_error(comm, fn, rc, "send failed") : MPI_SUCCESS;
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm)
{
    return send_common(__func__, buf, count, datatype, dest, tag, comm, RTMPI_SEND_STANDARD);
}
RTMPI_WEAK(Send)

int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm)
{
    return send_common(__func__, buf, count, datatype, dest, tag, comm, RTMPI_SEND_SYNC);
}
RTMPI_WEAK(Ssend)

/* A ready send is correct as a standard send: the receive is posted. */
int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm)
{
    return send_common(__func__, buf, count, datatype, dest, tag, comm, RTMPI_SEND_READY);
}
RTMPI_WEAK(Rsend)

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm)
{
    return send_common(__func__, buf, count, datatype, dest, tag, comm, RTMPI_SEND_BUFFERED);
}
RTMPI_WEAK(Bsend)

/* A nonblocking send other than the fast path's (buffered, packed,
 * MPI_PROC_NULL), and every argument error. */
static int isend_slow(const char *fn, const void *buf, int count, MPI_Datatype dt, int dest,
                      int tag, MPI_Comm comm, rtmpi_send_mode_t mode, MPI_Request *request)
{
    rtmpi_comm_t *c;
    rtmpi_dtype_t *d;
    rtmpi_request_t *r;
    int rc;

    if ((rc = check_send(fn, buf, count, dt, dest, tag, comm, &c, &d)))
        return rc;
    if (!request)
        return rtmpi_error(comm, fn, MPI_ERR_ARG, "request is NULL");
    r = rtmpi_req_alloc(RTMPI_REQ_SEND, comm);
    if (!r)
        return rtmpi_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    if (mode == RTMPI_SEND_BUFFERED) {
        /* Complete as soon as the data sits in the attached buffer. */
        rc = rtmpi_bsend_start(fn, buf, count, d, dest, tag, comm, c);
        if (rc) {
            rtmpi_req_release(r);
            return rc;
        }
        rtmpi_status_empty(&r->status);
        r->status.MPI_ERROR = MPI_SUCCESS;
        r->complete = 1;
    } else {
        rc = rtmpi_p2p_start(r, RTMPI_REQ_SEND, buf, count, dt, dest, tag, c->pt2pt, mode);
        if (rc) {
            rtmpi_req_release(r);
            return rtmpi_error(comm, fn, rc, "%s", rtm_last_error());
        }
    }
    return handle_out(fn, comm, r, request);
}

/* Every send and receive argument checked once, inline for the valid case;
 * a contiguous send then goes straight to the runtime's request, which is
 * the MPI request (no object of the binding's own). */
static inline __attribute__((always_inline)) int isend_common(const char *fn, const void *buf, int count, MPI_Datatype dt,
                               int dest, int tag, MPI_Comm comm, rtmpi_send_mode_t mode,
                               MPI_Request *request)
{
    rtmpi_comm_t *c;
    rtmpi_dtype_t *d;
    binding_req_t *rq;

    RTMPI_ENTER();
    c = rtmpi_comm_get(comm);
    d = rtmpi_dtype_get(dt);
    if (__builtin_expect(c && d && d->direct && count >= 0 && (unsigned)dest < (unsigned)c->size &&
                         tag >= 0 && request && mode != RTMPI_SEND_BUFFERED, 1)) {
        size_t bytes = (size_t)count * (size_t)d->size;
        const char *data = (const char *)buf + d->direct_off;

        if (__builtin_expect(data != NULL || bytes == 0, 1)) {
            rtm_status_t st = mode == RTMPI_SEND_SYNC
                            ? binding_issend(data, bytes, dest, tag, c->pt2pt, &rq)
                            : binding_isend(data, bytes, dest, tag, c->pt2pt, &rq);

            if (__builtin_expect(st != RTM_OK, 0))
                return rtmpi_error_rtm(comm, fn, st);
            *request = rtmpi_handle_fast(rq, comm);
            return MPI_SUCCESS;
        }
    }
    return isend_slow(fn, buf, count, dt, dest, tag, comm, mode, request);
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request *request)
{
    return isend_common(__func__, buf, count, datatype, dest, tag, comm, RTMPI_SEND_STANDARD,
                        request);
}
RTMPI_WEAK(Isend)

int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    return isend_common(__func__, buf, count, datatype, dest, tag, comm, RTMPI_SEND_SYNC,
                        request);
}
RTMPI_WEAK(Issend)

int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    return isend_common(__func__, buf, count, datatype, dest, tag, comm, RTMPI_SEND_READY,
                        request);
}
RTMPI_WEAK(Irsend)

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    return isend_common(__func__, buf, count, datatype, dest, tag, comm, RTMPI_SEND_BUFFERED,
                        request);
}
RTMPI_WEAK(Ibsend)

/* ---- Receives ------------------------------------------------------------ */

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    rtmpi_comm_t *c;
    rtmpi_dtype_t *d;
    MPI_Aint off;
    int rc;

    RTMPI_ENTER();
    rtmpi_call_enter(__func__, source, tag, comm);   /* job-state reports (mpi_state.h) */
    if ((rc = check_recv(__func__, buf, count, datatype, source, tag, comm, &c, &d)))
        return rc;
    if (rtmpi_dtype_contig(d, count, &off) && !rtmpi_own_work() &&
        source != MPI_PROC_NULL) {
        rtm_msg_status_t ns;
        rtm_status_t st = rtm_recv(rtmpi_addr(buf, off), (size_t)count * (size_t)d->size, source,
                                   tag, c->pt2pt, &ns);

        if (st != RTM_OK && st != RTM_ERR_TRUNCATE)
            return rtmpi_error_rtm(comm, __func__, st);
        if (status != MPI_STATUS_IGNORE)
            rtmpi_status_set(status, &ns);
        if (st == RTM_ERR_TRUNCATE)
            return rtmpi_error(comm, __func__, MPI_ERR_TRUNCATE,
                               "a message of %zu bytes from rank %d (tag %d) does not fit in "
                               "the receive buffer of %zu bytes", ns.count, ns.source, ns.tag,
                               (size_t)count * (size_t)d->size);
        return MPI_SUCCESS;
    }
    rtmpi_request_t *r = rtmpi_req_alloc(RTMPI_REQ_RECV, comm);
    if (!r)
        return rtmpi_error(comm, __func__, MPI_ERR_NO_MEM, "out of memory");
    rc = rtmpi_p2p_start(r, RTMPI_REQ_RECV, buf, count, datatype, source, tag, c->pt2pt,
                         RTMPI_SEND_STANDARD);
    if (rc) {
        rtmpi_req_release(r);
        return rtmpi_error(comm, __func__, rc, "%s", rtm_last_error());
    }
    rtmpi_req_wait_complete(r);
    if (status != MPI_STATUS_IGNORE)
        rtmpi_status_copy(status, &r->status);
    rc = r->status.MPI_ERROR;
    rtmpi_req_release(r);
    return rc ? rtmpi_error(comm, __func__, rc, "receive from %d failed", source) : MPI_SUCCESS;
}
RTMPI_WEAK(Recv)

/* A nonblocking receive other than the fast path's, and every argument error. */
static int irecv_slow(const char *fn, void *buf, int count, MPI_Datatype datatype, int source,
                      int tag, MPI_Comm comm, MPI_Request *request)
{
    rtmpi_comm_t *c;
    rtmpi_dtype_t *d;
    rtmpi_request_t *r;
    int rc;

    if ((rc = check_recv(fn, buf, count, datatype, source, tag, comm, &c, &d)))
        return rc;
    if (!request)
        return rtmpi_error(comm, fn, MPI_ERR_ARG, "request is NULL");
    r = rtmpi_req_alloc(RTMPI_REQ_RECV, comm);
    if (!r)
        return rtmpi_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    rc = rtmpi_p2p_start(r, RTMPI_REQ_RECV, buf, count, datatype, source, tag, c->pt2pt,
                         RTMPI_SEND_STANDARD);
    if (rc) {
        rtmpi_req_release(r);
        return rtmpi_error(comm, fn, rc, "%s", rtm_last_error());
    }
    return handle_out(fn, comm, r, request);
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    rtmpi_comm_t *c;
    rtmpi_dtype_t *d;
    binding_req_t *rq;

    RTMPI_ENTER();
    c = rtmpi_comm_get(comm);
    d = rtmpi_dtype_get(datatype);
    if (__builtin_expect(c && d && d->direct && count >= 0 &&
                         (source >= 0 ? source < c->size : source == MPI_ANY_SOURCE) &&
                         (tag >= 0 || tag == MPI_ANY_TAG) && request, 1)) {
        size_t bytes = (size_t)count * (size_t)d->size;
        char *data = (char *)buf + d->direct_off;

        if (__builtin_expect(data != NULL || bytes == 0, 1)) {
            rtm_status_t st = binding_irecv(data, bytes, source, tag, c->pt2pt, &rq);

            if (__builtin_expect(st != RTM_OK, 0))
                return rtmpi_error_rtm(comm, __func__, st);
            *request = rtmpi_handle_fast(rq, comm);
            return MPI_SUCCESS;
        }
    }
    return irecv_slow(__func__, buf, count, datatype, source, tag, comm, request);
}
RTMPI_WEAK(Irecv)

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                  int recvtag, MPI_Comm comm, MPI_Status *status)
{
    rtmpi_comm_t *c;
    rtmpi_dtype_t *d;
    rtmpi_request_t *rs, *rr;
    int rc;

    RTMPI_ENTER();
    rtmpi_call_enter(__func__, source, recvtag, comm);   /* job-state reports (mpi_state.h) */
    if ((rc = check_send(__func__, sendbuf, sendcount, sendtype, dest, sendtag, comm, &c, &d)))
        return rc;
    if ((rc = check_recv(__func__, recvbuf, recvcount, recvtype, source, recvtag, comm, &c, &d)))
        return rc;
    rr = rtmpi_req_alloc(RTMPI_REQ_RECV, comm);
    rs = rtmpi_req_alloc(RTMPI_REQ_SEND, comm);
    if (!rr || !rs) {
        rc = MPI_ERR_NO_MEM;
        goto out_release;
    }
    rc = rtmpi_p2p_start(rr, RTMPI_REQ_RECV, recvbuf, recvcount, recvtype, source, recvtag,
                         c->pt2pt, RTMPI_SEND_STANDARD);
    if (rc)
        goto out_release;
    rc = rtmpi_p2p_start(rs, RTMPI_REQ_SEND, sendbuf, sendcount, sendtype, dest, sendtag,
                         c->pt2pt, RTMPI_SEND_STANDARD);
    if (rc) {
        rtmpi_req_wait_complete(rr);   /* cannot unpost it safely otherwise */
        goto out_release;
    }
    rtmpi_req_wait_complete(rs);
    rtmpi_req_wait_complete(rr);
    if (status != MPI_STATUS_IGNORE)
        rtmpi_status_copy(status, &rr->status);
    rc = rr->status.MPI_ERROR ? rr->status.MPI_ERROR : rs->status.MPI_ERROR;

out_release:
    if (rs)
        rtmpi_req_release(rs);
    if (rr)
        rtmpi_req_release(rr);
    return rc ? rtmpi_error(comm, __func__, rc, "send to %d / receive from %d failed", dest,
                            source)
              : MPI_SUCCESS;
}
RTMPI_WEAK(Sendrecv)

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    rtmpi_comm_t *c;
    rtmpi_dtype_t *d;
    void *copy;
    int rc;

    RTMPI_ENTER();
    rtmpi_call_enter(__func__, source, recvtag, comm);   /* job-state reports (mpi_state.h) */
    if ((rc = check_send(__func__, buf, count, datatype, dest, sendtag, comm, &c, &d)))
        return rc;
    if ((rc = check_recv(__func__, buf, count, datatype, source, recvtag, comm, &c, &d)))
        return rc;
    /* The outgoing data leaves from a packed copy so the receive can land
     * in the buffer at once. */
    size_t bytes = (size_t)count * (size_t)d->size;
    copy = malloc(bytes ? bytes : 1);
    if (!copy)
        return rtmpi_error(comm, __func__, MPI_ERR_NO_MEM, "out of memory");
    rtmpi_pack(buf, count, d, copy);
    /* the copy as MPI_BYTEs, or as one element of a type of that many
     * beyond INT_MAX (an int count would wrap) */
    MPI_Datatype bytes_type = MPI_BYTE;
    int n = (int)bytes;
    if (bytes > INT_MAX) {
        if ((rc = rtmpi_dtype_bytes_new((MPI_Count)bytes, &bytes_type))) {
            free(copy);
            return rtmpi_error(comm, __func__, rc, "out of memory");
        }
        n = 1;
    }
    rc = PMPI_Sendrecv(copy, n, bytes_type, dest, sendtag, buf, count, datatype, source,
                       recvtag, comm, status);
    if (bytes_type != MPI_BYTE)
        PMPI_Type_free(&bytes_type);
    free(copy);
    return rc;
}
RTMPI_WEAK(Sendrecv_replace)

/* ---- Probes -------------------------------------------------------------- */

/* Source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0; MPI_ERROR untouched. */
static void proc_null_status(MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE) {
        int err = status->MPI_ERROR;

        rtmpi_status_empty(status);
        status->MPI_SOURCE = MPI_PROC_NULL;
        status->MPI_ERROR = err;
    }
}

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    rtmpi_comm_t *c;
    rtm_msg_status_t ns;
    rtm_status_t st;
    int rc;

    RTMPI_ENTER();
    if ((rc = check_probe(__func__, source, tag, comm, &c)))
        return rc;
    if (!flag)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "flag is NULL");
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    rtmpi_sched_progress_all();
    if (rtmpi_rma_nactive)   /* a one-sided target polling for messages serves too */
        rtmpi_rma_progress();
    st = rtm_iprobe(source, tag, c->pt2pt, flag, &ns);
    if (st != RTM_OK)
        return rtmpi_error_rtm(comm, __func__, st);
    if (*flag && status != MPI_STATUS_IGNORE)
        rtmpi_status_set(status, &ns);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Iprobe)

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    rtmpi_comm_t *c;
    rtm_msg_status_t ns;
    rtm_status_t st;
    int rc, flag = 0;

    RTMPI_ENTER();
    rtmpi_call_enter(__func__, source, tag, comm);   /* job-state reports (mpi_state.h) */
    if ((rc = check_probe(__func__, source, tag, comm, &c)))
        return rc;
    if (source == MPI_PROC_NULL) {
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    if (!rtmpi_own_work()) {
        st = rtm_probe(source, tag, c->pt2pt, &ns);
    } else {
        do {
            st = rtm_iprobe(source, tag, c->pt2pt, &flag, &ns);
            if (!flag && st == RTM_OK)
                rtmpi_progress();
        } while (!flag && st == RTM_OK);
    }
    if (st != RTM_OK)
        return rtmpi_error_rtm(comm, __func__, st);
    if (status != MPI_STATUS_IGNORE)
        rtmpi_status_set(status, &ns);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Probe)

static int message_new(rtm_message_t native, MPI_Comm comm, MPI_Message *message)
{
    struct rtmpi_message *m;

    if (native == RTM_MESSAGE_NO_PROC) {
        *message = MPI_MESSAGE_NO_PROC;
        return MPI_SUCCESS;
    }
    m = malloc(sizeof(*m));
    if (!m)
        return MPI_ERR_NO_MEM;
    m->native = native;
    m->comm = comm;
    *message = m;
    return MPI_SUCCESS;
}

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    rtmpi_comm_t *c;
    rtm_msg_status_t ns;
    rtm_message_t nm;
    rtm_status_t st;
    int rc;

    RTMPI_ENTER();
    if ((rc = check_probe(__func__, source, tag, comm, &c)))
        return rc;
    if (!flag || !message)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "flag or message is NULL");
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    rtmpi_sched_progress_all();
    if (rtmpi_rma_nactive)   /* a one-sided target polling for messages serves too */
        rtmpi_rma_progress();
    st = rtm_improbe(source, tag, c->pt2pt, flag, &nm, &ns);
    if (st != RTM_OK)
        return rtmpi_error_rtm(comm, __func__, st);
    if (!*flag)
        return MPI_SUCCESS;
    if ((rc = message_new(nm, comm, message)))
        return rtmpi_error(comm, __func__, rc, "out of memory");
    if (status != MPI_STATUS_IGNORE)
        rtmpi_status_set(status, &ns);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Improbe)

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    rtmpi_comm_t *c;
    int rc, flag = 0;

    RTMPI_ENTER();
    rtmpi_call_enter(__func__, source, tag, comm);   /* job-state reports (mpi_state.h) */
    if ((rc = check_probe(__func__, source, tag, comm, &c)))
        return rc;
    if (!message)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "message is NULL");
    if (!rtmpi_own_work() && source != MPI_PROC_NULL) {
        rtm_msg_status_t ns;
        rtm_message_t nm;
        rtm_status_t st = rtm_mprobe(source, tag, c->pt2pt, &nm, &ns);

        if (st != RTM_OK)
            return rtmpi_error_rtm(comm, __func__, st);
        if ((rc = message_new(nm, comm, message)))
            return rtmpi_error(comm, __func__, rc, "out of memory");
        if (status != MPI_STATUS_IGNORE)
            rtmpi_status_set(status, &ns);
        return MPI_SUCCESS;
    }
    for (;;) {
        rc = PMPI_Improbe(source, tag, comm, &flag, message, status);
        if (rc || flag)
            return rc;
        rtmpi_progress();
    }
}
RTMPI_WEAK(Mprobe)

int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Request *request)
{
    rtmpi_dtype_t *d;
    rtmpi_request_t *r;
    MPI_Aint off;
    rtm_status_t st;
    void *data;
    int rc;

    RTMPI_ENTER();
    if (!message || *message == MPI_MESSAGE_NULL)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_REQUEST, "message is MPI_MESSAGE_NULL");
    if (!request)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "request is NULL");
    MPI_Comm comm = *message == MPI_MESSAGE_NO_PROC ? MPI_COMM_NULL : (*message)->comm;
    if (count < 0)
        return rtmpi_error(comm, __func__, MPI_ERR_COUNT, "negative count %d", count);
    if (rtmpi_dtype_check(datatype, &d))
        return rtmpi_error(comm, __func__, MPI_ERR_TYPE, "invalid or uncommitted datatype %d", datatype);
    if ((rc = check_bytes(__func__, comm, count, d)))
        return rc;
    r = rtmpi_req_alloc(RTMPI_REQ_RECV, comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm);
    if (!r)
        return rtmpi_error(comm, __func__, MPI_ERR_NO_MEM, "out of memory");
    if (*message == MPI_MESSAGE_NO_PROC) {
        proc_null_status(&r->status);
        r->complete = 1;
        if ((rc = handle_out(__func__, comm, r, request)))
            return rc;
        *message = MPI_MESSAGE_NULL;
        return MPI_SUCCESS;
    }
    size_t bytes = (size_t)count * (size_t)d->size;
    if (rtmpi_dtype_contig(d, count, &off)) {
        data = rtmpi_addr(buf, off);
    } else {
        r->packbuf = malloc(bytes ? bytes : 1);
        if (!r->packbuf) {
            rtmpi_req_release(r);
            return rtmpi_error(comm, __func__, MPI_ERR_NO_MEM, "out of memory");
        }
        r->buf = buf;
        r->count = count;
        r->dtype = datatype;
        rtmpi_dtype_retain(datatype);
        data = r->packbuf;
    }
    st = rtm_imrecv(data, bytes, &(*message)->native, &r->native);
    if (st != RTM_OK) {
        if (r->packbuf)
            rtmpi_dtype_release(datatype);
        rtmpi_req_release(r);
        return rtmpi_error_rtm(comm, __func__, st);
    }
    rtmpi_message_forget(*message);   /* its Fortran integer (handles.c) */
    free(*message);
    *message = MPI_MESSAGE_NULL;
    /* The receive has started: out of memory for its handle, it completes
     * on its own (an orphan) and the error says so. */
    if (rtmpi_handle_new(r, request) != MPI_SUCCESS) {
        rtmpi_orphan_add(r);
        return rtmpi_error(comm, __func__, MPI_ERR_NO_MEM, "out of memory for a request");
    }
    return MPI_SUCCESS;
}
RTMPI_WEAK(Imrecv)

int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Status *status)
{
    MPI_Request r;
    int rc = PMPI_Imrecv(buf, count, datatype, message, &r);

    if (rc)
        return rc;
    return PMPI_Wait(&r, status);
}
RTMPI_WEAK(Mrecv)

/* ---- Persistent requests --------------------------------------------------- */

static int persistent_init(const char *fn, rtmpi_req_kind_t kind, const void *buf, int count,
                           MPI_Datatype dt, int peer, int tag, MPI_Comm comm,
                           rtmpi_send_mode_t mode, MPI_Request *request)
{
    rtmpi_comm_t *c;
    rtmpi_dtype_t *d;
    rtmpi_request_t *r;
    int rc;

    RTMPI_ENTER();
    rc = kind == RTMPI_REQ_SEND ? check_send(fn, buf, count, dt, peer, tag, comm, &c, &d)
                                : check_recv(fn, buf, count, dt, peer, tag, comm, &c, &d);
    if (rc)
        return rc;
    if (!request)
        return rtmpi_error(comm, fn, MPI_ERR_ARG, "request is NULL");
    r = rtmpi_req_alloc(kind, comm);
    if (!r)
        return rtmpi_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    r->persistent = 1;
    r->buf = (void *)buf;
    r->count = count;
    r->dtype = dt;
    rtmpi_dtype_retain(dt);
    r->peer = peer;
    r->tag = tag;
    r->mode = mode;
    return handle_out(fn, comm, r, request);
}

int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return persistent_init(__func__, RTMPI_REQ_SEND, buf, count, datatype, dest, tag, comm,
                           RTMPI_SEND_STANDARD, request);
}
RTMPI_WEAK(Send_init)

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return persistent_init(__func__, RTMPI_REQ_SEND, buf, count, datatype, dest, tag, comm,
                           RTMPI_SEND_SYNC, request);
}
RTMPI_WEAK(Ssend_init)

int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return persistent_init(__func__, RTMPI_REQ_SEND, buf, count, datatype, dest, tag, comm,
                           RTMPI_SEND_READY, request);
}
RTMPI_WEAK(Rsend_init)

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return persistent_init(__func__, RTMPI_REQ_SEND, buf, count, datatype, dest, tag, comm,
                           RTMPI_SEND_BUFFERED, request);
}
RTMPI_WEAK(Bsend_init)

int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return persistent_init(__func__, RTMPI_REQ_RECV, buf, count, datatype, source, tag, comm,
                           RTMPI_SEND_STANDARD, request);
}
RTMPI_WEAK(Recv_init)

static int start_one(const char *fn, rtmpi_request_t *r)
{
    /* The request holds its communicator: it may be started after an
     * MPI_Comm_free (the object lives until the request is freed). */
    rtmpi_comm_t *c = rtmpi_comm_obj(r->comm);
    int rc;

    if (!r->persistent)
        return rtmpi_error(r->comm, fn, MPI_ERR_REQUEST, "not a persistent request");
    if (r->active)
        return rtmpi_error(r->comm, fn, MPI_ERR_REQUEST, "the persistent request is already active");
    if (!c)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_COMM, "the request's communicator was freed");
    if (r->kind == RTMPI_REQ_SEND && r->mode == RTMPI_SEND_BUFFERED) {
        rc = rtmpi_bsend_start(fn, r->buf, r->count, rtmpi_dtype_obj(r->dtype), r->peer, r->tag,
                               r->comm, c);
        if (rc)
            return rc;
        rtmpi_status_empty(&r->status);
        r->status.MPI_ERROR = MPI_SUCCESS;
        r->complete = 1;
    } else {
        rc = rtmpi_p2p_start(r, r->kind, r->buf, r->count, r->dtype, r->peer, r->tag, c->pt2pt,
                             r->mode);
        if (rc)
            return rtmpi_error(r->comm, fn, rc, "%s", rtm_last_error());
    }
    r->active = 1;
    return MPI_SUCCESS;
}

/* The persistent request a handle names; an MPI error class otherwise. */
static int persistent_of(const char *fn, MPI_Request h, rtmpi_request_t **r_p)
{
    binding_req_t *rq;

    if (h == MPI_REQUEST_NULL)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_REQUEST, "null request");
    if (!(rq = rtmpi_handle_req(h)))
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_REQUEST,
                           "the request handle is stale: its request was freed");
    if (!rtmpi_rq_ext(rq))
        return rtmpi_error(rtmpi_rq_comm(rq), fn, MPI_ERR_REQUEST, "not a persistent request");
    *r_p = rtmpi_rq_ext(rq);
    return MPI_SUCCESS;
}

int PMPI_Start(MPI_Request *request)
{
    rtmpi_request_t *r;
    int rc;

    RTMPI_ENTER();
    if (!request)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_REQUEST, "null request");
    if ((rc = persistent_of(__func__, *request, &r)))
        return rc;
    return start_one(__func__, r);
}
RTMPI_WEAK(Start)

int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    RTMPI_ENTER();
    if (count < 0 || (count > 0 && !array_of_requests))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "invalid request array");
    for (int i = 0; i < count; i++) {
        rtmpi_request_t *r;
        int rc;

        if (array_of_requests[i] == MPI_REQUEST_NULL)
            return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_REQUEST, "request %d is null", i);
        if ((rc = persistent_of(__func__, array_of_requests[i], &r)))
            return rc;
        if ((rc = start_one(__func__, r)))
            return rc;
    }
    return MPI_SUCCESS;
}
RTMPI_WEAK(Startall)
