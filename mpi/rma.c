/*
 * The one-sided engine over the binding's point-to-point (win_impl.h has
 * the design): the target's service of operation headers, the origin's
 * Put/Get/Accumulate/Get_accumulate/Fetch_and_op/Compare_and_swap and
 * their request-based forms, and the synchronization calls (fence, PSCW,
 * locks, flushes, Win_sync).
 */
#include "config.h"

#include "win_impl.h"
#include "intercomm.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rtmpi_rma_nactive;
uint64_t rtmpi_rma_flushes;
static rtmpi_win_t *active;      /* windows served, linked by next_active */
static int in_progress;          /* rtmpi_rma_progress is not reentrant */

/* A header received at the target, then the operation it starts. */
struct rma_tgt_op {
    rma_tgt_op_t *next;
    rtm_request_t req;           /* the header's receive, then runs' or data's */
    int           source;
    int           state;         /* 0 arrived, 1 runs coming, 2 data coming, 3 ready */
    int           zero_copy;     /* the data was received into the window */
    const rma_run_t *runs;
    void         *runs_buf;
    char         *data;
    void         *data_buf;
    union {
        rma_hdr_t h;
        _Alignas(16) char raw[RMA_HDR_MAX];
    } m;
};

/* The MPI request of Rput & co.: a generalized request completed once
 * every origin-side request of the operation has (`left` counts them and
 * the issuer's hold). An Rput/Rget issued by RDMA completes at the next
 * flush of its target (rdma_target, of window w; -1: none): a wait or test
 * of the request flushes that target (rr_poll), the progress engine never
 * does. */
struct rma_rreq {
    MPI_Request  greq;
    int          left;
    int          rdma_target;
    rtmpi_win_t *w;
};

/* Recycled objects: steady-state operations allocate nothing of their own
 * (a non-contiguous target type's run list and big replies excepted). */
static rma_tgt_op_t *tgt_free;
static void **hdr_free;
static int nhdr_free, hdr_free_cap;


static rma_tgt_op_t *tgt_get(void)
{
    rma_tgt_op_t *e = tgt_free;

    if (e)
        tgt_free = e->next;
    else if (!(e = malloc(sizeof(*e))))
        return NULL;
    e->next = NULL;
    e->req = RTM_REQUEST_NULL;
    e->state = 0;
    e->zero_copy = 0;
    e->runs = NULL;
    e->runs_buf = NULL;
    e->data = NULL;
    e->data_buf = NULL;
    return e;
}

static void tgt_put(rma_tgt_op_t *e)
{
    free(e->runs_buf);
    free(e->data_buf);
    e->next = tgt_free;
    tgt_free = e;
}

static void *hdr_get(void)
{
    if (nhdr_free)
        return hdr_free[--nhdr_free];
    return aligned_alloc(16, RMA_HDR_MAX);
}

static void hdr_put(void *b)
{
    if (nhdr_free == hdr_free_cap) {
        int cap = hdr_free_cap ? 2 * hdr_free_cap : 64;
        void **t = realloc(hdr_free, (size_t)cap * sizeof(*t));

        if (!t) {
            free(b);
            return;
        }
        hdr_free = t;
        hdr_free_cap = cap;
    }
    hdr_free[nhdr_free++] = b;
}

/* ---- the engine's own sends ---------------------------------------------------- */

/* Room for one more element in the array whose pointer is at parr, of n
 * elements of elt bytes (capacity *cap; doubled from first when full).
 * 0, or MPI_ERR_NO_MEM. The pointer is copied in and out by memcpy, as it
 * is not a void *. */
static int grow(void *parr, int *cap, int n, size_t elt, int first)
{
    void *a;

    if (n < *cap)
        return MPI_SUCCESS;
    int c = *cap ? 2 * *cap : first;
    memcpy(&a, parr, sizeof(a));
    void *t = realloc(a, (size_t)c * elt);

    if (!t)
        return MPI_ERR_NO_MEM;
    memcpy(parr, &t, sizeof(t));
    *cap = c;
    return MPI_SUCCESS;
}

/* Keeps a started send until it completes; `buf` (pooled: a header
 * buffer) is freed then. */
static int sends_add(rtmpi_win_t *w, rtm_request_t req, void *buf, int pooled)
{
    if (grow(&w->sends, &w->sends_cap, w->nsends, sizeof(*w->sends), 32))
        return MPI_ERR_NO_MEM;
    w->sends[w->nsends].req = req;
    w->sends[w->nsends].buf = buf;
    w->sends[w->nsends].pooled = pooled;
    w->nsends++;
    return MPI_SUCCESS;
}

static int sends_progress(rtmpi_win_t *w)
{
    int n = 0, j = 0;

    for (int i = 0; i < w->nsends; i++) {
        rma_send_t *s = &w->sends[i];
        int flag = 0;

        if (s->req != RTM_REQUEST_NULL)
            rtm_test(&s->req, &flag, RTM_STATUS_IGNORE);
        else
            flag = 1;
        if (flag) {
            if (s->pooled)
                hdr_put(s->buf);
            else
                free(s->buf);
            n++;
        } else {
            w->sends[j++] = *s;
        }
    }
    w->nsends = j;
    return n;
}

static int send_own(rtmpi_win_t *w, const void *p, size_t len, int dst, int tag, void *buf,
                    int pooled)
{
    rtm_request_t req = RTM_REQUEST_NULL;
    rtm_status_t st = rtm_isend(p, len, dst, tag, w->nc, &req);

    if (st != RTM_OK) {
        if (pooled)
            hdr_put(buf);
        else
            free(buf);
        return rtmpi_class_of(st);
    }
    return sends_add(w, req, buf, pooled);
}

/* ---- origin-side requests -------------------------------------------------------- */

static void rr_release(rma_rreq_t *rr)
{
    if (rr && --rr->left == 0) {
        PMPI_Grequest_complete(rr->greq);
        free(rr);
    }
}

static int pend_start(rtmpi_win_t *w, rtmpi_req_kind_t kind, const void *buf, int count,
                      MPI_Datatype dt, int target, int tag, rma_rreq_t *rr)
{
    if (w->npend == w->pend_cap) {
        int cap = w->pend_cap ? 2 * w->pend_cap : 32;
        rma_pend_t *t = realloc(w->pend, (size_t)cap * sizeof(*t));

        if (!t)
            return MPI_ERR_NO_MEM;
        w->pend = t;
        w->pend_cap = cap;
    }
    rtmpi_request_t *r = rtmpi_req_alloc(kind, w->hcomm);
    if (!r)
        return MPI_ERR_NO_MEM;
    int rc = rtmpi_p2p_start(r, kind, buf, count, dt, target, tag, w->nc, RTMPI_SEND_STANDARD);
    if (rc) {
        rtmpi_req_release(r);
        return rc;
    }
    w->pend[w->npend].r = r;
    w->pend[w->npend].target = target;
    w->pend[w->npend].rr = rr;
    w->npend++;
    if (rr)
        rr->left++;
    return MPI_SUCCESS;
}

/* Retires the completed requests; returns how many are left for target
 * (-1: any). */
static int pend_poll(rtmpi_win_t *w, int target)
{
    int j = 0, left = 0;

    for (int i = 0; i < w->npend; i++) {
        rma_pend_t *p = &w->pend[i];

        if (rtmpi_req_poll(p->r)) {
            if (p->r->status.MPI_ERROR && !w->pend_err)
                w->pend_err = p->r->status.MPI_ERROR;
            rtmpi_req_release(p->r);
            rr_release(p->rr);
        } else {
            if (target < 0 || p->target == target)
                left++;
            w->pend[j++] = *p;
        }
    }
    w->npend = j;
    return left;
}

static void spin(unsigned *polls)
{
    if (rtmpi_progress() > 0)
        *polls = 0;
    else
        binding_idle(++*polls);
}

int rtmpi_rma_wait_pend(rtmpi_win_t *w, int target)
{
    unsigned polls = 0;

    while (pend_poll(w, target) > 0)
        spin(&polls);
    int rc = w->pend_err;
    w->pend_err = MPI_SUCCESS;
    return rc;
}

/* ---- passive-target lock words ------------------------------------------------------ */

/* On a window whose ranks all share one segment (all_local) a lock is the
 * target's plock word, taken and released by the origin: it needs nothing
 * of the target. A lock is had as soon as no conflicting lock is held; no
 * preference for waiting exclusive lockers, which could deadlock a program
 * whose shared-lock holder waits for another shared locker (rma_passive's
 * compare-and-swap turns did, at 5 ranks), at the price that a stream of
 * shared locks can hold an exclusive one back. A waiting origin keeps
 * polling the engine. */
static void plock_take(rma_ctl_t *c, int excl)
{
    unsigned polls = 0;

    for (;;) {
        uint32_t v = atomic_load_explicit(&c->plock, memory_order_relaxed);

        if (excl ? v == 0 : !(v & RMA_PLOCK_EXCL)) {
            if (atomic_compare_exchange_weak_explicit(&c->plock, &v,
                                                      excl ? RMA_PLOCK_EXCL : v + 1,
                                                      memory_order_acquire,
                                                      memory_order_relaxed))
                return;
            continue;   /* the word changed meanwhile: look again */
        }
        spin(&polls);
    }
}

static void plock_release(rma_ctl_t *c, int excl)
{
    if (excl)
        atomic_store_explicit(&c->plock, 0, memory_order_release);
    else
        atomic_fetch_sub_explicit(&c->plock, 1, memory_order_release);
}

/* ---- HCA lock words ----------------------------------------------------------------- */

/* On a window with HCA locks (win_impl.h), a passive-target lock is the
 * target's exposed lock word, changed only by RDMA atomics (the origin's
 * own through its loopback endpoint): the target's CPU takes no part.
 * Shared: fetch-and-add 1, had unless the exclusive bit was set (then
 * subtract it again and wait for the bit to clear); exclusive:
 * compare-and-swap 0 -> HLOCK_EXCL. The same rule as the plock words
 * above: no preference for waiting exclusive lockers. A waiting origin
 * reads the word (fetch-and-add 0) between polls of the engine. */
#define HLOCK_EXCL (1ull << 32)

static int hca_sync_key(rtmpi_win_t *w, int t, const rtm_rma_key_t *key, uint64_t roff, int op,
                        uint64_t operand, uint64_t compare, uint64_t *res);

static int hlock_take(rtmpi_win_t *w, int t, int excl)
{
    const rtm_rma_key_t *k = &w->lkeys[t];
    unsigned polls = 0;
    uint64_t old;
    int rc;

    for (;;) {
        if (excl)
            rc = hca_sync_key(w, t, k, 0, RTM_RMA_CSWAP, HLOCK_EXCL, 0, &old);
        else
            rc = hca_sync_key(w, t, k, 0, RTM_RMA_FADD, 1, 0, &old);
        if (rc)
            return -rc;
        if (excl ? old == 0 : !(old & HLOCK_EXCL))
            return MPI_SUCCESS;
        if (!excl && (rc = hca_sync_key(w, t, k, 0, RTM_RMA_FADD, (uint64_t)-1, 0, &old)))
            return -rc;
        do {   /* until it may be had */
            spin(&polls);
            if ((rc = hca_sync_key(w, t, k, 0, RTM_RMA_FADD, 0, 0, &old)))
                return -rc;
        } while (excl ? old != 0 : (old & HLOCK_EXCL) != 0);
    }
}

static int hlock_release(rtmpi_win_t *w, int t, int excl)
{
    uint64_t old;
    int rc = hca_sync_key(w, t, &w->lkeys[t], 0, RTM_RMA_FADD,
                          excl ? (uint64_t)0 - HLOCK_EXCL : (uint64_t)-1, 0, &old);

    return rc ? -rc : MPI_SUCCESS;
}

