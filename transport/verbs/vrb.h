/*
 * verbs transport (private): RC queue pairs in a full mesh over
 * rdma-core's libibverbs, eager active messages by Send/Recv into buffers
 * pre-posted on one SRQ, rendezvous by RDMA Read. Written against the
 * verbs API only: nothing here knows which HCA (or emulator) is below.
 *
 * Files: vrb_dev.c   device, port, LID/GID and MTU selection
 *        vrb_iface.c open/close, the address blob, QP state machine, ops
 *        vrb_addr.c  checks of a peer's address blob and connection datagram
 *                    (pure; vrb_addr.h: their layouts)
 *        vrb_am.c    eager send/receive, transport credits, progress,
 *                    work-completion errors
 *        vrb_rndv.c  mem_reg/mem_dereg (rkeys) and get (RDMA Read)
 *        vrb_erdma.c eager RDMA fast path: per-peer rings written by RDMA Write
 */
#ifndef RTM_TRANSPORT_VERBS_VRB_H
#define RTM_TRANSPORT_VERBS_VRB_H

#include "transport/transport.h"
#include "common/list.h"
#include "transport/verbs/vrb_addr.h"

#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- wire formats ------------------------------------------------------ */

/* The address blob and the connection datagram: vrb_addr.h. */

/*
 * Every Send carries this 8-byte header before the runtime's header and
 * payload:
 *   am_id    runtime AM id, or VRB_AM_CREDIT (transport credits only),
 *            VRB_AM_RING_OFFER / VRB_AM_RING_CREDIT (eager RDMA, vrb_erdma.c)
 *   ring_credits  slots of the receiver's eager RDMA ring (the one it writes
 *            into at the sender) the sender consumed since it last said so
 *   credits  receive buffers the sender reposted for the receiver since its
 *            last message (transport credits handed back)
 *   src      sender's world rank
 * A Send to a peer whose eager RDMA ring we write into goes with immediate
 * data: the number of ring writes posted before it (big endian), so the
 * receiver delivers those first (vrb_erdma.c).
 */
typedef struct vrb_am_hdr {
    uint8_t  am_id;
    uint8_t  ring_credits;
    uint16_t credits;
    int32_t  src;
} vrb_am_hdr_t;

#define VRB_AM_CREDIT      0xff
#define VRB_AM_RING_OFFER  0xfe   /* payload: vrb_ring_offer_t; takes a credit */
#define VRB_AM_RING_CREDIT 0xfd   /* ring credits only: the header's, plus a 4-byte count of
                                     cells as payload; takes a credit */

/*
 * Eager RDMA fast path (vrb_erdma.c). The receiver offers one peer a ring of
 * `nslots` x `slot_size` bytes, its own MR (LOCAL_WRITE|REMOTE_WRITE,
 * exactly the ring), in a VRB_AM_RING_OFFER Send over the connected RC QP:
 *
 *   offset size
 *     0     8   addr       ring start in the receiver's address space
 *     8     4   rkey       the ring MR's rkey (this peer only)
 *    12     2   slot_size  the largest write (header, message, footer) the
 *                          ring takes; a multiple of 64
 *    14     2   nslots     ring length in slot_size units
 *   = 16 bytes
 *
 * The ring is VRB_RING_CELL-byte cells; a message takes the cells its write
 * needs (vrb_ring_cells), from where the previous one ended. One that does
 * not fit before the ring's end starts at cell 0 instead, and the cells left
 * at the end count as used (the reader, finding nothing at its position and
 * the next message at cell 0, knows it wrapped). Credits count cells.
 */
typedef struct vrb_ring_offer {
    uint64_t addr;
    uint32_t rkey;
    uint16_t slot_size;
    uint16_t nslots;
} vrb_ring_offer_t;

/*
 * One message in the ring, written by one RDMA Write of
 * sizeof(vrb_ring_hdr_t) + round_up(len, 4) + 4 bytes at a cell boundary:
 *
 *   offset size
 *     0     4   seq           writes to this ring so far, this one included
 *                             (1, 2, ...; 0 is skipped when it wraps)
 *     4     4   sends_before  Sends the writer had posted on the QP before this write
 *     8     2   len           runtime header + payload bytes
 *    10     1   am_id         runtime AM id
 *    11     1   pad           0
 *    12     2   credits       SRQ credits handed back (as in vrb_am_hdr_t)
 *    14     2   ring_credits  cells of the writer's own ring handed back
 *    16   len   runtime header + payload, then padding to a multiple of 4
 *   16+L    4   seq again (footer, L = round_up(len, 4))
 * The reader takes a message when both seq words equal the next sequence
 * number. Once it has delivered a message it zeroes the first word of each
 * of its cells, so a cell start never holds a stale sequence number (0 is
 * never one), and the footer, the last bytes of the write, marks the message
 * complete. That relies on the HCA placing a write's bytes in increasing
 * address order, as HCAs do over PCIe with strict ordering (the ring's MR is
 * registered without IBV_ACCESS_RELAXED_ORDERING), so the footer lands last;
 * eager-RDMA rings of other MPIs rely on the same. softib places the last
 * word of a write after the rest for that reason.
 */
