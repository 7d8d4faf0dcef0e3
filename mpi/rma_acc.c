/*
 * Accumulates applied to window memory: by the target for an operation
 * that came as a message, and by the origin itself when the target's part
 * of the window is in a host segment this process mapped (win_impl.h).
 *
 * Atomicity (MPI 3.1 11.7.1: same op, same basic type, element-wise),
 * whichever process applies an operation:
 * - an element of a 4- or 8-byte integer type at an address aligned to its
 *   size is changed by one C11 atomic read-modify-write (fetch_add,
 *   fetch_and/or/xor, exchange, load; MIN, MAX, PROD and the logical ops as
 *   a compare-exchange loop), with or without the lock;
 * - every other element (floating point, pairs for MAXLOC/MINLOC, 1- and
 *   2-byte types, complex, misaligned) is changed only while the target's
 *   accumulate lock word (rma_ctl_t.acc_lock, in the segment) is held.
 * The choice depends only on the basic type and the element's address, so
 * every process makes the same one for an element. A window without a
 * segment (ctl NULL) is only ever changed by its target's progress engine,
 * one operation at a time: plain kernels, no lock.
 */
#include "config.h"

#include "win_impl.h"

#include <sched.h>
#include <stdatomic.h>
#include <string.h>

/* The words these atomics change are shared between processes (a host
 * segment): only lock-free atomics are instructions on the word itself; a
 * lock-based fallback would take a lock in this process's libatomic that no
 * other process sees. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2 && ATOMIC_LONG_LOCK_FREE == 2 &&
               ATOMIC_LLONG_LOCK_FREE == 2, "int, long and long long atomics are lock-free");
_Static_assert(__atomic_always_lock_free(sizeof(uint32_t), 0) &&
               __atomic_always_lock_free(sizeof(uint64_t), 0),
               "4- and 8-byte atomics are always lock-free");

/* An element of any integer type atomic_size accepts: the operator kernels
 * read and write it as the basic type's own C type (long long, long, int,
 * ...), which is a member here, never through a uint64_t object (an
 * aliasing violation the optimiser may use). */
typedef union acc_word {
    uint32_t           u32;
    uint64_t           u64;
    int                i;
    unsigned           u;
    long               l;
    unsigned long      ul;
    long long          ll;
    unsigned long long ull;
    char               bytes[8];
} acc_word_t;

/* Bytes of an element of `basic` that single atomic instructions change
 * (a 4- or 8-byte integer type), else 0. */
static size_t atomic_size(int basic)
{
    switch (basic) {
    case MPI_INT: case MPI_UNSIGNED: case MPI_LONG: case MPI_UNSIGNED_LONG:
    case MPI_LONG_LONG_INT: case MPI_UNSIGNED_LONG_LONG: case MPI_INT32_T:
    case MPI_INT64_T: case MPI_UINT32_T: case MPI_UINT64_T: case MPI_AINT:
    case MPI_COUNT: case MPI_OFFSET: case MPI_INTEGER: case MPI_INTEGER4:
    case MPI_INTEGER8: case MPI_LOGICAL: {
        size_t s = rtmpi_basic_size(basic);

        return s == 4 || s == 8 ? s : 0;
    }
    default:
        return 0;
    }
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

void rtmpi_rma_acc_lock(rma_ctl_t *c)
{
    unsigned spins = 0;

    for (;;) {
        if (!atomic_load_explicit(&c->acc_lock, memory_order_relaxed) &&
            !atomic_exchange_explicit(&c->acc_lock, 1, memory_order_acquire))
            return;
        /* The holder may share our core (more ranks than cores): let it
         * run rather than spin out our time slice. */
        if (++spins < 64)
            cpu_relax();
        else
            sched_yield();
    }
}

void rtmpi_rma_acc_unlock(rma_ctl_t *c)
{
    atomic_store_explicit(&c->acc_lock, 0, memory_order_release);
}

/* One element at p (aligned to its size) by atomic instructions: *p = in op
 * *p; the old value to *old when old != NULL. */
#define ATOMIC_ELEM(_T, _f, _p, _in, _old, _op, _basic) do { \
        _Atomic _T *a_ = (_Atomic _T *)(void *)(_p); \
        acc_word_t v_ = { .u64 = 0 }; \
        _T o_; \
        if ((_op) != MPI_NO_OP) \
            memcpy(v_.bytes, (_in), sizeof(_T)); \
        switch (_op) { \
        case MPI_SUM:     o_ = atomic_fetch_add(a_, v_._f); break; \
        case MPI_BAND:    o_ = atomic_fetch_and(a_, v_._f); break; \
        case MPI_BOR:     o_ = atomic_fetch_or(a_, v_._f); break; \
        case MPI_BXOR:    o_ = atomic_fetch_xor(a_, v_._f); break; \
        case MPI_REPLACE: o_ = atomic_exchange(a_, v_._f); break; \
        case MPI_NO_OP:   o_ = atomic_load(a_); break; \
        default: { \
            acc_word_t n_; \
            _T nv_; \
            o_ = atomic_load(a_); \
            do { \
                memcpy(n_.bytes, &o_, sizeof(_T)); \
                rtmpi_op_apply((_op), &v_, &n_, 1, (_basic)); \
                memcpy(&nv_, n_.bytes, sizeof(_T)); \
            } while (!atomic_compare_exchange_weak(a_, &o_, nv_)); \
        } \
        } \
        if (_old) \
            memcpy((_old), &o_, sizeof(o_)); \
    } while (0)