/* ---- the target's service ---------------------------------------------------------- */

static int post_hdr(rtmpi_win_t *w)
{
    rma_tgt_op_t *e = tgt_get();

    if (!e)
        return MPI_ERR_NO_MEM;
    rtm_status_t st = rtm_irecv(e->m.raw, RMA_HDR_MAX, RTM_ANY_SOURCE, RMA_TAG_HDR, w->nc,
                                &e->req);
    if (st != RTM_OK) {
        tgt_put(e);
        return rtmpi_class_of(st);
    }
    w->posted = e;
    return MPI_SUCCESS;
}

static int reply(rtmpi_win_t *w, int dst, uint32_t seq, const void *p, size_t len, void *buf)
{
    return send_own(w, p, len, dst, rma_tag(seq, 1), buf, 0);
}

/* A reply buffer of `bytes`, zeroed: from the header pool when it fits. */
static void *reply_buf(size_t bytes, int *pooled)
{
    void *b;

    *pooled = bytes <= RMA_HDR_MAX;
    b = *pooled ? hdr_get() : malloc(bytes ? bytes : 1);
    if (b)
        memset(b, 0, bytes ? bytes : 1);
    return b;
}

static void reply_data(rtmpi_win_t *w, int dst, uint32_t seq, void *buf, size_t bytes,
                       int pooled)
{
    send_own(w, buf, buf ? bytes : 0, dst, rma_tag(seq, 1), buf, pooled);
}

/* The answer to a lock, unlock or flush: how many of the origin's
 * operations fell outside the window since the last answer. */
static void ack(rtmpi_win_t *w, int dst, uint32_t seq, int report)
{
    uint32_t *b = hdr_get();

    if (!b) {
        send_own(w, NULL, 0, dst, rma_tag(seq, 1), NULL, 0);   /* the origin sees 0 */
        return;
    }
    *b = report ? w->range_errs[dst] : 0;
    if (report)
        w->range_errs[dst] = 0;
    send_own(w, b, sizeof(*b), dst, rma_tag(seq, 1), b, 1);
}

static int lock_can(const rtmpi_win_t *w, int excl)
{
    return w->lock_excl < 0 && (!excl || w->lock_shared == 0);
}

static void lock_take(rtmpi_win_t *w, int origin, int excl, uint32_t seq)
{
    if (excl)
        w->lock_excl = origin;
    else
        w->lock_shared++;
    ack(w, origin, seq, 0);   /* a grant reports nothing: the epoch begins */
}

/* The target's lock queue (origins on other hosts, and every origin of a
 * window that spans hosts) grants as the plock words do: a lock as soon as
 * no conflicting one is held, whatever waits before it. A queue that kept
 * a shared request behind a waiting exclusive one would hang a correct
 * program whose shared holder waits for that second shared locker
 * (rma_locks' shared_while_exclusive_waits); the price is the same as the
 * words': overlapping shared locks can hold an exclusive one back. */
static void lock_grant_waiters(rtmpi_win_t *w)
{
    int kept = 0;

    for (int i = 0; i < w->nwaiters; i++) {
        if (lock_can(w, w->waiters[i].excl))
            lock_take(w, w->waiters[i].origin, w->waiters[i].excl, w->waiters[i].seq);
        else
            w->waiters[kept++] = w->waiters[i];
    }
    w->nwaiters = kept;
}

static void lock_request(rtmpi_win_t *w, int origin, int excl, uint32_t seq)
{
    if (lock_can(w, excl)) {
        lock_take(w, origin, excl, seq);
        return;
    }
    if (w->nwaiters == w->waiters_cap) {
        int cap = w->waiters_cap ? 2 * w->waiters_cap : 8;
        rma_waiter_t *t = realloc(w->waiters, (size_t)cap * sizeof(*t));

        if (!t)
            rtm_abort(MPI_ERR_NO_MEM, "MPI_Win_lock: out of memory for a lock waiter");
        w->waiters = t;
        w->waiters_cap = cap;
    }
    w->waiters[w->nwaiters].origin = origin;
    w->waiters[w->nwaiters].excl = excl;
    w->waiters[w->nwaiters].seq = seq;
    w->nwaiters++;
}

/* The target bytes [disp + lo, disp + hi) lie in the window (dynamic: in
 * attached memory). The origin checked already where it could. */
static char *tgt_addr(const rtmpi_win_t *w, int64_t disp, int64_t lo, int64_t hi)
{
    if (hi <= lo)
        return w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? (char *)(uintptr_t)disp
                                                   : (char *)w->base + disp;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        uintptr_t a = (uintptr_t)disp + (uintptr_t)lo, b = (uintptr_t)disp + (uintptr_t)hi;

        for (int i = 0; i < w->nregions; i++)
            if (a <= b && a >= w->regions[i].base &&
                b <= w->regions[i].base + (uintptr_t)w->regions[i].len)
                return (char *)(uintptr_t)disp;
        return NULL;
    }
    /* disp comes from the origin's header: sums past int64 are out of range */
    int64_t first, end;
    if (__builtin_add_overflow(disp, lo, &first) || __builtin_add_overflow(disp, hi, &end) ||
        first < 0 || end > w->win_size)
        return NULL;
    return (char *)w->base + disp;
}

static void runs_bounds(const rma_run_t *runs, uint32_t n, int64_t *lo, int64_t *hi)
{
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    for (uint32_t i = 0; i < n; i++) {
        if (runs[i].disp < *lo)
            *lo = runs[i].disp;
        if (runs[i].disp + runs[i].len > *hi)
            *hi = runs[i].disp + runs[i].len;
    }
    if (n == 0)
        *lo = *hi = 0;
}

static void scatter(char *t, const rma_run_t *runs, uint32_t n, const char *data)
{
    for (uint32_t i = 0; i < n; i++) {
        memcpy(t + runs[i].disp, data, (size_t)runs[i].len);
        data += runs[i].len;
    }
}

static void gather(char *out, const char *t, const rma_run_t *runs, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        memcpy(out, t + runs[i].disp, (size_t)runs[i].len);
        out += runs[i].len;
    }
}

static int kind_has_data(uint32_t kind)
{
    return kind == RMA_PUT || kind == RMA_ACC || kind == RMA_GACC || kind == RMA_CAS;
}

/* A Get_accumulate whose reply buffer could not be had: the op is still
 * applied (the origin gets zeros, as before). */
static void rma_acc_noreply(rtmpi_win_t *w, const rma_hdr_t *h, char *t, const rma_run_t *runs,
                            uint32_t n, const char *data)
{
    if (h->op != MPI_NO_OP)
        rtmpi_rma_acc(w->ctl, RMA_ACC, h->op, t, runs, n, data, NULL, NULL);
}

/* Applies a ready operation (state 3). */
static void tgt_apply(rtmpi_win_t *w, rma_tgt_op_t *e)
{
    const rma_hdr_t *h = &e->m.h;
    rma_run_t one = { 0, h->bytes, h->basic, 0 };
    const rma_run_t *runs = h->nruns ? e->runs : &one;
    uint32_t n = h->nruns ? h->nruns : 1;
    int64_t lo = 0, hi = h->bytes;
    int src = e->source;

    if (h->nruns)
        runs_bounds(runs, n, &lo, &hi);
    char *t = kind_has_data(h->kind) || h->kind == RMA_GET ? tgt_addr(w, h->disp, lo, hi) : NULL;
    size_t bytes = (size_t)h->bytes;
    char *buf;

    int pooled;

    if (!t && h->bytes > 0 && (kind_has_data(h->kind) || h->kind == RMA_GET))
        w->range_errs[src]++;
    switch (h->kind) {
    case RMA_PUT:
        if (t && !e->zero_copy)
            scatter(t, runs, n, e->data);
        break;
    case RMA_GET:
        if (t && h->nruns == 0) {
            reply(w, src, h->seq, t, bytes, NULL);   /* straight from the window */
            break;
        }
        buf = reply_buf(bytes, &pooled);
        if (buf && t)
            gather(buf, t, runs, n);
        reply_data(w, src, h->seq, buf, bytes, pooled);
        break;
    /* Under the same atomics and lock word as origins on this host that
     * apply theirs directly (rma_acc.c). */
    case RMA_ACC:
        if (t)
            rtmpi_rma_acc(w->ctl, RMA_ACC, h->op, t, runs, n, e->data, NULL, NULL);
        break;
    case RMA_GACC:
        buf = reply_buf(bytes, &pooled);
        if (t && buf)
            rtmpi_rma_acc(w->ctl, RMA_GACC, h->op, t, runs, n, e->data, NULL, buf);
        else if (t)
            rma_acc_noreply(w, h, t, runs, n, e->data);
        reply_data(w, src, h->seq, buf, bytes, pooled);
        break;
    case RMA_CAS:
        buf = reply_buf(bytes, &pooled);
        if (buf && t)
            rtmpi_rma_acc(w->ctl, RMA_CAS, MPI_REPLACE, t, runs, n, e->data, e->data + bytes,
                          buf);
        reply_data(w, src, h->seq, buf, bytes, pooled);
        break;
    case RMA_LOCK:
        lock_request(w, src, (h->flags & RMA_F_EXCL) != 0, h->seq);
        break;
    case RMA_UNLOCK:
        if (!(h->flags & RMA_F_NOCHECK)) {
            if (h->flags & RMA_F_EXCL)
                w->lock_excl = -1;
            else if (w->lock_shared > 0)
                w->lock_shared--;
            lock_grant_waiters(w);
        }
        ack(w, src, h->seq, 1);
        break;
    case RMA_FLUSH:
        ack(w, src, h->seq, 1);
        break;
    case RMA_COMPLETE:
        w->ncomplete++;
        break;
    default:
        break;
    }
    if (h->flags & RMA_F_FENCE)
        w->fence_applied++;
}

static int test_req(rtm_request_t *req)
{
    int flag = 1;

    if (*req != RTM_REQUEST_NULL)
        rtm_test(req, &flag, RTM_STATUS_IGNORE);
    return flag;
}

/* Moves operation e on; 1 once applied. */
/* A message no origin of this library sends (rma_wire.c said why): a bug or
 * corruption inside the job, so the job ends, naming both ends. */
static __attribute__((noreturn, cold)) void corrupt(const rtmpi_win_t *w, int source,
                                                    const char *what, size_t bytes,
                                                    const char *why)
{
    char msg[256];

    snprintf(msg, sizeof(msg), "one-sided target (window rank %d): %s of %zu bytes from window "
             "rank %d is not one librtmsg sends: %s", w->rank, what, bytes, source, why);
    rtm_abort(MPI_ERR_INTERN, msg);
}

