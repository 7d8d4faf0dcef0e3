/*
 * Requests: one object per nonblocking operation, from a pool that grows in
 * chunks and recycles, so the steady state never calls malloc.
 */
#include "config.h"

#include "runtime/runtime.h"
#include "common/error.h"

#include <string.h>

/* Hot path: no allocation once the pool has grown, no lock, no log. */
rtm_request_impl_t *req_alloc(rtm_req_kind_t kind)
{
    rtm_request_impl_t *req = rtm_mpool_get(&rtm_rt.req_pool);

    if (req == NULL)
        return NULL;
    req->magic = RTM_REQ_MAGIC;
    req->kind = (uint8_t)kind;
    req->op = RTM_OP_NONE;
    req->flags = 0;
    rtm_list_init(&req->link);
    req->memh = NULL;
    req->remote_req = 0;
    req->xfer_len = 0;
    req->xfer_done = 0;
    req->msg = NULL;
    req->status.source = RTM_ANY_SOURCE;
    req->status.tag = RTM_ANY_TAG;
    req->status.count = 0;
    req->status.error = RTM_OK;
    req->status.cancelled = 0;
    return req;
}

void req_release(rtm_request_impl_t *req)
{
    req->magic = 0;
    rtm_mpool_put(&rtm_rt.req_pool, req);
}

void req_complete(rtm_request_impl_t *req)
{
    req->flags |= RTM_REQ_F_COMPLETE;
    if (req->flags & RTM_REQ_F_RELEASED)
        req_release(req);
}

rtm_status_t req_validate(rtm_request_t req, const char *func)
{
    if (req == NULL || req == RTM_MESSAGE_NO_PROC || req->magic != RTM_REQ_MAGIC)
        return rtm_error_set(RTM_ERR_REQUEST, "%s: %p is not an active request", func,
                             (void *)req);
    if (req->flags & RTM_REQ_F_RELEASED)
        return rtm_error_set(RTM_ERR_REQUEST, "%s: request %p was already freed", func,
                             (void *)req);
    return RTM_OK;
}
