/*
 * The transport contract. Each transport (self, shm, verbs, tcp) fills one
 * rtm_tl_ops_t statically and exports it under one name (rtm_tl_shm, ...),
 * as an rdma-core provider fills its ops. A transport knows nothing of tags,
 * communicators or MPI: it moves active messages (an id, a header and a
 * payload, delivered whole and in order per peer) and, when it can, reads a
 * peer's exposed memory (get) and, since ABI 3, writes it and does 64-bit
 * atomics on it (one-sided memory: mem_expose ... flush, below).
 *
 * Life cycle, driven by the runtime:
 *   open -> addr_pack (published through PMIx) -> [PMIx fence] -> wireup
 *   -> ep_create per peer on first use -> am_send/get/progress ...
 *   -> [barrier] -> quiesce -> [PMIx fence] -> ep_destroy -> close
 *
 * Threading: one thread at a time calls into a transport. Callbacks into the
 * runtime (am_cb, completion callbacks) happen only from inside progress or,
 * for completions, from inside the call that started the operation; the
 * runtime may call am_send from inside am_cb.
 *
 * The contract stands alone: this header includes only the status codes
 * (rtm_status.h) and standard headers. A transport uses common/ (logging,
 * error detail, lists, timers, config values) and what the runtime hands it
 * in rtm_tl_params_t; it never includes a runtime or public header and never
 * calls the public API (no rtm_abort: a fatal error goes to peer_failed).
 *
 * Every endpoint begins with struct rtm_tl_ep and every interface with
 * struct rtm_tl_iface, as its first member (checked with _Static_assert), so
 * the transport converts between the base and its own type with a cast: no
 * extra load on the hot path, and NULL stays NULL. Output parameters (_p)
 * are written only on success.
 *
 * A transport may be built into librtmsg (self, shm, tcp) or be a module
 * loaded at run time (verbs: librtmsg-verbs.so, transport/registry.c). The
 * table begins with abi_version and ops_size, which the runtime checks
 * before it reads anything else in a table.
 */
#ifndef RTM_TRANSPORT_H
#define RTM_TRANSPORT_H

#include "rtm_status.h"

#include <stddef.h>
#include <stdint.h>

typedef struct rtm_tl_ops   rtm_tl_ops_t;
typedef struct rtm_tl_iface rtm_tl_iface_t;
typedef struct rtm_tl_ep    rtm_tl_ep_t;
typedef struct rtm_tl_memh  rtm_tl_memh_t;    /* transport-private */

/* Version of this contract (the layout of rtm_tl_ops_t and of the structs
 * it passes). Bumped on any change a separately built transport module
 * would get wrong; the runtime refuses a table whose abi_version or
 * ops_size differ from its own. */
#define RTM_TL_ABI_VERSION 4

/* The base every transport's interface begins with (its first member). */
struct rtm_tl_iface {
    const rtm_tl_ops_t *ops;      /* the table that opened it */
    /* RTM_TL_CAP_POLL_ON_WORK: nonzero while progress() has something to
     * do; the transport sets and clears it, the runtime reads it. */
    int                 has_work;
};

/* The base every endpoint begins with (its first member): the interface it
 * belongs to and the peer's world rank. */
struct rtm_tl_ep {
    rtm_tl_iface_t *iface;
    int             peer;
};

/* peer_failed's peer when a failure concerns no single peer (a device-level
 * fatal event): the runtime ends the job all the same. */
#define RTM_TL_PEER_NONE (-1)

/* Largest blob addr_pack may write, and largest packed remote key. */
#define RTM_TL_ADDR_MAX 512
#define RTM_TL_RKEY_MAX 64
/* Active-message ids are below this; the runtime assigns them. */
#define RTM_TL_AM_ID_MAX 16

/* Deliver one active message. `data` is the sender's header immediately
 * followed by its payload (len bytes in all); it is valid only during the
 * call, so the runtime copies what it keeps. src is the sender's world rank. */
typedef void (*rtm_tl_am_cb_t)(void *arg, int src, unsigned am_id, const void *data,
                               size_t len);