static int tgt_advance(rtmpi_win_t *w, rma_tgt_op_t *e)
{
    const rma_hdr_t *h = &e->m.h;
    size_t dbytes = (size_t)h->dbytes;

    if (e->state == 0) {
        if (h->flags & RMA_F_INLINE) {
            e->runs = (const rma_run_t *)(const void *)(e->m.raw + sizeof(rma_hdr_t));
            e->data = e->m.raw + rma_data_off(h->nruns);
            e->state = 3;
        } else {
            if (h->nruns) {
                size_t rb = (size_t)h->nruns * sizeof(rma_run_t);

                e->runs_buf = malloc(rb);
                if (!e->runs_buf ||
                    rtm_irecv(e->runs_buf, rb, e->source, rma_tag(h->seq, 0), w->nc,
                              &e->req) != RTM_OK)
                    rtm_abort(MPI_ERR_NO_MEM, "one-sided target: cannot receive a run list");
                e->runs = e->runs_buf;
            }
            e->state = 1;
        }
    }
    if (e->state == 1) {
        if (!test_req(&e->req))
            return 0;
        const char *bad = h->nruns ? rma_runs_invalid(h, e->runs) : NULL;
        if (bad)
            corrupt(w, e->source, "a run list", (size_t)h->nruns * sizeof(rma_run_t), bad);
        if (dbytes) {
            char *t = NULL;

            if (h->kind == RMA_PUT && h->nruns == 0)
                t = tgt_addr(w, h->disp, 0, h->bytes);
            if (t && dbytes == (size_t)h->bytes) {
                e->data = t;            /* zero-copy: straight into the window */
                e->zero_copy = 1;
            } else {
                e->data = e->data_buf = malloc(dbytes);
                if (!e->data)
                    rtm_abort(MPI_ERR_NO_MEM, "one-sided target: out of memory for data");
            }
            if (rtm_irecv(e->data, dbytes, e->source, rma_tag(h->seq, 0), w->nc, &e->req) !=
                RTM_OK)
                rtm_abort(MPI_ERR_INTERN, "one-sided target: cannot receive data");
        }
        e->state = 2;
    }
    if (e->state == 2) {
        if (!test_req(&e->req))
            return 0;
        e->state = 3;
    }
    tgt_apply(w, e);
    return 1;
}

static int win_progress(rtmpi_win_t *w)
{
    int n = 0;

    while (w->posted) {
        rma_tgt_op_t *e = w->posted;
        rtm_msg_status_t ns;
        int flag = 0;

        rtm_test(&e->req, &flag, &ns);
        if (!flag)
            break;
        e->source = ns.source;
        const char *bad = rma_hdr_invalid(&e->m.h, ns.count);
        if (!bad && (e->m.h.flags & RMA_F_INLINE))
            bad = rma_runs_invalid(&e->m.h,
                                   (const rma_run_t *)(const void *)(e->m.raw + sizeof(rma_hdr_t)));
        if (bad)
            corrupt(w, ns.source, "a message", ns.count, bad);
        e->next = NULL;
        if (w->fifo_tail)
            w->fifo_tail->next = e;
        else
            w->fifo_head = e;
        w->fifo_tail = e;
        w->posted = NULL;
        if (post_hdr(w))
            rtm_abort(MPI_ERR_NO_MEM, "one-sided target: cannot post the header receive");
        n++;
    }
    while (w->fifo_head && tgt_advance(w, w->fifo_head)) {
        rma_tgt_op_t *e = w->fifo_head;

        w->fifo_head = e->next;
        if (!w->fifo_head)
            w->fifo_tail = NULL;
        tgt_put(e);
        n++;
    }
    if (w->nsends)
        n += sends_progress(w);
    if (w->npend)
        pend_poll(w, -1);
    return n;
}

/* The progress engine serves targets and retires origin-side requests; it
 * never flushes (a flush may block): an Rput/Rget issued by RDMA is
 * completed by its own wait or test (rr_poll) or a synchronization call. */
int rtmpi_rma_progress(void)
{
    int n = 0;

    if (in_progress)
        return 0;
    in_progress = 1;
    for (rtmpi_win_t *w = active; w; w = w->next_active)
        n += win_progress(w);
    in_progress = 0;
    return n;
}

int rtmpi_rma_win_start(rtmpi_win_t *w)
{
    int rc = post_hdr(w);

    if (rc)
        return rc;
    w->next_active = active;
    active = w;
    rtmpi_rma_nactive++;
    return MPI_SUCCESS;
}

void rtmpi_rma_drain(rtmpi_win_t *w)
{
    unsigned polls = 0;

    while (w->fifo_head || w->nsends || w->npend)
        spin(&polls);
}

void rtmpi_rma_win_stop(rtmpi_win_t *w)
{
    for (rtmpi_win_t **pp = &active; *pp; pp = &(*pp)->next_active)
        if (*pp == w) {
            *pp = w->next_active;
            rtmpi_rma_nactive--;
            break;
        }
    if (w->posted) {
        rtm_cancel(w->posted->req);
        rtm_wait(&w->posted->req, RTM_STATUS_IGNORE);
        tgt_put(w->posted);
        w->posted = NULL;
    }
    while (w->fifo_head) {
        rma_tgt_op_t *e = w->fifo_head;

        w->fifo_head = e->next;
        tgt_put(e);
    }
    w->fifo_tail = NULL;
    free(w->rdreq);
    w->rdreq = NULL;
    w->nrdreq = w->rdreq_cap = 0;
    if (!active) {
        /* Nothing served any more: give the pools back. */
        while (tgt_free) {
            rma_tgt_op_t *e = tgt_free;

            tgt_free = e->next;
            free(e);
        }
        while (nhdr_free)
            free(hdr_free[--nhdr_free]);
        free(hdr_free);
        hdr_free = NULL;
        hdr_free_cap = 0;
    }
}

/* ---- the origin: issuing operations ------------------------------------------------ */

typedef struct rma_args {
    uint32_t     kind;
    const void  *oaddr;
    int          ocount;
    MPI_Datatype odt;
    void        *raddr;
    int          rcount;
    MPI_Datatype rdt;
    const void  *caddr;
    int          target;
    MPI_Aint     tdisp;
    int          tcount;
    MPI_Datatype tdt;
    MPI_Op       op;
} rma_args_t;

/* Flattening the target datatype: count, then fill. */
struct runs_fill {
    rma_run_t *runs;
    uint32_t   n;
};

static int run_count(MPI_Aint disp, MPI_Aint len, int basic, void *arg)
{
    (void)disp; (void)len; (void)basic;
    ((struct runs_fill *)arg)->n++;
    return 0;
}

static int run_fill(MPI_Aint disp, MPI_Aint len, int basic, void *arg)
{
    struct runs_fill *f = arg;
    rma_run_t *r = &f->runs[f->n++];

    r->disp = disp;
    r->len = len;
    r->basic = basic;
    r->pad = 0;
    return 0;
}

/* The epoch an operation to target runs in: RMA_F_FENCE for a fence
 * epoch, 0 for a lock or PSCW epoch, -1 for none. */
static int epoch_of(const rtmpi_win_t *w, int target)
{
    if (w->lock_all || w->locked[target] || (w->naccess >= 0 && w->in_access[target]))
        return 0;
    if (w->fence_open)
        return (int)RMA_F_FENCE;
    return -1;
}

static int is_accumulate(uint32_t kind)
{
    return kind == RMA_ACC || kind == RMA_GACC;
}

/* Put/Get on a shared window: tp is the target data's address in this
 * process's mapping; runs (n of them) when the target type is not one
 * byte range. */
static int shm_copy(const rma_args_t *a, const rtmpi_dtype_t *od, char *tp,
                    const rma_run_t *runs, uint32_t n, size_t tbytes)
{
    if (tbytes == 0)
        return MPI_SUCCESS;
    if (n == 0) {
        if (a->kind == RMA_PUT)
            rtmpi_pack(a->oaddr, a->ocount, od, tp);
        else
            rtmpi_unpack(tp, tbytes, (void *)a->oaddr, a->ocount, od);
        return MPI_SUCCESS;
    }
    char *tmp = malloc(tbytes);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    if (a->kind == RMA_PUT) {
        rtmpi_pack(a->oaddr, a->ocount, od, tmp);
        scatter(tp, runs, n, tmp);
    } else {
        gather(tmp, tp, runs, n);
        rtmpi_unpack(tmp, tbytes, (void *)a->oaddr, a->ocount, od);
    }
    free(tmp);
    return MPI_SUCCESS;
}

/* Direct operations need no progress of their own, but a rank that loops
 * on them (a compare-and-swap spin, say) must still serve the others'
 * messages: lock requests, operations from other hosts. Every 32nd one
 * polls the engine. */
static inline void direct_poll(rtmpi_win_t *w)
{
    if ((++w->direct_ops & 31) == 0)
        rtmpi_progress();
}

/* The buffers of an accumulate applied by this process (direct_acc,
 * hca_acc): *data the origin data (the user's buffer when contiguous, else
 * packed into sdata or the heap), *res where the old values go (the user's
 * result buffer when contiguous and its address a multiple of `align`,
 * else sres or the heap: *unpack set, the caller unpacks them). sdata and
 * sres hold ACC_STACK bytes; *heap (2 * tbytes, or NULL) is the caller's
 * to free, also on an error. 0 or MPI_ERR_NO_MEM. */
#define ACC_STACK 256

static int acc_bufs(const rma_args_t *a, const rtmpi_dtype_t *od, const rtmpi_dtype_t *rd,
                    size_t tbytes, uintptr_t align, char *sdata, char *sres, char **heap,
                    const char **data, char **res, int *unpack)
{
    MPI_Aint off;

    *heap = NULL;
    *data = NULL;
    *res = NULL;
    *unpack = 0;
    if (a->kind == RMA_CAS) {
        *data = a->oaddr;          /* predefined type: one element */
    } else if (od && !(a->kind == RMA_GACC && a->op == MPI_NO_OP)) {
        if (rtmpi_dtype_contig(od, a->ocount, &off)) {
            *data = (const char *)a->oaddr + off;
        } else {
            char *b = tbytes <= ACC_STACK ? sdata : (*heap = malloc(2 * tbytes));

            if (!b)
                return MPI_ERR_NO_MEM;
            rtmpi_pack(a->oaddr, a->ocount, od, b);
            *data = b;
        }
    }
    if (a->kind == RMA_GACC || a->kind == RMA_CAS) {
        if (rtmpi_dtype_contig(rd, a->rcount, &off) &&
            ((uintptr_t)a->raddr + (uintptr_t)off) % align == 0) {
            *res = (char *)a->raddr + off;
        } else {
            if (tbytes <= ACC_STACK) {
                *res = sres;
            } else {
                if (!*heap && !(*heap = malloc(2 * tbytes)))
                    return MPI_ERR_NO_MEM;
                *res = *heap + tbytes;
            }
            *unpack = 1;
        }
    }
    return MPI_SUCCESS;
}

/* An accumulate, Get_accumulate, Fetch_and_op or Compare_and_swap applied
 * by the origin to a target part at tp (runs, n of them, when the target
 * type is not one byte range). Origin data and results go straight from
 * and to the user's buffers when they are contiguous; else through a
 * buffer on the stack (malloc'ed beyond it). */
static int direct_acc(const rma_args_t *a, rma_ctl_t *ctl, const rtmpi_dtype_t *od,
                      const rtmpi_dtype_t *rd, const rtmpi_dtype_t *td, char *tp,
                      const rma_run_t *runs, uint32_t n, size_t tbytes)
{
    _Alignas(16) char sdata[ACC_STACK], sres[ACC_STACK];
    char *heap = NULL, *res = NULL;
    const char *data = NULL;
    int need_unpack = 0, rc;

    if (tbytes == 0)
        return MPI_SUCCESS;
    rc = acc_bufs(a, od, rd, tbytes, 1, sdata, sres, &heap, &data, &res, &need_unpack);
    if (rc) {
        free(heap);
        return rc;
    }
    rma_run_t one = { 0, (int64_t)tbytes, td->basic, 0 };
    rtmpi_rma_acc(ctl, a->kind, a->op, tp, n ? runs : &one, n ? n : 1, data,
                  a->kind == RMA_CAS ? a->caddr : NULL, res);
    if (need_unpack)
        rtmpi_unpack(res, tbytes, a->raddr, a->rcount, rd);
    free(heap);
    return MPI_SUCCESS;
}

/* ---- RDMA: Put and Get by the binding's one-sided operations -------------------------- */

/* The Rput/Rget requests issued by RDMA to target t are complete (t was
 * just flushed; err: the flush's error, kept for the window's next
 * synchronization as the other requests' errors are). */
