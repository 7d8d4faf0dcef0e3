/*
 * shm transport, private declarations: the job's shared segment (one per
 * host), the interface and endpoints.
 *
 * Segment layout ("/rtm-<nspace>-<node_id>", created and sized by local
 * rank 0 in open(), attached by the others in wireup()):
 *
 *   0                shm_seg_hdr_t      one page: geometry, attach counter
 *   4096             shm_rank_info_t[local_size]   64 B each: pid and CMA
 *                                       probe word of every local rank
 *   split_offset     shm_split_slot_t[local_size][SHM_SPLIT_SLOTS], page
 *                                       aligned: a page per rank, the words
 *                                       of the large reads it shares with
 *                                       their senders (shm_split.c)
 *   ctrl_offset      control lines, page aligned (below)
 *   rings_offset     the data: rings or queues, page aligned (below)
 *
 * Pair mode (RTM_SHM_QUEUE=pair, or auto while a ring stays at or above
 * its 4 KiB floor): one single-producer/single-consumer ring per ordered
 * pair. Control: local_size blocks of ctrl_stride bytes; block r holds the
 * local_size - 1 control lines of 64 B (shm_fifo_ctrl_t: the receiver's
 * tail) of the rings into rank r, so that everything in it is written by r
 * alone; ctrl_stride is a multiple of 128 (the adjacent-line prefetcher's
 * unit). Data: local_size * (local_size - 1) rings of ring_stride bytes
 * (fifo_lines * 64). Ring (s, r) carries messages s -> r; its data has
 * index s * (local_size - 1) + (r < s ? r : r - 1), its control line is
 * line (s < r ? s : s - 1) of block r; see shm_fifo.h for a ring's layout.
 * A rank's n - 1 incoming rings share RTM_SHM_RX_BUDGET, so the segment is
 * about n x budget while a ring stays at or above the 4 KiB floor (n <= 449
 * at the 1792 KiB default); RTM_SHM_FIFO_SIZE caps a ring and
 * RTM_SHM_SEG_MAX the whole.
 *
 * Shared mode (RTM_SHM_QUEUE=shared, or auto past the floor): one
 * multi-producer/single-consumer queue per receiving rank. Control:
 * local_size blocks of 256 B (shm_queue_ctrl_t: the head every sender
 * reserves from, and 128 B further the receiver's tail). Data: local_size
 * queues of ring_stride bytes, queue r at index r, each the largest power
 * of two within RTM_SHM_RX_BUDGET, RTM_SHM_FIFO_SIZE, RTM_SHM_SEG_MAX and
 * 2 MiB (256 KiB by default): the segment is n x queue + 320 B per rank,
 * linear at every n.
 *
 * shm_seg_geometry (shm_geom.c) computes both; the header records the mode
 * (queue), and a rank whose own configuration chose the other one, or a
 * segment of another version, is refused at attach with a message saying
 * which.
 *
 * The name lives only until every local rank has attached: the last one
 * to attach unlinks it, so a rank killed later cannot leak it.
 */
#ifndef RTM_TRANSPORT_SHM_H
#define RTM_TRANSPORT_SHM_H

#include "transport/transport.h"
#include "transport/shm/shm_config.h"
#include "transport/shm/shm_fifo.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#define SHM_SEG_MAGIC   UINT64_C(0x31304d48534d5452)  /* "RTMSHM01" */
#define SHM_SEG_VERSION 4u   /* 2: control lines apart from the data; 3: the queue mode;
                              * 4: the split-read slots */
#define SHM_ADDR_MAGIC  0x72736d68u                   /* "hmsr" */
#define SHM_NAME_MAX    256
#define SHM_PAGE        4096u

typedef struct shm_seg_hdr {
    uint64_t         magic;
    uint32_t         version;
    uint32_t         local_size;
    uint32_t         queue;           /* SHM_QUEUE_PAIR or SHM_QUEUE_SHARED */
    uint32_t         pad;
    uint64_t         fifo_lines;      /* data lines per ring or queue, a power of two */
    uint64_t         ring_stride;     /* bytes per ring or queue: fifo_lines * 64 */
    uint64_t         ctrl_offset;
    uint64_t         ctrl_stride;     /* bytes per rank's block of control lines */
    uint64_t         rings_offset;
    uint64_t         size;            /* of the whole segment */
    _Atomic uint32_t attached;        /* ranks that have mapped it */
    _Atomic uint32_t unlinked;        /* 1 once the name is gone */
    uint64_t         split_offset;    /* the split-read slots, SHM_SPLIT_SLOTS per rank */
} shm_seg_hdr_t;

