/*
 * The transport contract. Each transport (self, shm, verbs, tcp) fills one
 * rtm_tl_ops_t statically and exports it under one name (rtm_tl_shm, ...),
 * as an rdma-core provider fills its ops. A transport knows nothing of tags,
 * communicators or MPI: it moves active messages (an id, a header and a
 * payload, delivered whole and in order per peer) and, when it can, reads a
 * peer's exposed memory (get).
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
 */
#ifndef RTM_TRANSPORT_H
#define RTM_TRANSPORT_H

#include "rtmsg.h"

#include <stddef.h>
#include <stdint.h>

typedef struct rtm_tl_iface rtm_tl_iface_t;   /* transport-private */
typedef struct rtm_tl_ep    rtm_tl_ep_t;      /* transport-private */
typedef struct rtm_tl_memh  rtm_tl_memh_t;    /* transport-private */

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
    rtm_tl_am_cb_t am_cb;
    void          *am_arg;
    /* From wireup on (after the modex fence): the blob `peer` published for
     * transport `name`; *blob_p is malloc'd (caller frees). For transports
     * that connect to every peer at wireup (verbs full mesh). */
    rtm_status_t (*addr_lookup)(int peer, const char *name, void **blob_p, size_t *len_p);
    /* A peer is lost for good (connection reset, fatal work completion):
     * msg names both sides and the cause. The runtime ends the job, so no
     * rank waits forever for a message that cannot come. Called at most
     * once per peer, from progress or am_send. */
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
};

typedef struct rtm_tl_caps {
    unsigned flags;
    size_t   am_max;          /* largest header + payload of one active message */
    size_t   eager_limit;     /* payloads up to this go eagerly (runtime protocol) */
    size_t   get_threshold;   /* with CAP_GET: payloads from this size use get */
    double   latency_us;      /* hint for choosing among transports */
    double   bandwidth_gbs;
} rtm_tl_caps_t;

/* Completion of a get. cb is called exactly once, possibly before get()
 * returns, with RTM_OK or the error that ended the transfer. */
typedef struct rtm_tl_comp {
    void (*cb)(struct rtm_tl_comp *comp, rtm_status_t status);
} rtm_tl_comp_t;

typedef struct rtm_tl_ops {
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
} rtm_tl_ops_t;

extern const rtm_tl_ops_t rtm_tl_self;
extern const rtm_tl_ops_t rtm_tl_shm;
extern const rtm_tl_ops_t rtm_tl_tcp;
extern const rtm_tl_ops_t rtm_tl_verbs;

#endif