static void rdreq_release(rtmpi_win_t *w, int t, int err)
{
    int j = 0;

    for (int i = 0; i < w->nrdreq; i++) {
        if (w->rdreq[i].target == t) {
            if (err && !w->pend_err)
                w->pend_err = err;
            rr_release(w->rdreq[i].rr);
        } else {
            w->rdreq[j++] = w->rdreq[i];
        }
    }
    w->nrdreq = j;
}

/* Request rr (Rput, Rget) was issued by RDMA to t: it completes at the
 * next flush of t. 0, or MPI_ERR_NO_MEM (the caller flushes t now). */
static int rdreq_add(rtmpi_win_t *w, rma_rreq_t *rr, int t)
{
    if (grow(&w->rdreq, &w->rdreq_cap, w->nrdreq, sizeof(*w->rdreq), 8))
        return MPI_ERR_NO_MEM;
    w->rdreq[w->nrdreq].r = NULL;
    w->rdreq[w->nrdreq].target = t;
    w->rdreq[w->nrdreq].rr = rr;
    w->nrdreq++;
    rr->left++;
    rr->w = w;
    rr->rdma_target = t;
    return MPI_SUCCESS;
}

/* The poll function of an Rput/Rget request (rtmpi_greq_set_poll), called
 * by a wait or test that finds it not complete: one issued by RDMA to
 * target t completes by a flush of t (which releases every request to t;
 * rr may be freed on return); any other completes as its messages do. */
static int rr_poll(void *state)
{
    rma_rreq_t *rr = state;
    rtmpi_win_t *w = rr->w;
    int t = rr->rdma_target;

    if (t < 0)
        return 0;
    if (w->rdirty && w->rdirty[t])
        rtmpi_rma_rdma_flush(w, t);
    else
        rdreq_release(w, t, MPI_SUCCESS);   /* t was flushed since */
    return 1;
}

int rtmpi_rma_rdma_flush(rtmpi_win_t *w, int t)
{
    int rc = MPI_SUCCESS;

    /* A rank that spins on RDMA (Get + Win_flush until a flag flips) must
     * still serve what reaches its windows as messages (an accumulate a
     * peer's flush waits for): the binding's flush drives only the runtime.
     * Not reentrant: from inside rtmpi_rma_progress this returns at once. */
    rtmpi_rma_progress();
    if (!w->rdirty || w->nrdirty == 0)
        return MPI_SUCCESS;
    for (int i = t < 0 ? 0 : t; i < (t < 0 ? w->size : t + 1); i++) {
        if (!w->rdirty[i])
            continue;
        w->rdirty[i] = 0;
        w->nrdirty--;
        rtmpi_rma_flushes++;
        rtm_status_t st = binding_rma_flush(w->nc, i);
        if (st != RTM_OK && !rc)
            rc = rtmpi_class_of(st);
        if (w->nrdreq)
            rdreq_release(w, i, st != RTM_OK ? rtmpi_class_of(st) : MPI_SUCCESS);
    }
    return rc;
}

/* An RDMA operation was issued to t: complete it at t's next flush. */
static inline void rdirty_mark(rtmpi_win_t *w, int t)
{
    if (!w->rdirty[t]) {
        w->rdirty[t] = 1;
        w->nrdirty++;
    }
}

/* Target runs beyond this go as one message (with its run list) rather
 * than one RDMA operation each. */
#define RMA_RDMA_RUNS_MAX 16

/* A Put or Get of contiguous origin data to target t's part: one RDMA
 * write or read of [off, off + tbytes) (n 0), or one per target run (runs,
 * n of them, displacements relative to off; the origin data in the runs'
 * order), when t gave this rank a key with that right. 1: issued (complete
 * at the target at the next flush of t), 0: not possible (t is reached by
 * messages for it from now on when the transport said "not available"),
 * or -(class) on an error. No allocation: the hot path of a one-sided
 * program. */
static int rdma_issue(rtmpi_win_t *w, const rma_args_t *a, const rtmpi_dtype_t *od, int t,
                      int64_t off, size_t tbytes, const rma_run_t *runs, uint32_t n)
{
    unsigned right = a->kind == RMA_PUT ? RTM_RMA_WRITE : RTM_RMA_READ;
    rma_run_t one = { 0, (int64_t)tbytes, 0, 0 };
    MPI_Aint ooff;
    rtm_status_t st = RTM_OK;

    if (!w->rrights || !(w->rrights[t] & right) || tbytes == 0 || n > RMA_RDMA_RUNS_MAX ||
        !rtmpi_dtype_contig(od, a->ocount, &ooff))
        return 0;
    if (n == 0) {
        runs = &one;
        n = 1;
    }
    for (uint32_t i = 0; i < n && st == RTM_OK; i++) {
        uint64_t roff = (uint64_t)(off + runs[i].disp);

        if (a->kind == RMA_PUT)
            st = binding_rma_put(w->nc, t, &w->rkeys[t], roff, (const char *)a->oaddr + ooff,
                                 (size_t)runs[i].len);
        else
            st = binding_rma_get(w->nc, t, &w->rkeys[t], roff, (char *)a->oaddr + ooff,
                                 (size_t)runs[i].len);
        ooff += (MPI_Aint)runs[i].len;
        /* the first one says whether the transport has the op: the others
         * use the same key and right */
        if (__builtin_expect(st == RTM_ERR_NOT_SUPPORTED && i == 0, 0)) {
            w->rrights[t] &= (unsigned char)~right;
            return 0;
        }
    }
    if (__builtin_expect(st != RTM_OK, 0))
        return -rtmpi_class_of(st);
    rdirty_mark(w, t);
    return 1;
}

/* ---- accumulates by the device's atomics (an HCA-atomic window) ---------------------- */

static int ctrl_all(rtmpi_win_t *w, const int *ts, int n, uint32_t kind, uint32_t flags);

/* An 8-byte integer type: SUM is the device's fetch-and-add. */
static int hca_int64(int basic)
{
    switch (basic) {
    case MPI_LONG: case MPI_UNSIGNED_LONG: case MPI_LONG_LONG_INT:
    case MPI_UNSIGNED_LONG_LONG: case MPI_INT64_T: case MPI_UINT64_T: case MPI_AINT:
    case MPI_COUNT: case MPI_OFFSET: case MPI_INTEGER8:
        return rtmpi_basic_size(basic) == 8;
    default:
        return 0;
    }
}

/* An 8-byte basic type of one member (no pair): the device's atomics change
 * its elements in an HCA-atomic window (the others: compare-and-swap loops). */
static int hca_elem(int basic)
{
    switch (basic) {
    case MPI_DOUBLE: case MPI_DOUBLE_PRECISION: case MPI_REAL8: case MPI_C_FLOAT_COMPLEX:
    case MPI_COMPLEX: case MPI_CXX_FLOAT_COMPLEX:
        return rtmpi_basic_size(basic) == 8;
    default:
        return hca_int64(basic);
    }
}

/* One atomic on target t's word at roff of the region of key (its part:
 * &w->rkeys[t]; its lock word: &w->lkeys[t]); *res (aligned) gets the old
 * value when it completes (at the next flush of t). 0 or -(class). */
static int hca_post_key(rtmpi_win_t *w, int t, const rtm_rma_key_t *key, uint64_t roff, int op,
                        uint64_t operand, uint64_t compare, uint64_t *res)
{
    rtm_status_t st = binding_rma_atomic(w->nc, t, key, roff, op, operand, compare, res);

    if (__builtin_expect(st != RTM_OK, 0))
        return -rtmpi_class_of(st);
    rdirty_mark(w, t);
    return 0;
}

static int hca_post(rtmpi_win_t *w, int t, uint64_t roff, int op, uint64_t operand,
                    uint64_t compare, uint64_t *res)
{
    return hca_post_key(w, t, &w->rkeys[t], roff, op, operand, compare, res);
}

/* Posts one atomic and waits for it. */
static int hca_sync_key(rtmpi_win_t *w, int t, const rtm_rma_key_t *key, uint64_t roff, int op,
                        uint64_t operand, uint64_t compare, uint64_t *res)
{
    int rc = hca_post_key(w, t, key, roff, op, operand, compare, res);

    if (rc)
        return rc;
    rc = rtmpi_rma_rdma_flush(w, t);
    return rc ? -rc : 0;
}

/* Elements a compare-and-swap loop takes at once (its reads, then its
 * swaps, each posted together and waited for with one flush). */
#define HCA_BATCH 32

/* Any op on m (<= HCA_BATCH) elements at roff[0..m), through the device:
 * read them (fetch-and-add of 0), compute, compare-and-swap, again from the
 * value found for those whose swap did not take. The origin's elements are
 * data + 8 * k[i] (any alignment); the values they replaced go to
 * res + 8 * k[i] when res is not NULL. Each element is changed atomically
 * on its own (MPI's atomicity is element-wise); all are done on return. */
static int hca_loop(rtmpi_win_t *w, int t, const uint64_t *roff, const size_t *k, int m,
                    MPI_Op op, int basic, const char *data, char *res)
{
    union { uint64_t u; double d; char b[8]; } v, nv;
    uint64_t old[HCA_BATCH], got[HCA_BATCH];
    unsigned char todo[HCA_BATCH];
    int rc = 0, left = m;

    for (int i = 0; i < m && !rc; i++)
        rc = hca_post(w, t, roff[i], RTM_RMA_FADD, 0, 0, &old[i]);
    if (!rc && (rc = rtmpi_rma_rdma_flush(w, t)))
        rc = -rc;
    memset(todo, 1, sizeof(todo));
    while (!rc && left > 0) {
        for (int i = 0; i < m && !rc; i++) {
            if (!todo[i])
                continue;
            memcpy(v.b, data + 8 * k[i], 8);
            if (op == MPI_REPLACE) {
                nv.u = v.u;
            } else {
                nv.u = old[i];
                rtmpi_op_apply(op, v.b, nv.b, 1, basic);
            }
            if (nv.u == old[i]) {   /* no change (MAX of a smaller value, ...) */
                todo[i] = 0;
                left--;
                continue;
            }
            rc = hca_post(w, t, roff[i], RTM_RMA_CSWAP, nv.u, old[i], &got[i]);
        }
        if (!rc && (rc = rtmpi_rma_rdma_flush(w, t)))
            rc = -rc;
        for (int i = 0; i < m && !rc; i++) {
            if (!todo[i])
                continue;
            if (got[i] == old[i]) {
                todo[i] = 0;
                left--;
            } else {
                old[i] = got[i];
            }
        }
    }
    for (int i = 0; i < m && !rc && res; i++)
        memcpy(res + 8 * k[i], &old[i], 8);
    return rc;
}

/* An Accumulate, Get_accumulate, Fetch_and_op or Compare_and_swap of
 * aligned 8-byte elements in an HCA-atomic window: element-wise through
 * the device's atomics (MPI's atomicity is element-wise). SUM of integers
 * is one fetch-and-add per element, MPI_NO_OP one of 0, a CAS one
 * compare-and-swap: posted, complete at the next flush of t (the old
 * values land in a contiguous, aligned result buffer then; else this waits
 * and unpacks them). Every other op is a compare-and-swap loop (waits;
 * HCA_BATCH elements at a time).
 * One origin's atomics to t go in order on one queue pair (and the
 * transport's loopback endpoint for this rank's own part), so accumulate
 * ordering holds among them. 1: done, 0: not this way (messages: not
 * such a window, type or alignment), -(class) on an error. */
