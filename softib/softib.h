/*
 * softib: a userspace libibverbs emulator (private header).
 *
 * One emulated HCA ("softib0", one port) per process. Every object the verbs
 * API hands out is allocated here; the static inline verbs calls reach us
 * through ctx->ops and the extended verbs_context ops.
 *
 * Locking: one mutex per device (sib_dev.lock) guards every object of the
 * device; all entry points take it. The fast path (post_send, poll_cq) runs
 * the progress engine under that lock, so nothing depends on the helper
 * thread while the application polls.
 *
 * Addressing: a device owns a "slot" (1..4095) on the machine, allocated in
 * the shared directory SOFTIB_DIR. In InfiniBand mode the port LID is the
 * slot; every GID ends with the slot in its last two bytes. QP and SRQ
 * numbers are (slot << 12 | index), so a number alone names its owner.
 */
#ifndef SOFTIB_H
#define SOFTIB_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

#define SIB_VENDOR_ID     0x5f7b1b /* not a real OUI: keeps perftest generic */
#define SIB_VENDOR_PART   0x5b01
#define SIB_MAX_SLOT      4095
#define SIB_IDX_BITS      12
#define SIB_MAX_IDX       ((1u << SIB_IDX_BITS) - 1) /* QPs/SRQs per device */
#define SIB_MAX_MR        4096
#define SIB_MAX_SGE       16
/* Bytes of an RDMA WRITE placed last, after the rest is visible (in-order
 * placement, as an HCA does: send.c sib_cma_write, recv.c sib_place_write):
 * a footer word a poller compares. */
#define SIB_WRITE_TAIL    4
#define SIB_MAX_INLINE    1024
#define SIB_MAX_WR        16384
#define SIB_MAX_CQE       (1 << 20)
#define SIB_MAX_RD_ATOMIC 16
#define SIB_FRAG          (60 * 1024) /* payload bytes per packet */
#define SIB_GRH_LEN       40
#define SIB_PKEY_DEFAULT  0xffff
#define SIB_MAGIC         0x53494231u /* "SIB1" */

#define SIB_SLOT_OF(num)  ((num) >> SIB_IDX_BITS)
#define SIB_IDX_OF(num)   ((num) & SIB_MAX_IDX)

/* ------------------------------------------------------------------ */
/* Shared device page: <dir>/<slot>.dev, mapped by peers on this machine.
 * Peers read it to check an rkey, a QP's state and an XRC target QP without
 * a round trip, so the initiator can do RDMA READ/WRITE itself with
 * process_vm_readv/writev. Entries are published key-last (release) and
 * invalidated key-first, so a reader that sees the key before and after
 * reading the fields saw a consistent entry.                               */

struct sib_shared_mr {  /* 40 bytes */
    _Atomic uint32_t key;   /* 0 = free */
    uint32_t access;        /* IBV_ACCESS_* */
    uint64_t iova;          /* start in the address space keys use */
    uint64_t addr;          /* start in the owner's virtual memory */
    uint64_t length;
    uint32_t pd_id;
    uint32_t bound_qpn;     /* type 2 memory window: only this QP; 0 = any */
};

struct sib_shared_qp {  /* 48 bytes */
    _Atomic uint32_t qpn;   /* 0 = free */
    _Atomic uint32_t state; /* enum ibv_qp_state */
    uint32_t type;          /* enum ibv_qp_type */
    uint32_t pd_id;
    uint32_t access;        /* qp_access_flags */
    uint32_t remote_slot;   /* connected peer (RC, XRC) */
    uint32_t remote_qpn;
    _Atomic uint32_t openers; /* XRC TGT: ibv_open_qp handles elsewhere */
    uint32_t min_rnr_timer;
    uint64_t xrcd_id;       /* XRC TGT: domain identity (dev, inode) */
};

