/*
 * What the MPI binding (mpi/) needs of the runtime beyond the public API
 * (rtmsg.h). This is the only runtime header mpi/ can include: its include
 * path (mpi/local.mk) holds include/, mpi/ and this header, not runtime/ or
 * transport/. Internal to librtmsg: no name here is exported (the library
 * exports only rtm_*, MPI_*, PMPI_*, MPIX_*).
 */
#ifndef RTM_RUNTIME_BINDING_H
#define RTM_RUNTIME_BINDING_H

#include "rtmsg.h"

#include <stddef.h>
#include <stdint.h>

/* The runtime's idle policy, for a wait loop the binding drives itself.
 *
 * The binding's blocking waits (MPI_Wait* over its own collective schedules
 * and orphaned requests, a blocking collective) cannot call rtm_wait: they
 * poll rtm_progress and their own work in a loop. After each poll they
 * call binding_idle with the number of polls the wait has made so far (1,
 * 2, ...), and it does what the native waits do: nothing while the wait is
 * within its spin (RTM_POLL_SPIN polls), then yield the core at each call
 * if the rank shares its core (RTM_IDLE_WAIT; by default, more ranks of the
 * job on this host than CPUs), so the peer waited for can run.
 *
 * A wait's first call (polls == 1) restarts the back-off's clock: the
 * binding's waits end on work the runtime's passes do not count (its
 * schedules, flags in shared memory), and a clock left running from the
 * last transport event made later short waits sleep as long ones.
 *
 * Cheap: one compare while spinning. Allocates and locks nothing; logs
 * once, at debug level, when the first wait past its spin resolves the
 * policy. */
void binding_idle(unsigned long polls);

/* 1 when this rank's blocking waits yield their core: more ranks of the job
 * on this host than CPUs for them (RTM_IDLE_WAIT=auto), or RTM_IDLE_WAIT=
 * yield. Resolves the idle policy if no wait has yet. The same answer at
 * every rank of a host as long as they share RTM_IDLE_WAIT and their
 * launcher's CPU mask; a binding that needs every rank to agree (a
 * collective's algorithm) agrees on one rank's answer. */
int binding_host_oversubscribed(void);

/* The blocking call the binding is in, for a job-state report (rtrun's
 * summary on --timeout, SIGUSR1 or --report-state). The binding records
 * its call with a few stores at the entry of its blocking calls only (no
 * cost on the nonblocking paths) and, when asked, describes it here; the
 * runtime calls the describer only while answering a report, from inside a
 * wait, on the rank's own thread. */
typedef struct binding_call {
    const char *name;      /* "MPI_Probe"; NULL: not in a blocking call */
    int         peer;      /* comm rank the call names; -1 any source, BINDING_NONE: none */
    int         tag;       /* -1: any tag, BINDING_NONE: none */
    int         native_comm;  /* rtm_comm_t of the call's communicator, -1: none */
    int         peer_world;   /* world rank of peer (-1 none, -2 any) */
    const char *comm_name; /* "WORLD", or the communicator's name */
    /* A collective: the step of its schedule it waits in, or "" */
    char        step[128];
    int         step_peer_world;  /* world rank that step waits for, -1 none */
} binding_call_t;

#define BINDING_NONE (-32768)

/* Once, after the runtime is initialized. describe fills *call_p and
 * returns 1 when the rank is in a blocking call of the binding. */
void binding_state_register(int (*describe)(binding_call_t *call_p));

/* ---- Requests: an MPI request is a runtime request ------------------------
 *
 * Every runtime request (runtime/request.h) begins with the head below, so
 * the binding keeps no request object of its own on the fast path: its
 * handle names the runtime's object, it reads completion and status here
 * without a call, and it keeps its own words in `binding`. A binding_req_t
 * pointer and the rtm_request_t of the same request are the same address:
 * the public calls (rtm_cancel, ...) take it as it is.
 *
 * gen changes each time the request is recycled, so a handle that carries
 * the generation it was made with is found stale once its request is gone,
 * whether the object is free or serves a newer request. A request's address
 * is below 2^48 (the table refuses memory above), leaving a handle's top 16
 * bits for the generation.
 *
 * Written by the runtime: gen, flags, kind, status; op and the rest of the
 * runtime's request are private. `binding` is the binding's own: zeroed at
 * allocation, never read by the runtime. */
