/*
 * Private state of the runtime: the job, peers, requests, communicators and
 * matching contexts. One instance per process (rtm_rt); the library is used
 * by one thread at a time.
 */
#ifndef RTM_RUNTIME_RUNTIME_H
#define RTM_RUNTIME_RUNTIME_H

#include "rtmsg.h"
#include "common/list.h"
#include "common/mpool.h"
#include "runtime/rt_config.h"
#include "runtime/proto.h"
#include "transport/transport.h"

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#define RTM_MAX_TRANSPORTS 4

/* One opened transport. */
typedef struct rtm_tl {
    const rtm_tl_ops_t *ops;
    rtm_tl_iface_t     *iface;
    rtm_tl_caps_t       caps;
    /* RTM_TL_CAP_SLOW_POLL: calls to skip before the next poll, and polls
     * left in which it is polled every call since it last found work. */
    int                 poll_skip;
    int                 poll_hot;
} rtm_tl_t;

/* A remote (or this) rank, by world rank. */
typedef struct rtm_peer {
    rtm_tl_t    *tl;              /* NULL until the first message to or from it */
    rtm_tl_ep_t *ep;
    uint16_t     tx_seq;
    uint16_t     rx_seq;
    int          tx_credits;      /* eager messages we may still send it */
    int          credits_owed;    /* its eager messages we released, not yet returned */
    int          rndv_tx_active;  /* our rendezvous sends to it (RTS out) not complete */
    rtm_list_t   pending_sends;   /* matched messages waiting for queue space, FIFO */
    rtm_list_t   pending_ctrl;    /* requests with a CTS/FIN/DATA to send */
    rtm_list_t   pending_link;    /* in rtm_rt.pending_peers while anything waits */
    int          node;            /* host index */
} rtm_peer_t;

typedef enum rtm_req_kind {
    RTM_REQ_SEND = 1,
    RTM_REQ_RECV = 2,
} rtm_req_kind_t;

/* What a request still has to put on the wire (pending lists). */
typedef enum rtm_req_op {
    RTM_OP_NONE = 0,
    RTM_OP_EAGER,       /* send: the EAGER message */
    RTM_OP_RTS,         /* send: the RTS */
    RTM_OP_DATA,        /* send: remaining DATA fragments after a CTS */
    RTM_OP_CTS,         /* recv: the CTS */
    RTM_OP_FIN,         /* recv: the FIN after a get */
} rtm_req_op_t;

enum {
    RTM_REQ_F_COMPLETE  = 1u << 0,
    RTM_REQ_F_RELEASED  = 1u << 1,  /* user freed it: recycle on completion */
    RTM_REQ_F_POSTED    = 1u << 2,  /* recv in a posted queue */
    RTM_REQ_F_SYNC      = 1u << 3,  /* synchronous send */
    RTM_REQ_F_MESSAGE   = 1u << 4,  /* recv holds an mprobe'd message */
    RTM_REQ_F_RNDV_TX   = 1u << 5,  /* send: its RTS is out, counted in rndv_tx_active */
};

#define RTM_REQ_MAGIC 0x52544d52u   /* "RTMR" */

typedef struct rtm_unexp rtm_unexp_t;

typedef struct rtm_request {
    uint32_t        magic;
    uint8_t         kind;
    uint8_t         op;          /* rtm_req_op_t still to transmit */
    uint16_t        flags;
    rtm_list_t      link;        /* posted queue, or a peer's pending list */
    int             peer;        /* world rank of the other side (-1: any) */
    uint32_t        ctx;
    int             rank;        /* send: dest, recv: source (comm ranks; may be ANY) */
    int             tag;
    void           *buf;
    size_t          len;
    rtm_msg_status_t status;
    /* rendezvous */
    rtm_tl_memh_t  *memh;        /* send: exposure of buf */
    uint64_t        remote_req;  /* send: receiver's rreq; recv: sender's sreq */
    size_t          xfer_len;    /* bytes to move (after truncation) */
    size_t          xfer_done;   /* bytes sent (send) or received (recv) */
    rtm_tl_comp_t   comp;        /* recv: get completion */
    rtm_unexp_t    *msg;         /* recv from rtm_imrecv: its RTS */
} rtm_request_impl_t;