struct sib_shared {
    uint32_t magic;
    uint32_t slot;
    int32_t pid;
    _Atomic uint32_t alive;
    uint64_t incarnation;       /* random per open: detects slot reuse */
    uint64_t netns;             /* inode of /proc/self/ns/net */
    uint16_t tcp_port;          /* network byte order; 0 = none */
    uint16_t n_ipv4;
    uint32_t ipv4[8];           /* network byte order */
    _Atomic uint64_t doorbell;  /* bumped by senders after each packet */
    _Atomic uint32_t dgram_bell; /* ... that went as a datagram */
    _Atomic uint32_t conn_bell;  /* bumped after connecting a stream */
    struct sib_shared_mr mr[SIB_MAX_MR];
    struct sib_shared_qp qp[SIB_MAX_IDX + 1];
};

/* ------------------------------------------------------------------ */
/* Wire format: every packet is one header followed by `len` payload bytes.
 * On a stream (Unix or TCP) packets follow each other and the header's len
 * frames them; as a Unix datagram, one packet per datagram. Host byte order
 * (peers share the machine). Each RC message has one PSN; a message larger
 * than SIB_FRAG travels as several packets with that PSN and increasing
 * `offset`, the last one flagged SIB_F_LAST. Every packet of a peer arrives
 * in the order it was sent (one connection per direction).                 */

enum sib_op {
    SIB_OP_SEND = 1,     /* RC/XRC send; IMM flag for with-immediate */
    SIB_OP_WRITE,        /* RDMA write; IMM flag consumes a receive */
    SIB_OP_READ_REQ,     /* RDMA read request: raddr, rkey, total */
    SIB_OP_READ_RESP,    /* read data, offset into the requester's sges */
    SIB_OP_ATOMIC_REQ,   /* cmp_swp/fetch_add: raddr, rkey, operands */
    SIB_OP_ATOMIC_RESP,  /* original value in `compare_add` */
    SIB_OP_ACK,          /* all psn <= hdr.psn done */
    SIB_OP_NAK,          /* psn failed: `syndrome`, `rnr_timer` */
    SIB_OP_UD_SEND,      /* UD datagram */
};

enum sib_pkt_flag {
    SIB_F_IMM = 1 << 0,
    SIB_F_LAST = 1 << 1,
    SIB_F_SOLICITED = 1 << 2,
    SIB_F_GRH = 1 << 3,     /* UD: sender used a GRH */
    SIB_F_FETCH_ADD = 1 << 4,
    SIB_F_XRC = 1 << 5,     /* dst_qpn is an XRC TGT QP, srqn valid */
    SIB_F_ACK = 1 << 6,     /* a request carrying the ACK of the reverse way */
    SIB_F_INV = 1 << 7,     /* send with invalidate: rkey = the key */
};

enum sib_syndrome {
    SIB_NAK_RNR = 1,
    SIB_NAK_REM_ACCESS,
    SIB_NAK_INV_REQ,
    SIB_NAK_REM_OP,
};

struct sib_pkt_hdr {       /* 72 bytes */
    uint8_t op;            /* enum sib_op */
    uint8_t flags;         /* enum sib_pkt_flag */
    uint8_t syndrome;      /* NAK: enum sib_syndrome */
    uint8_t rnr_timer;     /* NAK RNR: responder's min_rnr_timer */
    uint16_t src_slot;
    uint16_t pkey;
    uint32_t src_qpn;
    uint32_t dst_qpn;
    uint32_t psn;          /* 24 bits used */
    uint32_t imm;          /* network byte order, as the app gave it */
    uint32_t len;          /* payload bytes in this packet */
    uint32_t offset;       /* of this payload in the message */
    uint32_t total;        /* message length */
    uint32_t rkey;
    uint64_t raddr;
    uint64_t compare_add;
    uint64_t swap;
    uint32_t qkey_srqn;    /* UD: qkey; XRC: destination SRQ number */
    uint32_t ack_psn;      /* with SIB_F_ACK: also acknowledges up to here */
};
_Static_assert(sizeof(struct sib_pkt_hdr) == 72, "wire header size");
_Static_assert(sizeof(struct sib_shared_mr) == 40, "shared MR entry size");
_Static_assert(sizeof(struct sib_shared_qp) == 48, "shared QP entry size");

/* ------------------------------------------------------------------ */

struct sib_dev;
struct sib_cq;
struct sib_srq;
struct sib_exwr;