#define BINDING_REQ_HEAD \
    uint32_t          gen;        /* + 1 at every release */ \
    uint16_t          flags;      /* BINDING_REQ_COMPLETE: status is final */ \
    uint8_t           kind;       /* BINDING_REQ_SEND, _RECV, _BINDING */ \
    uint8_t           op;         /* the runtime's */ \
    rtm_msg_status_t  status;     /* final once complete */ \
    uintptr_t         binding[2]; /* the binding's own */

typedef struct binding_req {
    BINDING_REQ_HEAD
} binding_req_t;

#define BINDING_REQ_COMPLETE 1u          /* in flags (RTM_REQ_F_COMPLETE) */
#define BINDING_REQ_ADDR_BITS 48         /* a request's address fits these bits */
enum {
    BINDING_REQ_SEND = 1,
    BINDING_REQ_RECV = 2,
    BINDING_REQ_BINDING = 3,   /* binding_req_new: the binding's work, not the runtime's */
};

static inline rtm_request_t binding_req_native(binding_req_t *req)
{
    return (rtm_request_t)(void *)req;
}

/* A send or receive whose arguments the binding has already checked, the
 * way rtm_isend_mode / rtm_irecv would: the library is ready, comm is a
 * valid communicator, dest (src) a rank of it (src may be RTM_ANY_SOURCE;
 * neither is RTM_PROC_NULL), tag >= 0 (a receive's may be RTM_ANY_TAG), buf
 * valid for len bytes. Nothing is checked again. On RTM_OK *req_p is the
 * new request (a send may be complete already); an error is set with
 * rtm_error_set and nothing was started. binding_issend is the synchronous
 * send (complete once matched).
 * Hot path: no allocation once the request table has grown, no lock, no
 * log. */
rtm_status_t binding_isend(const void *buf, size_t len, int dest, int tag, rtm_comm_t comm,
                           binding_req_t **req_p);
rtm_status_t binding_issend(const void *buf, size_t len, int dest, int tag, rtm_comm_t comm,
                            binding_req_t **req_p);
rtm_status_t binding_irecv(void *buf, size_t len, int src, int tag, rtm_comm_t comm,
                           binding_req_t **req_p);
/* A request the runtime never starts nor completes, for work the binding
 * does itself (a collective schedule, a persistent or packed operation):
 * it gives that work a handle with a generation. NULL: no memory. */
binding_req_t *binding_req_new(void);
/* Completion notices, so the binding learns which of its operations
 * finished without testing each one (mpi/coll_sched.c advances a collective
 * schedule when the last request of its round completes). A request marked
 * with binding_req_watch calls the function given to binding_done_register
 * when it completes, from inside the call that completed it (progress, or
 * a later send or receive). binding_req_watch returns 1, marking nothing,
 * when the request is complete already. The function runs in the runtime's
 * hot path: it must not allocate, lock, log or call into the library; it may
 * read the request's head and its binding words. */
typedef void binding_done_fn(binding_req_t *req);
void binding_done_register(binding_done_fn *fn);
int  binding_req_watch(binding_req_t *req);
/* Recycles a complete request (or one from binding_req_new). */
void           binding_req_release(binding_req_t *req);
/* The user freed a request: recycled now if complete, else when it
 * completes. */
void           binding_req_free(binding_req_t *req);

