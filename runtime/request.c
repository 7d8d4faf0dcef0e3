/*
 * Requests: the table of request objects (chunks of REQ_CHUNK, never moved
 * or freed before finalize, so a request's index names it for its life) and
 * the free list that recycles them. Owns the id scheme of request.h: an id from
 * the wire is looked up by index and compared by generation, never cast to
 * a pointer.
 */
#include "config.h"

#include "runtime/request.h"
#include "common/error.h"
#include "common/mpool.h"

#include <stdlib.h>
#include <string.h>

#define REQ_CHUNK 256u

/* The binding reads the head through its own struct (runtime/binding.h). */
_Static_assert(offsetof(rtm_request_impl_t, gen) == offsetof(binding_req_t, gen) &&
               offsetof(rtm_request_impl_t, flags) == offsetof(binding_req_t, flags) &&
               offsetof(rtm_request_impl_t, kind) == offsetof(binding_req_t, kind) &&
               offsetof(rtm_request_impl_t, status) == offsetof(binding_req_t, status) &&
               offsetof(rtm_request_impl_t, binding) == offsetof(binding_req_t, binding),
               "a request begins with binding.h's head");
_Static_assert(RTM_REQ_F_COMPLETE == BINDING_REQ_COMPLETE, "one completion bit");

static struct {
    rtm_request_impl_t **chunks;     /* chunk i holds indexes i*REQ_CHUNK.. */
    uint32_t             num_chunks;
    uint32_t             cap_chunks;
} req_table;

/* Free requests through next_free (request.h's req_take/req_release). */
rtm_request_impl_t *req_free_list;

/* The copies detached sends own (req_copy_in), by size class: class c
 * holds up to REQ_COPY_MIN << c bytes, 64 B to 1 MiB (the largest eager
 * limit a transport's row allows); a larger copy comes from malloc. A copy
 * goes back to its class when its request is released; the pools keep
 * their high-water mark until req_pool_cleanup. */
#define REQ_COPY_MIN     64u
#define REQ_COPY_CLASSES 15
#define REQ_COPY_CHUNK   (64u * 1024u)   /* bytes per pool chunk, at least one copy */

static rtm_mpool_t req_copies[REQ_COPY_CLASSES];

static int req_copy_class(size_t len)
{
    int c = 0;

    while (c < REQ_COPY_CLASSES && ((size_t)REQ_COPY_MIN << c) < len)
        c++;
    return c;   /* REQ_COPY_CLASSES: malloc */
}

void req_pool_init(void)
{
    memset(&req_table, 0, sizeof(req_table));
    req_free_list = NULL;
    for (int c = 0; c < REQ_COPY_CLASSES; c++) {
        size_t size = (size_t)REQ_COPY_MIN << c;

        rtm_mpool_init(&req_copies[c], "detached send copies", size,
                       size < REQ_COPY_CHUNK ? REQ_COPY_CHUNK / size : 1, 0);
    }
}

/* Copies still held (sends never matched before finalize) go with their
 * pools; one from malloc is freed with its request. */
void req_pool_cleanup(void)
{
    for (uint32_t i = 0; i < req_table.num_chunks; i++) {
        for (uint32_t k = 0; k < REQ_CHUNK; k++) {
            rtm_request_impl_t *req = &req_table.chunks[i][k];

            if (req->magic == RTM_REQ_MAGIC && (req->flags & RTM_REQ_F_DETACHED) &&
                req->len > 0 && req_copy_class(req->len) == REQ_COPY_CLASSES)
                free(req->buf);
        }
        free(req_table.chunks[i]);
    }
    free(req_table.chunks);
    memset(&req_table, 0, sizeof(req_table));
    req_free_list = NULL;
    for (int c = 0; c < REQ_COPY_CLASSES; c++)
        rtm_mpool_cleanup(&req_copies[c]);
}

