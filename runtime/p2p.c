/*
 * Public point-to-point API: argument validation, then the protocol
 * dispatcher (proto.c); completion (wait/test families), probe, cancel.
 */
#include "config.h"

#include "runtime/comm.h"
#include "runtime/match.h"
#include "runtime/progress.h"
#include "runtime/proto.h"
#include "runtime/request.h"
#include "runtime/rndv.h"
#include "runtime/rt.h"
#include "common/error.h"

#include <sched.h>
#include <stdint.h>

/* A size_t this large is a negative int converted by the caller. */
#define COUNT_MAX (SIZE_MAX >> 1)

static rtm_status_t check_common(const char *func, const void *buf, size_t count,
                                 rtm_comm_t comm, rtm_comm_obj_t **c_p)
{
    rtm_status_t status = rt_check_ready(func);

    if (status != RTM_OK)
        return status;
    status = comm_get(comm, func, c_p);
    if (status != RTM_OK)
        return status;
    if (count > COUNT_MAX)
        return rtm_error_set(RTM_ERR_COUNT, "%s: count %zu is too large (a negative value?)",
                             func, count);
    if (buf == NULL && count > 0)
        return rtm_error_set(RTM_ERR_BUFFER, "%s: buffer is NULL but count is %zu", func,
                             count);
    return RTM_OK;
}

/* The communicator of a call whose library is ready and whose handle is
 * valid, or NULL: then the full check finds the error and words it. Keeps
 * the common case of every call to a few inline compares. */
static inline rtm_comm_obj_t *comm_fast(rtm_comm_t comm)
{
    if (__builtin_expect(rtm_rt.state == RT_READY && comm >= 0 && comm < rtm_rt.num_comms &&
                         rtm_rt.comms[comm].in_use, 1))
        return &rtm_rt.comms[comm];
    return NULL;
}

static rtm_status_t check_send_full(const char *func, const void *buf, size_t count, int dest,
                                    int tag, rtm_comm_t comm, rtm_comm_obj_t **c_p)
{
    rtm_status_t status = check_common(func, buf, count, comm, c_p);

    if (status != RTM_OK)
        return status;
    if (dest != RTM_PROC_NULL && (dest < 0 || dest >= (*c_p)->size))
        return rtm_error_set(RTM_ERR_RANK, "%s: destination rank %d is not in 0..%d", func,
                             dest, (*c_p)->size - 1);
    if (tag < 0)
        return rtm_error_set(RTM_ERR_TAG, "%s: tag %d is negative (send tags are 0..%d)",
                             func, tag, RTM_TAG_UB);
    return RTM_OK;
}

/* Every argument check of a send; the valid case inline (comm_fast). */
static inline rtm_status_t check_send(const char *func, const void *buf, size_t count,
                                      int dest, int tag, rtm_comm_t comm, rtm_comm_obj_t **c_p)
{
    rtm_comm_obj_t *c = comm_fast(comm);

    if (__builtin_expect(c != NULL && count <= COUNT_MAX && (buf != NULL || count == 0) &&
                         dest >= 0 && dest < c->size && tag >= 0, 1)) {
        *c_p = c;
        return RTM_OK;
    }
    return check_send_full(func, buf, count, dest, tag, comm, c_p);
}

static rtm_status_t check_recv_full(const char *func, const void *buf, size_t count, int src,
                                    int tag, rtm_comm_t comm, rtm_comm_obj_t **c_p)
{
    rtm_status_t status = check_common(func, buf, count, comm, c_p);

    if (status != RTM_OK)
        return status;
    if (src != RTM_PROC_NULL && src != RTM_ANY_SOURCE && (src < 0 || src >= (*c_p)->size))
        return rtm_error_set(RTM_ERR_RANK,
                             "%s: source rank %d is not in 0..%d, RTM_ANY_SOURCE or RTM_PROC_NULL",
                             func, src, (*c_p)->size - 1);
    if (tag < 0 && tag != RTM_ANY_TAG)
        return rtm_error_set(RTM_ERR_TAG, "%s: tag %d is not in 0..%d or RTM_ANY_TAG", func,
                             tag, RTM_TAG_UB);
    return RTM_OK;
}