typedef struct vrb_ring_hdr {
    uint32_t seq;
    uint32_t sends_before;
    uint16_t len;
    uint8_t  am_id;
    uint8_t  pad;
    uint16_t credits;
    uint16_t ring_credits;
} vrb_ring_hdr_t;

#define VRB_RING_OVERHEAD (sizeof(vrb_ring_hdr_t) + 4)
#define VRB_RING_CELL     64u

/* Cells one write of `total` runtime header + payload bytes takes. */
static inline uint32_t vrb_ring_cells(size_t total)
{
    return (uint32_t)((sizeof(vrb_ring_hdr_t) + ((total + 3) & ~(size_t)3) + 4 +
                       VRB_RING_CELL - 1) / VRB_RING_CELL);
}

/* The sequence number after s: 0 is skipped (a zeroed cell is never one). */
static inline uint32_t vrb_ring_next_seq(uint32_t s)
{
    return s + 1 != 0 ? s + 1 : 1;
}


/* Packed remote key (in the runtime's RTS): 4 bytes, the MR's rkey. */
#define VRB_RKEY_LEN 4

/* ---- sizes and QP attributes (reasons in docs/verbs.md) ----------------- */

#define VRB_SQ_DEPTH      128   /* send WRs per QP (sends and reads) */
#define VRB_SIGNAL_EVERY  32    /* an unsignaled send is retired by a later signaled one */
#define VRB_BOUNCE_COUNT  256   /* registered send buffers per rank */
#define VRB_CTRL_SLACK    3     /* SRQ slots per peer beyond credits: credit-only messages
                                   (2) and the on-demand "connected" hello (1) */
#define VRB_POLL_BATCH    16
/* CQ polling while every peer that sends to us by Send has a ring of ours
 * (vrb_progress): the CQ then holds only send completions that recycle
 * resources and the odd Send, so it is polled every VRB_CQ_POLL_EVERY-th
 * pass; every pass while one-sided WRs (reads, puts, atomics) are in flight,
 * for VRB_CQ_HOT_PASSES passes after a poll that found a receive, and on
 * the pass after a ring message waited for a Send or a send found no room. */
#define VRB_CQ_POLL_EVERY 16
#define VRB_CQ_HOT_PASSES 1024
#define VRB_READ_CHUNK    (1u << 20)  /* one RDMA Read moves at most this (or the port's max) */
#define VRB_READS_INFLIGHT 8          /* RDMA Reads outstanding per get */
#define VRB_MAX_INLINE    256         /* ask for this much inline data per send WR */

/* on-demand connections */
#define VRB_UD_DEPTH      64    /* UD receive buffers and send slots */
#define VRB_UD_BUF        (40 + 128)  /* GRH area + one handshake datagram */
#define VRB_UD_QKEY       0x52544d31u /* "RTM1": datagrams of other software are dropped */
#define VRB_CONN_RTO_MIN  0.05  /* first retransmission of a request after 50 ms, */
#define VRB_CONN_RTO_MAX  1.0   /* doubling up to one per second */
#define VRB_SRQ_PEERS     64    /* on demand: SRQ holds full credits for this many peers */

#define VRB_QP_TIMEOUT       18  /* 4.096 us * 2^18 = 1.07 s per try */
#define VRB_QP_RETRY_CNT     7   /* 8 tries: a dead link surfaces after ~8.6 s */
#define VRB_QP_RNR_RETRY     7   /* 7 = retry for ever: credits make RNR rare, never fatal */
#define VRB_QP_MIN_RNR_TIMER 12  /* 0.64 ms between RNR retries */
#define VRB_QP_RD_ATOMIC     16  /* RDMA Reads in flight per QP (capped by the device) */

/* ---- objects ------------------------------------------------------------ */

typedef struct vrb_iface vrb_iface_t;
typedef struct vrb_get   vrb_get_t;
typedef struct vrb_ering vrb_ering_t;

/* The byte order a fetched atomic value lands in, learned by a self-test
 * on the device at its first atomic use (vrb_rma.c, atomic_probe). */