/* One per local rank, written by that rank: before the fence for local
 * rank 0 (in open), in wireup for the others. */
typedef struct shm_rank_info {
    _Atomic uint32_t ready;           /* 1 once the fields below are written */
    int32_t          pid;
    int32_t          world_rank;
    int32_t          pad;
    uint64_t         probe_addr;      /* address of a word CMA peers read */
    uint64_t         probe_value;     /* what they must find there */
    char             reserved[32];
} shm_rank_info_t;

_Static_assert(sizeof(shm_rank_info_t) == 64, "rank info is one line");

/* The address blob published through PMIx: 40 bytes. */
typedef struct shm_addr {
    uint32_t magic;
    uint16_t version;
    uint16_t local_rank;
    int32_t  node_id;
    int32_t  pid;
    uint64_t probe_addr;
    uint64_t probe_value;
    uint64_t reserved;
} shm_addr_t;

/* Packed remote key of a CMA exposure: 16 bytes. */
typedef struct shm_rkey {
    uint64_t addr;
    uint64_t len;
} shm_rkey_t;

/* Packed key of a one-sided exposure (mem_expose): 24 bytes. The origin
 * checks every access against the range and rights (CMA has no check at
 * the target). */
typedef struct shm_xkey {
    uint64_t addr;
    uint64_t len;
    uint32_t rights;   /* RTM_TL_RIGHT_* */
    uint32_t magic;    /* SHM_XKEY_MAGIC */
} shm_xkey_t;
#define SHM_XKEY_MAGIC 0x53484d58u   /* "SHMX" */

typedef enum shm_cma_state {
    SHM_CMA_UNPROBED = 0,    /* before wireup */
    SHM_CMA_OK,
    SHM_CMA_OFF,             /* RTM_SHM_CMA=off */
    SHM_CMA_REFUSED,         /* the kernel said no (cma_errno) */
    SHM_CMA_NO_PEER,         /* nobody to probe within the wait */
} shm_cma_state_t;

typedef struct shm_iface shm_iface_t;

/* Rendezvous reads gathered over a progress pass (shm_cma.c): up to
 * RTM_SHM_CMA_BATCH reads from one peer go in one process_vm_readv, as the
 * system call, not the copy, is most of a read of 4-16 KiB (0.82 us for
 * 8 KiB alone, 0.42 us each in a call of 64). */
#define SHM_GET_BATCH SHM_CONFIG_CMA_BATCH_MAX   /* RTM_SHM_CMA_BATCH lowers it */

typedef struct shm_get_batch {
    int            n;            /* reads waiting (0: none) */
    pid_t          pid;          /* of the peer they read from */
    int            peer;         /* its world rank */
    struct iovec   local[SHM_GET_BATCH];
    struct iovec   remote[SHM_GET_BATCH];
    rtm_tl_comp_t *comp[SHM_GET_BATCH];
} shm_get_batch_t;

/*
 * A large rendezvous read split between the two ranks (shm_split.c): the
 * receiver reads chunks from the front of the sender's buffer while the
 * sender, asked by an SHM_AM_SPLIT record, writes chunks from the back into
 * the receiver's buffer. Which chunks are whose is decided by a
 * compare-and-swap on one word of a slot the receiver owns, so that a
 * sender that is busy or off its core costs nothing (the receiver takes
 * every chunk nobody claimed) and a sender that comes late writes nothing
 * (the generation in the word changed, or no chunk is left).
 */
#define SHM_AM_SPLIT      126u      /* shm's own record (the runtime's ids are < 16) */
#define SHM_SPLIT_SLOTS   64        /* a page of slots per receiving rank */
#define SHM_SPLIT_CHUNK   (256u * 1024u)  /* largest chunk, but for a message of more
                                           * than 65535 chunks (16 GiB) */
#define SHM_SPLIT_CHUNKS_MAX 0xffffu
#define SHM_SPLIT_FAILED  (UINT64_C(1) << 63)   /* in done: a write of the sender failed */
#define SHM_SPLIT_MISSES  2         /* split reads in a row a sender wrote nothing of... */
#define SHM_SPLIT_PAUSE   64        /* ...or a record of its own skipped: reads not split */

typedef struct shm_split_slot {
    _Atomic uint64_t claim;   /* gen << 32 | front << 16 | back: chunks [front, back) are
                               * unclaimed; the receiver takes from front, the sender
                               * from back */
    _Atomic uint64_t done;    /* chunks the sender has written (| SHM_SPLIT_FAILED) */
    char             pad[48];
} shm_split_slot_t;

