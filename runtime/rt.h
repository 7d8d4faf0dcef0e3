/*
 * The process's runtime state, one instance (rtm_rt, defined in init.c):
 * who this rank is in the job, the library's life-cycle state, the opened
 * transports, and the tables the protocols share (peers, communicators,
 * matching contexts). Data only: each table's logic is in its own module
 * (peer.c, comm.c, match.c). The library is used by one thread at a time.
 */
#ifndef RTM_RUNTIME_RT_H
#define RTM_RUNTIME_RT_H

#include "rtmsg.h"
#include "common/error.h"
#include "common/list.h"
#include "common/secret.h"
#include "runtime/match.h"
#include "transport/transport.h"

#include <stdint.h>

/* The library's life cycle: one definition, tested by name everywhere. */
typedef enum rtm_rt_state {
    RT_NEVER     = 0,   /* before rtm_init */
    RT_READY     = 1,   /* between rtm_init and rtm_finalize */
    RT_FINALIZED = 2,
} rtm_rt_state_t;

/* What a long idle wait does (RTM_IDLE_WAIT), resolved on first use. */
enum { IDLE_UNRESOLVED = 0, IDLE_SPIN = 1, IDLE_YIELD = 2 };

#define RTM_MAX_TRANSPORTS 4

/* What one transport carried, for MPI_T's performance variables (read by
 * runtime/binding_rt.c). Matched messages only (EAGER and RTS; not the
 * control messages): a rendezvous message counts its full size when its
 * RTS leaves or arrives. Increments on the paths, nothing else. */
typedef struct rtm_tl_counters {
    uint64_t msgs_sent;
    uint64_t bytes_sent;
    uint64_t msgs_recv;
    uint64_t bytes_recv;
    uint64_t rndv_sent;    /* of msgs_sent, by rendezvous */
    uint64_t rndv_recv;    /* of msgs_recv, by rendezvous */
} rtm_tl_counters_t;

/* One opened transport. */
typedef struct rtm_tl {
    const rtm_tl_ops_t *ops;
    rtm_tl_iface_t     *iface;
    rtm_tl_caps_t       caps;
    /* RTM_TL_CAP_SLOW_POLL: calls to skip before the next poll, and polls
     * left in which it is polled every call since it last found work. */
    int                 poll_skip;
    int                 poll_hot;
    /* progress() calls made (logged at close: tests check who is polled) */
    unsigned long       polls;
    rtm_tl_counters_t   counters;
    /* shm only: the ring an endpoint writes, which small eager sends use
     * directly (transport/shm/shm_direct.h); NULL for other transports */
    struct shm_fifo_tx *(*ep_ring)(rtm_tl_ep_t *ep);
} rtm_tl_t;

struct rtm_peer;

/* A communicator (runtime/comm.c makes them): a group of world ranks, this
 * rank's place in it, and one context-id slot (ctxid.h) naming two
 * matching contexts, user point-to-point and collectives/management, so
 * internal traffic never matches a user receive. */
typedef struct rtm_comm_obj {
    int       in_use;
    int       rank;
    int       size;
    int      *world_ranks;  /* comm rank -> world rank */
    uint32_t  ctx_p2p;      /* user messages */
    uint32_t  ctx_coll;     /* collectives and comm management */
    int       ctx_slot;     /* ctxid.h slot of both */
    int       next_free;    /* unused handle: the next unused one (-1: none) */
} rtm_comm_obj_t;

typedef struct rtm_runtime {
    rtm_rt_state_t    state;
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
    rtm_secret_t      job_secret;    /* from PMIx (job.c); wiped once the transports are open */
    struct rtm_peer  *peers;         /* world_size entries (peer.c) */
    rtm_tl_t          tls[RTM_MAX_TRANSPORTS];
    int               num_tls;
    rtm_list_t        pending_peers; /* peers with queued work (peer.c, progress.c) */
    rtm_match_table_t contexts;      /* matching contexts by id (comm.c creates them) */
    rtm_comm_obj_t   *comms;         /* by handle (comm.c) */
    int               num_comms;
    int               idle_yield;    /* IDLE_* above */
    /* the idle policy resolved (progress.c): a wait's idle polls before the
     * slow path, and which polls past them take it (a mask) */
    unsigned long     idle_spin;
    unsigned long     idle_check_mask;
    unsigned long     progress_events; /* events found by every pass so far */
    unsigned long     idle_yields;     /* sched_yield calls of blocking waits */
    unsigned long     idle_sleeps;     /* back-off sleeps of long waits */
    /* the counters of the transport whose message is being handled (am.c
     * sets it before each handler; rx_unattributed when a test calls the
     * handler with no transport) */
    rtm_tl_counters_t *rx_counters;
    rtm_tl_counters_t  rx_unattributed;
    /* eager sends that found no credit to their peer and waited (proto.c) */
    uint64_t           credit_stalls;
    /* rendezvous messages this rank received by the copy path: it sent
     * their sender a CTS (rndv.c) */
    uint64_t           rndv_copies;
} rtm_runtime_t;

extern rtm_runtime_t rtm_rt;

static inline int comm_world_rank_of(const rtm_comm_obj_t *comm, int rank)
{
    return comm->world_ranks[rank];
}

/* The check at the top of every public call; the ready case inline. */
static inline rtm_status_t rt_check_ready(const char *func)
{
    if (__builtin_expect(rtm_rt.state == RT_READY, 1))
        return RTM_OK;
    if (rtm_rt.state == RT_NEVER)
        return rtm_error_set(RTM_ERR_NOT_INITIALIZED, "%s called before rtm_init", func);
    return rtm_error_set(RTM_ERR_FINALIZED, "%s called after rtm_finalize", func);
}

#endif