enum {
    VRB_ATOMIC_UNTESTED = 0,
    VRB_ATOMIC_HOST,       /* as the word was in memory: host order */
    VRB_ATOMIC_SWAPPED,    /* big-endian on this little-endian host: swap it back */
    VRB_ATOMIC_BROKEN,     /* neither, or the word was not updated in host order: no atomics */
};

/* What a send-queue entry is (error messages, completion handling). */
enum {
    VRB_SLOT_SEND = 0,     /* Send or eager RDMA ring write */
    VRB_SLOT_READ,         /* RDMA Read of a get */
    VRB_SLOT_PUT,          /* RDMA Write of a put (vrb_rma.c) */
    VRB_SLOT_ATOMIC,       /* fetch-and-add or compare-and-swap (vrb_rma.c) */
    VRB_SLOT_BIND,         /* memory window bind (mem_expose) */
    VRB_SLOT_INV,          /* local invalidate of a window (mem_revoke) */
};

/* One send-queue entry's resources, retired at its (or a later) completion. */
typedef struct vrb_sq_slot {
    void      *bounce;     /* send: bounce buffer to return, or NULL */
    vrb_get_t *get;        /* RDMA Read: the transfer it belongs to */
    uint32_t   bytes;      /* RDMA Read: bytes of this chunk */
    uint8_t    kind;       /* VRB_SLOT_* */
    /* put, atomic: completion, result (atomic), local registration (put) */
    rtm_tl_comp_t       *comp;
    uint64_t            *result;
    struct vrb_rc_entry *rc_entry;
} vrb_sq_slot_t;

/* A remote rank: its RC QP, flow control and send-queue bookkeeping. */
/* Connection state of an endpoint (full mesh: IDLE or CONNECTED). */
enum {
    VRB_EP_IDLE = 0,      /* no QP yet (on demand), or peer not on verbs */
    VRB_EP_CONNECTING,    /* we sent a request; our QP waits in INIT */
    VRB_EP_ACCEPTED,      /* we answered a request; our QP is in RTS but the
                             peer may not be in RTR yet: we wait for its first
                             message before sending */
    VRB_EP_CONNECTED,
    VRB_EP_FAILED
};

typedef struct vrb_ep {
    rtm_tl_ep_t    super;         /* iface, peer (world rank) */
    int            connected;     /* QP in RTS and the peer's in RTR: may send */
    int            in_use;        /* handed to the runtime by ep_create */
    struct ibv_qp *qp;
    uint32_t       remote_qpn;
    uint32_t       rx_qpn;        /* QP the peer's messages arrive through (RC: ours;
                                     XRC: the TGT QP its INI QP reaches); 0: none yet */
    uint32_t       r_srqn;        /* XRC: the peer's SRQ, named in every Send and Read */
    int            r_node;        /* XRC: the peer's node id */
    int            r_local_size;  /* XRC: ranks on the peer's host */
    int            xwait;         /* XRC: wants to connect once its host's INI QP is */
    struct ibv_qp *tgt_qp;        /* XRC: the TGT QP we made for the peer's INI QP */
    uint32_t       tgt_ini_qpn;   /* XRC: that INI QP */
    char           host[VRB_HOST_LEN + 1];
    /* the peer's address (from its blob or its handshake datagram) */
    int            conn_state;    /* VRB_EP_* */
    int            have_addr;
    uint16_t       r_lid;
    uint8_t        r_flags;
    uint8_t        r_mtu;
    uint8_t        r_gid[16];
    uint32_t       r_ud_qpn;
    struct ibv_ah *ud_ah;         /* on demand: where our datagrams to it go */
    int            grant;         /* receive buffers of our SRQ granted to the peer */
    int            peer_grant;    /* its grant to us, added to tx_credits once connected */
    rtm_list_t     conn_link;     /* in iface->connecting while CONNECTING */
    double         conn_start;
    double         conn_next;     /* next retransmission of the request */
    double         conn_rto;
    int            conn_tries;
    /* flow control */
    int            tx_credits;    /* Sends the peer can still take */
    int            credits_owed;  /* buffers reposted for the peer, not yet told */
    int            credit_queued; /* in iface->credit_queue */
    /* send queue: WR number sq_head.. are posted, sq_tail.. not yet retired */
    uint64_t       sq_head;
    uint64_t       sq_tail;
    unsigned       sq_unsignaled;
    vrb_sq_slot_t *slots;         /* VRB_SQ_DEPTH, allocated with the QP */
    rtm_list_t     pending_gets;  /* gets waiting for send-queue room */
    /* one-sided (vrb_rma.c) */
    int            qp_access;     /* the QP's remote access flags now */
    int            xwrite;        /* live exposures granting it write (mem_expose) */
    int            xatomic;       /* ... and atomics: the QP keeps those flags no longer */
    int            rma_inflight;  /* puts and atomics not complete yet (flush; a
                                     get's comp is its completion) */
    uint64_t      *atomic_res;    /* VRB_SQ_DEPTH result words, by send-queue slot */
    struct ibv_mr *atomic_mr;     /* LOCAL_WRITE, exactly atomic_res */
    /* eager RDMA fast path (vrb_erdma.c) */
    uint32_t       tx_sends;      /* Sends posted on the QP (ring ordering) */
    uint32_t       rx_sends;      /* Sends received from the peer */
    uint32_t       erdma_count;   /* small messages received, towards the threshold */
    vrb_ering_t   *erx;           /* our ring the peer writes into, or NULL */
    uint64_t       etx_addr;      /* the peer's ring we write into */
    uint32_t       etx_rkey;
    uint32_t       etx_seq;       /* writes posted into it */
    uint32_t       etx_nslots;    /* 0: no ring at the peer */
    uint32_t       etx_ncells;    /* its length in cells */
    uint32_t       etx_pos;       /* cell the next write starts at (if it fits) */
    size_t         etx_payload;   /* largest runtime header + payload per write; 0: no ring */
    int            etx_credits;   /* free cells there */
} vrb_ep_t;

