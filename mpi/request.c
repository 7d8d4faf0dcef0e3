/*
 * MPI requests and their completion (Wait/Test families, cancel, free).
 *
 * An MPI handle names a runtime request (mpi_impl.h). A plain contiguous
 * send or receive is that runtime request alone: completion is its flag,
 * the status its own, read without a call. Other requests keep an
 * rtmpi_request_t (below) that wraps one native request (point-to-point)
 * or one collective schedule. Data of non-contiguous datatypes travels through `packbuf`,
 * unpacked when a receive completes. Blocking waits drive the runtime and
 * the binding's own work (collective schedules, requests the user freed
 * before they completed) together, so a nonblocking collective progresses
 * while the application waits for anything.
 */
#include "config.h"

#include "mpi_impl.h"
#include "mpi_state.h"

#include <stdlib.h>
#include <string.h>

static void wait_idle(unsigned *polls);

static rtmpi_request_t *free_requests;   /* recycled: no malloc on the fast path */
static rtmpi_request_t *orphans;         /* freed by the user, still in flight */

rtmpi_request_t *rtmpi_req_alloc(rtmpi_req_kind_t kind, MPI_Comm comm)
{
    rtmpi_request_t *r = free_requests;

    if (r)
        free_requests = r->next_orphan;
    else if (!(r = malloc(sizeof(*r))))
        return NULL;
    memset(r, 0, sizeof(*r));
    r->kind = kind;
    r->comm = comm;
    r->dtype = MPI_DATATYPE_NULL;
    rtmpi_comm_retain(comm);   /* held until rtmpi_req_release */
    return r;
}

int rtmpi_handle_new(rtmpi_request_t *r, MPI_Request *request_p)
{
    binding_req_t *rq = binding_req_new();

    if (!rq)
        return MPI_ERR_NO_MEM;
    rq->binding[0] = (uintptr_t)(intptr_t)r->comm;
    rq->binding[1] = (uintptr_t)r;
    r->handle = rq;
    *request_p = rtmpi_handle(rq);
    return MPI_SUCCESS;
}

void rtmpi_req_release(rtmpi_request_t *r)
{
    if (r->native != RTM_REQUEST_NULL)
        rtm_request_free(&r->native);
    if (r->bsend)
        rtmpi_bsend_release(r);
    else
        free(r->packbuf);
    if (r->persistent)
        rtmpi_dtype_release(r->dtype);
    if (r->sched)
        rtmpi_sched_free(r->sched);
    if (r->greq)
        rtmpi_greq_release(r);   /* its free_fn */
    rtmpi_comm_release(r->comm);
    r->next_orphan = free_requests;
    free_requests = r;
}

void rtmpi_requests_finalize(void)
{
    while (free_requests) {
        rtmpi_request_t *r = free_requests;

        free_requests = r->next_orphan;
        free(r);
    }
}

/* The empty status of MPI 3.1 3.7.3 (null or inactive request): its
 * MPI_ERROR is MPI_SUCCESS by definition. */
void rtmpi_status_empty(MPI_Status *st)
{
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    st->rtmpi_cancelled = 0;
    st->rtmpi_count = 0;
}

/* The other status writers leave MPI_ERROR alone (MPI 3.1 3.2.5: only the
 * calls with arrays of statuses write it, and only when they return
 * MPI_ERR_IN_STATUS; see note_error). A request's own status carries its
 * error class there, set by whoever completes it. */
void rtmpi_status_set(MPI_Status *st, const rtm_msg_status_t *ns)
{
    st->MPI_SOURCE = ns->source;
    st->MPI_TAG = ns->tag;
    st->rtmpi_cancelled = ns->cancelled;
    st->rtmpi_count = (long long)ns->count;
}

/* A request's status handed to the caller: all but MPI_ERROR. */
void rtmpi_status_copy(MPI_Status *dst, const MPI_Status *src)
{
    int err = dst->MPI_ERROR;

    *dst = *src;
    dst->MPI_ERROR = err;
}