typedef struct rtm_tl_params {
    int            world_rank;
    int            world_size;
    int            local_rank;     /* index of this rank among local_peers */
    int            local_size;
    const int     *local_peers;    /* world ranks on this host, by local rank */
    int            node_id;        /* this host's index in the job */
    const char    *nspace;         /* PMIx namespace (job id), for naming shared objects */
    const char    *hostname;
    /* The job secret (RTM_SECRET_LEN bytes, common/secret.h) from the
     * launcher, NULL when the PMIx server gave none (a foreign server, a
     * singleton). A transport that admits connections from the network
     * proves it and makes its peers prove it (tcp); it copies what it
     * keeps, and the runtime wipes its copy after open. */
    const unsigned char *job_secret;
    size_t         job_secret_len;
    rtm_tl_am_cb_t am_cb;
    void          *am_arg;
    /* From wireup on (after the modex fence): the blob `peer` published for
     * transport `name`; *blob_p is malloc'd (caller frees). For transports
     * that connect to every peer at wireup (verbs full mesh). */
    rtm_status_t (*addr_lookup)(int peer, const char *name, void **blob_p, size_t *len_p);
    /* Required (open fails without it). A peer is lost for good
     * (connection reset, fatal work completion), or, with peer
     * RTM_TL_PEER_NONE, the device failed under every peer (fatal async
     * event): msg names both sides and the cause. The runtime ends the job,
     * so no rank waits forever for a message that cannot come; it does not
     * return. This is the only way a transport reports a fatal error: it
     * never ends the process itself. Called at most once per peer, from
     * progress or am_send (am_arg is passed as arg). */
    void         (*peer_failed)(void *arg, int peer, rtm_status_t status, const char *msg);
} rtm_tl_params_t;

enum {
    RTM_TL_CAP_GET       = 1u << 0,  /* get() reads a peer's registered memory */
    RTM_TL_CAP_LOCAL     = 1u << 1,  /* reaches peers on the same host only */
    RTM_TL_CAP_SELF      = 1u << 2,  /* reaches this process only */
    /* progress() costs a system call (poll on sockets): the runtime calls it
     * less often while it finds nothing, so a shared-memory loop is not
     * slowed by a socket poll per iteration. */
    RTM_TL_CAP_SLOW_POLL = 1u << 3,
    /* progress() finds work only when this process made it (self: its own
     * am_send): the runtime calls it only while iface->has_work is set. */
    RTM_TL_CAP_POLL_ON_WORK = 1u << 4,
    /* One-sided memory semantics (ABI 3): mem_expose/mem_key/mem_revoke
     * and put (CAP_PUT), atomic (CAP_ATOMIC), flush. A transport sets a
     * flag only when the op is there and the device can do it. */
    RTM_TL_CAP_PUT       = 1u << 5,
    RTM_TL_CAP_ATOMIC    = 1u << 6,
};

/* Rights a region is exposed with (mem_expose): only those asked are
 * granted, at the target (a verbs window or MR has exactly these). */
enum {
    RTM_TL_RIGHT_READ   = 1u << 0,   /* get */
    RTM_TL_RIGHT_WRITE  = 1u << 1,   /* put */
    RTM_TL_RIGHT_ATOMIC = 1u << 2,   /* atomic */
    RTM_TL_RIGHTS_ALL   = 7u,
};

/* 64-bit atomics on a peer's exposed memory (atomic). */
typedef enum rtm_tl_atomic_op {
    RTM_TL_ATOMIC_FADD  = 1,   /* *remote += operand; result: the old value */
    RTM_TL_ATOMIC_CSWAP = 2,   /* if (*remote == compare) *remote = operand; result: the old value */
} rtm_tl_atomic_op_t;

typedef struct rtm_tl_caps {
    unsigned flags;
    size_t   am_max;          /* largest header + payload of one active message */
    size_t   eager_limit;     /* payloads up to this go eagerly (runtime protocol) */
    size_t   get_threshold;   /* with CAP_GET: payloads from this size use get */
    double   latency_us;      /* hint for choosing among transports */
    double   bandwidth_gbs;
} rtm_tl_caps_t;

/* Completion of a get, put or atomic. cb is called exactly once per
 * operation, possibly before the call that started it returns, with RTM_OK
 * or the error that ended the transfer. One comp may serve several
 * operations at once (it is called once for each). */
typedef struct rtm_tl_comp {
    void (*cb)(struct rtm_tl_comp *comp, rtm_status_t status);
} rtm_tl_comp_t;

struct rtm_tl_ops {
    /* First, so a module built against another contract is recognised
     * before anything else in its table is read. */
    uint32_t    abi_version;    /* RTM_TL_ABI_VERSION */
    uint32_t    ops_size;       /* sizeof(rtm_tl_ops_t) */
    const char *name;

    rtm_status_t (*open)(const rtm_tl_params_t *params, rtm_tl_iface_t **iface_p);
    void         (*close)(rtm_tl_iface_t *iface);
    void         (*query)(rtm_tl_iface_t *iface, rtm_tl_caps_t *caps);
    /* One line for rtm_info and the debug log: devices, paths chosen
     * (e.g. "CMA single copy: permitted"). iface may be NULL when the
     * transport is described without being opened. */
    void         (*describe)(rtm_tl_iface_t *iface, char *buf, size_t len);

