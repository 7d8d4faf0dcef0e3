/*
 * Requests: one object per nonblocking operation (the public rtm_request_t
 * points at one), from a table that grows in chunks and recycles, so the
 * steady state never calls malloc.
 *
 * A request a peer must name back (the sender's in an RTS, the receiver's in
 * a CTS) travels as its id: index in the table and generation. req_from_id
 * checks an id from the wire against the table before anything is read
 * through it, so a corrupt or stale id is found, never dereferenced.
 */
#ifndef RTM_RUNTIME_REQUEST_H
#define RTM_RUNTIME_REQUEST_H

#include "rtmsg.h"
#include "common/list.h"
#include "runtime/binding.h"
#include "transport/transport.h"

#include <stddef.h>
#include <stdint.h>

typedef enum rtm_req_kind {
    RTM_REQ_SEND = BINDING_REQ_SEND,
    RTM_REQ_RECV = BINDING_REQ_RECV,
    RTM_REQ_BINDING = BINDING_REQ_BINDING,  /* the MPI binding's own work (binding_req_new) */
} rtm_req_kind_t;

/* What a request still has to put on the wire (a peer's pending lists). */
typedef enum rtm_req_op {
    RTM_OP_NONE = 0,
    RTM_OP_EAGER,       /* send: the EAGER message */
    RTM_OP_RTS,         /* send: the RTS */
    RTM_OP_DATA,        /* send: remaining DATA fragments after a CTS */
    RTM_OP_CTS,         /* recv: the CTS */
    RTM_OP_FIN,         /* recv: the FIN after a get */
    RTM_OP_CANCEL,      /* send: the CANCEL of its RTS (rtm_cancel) */
    RTM_OP_CANCEL_ACK,  /* the runtime's own: the answer to a peer's CANCEL */
} rtm_req_op_t;

enum {
    RTM_REQ_F_COMPLETE  = 1u << 0,
    RTM_REQ_F_RELEASED  = 1u << 1,  /* user freed it: recycle on completion */
    RTM_REQ_F_POSTED    = 1u << 2,  /* recv in a posted queue */
    RTM_REQ_F_SYNC      = 1u << 3,  /* synchronous send */
    RTM_REQ_F_MESSAGE   = 1u << 4,  /* recv holds an mprobe'd message */
    RTM_REQ_F_RNDV_TX   = 1u << 5,  /* send: its RTS is out, counted in rndv_tx_active */
    RTM_REQ_F_DETACHED  = 1u << 6,  /* send: its caller's request is complete; buf is a
                                       copy this one owns (req_copy_in), counted in the
                                       peer's detached_tx (runtime/proto.c) */
    RTM_REQ_F_WATCHED   = 1u << 7,  /* req_complete calls req_done_notify (binding_req_watch) */
    RTM_REQ_F_CANCEL    = 1u << 8,  /* send: rtm_cancel asked the receiver to withdraw its RTS */
};

/* The binding's completion notice (binding_done_register), called by
 * req_complete for a request with RTM_REQ_F_WATCHED. */
extern binding_done_fn *req_done_notify;

#define RTM_REQ_MAGIC 0x52544d52u   /* "RTMR" */

struct rtm_unexp;

typedef struct rtm_request {
    /* The head the MPI binding reads (runtime/binding.h): gen (changes at
     * every release: stale ids and handles do not match), flags, kind, op
     * (rtm_req_op_t still to transmit), status, and the binding's words. */
    struct { BINDING_REQ_HEAD };
    uint32_t        magic;       /* RTM_REQ_MAGIC while allocated */
    rtm_list_t      link;        /* posted queue, or a peer's pending list */
    int             peer;        /* world rank of the other side (-1: any) */
    uint32_t        ctx;
    int             rank;        /* send: dest, recv: source (comm ranks; may be ANY) */
    int             tag;
    void           *buf;
    size_t          len;
    uint32_t        index;       /* place in the request table (fixed) */
    struct rtm_request *next_free; /* on the table's free list */
    /* rendezvous */
    rtm_tl_memh_t  *memh;        /* send: exposure of buf */
    uint64_t        remote_req;  /* send: receiver's rreq id; recv: sender's sreq id */
    size_t          xfer_len;    /* bytes to move (after truncation) */
    size_t          xfer_done;   /* bytes sent (send) or received (recv) */
    rtm_tl_comp_t   comp;        /* recv: get completion */
    struct rtm_unexp *msg;       /* recv from rtm_imrecv: its unexpected message */
} rtm_request_impl_t;