static void proc_null_status(MPI_Status *st)
{
    rtmpi_status_empty(st);
    st->MPI_SOURCE = MPI_PROC_NULL;
}

int rtmpi_p2p_start(rtmpi_request_t *r, rtmpi_req_kind_t kind, const void *buf, int count,
                    MPI_Datatype dt, int peer, int tag, rtm_comm_t ncomm,
                    rtmpi_send_mode_t mode)
{
    /* A persistent request's type may have been freed since: its reference
     * keeps the object. */
    rtmpi_dtype_t *d = rtmpi_dtype_obj(dt);
    size_t bytes = (size_t)count * (size_t)d->size;
    MPI_Aint off;
    rtm_status_t st;
    void *data;

    r->kind = kind;
    r->ncomm = ncomm;
    r->complete = 0;
    r->native = RTM_REQUEST_NULL;
    if (peer == MPI_PROC_NULL) {
        proc_null_status(&r->status);
        r->status.MPI_ERROR = MPI_SUCCESS;
        r->complete = 1;
        return MPI_SUCCESS;
    }
    if (rtmpi_dtype_contig(d, count, &off)) {
        data = rtmpi_addr(buf, off);
    } else {
        r->packbuf = malloc(bytes ? bytes : 1);
        if (!r->packbuf)
            return MPI_ERR_NO_MEM;
        r->packbytes = bytes;
        if (kind == RTMPI_REQ_SEND) {
            rtmpi_pack(buf, count, d, r->packbuf);
        } else {
            r->buf = (void *)buf;
            r->count = count;
            if (!r->persistent) {
                r->dtype = dt;
                rtmpi_dtype_retain(dt);
            }
        }
        data = r->packbuf;
    }
    if (kind == RTMPI_REQ_SEND)
        st = rtm_isend_mode(data, bytes, peer, tag, ncomm,
                            mode == RTMPI_SEND_SYNC ? RTM_SEND_SYNC : RTM_SEND_STANDARD,
                            &r->native);
    else
        st = rtm_irecv(data, bytes, peer, tag, ncomm, &r->native);
    if (st != RTM_OK) {
        free(r->packbuf);
        r->packbuf = NULL;
        return rtmpi_class_of(st);
    }
    return MPI_SUCCESS;
}

/* Final bookkeeping of a native operation that completed with `rc`. */
static void complete_native(rtmpi_request_t *r, rtm_status_t rc, const rtm_msg_status_t *ns)
{
    rtmpi_status_set(&r->status, ns);
    r->status.MPI_ERROR = rtmpi_class_of(ns->error);
    if (rc != RTM_OK && rc != RTM_ERR_CANCELED && r->status.MPI_ERROR == MPI_SUCCESS)
        r->status.MPI_ERROR = rtmpi_class_of(rc);
    if (r->packbuf && r->kind == RTMPI_REQ_RECV) {
        /* The handle may have been freed meanwhile; our reference keeps the type. */
        rtmpi_unpack(r->packbuf, (size_t)ns->count, r->buf, r->count,
                     rtmpi_dtype_obj(r->dtype));
        if (!r->persistent)
            rtmpi_dtype_release(r->dtype);
    }
    if (r->packbuf && !r->bsend) {
        free(r->packbuf);
        r->packbuf = NULL;
    }
    r->native = RTM_REQUEST_NULL;
    r->complete = 1;
}