static int hca_acc(rtmpi_win_t *w, const rma_args_t *a, const rtmpi_dtype_t *od,
                   const rtmpi_dtype_t *rd, const rtmpi_dtype_t *td, int t, int64_t off,
                   size_t tbytes, const rma_run_t *runs, uint32_t n, rma_rreq_t *rr)
{
    rma_run_t one = { 0, (int64_t)tbytes, td->basic, 0 };
    int basic = td->basic, rc = 0, waited = 0;
    _Alignas(16) char sdata[ACC_STACK], sres[ACC_STACK];
    char *heap = NULL, *res = NULL;
    const char *data = NULL;

    if (!w->hca_atomic || tbytes == 0 || !hca_elem(basic) ||
        w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return 0;
    if (n == 0) {
        runs = &one;
        n = 1;
    }
    for (uint32_t i = 0; i < n; i++)
        if (((w->rkeys[t].addr + (uint64_t)(off + runs[i].disp)) | (uint64_t)runs[i].len) & 7)
            return 0;   /* a misaligned element: the device cannot (docs/mpi.md) */
    /* a rank spinning on atomics (a CAS lock, a polled counter) still
     * serves the others' messages: lock requests, unlocks, other types'
     * accumulates (rma_passive hung without) */
    direct_poll(w);
    if (a->kind == RMA_ACC && a->op == MPI_NO_OP)
        return 1;       /* changes nothing */
    /* ordering after this origin's accumulates to t that went as messages
     * (other basic types): the target has applied them */
    if (!w->acc_unordered && w->acc_msg[t]) {
        if ((rc = ctrl_all(w, &t, 1, RMA_FLUSH, 0)) || (rc = rtmpi_rma_wait_pend(w, t)))
            return -rc;
        w->acc_msg[t] = 0;
    }
    /* results into the user's buffer only where the transport can write
     * each 8-byte word (aligned); else through ours, waited for */
    if ((rc = acc_bufs(a, od, rd, tbytes, 8, sdata, sres, &heap, &data, &res, &waited))) {
        free(heap);
        return -rc;
    }
    int loop = a->kind != RMA_CAS && a->op != MPI_NO_OP &&
               !(a->op == MPI_SUM && hca_int64(basic));
    uint64_t boff[HCA_BATCH];
    size_t bk[HCA_BATCH], k = 0;
    int nb = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        for (int64_t j = 0; j < runs[i].len && !rc; j += 8, k++) {
            uint64_t roff = (uint64_t)(off + runs[i].disp + j), v = 0, cmp;
            uint64_t *r = res ? (uint64_t *)(void *)(res + 8 * k) : &w->hca_sink;

            if (loop) {
                boff[nb] = roff;
                bk[nb++] = k;
                if (nb == HCA_BATCH) {
                    rc = hca_loop(w, t, boff, bk, nb, a->op, basic, data, res);
                    nb = 0;
                }
                continue;
            }
            if (data)
                memcpy(&v, data + 8 * k, 8);
            if (a->kind == RMA_CAS) {
                memcpy(&cmp, a->caddr, 8);
                rc = hca_post(w, t, roff, RTM_RMA_CSWAP, v, cmp, r);
            } else {
                rc = hca_post(w, t, roff, RTM_RMA_FADD, v, 0, r);
            }
        }
    }
    if (!rc && nb)
        rc = hca_loop(w, t, boff, bk, nb, a->op, basic, data, res);
    if (!rc && waited) {
        int frc = rtmpi_rma_rdma_flush(w, t);

        rc = frc ? -frc : 0;
        if (!rc)
            rtmpi_unpack(res, tbytes, a->raddr, a->rcount, rd);
    }
    free(heap);
    if (!rc && rr && w->rdirty[t] && rdreq_add(w, rr, t)) {
        int frc = rtmpi_rma_rdma_flush(w, t);   /* no room to keep it: complete it now */

        rc = frc ? -frc : 0;
    }
    return rc ? rc : 1;
}

/* Checks and issues one operation; raises its error on the window. */
static int rma_issue(const char *fn, rtmpi_win_t *w, const rma_args_t *a, rma_rreq_t *rr)
{
    rtmpi_dtype_t *od = NULL, *td, *rd = NULL;
    int t = a->target, rc;
    int with_origin = a->kind != RMA_GET && !(a->kind == RMA_GACC && a->op == MPI_NO_OP);
    int with_result = a->kind == RMA_GET || a->kind == RMA_GACC || a->kind == RMA_CAS;

    if (t == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (t < 0 || t >= w->size)
        return WIN_ERR(w, fn, MPI_ERR_RANK, "target rank %d is not in window %d of %d ranks",
                       t, w->handle, w->size);
    int epoch = epoch_of(w, t);
    if (epoch < 0)
        return WIN_ERR(w, fn, MPI_ERR_RMA_SYNC,
                       "no access epoch to rank %d is open on window %d (call MPI_Win_fence, "
                       "MPI_Win_start, MPI_Win_lock or MPI_Win_lock_all first)", t, w->handle);
    if (a->ocount < 0 || a->tcount < 0 || a->rcount < 0)
        return WIN_ERR(w, fn, MPI_ERR_COUNT, "a count is negative");
    if (rtmpi_dtype_check(a->tdt, &td))
        return WIN_ERR(w, fn, MPI_ERR_TYPE, "the target datatype is invalid or not committed");
    if (with_origin || a->kind == RMA_GET) {
        if (rtmpi_dtype_check(a->odt, &od))
            return WIN_ERR(w, fn, MPI_ERR_TYPE,
                           "the origin datatype is invalid or not committed");
    }
    if (with_result && a->kind != RMA_GET && rtmpi_dtype_check(a->rdt, &rd))
        return WIN_ERR(w, fn, MPI_ERR_TYPE, "the result datatype is invalid or not committed");
    size_t tbytes = (size_t)a->tcount * (size_t)td->size;
    if (od && (size_t)a->ocount * (size_t)od->size != tbytes)
        return WIN_ERR(w, fn, MPI_ERR_TYPE,
                       "the origin data (%zu bytes) does not match the target data (%zu bytes)",
                       (size_t)a->ocount * (size_t)od->size, tbytes);
    if (rd && (size_t)a->rcount * (size_t)rd->size != tbytes)
        return WIN_ERR(w, fn, MPI_ERR_TYPE,
                       "the result buffer (%zu bytes) does not match the target data (%zu "
                       "bytes)", (size_t)a->rcount * (size_t)rd->size, tbytes);
    if (is_accumulate(a->kind) || a->kind == RMA_CAS) {
        if (a->kind != RMA_CAS && (a->op <= MPI_OP_NULL || a->op > MPI_NO_OP))
            return WIN_ERR(w, fn, MPI_ERR_OP, "op %d is not a predefined operation (one-sided "
                           "accumulates take predefined ops only)", a->op);
        if (tbytes && td->basic == RTMPI_BASIC_MIXED)
            return WIN_ERR(w, fn, MPI_ERR_TYPE,
                           "the target datatype mixes basic types (an accumulate needs one)");
        if (tbytes && ((od && od->basic != td->basic) || (rd && rd->basic != td->basic)))
            return WIN_ERR(w, fn, MPI_ERR_TYPE, "the origin, result and target datatypes are "
                           "not of the same basic type");
        if (tbytes && a->kind != RMA_CAS && rtmpi_op_valid_for(a->op, td->basic))
            return WIN_ERR(w, fn, MPI_ERR_OP, "op %d does not apply to the target's basic "
                           "type", a->op);
    }

    /* Where the data lands: one byte range, or the type's runs. */
    MPI_Aint toff = 0;
    struct runs_fill f = { NULL, 0 };
    int contig = tbytes == 0 || rtmpi_dtype_contig(td, a->tcount, &toff);
    int64_t du = w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? 1 : w->disp_units[t];
    int64_t disp, lo = toff, hi = toff + (int64_t)tbytes, first = 0, end = 0;
    /* target_disp comes from the user: a product or sum past int64 is a
     * range error, never a wrapped address */
    int wraps = __builtin_mul_overflow((int64_t)a->tdisp, du, &disp);
    if (!contig) {
        rtmpi_dtype_walk(td, a->tcount, run_count, &f);
        f.runs = malloc((size_t)f.n * sizeof(rma_run_t));
        if (!f.runs)
            return WIN_ERR(w, fn, MPI_ERR_NO_MEM, "out of memory");
        f.n = 0;
        rtmpi_dtype_walk(td, a->tcount, run_fill, &f);
        runs_bounds(f.runs, f.n, &lo, &hi);
    } else {
        wraps |= __builtin_add_overflow(disp, (int64_t)toff, &disp);
        lo = 0;
        hi = (int64_t)tbytes;
    }
    wraps |= __builtin_add_overflow(disp, lo, &first) | __builtin_add_overflow(disp, hi, &end);
    if (wraps) {
        free(f.runs);
        return WIN_ERR(w, fn, MPI_ERR_RMA_RANGE,
                       "target_disp %lld (displacement unit %lld) is past any window of rank %d",
                       (long long)a->tdisp, (long long)du, t);
    }
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC && tbytes &&
        (first < 0 || end > (int64_t)w->sizes[t])) {
        free(f.runs);
        return WIN_ERR(w, fn, MPI_ERR_RMA_RANGE,
                       "bytes [%lld, %lld) of rank %d's window, of %ld bytes",
                       (long long)first, (long long)end, t, (long)w->sizes[t]);
    }

    /* A target whose part is in this process's mapping (a host segment):
     * the operation is done here, complete when the call returns; Put and
     * Get are copies, accumulates atomics or under the target's lock word
     * (rma_acc.c), as the target applies those that come as messages. */
    if (rtmpi_win_direct(w, t)) {
        char *tp = w->dbase[t] + disp;

        direct_poll(w);
        int rc2 = a->kind == RMA_PUT || a->kind == RMA_GET
                      ? shm_copy(a, od, tp, f.runs, f.n, tbytes)
                      : direct_acc(a, w->dctl[t], od, rd, td, tp, f.runs, f.n, tbytes);

        free(f.runs);
        return rc2 ? WIN_ERR(w, fn, rc2, "out of memory") : MPI_SUCCESS;
    }

    /* A Put or Get of contiguous origin data, to a target that gave this
     * rank a key: RDMA, one operation per target run. Rput/Rget: their
     * request completes at the next flush of the target (rdreq). */
    if ((a->kind == RMA_PUT || a->kind == RMA_GET) && w->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        int r2 = rdma_issue(w, a, od, t, contig ? first : disp, tbytes, f.runs, f.n);

        if (r2 != 0)
            free(f.runs);
        if (r2 > 0 && rr && rdreq_add(w, rr, t)) {
            r2 = rtmpi_rma_rdma_flush(w, t);   /* no room to keep it: complete it now */
            return r2 ? WIN_ERR(w, fn, r2, "flushing rank %d failed", t) : MPI_SUCCESS;
        }
        if (r2 > 0)
            return MPI_SUCCESS;
        if (r2 < 0)
            return WIN_ERR(w, fn, -r2, "an RDMA %s of %zu bytes to rank %d failed: %s",
                           a->kind == RMA_PUT ? "write" : "read", tbytes, t,
                           rtm_last_error());
    }

    /* An accumulate in an HCA-atomic window: the device's atomics for
     * aligned 8-byte elements; after them, one that goes as a message is
     * ordered by completing them first. */
    if (is_accumulate(a->kind) || a->kind == RMA_CAS) {
        int r2 = hca_acc(w, a, od, rd, td, t, contig ? first : disp, tbytes, f.runs, f.n, rr);

        if (r2 != 0)
            free(f.runs);
        if (r2 > 0)
            return MPI_SUCCESS;
        if (r2 < 0)
            return WIN_ERR(w, fn, -r2, "an atomic of the device on rank %d's part failed: %s",
                           t, rtm_last_error());
        if (w->hca_atomic && !w->acc_unordered && w->rdirty[t] &&
            (r2 = rtmpi_rma_rdma_flush(w, t))) {
            free(f.runs);
            return WIN_ERR(w, fn, r2, "flushing rank %d failed", t);
        }
        if (w->acc_msg)
            w->acc_msg[t] = 1;
    }

    uint32_t seq = w->seq[t]++ & RMA_SEQ_MASK;
    size_t dbytes = a->kind == RMA_CAS ? 2 * tbytes : with_origin ? tbytes : 0;
    size_t total = rma_data_off(f.n) + dbytes;
    int inl = total <= RMA_HDR_MAX;
    char *hb = hdr_get();
    if (!hb) {
        free(f.runs);
        return WIN_ERR(w, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    rma_hdr_t *h = (rma_hdr_t *)(void *)hb;
    memset(h, 0, sizeof(*h));
    h->kind = a->kind;
    h->seq = seq;
    h->flags = (uint32_t)epoch | (inl ? RMA_F_INLINE : 0);
    h->op = a->kind == RMA_CAS ? MPI_REPLACE : a->op;
    h->basic = td->basic;
    h->nruns = f.n;
    h->disp = disp;
    h->bytes = (int64_t)tbytes;
    h->dbytes = (int64_t)dbytes;

    /* The reply's receive is posted before the header leaves. */
    rc = MPI_SUCCESS;
    if (a->kind == RMA_GET)
        rc = pend_start(w, RTMPI_REQ_RECV, a->oaddr, a->ocount, a->odt, t, rma_tag(seq, 1), rr);
    else if (with_result)
        rc = pend_start(w, RTMPI_REQ_RECV, a->raddr, a->rcount, a->rdt, t, rma_tag(seq, 1), rr);
    if (rc) {
        hdr_put(hb);
        free(f.runs);
        return WIN_ERR(w, fn, rc, "cannot post the reply's receive");
    }
    if (inl) {
        if (f.n)
            memcpy(hb + sizeof(*h), f.runs, (size_t)f.n * sizeof(rma_run_t));
        if (a->kind == RMA_CAS) {
            memcpy(hb + rma_data_off(0), a->oaddr, tbytes);
            memcpy(hb + rma_data_off(0) + tbytes, a->caddr, tbytes);
        } else if (dbytes) {
            rtmpi_pack(a->oaddr, a->ocount, od, hb + rma_data_off(f.n));
        }
        free(f.runs);
        rc = send_own(w, hb, total, t, RMA_TAG_HDR, hb, 1);
    } else {
        rc = send_own(w, hb, sizeof(*h), t, RMA_TAG_HDR, hb, 1);
        if (!rc && f.n)
            rc = send_own(w, f.runs, (size_t)f.n * sizeof(rma_run_t), t, rma_tag(seq, 0),
                          f.runs, 0);
        else
            free(f.runs);
        /* Sent from the user's buffer (packed by the binding when it is
         * not contiguous): no copy of ours. */
        if (!rc && dbytes)
            rc = pend_start(w, RTMPI_REQ_SEND, a->oaddr, a->ocount, a->odt, t,
                            rma_tag(seq, 0), rr);
    }
    if (rc)
        return WIN_ERR(w, fn, rc, "cannot send the operation to rank %d", t);
    if (epoch == (int)RMA_F_FENCE)
        w->issued[t]++;
    return MPI_SUCCESS;
}

#define GET_WIN(_win, _w) \
    rtmpi_win_t *_w = rtmpi_win_get(_win); \
    if (!_w) \
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_WIN, "invalid window %d", (_win))

int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    rma_args_t a = { .kind = RMA_PUT, .oaddr = origin_addr, .ocount = origin_count,
                     .odt = origin_datatype, .target = target_rank, .tdisp = target_disp,
                     .tcount = target_count, .tdt = target_datatype, .op = MPI_REPLACE };
    return rma_issue(__func__, w, &a, NULL);
}
RTMPI_WEAK(Put)

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    rma_args_t a = { .kind = RMA_GET, .oaddr = origin_addr, .ocount = origin_count,
                     .odt = origin_datatype, .target = target_rank, .tdisp = target_disp,
                     .tcount = target_count, .tdt = target_datatype, .op = MPI_NO_OP };
    return rma_issue(__func__, w, &a, NULL);
}
RTMPI_WEAK(Get)

