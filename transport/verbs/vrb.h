/*
 * verbs transport (private): RC queue pairs in a full mesh over
 * rdma-core's libibverbs, eager active messages by Send/Recv into buffers
 * pre-posted on one SRQ, rendezvous by RDMA Read. Written against the
 * verbs API only: nothing here knows which HCA (or emulator) is below.
 *
 * Files: vrb_dev.c   device, port, LID/GID and MTU selection
 *        vrb_iface.c open/close, the address blob, QP state machine, ops
 *        vrb_am.c    eager send/receive, transport credits, progress,
 *                    work-completion errors
 *        vrb_rndv.c  mem_reg/mem_dereg (rkeys) and get (RDMA Read)
 */
#ifndef RTM_TRANSPORT_VERBS_VRB_H
#define RTM_TRANSPORT_VERBS_VRB_H

#include "transport/transport.h"
#include "common/list.h"

#include <infiniband/verbs.h>
#include <stdint.h>

/* ---- wire formats ------------------------------------------------------ */

/*
 * Address blob published through PMIx (key rtm.tl.verbs), host byte order
 * (see runtime/proto.h: the job is one architecture):
 *
 *   offset size
 *     0     4   magic VRB_ADDR_MAGIC (also versions the layout)
 *     4     2   lid            IB: port LID; RoCE: 0
 *     6     1   port           port number used
 *     7     1   link           VRB_LINK_IB or VRB_LINK_ETH
 *     8    16   gid            RoCE: the chosen GID; IB: the port GID (unused
 *                              unless the peer needs a GRH)
 *    24     1   mtu            enum ibv_mtu of the port (active MTU)
 *    25     1   flags          VRB_ADDR_F_GRH: peers must address us with a GRH
 *    26     2   reserved       0
 *    28     4   nqpn           number of entries in qpn[] (= world size)
 *    32    32   host           hostname, NUL-padded (truncated), for messages
 *    64  4*n    qpn[n]         qpn[r]: our RC QP dedicated to world rank r
 *                              (0 for ourselves)
 *
 * RTM_TL_ADDR_MAX (512) therefore bounds full mesh at VRB_FULLMESH_MAX ranks.
 */
#define VRB_ADDR_MAGIC  0x31425256u    /* "VRB1" */
#define VRB_LINK_IB     0
#define VRB_LINK_ETH    1
#define VRB_ADDR_F_GRH  0x01
#define VRB_HOST_LEN    32

typedef struct vrb_addr {
    uint32_t magic;
    uint16_t lid;
    uint8_t  port;
    uint8_t  link;
    uint8_t  gid[16];
    uint8_t  mtu;
    uint8_t  flags;
    uint16_t reserved;
    uint32_t nqpn;
    char     host[VRB_HOST_LEN];
    uint32_t qpn[];
} vrb_addr_t;

#define VRB_FULLMESH_MAX ((RTM_TL_ADDR_MAX - (int)sizeof(vrb_addr_t)) / 4)

/*
 * Every Send carries this 8-byte header before the runtime's header and
 * payload:
 *   am_id    runtime AM id, or VRB_AM_CREDIT (transport credits only)
 *   flags    0
 *   credits  receive buffers the sender reposted for the receiver since its
 *            last message (transport credits handed back)
 *   src      sender's world rank
 */
typedef struct vrb_am_hdr {
    uint8_t  am_id;
    uint8_t  flags;
    uint16_t credits;
    int32_t  src;
} vrb_am_hdr_t;

#define VRB_AM_CREDIT 0xff

/* Packed remote key (in the runtime's RTS): 4 bytes, the MR's rkey. */
#define VRB_RKEY_LEN 4

/* ---- sizes and QP attributes (reasons in docs/verbs.md) ----------------- */

#define VRB_SQ_DEPTH      128   /* send WRs per QP (sends and reads) */
#define VRB_SIGNAL_EVERY  32    /* an unsignaled send is retired by a later signaled one */
#define VRB_BOUNCE_COUNT  256   /* registered send buffers per rank */
#define VRB_CTRL_SLACK    2     /* SRQ slots per peer beyond credits: credit-only messages */
#define VRB_POLL_BATCH    16
#define VRB_READ_CHUNK    (1u << 20)  /* one RDMA Read moves at most this (or the port's max) */
#define VRB_READS_INFLIGHT 8          /* RDMA Reads outstanding per get */
#define VRB_MAX_INLINE    256         /* ask for this much inline data per send WR */