int rtmpi_req_poll(rtmpi_request_t *r)
{
    if (r->complete)
        return 1;
    if (r->kind == RTMPI_REQ_COLL) {
        if (!rtmpi_sched_poll(r->sched))
            return 0;
        rtmpi_status_empty(&r->status);
        r->status.MPI_ERROR = rtmpi_sched_error(r->sched);
        r->complete = 1;
        return 1;
    }
    if (r->kind == RTMPI_REQ_GREQ)
        return rtmpi_greq_poll(r);
    if (r->native == RTM_REQUEST_NULL) {
        r->complete = 1;
        return 1;
    }
    rtm_msg_status_t ns;
    int flag = 0;
    rtm_status_t rc = rtm_test(&r->native, &flag, &ns);

    if (!flag && rc == RTM_OK)
        return 0;
    if (!flag) {
        memset(&ns, 0, sizeof(ns));
        ns.error = rc;
    }
    complete_native(r, rc, &ns);
    return 1;
}

void rtmpi_orphan_add(rtmpi_request_t *r)
{
    r->freed = 1;
    r->next_orphan = orphans;
    orphans = r;
}

static int orphans_progress(void)
{
    int n = 0;

    for (rtmpi_request_t **pp = &orphans; *pp;) {
        rtmpi_request_t *r = *pp;

        if (rtmpi_req_poll(r)) {
            *pp = r->next_orphan;
            rtmpi_req_release(r);
            n++;
        } else {
            pp = &r->next_orphan;
        }
    }
    return n;
}

int rtmpi_progress(void)
{
    int n = rtm_progress();

    n += rtmpi_sched_progress_all();
    if (rtmpi_rma_nactive)   /* one-sided targets are served here (rma.c) */
        n += rtmpi_rma_progress();
    if (orphans)
        n += orphans_progress();
    return n;
}

void rtmpi_req_wait_complete(rtmpi_request_t *r)
{
    unsigned polls = 0;

    if (r->complete)
        return;
    /* Nothing of the binding's own to drive: the runtime's wait (with its
     * spin-then-back-off) is the fastest way. */
    if (r->kind != RTMPI_REQ_COLL && r->native != RTM_REQUEST_NULL &&
        !rtmpi_sched_active() && !orphans && !rtmpi_rma_nactive) {
        rtm_msg_status_t ns;
        rtm_status_t rc = rtm_wait(&r->native, &ns);

        complete_native(r, rc, &ns);
        return;
    }
    while (!rtmpi_req_poll(r))
        wait_idle(&polls);
}

/* ---- handles ------------------------------------------------------------- */

static int stale_error(const char *fn)
{
    return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_REQUEST,
                       "the request handle is stale: its request completed and was freed "
                       "(a copy of a handle that MPI_Wait, MPI_Test or MPI_Request_free "
                       "already set to MPI_REQUEST_NULL?)");
}

/* Counts as already complete with an empty status: an inactive persistent
 * request. */
static inline int rq_inactive(const binding_req_t *rq)
{
    rtmpi_request_t *r = rtmpi_rq_ext(rq);

    return r && r->persistent && !r->active;
}

static inline int rq_done(const binding_req_t *rq)
{
    rtmpi_request_t *r = rtmpi_rq_ext(rq);

    return r ? rtmpi_req_poll(r) : (rq->flags & BINDING_REQ_COMPLETE) != 0;
}

/* The MPI error class of a completed fast-path request. */
static inline int rq_error(const binding_req_t *rq)
{
    rtm_status_t e = rq->status.error;

    return e == RTM_OK || e == RTM_ERR_CANCELED ? MPI_SUCCESS : rtmpi_class_of(e);
}

/* Called between polls of a blocking wait. */
static void wait_idle(unsigned *polls)
{
    if (rtmpi_progress() > 0)
        *polls = 0;
    else
        binding_idle(++*polls);   /* yields only on an oversubscribed host (RTM_IDLE_WAIT) */
}

static void rq_wait(binding_req_t *rq)
{
    rtmpi_request_t *r = rtmpi_rq_ext(rq);
    unsigned polls = 0;

    if (r) {
        rtmpi_req_wait_complete(r);
        return;
    }
    while (!(rq->flags & BINDING_REQ_COMPLETE))
        wait_idle(&polls);
}