_Static_assert(sizeof(shm_split_slot_t) == 64, "a split slot is one line");
_Static_assert(SHM_SPLIT_SLOTS * sizeof(shm_split_slot_t) == SHM_PAGE, "a page per rank");

/* The SHM_AM_SPLIT record, receiver -> sender: 40 B, one ring line. */
typedef struct shm_split_req {
    uint32_t gen;       /* the slot's generation for this read */
    uint16_t slot;      /* < SHM_SPLIT_SLOTS, in the receiver's page */
    uint16_t nchunks;   /* (len - 1) / chunk + 1, at least 2 */
    uint64_t src;       /* the sender's buffer (its address) */
    uint64_t dst;       /* the receiver's buffer (its address) */
    uint64_t len;
    uint64_t chunk;     /* a multiple of the page */
} shm_split_req_t;

_Static_assert(sizeof(shm_split_req_t) == 40, "a split request fits one ring line");

/* The receiver's side of one split read (iface->split[slot]). */
typedef struct shm_split {
    rtm_tl_comp_t *comp;
    unsigned char *local;
    uint64_t       remote;
    size_t         len;
    uint64_t       chunk;
    uint32_t       gen;
    uint32_t       nchunks;
    uint32_t       mine;         /* chunks this rank read */
    int            failed;       /* an errno of one of its reads, or 0 */
    pid_t          pid;
    int            peer;
    int            local_peer;   /* the sender's local rank */
} shm_split_t;

typedef struct shm_ep {
    rtm_tl_ep_t    super;        /* iface, peer (world rank) */
    shm_fifo_tx_t *tx;           /* persistent ring state, owned by the iface */
    int            local;        /* local rank */
    pid_t          pid;
    int            in_use;
    uint32_t       split_misses; /* split reads in a row the peer wrote nothing of */
    uint32_t       split_pause;  /* reads from it not to split (shm_split.c) */
} shm_ep_t;

struct shm_iface {
    rtm_tl_iface_t     super;
    /* hot fields first */
    shm_fifo_rx_t     *rx;           /* local_size - 1 incoming rings, or the queue */
    int                num_rx;
    int                shared;       /* 1: one shared queue per rank (shm_fifo.h) */
    int                in_progress;  /* guards against re-entry from am_cb */
    rtm_tl_am_cb_t     am_cb;
    void              *am_arg;
    rtm_status_t     (*addr_lookup)(int peer, const char *name, void **blob_p, size_t *len_p);

    int                world_rank;
    int                local_rank;
    int                local_size;
    int               *local_peers;  /* copy: world rank by local rank */
    int                node_id;
    char               hostname[64];
    char               name[SHM_NAME_MAX];   /* shm_open name, "/rtm-..." */

    int                fd;
    shm_seg_hdr_t     *seg;
    size_t             seg_size;
    uint64_t           fifo_lines;
    size_t             am_max;

    shm_fifo_tx_t     *tx;           /* by local rank (own slot unused) */
    unsigned char     *harmless;     /* local_size * fifo_lines bytes (pair mode) */
    uint64_t           bad_records;  /* shared queue: records naming no peer (dropped) */
    shm_ep_t          *eps;          /* by local rank */

    shm_cma_state_t    cma;
    int                cma_errno;
    int                yama_scope;   /* -1: no Yama; else ptrace_scope 0-3 */
    int                ptracer_any;  /* PR_SET_PTRACER_ANY set (Yama scope 1) */
    int                cma_warned;   /* a run-time CMA failure was reported */
    volatile uint64_t  cma_probe;    /* the word peers read to test CMA */
    uint64_t           cma_reads;    /* gets served (logged at close) */
    uint64_t           cma_bytes;
    uint64_t           cma_rma_ops;  /* one-sided puts and gets (one system call each) */
    uint64_t           cma_declined; /* rendezvous left to the rings (get_preferred) */
    uint64_t           cma_calls;    /* process_vm_readv calls for those reads */
    shm_get_batch_t    gets;         /* reads not yet made (shm_get_flush) */
    /* split reads (shm_split.c) */
    uint64_t           split_busy;   /* bit s: iface->split[s] in use */
    shm_split_slot_t  *split_slots;  /* this rank's page of the segment */
    shm_split_t        split[SHM_SPLIT_SLOTS];
    uint32_t           split_gen[SHM_SPLIT_SLOTS];
    uint64_t           split_reads;  /* reads split (offered to the sender) */
    uint64_t           split_chunks; /* their chunks */
    uint64_t           split_peer_chunks;  /* of those, the senders wrote */
    uint64_t           split_declined;     /* large reads not split: no slot, ring full */
    uint64_t           split_helped;       /* chunks this rank wrote for receivers */
    uint64_t           split_helped_bytes;
    uint64_t           split_help_failed;  /* writes for receivers the kernel refused */
    uint64_t           split_skipped;      /* records left to their receivers */
    uint64_t           split_paused;       /* large reads not split: SHM_SPLIT_PAUSE */
    uint64_t           split_both_ways;    /* large reads not split: this rank sending too */
    uint64_t           exposed;            /* rendezvous sends exposed (mem_reg, not dereg'ed) */
    uint64_t           split_bad;          /* SHM_AM_SPLIT records that failed the check */