/* An RDMA Read of one rendezvous message, in chunks. */
struct vrb_get {
    rtm_list_t     link;
    vrb_ep_t      *ep;
    struct ibv_mr *mr;            /* local buffer, registered for this transfer */
    struct vrb_rc_entry *rc_entry; /* vrb_rndv.c: the registration cache entry of mr */
    char          *local;
    uint64_t       remote_addr;
    uint32_t       rkey;
    size_t         len;
    size_t         posted;        /* bytes covered by posted reads */
    size_t         done;          /* bytes read */
    int            inflight;
    rtm_tl_comp_t *comp;
};

typedef struct vrb_dev_sel {
    struct ibv_context *ctx;
    char     name[64];
    uint8_t  port;
    uint8_t  link;                /* VRB_LINK_* */
    uint16_t lid;
    int      gid_index;           /* -1: no GRH (IB) */
    union ibv_gid gid;
    enum ibv_mtu mtu;
    uint32_t max_msg_sz;
    struct ibv_device_attr dev_attr;
} vrb_dev_sel_t;

/* XRC: our INI (send) QP to one remote host, shared by every peer there
 * (each names its SRQ per work request). vrb_xrc.c */
enum { VRB_XINI_NONE = 0, VRB_XINI_CONNECTING, VRB_XINI_CONNECTED };

typedef struct vrb_xini {
    struct ibv_qp *qp;
    int            state;         /* VRB_XINI_* */
    int            node;
    int            via;           /* rank on that host asked to create the TGT QP */
    uint32_t       tgt_qpn;       /* the TGT QP it reaches */
    rtm_list_t     link;          /* in iface->xconnecting while CONNECTING */
    double         start, next, rto;
    int            tries;
} vrb_xini_t;

