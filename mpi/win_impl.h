/*
 * One-sided communication (win.c: window objects; rma.c: the engine).
 *
 * Phase 1 runs every RMA operation as point-to-point messages of the
 * binding on a hidden duplicate of the window's communicator (its own
 * context: RMA traffic never matches user messages), so it works on every
 * transport. A target serves operations from its progress engine
 * (rtmpi_rma_progress, called by rtmpi_progress while a window exists):
 * one receive of headers from any source is always posted per window, and
 * the headers are applied strictly in the order they arrived (a FIFO), so
 * an unlock, flush or PSCW complete that arrives after an origin's
 * operations is acted on only once they are applied, and accumulates are
 * applied one at a time (element-wise atomic, ordered per origin).
 */
#ifndef RTMPI_WIN_IMPL_H
#define RTMPI_WIN_IMPL_H

#include "mpi_impl.h"

#include <stdatomic.h>
#include <stdint.h>

#include "rma_wire.h"

typedef struct rma_tgt_op rma_tgt_op_t;
typedef struct rma_rreq rma_rreq_t;

/* An origin-side request of the window (data send from the user's buffer,
 * receive of a reply into it). */
typedef struct rma_pend {
    rtmpi_request_t *r;
    int              target;
    rma_rreq_t      *rr;      /* the MPI request of Rput & co., or NULL */
} rma_pend_t;

/* A send of the engine's own (a header, a reply) and the buffer it frees. */
typedef struct rma_send {
    rtm_request_t req;
    void         *buf;
    int           pooled;   /* a header buffer of the pool */
} rma_send_t;

typedef struct rma_waiter {
    int      origin;
    int      excl;
    uint32_t seq;
} rma_waiter_t;

/* A window rank's control block in a host segment (one cache line each,
 * after the ranks' parts): the lock word that accumulates to its part
 * take when single atomic instructions cannot do them (rma_acc.c). */
typedef struct rma_ctl {
    _Atomic uint32_t acc_lock;   /* 0 free, 1 held */
    _Atomic uint32_t plock;      /* passive-target lock (all_local windows):
                                    RMA_PLOCK_EXCL, or the shared holders */
    char             pad[56];
} rma_ctl_t;

#define RMA_PLOCK_EXCL 0x80000000u

typedef struct rma_region {
    uintptr_t base;
    MPI_Aint  len;
} rma_region_t;

typedef struct rtmpi_win {
    int            in_use;
    MPI_Win        handle;
    MPI_Comm       hcomm;       /* hidden duplicate (collectives of the window) */
    rtm_comm_t     nc;          /* its native point-to-point communicator */
    int            rank, size;
    int            flavor;
    void          *base;
    MPI_Aint       win_size;
    int            disp_unit;
    int            model;
    MPI_Aint      *sizes;       /* of every rank */
    int           *disp_units;
    void          *alloc;       /* MPI_Win_allocate's memory */
    void          *shm;         /* the host segment's mapping (allocate_shared; allocate
                                   when ranks of the window share this host) */
    size_t         shm_len;
    MPI_Aint      *shm_off;     /* allocate_shared: offset of each rank's part in it */
    char         **dbase;       /* per window rank: its part in this mapping when it
                                   is in the segment (direct access), else NULL;
                                   the array is NULL without a segment */
    rma_ctl_t    **dctl;        /* per window rank: its control block, or NULL */
    rma_ctl_t     *ctl;         /* this rank's control block, or NULL */
    int            all_local;   /* every window rank is in this process's segment:
                                   passive-target locks are the targets' plock words,
                                   taken and released by the origins */
    unsigned       direct_ops;  /* direct operations and flushes (rma.c polls the
                                   engine every 32nd) */
    /* RDMA (memory semantics; win.c rdma_setup, rma.c): this rank's part
     * exposed to the window's other ranks through binding_rma_expose (NULL:
     * not exposed), each peer given only its own key. rkeys[t]: target t's
     * key for this rank; rrights[t]: the RTM_RMA_* rights of it this rank
     * uses (0: target t is reached by messages, as is every target of a
     * window without these arrays); rdirty[t]: RDMA operations issued to t
     * since its last binding_rma_flush. */
    rtm_rma_region_t rreg;
    rtm_rma_key_t *rkeys;
    unsigned char *rrights;
    unsigned char *rdirty;
    int            nrdirty;     /* targets with rdirty set */
    /* HCA-atomic window (win.c rdma_setup, agreed by every rank): every
     * rank reaches every rank with a nonzero part, itself included (the
     * transport's loopback endpoint), with the atomic right, and no part is
     * in a host segment. Then every accumulate-family update of an aligned
     * 8-byte element goes through the device's atomics (rma.c hca_acc),
     * from every origin: with atomic_cap IBV_ATOMIC_HCA they are atomic
     * only with respect to each other, not to the CPU's. */
    int            hca_atomic;
    /* HCA lock words (win.c rdma_setup, rma.c hlock_*): every rank exposes
     * one 64-byte-aligned word for atomics only (lreg) and every rank,
     * itself included, holds a key for each (lkeys): passive-target locks
     * are RDMA atomics on the target's word, no target CPU (hca_locks,
     * agreed by every rank). */
    uint64_t      *lockw;
    rtm_rma_region_t lreg;
    rtm_rma_key_t *lkeys;
    int            hca_locks;
    int            acc_unordered;   /* info accumulate_ordering=none */
    uint64_t       hca_sink;        /* where the old values of Accumulates land */
    unsigned char *acc_msg;         /* per target: an accumulate went as a message
                                       since the last flush of its messages */
    rma_pend_t    *rdreq;       /* Rput/Rget issued by RDMA: complete (rr released)
                                   when their target is next flushed; a wait or
                                   test of one flushes it (rma.c rr_poll), the
                                   progress engine never does */
    int            nrdreq, rdreq_cap;
    rma_region_t  *regions;     /* dynamic: attached memory */
    int            nregions, regions_cap;
    MPI_Info       info;
    MPI_Errhandler errhandler;
    rtmpi_attr_t  *attrs;
    char           name[MPI_MAX_OBJECT_NAME];

    /* target side */
    rma_tgt_op_t  *posted;      /* receives the next header */
    rma_tgt_op_t  *fifo_head, *fifo_tail;
    uint64_t       fence_applied;   /* fence-epoch operations applied */
    int            ncomplete;       /* PSCW completes received */
    int            lock_excl;       /* origin holding it exclusively, or -1 */
    int            lock_shared;     /* origins holding it shared */
    rma_waiter_t  *waiters;
    int            nwaiters, waiters_cap;
    uint32_t      *range_errs;      /* per origin: operations outside the window
                                       (dynamic: not in attached memory) not yet
                                       reported back */
    int           *expose;          /* PSCW exposure epoch: its origins */
    int            nexpose;         /* -1: no exposure epoch */

    /* origin side */
    uint32_t      *seq;             /* next operation number per target */
    uint32_t      *fseq;            /* per target: seq when a flush last completed
                                       its messages (equal: no message operation
                                       since, so MPI_Win_flush needs no message) */
    uint64_t      *issued;          /* fence-epoch operations per target */
    int           *locked;          /* per target: 0, MPI_LOCK_SHARED/EXCLUSIVE */
    int           *lock_nocheck;
    int            lock_all;        /* 0, 1, or 2 (with MPI_MODE_NOCHECK) */
    int            fence_open;
    int           *access;          /* PSCW access epoch: its targets */
    int            naccess;         /* -1: no access epoch */
    char          *in_access;       /* per target */
    rma_pend_t    *pend;
    int            npend, pend_cap;
    int            pend_err;        /* first error of a completed request */
    rma_send_t    *sends;
    int            nsends, sends_cap;

    struct rtmpi_win *next_active;
} rtmpi_win_t;