/* Every argument check of a receive; the valid case inline (comm_fast). */
static inline rtm_status_t check_recv(const char *func, const void *buf, size_t count,
                                      int src, int tag, rtm_comm_t comm, rtm_comm_obj_t **c_p)
{
    rtm_comm_obj_t *c = comm_fast(comm);

    if (__builtin_expect(c != NULL && count <= COUNT_MAX && (buf != NULL || count == 0) &&
                         (src >= 0 ? src < c->size : src == RTM_ANY_SOURCE) &&
                         (tag >= 0 || tag == RTM_ANY_TAG), 1)) {
        *c_p = c;
        return RTM_OK;
    }
    return check_recv_full(func, buf, count, src, tag, comm, c_p);
}

/* Operations with RTM_PROC_NULL complete at once with an empty status. */
static rtm_status_t req_proc_null(rtm_req_kind_t kind, rtm_request_t *req_p)
{
    rtm_request_impl_t *req = req_alloc(kind);

    if (req == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a request");
    req->peer = -1;
    req->status.source = RTM_PROC_NULL;
    req->status.tag = RTM_ANY_TAG;
    req->flags |= RTM_REQ_F_COMPLETE;
    *req_p = req;
    return RTM_OK;
}

static void status_set_empty(rtm_msg_status_t *status)
{
    if (status != RTM_STATUS_IGNORE) {
        status->source = RTM_ANY_SOURCE;
        status->tag = RTM_ANY_TAG;
        status->count = 0;
        status->error = RTM_OK;
        status->cancelled = 0;
    }
}

rtm_status_t rtm_isend_mode(const void *buf, size_t count, int dest, int tag,
                            rtm_comm_t comm, rtm_send_mode_t mode, rtm_request_t *req_p)
{
    rtm_comm_obj_t *c;
    rtm_request_impl_t *req;
    rtm_status_t status = check_send("rtm_isend", buf, count, dest, tag, comm, &c);

    if (status != RTM_OK)
        return status;
    if (req_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_isend: req_p is NULL");
    if (mode != RTM_SEND_STANDARD && mode != RTM_SEND_SYNC)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_isend: unknown send mode %d", (int)mode);
    if (dest == RTM_PROC_NULL)
        return req_proc_null(RTM_REQ_SEND, req_p);
    status = proto_isend(c, c->ctx_p2p, buf, count, dest, tag, mode == RTM_SEND_SYNC, &req);
    if (status != RTM_OK)
        return status;
    *req_p = req;
    return RTM_OK;
}

rtm_status_t rtm_isend(const void *buf, size_t count, int dest, int tag, rtm_comm_t comm,
                       rtm_request_t *req_p)
{
    return rtm_isend_mode(buf, count, dest, tag, comm, RTM_SEND_STANDARD, req_p);
}

rtm_status_t rtm_irecv(void *buf, size_t count, int source, int tag, rtm_comm_t comm,
                       rtm_request_t *req_p)
{
    rtm_comm_obj_t *c;
    rtm_request_impl_t *req;
    rtm_status_t status = check_recv("rtm_irecv", buf, count, source, tag, comm, &c);

    if (status != RTM_OK)
        return status;
    if (req_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_irecv: req_p is NULL");
    if (source == RTM_PROC_NULL)
        return req_proc_null(RTM_REQ_RECV, req_p);
    status = proto_irecv(c, c->ctx_p2p, buf, count, source, tag, &req);
    if (status != RTM_OK)
        return status;
    *req_p = req;
    return RTM_OK;
}

static rtm_status_t send_blocking(const char *func, const void *buf, size_t count, int dest,
                                  int tag, rtm_comm_t comm, rtm_send_mode_t mode)
{
    rtm_request_t req;
    rtm_comm_obj_t *c;
    rtm_status_t status = check_send(func, buf, count, dest, tag, comm, &c);

    if (status != RTM_OK)
        return status;
    if (mode == RTM_SEND_STANDARD && dest != RTM_PROC_NULL) {
        status = proto_send_now(c, c->ctx_p2p, buf, count, dest, tag);
        if (status != RTM_ERR_AGAIN) {
            if (status != RTM_OK)
                return rtm_error_set(status, "%s to rank %d failed", func, dest);
            return RTM_OK;
        }
    }
    status = rtm_isend_mode(buf, count, dest, tag, comm, mode, &req);
    if (status != RTM_OK)
        return status;
    return rtm_wait(&req, RTM_STATUS_IGNORE);
}

rtm_status_t rtm_send(const void *buf, size_t count, int dest, int tag, rtm_comm_t comm)
{
    return send_blocking("rtm_send", buf, count, dest, tag, comm, RTM_SEND_STANDARD);
}

rtm_status_t rtm_ssend(const void *buf, size_t count, int dest, int tag, rtm_comm_t comm)
{
    return send_blocking("rtm_ssend", buf, count, dest, tag, comm, RTM_SEND_SYNC);
}

rtm_status_t rtm_recv(void *buf, size_t count, int source, int tag, rtm_comm_t comm,
                      rtm_msg_status_t *status)
{
    rtm_request_t req;
    rtm_status_t rc = rtm_irecv(buf, count, source, tag, comm, &req);

    if (rc != RTM_OK)
        return rc;
    return rtm_wait(&req, status);
}

rtm_status_t rtm_sendrecv(const void *sendbuf, size_t sendcount, int dest, int sendtag,
                          void *recvbuf, size_t recvcount, int source, int recvtag,
                          rtm_comm_t comm, rtm_msg_status_t *status)
{
    rtm_request_t reqs[2];
    rtm_msg_status_t statuses[2];
    rtm_comm_obj_t *c;
    rtm_status_t rc;

    rc = check_send("rtm_sendrecv", sendbuf, sendcount, dest, sendtag, comm, &c);
    if (rc == RTM_OK)
        rc = check_recv("rtm_sendrecv", recvbuf, recvcount, source, recvtag, comm, &c);
    if (rc != RTM_OK)
        return rc;
    rc = rtm_irecv(recvbuf, recvcount, source, recvtag, comm, &reqs[0]);
    if (rc != RTM_OK)
        return rc;
    rc = rtm_isend(sendbuf, sendcount, dest, sendtag, comm, &reqs[1]);
    if (rc != RTM_OK) {
        rtm_cancel(reqs[0]);
        rtm_wait(&reqs[0], RTM_STATUS_IGNORE);
        return rc;
    }
    rc = rtm_waitall(2, reqs, statuses);
    if (status != RTM_STATUS_IGNORE)
        *status = statuses[0];
    if (rc == RTM_ERR_IN_STATUS)
        rc = statuses[0].error != RTM_OK ? statuses[0].error : statuses[1].error;
    return rc;
}

/* ---- completion ---- */

static inline int req_done(const rtm_request_impl_t *req)
{
    return (req->flags & RTM_REQ_F_COMPLETE) != 0;
}

/* Hand a completed request's status to the user and recycle it. */
static rtm_status_t req_finish(rtm_request_t *req_p, rtm_msg_status_t *status)
{
    rtm_request_impl_t *req = *req_p;
    rtm_status_t error = req->status.error;

    if (status != RTM_STATUS_IGNORE)
        *status = req->status;
    req_release(req);
    *req_p = RTM_REQUEST_NULL;
    return error;
}

static rtm_status_t check_req_array(const char *func, int count, rtm_request_t reqs[])
{
    rtm_status_t status = rt_check_ready(func);

    if (status != RTM_OK)
        return status;
    if (count < 0)
        return rtm_error_set(RTM_ERR_COUNT, "%s: count %d is negative", func, count);
    if (count > 0 && reqs == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "%s: request array is NULL", func);
    for (int i = 0; i < count; i++) {
        if (reqs[i] != RTM_REQUEST_NULL) {
            status = req_validate(reqs[i], func);
            if (status != RTM_OK)
                return status;
        }
    }
    return RTM_OK;
}

rtm_status_t rtm_wait(rtm_request_t *req, rtm_msg_status_t *status)
{
    rtm_status_t rc = rt_check_ready("rtm_wait");

    if (rc != RTM_OK)
        return rc;
    if (req == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_wait: request pointer is NULL");
    if (*req == RTM_REQUEST_NULL) {
        status_set_empty(status);
        return RTM_OK;
    }
    rc = req_validate(*req, "rtm_wait");
    if (rc != RTM_OK)
        return rc;
    progress_wait_flag(&(*req)->flags, RTM_REQ_F_COMPLETE);
    return req_finish(req, status);
}

rtm_status_t rtm_test(rtm_request_t *req, int *flag_p, rtm_msg_status_t *status)
{
    rtm_status_t rc = rt_check_ready("rtm_test");

    if (rc != RTM_OK)
        return rc;
    if (req == NULL || flag_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_test: request pointer or flag_p is NULL");
    if (*req == RTM_REQUEST_NULL) {
        status_set_empty(status);
        *flag_p = 1;
        return RTM_OK;
    }
    rc = req_validate(*req, "rtm_test");
    if (rc != RTM_OK)
        return rc;
    if (!req_done(*req))
        progress_once();
    if (!req_done(*req)) {
        *flag_p = 0;
        return RTM_OK;
    }
    *flag_p = 1;
    return req_finish(req, status);
}

static rtm_status_t finish_all(int count, rtm_request_t reqs[], rtm_msg_status_t statuses[])
{
    rtm_status_t rc = RTM_OK;

    for (int i = 0; i < count; i++) {
        rtm_msg_status_t *st = statuses != RTM_STATUSES_IGNORE ? &statuses[i]
                                                               : RTM_STATUS_IGNORE;

        if (reqs[i] == RTM_REQUEST_NULL) {
            status_set_empty(st);
            continue;
        }
        if (req_finish(&reqs[i], st) != RTM_OK)
            rc = RTM_ERR_IN_STATUS;
    }
    return rc;
}

rtm_status_t rtm_waitall(int count, rtm_request_t reqs[], rtm_msg_status_t statuses[])
{
    rtm_status_t rc = check_req_array("rtm_waitall", count, reqs);

    if (rc != RTM_OK)
        return rc;
    for (int i = 0; i < count; i++) {
        if (reqs[i] != RTM_REQUEST_NULL)
            progress_wait_flag(&reqs[i]->flags, RTM_REQ_F_COMPLETE);
    }
    return finish_all(count, reqs, statuses);
}

rtm_status_t rtm_testall(int count, rtm_request_t reqs[], int *flag_p,
                         rtm_msg_status_t statuses[])
{
    rtm_status_t rc = check_req_array("rtm_testall", count, reqs);

    if (rc != RTM_OK)
        return rc;
    if (flag_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_testall: flag_p is NULL");
    progress_once();
    for (int i = 0; i < count; i++) {
        if (reqs[i] != RTM_REQUEST_NULL && !req_done(reqs[i])) {
            *flag_p = 0;
            return RTM_OK;
        }
    }
    *flag_p = 1;
    return finish_all(count, reqs, statuses);
}

/* One pass over reqs: the index of a completed one, -2 if none is complete,
 * -1 if every handle is null. */
static int find_done(int count, rtm_request_t reqs[])
{
    int active = 0;

    for (int i = 0; i < count; i++) {
        if (reqs[i] == RTM_REQUEST_NULL)
            continue;
        active = 1;
        if (req_done(reqs[i]))
            return i;
    }
    return active ? -2 : -1;
}

rtm_status_t rtm_testany(int count, rtm_request_t reqs[], int *index_p, int *flag_p,
                         rtm_msg_status_t *status)
{
    rtm_status_t rc = check_req_array("rtm_testany", count, reqs);
    int idx;

    if (rc != RTM_OK)
        return rc;
    if (index_p == NULL || flag_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_testany: index_p or flag_p is NULL");
    idx = find_done(count, reqs);
    if (idx == -2) {
        progress_once();
        idx = find_done(count, reqs);
    }
    if (idx == -2) {
        *flag_p = 0;
        *index_p = -1;
        return RTM_OK;
    }
    *flag_p = 1;
    *index_p = idx;
    if (idx == -1) {
        status_set_empty(status);
        return RTM_OK;
    }
    return req_finish(&reqs[idx], status);
}

rtm_status_t rtm_waitany(int count, rtm_request_t reqs[], int *index_p,
                         rtm_msg_status_t *status)
{
    rtm_status_t rc = check_req_array("rtm_waitany", count, reqs);
    unsigned long idle = 0;
    int idx;

    if (rc != RTM_OK)
        return rc;
    if (index_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_waitany: index_p is NULL");
    while ((idx = find_done(count, reqs)) == -2) {
        if (progress_once() > 0)
            idle = 0;
        else
            progress_idle(++idle);
    }
    *index_p = idx;
    if (idx == -1) {
        status_set_empty(status);
        return RTM_OK;
    }
    return req_finish(&reqs[idx], status);
}

rtm_status_t rtm_request_get_status(rtm_request_t req, int *flag_p, rtm_msg_status_t *status)
{
    rtm_status_t rc = rt_check_ready("rtm_request_get_status");

    if (rc != RTM_OK)
        return rc;
    if (flag_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_request_get_status: flag_p is NULL");
    if (req == RTM_REQUEST_NULL) {
        status_set_empty(status);
        *flag_p = 1;
        return RTM_OK;
    }
    rc = req_validate(req, "rtm_request_get_status");
    if (rc != RTM_OK)
        return rc;
    if (!req_done(req))
        progress_once();
    *flag_p = req_done(req);
    if (*flag_p && status != RTM_STATUS_IGNORE)
        *status = req->status;
    return RTM_OK;
}

rtm_status_t rtm_cancel(rtm_request_t req)
{
    rtm_status_t rc = rt_check_ready("rtm_cancel");

    if (rc != RTM_OK)
        return rc;
    rc = req_validate(req, "rtm_cancel");
    if (rc != RTM_OK)
        return rc;
    if (req->kind == RTM_REQ_RECV && (req->flags & RTM_REQ_F_POSTED)) {
        match_posted_remove(req);
        req->status.cancelled = 1;
        req_complete(req);
    } else if (req->kind == RTM_REQ_SEND) {
        rndv_cancel_send(req);
    }
    return RTM_OK;
}

rtm_status_t rtm_request_free(rtm_request_t *req)
{
    rtm_status_t rc = rt_check_ready("rtm_request_free");

    if (rc != RTM_OK)
        return rc;
    if (req == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_request_free: request pointer is NULL");
    if (*req == RTM_REQUEST_NULL)
        return RTM_OK;
    rc = req_validate(*req, "rtm_request_free");
    if (rc != RTM_OK)
        return rc;
    if (req_done(*req))
        req_release(*req);
    else
        (*req)->flags |= RTM_REQ_F_RELEASED;
    *req = RTM_REQUEST_NULL;
    return RTM_OK;
}

/* ---- probe ---- */

static void status_from_unexp(rtm_msg_status_t *status, const rtm_unexp_t *ue)
{
    if (status != RTM_STATUS_IGNORE) {
        status->source = ue->src;
        status->tag = ue->tag;
        status->count = ue->len;
        status->error = RTM_OK;
        status->cancelled = 0;
    }
}

static void status_proc_null(rtm_msg_status_t *status)
{
    if (status != RTM_STATUS_IGNORE) {
        status->source = RTM_PROC_NULL;
        status->tag = RTM_ANY_TAG;
        status->count = 0;
        status->error = RTM_OK;
        status->cancelled = 0;
    }
}

static rtm_status_t probe_find(const char *func, int source, int tag, rtm_comm_t comm,
                               int blocking, rtm_unexp_t **ue_p, rtm_match_ctx_t **mctx_p)
{
    rtm_comm_obj_t *c;
    rtm_match_ctx_t *mctx;
    rtm_unexp_t *ue;
    unsigned long idle = 0;
    rtm_status_t rc = check_recv(func, NULL, 0, source, tag, comm, &c);

    if (rc != RTM_OK)
        return rc;
    mctx = match_ctx_get(&rtm_rt.contexts, c->ctx_p2p);
    if (mctx == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "%s: no memory", func);
    if (source == RTM_PROC_NULL) {
        *ue_p = NULL;
        return RTM_OK;
    }
    progress_once();
    while ((ue = match_unexp_find(mctx, source, tag)) == NULL && blocking) {
        if (progress_once() > 0)
            idle = 0;
        else
            progress_idle(++idle);
    }
    *ue_p = ue;
    *mctx_p = mctx;
    return RTM_OK;
}

rtm_status_t rtm_iprobe(int source, int tag, rtm_comm_t comm, int *flag_p,
                        rtm_msg_status_t *status)
{
    rtm_unexp_t *ue;
    rtm_match_ctx_t *mctx;
    rtm_status_t rc;

    if (flag_p == NULL && rt_check_ready("rtm_iprobe") == RTM_OK)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_iprobe: flag_p is NULL");
    rc = probe_find("rtm_iprobe", source, tag, comm, 0, &ue, &mctx);
    if (rc != RTM_OK)
        return rc;
    if (source == RTM_PROC_NULL) {
        *flag_p = 1;
        status_proc_null(status);
        return RTM_OK;
    }
    *flag_p = ue != NULL;
    if (ue != NULL)
        status_from_unexp(status, ue);
    return RTM_OK;
}

rtm_status_t rtm_probe(int source, int tag, rtm_comm_t comm, rtm_msg_status_t *status)
{
    rtm_unexp_t *ue;
    rtm_match_ctx_t *mctx;
    rtm_status_t rc = probe_find("rtm_probe", source, tag, comm, 1, &ue, &mctx);

    if (rc != RTM_OK)
        return rc;
    if (source == RTM_PROC_NULL)
        status_proc_null(status);
    else
        status_from_unexp(status, ue);
    return RTM_OK;
}

static rtm_status_t mprobe_impl(const char *func, int source, int tag, rtm_comm_t comm,
                                int blocking, int *flag_p, rtm_message_t *msg_p,
                                rtm_msg_status_t *status)
{
    rtm_unexp_t *ue;
    rtm_match_ctx_t *mctx;
    rtm_request_impl_t *req;
    rtm_status_t rc;

    if (msg_p == NULL && rt_check_ready(func) == RTM_OK)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "%s: msg_p is NULL", func);
    rc = probe_find(func, source, tag, comm, blocking, &ue, &mctx);
    if (rc != RTM_OK)
        return rc;
    if (source == RTM_PROC_NULL) {
        *flag_p = 1;
        *msg_p = RTM_MESSAGE_NO_PROC;
        status_proc_null(status);
        return RTM_OK;
    }
    if (ue == NULL) {
        *flag_p = 0;
        return RTM_OK;
    }
    req = req_alloc(RTM_REQ_RECV);
    if (req == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "%s: no memory for a message handle", func);
    match_unexp_remove(ue);
    req->flags |= RTM_REQ_F_MESSAGE;
    req->msg = ue;
    req->peer = ue->peer;
    status_from_unexp(status, ue);
    *flag_p = 1;
    *msg_p = req;
    return RTM_OK;
}

rtm_status_t rtm_improbe(int source, int tag, rtm_comm_t comm, int *flag_p,
                         rtm_message_t *msg_p, rtm_msg_status_t *status)
{
    if (flag_p == NULL && rt_check_ready("rtm_improbe") == RTM_OK)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_improbe: flag_p is NULL");
    return mprobe_impl("rtm_improbe", source, tag, comm, 0, flag_p, msg_p, status);
}

rtm_status_t rtm_mprobe(int source, int tag, rtm_comm_t comm, rtm_message_t *msg_p,
                        rtm_msg_status_t *status)
{
    int flag;

    return mprobe_impl("rtm_mprobe", source, tag, comm, 1, &flag, msg_p, status);
}

rtm_status_t rtm_imrecv(void *buf, size_t count, rtm_message_t *msg, rtm_request_t *req_p)
{
    rtm_request_impl_t *req;
    rtm_unexp_t *ue;
    rtm_status_t rc = rt_check_ready("rtm_imrecv");

    if (rc != RTM_OK)
        return rc;
    if (msg == NULL || req_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_imrecv: msg or req_p is NULL");
    if (count > COUNT_MAX)
        return rtm_error_set(RTM_ERR_COUNT, "rtm_imrecv: count %zu is too large", count);
    if (buf == NULL && count > 0)
        return rtm_error_set(RTM_ERR_BUFFER, "rtm_imrecv: buffer is NULL but count is %zu",
                             count);
    if (*msg == RTM_MESSAGE_NO_PROC) {
        rc = req_proc_null(RTM_REQ_RECV, req_p);
        if (rc == RTM_OK)
            *msg = RTM_MESSAGE_NULL;
        return rc;
    }
    rc = req_validate(*msg, "rtm_imrecv");
    if (rc != RTM_OK)
        return rc;
    req = *msg;
    if (!(req->flags & RTM_REQ_F_MESSAGE))
        return rtm_error_set(RTM_ERR_REQUEST, "rtm_imrecv: handle is a request, not a "
                             "message from rtm_mprobe/rtm_improbe");
    ue = req->msg;
    req->flags &= (uint16_t)~RTM_REQ_F_MESSAGE;
    req->msg = NULL;
    req->buf = buf;
    req->len = count;
    *msg = RTM_MESSAGE_NULL;
    *req_p = req;
    proto_recv_unexp(req, ue);
    return RTM_OK;
}

rtm_status_t rtm_mrecv(void *buf, size_t count, rtm_message_t *msg, rtm_msg_status_t *status)
{
    rtm_request_t req;
    rtm_status_t rc = rtm_imrecv(buf, count, msg, &req);

    if (rc != RTM_OK)
        return rc;
    return rtm_wait(&req, status);
}