int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    rma_args_t a = { .kind = RMA_ACC, .oaddr = origin_addr, .ocount = origin_count,
                     .odt = origin_datatype, .target = target_rank, .tdisp = target_disp,
                     .tcount = target_count, .tdt = target_datatype, .op = op };
    /* MPI_NO_OP changes nothing: an accumulate of it is a no-op at the
     * target, sent anyway so its ordering and counting stay uniform. */
    return rma_issue(__func__, w, &a, NULL);
}
RTMPI_WEAK(Accumulate)

int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    rma_args_t a = { .kind = RMA_GACC, .oaddr = origin_addr, .ocount = origin_count,
                     .odt = origin_datatype, .raddr = result_addr, .rcount = result_count,
                     .rdt = result_datatype, .target = target_rank, .tdisp = target_disp,
                     .tcount = target_count, .tdt = target_datatype, .op = op };
    return rma_issue(__func__, w, &a, NULL);
}
RTMPI_WEAK(Get_accumulate)

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    rma_args_t a = { .kind = RMA_GACC, .oaddr = origin_addr, .ocount = 1, .odt = datatype,
                     .raddr = result_addr, .rcount = 1, .rdt = datatype,
                     .target = target_rank, .tdisp = target_disp, .tcount = 1,
                     .tdt = datatype, .op = op };
    rtmpi_dtype_t *d = rtmpi_dtype_get(datatype);
    if (d && !d->predefined)
        return WIN_ERR(w, __func__, MPI_ERR_TYPE, "MPI_Fetch_and_op takes a predefined "
                       "datatype");
    return rma_issue(__func__, w, &a, NULL);
}
RTMPI_WEAK(Fetch_and_op)

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Win win)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    rtmpi_dtype_t *d = rtmpi_dtype_get(datatype);
    if (d && !d->predefined)
        return WIN_ERR(w, __func__, MPI_ERR_TYPE, "MPI_Compare_and_swap takes a predefined "
                       "datatype");
    if (!origin_addr || !compare_addr || !result_addr)
        return WIN_ERR(w, __func__, MPI_ERR_BUFFER,
                       "origin_addr, compare_addr or result_addr is NULL");
    rma_args_t a = { .kind = RMA_CAS, .oaddr = origin_addr, .ocount = 1, .odt = datatype,
                     .raddr = result_addr, .rcount = 1, .rdt = datatype, .caddr = compare_addr,
                     .target = target_rank, .tdisp = target_disp, .tcount = 1,
                     .tdt = datatype, .op = MPI_REPLACE };
    return rma_issue(__func__, w, &a, NULL);
}
RTMPI_WEAK(Compare_and_swap)

/* ---- request-based operations -------------------------------------------------------- */

static int rr_query(void *extra, MPI_Status *status)
{
    (void)extra;
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    PMPI_Status_set_cancelled(status, 0);
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    return MPI_SUCCESS;
}

static int rr_free(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int rr_cancel(void *extra, int complete)
{
    (void)extra; (void)complete;
    return MPI_SUCCESS;   /* one-sided operations cannot be cancelled */
}

static int rissue(const char *fn, rtmpi_win_t *w, const rma_args_t *a, MPI_Request *request)
{
    if (!request)
        return WIN_ERR(w, fn, MPI_ERR_ARG, "request is NULL");
    *request = MPI_REQUEST_NULL;
    if (a->target != MPI_PROC_NULL && a->target >= 0 && a->target < w->size &&
        !w->lock_all && !w->locked[a->target])
        return WIN_ERR(w, fn, MPI_ERR_RMA_SYNC, "request-based operations need a passive "
                       "target epoch (MPI_Win_lock or MPI_Win_lock_all) to rank %d", a->target);
    rma_rreq_t *rr = malloc(sizeof(*rr));
    if (!rr)
        return WIN_ERR(w, fn, MPI_ERR_NO_MEM, "out of memory");
    rr->left = 1;
    rr->rdma_target = -1;
    rr->w = w;
    if (PMPI_Grequest_start(rr_query, rr_free, rr_cancel, NULL, &rr->greq)) {
        free(rr);
        return WIN_ERR(w, fn, MPI_ERR_NO_MEM, "out of memory for a request");
    }
    rtmpi_greq_set_poll(rr->greq, rr_poll, rr);
    *request = rr->greq;
    int rc = rma_issue(fn, w, a, rr);
    rr_release(rr);
    return rc;
}

int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    rma_args_t a = { .kind = RMA_PUT, .oaddr = origin_addr, .ocount = origin_count,
                     .odt = origin_datatype, .target = target_rank, .tdisp = target_disp,
                     .tcount = target_count, .tdt = target_datatype, .op = MPI_REPLACE };
    return rissue(__func__, w, &a, request);
}
RTMPI_WEAK(Rput)

int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    rma_args_t a = { .kind = RMA_GET, .oaddr = origin_addr, .ocount = origin_count,
                     .odt = origin_datatype, .target = target_rank, .tdisp = target_disp,
                     .tcount = target_count, .tdt = target_datatype, .op = MPI_NO_OP };
    return rissue(__func__, w, &a, request);
}
RTMPI_WEAK(Rget)

int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request *request)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    rma_args_t a = { .kind = RMA_ACC, .oaddr = origin_addr, .ocount = origin_count,
                     .odt = origin_datatype, .target = target_rank, .tdisp = target_disp,
                     .tcount = target_count, .tdt = target_datatype, .op = op };
    return rissue(__func__, w, &a, request);
}
RTMPI_WEAK(Raccumulate)

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count,
                         MPI_Datatype origin_datatype, void *result_addr, int result_count,
                         MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, MPI_Op op,
                         MPI_Win win, MPI_Request *request)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    rma_args_t a = { .kind = RMA_GACC, .oaddr = origin_addr, .ocount = origin_count,
                     .odt = origin_datatype, .raddr = result_addr, .rcount = result_count,
                     .rdt = result_datatype, .target = target_rank, .tdisp = target_disp,
                     .tcount = target_count, .tdt = target_datatype, .op = op };
    return rissue(__func__, w, &a, request);
}
RTMPI_WEAK(Rget_accumulate)

/* ---- synchronization ---------------------------------------------------------------- */

/* A control message to target; with ack != NULL the zero-byte answer's
 * receive is posted first into *ack. */
static int ctrl_send(rtmpi_win_t *w, int t, uint32_t kind, uint32_t flags,
                     rtm_request_t *ackreq, uint32_t *errs)
{
    uint32_t seq = w->seq[t]++ & RMA_SEQ_MASK;
    rtm_status_t st;

    /* A shared window's direct stores before the message that ends or
     * flushes their epoch. */
    atomic_thread_fence(memory_order_seq_cst);
    if (ackreq) {
        *ackreq = RTM_REQUEST_NULL;
        *errs = 0;
        if ((st = rtm_irecv(errs, sizeof(*errs), t, rma_tag(seq, 1), w->nc, ackreq)) !=
            RTM_OK)
            return rtmpi_class_of(st);
    }
    char *hb = hdr_get();
    if (!hb)
        return MPI_ERR_NO_MEM;
    rma_hdr_t *h = (rma_hdr_t *)(void *)hb;
    memset(h, 0, sizeof(*h));
    h->kind = kind;
    h->seq = seq;
    h->flags = flags;
    return send_own(w, hb, sizeof(*h), t, RMA_TAG_HDR, hb, 1);
}