/* A run of k elements of size es at p by atomic instructions. */
static void atomic_run(char *p, size_t es, size_t k, const char *in, char *old, MPI_Op op,
                       int basic)
{
    for (size_t j = 0; j < k; j++) {
        const char *ij = op == MPI_NO_OP ? NULL : in + j * es;
        char *oj = old ? old + j * es : NULL;

        if (es == 4)
            ATOMIC_ELEM(uint32_t, u32, p + j * es, ij, oj, op, basic);
        else
            ATOMIC_ELEM(uint64_t, u64, p + j * es, ij, oj, op, basic);
    }
}

/* A pair type whose C struct has padding (MPI_DOUBLE_INT, MPI_SHORT_INT,
 * ...): packed, an element is value then int with no gap, so the kernel
 * gets it rebuilt as the struct. */
static int pair_padded(int basic)
{
    const rtmpi_dtype_t *d = rtmpi_dtype_get(basic);

    return d && (MPI_Aint)rtmpi_basic_size(basic) != d->extent;
}

/* The plain kernel over one run (data packed). */
static void kernel_run(char *t, const rma_run_t *r, const char *data, MPI_Op op)
{
    size_t k = rtmpi_run_elems(r->basic, r->len);

    if (k && pair_padded(r->basic)) {
        /* Its runs are the element's two members (never merged): the
         * packed element starts here and spans both. */
        const rtmpi_dtype_t *d = rtmpi_dtype_get(r->basic);
        size_t bs = rtmpi_basic_size(r->basic);
        _Alignas(64) char tmp[64], cur[64];

        for (size_t j = 0; j < k && (size_t)d->extent <= sizeof(tmp); j++) {
            char *p = t + r->disp + (MPI_Aint)j * d->extent;

            rtmpi_unpack(data + j * bs, bs, tmp, 1, d);
            if (((uintptr_t)p & (size_t)(d->align > 1 ? d->align - 1 : 0)) == 0) {
                rtmpi_op_apply(op, tmp, p, 1, r->basic);
            } else {
                /* Misaligned (disp_unit 1): through an aligned copy of the
                 * element from its first member's start to its last's end. */
                size_t span = (size_t)d->true_ub;

                memcpy(cur, p, span);
                rtmpi_op_apply(op, tmp, cur, 1, r->basic);
                memcpy(p, cur, span);
            }
        }
    } else if (k) {
        const rtmpi_dtype_t *d = rtmpi_dtype_get(r->basic);
        size_t al = d && d->align > 1 ? (size_t)d->align : 1;
        char *p = t + r->disp;

        if ((((uintptr_t)p | (uintptr_t)data) & (al - 1)) == 0) {   /* al: a power of 2 */
            rtmpi_op_apply(op, data, p, (MPI_Count)k, r->basic);
            return;
        }
        /* Misaligned target (disp_unit 1) or data: the kernels read typed
         * elements, so through aligned copies, a few elements at a time. */
        size_t es = (size_t)r->len / k;
        _Alignas(64) char in[256], io[256];
        size_t per = es <= sizeof(in) ? sizeof(in) / es : 0;

        for (size_t j = 0; j < k && per; j += per) {
            size_t m = k - j < per ? k - j : per;

            memcpy(in, data + j * es, m * es);
            memcpy(io, p + j * es, m * es);
            rtmpi_op_apply(op, in, io, (MPI_Count)m, r->basic);
            memcpy(p + j * es, io, m * es);
        }
    }
}