/* Hands the completed request's status out and frees it (or, persistent,
 * makes it inactive). Returns the operation's error class. */
static int finish(MPI_Request *reqp, binding_req_t *rq, MPI_Status *status)
{
    rtmpi_request_t *r = rtmpi_rq_ext(rq);
    int err;

    if (!r) {
        err = rq_error(rq);
        if (status != MPI_STATUS_IGNORE)
            rtmpi_status_set(status, &rq->status);
        binding_req_release(rq);
        *reqp = MPI_REQUEST_NULL;
        return err;
    }
    err = r->status.MPI_ERROR;
    if (status != MPI_STATUS_IGNORE)
        rtmpi_status_copy(status, &r->status);
    if (r->persistent) {
        r->active = 0;
        r->complete = 0;
    } else {
        rtmpi_req_release(r);
        binding_req_release(rq);
        *reqp = MPI_REQUEST_NULL;
    }
    return err;
}

static int error_of(const char *fn, MPI_Comm comm, int err)
{
    return rtmpi_error(comm, fn, err, "the operation completed with an error");
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    binding_req_t *rq;

    RTMPI_ENTER();
    rtmpi_call_enter(__func__, RTMPI_CALL_NONE, RTMPI_CALL_NONE, MPI_COMM_NULL);
    if (!request)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_REQUEST, "request is NULL");
    if (*request == MPI_REQUEST_NULL) {
        if (status != MPI_STATUS_IGNORE)
            rtmpi_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!(rq = rtmpi_handle_req(*request)))
        return stale_error(__func__);
    if (rq_inactive(rq)) {
        if (status != MPI_STATUS_IGNORE)
            rtmpi_status_empty(status);
        return MPI_SUCCESS;
    }
    MPI_Comm comm = rtmpi_rq_comm(rq);
    rq_wait(rq);
    int err = finish(request, rq, status);
    return err ? error_of(__func__, comm, err) : MPI_SUCCESS;
}
RTMPI_WEAK(Wait)

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    binding_req_t *rq;

    RTMPI_ENTER();
    if (!request || !flag)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "request or flag is NULL");
    if (*request == MPI_REQUEST_NULL) {
        *flag = 1;
        if (status != MPI_STATUS_IGNORE)
            rtmpi_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!(rq = rtmpi_handle_req(*request)))
        return stale_error(__func__);
    if (rq_inactive(rq)) {
        *flag = 1;
        if (status != MPI_STATUS_IGNORE)
            rtmpi_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!rq_done(rq)) {
        rtmpi_progress();
        if (!rq_done(rq)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    MPI_Comm comm = rtmpi_rq_comm(rq);
    int err = finish(request, rq, status);
    return err ? error_of(__func__, comm, err) : MPI_SUCCESS;
}
RTMPI_WEAK(Test)

/* The array and every handle in it (no stale one). */
static int check_array(const char *fn, int count, MPI_Request reqs[])
{
    if (count < 0)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_COUNT, "negative count %d", count);
    if (count > 0 && !reqs)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_REQUEST, "request array is NULL");
    for (int i = 0; i < count; i++)
        if (reqs[i] != MPI_REQUEST_NULL && !rtmpi_handle_req(reqs[i]))
            return stale_error(fn);
    return MPI_SUCCESS;
}

/* A checked handle that counts as complete with an empty status. */
static inline int is_inactive(MPI_Request h)
{
    return h == MPI_REQUEST_NULL || rq_inactive(rtmpi_handle_req_checked(h));
}

/* The array calls' MPI_ERROR rule (MPI 3.1 3.2.5): the field is written if
 * and only if the call returns MPI_ERR_IN_STATUS, then in every status.
 * Called for status j (of sts, or MPI_STATUSES_IGNORE) in order, with the
 * error class of its request: the first error fills the statuses before it
 * with MPI_SUCCESS, and from then on each status gets its own. */