/* ---- The tool interface, MPI_T (mpi/mpit.c) ------------------------------
 *
 * MPI_T's control variables are the config rows, which the binding reads
 * through common/rtconfig.h; the runtime makes sure they are registered
 * and hands out what it counts for the performance variables. None of
 * these is on a hot path; the counting itself is increments on the paths
 * (runtime/rt.h rtm_tl_counters_t, match.h, proto.c). */

/* Registers every component's config table, as rtm_init does first, so
 * the rows are there before MPI_Init. Does nothing once done, or once
 * rtm_init has run (it registered them). */
rtm_status_t binding_config_ready(void);

/* The transports this build knows (transport/registry.h order): the name
 * of the i-th, NULL past the last. */
const char *binding_tl_name(int i);

/* 1 when this rank opened the transport of that name (rtm_init opens
 * those RTM_TRANSPORTS lists that can serve it: shm only with another rank
 * of the job on this host), else 0. */
int binding_tl_open(const char *name);

/* The /dev/shm name of a segment of this job: "/rtm-<nspace>-<what>"
 * (common/shmname.h), which the launcher deletes when the job ends even if
 * a rank died holding it. 0, or -1 if it does not fit in len. */
int binding_job_shm_name(const char *what, char *buf, size_t len);

typedef enum binding_counter {
    /* per transport: matched messages (EAGER, RTS) and their bytes */
    BINDING_CTR_MSGS_SENT,
    BINDING_CTR_BYTES_SENT,
    BINDING_CTR_MSGS_RECV,
    BINDING_CTR_BYTES_RECV,
    BINDING_CTR_RNDV_SENT,      /* of those, by rendezvous */
    BINDING_CTR_RNDV_RECV,
    BINDING_CTR_PER_TL,         /* the ones above are per transport */
    /* for the whole rank */
    BINDING_CTR_UNEXP_HELD = BINDING_CTR_PER_TL,  /* unexpected messages held now */
    BINDING_CTR_UNEXP_HELD_MAX, /* the most held at once */
    BINDING_CTR_CREDIT_STALLS,  /* eager sends that waited for a credit */
    BINDING_CTR_IDLE_POLICY,    /* 0 unresolved, 1 spin, 2 yield (RTM_IDLE_WAIT) */
    BINDING_CTR_RNDV_COPIES,    /* rendezvous received by CTS + DATA (not get, not inline) */
    BINDING_CTR_COUNT
} binding_counter_t;

/* The current value of a counter; tl is the transport's index (as in
 * binding_tl_name) for the per-transport ones, ignored otherwise. 0 for a
 * transport this rank has not opened, and before rtm_init. */
uint64_t binding_counter(binding_counter_t which, int tl);

/* ---- Intercommunicators and group-collective creation (runtime/comm.c) ----
 *
 * A native intercommunicator is a communicator whose ranks, in point-to-
 * point, name the remote group: its size and world ranks are the remote
 * group's, its rank this process's rank in its own group, and a message's
 * source is the sender's rank in its own group. The binding keeps beside
 * it a "bridge": an intracommunicator of both groups (the side-0 group
 * first, then side 1, each in its rank order) for collectives and for
 * creating communicators from the intercommunicator. All these are
 * collective over the processes named, blocking, and take arguments the
 * binding has checked (valid communicators and ranks). */

/* The bridge of MPI_Intercomm_create: the members of `local` (all
 * calling) and those of the remote group, whose leader remote_leader
 * (rank in `peer`) talks with local_leader (rank in `local`) over `peer`
 * with messages of tag `tag` (its low 28 bits). *side_p: 0 when this
 * group's rank 0 has the lower world rank of the two groups' ranks 0, else
 * 1. */
rtm_status_t binding_comm_bridge(rtm_comm_t local, int local_leader, rtm_comm_t peer,
                                 int remote_leader, int tag, int *side_p,
                                 rtm_comm_t *bridge_p);