extern rtmpi_win_t **rtmpi_wins;
extern int rtmpi_nwins;

static inline rtmpi_win_t *rtmpi_win_get(MPI_Win win)
{
    if (win <= 0 || win >= rtmpi_nwins || !rtmpi_wins[win] || !rtmpi_wins[win]->in_use)
        return NULL;
    return rtmpi_wins[win];
}

/* Raises an error on window w (its handler). */
#define WIN_ERR(_w, _fn, _cls, ...) \
    rtmpi_error_win((_w)->handle, (_w)->errhandler, (_fn), (_cls), __VA_ARGS__)

/* 1 when target t's part of w is in this process's mapping: operations
 * to it are loads, stores and atomics of the origin. */
static inline int rtmpi_win_direct(const rtmpi_win_t *w, int t)
{
    return w->dctl && w->dctl[t];
}

/* rma_acc.c: applies an accumulate (kind RMA_ACC, RMA_GACC or RMA_CAS) to
 * the target data at t (runs relative to t, n of them; CAS: runs[0] is the
 * element) with the packed origin data `data` (CAS: the new value) and
 * `compare` (CAS), leaving the old values packed in `result` (GACC, CAS;
 * NULL for ACC). ctl is the target's control block when its part is in a
 * host segment (atomics and the lock word), else NULL. */
void rtmpi_rma_acc(rma_ctl_t *ctl, uint32_t kind, MPI_Op op, char *t, const rma_run_t *runs,
                   uint32_t n, const char *data, const char *compare, char *result);
void rtmpi_rma_acc_lock(rma_ctl_t *c);
void rtmpi_rma_acc_unlock(rma_ctl_t *c);

/* rma.c: completes every RDMA operation this rank issued to target t
 * (-1: to every target) at the target; an MPI error class. */
int  rtmpi_rma_rdma_flush(rtmpi_win_t *w, int t);

/* rma.c: the engine's state of a new window (after its fields above are
 * set) and its end; starts/stops serving it. */
int  rtmpi_rma_win_start(rtmpi_win_t *w);
void rtmpi_rma_win_stop(rtmpi_win_t *w);
/* Waits until every origin-side request of w completes (target -1: all). */
int  rtmpi_rma_wait_pend(rtmpi_win_t *w, int target);
/* Serves w until nothing of it is in flight here. */
void rtmpi_rma_drain(rtmpi_win_t *w);

#endif