static inline void note_error(MPI_Status *sts, int j, int err, int *any_err)
{
    if (sts != MPI_STATUSES_IGNORE) {
        if (*any_err) {
            sts[j].MPI_ERROR = err;
        } else if (err) {
            for (int k = 0; k < j; k++)
                sts[k].MPI_ERROR = MPI_SUCCESS;
            sts[j].MPI_ERROR = err;
        }
    }
    if (err)
        *any_err = 1;
}

/* Finishes every request of the array (all complete, handles checked);
 * MPI_ERR_IN_STATUS when any failed, with each status's MPI_ERROR set. */
static int finish_all(const char *fn, int count, MPI_Request reqs[], MPI_Status statuses[])
{
    int any_err = 0;
    MPI_Comm comm = MPI_COMM_NULL;

    for (int i = 0; i < count; i++) {
        MPI_Status *st = statuses != MPI_STATUSES_IGNORE ? &statuses[i] : MPI_STATUS_IGNORE;
        binding_req_t *rq;

        if (reqs[i] == MPI_REQUEST_NULL) {
            if (st != MPI_STATUS_IGNORE)
                rtmpi_status_empty(st);
            note_error(statuses, i, MPI_SUCCESS, &any_err);
            continue;
        }
        rq = rtmpi_handle_req_checked(reqs[i]);
        if (__builtin_expect(rtmpi_rq_ext(rq) == NULL, 1)) {
            /* the fast path, finish() inline */
            int err = MPI_SUCCESS;

            if (st != MPI_STATUS_IGNORE)
                rtmpi_status_set(st, &rq->status);
            if (__builtin_expect(rq->status.error != RTM_OK, 0) && (err = rq_error(rq)))
                comm = rtmpi_rq_comm(rq);
            note_error(statuses, i, err, &any_err);
            binding_req_release(rq);
            reqs[i] = MPI_REQUEST_NULL;
            continue;
        }
        if (rq_inactive(rq)) {
            if (st != MPI_STATUS_IGNORE)
                rtmpi_status_empty(st);
            note_error(statuses, i, MPI_SUCCESS, &any_err);
            continue;
        }
        MPI_Comm c = rtmpi_rq_comm(rq);
        int err = finish(&reqs[i], rq, st);

        if (err != MPI_SUCCESS)
            comm = c;
        note_error(statuses, i, err, &any_err);
    }
    if (any_err)
        return rtmpi_error(comm, fn, MPI_ERR_IN_STATUS, "see the MPI_ERROR field of each status");
    return MPI_SUCCESS;
}

/* Walks the requests themselves, in one pass: a fast-path request's
 * completion is its runtime flag and its status its own, read here, and it
 * is recycled at once (one call per request). A stale handle ends the call
 * with MPI_ERR_REQUEST; the requests before it are then finished (their
 * handles MPI_REQUEST_NULL), the others untouched. */
/* Waitall's loop; `ignore` (statuses is MPI_STATUSES_IGNORE) is a constant
 * in each of its two inlined copies, so the common call tests no status
 * pointer per request. */