    /* The load signal (shm_load.c): runnable tasks on the host, sampled
     * from /proc/loadavg at most every SHM_LOAD_SAMPLE_S, smoothed. */
    int                load_fd;      /* -1: no signal, the host counts as quiet */
    int                load_cpus;    /* CPUs online */
    int                load_busy;    /* last verdict */
    double             load_runnable;/* smoothed runnable tasks (-1: no sample yet) */
    double             load_sampled; /* time of the last sample */
    uint64_t           load_samples;
    uint64_t           load_busy_samples;
    char               memh_token;   /* address handed out as every memh */
};

_Static_assert(offsetof(shm_ep_t, super) == 0, "the base comes first");
_Static_assert(offsetof(struct shm_iface, super) == 0, "the base comes first");

static inline shm_iface_t *shm_iface(rtm_tl_iface_t *tl_iface)
{
    return (shm_iface_t *)(void *)tl_iface;
}

static inline shm_ep_t *shm_ep(rtm_tl_ep_t *tl_ep)
{
    return (shm_ep_t *)(void *)tl_ep;
}

/* shm_seg.c */
/* Where everything lies in a segment of local_size ranks. */
typedef struct shm_seg_geom {
    int      shared;        /* 1: a shared queue per rank; 0: a ring per pair */
    uint64_t fifo_lines;    /* data lines per ring or queue, a power of two */
    uint64_t rings;         /* local_size * (local_size - 1) rings, or local_size queues */
    uint64_t split_offset;  /* a page of split-read slots per rank */
    uint64_t ctrl_offset;
    uint64_t ctrl_stride;
    uint64_t rings_offset;
    uint64_t size;          /* bytes of the whole segment */
} shm_seg_geom_t;

#define SHM_MIN_FIFO_LINES 64u    /* 4 KiB: a ring never gets fewer */

void         shm_seg_geometry(int local_size, shm_seg_geom_t *geom);
void         shm_seg_name(const char *nspace, int node_id, char *buf, size_t len);
rtm_status_t shm_seg_create(shm_iface_t *iface, const shm_seg_geom_t *geom);
rtm_status_t shm_seg_attach(shm_iface_t *iface);
void         shm_seg_unlink_if_named(shm_iface_t *iface);
void         shm_seg_detach(shm_iface_t *iface);
shm_rank_info_t *shm_seg_rank_info(shm_iface_t *iface, int local_rank);
void        *shm_seg_ring(shm_iface_t *iface, int src_local, int dst_local);
shm_fifo_ctrl_t *shm_seg_ctrl(shm_iface_t *iface, int src_local, int dst_local);
/* shared mode: the queue into a rank and its control lines */
void        *shm_seg_queue(shm_iface_t *iface, int dst_local);
shm_queue_ctrl_t *shm_seg_qctrl(shm_iface_t *iface, int dst_local);
/* the split-read slots of a receiving rank */
shm_split_slot_t *shm_seg_split_slots(shm_iface_t *iface, int dst_local);

/* shm_cma.c */
/* Yama's ptrace_scope from the text of /proc/sys/kernel/yama/ptrace_scope:
 * 0-3, or -1 when it is not one of those. */
int          shm_yama_parse(const char *text, size_t len);
/* Under Yama ptrace_scope 1 a process reads only its descendants' memory
 * unless the target names it, and a host's ranks are siblings: each rank
 * then lets the processes of its user read it (PR_SET_PTRACER_ANY), before
 * its probe word is published, unless RTM_SHM_CMA=off or it is alone. */
void         shm_cma_allow_peers(shm_iface_t *iface);
void         shm_cma_probe(shm_iface_t *iface);
rtm_status_t shm_mem_reg(rtm_tl_iface_t *tl_iface, void *addr, size_t len,
                         rtm_tl_memh_t **memh_p, void *rkey, size_t *rkey_len_p);