struct vrb_iface {
    rtm_tl_iface_t  super;
    rtm_tl_am_cb_t  am_cb;
    void           *am_arg;
    rtm_status_t  (*addr_lookup)(int peer, const char *name, void **blob_p, size_t *len_p);
    void          (*peer_failed)(void *arg, int peer, rtm_status_t status, const char *msg);
    int             world_rank;
    int             world_size;
    char            host[VRB_HOST_LEN + 1];
    int             closing;
    vrb_dev_sel_t   dev;
    struct ibv_pd  *pd;
    struct ibv_cq  *cq;           /* sends, reads and receives */
    struct ibv_srq *srq;
    int             cq_depth;
    int             srq_depth;
    int             credits;      /* per peer */
    uint32_t        max_inline;
    size_t          buf_size;     /* one receive or bounce buffer */
    size_t          am_max;       /* runtime header + payload per message */
    size_t          eager_limit;
    size_t          read_chunk;
    int             rd_atomic;
    /* receive buffers: one registered chunk, all posted on the SRQ */
    char           *rx_bufs;
    struct ibv_mr  *rx_mr;
    /* send bounce buffers: one registered chunk, free stack */
    char           *tx_bufs;
    struct ibv_mr  *tx_mr;
    void          **tx_free;
    int             tx_nfree;
    int             num_qps;
    int             connected_qps;
    /* on demand (vrb_conn.c) */
    int             ondemand;
    struct ibv_qp  *ud_qp;
    char           *ud_bufs;      /* VRB_UD_DEPTH receive then VRB_UD_DEPTH send buffers */
    struct ibv_mr  *ud_mr;
    int             ud_send_free[VRB_UD_DEPTH];
    int             ud_nsend_free;
    rtm_list_t      connecting;   /* endpoints waiting for a reply */
    int             nconnecting;
    int             rx_budget;    /* SRQ buffers not yet granted to a peer */
    double          conn_timeout; /* seconds until a request is given up */
    vrb_ep_t       *eps;          /* by world rank */
    int            *credit_queue; /* peers owed an explicit credit message */
    int             credit_nqueued;
    struct vrb_rcache *rcache;    /* vrb_rndv.c: rendezvous registrations, made on first use */
    /* XRC (vrb_xrc.c): handshakes as on demand, plus one INI QP per host */
    int             xrc;
    int             node;         /* our node id */
    int             local_rank;
    int             local_size;
    struct ibv_xrcd *xrcd;
    int             xrcd_fd;
    char            xrcd_path[256]; /* the domain's file until wireup unlinks it */
    uint32_t        srqn;
    vrb_xini_t     *xinis;        /* by node id (< world size) */
    rtm_list_t      xconnecting;  /* INI QPs waiting for their TGT QP */
    int             num_ini;
    int             num_tgt;
    int             num_sqs;      /* send queues the CQ must absorb (RC QPs or XRC peers) */
    /* eager RDMA fast path (vrb_erdma.c) */
    uint32_t        erdma_threshold; /* 0: off */
    size_t          erdma_payload; /* runtime header + payload that fits a slot */
    int             erdma_max;    /* rings this rank may offer */
    int             erdma_nrx;    /* rings offered (polled in progress) */
    vrb_ering_t   **erdma_rx;     /* [erdma_max] */
    int             erdma_nwant;  /* peers over the threshold, ring not set up yet */
    int            *erdma_want;   /* [erdma_max] */
    /* one-sided (vrb_rma.c) */
    int             mw_type2;     /* the device binds type 2 memory windows */
    uint64_t        rma_wrs;      /* RDMA Write/Read/atomic WRs posted */
    int             atomic_order; /* VRB_ATOMIC_*: what the self-test found (vrb_rma.c) */
    rtm_list_t      exposures;    /* live mem_expose regions (freed at close) */
    rtm_list_t      get_pool;     /* free transfer states of get (vrb_get_alloc) */
    struct vrb_get_chunk *get_chunks; /* where they live, freed at close */
    uint64_t        gets;         /* gets started */
    uint64_t        get_states;   /* transfer states ever allocated */
    /* CQ polling (vrb_progress): when to poll, and what it cost */
    uint64_t        rma_done;     /* one-sided WRs completed (rma_wrs - rma_done in flight) */
    int             send_peers;   /* peers that sent us a Send and have no ring of ours */
    int             cq_hot;       /* passes left that poll the CQ every time */
    int             cq_due;       /* poll the CQ at the next pass */
    unsigned        cq_countdown; /* passes until the next paced poll */
    uint64_t        progress_calls;
    uint64_t        cq_polls;
    uint64_t        cq_recv_wcs;  /* receive completions polled (Sends from peers) */
    uint64_t        calls_first_recv; /* progress calls up to the first of them */
    int             quiet;        /* finalize (vrb_quiesce): progress still delivers
                                     and reposts, but sends nothing of its own: no
                                     credit messages, ring offers or ring credits */
};

/* vrb_dev.c */
rtm_status_t vrb_dev_select(const char *spec, long gid_override, vrb_dev_sel_t *sel);
void         vrb_dev_release(vrb_dev_sel_t *sel);
void         vrb_gid_str(const union ibv_gid *gid, char *buf, size_t len);
const char  *vrb_mtu_str(enum ibv_mtu mtu);

/* vrb_am.c */
rtm_status_t vrb_am_send(rtm_tl_ep_t *tl_ep, unsigned am_id, const void *hdr, size_t hdr_len,
                         const void *payload, size_t len);
int          vrb_progress(rtm_tl_iface_t *iface);
rtm_status_t vrb_post_recv_all(vrb_iface_t *iface);
/* Log the failed completion with everything known and end the job. */
void         vrb_wc_fatal(vrb_iface_t *iface, const struct ibv_wc *wc, const char *what)
    __attribute__((noreturn));
vrb_ep_t    *vrb_ep_of_qpn(vrb_iface_t *iface, uint32_t qpn);
/* Log msg and report it through peer_failed (ep NULL: no particular peer);
 * the runtime ends the job. */
