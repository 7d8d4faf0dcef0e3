/*
 * Generalized requests (MPI 3.1 section 12.2): operations the application
 * carries out itself and reports complete with MPI_Grequest_complete, then
 * waited for and tested like any request.
 *
 * A generalized request is an rtmpi_request_t of kind RTMPI_REQ_GREQ with
 * no native request; rtmpi_req_poll asks rtmpi_greq_poll, so every
 * completion call (Wait, Test, Waitall, Waitany, Waitsome, Testall,
 * Testany, Testsome, Request_get_status) drives it the same way:
 *  - once MPI_Grequest_complete was called, the first completion call that
 *    finds it calls query_fn to fill the status (its return value becomes
 *    the status's MPI_ERROR, the error the call reports); a status that
 *    MPI_Request_get_status got is not kept, so each get_status and then
 *    the wait or test that completes the request run query_fn again
 *    (MPI 3.1 12.2), and get_status returns its error too;
 *  - free_fn runs when the request is freed: by the completion call that
 *    ends it, or, after an MPI_Request_free, by MPI_Grequest_complete;
 *  - MPI_Cancel calls cancel_fn(extra_state, complete) with complete true
 *    once MPI_Grequest_complete was called.
 * The library's own generalized requests (Rput & co., rma.c) may also have
 * a poll function (rtmpi_greq_set_poll): every completion call that finds
 * the request not yet complete calls it first, so the work that completes
 * the request (a flush) runs in that request's own wait or test.
 */
#include "config.h"

#include "mpi_impl.h"

#include <stdlib.h>

struct rtmpi_greq {
    MPI_Grequest_query_function  *query_fn;
    MPI_Grequest_free_function   *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
    int (*poll_fn)(void *);   /* the library's own requests (rtmpi_greq_set_poll) */
    void *poll_state;
    int   completed;      /* MPI_Grequest_complete was called */
    int   user_freed;     /* MPI_Request_free was called before it */
};

int rtmpi_greq_poll(rtmpi_request_t *r)
{
    struct rtmpi_greq *g = r->greq;

    if (r->complete)
        return 1;
    if (!g->completed && g->poll_fn)
        g->poll_fn(g->poll_state);   /* may call MPI_Grequest_complete */
    if (!g->completed)
        return 0;
    rtmpi_status_empty(&r->status);
    int rc = g->query_fn ? g->query_fn(g->extra_state, &r->status) : MPI_SUCCESS;
    r->status.MPI_ERROR = rc;
    r->complete = 1;
    return 1;
}

void rtmpi_greq_release(rtmpi_request_t *r)
{
    struct rtmpi_greq *g = r->greq;

    r->greq = NULL;
    if (g->free_fn)
        g->free_fn(g->extra_state);   /* its error has no call to report it */
    free(g);
}

int rtmpi_greq_cancel(rtmpi_request_t *r)
{
    struct rtmpi_greq *g = r->greq;
    int rc = g->cancel_fn ? g->cancel_fn(g->extra_state, g->completed) : MPI_SUCCESS;

    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : rtmpi_error(MPI_COMM_NULL, "MPI_Cancel", rc,
                                           "the generalized request's cancel_fn failed");
}

void rtmpi_greq_free(rtmpi_request_t *r)
{
    r->greq->user_freed = 1;
    if (r->greq->completed) {
        binding_req_release(r->handle);
        r->handle = NULL;
        rtmpi_req_release(r);
    }
}

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    RTMPI_ENTER();
    if (!request)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "request is NULL");
    struct rtmpi_greq *g = calloc(1, sizeof(*g));
    rtmpi_request_t *r = g ? rtmpi_req_alloc(RTMPI_REQ_GREQ, MPI_COMM_NULL) : NULL;
    if (!r) {
        free(g);
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM,
                           "out of memory for a generalized request");
    }
    g->query_fn = query_fn;
    g->free_fn = free_fn;
    g->cancel_fn = cancel_fn;
    g->extra_state = extra_state;
    r->greq = g;
    if (rtmpi_handle_new(r, request) != MPI_SUCCESS) {
        r->greq = NULL;   /* no callback for a request the caller never had */
        free(g);
        rtmpi_req_release(r);
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM,
                           "out of memory for a generalized request");
    }
    return MPI_SUCCESS;
}
RTMPI_WEAK(Grequest_start)

int PMPI_Grequest_complete(MPI_Request request)
{
    binding_req_t *rq;
    rtmpi_request_t *r;

    RTMPI_ENTER();
    if (request == MPI_REQUEST_NULL || !(rq = rtmpi_handle_req(request)) ||
        !(r = rtmpi_rq_ext(rq)) || r->kind != RTMPI_REQ_GREQ)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_REQUEST,
                           "not a generalized request (null, stale, or of another kind)");
    if (r->greq->completed)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_REQUEST,
                           "MPI_Grequest_complete was already called on this request");
    r->greq->completed = 1;
    r->greq->poll_fn = NULL;
    if (r->greq->user_freed) {
        binding_req_release(rq);
        r->handle = NULL;
        rtmpi_req_release(r);
    }
    return MPI_SUCCESS;
}
RTMPI_WEAK(Grequest_complete)

void rtmpi_greq_set_poll(MPI_Request request, int (*poll_fn)(void *), void *poll_state)
{
    binding_req_t *rq = rtmpi_handle_req(request);
    rtmpi_request_t *r = rq ? rtmpi_rq_ext(rq) : NULL;

    if (r && r->kind == RTMPI_REQ_GREQ && !r->greq->completed) {
        r->greq->poll_fn = poll_fn;
        r->greq->poll_state = poll_state;
    }
}