static void wait_reqs(rtm_request_t *reqs, int n)
{
    unsigned polls = 0;

    for (int i = 0; i < n; i++)
        while (!test_req(&reqs[i]))
            spin(&polls);
}

/* Sends `kind` to every target in ts (n of them) and waits for the
 * answers; MPI_ERR_RMA_RANGE when a target reports operations of ours
 * that fell outside its window. */
static int ctrl_all(rtmpi_win_t *w, const int *ts, int n, uint32_t kind, uint32_t flags)
{
    rtm_request_t one, *acks = n > 1 ? malloc((size_t)n * sizeof(*acks)) : &one;
    uint32_t one_err, *errs = n > 1 ? malloc((size_t)n * sizeof(*errs)) : &one_err;
    int rc = MPI_SUCCESS;

    if (!acks || !errs) {
        if (acks != &one)
            free(acks);
        if (errs != &one_err)
            free(errs);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < n; i++) {
        acks[i] = RTM_REQUEST_NULL;
        errs[i] = 0;
        if (!rc)
            rc = ctrl_send(w, ts[i], kind, flags, &acks[i], &errs[i]);
    }
    wait_reqs(acks, n);
    atomic_thread_fence(memory_order_seq_cst);
    /* Each target answered after it applied every earlier operation of
     * ours (its FIFO): nothing of ours is in flight to it as a message. */
    for (int i = 0; i < n && !rc; i++)
        w->fseq[ts[i]] = w->seq[ts[i]];
    for (int i = 0; i < n && !rc; i++)
        if (errs[i])
            rc = MPI_ERR_RMA_RANGE;
    if (acks != &one)
        free(acks);
    if (errs != &one_err)
        free(errs);
    return rc;
}

static int *all_ranks(const rtmpi_win_t *w)
{
    int *ts = malloc((size_t)w->size * sizeof(*ts));

    if (ts)
        for (int i = 0; i < w->size; i++)
            ts[i] = i;
    return ts;
}

static int any_lock(const rtmpi_win_t *w)
{
    if (w->lock_all)
        return 1;
    for (int i = 0; i < w->size; i++)
        if (w->locked[i])
            return 1;
    return 0;
}

#define FENCE_ASSERTS (MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)

int PMPI_Win_fence(int assert, MPI_Win win)
{
    int rc = MPI_SUCCESS, range = 0;

    RTMPI_ENTER();
    GET_WIN(win, w);
    if (assert & ~FENCE_ASSERTS)
        return WIN_ERR(w, __func__, MPI_ERR_ASSERT, "assert %#x has bits MPI_Win_fence does "
                       "not know", assert);
    if (w->naccess >= 0 || w->nexpose >= 0 || any_lock(w))
        return WIN_ERR(w, __func__, MPI_ERR_RMA_SYNC, "window %d is in a PSCW or lock epoch",
                       win);
    atomic_thread_fence(memory_order_seq_cst);   /* shared windows' direct stores */
    /* This rank's RDMA operations are complete at their targets before
     * any target can leave the fence. */
    int frc = rtmpi_rma_rdma_flush(w, -1);
    if (!(assert & MPI_MODE_NOPRECEDE)) {
        /* Each target learns how many operations of the epoch to expect. */
        uint64_t expect = 0;
        unsigned polls = 0;

        rc = PMPI_Reduce_scatter_block(w->issued, &expect, 1, MPI_UINT64_T, MPI_SUM, w->hcomm);
        memset(w->issued, 0, (size_t)w->size * sizeof(*w->issued));
        while (!rc && w->fence_applied < expect)
            spin(&polls);
        w->fence_applied -= expect;
        int prc = rtmpi_rma_wait_pend(w, -1);
        if (!rc)
            rc = prc;
        if (!rc && w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
            /* Only a dynamic window's targets find addresses outside it:
             * each origin learns how many of its operations they were. */
            uint32_t *mine = calloc((size_t)w->size, sizeof(*mine));

            if (!mine)
                return WIN_ERR(w, __func__, MPI_ERR_NO_MEM, "out of memory");
            rc = PMPI_Alltoall(w->range_errs, 1, MPI_UINT32_T, mine, 1, MPI_UINT32_T,
                               w->hcomm);
            memset(w->range_errs, 0, (size_t)w->size * sizeof(*w->range_errs));
            for (int i = 0; i < w->size && !rc; i++)
                if (mine[i])
                    range = 1;
            free(mine);
        }
    }
    /* The next epoch's operations must not reach a rank still in this
     * fence. */
    if (!rc && !(assert & MPI_MODE_NOSUCCEED))
        rc = PMPI_Barrier(w->hcomm);
    if (!rc && range)
        rc = MPI_ERR_RMA_RANGE;
    if (!rc)
        rc = frc;   /* the others were not left in the fence for it */
    atomic_thread_fence(memory_order_seq_cst);
    w->fence_open = !(assert & MPI_MODE_NOSUCCEED);
    return rc ? WIN_ERR(w, __func__, rc, rc == MPI_ERR_RMA_RANGE ?
                        "a target found operations of this rank outside its window" :
                        "the fence failed") : MPI_SUCCESS;
}
RTMPI_WEAK(Win_fence)

/* The window ranks of group's members (in *ranks_p, malloc'ed). */
static int group_ranks(const rtmpi_win_t *w, MPI_Group group, int **ranks_p, int *n_p)
{
    const int *world;
    int n, rc = rtmpi_group_members(group, &n, &world);

    if (rc)
        return MPI_ERR_GROUP;
    rtmpi_comm_t *hc = rtmpi_comm_get(w->hcomm);
    int *r = malloc((size_t)(n ? n : 1) * sizeof(*r));
    if (!r)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++) {
        r[i] = -1;
        for (int j = 0; j < hc->size; j++)
            if (hc->world_ranks[j] == world[i]) {
                r[i] = j;
                break;
            }
        if (r[i] < 0) {
            free(r);
            return MPI_ERR_GROUP;
        }
    }
    *ranks_p = r;
    *n_p = n;
    return MPI_SUCCESS;
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    int *ranks, n, rc;

    RTMPI_ENTER();
    GET_WIN(win, w);
    if (assert & ~(MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT))
        return WIN_ERR(w, __func__, MPI_ERR_ASSERT, "assert %#x is not valid for "
                       "MPI_Win_post", assert);
    if (w->nexpose >= 0)
        return WIN_ERR(w, __func__, MPI_ERR_RMA_SYNC, "window %d already has an exposure "
                       "epoch (MPI_Win_post without MPI_Win_wait)", win);
    if ((rc = group_ranks(w, group, &ranks, &n)))
        return WIN_ERR(w, __func__, rc, "group %d is not a group of window %d's ranks",
                       group, win);
    memcpy(w->expose, ranks, (size_t)n * sizeof(*ranks));
    free(ranks);
    w->nexpose = n;
    if (!(assert & MPI_MODE_NOCHECK))
        for (int i = 0; i < n && !rc; i++)
            rc = send_own(w, NULL, 0, w->expose[i], RMA_TAG_POST, NULL, 0);
    return rc ? WIN_ERR(w, __func__, rc, "cannot notify the origins") : MPI_SUCCESS;
}
RTMPI_WEAK(Win_post)

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    int *ranks, n, rc;

    RTMPI_ENTER();
    GET_WIN(win, w);
    if (assert & ~MPI_MODE_NOCHECK)
        return WIN_ERR(w, __func__, MPI_ERR_ASSERT, "assert %#x is not valid for "
                       "MPI_Win_start", assert);
    if (w->naccess >= 0)
        return WIN_ERR(w, __func__, MPI_ERR_RMA_SYNC, "window %d already has an access "
                       "epoch (MPI_Win_start without MPI_Win_complete)", win);
    if ((rc = group_ranks(w, group, &ranks, &n)))
        return WIN_ERR(w, __func__, rc, "group %d is not a group of window %d's ranks",
                       group, win);
    if (!(assert & MPI_MODE_NOCHECK)) {
        /* Access begins once each target has posted. */
        rtm_request_t *posts = calloc((size_t)(n ? n : 1), sizeof(*posts));

        if (!posts) {
            free(ranks);
            return WIN_ERR(w, __func__, MPI_ERR_NO_MEM, "out of memory");
        }
        for (int i = 0; i < n; i++)
            rtm_irecv(NULL, 0, ranks[i], RMA_TAG_POST, w->nc, &posts[i]);
        wait_reqs(posts, n);
        free(posts);
    }
    memcpy(w->access, ranks, (size_t)n * sizeof(*ranks));
    for (int i = 0; i < n; i++)
        w->in_access[ranks[i]] = 1;
    w->naccess = n;
    free(ranks);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Win_start)

int PMPI_Win_complete(MPI_Win win)
{
    int rc = MPI_SUCCESS;

    RTMPI_ENTER();
    GET_WIN(win, w);
    if (w->naccess < 0)
        return WIN_ERR(w, __func__, MPI_ERR_RMA_SYNC, "window %d has no access epoch "
                       "(MPI_Win_complete without MPI_Win_start)", win);
    /* Behind the epoch's operations in each target's order; the RDMA ones
     * complete at their targets first. */
    int frc = MPI_SUCCESS;
    for (int i = 0; i < w->naccess; i++) {
        int r2 = rtmpi_rma_rdma_flush(w, w->access[i]);

        if (r2 && !frc)
            frc = r2;
    }
    for (int i = 0; i < w->naccess && !rc; i++)
        rc = ctrl_send(w, w->access[i], RMA_COMPLETE, 0, NULL, NULL);
    int prc = rtmpi_rma_wait_pend(w, -1);
    if (!rc)
        rc = frc;   /* the targets were not left waiting for it */
    for (int i = 0; i < w->naccess; i++)
        w->in_access[w->access[i]] = 0;
    w->naccess = -1;
    if (!rc)
        rc = prc;
    return rc ? WIN_ERR(w, __func__, rc, "completing the access epoch failed") : MPI_SUCCESS;
}
RTMPI_WEAK(Win_complete)

static void exposure_end(rtmpi_win_t *w)
{
    atomic_thread_fence(memory_order_seq_cst);
    w->ncomplete -= w->nexpose;
    w->nexpose = -1;
}

int PMPI_Win_wait(MPI_Win win)
{
    unsigned polls = 0;

    RTMPI_ENTER();
    GET_WIN(win, w);
    if (w->nexpose < 0)
        return WIN_ERR(w, __func__, MPI_ERR_RMA_SYNC, "window %d has no exposure epoch "
                       "(MPI_Win_wait without MPI_Win_post)", win);
    while (w->ncomplete < w->nexpose)
        spin(&polls);
    exposure_end(w);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Win_wait)

int PMPI_Win_test(MPI_Win win, int *flag)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    if (!flag)
        return WIN_ERR(w, __func__, MPI_ERR_ARG, "flag is NULL");
    if (w->nexpose < 0)
        return WIN_ERR(w, __func__, MPI_ERR_RMA_SYNC, "window %d has no exposure epoch "
                       "(MPI_Win_test without MPI_Win_post)", win);
    rtmpi_progress();
    *flag = w->ncomplete >= w->nexpose;
    if (*flag)
        exposure_end(w);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Win_test)

/* The end of a passive epoch on targets ts (n) of a window with HCA locks:
 * this rank's operations to them complete at the targets (RDMA flushed,
 * those that went as messages answered by a flush), then their lock words
 * released (unless the epoch was MPI_MODE_NOCHECK). An MPI error class. */