    /* Address published through PMIx; *len_p in: buffer size
     * (RTM_TL_ADDR_MAX), out: bytes written (0: nothing to publish). */
    rtm_status_t (*addr_pack)(rtm_tl_iface_t *iface, void *buf, size_t *len_p);
    /* After the modex fence: attach shared objects, probe paths. May be NULL. */
    rtm_status_t (*wireup)(rtm_tl_iface_t *iface);
    /* 1 if this transport can reach peer (whose blob may be NULL/0). */
    int          (*reachable)(rtm_tl_iface_t *iface, int peer, const void *blob,
                              size_t blob_len);
    rtm_status_t (*ep_create)(rtm_tl_iface_t *iface, int peer, const void *blob,
                              size_t blob_len, rtm_tl_ep_t **ep_p);
    void         (*ep_destroy)(rtm_tl_ep_t *ep);

    /* Copies hdr and payload out before returning. RTM_ERR_AGAIN when the
     * queue to the peer is full: nothing was sent, call progress and retry.
     * Never blocks, never drops. hdr_len + len <= caps.am_max. */
    rtm_status_t (*am_send)(rtm_tl_ep_t *ep, unsigned am_id, const void *hdr,
                            size_t hdr_len, const void *payload, size_t len);

    /* Optional (CAP_GET). Expose [addr, addr+len) to peers for reading;
     * rkey receives the packed remote key (*rkey_len_p <= RTM_TL_RKEY_MAX). */
    rtm_status_t (*mem_reg)(rtm_tl_iface_t *iface, void *addr, size_t len,
                            rtm_tl_memh_t **memh_p, void *rkey, size_t *rkey_len_p);
    void         (*mem_dereg)(rtm_tl_iface_t *iface, rtm_tl_memh_t *memh);
    /* Read len bytes at the peer's remote_addr into local. local_memh may be
     * NULL for transports that need no local registration. */
    rtm_status_t (*get)(rtm_tl_ep_t *ep, void *local, rtm_tl_memh_t *local_memh,
                        size_t len, uint64_t remote_addr, const void *rkey,
                        size_t rkey_len, rtm_tl_comp_t *comp);
    /* Optional (CAP_GET). Whether a get of len bytes (len >= caps.get_threshold)
     * from ep's peer is the better path now, rather than a copy through
     * active messages: e.g. shm weighs the host's load, as its copy needs
     * both ranks on a core at once and a get only the reader. NULL: always.
     * The receiver of a rendezvous asks once per message; no allocation,
     * lock or log. */
    int          (*get_preferred)(rtm_tl_ep_t *ep, size_t len);