static inline __attribute__((always_inline)) int waitall_body(int count, MPI_Request reqs[],
                                                              MPI_Status statuses[],
                                                              const int ignore)
{
    unsigned polls = 0;
    int any_err = 0;
    MPI_Comm err_comm = MPI_COMM_NULL;

    for (int i = 0; i < count; i++) {
        MPI_Status *st = ignore ? MPI_STATUS_IGNORE : &statuses[i];
        binding_req_t *rq;
        rtmpi_request_t *r;

        if (reqs[i] == MPI_REQUEST_NULL) {
            if (st != MPI_STATUS_IGNORE)
                rtmpi_status_empty(st);
            note_error(statuses, i, MPI_SUCCESS, &any_err);
            continue;
        }
        if (!(rq = rtmpi_handle_req(reqs[i])))
            return stale_error("MPI_Waitall");
        if (__builtin_expect((r = rtmpi_rq_ext(rq)) == NULL, 1)) {
            int err = MPI_SUCCESS;

            while (!(rq->flags & BINDING_REQ_COMPLETE))
                wait_idle(&polls);
            if (st != MPI_STATUS_IGNORE)
                rtmpi_status_set(st, &rq->status);
            if (__builtin_expect(rq->status.error != RTM_OK, 0) && (err = rq_error(rq)))
                err_comm = rtmpi_rq_comm(rq);
            note_error(statuses, i, err, &any_err);
            binding_req_release(rq);
            reqs[i] = MPI_REQUEST_NULL;
            continue;
        }
        if (r->persistent && !r->active) {
            if (st != MPI_STATUS_IGNORE)
                rtmpi_status_empty(st);
            note_error(statuses, i, MPI_SUCCESS, &any_err);
            continue;
        }
        while (!rtmpi_req_poll(r))
            wait_idle(&polls);
        MPI_Comm c = r->comm;
        int err = finish(&reqs[i], rq, st);

        if (err != MPI_SUCCESS)
            err_comm = c;
        note_error(statuses, i, err, &any_err);
    }
    if (any_err)
        return rtmpi_error(err_comm, "MPI_Waitall", MPI_ERR_IN_STATUS,
                           "see the MPI_ERROR field of each status");
    return MPI_SUCCESS;
}

int PMPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    RTMPI_ENTER();
    rtmpi_call_enter(__func__, RTMPI_CALL_NONE, RTMPI_CALL_NONE, MPI_COMM_NULL);
    if (count < 0 || (count > 0 && !reqs))
        return check_array(__func__, count, reqs);
    if (statuses == MPI_STATUSES_IGNORE)
        return waitall_body(count, reqs, statuses, 1);
    return waitall_body(count, reqs, statuses, 0);
}
RTMPI_WEAK(Waitall)

/* 1 when every request of the (checked) array is complete. */
static int all_done(int count, MPI_Request reqs[])
{
    for (int i = 0; i < count; i++)
        if (!is_inactive(reqs[i]) && !rq_done(rtmpi_handle_req_checked(reqs[i])))
            return 0;
    return 1;
}

int PMPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    int rc;

    RTMPI_ENTER();
    if ((rc = check_array(__func__, count, reqs)))
        return rc;
    if (!flag)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "flag is NULL");
    if (!all_done(count, reqs)) {
        rtmpi_progress();
        if (!all_done(count, reqs)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    return finish_all(__func__, count, reqs, statuses);
}
RTMPI_WEAK(Testall)

/* First complete request's index, -1 none yet, MPI_UNDEFINED all inactive. */
static int any_complete(int count, MPI_Request reqs[])
{
    int active = 0;

    for (int i = 0; i < count; i++) {
        if (is_inactive(reqs[i]))
            continue;
        active = 1;
        if (rq_done(rtmpi_handle_req_checked(reqs[i])))
            return i;
    }
    return active ? -1 : MPI_UNDEFINED;
}

static int finish_one(const char *fn, MPI_Request reqs[], int i, MPI_Status *status)
{
    binding_req_t *rq = rtmpi_handle_req_checked(reqs[i]);
    MPI_Comm comm = rtmpi_rq_comm(rq);
    int err = finish(&reqs[i], rq, status);

    return err ? error_of(fn, comm, err) : MPI_SUCCESS;
}

int PMPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    unsigned polls = 0;
    int rc, i;

    RTMPI_ENTER();
    rtmpi_call_enter(__func__, RTMPI_CALL_NONE, RTMPI_CALL_NONE, MPI_COMM_NULL);
    if ((rc = check_array(__func__, count, reqs)))
        return rc;
    if (!index)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "index is NULL");
    while ((i = any_complete(count, reqs)) == -1)
        wait_idle(&polls);
    *index = i;
    if (i == MPI_UNDEFINED) {
        if (status != MPI_STATUS_IGNORE)
            rtmpi_status_empty(status);
        return MPI_SUCCESS;
    }
    return finish_one(__func__, reqs, i, status);
}
RTMPI_WEAK(Waitany)