void         vrb_fatal(vrb_iface_t *iface, const vrb_ep_t *ep, const char *msg)
    __attribute__((noreturn));

/* vrb_iface.c */
rtm_status_t vrb_qp_create(vrb_iface_t *iface, vrb_ep_t *ep);
rtm_status_t vrb_qp_connect(vrb_iface_t *iface, vrb_ep_t *ep, uint32_t psn_local,
                            uint32_t psn_remote);
void         vrb_ah_attr(vrb_iface_t *iface, const vrb_ep_t *ep, struct ibv_ah_attr *ah);

/* vrb_am.c */
rtm_status_t vrb_post_hello(vrb_ep_t *ep);
rtm_status_t vrb_quiesce(rtm_tl_iface_t *iface);

/* vrb_conn.c: on-demand connections over one UD QP */
rtm_status_t vrb_conn_open(vrb_iface_t *iface);
void         vrb_conn_close(vrb_iface_t *iface);
/* Slow path of am_send to a peer not connected yet: start (or keep)
 * connecting; RTM_ERR_AGAIN while it is in progress. */
rtm_status_t vrb_conn_start(vrb_ep_t *ep);
/* A completion on the UD QP (wr_id has VRB_WR_UD_BIT). */
int          vrb_conn_ud_done(vrb_iface_t *iface, const struct ibv_wc *wc);
/* Retransmit requests that got no reply in time; give up after the timeout. */
int          vrb_conn_timers(vrb_iface_t *iface);
/* First message on an ACCEPTED endpoint's QP: the peer is in RTS. */
void         vrb_conn_established(vrb_ep_t *ep);

/* vrb_iface.c: the two halves of vrb_qp_connect, for XRC QPs */
rtm_status_t vrb_qp_rtr(vrb_iface_t *iface, struct ibv_qp *qp, const vrb_ep_t *ep,
                        uint32_t dest_qpn, uint32_t rq_psn, int responder);
rtm_status_t vrb_qp_rts(vrb_iface_t *iface, struct ibv_qp *qp, const vrb_ep_t *ep,
                        uint32_t sq_psn);
rtm_status_t vrb_cq_reserve(vrb_iface_t *iface, int nsqs);
rtm_status_t vrb_ep_sq_reserve(vrb_iface_t *iface, vrb_ep_t *ep);

/* vrb_xrc.c: XRC domain (a file per host), XRC SRQ, INI and TGT QPs */
rtm_status_t vrb_xrc_open(vrb_iface_t *iface, const char *nspace);
/* After the modex fence every rank of the host has opened the domain. */
void         vrb_xrc_unlink(vrb_iface_t *iface);
void         vrb_xrc_close(vrb_iface_t *iface);
/* Our INI QP to ep's host, created (RESET -> INIT) if need be; NULL and
 * *status_p on failure. */
vrb_xini_t  *vrb_xrc_ini_create(vrb_ep_t *ep, rtm_status_t *status_p);
/* INIT -> RTR -> RTS towards the TGT QP that rank `via` created for it. */
rtm_status_t vrb_xrc_ini_connect(vrb_xini_t *ini, vrb_ep_t *via, uint32_t tgt_qpn);
/* Attach ep to its host's connected INI QP (send-queue bookkeeping). */
rtm_status_t vrb_xrc_attach(vrb_ep_t *ep, vrb_xini_t *ini);
/* The peer asks for a TGT QP for its INI QP: the TGT QP's number (made
 * once, the same for a repeated request), or 0 (error set). */
uint32_t     vrb_xrc_tgt_for(vrb_ep_t *ep, uint32_t ini_qpn, uint32_t ini_psn);

/* vrb_rndv.c */
rtm_status_t vrb_mem_reg(rtm_tl_iface_t *iface, void *addr, size_t len, rtm_tl_memh_t **memh_p,
                         void *rkey, size_t *rkey_len_p);
void         vrb_mem_dereg(rtm_tl_iface_t *iface, rtm_tl_memh_t *memh);
/* vrb_state.c: ops.ep_state */
size_t       vrb_ep_state(rtm_tl_ep_t *tl_ep, char *buf, size_t len);
rtm_status_t vrb_get(rtm_tl_ep_t *tl_ep, void *local, rtm_tl_memh_t *local_memh, size_t len,
                     uint64_t remote_addr, const void *rkey, size_t rkey_len,
                     rtm_tl_comp_t *comp);
/* vrb_rma.c: a get's transfer state from the interface's pool (grown by a
 * chunk when empty, the only allocation: none once warmed up), zeroed;
 * NULL (error set) when out of memory. Released at its completion. */