#define VRB_QP_TIMEOUT       18  /* 4.096 us * 2^18 = 1.07 s per try */
#define VRB_QP_RETRY_CNT     7   /* 8 tries: a dead link surfaces after ~8.6 s */
#define VRB_QP_RNR_RETRY     7   /* 7 = retry for ever: credits make RNR rare, never fatal */
#define VRB_QP_MIN_RNR_TIMER 12  /* 0.64 ms between RNR retries */
#define VRB_QP_RD_ATOMIC     16  /* RDMA Reads in flight per QP (capped by the device) */

/* ---- objects ------------------------------------------------------------ */

typedef struct vrb_iface vrb_iface_t;
typedef struct vrb_get   vrb_get_t;

/* One send-queue entry's resources, retired at its (or a later) completion. */
typedef struct vrb_sq_slot {
    void      *bounce;     /* send: bounce buffer to return, or NULL */
    vrb_get_t *get;        /* RDMA Read: the transfer it belongs to */
    uint32_t   bytes;      /* RDMA Read: bytes of this chunk */
} vrb_sq_slot_t;

/* A remote rank: its RC QP, flow control and send-queue bookkeeping. */
typedef struct rtm_tl_ep {
    vrb_iface_t   *iface;
    int            peer;
    int            connected;     /* QP in RTS (wireup found the peer's blob) */
    int            in_use;        /* handed to the runtime by ep_create */
    struct ibv_qp *qp;
    uint32_t       remote_qpn;
    char           host[VRB_HOST_LEN + 1];
    /* flow control */
    int            tx_credits;    /* Sends the peer can still take */
    int            credits_owed;  /* buffers reposted for the peer, not yet told */
    int            credit_queued; /* in iface->credit_queue */
    /* send queue: WR number sq_head.. are posted, sq_tail.. not yet retired */
    uint64_t       sq_head;
    uint64_t       sq_tail;
    unsigned       sq_unsignaled;
    vrb_sq_slot_t  slots[VRB_SQ_DEPTH];
    rtm_list_t     pending_gets;  /* gets waiting for send-queue room */
} vrb_ep_t;

/* An RDMA Read of one rendezvous message, in chunks. */
struct vrb_get {
    rtm_list_t     link;
    vrb_ep_t      *ep;
    struct ibv_mr *mr;            /* local buffer, registered for this transfer */
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

struct vrb_iface {
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
    vrb_ep_t       *eps;          /* by world rank */
    int            *credit_queue; /* peers owed an explicit credit message */
    int             credit_nqueued;
};

/* vrb_dev.c */
rtm_status_t vrb_dev_select(const char *spec, long gid_override, vrb_dev_sel_t *sel);
void         vrb_dev_release(vrb_dev_sel_t *sel);
void         vrb_gid_str(const union ibv_gid *gid, char *buf, size_t len);
const char  *vrb_mtu_str(enum ibv_mtu mtu);

/* vrb_am.c */
rtm_status_t vrb_am_send(rtm_tl_ep_t *ep, unsigned am_id, const void *hdr, size_t hdr_len,
                         const void *payload, size_t len);
int          vrb_progress(rtm_tl_iface_t *iface);
rtm_status_t vrb_post_recv_all(vrb_iface_t *iface);
/* Log the failed completion with everything known and end the job. */
void         vrb_wc_fatal(vrb_iface_t *iface, const struct ibv_wc *wc, const char *what)
    __attribute__((noreturn));
vrb_ep_t    *vrb_ep_of_qpn(vrb_iface_t *iface, uint32_t qpn);

/* vrb_rndv.c */
rtm_status_t vrb_mem_reg(rtm_tl_iface_t *iface, void *addr, size_t len, rtm_tl_memh_t **memh_p,
                         void *rkey, size_t *rkey_len_p);
void         vrb_mem_dereg(rtm_tl_iface_t *iface, rtm_tl_memh_t *memh);
rtm_status_t vrb_get(rtm_tl_ep_t *ep, void *local, rtm_tl_memh_t *local_memh, size_t len,
                     uint64_t remote_addr, const void *rkey, size_t rkey_len,
                     rtm_tl_comp_t *comp);
/* Post what fits of a transfer's remaining reads. */
void         vrb_get_post(vrb_get_t *g);
void         vrb_get_chunk_done(vrb_get_t *g, uint32_t bytes);

static inline vrb_iface_t *vrb_iface_of(rtm_tl_iface_t *tl)
{
    return (vrb_iface_t *)(void *)tl;
}

static inline uint64_t vrb_wr_id(const vrb_ep_t *ep, uint64_t seq)
{
    return ((uint64_t)(uint32_t)ep->peer << 40) | (seq & ((1ull << 40) - 1));
}

#define VRB_WR_RECV_BIT (1ull << 63)   /* receive buffers: wr_id = bit | buffer index */

#endif