/* An unexpected message: arrived before a matching receive was posted. */
struct rtm_unexp {
    rtm_list_t      link;
    uint8_t         am_id;       /* RTM_AM_EAGER or RTM_AM_RTS */
    int             peer;        /* world rank of the sender */
    int             src;         /* comm rank of the sender */
    int             tag;
    size_t          len;         /* message bytes */
    rtm_rts_hdr_t   rts;         /* RTS only */
    void           *data;        /* EAGER payload (len bytes) */
    uint8_t         inline_data[64];
};

/* Posted receives and unexpected messages of one matching context. */
typedef struct rtm_match_ctx {
    rtm_list_t posted;
    rtm_list_t unexpected;
} rtm_match_ctx_t;

typedef struct rtm_comm_obj {
    int       in_use;
    int       rank;
    int       size;
    int      *world_ranks;  /* comm rank -> world rank */
    uint32_t  ctx_p2p;      /* user messages */
    uint32_t  ctx_coll;     /* collectives and comm management */
} rtm_comm_obj_t;

typedef struct rtm_runtime {
    int               state;         /* 0 never, 1 initialized, 2 finalized */
    int               singleton;
    int               world_rank;
    int               world_size;
    int               local_rank;
    int               local_size;
    int              *local_peers;
    int               node_id;
    int               num_nodes;
    char              nspace[256];
    char              hostname[256];
    rtm_peer_t       *peers;         /* world_size entries */
    rtm_tl_t          tls[RTM_MAX_TRANSPORTS];
    int               num_tls;
    rtm_list_t        pending_peers;
    rtm_mpool_t       req_pool;
    rtm_mpool_t       unexp_pool;
    rtm_match_ctx_t **match_ctxs;    /* by context id */
    uint32_t          num_match_ctxs;
    uint32_t          next_ctx;      /* lowest context id this process may use next */
    rtm_comm_obj_t   *comms;         /* by handle */
    int               num_comms;
    int               idle_yield;    /* IDLE_* below: what a long idle wait does */
} rtm_runtime_t;

enum { IDLE_UNRESOLVED = 0, IDLE_SPIN = 1, IDLE_YIELD = 2 };

extern rtm_runtime_t rtm_rt;

/* --- init.c --- */
rtm_status_t rt_check_ready(const char *func);

/* --- job.c: PMIx client --- */
rtm_status_t job_init(void);
void         job_finalize(void);
rtm_status_t job_publish(const char *key, const void *blob, size_t len);
rtm_status_t job_commit_and_fence(void);
rtm_status_t job_fence_polling(void (*poll)(unsigned long n));
/* The blob a peer published under key; *blob_p is malloc'd (caller frees).
 * RTM_ERR_UNREACHABLE when the peer published nothing under that key. */
rtm_status_t job_lookup(int peer, const char *key, void **blob_p, size_t *len_p);
const char  *job_peer_hostname(int peer);
int          job_peer_node(int peer);
void         job_abort(int code, const char *message) __attribute__((noreturn));

/* --- tl.c: the transports this rank opened --- */
rtm_status_t peers_open_transports(void);
rtm_status_t peers_wireup(void);
rtm_status_t peers_quiesce(void);
void         tls_close(void);

/* --- peer.c --- */
rtm_status_t peers_init(void);
void         peers_close(void);
rtm_status_t peer_connect(int peer);
/* Queue work on a peer and remember that it has some. */
void         peer_pending_add(rtm_peer_t *peer);

/* --- progress.c --- */
int          progress_once(void);
/* Wait until *flag is non-zero, driving progress (spin, then yield). */
void         progress_wait_flag(const volatile uint16_t *flags, uint16_t mask);
int          progress_pending(void);
int          progress_has_pending(void);
/* The idle policy (RTM_IDLE_WAIT), resolved on first use: IDLE_SPIN or IDLE_YIELD. */
int          progress_idle_resolve(void);

/* Called by a blocking wait after `idle` consecutive empty polls: yields the
 * core once the wait has spun RTM_POLL_SPIN polls, if the policy says so
 * (an oversubscribed host); otherwise keeps spinning, as a rank that owns
 * its core should. Cheap: one compare until the spin is over. */
static inline void progress_idle(unsigned long idle)
{
    if (idle <= (unsigned long)rt_config.poll_spin)
        return;
    if (__builtin_expect(rtm_rt.idle_yield == IDLE_UNRESOLVED, 0))
        progress_idle_resolve();
    if (rtm_rt.idle_yield == IDLE_YIELD)
        sched_yield();
}