struct sib_peer {
    uint16_t slot;
    struct sib_shared *shared;  /* NULL when not mappable */
    uint64_t incarnation;
    int pid;
    int stream_fd;         /* Unix stream or TCP connection; -1: datagrams */
    bool is_tcp;
    uint64_t next_connect_ns; /* connection attempts are rate limited */
    struct sockaddr_un sun;
    socklen_t sun_len;
    /* packets that could not be sent yet, in order */
    struct sib_outpkt *outq_head, *outq_tail;
    uint64_t sent;         /* packets sent: for cut=<lid>@<n> */
};

struct sib_conn_in {       /* an accepted connection: packets from a peer */
    int fd;
    uint8_t *buf;          /* stream reassembly */
    size_t len, cap;
};

struct sib_outpkt {
    struct sib_outpkt *next;
    uint64_t due_ns;       /* fault injection delay */
    size_t len;
    size_t off;            /* TCP: bytes already written */
    uint8_t data[];        /* header + payload */
};

struct sib_fault {
    int cut_slot;          /* -1 none, 0 all peers */
    uint64_t cut_after;    /* packets sent to it before the cut */
    uint64_t delay_ns;
    int delay_slot;        /* 0 = all */
    long rnr_count;        /* NAK this many incoming sends with RNR; <0 always */
};

struct sib_pd {
    struct ibv_pd ibv;
    uint32_t id;
};

struct sib_mr {
    struct ibv_mr ibv;
    uint32_t idx;
    int access;
    uint64_t iova;
    struct sib_pd *pd;
    void *view;            /* SOFTIB_PIN: the pages it kept (pin.c), or NULL */
    uint64_t pinned;       /* SOFTIB_MEMLOCK: bytes it counts against the limit */
    int nmw;               /* memory windows bound to it: dereg says EBUSY */
};

/* A memory window: a key of its own onto part of an MR, bound and
 * invalidated through the send queue (mr.c). Its index is taken from the
 * MR table's, so an rkey names an MR or a window, never both; bound, it is
 * published in the shared page like an MR (bound_qpn for type 2). */
struct sib_mw {
    struct ibv_mw ibv;
    uint32_t idx;
    uint32_t key;          /* current rkey (index << 8 | the consumer's tag) */
    struct sib_pd *pd;
    bool bound;            /* type 1: a non-empty range; type 2: state VALID */
    struct sib_mr *mr;
    uint64_t addr, length; /* bound range, in the MR's iova space */
    int access;
    uint32_t qpn;          /* type 2: the QP it was bound through */
};

struct sib_channel {
    struct ibv_comp_channel ibv;
    struct sib_dev *dev;
    /* CQs with a pending event, FIFO (a CQ appears at most once) */
    struct sib_cq **events;
    int nevents, cap;
};

struct sib_cq {
    struct ibv_cq ibv;
    struct ibv_wc *ring;
    int cap, head, count;
    int armed;             /* 0, 1 = any, 2 = solicited only */
    bool overflowed;
    int nqp;               /* attached QPs/SRQs, for EBUSY on destroy */
    uint32_t async_reported; /* async events handed out (destroy waits for acks) */
};

struct sib_rwqe {
    uint64_t wr_id;
    int num_sge;
    struct ibv_sge sge[SIB_MAX_SGE];
};

struct sib_rq {            /* receive ring, shared by QP RQs and SRQs */
    struct sib_rwqe *ring;
    uint32_t cap, head, count;
    int max_sge;
};

struct sib_srq {
    struct ibv_srq ibv;
    uint32_t srqn;
    struct sib_rq rq;
    uint32_t limit;        /* armed limit, 0 = disarmed */
    bool is_xrc;
    uint64_t xrcd_id;
    struct sib_cq *cq;     /* XRC SRQs complete here */
    int nqp;
    uint32_t async_reported; /* async events handed out (destroy waits for acks) */
};

/* SWQE_RESEND: sent, then rewound by a NAK or a timeout; it goes out again
 * with the PSN it already has (an XRC INI QP's later WQEs may be complete
 * already, answered by another process, so PSNs are never handed out again) */