    /* ---- One-sided memory semantics (ABI 3). All optional: a transport
     * without them (tcp, self) leaves them NULL and the runtime reports
     * "not available" (RTM_ERR_NOT_SUPPORTED) so callers fall back to
     * messages. Remote addresses are the owner's virtual addresses.
     *
     * mem_expose: expose [addr, addr+len) to the peers of eps[0..neps)
     * (endpoints of this interface) with `rights` (RTM_TL_RIGHT_*), and
     * nothing more: no right not asked, no peer not listed where the
     * transport can tell peers apart (verbs with type 2 memory windows:
     * one window per peer's QP; a plain MR per region otherwise). May call
     * progress (a window is bound by a work request whose completion it
     * waits for), so am_cb can run inside it. RTM_ERR_NOT_SUPPORTED,
     * nothing exposed, when it cannot grant every right asked (the runtime
     * asks again with fewer: without atomics, then read only). Slow path.
     * put, atomic and flush are hot paths: no allocation (beyond a
     * transport's registration cache, or once per peer), lock or log. */
    rtm_status_t (*mem_expose)(rtm_tl_iface_t *iface, void *addr, size_t len, unsigned rights,
                               rtm_tl_ep_t *const *eps, int neps, rtm_tl_memh_t **memh_p);
    /* The packed key of an exposure for one of its peers, to be sent to
     * that peer only (*key_len_p in: buffer size, out: bytes, <=
     * RTM_TL_RKEY_MAX). The peer passes it to get/put/atomic as rkey. */
    rtm_status_t (*mem_key)(rtm_tl_memh_t *memh, rtm_tl_ep_t *ep, void *key, size_t *key_len_p);
    /* Ends the exposure: from its return, a peer that uses a key of it
     * gets a remote access error (where the transport can enforce it:
     * verbs; shm's CMA is checked by the origin only, as ptrace already
     * lets a same-user process read the memory). May call progress. */
    rtm_status_t (*mem_revoke)(rtm_tl_iface_t *iface, rtm_tl_memh_t *memh);
    /* Write len bytes of local to the peer's remote_addr (zero copy where
     * the transport can). local may be reused once comp is called.
     * RTM_ERR_AGAIN: no send-queue room (or not connected yet): nothing
     * was started, call progress and retry. */
    rtm_status_t (*put)(rtm_tl_ep_t *ep, const void *local, size_t len, uint64_t remote_addr,
                        const void *rkey, size_t rkey_len, rtm_tl_comp_t *comp);
    /* One 64-bit atomic at the peer's remote_addr (8-byte aligned): *result
     * (the old value) is written before comp is called. RTM_ERR_AGAIN as
     * for put; RTM_ERR_NOT_SUPPORTED when the device has no atomics. */
    rtm_status_t (*atomic)(rtm_tl_ep_t *ep, rtm_tl_atomic_op_t op, uint64_t operand,
                           uint64_t compare, uint64_t *result, uint64_t remote_addr,
                           const void *rkey, size_t rkey_len, rtm_tl_comp_t *comp);
    /* RTM_OK once every put and atomic issued to ep is complete at the
     * target (and its comp called); RTM_ERR_AGAIN while some are not:
     * call progress and ask again. Never blocks. Gets are not waited for:
     * a get is complete when its comp is called (the caller counts its
     * own), and get also serves the rendezvous reads of two-sided
     * messages, which a one-sided flush must not wait for. */
    rtm_status_t (*flush)(rtm_tl_ep_t *ep);
    /* Work requests (or their equivalent) posted for one-sided operations
     * so far, by the interface: a fetch-and-op is exactly one. For tests
     * and diagnostics; may be NULL. */
    uint64_t     (*rma_wr_count)(rtm_tl_iface_t *iface);
    /* Optional (ABI 4): an endpoint of this interface to this process itself (a
     * verbs QP connected to itself), made on first call, kept until close.
     * The runtime lists it in mem_expose and uses it for put/get/atomic/
     * flush on the process's own exposed memory, so those go through the
     * device like the peers' (verbs atomics with atomic_cap IBV_ATOMIC_HCA
     * are atomic only with respect to the same device's atomics). Slow
     * path. RTM_ERR_NOT_SUPPORTED: none. */
    rtm_status_t (*ep_loopback)(rtm_tl_iface_t *iface, rtm_tl_ep_t **ep_p);

    /* Deliver incoming messages and completions; returns events handled.
     * Hot path: must not allocate, lock or log. */
    int          (*progress)(rtm_tl_iface_t *iface);

    /* Optional. At finalize, after the runtime's last barrier and drain:
     * return once everything this transport posted has been acknowledged by
     * the peer (may call progress; keeps delivering what arrives), so no peer
     * closes while it still owes us an acknowledgement and we close nothing a
     * peer's retransmission still needs. A transport with quiesce gets one
     * PMIx fence (on every rank) between it and ep_destroy/close. */
    rtm_status_t (*quiesce)(rtm_tl_iface_t *iface);

    /* 1: wireup connects to every peer, and a peer must not send before the
     * other side's wireup is done (RC QPs drop packets before RTR). The
     * runtime then fences once after wireup, on every rank that lists this
     * transport, whether it opened there or not (so no fence mismatch). */
    int          wireup_fence;

    /* Optional (ABI 2). A job-state report (runtime/state.c) asks for what
     * the endpoint holds now: writes JSON members (no braces, e.g.
     * "\"ring_used\":3,\"ring_lines\":64") into buf and returns the bytes
     * written (< len, NUL-terminated). Reads existing state only, on the
     * slow path of a report: may query the device, never changes anything. */
    size_t       (*ep_state)(rtm_tl_ep_t *ep, char *buf, size_t len);
};

/* The first two fields of every table: RTM_TL_OPS_VERSION, .name = ... */
#define RTM_TL_OPS_VERSION .abi_version = RTM_TL_ABI_VERSION, .ops_size = sizeof(rtm_tl_ops_t)

/* The checks every open makes of what the runtime hands it. */
static inline int rtm_tl_params_valid(const rtm_tl_params_t *params)
{
    return params != NULL && params->am_cb != NULL && params->peer_failed != NULL;
}

extern const rtm_tl_ops_t rtm_tl_self;
extern const rtm_tl_ops_t rtm_tl_shm;
extern const rtm_tl_ops_t rtm_tl_tcp;
/* verbs is a module loaded at run time (librtmsg-verbs.so): its table is
 * this symbol of the module, found with dlsym (transport/registry.c). */
extern const rtm_tl_ops_t rtm_tl_verbs;

#endif