int PMPI_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    int rc, i;

    RTMPI_ENTER();
    if ((rc = check_array(__func__, count, reqs)))
        return rc;
    if (!index || !flag)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "index or flag is NULL");
    i = any_complete(count, reqs);
    if (i == -1) {
        rtmpi_progress();
        i = any_complete(count, reqs);
    }
    if (i == -1) {
        *flag = 0;
        *index = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    *flag = 1;
    *index = i;
    if (i == MPI_UNDEFINED) {
        if (status != MPI_STATUS_IGNORE)
            rtmpi_status_empty(status);
        return MPI_SUCCESS;
    }
    return finish_one(__func__, reqs, i, status);
}
RTMPI_WEAK(Testany)

/* Collects every completed request; *outcount MPI_UNDEFINED when all are
 * inactive. Returns 1 when something was collected (or all inactive). */
static int some(const char *fn, int incount, MPI_Request reqs[], int *outcount,
                int indices[], MPI_Status statuses[], int *rc_p)
{
    int n = 0, active = 0, any_err = 0;
    MPI_Comm comm = MPI_COMM_NULL;

    for (int i = 0; i < incount; i++) {
        if (is_inactive(reqs[i]))
            continue;
        active = 1;
        binding_req_t *rq = rtmpi_handle_req_checked(reqs[i]);
        if (!rq_done(rq))
            continue;
        MPI_Status *st = statuses != MPI_STATUSES_IGNORE ? &statuses[n] : MPI_STATUS_IGNORE;
        MPI_Comm c = rtmpi_rq_comm(rq);
        int err = finish(&reqs[i], rq, st);

        if (err != MPI_SUCCESS)
            comm = c;
        note_error(statuses, n, err, &any_err);
        indices[n++] = i;
    }
    if (!active) {
        *outcount = MPI_UNDEFINED;
        *rc_p = MPI_SUCCESS;
        return 1;
    }
    *outcount = n;
    *rc_p = any_err ? rtmpi_error(comm, fn, MPI_ERR_IN_STATUS,
                                  "see the MPI_ERROR field of each status")
                    : MPI_SUCCESS;
    return n > 0;
}

int PMPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    unsigned polls = 0;
    int rc;

    RTMPI_ENTER();
    rtmpi_call_enter(__func__, RTMPI_CALL_NONE, RTMPI_CALL_NONE, MPI_COMM_NULL);
    if ((rc = check_array(__func__, incount, reqs)))
        return rc;
    if (!outcount || (incount > 0 && !indices))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "outcount or indices is NULL");
    while (!some(__func__, incount, reqs, outcount, indices, statuses, &rc))
        wait_idle(&polls);
    return rc;
}
RTMPI_WEAK(Waitsome)

int PMPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    int rc;

    RTMPI_ENTER();
    if ((rc = check_array(__func__, incount, reqs)))
        return rc;
    if (!outcount || (incount > 0 && !indices))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "outcount or indices is NULL");
    rtmpi_progress();
    some(__func__, incount, reqs, outcount, indices, statuses, &rc);
    return rc;
}
RTMPI_WEAK(Testsome)