enum sib_swqe_state { SWQE_POSTED, SWQE_INFLIGHT, SWQE_DONE, SWQE_FAILED, SWQE_RESEND };

struct sib_swqe {
    uint64_t wr_id;
    enum ibv_wr_opcode opcode;
    unsigned int send_flags;
    uint32_t imm;
    uint64_t raddr;
    uint32_t rkey;
    uint64_t compare_add, swap;
    uint32_t dst_slot, dst_qpn, qkey, srqn;
    bool grh;
    int num_sge;
    struct ibv_sge sge[SIB_MAX_SGE];
    uint32_t length;
    uint8_t *inline_data;  /* points into the QP's inline area */
    uint32_t psn;
    enum sib_swqe_state state;
    enum ibv_wc_status status;
    uint64_t deadline_ns;
    uint32_t read_got;     /* read response bytes placed */
    /* BIND_MW: the window, the region and range (raddr), rkey = new key;
     * LOCAL_INV and SEND_WITH_INV: rkey = the key to invalidate */
    struct ibv_mw *mw;
    struct ibv_mr *bind_mr;
    uint64_t bind_len;
    unsigned int bind_access;
};

struct sib_resp_msg {      /* responder: message being reassembled */
    bool active;
    uint32_t psn;
    uint8_t op;
    struct sib_rwqe wqe;
    bool has_wqe;
    uint32_t total;
};

/* responder state of an XRC initiator QP as seen by this process: XRC
 * sends go straight to the process owning the SRQ, so PSNs seen here have
 * gaps; they must only grow. */
struct sib_xrc_resp {
    bool used;
    uint16_t slot;
    uint32_t qpn;
    bool have_last, nak_sent;
    uint32_t last_psn, nak_psn;
    struct sib_resp_msg resp;
};

struct sib_qp {
    struct ibv_qp_ex ex;   /* must be first: ibv_qp is its first member */
    struct sib_dev *dev;
    uint32_t idx;
    bool has_ex;           /* created with send_ops_flags */
    bool is_open_handle;   /* ibv_open_qp on another process's TGT QP */
    uint32_t async_reported; /* async events handed out (destroy waits for acks) */
    struct ibv_qp_attr attr;  /* current attributes */
    struct ibv_qp_cap cap;
    bool sq_sig_all;
    uint64_t xrcd_id;
    struct sib_cq *send_cq, *recv_cq;
    struct sib_srq *srq;
    /* send queue: [head, head+count) live; [head, head+ndone...) in order */
    struct sib_swqe *sq;
    uint8_t *inline_area;
    uint32_t sq_cap, sq_head, sq_count, sq_next; /* next = first not sent */
    uint32_t next_psn;
    int retry_left, rnr_left;
    uint64_t rnr_wait_until;
    uint64_t progress_ns;  /* last response from the peer: restarts timers */
    uint32_t inflight;     /* sent on the socket path, not yet acked */
    struct sib_rq rq;
    /* responder */
    uint32_t epsn;
    struct sib_resp_msg resp;
    bool nak_sent;         /* drop later packets until epsn comes again */
    bool ack_pending;      /* an ACK waits to ride on our next request */
    uint32_t ack_psn;
    /* ibv_qp_ex builder (send.c): requests between wr_start and wr_complete */
    struct sib_exwr *ex_list;
    int ex_n, ex_cap;
    uint8_t *ex_inline;
    size_t ex_inline_used, ex_inline_cap;
    int ex_err;
};

struct sib_ah {
    struct ibv_ah ibv;
    struct ibv_ah_attr attr;
    uint16_t slot;
};

struct sib_xrcd {
    struct ibv_xrcd ibv;  /* ibv_xrcd is the first member of verbs_xrcd */
    uint64_t id;
};

/* A context is one ibv_open_device(): it has its own async-event fd and
 * queue, as every rdma-core context has its own uverbs file; an object's
 * events go to the context it was created on (sib_async_push). */
struct sib_ctx {
    struct verbs_context vctx;  /* ibv_context is its last member */
    struct sib_dev *dev;
    struct sib_ctx *next;       /* dev->ctxs */
    int async_fd;               /* eventfd, EFD_SEMAPHORE: one count per event */
    struct ibv_async_event *async_q;
    int async_n, async_cap;
};