static int hlock_end(rtmpi_win_t *w, const int *ts, int n, int excl, int nocheck)
{
    int rc = MPI_SUCCESS, k = 0, *msg = malloc((size_t)n * sizeof(int));

    if (!msg)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++) {
        int r2 = rtmpi_rma_rdma_flush(w, ts[i]);

        if (r2 && !rc)
            rc = r2;
        if (w->seq[ts[i]] != w->fseq[ts[i]])
            msg[k++] = ts[i];
    }
    if (k) {
        int r2 = ctrl_all(w, msg, k, RMA_FLUSH, 0);

        if (r2 && !rc)
            rc = r2;
    }
    free(msg);
    int prc = rtmpi_rma_wait_pend(w, n == 1 ? ts[0] : -1);
    if (prc && !rc)
        rc = prc;
    for (int i = 0; i < n && !nocheck; i++) {
        int r2 = hlock_release(w, ts[i], excl);

        if (r2 && !rc)
            rc = r2;
    }
    return rc;
}

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return WIN_ERR(w, __func__, MPI_ERR_LOCKTYPE, "lock type %d is neither "
                       "MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE", lock_type);
    if (assert & ~MPI_MODE_NOCHECK)
        return WIN_ERR(w, __func__, MPI_ERR_ASSERT, "assert %#x is not valid for "
                       "MPI_Win_lock", assert);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= w->size)
        return WIN_ERR(w, __func__, MPI_ERR_RANK, "rank %d is not in window %d of %d ranks",
                       rank, win, w->size);
    if (w->locked[rank] || w->lock_all)
        return WIN_ERR(w, __func__, MPI_ERR_RMA_SYNC, "window %d is already locked at rank %d",
                       win, rank);
    int rc = MPI_SUCCESS;
    if (!(assert & MPI_MODE_NOCHECK) && w->all_local)
        plock_take(w->dctl[rank], lock_type == MPI_LOCK_EXCLUSIVE);
    else if (!(assert & MPI_MODE_NOCHECK) && w->hca_locks)
        rc = hlock_take(w, rank, lock_type == MPI_LOCK_EXCLUSIVE);
    else if (!(assert & MPI_MODE_NOCHECK))
        rc = ctrl_all(w, &rank, 1, RMA_LOCK, lock_type == MPI_LOCK_EXCLUSIVE ? RMA_F_EXCL : 0);
    if (rc)
        return WIN_ERR(w, __func__, rc, "cannot lock rank %d", rank);
    w->locked[rank] = lock_type;
    w->lock_nocheck[rank] = (assert & MPI_MODE_NOCHECK) != 0;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Win_lock)

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= w->size)
        return WIN_ERR(w, __func__, MPI_ERR_RANK, "rank %d is not in window %d of %d ranks",
                       rank, win, w->size);
    if (!w->locked[rank])
        return WIN_ERR(w, __func__, MPI_ERR_RMA_SYNC, "window %d is not locked at rank %d "
                       "(MPI_Win_unlock without MPI_Win_lock)", win, rank);
    if (w->all_local) {
        /* Its operations are complete: ours were done in their calls. */
        atomic_thread_fence(memory_order_seq_cst);
        if (!w->lock_nocheck[rank])
            plock_release(w->dctl[rank], w->locked[rank] == MPI_LOCK_EXCLUSIVE);
        w->locked[rank] = 0;
        direct_poll(w);
        return MPI_SUCCESS;
    }
    if (w->hca_locks) {
        int rc = hlock_end(w, &rank, 1, w->locked[rank] == MPI_LOCK_EXCLUSIVE,
                           w->lock_nocheck[rank]);

        w->locked[rank] = 0;
        return rc ? WIN_ERR(w, __func__, rc, "unlocking rank %d failed", rank) : MPI_SUCCESS;
    }
    uint32_t flags = (w->locked[rank] == MPI_LOCK_EXCLUSIVE ? RMA_F_EXCL : 0) |
                     (w->lock_nocheck[rank] ? RMA_F_NOCHECK : 0);
    int frc = rtmpi_rma_rdma_flush(w, rank);   /* before the lock is released */
    int rc = ctrl_all(w, &rank, 1, RMA_UNLOCK, flags);
    if (!rc)
        rc = frc;
    int prc = rtmpi_rma_wait_pend(w, rank);
    w->locked[rank] = 0;
    if (!rc)
        rc = prc;
    return rc ? WIN_ERR(w, __func__, rc, "unlocking rank %d failed", rank) : MPI_SUCCESS;
}
RTMPI_WEAK(Win_unlock)

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    if (assert & ~MPI_MODE_NOCHECK)
        return WIN_ERR(w, __func__, MPI_ERR_ASSERT, "assert %#x is not valid for "
                       "MPI_Win_lock_all", assert);
    if (any_lock(w))
        return WIN_ERR(w, __func__, MPI_ERR_RMA_SYNC, "window %d is already locked", win);
    int rc = MPI_SUCCESS;
    if (!(assert & MPI_MODE_NOCHECK) && w->all_local) {
        for (int i = 0; i < w->size; i++)
            plock_take(w->dctl[i], 0);
    } else if (!(assert & MPI_MODE_NOCHECK) && w->hca_locks) {
        int held = 0;

        while (held < w->size && !(rc = hlock_take(w, held, 0)))
            held++;
        for (int i = 0; i < held && rc; i++)   /* none held on an error: undo */
            if (hlock_release(w, i, 0))
                break;
    } else if (!(assert & MPI_MODE_NOCHECK)) {
        int *ts = all_ranks(w);

        rc = ts ? ctrl_all(w, ts, w->size, RMA_LOCK, 0) : MPI_ERR_NO_MEM;
        free(ts);
    }
    if (rc)
        return WIN_ERR(w, __func__, rc, "cannot lock the window");
    w->lock_all = assert & MPI_MODE_NOCHECK ? 2 : 1;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Win_lock_all)

int PMPI_Win_unlock_all(MPI_Win win)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    if (!w->lock_all)
        return WIN_ERR(w, __func__, MPI_ERR_RMA_SYNC, "window %d is not locked with "
                       "MPI_Win_lock_all", win);
    if (w->all_local) {
        atomic_thread_fence(memory_order_seq_cst);
        if (w->lock_all != 2)
            for (int i = 0; i < w->size; i++)
                plock_release(w->dctl[i], 0);
        w->lock_all = 0;
        direct_poll(w);
        return MPI_SUCCESS;
    }
    int *ts = all_ranks(w);
    if (w->hca_locks) {
        int rc = ts ? hlock_end(w, ts, w->size, 0, w->lock_all == 2) : MPI_ERR_NO_MEM;

        free(ts);
        w->lock_all = 0;
        return rc ? WIN_ERR(w, __func__, rc, "unlocking the window failed") : MPI_SUCCESS;
    }
    int frc = rtmpi_rma_rdma_flush(w, -1);
    int rc = ts ? ctrl_all(w, ts, w->size, RMA_UNLOCK, w->lock_all == 2 ? RMA_F_NOCHECK : 0)
                : MPI_ERR_NO_MEM;
    if (!rc)
        rc = frc;
    free(ts);
    int prc = rtmpi_rma_wait_pend(w, -1);
    w->lock_all = 0;
    if (!rc)
        rc = prc;
    return rc ? WIN_ERR(w, __func__, rc, "unlocking the window failed") : MPI_SUCCESS;
}
RTMPI_WEAK(Win_unlock_all)

/* Flushes are allowed in a passive target epoch to the rank. */
static int check_passive(const char *fn, rtmpi_win_t *w, int rank)
{
    if (rank < 0 || rank >= w->size)
        return WIN_ERR(w, fn, MPI_ERR_RANK, "rank %d is not in window %d of %d ranks", rank,
                       w->handle, w->size);
    if (!w->lock_all && !w->locked[rank])
        return WIN_ERR(w, fn, MPI_ERR_RMA_SYNC, "window %d has no passive target epoch to "
                       "rank %d (lock it first)", w->handle, rank);
    return MPI_SUCCESS;
}

int PMPI_Win_flush(int rank, MPI_Win win)
{
    int rc;

    RTMPI_ENTER();
    GET_WIN(win, w);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if ((rc = check_passive(__func__, w, rank)))
        return rc;
    if (rtmpi_win_direct(w, rank)) {
        /* Every operation to it was done by this process in its call. */
        atomic_thread_fence(memory_order_seq_cst);
        direct_poll(w);
        return MPI_SUCCESS;
    }
    rc = rtmpi_rma_rdma_flush(w, rank);
    /* Only operations that went as messages need the target's answer (an
     * RDMA-only epoch is complete once flushed: one round trip fewer). */
    if (!rc && w->seq[rank] != w->fseq[rank])
        rc = ctrl_all(w, &rank, 1, RMA_FLUSH, 0);
    int prc = rtmpi_rma_wait_pend(w, rank);
    if (!rc)
        rc = prc;
    return rc ? WIN_ERR(w, __func__, rc, "flushing rank %d failed", rank) : MPI_SUCCESS;
}
RTMPI_WEAK(Win_flush)

int PMPI_Win_flush_all(MPI_Win win)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    int n = 0, *ts = malloc((size_t)w->size * sizeof(*ts));
    if (!ts)
        return WIN_ERR(w, __func__, MPI_ERR_NO_MEM, "out of memory");
    int locked = 0;
    for (int i = 0; i < w->size; i++)
        if (w->lock_all || w->locked[i]) {
            locked = 1;
            /* direct: complete already; no message since the last flush:
             * complete once its RDMA is flushed */
            if (!rtmpi_win_direct(w, i) && w->seq[i] != w->fseq[i])
                ts[n++] = i;
        }
    if (!locked) {
        free(ts);
        return WIN_ERR(w, __func__, MPI_ERR_RMA_SYNC, "window %d has no passive target "
                       "epoch (lock it first)", win);
    }
    atomic_thread_fence(memory_order_seq_cst);
    int rc = rtmpi_rma_rdma_flush(w, -1);
    if (!rc && n)
        rc = ctrl_all(w, ts, n, RMA_FLUSH, 0);
    free(ts);
    int prc = rtmpi_rma_wait_pend(w, -1);
    if (!rc)
        rc = prc;
    return rc ? WIN_ERR(w, __func__, rc, "flushing the window failed") : MPI_SUCCESS;
}
RTMPI_WEAK(Win_flush_all)

int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    int rc;

    RTMPI_ENTER();
    GET_WIN(win, w);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if ((rc = check_passive(__func__, w, rank)))
        return rc;
    /* An RDMA write reads the origin buffer, and a read fills it, until it
     * completes: locally complete is complete. */
    rc = rtmpi_rma_rdma_flush(w, rank);
    int prc = rtmpi_rma_wait_pend(w, rank);
    if (!rc)
        rc = prc;
    return rc ? WIN_ERR(w, __func__, rc, "an operation to rank %d failed", rank) : MPI_SUCCESS;
}
RTMPI_WEAK(Win_flush_local)

int PMPI_Win_flush_local_all(MPI_Win win)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    if (!any_lock(w))
        return WIN_ERR(w, __func__, MPI_ERR_RMA_SYNC, "window %d has no passive target "
                       "epoch (lock it first)", win);
    int rc = rtmpi_rma_rdma_flush(w, -1);
    int prc = rtmpi_rma_wait_pend(w, -1);
    if (!rc)
        rc = prc;
    return rc ? WIN_ERR(w, __func__, rc, "an operation failed") : MPI_SUCCESS;
}
RTMPI_WEAK(Win_flush_local_all)

int PMPI_Win_sync(MPI_Win win)
{
    RTMPI_ENTER();
    GET_WIN(win, w);
    (void)w;
    /* The unified model: the public and private copies are one memory;
     * only the compiler's and the CPU's reordering is in the way. */
    atomic_thread_fence(memory_order_seq_cst);
    rtmpi_progress();
    return MPI_SUCCESS;
}
RTMPI_WEAK(Win_sync)