rtm_status_t req_copy_in(rtm_request_impl_t *req, const void *src, size_t len)
{
    int c = req_copy_class(len);
    void *copy;

    if (len == 0) {
        req->buf = NULL;
        return RTM_OK;
    }
    copy = c < REQ_COPY_CLASSES ? rtm_mpool_get(&req_copies[c]) : malloc(len);
    if (copy == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a copy of a %zu-byte send",
                             len);
    memcpy(copy, src, len);
    req->buf = copy;
    return RTM_OK;
}

/* A detached send's copy back to its pool (len is the copy's, unchanged). */
__attribute__((noinline)) void req_copy_free(rtm_request_impl_t *req)
{
    int c = req_copy_class(req->len);

    if (req->len == 0)
        return;
    if (c < REQ_COPY_CLASSES)
        rtm_mpool_put(&req_copies[c], req->buf);
    else
        free(req->buf);
    req->buf = NULL;
}

/* Slow path: one more chunk of requests on the free list; its first. */
__attribute__((noinline)) rtm_request_impl_t *req_table_grow(void)
{
    rtm_request_impl_t *chunk;

    if (req_table.num_chunks == req_table.cap_chunks) {
        uint32_t n = req_table.cap_chunks ? req_table.cap_chunks * 2 : 16;
        rtm_request_impl_t **grown;

        if (n > UINT32_MAX / REQ_CHUNK)
            return NULL;
        grown = realloc(req_table.chunks, n * sizeof(*grown));
        if (grown == NULL)
            return NULL;
        req_table.chunks = grown;
        req_table.cap_chunks = n;
    }
    chunk = calloc(REQ_CHUNK, sizeof(*chunk));
    if (chunk == NULL)
        return NULL;
    /* The binding's handles keep a generation above the address. */
    if ((uintptr_t)(chunk + REQ_CHUNK) >> BINDING_REQ_ADDR_BITS != 0) {
        free(chunk);
        return NULL;
    }
    for (uint32_t i = REQ_CHUNK; i-- > 0;) {
        chunk[i].index = req_table.num_chunks * REQ_CHUNK + i;
        chunk[i].gen = 1;
        chunk[i].next_free = req_free_list;
        req_free_list = &chunk[i];
    }
    req_table.chunks[req_table.num_chunks++] = chunk;
    return req_free_list;
}

rtm_request_impl_t *req_alloc(rtm_req_kind_t kind)
{
    rtm_request_impl_t *req = req_take(kind, 0);

    if (req == NULL)
        return NULL;
    req->remote_req = 0;
    req->xfer_len = 0;
    req->xfer_done = 0;
    req->status.source = RTM_ANY_SOURCE;
    req->status.tag = RTM_ANY_TAG;
    req->status.count = 0;
    return req;
}

/* runtime/binding.h's: req_release for the binding, one call. */
void binding_req_release(binding_req_t *head)
{
    req_release(req_of_head(head));
}

binding_done_fn *req_done_notify;

/* Every request that completes after it was made completes here (the
 * binding's completion notices rely on it). */
void req_complete(rtm_request_impl_t *req)
{
    req->flags |= RTM_REQ_F_COMPLETE;
    if (req->flags & RTM_REQ_F_WATCHED)
        req_done_notify(req_head(req));
    if (req->flags & RTM_REQ_F_RELEASED)
        req_release(req);
}

rtm_request_impl_t *req_from_id(uint64_t id)
{
    uint32_t index = (uint32_t)id, gen = (uint32_t)(id >> 32);
    rtm_request_impl_t *req;

    if (index / REQ_CHUNK >= req_table.num_chunks)
        return NULL;
    req = &req_table.chunks[index / REQ_CHUNK][index % REQ_CHUNK];
    if (req->gen != gen || req->magic != RTM_REQ_MAGIC)
        return NULL;
    return req;
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

rtm_request_impl_t *req_at(uint32_t i)
{
    if (i / REQ_CHUNK >= req_table.num_chunks)
        return NULL;
    return &req_table.chunks[i / REQ_CHUNK][i % REQ_CHUNK];
}