struct sib_dev {
    pthread_mutex_t lock;
    int refs;                 /* open contexts */
    bool forked_away;         /* we are a fork() child: hands off */
    uint16_t slot;
    int sock;                 /* Unix datagram socket, nonblocking */
    int unix_listen;          /* Unix stream listener (<slot>.stream) */
    int tcp_listen;           /* -1 when off */
    struct sib_conn_in *conn_in; int n_conn; /* accepted connections */
    char dir[96];
    char sock_path[256];
    char shm_path[256];
    char stream_path[256];
    struct sib_shared *shared;
    uint64_t doorbell_seen;
    uint32_t dgram_seen, conn_seen;
    bool have_tcp;            /* a TCP peer: its packets ring no doorbell */
    struct sib_peer *peers[SIB_MAX_SLOT + 1];
    struct sib_qp *qps[SIB_MAX_IDX + 1];
    struct sib_srq *srqs[SIB_MAX_IDX + 1];
    struct sib_mr *mrs[SIB_MAX_MR];
    struct sib_mw *mws[SIB_MAX_MR];  /* windows share the MR index space */
    uint32_t next_qp_idx, next_srq_idx, next_mr_idx, next_pd_id;
    uint8_t *rx_buf;
    struct sib_ctx *ctxs;     /* open contexts (async events per context) */
    /* helper thread */
    pthread_t helper;
    bool helper_running;
    _Atomic bool helper_stop;
    _Atomic uint64_t activity;   /* bumped by every application call */
    int wake_fd;              /* eventfd to wake the helper */
    struct sib_fault fault;
    bool cma;                 /* process_vm_* allowed (SOFTIB_CMA) */
    bool cma_broken;          /* a call failed with EPERM: stop trying */
    uint64_t inflight_total;  /* WQEs waiting for a peer, for timer checks */
    uint64_t next_timer_ns;   /* next time the retry timers are checked */
    uint32_t poll_tick;
    bool have_outq;           /* some peer has queued packets */
    bool trace;               /* SOFTIB_TRACE=1: one stderr line per packet */
    bool memlock;             /* SOFTIB_MEMLOCK=1: MRs count against RLIMIT_MEMLOCK */
    uint64_t mr_bytes;        /* bytes registered (for SOFTIB_MEMLOCK) */
    struct sib_stats {     /* SOFTIB_STATS: what the application asked of us */
        uint64_t send_wr, recv_wr, poll_calls, cqe, pkts, direct;
    } stats;
    struct sib_xrc_resp xrc_resp[64];
    uint32_t ack_qpns[64];    /* QPs with a deferred ACK */
    int n_ack;
};

/* ---------------------------------------------------------------- device.c */
extern struct sib_dev *sib_the_dev;
extern struct ibv_device sib_ibv_device;
bool sib_link_is_eth(void);
/* ---------------------------------------------------------------- sysfs.c */
enum sib_hw_counter { SIB_HW_RNR_NAK_RETRY, SIB_HW_LOCAL_ACK_TIMEOUT, SIB_HW_NCOUNTERS };
extern const char *const sib_hw_counter_names[SIB_HW_NCOUNTERS];
void sib_hw_count(enum sib_hw_counter c);
enum ibv_port_state sib_port_state(void);
int sib_port_phys_state(enum ibv_port_state st);
uint64_t sib_node_guid(void);   /* host order; the same for every process of a host */
void sib_async_push(struct sib_dev *dev, const struct ibv_async_event *ev);
/* destroy of an object: drop its events not yet read, then (unlocked) wait
 * until those read are acknowledged (ibv_destroy_qp(3)'s rule) */
void sib_async_forget(struct sib_dev *dev, struct ibv_context *ctx, void *element);
void sib_async_wait_acked(pthread_mutex_t *m, pthread_cond_t *c,
                          const uint32_t *completed, uint32_t reported);