int PMPI_Cancel(MPI_Request *request)
{
    binding_req_t *rq;

    RTMPI_ENTER();
    if (!request || *request == MPI_REQUEST_NULL)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_REQUEST, "null request");
    if (!(rq = rtmpi_handle_req(*request)))
        return stale_error(__func__);
    rtmpi_request_t *r = rtmpi_rq_ext(rq);
    if (!r) {
        /* A receive not yet matched is canceled at once; a send whose
         * message no receive has matched yet, once its receiver agrees
         * (the runtime asks it; Wait then completes the request either
         * way, and Test_cancelled tells which). An eager send is complete
         * at once and stays sent. */
        if ((rq->kind == BINDING_REQ_RECV || rq->kind == BINDING_REQ_SEND) &&
            !(rq->flags & BINDING_REQ_COMPLETE)) {
            rtm_status_t st = rtm_cancel(binding_req_native(rq));

            if (st != RTM_OK)
                return rtmpi_error_rtm(rtmpi_rq_comm(rq), __func__, st);
        }
        return MPI_SUCCESS;
    }
    if (r->kind == RTMPI_REQ_COLL)
        return rtmpi_error(r->comm, __func__, MPI_ERR_REQUEST,
                           "a nonblocking collective cannot be canceled");
    if (r->kind == RTMPI_REQ_GREQ)
        return rtmpi_greq_cancel(r);
    if (r->persistent && !r->active)
        return rtmpi_error(r->comm, __func__, MPI_ERR_REQUEST,
                           "the persistent request is not active");
    if ((r->kind == RTMPI_REQ_RECV || r->kind == RTMPI_REQ_SEND) && !r->complete &&
        r->native != RTM_REQUEST_NULL) {
        rtm_status_t st = rtm_cancel(r->native);

        if (st != RTM_OK)
            return rtmpi_error_rtm(r->comm, __func__, st);
    }
    return MPI_SUCCESS;
}
RTMPI_WEAK(Cancel)

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (!status || !flag)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "status or flag is NULL");
    *flag = status->rtmpi_cancelled;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Test_cancelled)

int PMPI_Request_free(MPI_Request *request)
{
    binding_req_t *rq;

    RTMPI_ENTER();
    if (!request || *request == MPI_REQUEST_NULL)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_REQUEST, "null request");
    if (!(rq = rtmpi_handle_req(*request)))
        return stale_error(__func__);
    rtmpi_request_t *r = rtmpi_rq_ext(rq);
    if (!r) {
        binding_req_free(rq);   /* recycled by the runtime once complete */
    } else if (r->kind == RTMPI_REQ_GREQ) {
        rtmpi_greq_free(r);     /* its handle lives on for MPI_Grequest_complete */
    } else {
        r->handle = NULL;
        binding_req_release(rq);
        if (r->complete || (r->persistent && !r->active))
            rtmpi_req_release(r);
        else
            rtmpi_orphan_add(r);   /* finished (and unpacked) by the binding's progress */
    }
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Request_free)

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    binding_req_t *rq = NULL;

    RTMPI_ENTER();
    if (!flag)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "flag is NULL");
    if (request != MPI_REQUEST_NULL && !(rq = rtmpi_handle_req(request)))
        return stale_error(__func__);
    if (request == MPI_REQUEST_NULL || rq_inactive(rq)) {
        *flag = 1;
        if (status != MPI_STATUS_IGNORE)
            rtmpi_status_empty(status);
        return MPI_SUCCESS;
    }
    rtmpi_request_t *r = rtmpi_rq_ext(rq);

    if (!rq_done(rq))
        rtmpi_progress();
    *flag = rq_done(rq);
    if (*flag && status != MPI_STATUS_IGNORE) {
        if (r)
            rtmpi_status_copy(status, &r->status);
        else
            rtmpi_status_set(status, &rq->status);
    }
    if (*flag && r && r->kind == RTMPI_REQ_GREQ) {
        /* MPI 3.1 12.2: the call returns the status and error of query_fn
         * (run by this call, or by a Testall that found the request complete
         * but not the others); the status is not kept, so the next call that
         * finds the request (get_status again, or the wait or test that
         * completes it) runs query_fn anew. */
        int err = r->status.MPI_ERROR;

        r->complete = 0;
        if (err)
            return error_of(__func__, rtmpi_rq_comm(rq), err);
    }
    return MPI_SUCCESS;
}
RTMPI_WEAK(Request_get_status)