void         req_pool_init(void);
void         req_pool_cleanup(void);
rtm_request_impl_t *req_alloc(rtm_req_kind_t kind);
void         req_complete(rtm_request_impl_t *req);

/* The free requests, through next_free; request.c owns the table and grows
 * it (req_table_grow: a chunk more, or NULL out of memory). Taking and
 * releasing are inline: they sit on the eager send's and Waitall's path. */
extern rtm_request_impl_t *req_free_list;
rtm_request_impl_t *req_table_grow(void);
void req_copy_free(rtm_request_impl_t *req);

/* Hot path: no allocation, lock or log. req, the head of the free list,
 * taken off it with the fields every kind starts from. */
static inline rtm_request_impl_t *req_take_head(rtm_request_impl_t *req, rtm_req_kind_t kind,
                                                uint16_t flags)
{
    req_free_list = req->next_free;
    req->magic = RTM_REQ_MAGIC;
    req->kind = (uint8_t)kind;
    req->op = RTM_OP_NONE;
    req->flags = flags;
    rtm_list_init(&req->link);
    req->memh = NULL;
    req->msg = NULL;
    req->status.error = RTM_OK;
    req->status.cancelled = 0;
    req->binding[0] = 0;
    req->binding[1] = 0;
    return req;
}

/* Hot path: no allocation once the table has grown, no lock, no log. A
 * request off the free list, the table grown first if it is empty; NULL
 * out of memory. */
static inline rtm_request_impl_t *req_take(rtm_req_kind_t kind, uint16_t flags)
{
    rtm_request_impl_t *req = req_free_list;

    if (__builtin_expect(req == NULL, 0)) {
        req = req_table_grow();
        if (req == NULL)
            return NULL;
    }
    return req_take_head(req, kind, flags);
}

/* A request complete when made (an eager send): only what a completed
 * request is read for is set (kind, flags, status, no memory exposure or
 * message); the caller sets status.source, .tag and .count. */
static inline rtm_request_impl_t *req_alloc_done(rtm_req_kind_t kind)
{
    return req_take(kind, RTM_REQ_F_COMPLETE);
}

/* Hot path: no lock, no log. A new generation: ids of the request's past
 * life no longer match (they could again only after 2^32 reuses). */
static inline void req_release(rtm_request_impl_t *req)
{
    if (__builtin_expect(req->flags & RTM_REQ_F_DETACHED, 0))
        req_copy_free(req);
    req->magic = 0;
    req->gen++;
    req->next_free = req_free_list;
    req_free_list = req;
}
/* Slow path (a detached send, runtime/proto.c): req->buf becomes a copy of
 * the len bytes at src, which req owns until it is released (from a pool
 * per size class: no malloc in the steady state). RTM_ERR_NO_MEMORY:
 * nothing changed. */
rtm_status_t req_copy_in(rtm_request_impl_t *req, const void *src, size_t len);
/* A handle from the user: set the detail naming func unless it is active. */
rtm_status_t req_validate(rtm_request_t req, const char *func);
/* The request an id names, or NULL when no allocated request has that id.
 * Safe on any 64-bit value: the table is checked before a request is read. */
rtm_request_impl_t *req_from_id(uint64_t id);
/* Slow path (job-state report): the request at table index i, allocated or
 * not (check magic), or NULL past the table. */
rtm_request_impl_t *req_at(uint32_t i);

/* The same object seen as the binding's head (runtime/binding.h). */
static inline binding_req_t *req_head(rtm_request_impl_t *req)
{
    return (binding_req_t *)(void *)req;
}

static inline rtm_request_impl_t *req_of_head(binding_req_t *head)
{
    return (rtm_request_impl_t *)(void *)head;
}

/* The id a peer echoes back to name req. */
static inline uint64_t req_id(const rtm_request_impl_t *req)
{
    return (uint64_t)req->gen << 32 | req->index;
}

#endif