uint64_t sib_now_ns(void);
int sib_check_dev(struct ibv_context *ctx);
static inline struct sib_ctx *sib_ctx(struct ibv_context *c)
{
    return (struct sib_ctx *)((char *)c - offsetof(struct sib_ctx, vctx.context));
}
static inline struct sib_dev *sib_dev_of(struct ibv_context *c)
{
    return sib_ctx(c)->dev;
}
void sib_gid_of(uint16_t slot, int index, union ibv_gid *gid);

/* ---------------------------------------------------------------- wire.c */
int sib_wire_open(struct sib_dev *dev);
void sib_wire_close(struct sib_dev *dev);
struct sib_peer *sib_peer_get(struct sib_dev *dev, uint16_t slot);
/* send header + payload (iov may be NULL); never blocks. 0 or -errno */
int sib_wire_send(struct sib_dev *dev, uint16_t slot, struct sib_pkt_hdr *hdr,
                  const struct iovec *iov, int iovcnt);
/* receive and dispatch; force: look at every socket, not only those rung */
int sib_wire_poll(struct sib_dev *dev, bool force);
void sib_wire_flush(struct sib_dev *dev); /* retry queued packets */
int sib_wire_fds(struct sib_dev *dev, int *fds, int max);
bool sib_fault_cut(struct sib_dev *dev, uint16_t slot);
void sib_fault_parse(struct sib_fault *f, const char *spec);

/* ---------------------------------------------------------------- mr.c */
struct sib_mr *sib_mr_lookup(struct sib_dev *dev, uint32_t key);
/* translate [addr, addr+len) under lkey in pd needing access; NULL if bad */
/* pin.c: SOFTIB_PIN=1 (an MR keeps its pages when the process remaps them) */
extern bool sib_pin_enabled;
/* SOFTIB_CAPS: capabilities the device does not offer, so a test sees what
 * a client does with an HCA that lacks them (device.c) */
#define SIB_CAP_NO_ATOMIC 1u   /* atomic_cap NONE; atomic WRs: EINVAL at post */
#define SIB_CAP_NO_MW     2u   /* no memory windows: no cap flags, max_mw 0, alloc_mw EOPNOTSUPP */
#define SIB_CAP_ATOMIC_BE 4u   /* not a lack: an atomic's fetched value is written to the
                                  requester's buffer big-endian (byte-swapped on this
                                  little-endian host), as a ConnectX device whose
                                  exp_atomic_cap is IBV_EXP_ATOMIC_HCA_REPLY_BE does */
unsigned sib_caps_off(void);
void sib_pin_add(struct sib_dev *dev, struct sib_mr *mr);
void sib_pin_del(struct sib_mr *mr);
void sib_mr_set_view(struct sib_dev *dev, struct sib_mr *mr, void *view);

void *sib_mr_local(struct sib_dev *dev, struct sib_pd *pd, uint32_t lkey,
                   uint64_t addr, uint64_t len, int need_access);
/* same for an rkey arriving from the wire at QP qpn (an MR's or a window's) */
void *sib_mr_remote(struct sib_dev *dev, uint32_t pd_id, uint32_t qpn,
                    uint32_t rkey, uint64_t addr, uint64_t len, int need_access);
bool sib_shared_mr_check(const struct sib_shared *sh, uint32_t pd_id,
                         uint32_t qpn, uint32_t rkey, uint64_t addr,
                         uint64_t len, int need_access, uint64_t *va_p);
/* memory windows, run from the send queue: an ibv_wc_status */
enum ibv_wc_status sib_mw_bind(struct sib_dev *dev, struct sib_qp *qp,
                               const struct sib_swqe *w);
enum ibv_wc_status sib_mw_local_inv(struct sib_dev *dev, struct sib_qp *qp,
                                    uint32_t rkey);
/* send with invalidate at the responder: 0, or -1 when the key names no
 * type 2 window of pd */
int sib_mw_remote_inv(struct sib_dev *dev, struct sib_pd *pd, uint32_t rkey);
void sib_mw_ops(struct ibv_context *ctx);

/* ---------------------------------------------------------------- cq.c */
int sib_cq_push(struct sib_cq *cq, const struct ibv_wc *wc, bool solicited);
int sib_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int sib_req_notify_cq(struct ibv_cq *cq, int solicited_only);