vrb_get_t   *vrb_get_alloc(vrb_iface_t *iface);
void         vrb_get_release(vrb_iface_t *iface, vrb_get_t *g);
/* At close, after the last release: the pool's chunks. */
void         vrb_get_pool_destroy(vrb_iface_t *iface);
/* Post what fits of a transfer's remaining reads. */
void         vrb_get_post(vrb_get_t *g);
void         vrb_get_chunk_done(vrb_get_t *g, uint32_t bytes);
/* The registration cache, made on first use (NULL: error set). */
struct vrb_rcache *vrb_rndv_rcache(vrb_iface_t *iface);
/* At close, before the QPs and the PD go: drop pending gets, release the
 * registration cache. */
void         vrb_rndv_close(vrb_iface_t *iface);

/* vrb_rma.c: one-sided memory semantics */
/* Whether regions are exposed through a type 2 memory window per peer QP
 * (RTM_VERBS_MW, the device binds them, not XRC); else one MR per region. */
int          vrb_rma_uses_mw(const vrb_iface_t *iface);
rtm_status_t vrb_mem_expose(rtm_tl_iface_t *iface, void *addr, size_t len, unsigned rights,
                            rtm_tl_ep_t *const *eps, int neps, rtm_tl_memh_t **memh_p);
rtm_status_t vrb_mem_key(rtm_tl_memh_t *memh, rtm_tl_ep_t *ep, void *key, size_t *key_len_p);
rtm_status_t vrb_mem_revoke(rtm_tl_iface_t *iface, rtm_tl_memh_t *memh);
rtm_status_t vrb_put(rtm_tl_ep_t *ep, const void *local, size_t len, uint64_t remote_addr,
                     const void *rkey, size_t rkey_len, rtm_tl_comp_t *comp);
rtm_status_t vrb_atomic(rtm_tl_ep_t *ep, rtm_tl_atomic_op_t op, uint64_t operand,
                        uint64_t compare, uint64_t *result, uint64_t remote_addr,
                        const void *rkey, size_t rkey_len, rtm_tl_comp_t *comp);
rtm_status_t vrb_flush(rtm_tl_ep_t *ep);
rtm_status_t vrb_ep_loopback(rtm_tl_iface_t *iface, rtm_tl_ep_t **ep_p);
uint64_t     vrb_rma_wr_count(rtm_tl_iface_t *iface);
/* A retired put or atomic WR (send_done). */
void         vrb_rma_slot_done(vrb_ep_t *ep, vrb_sq_slot_t *slot, uint64_t seq);
/* Grant the QP (and, XRC, the peer's TGT QP) these remote access flags too. */
rtm_status_t vrb_ep_qp_allow(vrb_ep_t *ep, int access);
/* At close, before the QPs and the PD go: windows, MRs, result buffers. */
void         vrb_rma_close(vrb_iface_t *iface);

/* vrb_am.c, shared with vrb_erdma.c: post one Send (see post_am) */
rtm_status_t vrb_post_am(vrb_ep_t *ep, uint8_t am_id, const void *hdr, size_t hdr_len,
                         const void *payload, size_t len);
/* Signal, post and account one send-queue WR (bounce: buffer to free at its
 * completion, or NULL). */
rtm_status_t vrb_post_wr(vrb_ep_t *ep, struct ibv_send_wr *wr, void *bounce);

/* A ring this rank receives into (vrb_erdma.c): one peer writes it. */
struct vrb_ering {
    char          *buf;
    struct ibv_mr *mr;            /* LOCAL_WRITE | REMOTE_WRITE, exactly buf */
    vrb_ep_t      *ep;
    uint32_t       nslots;
    uint32_t       slot_size;     /* the largest write */
    uint32_t       ncells;        /* nslots * slot_size / VRB_RING_CELL */
    uint32_t       pos;           /* cell the next message starts at, unless it wrapped */
    uint32_t       seq;           /* writes delivered (the next: vrb_ring_next_seq) */
    uint32_t       owed;          /* cells freed, not yet handed back to the writer */
    int            offered;       /* the offer went out */
    uint32_t       sends;         /* Sends of the peer once it had the ring (statistics) */
};

/* Ring credits to hand back with the next message (at most `max`). */
static inline uint32_t vrb_erdma_owed(const vrb_ering_t *r, uint32_t max)
{
    return r->owed < max ? r->owed : max;
}

static inline void vrb_erdma_owed_sent(vrb_ering_t *r, uint32_t n)
{
    r->owed -= n;
}