static int run_atomic(const char *t, const rma_run_t *r, size_t *es)
{
    *es = atomic_size(r->basic);   /* 0, 4 or 8: masks, not divisions */
    return *es && (((uintptr_t)(t + r->disp) | (uintptr_t)r->len) & (*es - 1)) == 0;
}

void rtmpi_rma_acc(rma_ctl_t *ctl, uint32_t kind, MPI_Op op, char *t, const rma_run_t *runs,
                   uint32_t n, const char *data, const char *compare, char *result)
{
    size_t es;
    int locked = 0;

    if (kind == RMA_CAS) {
        /* One element of a predefined type: runs[0]. */
        size_t bytes = (size_t)runs[0].len;
        char *p = t + runs[0].disp;

        if (ctl && run_atomic(t, &runs[0], &es) && bytes == es) {
            if (es == 4) {
                uint32_t exp, nv;

                memcpy(&exp, compare, 4);
                memcpy(&nv, data, 4);
                atomic_compare_exchange_strong((_Atomic uint32_t *)(void *)p, &exp, nv);
                memcpy(result, &exp, 4);
            } else {
                uint64_t exp, nv;

                memcpy(&exp, compare, 8);
                memcpy(&nv, data, 8);
                atomic_compare_exchange_strong((_Atomic uint64_t *)(void *)p, &exp, nv);
                memcpy(result, &exp, 8);
            }
            return;
        }
        if (ctl)
            rtmpi_rma_acc_lock(ctl);
        memcpy(result, p, bytes);
        if (!memcmp(p, compare, bytes))
            memcpy(p, data, bytes);
        if (ctl)
            rtmpi_rma_acc_unlock(ctl);
        return;
    }

    if (ctl && n == 1 && run_atomic(t, &runs[0], &es)) {
        /* The common case (Fetch_and_op, an integer vector): atomics only. */
        atomic_run(t + runs[0].disp, es, (size_t)runs[0].len / es, data, result, op,
                   runs[0].basic);
        return;
    }
    /* Old values first (Get_accumulate), then the op: a pair's second
     * member is its own run, changed with the first. */
    size_t off = 0;
    for (uint32_t i = 0; i < n; i++) {
        const rma_run_t *r = &runs[i];

        if (ctl && run_atomic(t, r, &es)) {
            atomic_run(t + r->disp, es, (size_t)r->len / es, data ? data + off : NULL,
                       result ? result + off : NULL, op, r->basic);
        } else {
            if (ctl && !locked) {
                rtmpi_rma_acc_lock(ctl);
                locked = 1;
            }
            if (result)
                memcpy(result + off, t + r->disp, (size_t)r->len);
        }
        off += (size_t)r->len;
    }
    if (op != MPI_NO_OP) {
        off = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (!(ctl && run_atomic(t, &runs[i], &es)))
                kernel_run(t, &runs[i], data + off, op);
            off += (size_t)runs[i].len;
        }
    }
    if (locked)
        rtmpi_rma_acc_unlock(ctl);
}