/* ---------------------------------------------------------------- srq.c */
int sib_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
                      struct ibv_recv_wr **bad);
bool sib_rq_pop(struct sib_rq *rq, struct sib_rwqe *out);
int sib_rq_post(struct sib_rq *rq, struct ibv_recv_wr *wr,
                struct ibv_recv_wr **bad, uint64_t *posted_p);
void sib_srq_after_pop(struct sib_dev *dev, struct sib_srq *srq);
struct sib_srq *sib_srq_lookup(struct sib_dev *dev, uint32_t srqn);
struct ibv_srq *sib_create_srq_ex(struct ibv_context *ctx,
                                  struct ibv_srq_init_attr_ex *attr);
int sib_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num);

/* ---------------------------------------------------------------- qp.c */
struct sib_qp *sib_qp_lookup(struct sib_dev *dev, uint32_t qpn);
void sib_qp_to_error(struct sib_qp *qp);
void sib_qp_publish(struct sib_qp *qp);
int sib_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
                  struct ibv_recv_wr **bad);
struct ibv_qp *sib_create_qp_ex(struct ibv_context *ctx,
                                struct ibv_qp_init_attr_ex *attr);
struct ibv_qp *sib_open_qp(struct ibv_context *ctx, struct ibv_qp_open_attr *a);
void sib_recv_complete(struct sib_qp *qp, struct sib_cq *cq, uint64_t wr_id,
                       enum ibv_wc_status st, enum ibv_wc_opcode op,
                       uint32_t len, const struct sib_pkt_hdr *h, bool srq);
uint64_t sib_timeout_ns(uint8_t timeout);
uint64_t sib_rnr_ns(uint8_t timer);
void sib_qp_ex_init(struct sib_qp *qp);

/* ---------------------------------------------------------------- send.c */
int sib_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
                  struct ibv_send_wr **bad);
/* post_send that also takes a type 1 window's bind (ibv_bind_mw) */
int sib_post_send_bind(struct ibv_qp *qp, struct ibv_send_wr *wr,
                       struct ibv_send_wr **bad);
void sib_send_progress(struct sib_qp *qp);  /* transmit, timers, retire */
void sib_send_timers(struct sib_dev *dev);
void sib_handle_ack(struct sib_dev *dev, const struct sib_pkt_hdr *h,
                    const uint8_t *payload);
void sib_sq_flush(struct sib_qp *qp);

/* ---------------------------------------------------------------- recv.c */
void sib_dispatch(struct sib_dev *dev, const struct sib_pkt_hdr *h,
                  const uint8_t *payload);
void sib_ack_flush(struct sib_dev *dev);
void sib_send_ctl(struct sib_dev *dev, uint16_t slot, uint8_t op,
                  uint32_t src_qpn, uint32_t dst_qpn, uint32_t psn,
                  uint8_t syndrome, uint8_t rnr_timer);

/* ---------------------------------------------------------------- progress.c */
void sib_progress(struct sib_dev *dev);
int sib_wait(struct sib_dev *dev, int extra_fd, int timeout_ms);
int sib_helper_start(struct sib_dev *dev);
void sib_helper_stop(struct sib_dev *dev);
static inline void sib_touch(struct sib_dev *dev)
{
    atomic_fetch_add_explicit(&dev->activity, 1, memory_order_relaxed);
}

/* ---------------------------------------------------------------- xrc.c */
struct ibv_xrcd *sib_open_xrcd(struct ibv_context *ctx,
                               struct ibv_xrcd_init_attr *attr);
int sib_close_xrcd(struct ibv_xrcd *xrcd);
uint64_t sib_xrcd_id(struct ibv_xrcd *xrcd);

#define SIB_EXPORT __attribute__((visibility("default")))

static inline uint32_t psn_add(uint32_t psn, uint32_t n)
{
    return (psn + n) & 0xffffff;
}
/* a - b in the 24-bit PSN space, sign-extended */
static inline int32_t psn_diff(uint32_t a, uint32_t b)
{
    return (int32_t)(((a - b) & 0xffffff) << 8) >> 8;
}

#endif