/* Whether a message of `total` runtime header + payload bytes goes into the
 * peer's ring now: it fits a write and enough cells are free (with those
 * left at the ring's end when it must wrap). False without a ring. */
static inline int vrb_erdma_fits(const vrb_ep_t *ep, size_t total)
{
    uint32_t c = vrb_ring_cells(total);

    if (total > ep->etx_payload)
        return 0;
    if (ep->etx_pos + c > ep->etx_ncells)
        c += ep->etx_ncells - ep->etx_pos;
    return ep->etx_credits >= (int)c;
}

/* vrb_erdma.c: eager RDMA fast path (rings polled in progress) */
rtm_status_t vrb_erdma_open(vrb_iface_t *iface);
void         vrb_erdma_close(vrb_iface_t *iface);
/* One small message into the peer's ring (caller checked vrb_erdma_fits
 * and send-queue room). Hot path. */
rtm_status_t vrb_erdma_send(vrb_ep_t *ep, uint8_t am_id, const void *hdr, size_t hdr_len,
                            const void *payload, size_t len);
/* Deliver what the rings hold, in order; set up wanted rings, return ring
 * credits. Returns the messages delivered. */
int          vrb_erdma_progress(vrb_iface_t *iface);
/* A Send from ep said `writes` ring writes precede it: deliver them first. */
void         vrb_erdma_drain(vrb_ep_t *ep, uint32_t writes);
/* ep crossed the threshold: set a ring up for it at the next progress */
void         vrb_erdma_want(vrb_ep_t *ep);
/* A VRB_AM_RING_OFFER from ep */
void         vrb_erdma_offer_recv(vrb_ep_t *ep, const void *data, size_t len);

/* vrb_async.c: device async events, from progress (looks every 4096th call);
 * a fatal one ends the job with a message. Returns events handled. */
int          vrb_async_poll(vrb_iface_t *iface);

/* Sizes shared by vrb_open and the scaling table (vrb_sizes.c), so the
 * documented figures are the code's. */
#define VRB_RT_HDR_MAX 128    /* room for the runtime's largest header */

static inline size_t vrb_buf_size(size_t eager_limit)
{
    return (sizeof(vrb_am_hdr_t) + eager_limit + VRB_RT_HDR_MAX + 63) / 64 * 64;
}

/* Peers the SRQ holds full credits for. */
static inline int vrb_srq_peers(int npeers, int ondemand)
{
    return ondemand && npeers > VRB_SRQ_PEERS ? VRB_SRQ_PEERS : npeers;
}

_Static_assert(offsetof(vrb_ep_t, super) == 0, "the base comes first");
_Static_assert(offsetof(struct vrb_iface, super) == 0, "the base comes first");

static inline vrb_iface_t *vrb_iface_of(rtm_tl_iface_t *tl)
{
    return (vrb_iface_t *)(void *)tl;
}

/* What vrb_addr.c's checks need to know of us. */
static inline vrb_addr_self_t vrb_addr_self(const vrb_iface_t *iface)
{
    vrb_addr_self_t self = {iface->world_rank, iface->world_size, iface->ondemand, iface->xrc,
                            iface->dev.link, iface->host};

    return self;
}

/* A peer's parsed address into its endpoint. */
static inline void vrb_ep_set_peer_addr(vrb_ep_t *ep, const vrb_peer_addr_t *a)
{
    memcpy(ep->host, a->host, sizeof(ep->host));
    ep->r_lid = a->lid;
    ep->r_flags = a->flags;
    ep->r_mtu = a->mtu;
    memcpy(ep->r_gid, a->gid, 16);
    ep->r_ud_qpn = a->ud_qpn;
    ep->r_srqn = a->srqn;
    ep->r_node = a->node;
    ep->r_local_size = (int)a->local_size;
    ep->have_addr = 1;
}

static inline vrb_ep_t *vrb_ep_of(rtm_tl_ep_t *tl_ep)
{
    return (vrb_ep_t *)(void *)tl_ep;
}

/* The interface an endpoint belongs to. */
static inline vrb_iface_t *vrb_ep_iface(const vrb_ep_t *ep)
{
    return vrb_iface_of(ep->super.iface);
}

static inline uint64_t vrb_wr_id(const vrb_ep_t *ep, uint64_t seq)
{
    return ((uint64_t)(uint32_t)ep->super.peer << 40) | (seq & ((1ull << 40) - 1));
}

#define VRB_WR_RECV_BIT (1ull << 63)   /* receive buffers: wr_id = bit | buffer index */
#define VRB_WR_UD_BIT   (1ull << 62)   /* UD QP: wr_id = bit | [RECV bit] | buffer index */

#endif