/* --- request.c --- */
rtm_request_impl_t *req_alloc(rtm_req_kind_t kind);
void         req_complete(rtm_request_impl_t *req);
void         req_release(rtm_request_impl_t *req);
rtm_status_t req_validate(rtm_request_t req, const char *func);

/* --- match.c --- */
rtm_match_ctx_t *match_ctx_get(uint32_t ctx_id);     /* creates on first use */
void             match_ctx_put(uint32_t ctx_id);     /* owner gone; free if idle */
rtm_request_impl_t *match_posted_take(rtm_match_ctx_t *mctx, int src, int tag);
rtm_unexp_t        *match_unexp_find(rtm_match_ctx_t *mctx, int src, int tag);

static inline int match_matches(int want_src, int want_tag, int src, int tag)
{
    return (want_src == RTM_ANY_SOURCE || want_src == src) &&
           (want_tag == RTM_ANY_TAG || want_tag == tag);
}

/* match_ctx_get for the hot paths: an existing context costs a bounds check
 * and a load, inline; a new one takes the slow path (NULL: no memory). */
static inline rtm_match_ctx_t *match_ctx_find(uint32_t ctx_id)
{
    if (__builtin_expect(ctx_id < rtm_rt.num_match_ctxs && rtm_rt.match_ctxs[ctx_id] != NULL, 1))
        return rtm_rt.match_ctxs[ctx_id];
    return match_ctx_get(ctx_id);
}

/* --- send.c / recv.c / rndv.c: protocols --- */
rtm_status_t proto_isend(rtm_comm_obj_t *comm, uint32_t ctx, const void *buf, size_t len,
                         int dest, int tag, int sync, rtm_request_impl_t **req_p);
rtm_status_t proto_send_eager_now(rtm_comm_obj_t *comm, uint32_t ctx, const void *buf,
                                  size_t len, int dest, int tag);
rtm_status_t proto_irecv(rtm_comm_obj_t *comm, uint32_t ctx, void *buf, size_t len,
                         int src, int tag, rtm_request_impl_t **req_p);
/* Receive an unexpected message into a matched receive request. */
void         proto_recv_unexp(rtm_request_impl_t *req, rtm_unexp_t *ue);
int          proto_flush_peer(rtm_peer_t *peer);
void         proto_am_handler(void *arg, int src, unsigned am_id, const void *data,
                              size_t len);
/* Eager credits owed to a peer are returned once this many accumulate
 * (half the window, so the sender never runs dry in a steady stream). */
static inline int proto_credit_threshold(void)
{
    long half = rt_config.eager_credits / 2;

    return half > 0 ? (int)half : 1;
}
void         proto_credit_return(int peer);
/* A receive released one of the peer's eager buffers: owe it a credit.
 * Hot path: an increment and a compare until the batch is due. */
static inline void proto_release_credit(int peer)
{
    if (++rtm_rt.peers[peer].credits_owed >= proto_credit_threshold())
        proto_credit_return(peer);
}
void         proto_peer_failed(void *arg, int peer, rtm_status_t status, const char *msg);
void         proto_send_ctrl(rtm_request_impl_t *req, rtm_req_op_t op);
void         proto_rndv_start(rtm_request_impl_t *rreq, int peer, const rtm_rts_hdr_t *rts);

/* A send request is done (FIN, last DATA, or failure): no longer counts as
 * rendezvous traffic to its peer. */
static inline void proto_send_done(rtm_request_impl_t *req)
{
    if (req->flags & RTM_REQ_F_RNDV_TX) {
        req->flags &= (uint16_t)~RTM_REQ_F_RNDV_TX;
        rtm_rt.peers[req->peer].rndv_tx_active--;
    }
    req_complete(req);
}
void         unexp_free(rtm_unexp_t *ue);

/* --- comm.c --- */
rtm_status_t comm_init(void);
void         comm_finalize(void);
/* Look up a handle; on error sets the detail naming func. */
rtm_status_t comm_get(rtm_comm_t comm, const char *func, rtm_comm_obj_t **obj_p);
/* Blocking point-to-point on a communicator's collective context. */
rtm_status_t coll_sendrecv(rtm_comm_obj_t *comm, const void *sbuf, size_t slen, int dest,
                           void *rbuf, size_t rlen, int src, int tag);
rtm_status_t coll_barrier(rtm_comm_obj_t *comm);

static inline int comm_world_rank_of(const rtm_comm_obj_t *comm, int rank)
{
    return comm->world_ranks[rank];
}

#endif