void         shm_mem_dereg(rtm_tl_iface_t *tl_iface, rtm_tl_memh_t *memh);
rtm_status_t shm_get(rtm_tl_ep_t *ep, void *local, rtm_tl_memh_t *local_memh, size_t len,
                     uint64_t remote_addr, const void *rkey, size_t rkey_len,
                     rtm_tl_comp_t *comp);
/* Make the reads shm_get gathered, then call their completions; returns
 * how many completed. At the end of every progress pass, before a read from
 * another peer or past SHM_GET_BATCH, and in flush and close. */
int          shm_get_flush(shm_iface_t *iface);
const char  *shm_cma_describe(const shm_iface_t *iface, char *buf, size_t len);
int          shm_get_preferred(rtm_tl_ep_t *ep, size_t len);
/* One-sided (shm_cma.c): exposure by range, put by process_vm_writev. */
rtm_status_t shm_mem_expose(rtm_tl_iface_t *iface, void *addr, size_t len, unsigned rights,
                            rtm_tl_ep_t *const *eps, int neps, rtm_tl_memh_t **memh_p);
rtm_status_t shm_mem_key(rtm_tl_memh_t *memh, rtm_tl_ep_t *ep, void *key, size_t *key_len_p);
rtm_status_t shm_mem_revoke(rtm_tl_iface_t *iface, rtm_tl_memh_t *memh);
rtm_status_t shm_put(rtm_tl_ep_t *ep, const void *local, size_t len, uint64_t remote_addr,
                     const void *rkey, size_t rkey_len, rtm_tl_comp_t *comp);
rtm_status_t shm_flush(rtm_tl_ep_t *ep);
uint64_t     shm_rma_wr_count(rtm_tl_iface_t *iface);
size_t       shm_cma_min_threshold(void);

/* shm_split.c */
/* The check of an SHM_AM_SPLIT record from a peer, before anything in it is
 * used: 0 and *req filled, or -1. Pure (fuzzed: tests/fuzz/fuzz_shm_split.c). */
int          shm_split_check(const void *data, size_t len, shm_split_req_t *req);
/* A claim on a split read's word w (gen, nchunks, chunk, len: the read's):
 * by the receiver (sender 0: from the front) or the sender (from the back),
 * half of the chunks left, rounded up. 1 with the word to swap in and the
 * bytes [off, end) of the message claimed; 0 when nothing is left, the word
 * is of another generation or is not one this read could have (the slot
 * is the peer's to write too). Pure (fuzzed with shm_split_check). */
typedef struct shm_split_claim {
    uint64_t word;
    uint64_t off, end;
    uint32_t chunks;
} shm_split_claim_t;
int          shm_split_claim(uint64_t w, uint32_t gen, uint32_t nchunks, uint64_t chunk,
                             uint64_t len, int sender, shm_split_claim_t *c);
/* Whether this rank may split its reads at all (not under valgrind) */
int          shm_split_allowed(const shm_iface_t *iface);
/* Receiver: split a read of len bytes (shm_get validated it) with the
 * sender; 1 when it did (comp->cb runs from shm_split_progress), 0 when the
 * read goes the usual way (no free slot, the ring to the sender full). */
int          shm_split_start(shm_iface_t *iface, shm_ep_t *ep, void *local, uint64_t remote,
                             size_t len, rtm_tl_comp_t *comp);
/* Receiver: take and read chunks of every split read, complete those whose
 * chunks are all written. Returns how many completed. */
int          shm_split_progress(shm_iface_t *iface);
/* Until every split read completed (flush, close). */
void         shm_split_drain(shm_iface_t *iface);
/* Sender: an SHM_AM_SPLIT record from local rank src_local. */
void         shm_split_help(shm_iface_t *iface, int src_local, const void *data, size_t len);
/* shm_cma.c's copy, resumed after short transfers and EINTR: 0 or an errno */
int          shm_cma_xfer(pid_t pid, void *local, uint64_t remote, size_t len, int write);
/* A read the kernel refused after it was accepted: warned once per rank,
 * the error set, RTM_ERR_TRANSPORT returned (shm_cma.c). */
rtm_status_t shm_cma_read_failed(shm_iface_t *iface, int peer, pid_t pid, size_t len, int err);

/* shm_load.c */
void         shm_load_open(shm_iface_t *iface);
void         shm_load_close(shm_iface_t *iface);
int          shm_load_busy(shm_iface_t *iface);
int          shm_load_parse(const char *text, size_t len);

/* shm_state.c: ops.ep_state */
size_t       shm_ep_state(rtm_tl_ep_t *ep, char *buf, size_t len);

#endif