/* The intercommunicators of a split of bridge (every member calling):
 * this process's group is the members of its color and side (0 or 1), the
 * remote group the members of its color on the other side, both ordered by
 * (key, bridge rank). RTM_COMM_NULL for color RTM_UNDEFINED or an empty
 * remote group. */
rtm_status_t binding_comm_inter(rtm_comm_t bridge, int color, int side, int key,
                                rtm_comm_t *inter_p);
/* MPI_Comm_create_group: a communicator of the n members of comm whose
 * ranks are members[] (in that order; this process among them), created by
 * those members alone, its id agreed in messages of tag `tag` (low 28
 * bits). */
rtm_status_t binding_comm_group(rtm_comm_t comm, int n, const int *members, int tag,
                                rtm_comm_t *newcomm_p);

/* Context ids agreed by the binding in messages of its own (MPI_Comm_idup,
 * whose agreement is a nonblocking schedule): a slot taken here is out of
 * every other agreement until released or used by binding_comm_clone.
 * binding_ctxid_take_from: the lowest free slot >= start, now taken (-1:
 * none); binding_ctxid_take: 1 if slot was free and is now taken, else 0. */
int binding_ctxid_take_from(int start);
int binding_ctxid_take(int slot);
void binding_ctxid_release(int slot);
/* A communicator of model's members, ranks and remote group, on `slot`
 * (taken by the caller on every member). Local: no message. */
rtm_status_t binding_comm_clone(rtm_comm_t model, int slot, rtm_comm_t *newcomm_p);

/* ---- One-sided memory (runtime/rma.c; issue 15 phase 2) -----------------
 *
 * What the MPI binding builds windows on (mpi/win.c, mpi/rma.c): the native one-sided API of
 * rtmsg.h (rtm_rma_*), without the library-state check, for arguments the
 * binding has checked (comm valid, ranks of it). Same types, same rules:
 * expose (collective over comm) -> key_pack per peer -> the binding sends
 * each peer its key -> the peer key_unpack's it -> put/get/atomic by comm
 * rank and offset -> flush (complete at the target) -> revoke.
 *
 * RTM_ERR_NOT_SUPPORTED, from key_pack, put, get or atomic, is the
 * "not available" status: the transport reaching that rank (tcp, self, shm
 * for atomics) has no such operation, nothing was done, and the binding
 * uses its message path (mpi/rma.c) for that rank. Any other error is an
 * error. put/get/atomic wait (driving progress) only for send-queue room;
 * they never allocate once the transport's registration of the buffer is
 * cached, nor lock, nor log. */
rtm_status_t binding_rma_expose(rtm_comm_t comm, void *addr, size_t len, unsigned rights,
                                rtm_rma_region_t *reg_p);
rtm_status_t binding_rma_key_pack(rtm_rma_region_t reg, int rank, void *blob, size_t *len_p);
rtm_status_t binding_rma_revoke(rtm_rma_region_t reg);
rtm_status_t binding_rma_key_unpack(rtm_comm_t comm, int rank, const void *blob, size_t len,
                                    rtm_rma_key_t *key_p);
rtm_status_t binding_rma_put(rtm_comm_t comm, int rank, const rtm_rma_key_t *key,
                             uint64_t offset, const void *buf, size_t len);
rtm_status_t binding_rma_get(rtm_comm_t comm, int rank, const rtm_rma_key_t *key,
                             uint64_t offset, void *buf, size_t len);
rtm_status_t binding_rma_atomic(rtm_comm_t comm, int rank, const rtm_rma_key_t *key,
                                uint64_t offset, int op, uint64_t operand, uint64_t compare,
                                uint64_t *result_p);
/* rank RTM_ANY_SOURCE: every rank of comm. Returns the first error an
 * operation to that rank completed with since that rank's last flush (for
 * RTM_ANY_SOURCE: to any rank of comm), and clears it: an error of an
 * operation to another rank is never reported here. */
rtm_status_t binding_rma_flush(rtm_comm_t comm, int rank);

#endif
