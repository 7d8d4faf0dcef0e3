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

#include <stdint.h>

/* Message tags on the hidden communicator. Data and replies of operation
 * `seq` (counted per origin-target pair) use their own tag so a receive
 * names exactly its message. */
#define RMA_TAG_HDR   1
#define RMA_TAG_POST  2
#define RMA_TAG_DATA  16
#define RMA_SEQ_MASK  0xfffffu
static inline int rma_tag(uint32_t seq, int reply)
{
    return RMA_TAG_DATA + (int)((seq & RMA_SEQ_MASK) << 1) + reply;
}

enum rma_kind {
    RMA_PUT = 1, RMA_GET, RMA_ACC, RMA_GACC, RMA_CAS,
    RMA_LOCK, RMA_UNLOCK, RMA_FLUSH, RMA_COMPLETE,
};

/* rma_hdr_t.flags */
#define RMA_F_INLINE  1u    /* runs and data follow the header in its message */
#define RMA_F_FENCE   2u    /* issued in a fence epoch: counted for the fence */
#define RMA_F_EXCL    4u    /* lock/unlock: exclusive */
#define RMA_F_NOCHECK 8u    /* unlock of a lock taken with MPI_MODE_NOCHECK */

typedef struct rma_hdr {
    uint32_t kind;
    uint32_t seq;
    uint32_t flags;
    int32_t  op;        /* accumulates: a predefined MPI_Op */
    int32_t  basic;     /* nruns == 0: the basic type of the target data */
    uint32_t nruns;     /* 0: the target data is one byte range at disp */
    int64_t  disp;      /* bytes from the target's base (dynamic: an address) */
    int64_t  bytes;     /* bytes of target data */
    int64_t  dbytes;    /* bytes of data the origin sends (CAS: value, compare) */
} rma_hdr_t;

/* A run of the target datatype (rtmpi_dtype_walk), relative to disp. */
typedef struct rma_run {
    int64_t disp;
    int64_t len;
    int32_t basic;
    int32_t pad;
} rma_run_t;

/* Header messages are at most this long (a receive of this size is posted
 * for them); bigger payloads travel as their own message. */
#define RMA_HDR_MAX 4096

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
    void          *shm;         /* MPI_Win_allocate_shared's mapping */
    size_t         shm_len;
    MPI_Aint      *shm_off;     /* offset of each rank's part in it */
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

/* rma.c: the engine's state of a new window (after its fields above are
 * set) and its end; starts/stops serving it. */
int  rtmpi_rma_win_start(rtmpi_win_t *w);
void rtmpi_rma_win_stop(rtmpi_win_t *w);
/* Waits until every origin-side request of w completes (target -1: all). */
int  rtmpi_rma_wait_pend(rtmpi_win_t *w, int target);
/* Serves w until nothing of it is in flight here. */
void rtmpi_rma_drain(rtmpi_win_t *w);

#endif
