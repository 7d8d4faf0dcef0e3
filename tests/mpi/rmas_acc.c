/*
 * rmas_acc: accumulate operations, their atomicity and their ordering.
 *
 *   every predefined op + MPI_REPLACE on the types it applies to (C
 *   integers, floating, C_BOOL, BYTE, double complex, MPI_2INT and
 *   MPI_DOUBLE_INT for MAXLOC/MINLOC): all ranks accumulate into every
 *   rank's window in one fence epoch; the result is exact because the ops
 *   are commutative and the values small integers (REPLACE: some origin's
 *   value, element by element);
 *   Fetch_and_op: n*N increments of one counter return each of 0..nN-1
 *   exactly once; REPLACE as a swap chain; NO_OP as a read; MPI_DOUBLE and
 *   MPI_INT64_T MAX;
 *   Get_accumulate: distinct bits added by every rank, every fetched value a
 *   subset of the next (a chain) and the final value all bits; NO_OP;
 *   Compare_and_swap: a failing and a succeeding compare; a spin lock
 *   (CAS on rank 0) protecting a non-atomic Get + Put of a counter on rank
 *   n-1: the total is exact;
 *   ordering: one origin's accumulates to one location apply in program
 *   order (REPLACE 1..K, SUM, then Get_accumulate NO_OP sees K + 5).
 */
#include "tests/mpi/rmas_common.h"

#include <complex.h>

#define L 3
#define FAO_N 100
#define CAS_ROUNDS 20
#define ORD_K 10

static int me, n;

enum { O_SUM, O_PROD, O_MAX, O_MIN, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR, O_REPLACE, NOPS };
enum { C_ARITH = 1, C_MINMAX = 2, C_LOGIC = 4, C_BIT = 8, C_REPL = 16 };
static const char *const op_name[NOPS] = { "SUM", "PROD", "MAX", "MIN", "LAND", "LOR",
                                           "LXOR", "BAND", "BOR", "BXOR", "REPLACE" };
static const int op_cls[NOPS] = { C_ARITH, C_ARITH, C_MINMAX, C_MINMAX, C_LOGIC, C_LOGIC,
                                  C_LOGIC, C_BIT, C_BIT, C_BIT, C_REPL };
static MPI_Op op_of(int o)
{
    switch (o) {
    case O_SUM: return MPI_SUM;
    case O_PROD: return MPI_PROD;
    case O_MAX: return MPI_MAX;
    case O_MIN: return MPI_MIN;
    case O_LAND: return MPI_LAND;
    case O_LOR: return MPI_LOR;
    case O_LXOR: return MPI_LXOR;
    case O_BAND: return MPI_BAND;
    case O_BOR: return MPI_BOR;
    case O_BXOR: return MPI_BXOR;
    default: return MPI_REPLACE;
    }
}

/* Start value of element i of a target, and origin o's operand. */
static int init_v(int op, int i)
{
    switch (op) {
    case O_SUM: case O_PROD: return 1 + i;
    case O_MAX: case O_MIN: return 5;
    case O_LAND: case O_LOR: case O_LXOR: return i != 1;
    case O_BAND: return 0x7F;
    case O_BOR: case O_BXOR: return 0x11;
    default: return 100 + i;
    }
}

static int org_v(int op, int o, int i)
{
    switch (op) {
    case O_SUM: case O_PROD: return 1 + o % 2;
    case O_MAX: case O_MIN: return (o * 5 + i * 3) % 11;
    case O_LAND: case O_LOR: case O_LXOR: return i == 0 ? 1 : i == 1 ? o % 2 : (o + 1) % 3 == 0;
    case O_BAND: case O_BOR: case O_BXOR: return (1 << ((o + i) % 7)) | (o % 2 ? 0x40 : 0x01);
    default: return 10 * o + i + 1;
    }
}

#define APPLY_INT(op, a, b) \
    ((op) == O_SUM ? (a) + (b) : (op) == O_PROD ? (a) * (b) : \
     (op) == O_MAX ? ((a) > (b) ? (a) : (b)) : (op) == O_MIN ? ((a) < (b) ? (a) : (b)) : \
     (op) == O_LAND ? ((a) && (b)) : (op) == O_LOR ? ((a) || (b)) : \
     (op) == O_LXOR ? (!(a) != !(b)) : (op) == O_BAND ? ((a) & (b)) : \
     (op) == O_BOR ? ((a) | (b)) : (op) == O_BXOR ? ((a) ^ (b)) : (b))
#define APPLY_FLT(op, a, b) \
    ((op) == O_SUM ? (a) + (b) : (op) == O_PROD ? (a) * (b) : \
     (op) == O_MAX ? ((a) > (b) ? (a) : (b)) : (op) == O_MIN ? ((a) < (b) ? (a) : (b)) : (b))
#define APPLY_BOOL(op, a, b) \
    ((op) == O_LAND ? ((a) && (b)) : (op) == O_LOR ? ((a) || (b)) : \
     (op) == O_LXOR ? ((a) != (b)) : (b))
#define APPLY_CPLX(op, a, b) ((op) == O_SUM ? (a) + (b) : (op) == O_PROD ? (a) * (b) : (b))

#define MK_INT(T, v) ((T)(v))
#define MK_CPLX(T, v) ((T)((double)(v) + (double)((v) % 3) * I))
#define EQ_PLAIN(a, b) ((a) == (b))
#define PR_PLAIN(x) ((double)(x))
#define PR_CPLX(x) (creal(x))

/* One window of L elements of T per type (MPI_Win_allocate, padded:
 * see rmas_sync.c on MPICH), every op of the classes the type takes. */
#define DEF_ACC(NAME, T, MT, CLS, APPLY, MK, PR) \
    static void acc_##NAME(void) \
    { \
        T *w = NULL, send[L], want[L]; \
        MPI_Win win; \
        char cs[64]; \
        if (!rs_win(RS_ALLOCATE, ((MPI_Aint)sizeof(T) * L + 63) / 64 * 64, (int)sizeof(T), \
                    MPI_COMM_WORLD, (void **)&w, &win)) \
            return; \
        for (int op = 0; op < NOPS; op++) { \
            if (!(op_cls[op] & ((CLS) | C_REPL))) \
                continue; \
            snprintf(cs, sizeof(cs), "Accumulate %s %s", #NAME, op_name[op]); \
            rs_case(cs); \
            for (int i = 0; i < L; i++) \
                w[i] = MK(T, init_v(op, i)); \
            OK(MPI_Win_fence(0, win)); \
            for (int i = 0; i < L; i++) \
                send[i] = MK(T, org_v(op, me, i)); \
            for (int t = 0; t < n; t++) \
                OK(MPI_Accumulate(send, L, MT, t, 0, L, MT, op_of(op), win)); \
            OK(MPI_Win_fence(0, win)); \
            for (int i = 0; i < L; i++) { \
                want[i] = MK(T, init_v(op, i)); \
                for (int o = 0; o < n; o++) \
                    want[i] = (T)APPLY(op, want[i], MK(T, org_v(op, o, i))); \
                if (op == O_REPLACE) { \
                    int any = 0; \
                    for (int o = 0; o < n; o++) \
                        any |= w[i] == MK(T, org_v(op, o, i)); \
                    EXPECT(any, "element %d = %g is no origin's value", i, PR(w[i])); \
                } else { \
                    EXPECT(w[i] == want[i], "element %d = %g, want %g", i, PR(w[i]), \
                           PR(want[i])); \
                } \
            } \
            OK(MPI_Win_fence(0, win)); \
        } \
        rs_win_free(RS_ALLOCATE, w, &win); \
    }

#define C_INTEGER (C_ARITH | C_MINMAX | C_LOGIC | C_BIT)
DEF_ACC(signed_char, signed char, MPI_SIGNED_CHAR, C_INTEGER, APPLY_INT, MK_INT, PR_PLAIN)
DEF_ACC(unsigned_char, unsigned char, MPI_UNSIGNED_CHAR, C_INTEGER, APPLY_INT, MK_INT, PR_PLAIN)
DEF_ACC(short, short, MPI_SHORT, C_INTEGER, APPLY_INT, MK_INT, PR_PLAIN)
DEF_ACC(int, int, MPI_INT, C_INTEGER, APPLY_INT, MK_INT, PR_PLAIN)
DEF_ACC(unsigned, unsigned, MPI_UNSIGNED, C_INTEGER, APPLY_INT, MK_INT, PR_PLAIN)
DEF_ACC(long, long, MPI_LONG, C_INTEGER, APPLY_INT, MK_INT, PR_PLAIN)
DEF_ACC(long_long, long long, MPI_LONG_LONG, C_INTEGER, APPLY_INT, MK_INT, PR_PLAIN)
DEF_ACC(int64, int64_t, MPI_INT64_T, C_INTEGER, APPLY_INT, MK_INT, PR_PLAIN)
DEF_ACC(uint64, uint64_t, MPI_UINT64_T, C_INTEGER, APPLY_INT, MK_INT, PR_PLAIN)
DEF_ACC(float, float, MPI_FLOAT, C_ARITH | C_MINMAX, APPLY_FLT, MK_INT, PR_PLAIN)
DEF_ACC(double, double, MPI_DOUBLE, C_ARITH | C_MINMAX, APPLY_FLT, MK_INT, PR_PLAIN)
DEF_ACC(bool, _Bool, MPI_C_BOOL, C_LOGIC, APPLY_BOOL, MK_INT, PR_PLAIN)
DEF_ACC(byte, unsigned char, MPI_BYTE, C_BIT, APPLY_INT, MK_INT, PR_PLAIN)
DEF_ACC(double_complex, double _Complex, MPI_C_DOUBLE_COMPLEX, C_ARITH, APPLY_CPLX, MK_CPLX,
        PR_CPLX)

/* MAXLOC / MINLOC on value-index pairs: the value is max/min over origins,
 * the index the lowest among those that hold it. */
struct int2 { int v, i; };
struct dblint { double v; int i; };

static int loc_val(int o, int e)
{
    return (o * 3 + e) % 4;  /* ties between origins on purpose */
}

#define DEF_LOC(NAME, T, MT) \
    static void loc_##NAME(void) \
    { \
        T *w = NULL, send[L]; \
        MPI_Win win; \
        char cs[64]; \
        if (!rs_win(RS_ALLOCATE, ((MPI_Aint)sizeof(T) * L + 63) / 64 * 64, (int)sizeof(T), \
                    MPI_COMM_WORLD, (void **)&w, &win)) \
            return; \
        for (int mx = 0; mx < 2; mx++) { \
            snprintf(cs, sizeof(cs), "Accumulate %s %s", #NAME, mx ? "MAXLOC" : "MINLOC"); \
            rs_case(cs); \
            for (int e = 0; e < L; e++) { \
                w[e].v = mx ? -1 : 99; \
                w[e].i = 1000; \
            } \
            OK(MPI_Win_fence(0, win)); \
            for (int e = 0; e < L; e++) { \
                send[e].v = loc_val(me, e); \
                send[e].i = me; \
            } \
            for (int t = 0; t < n; t++) \
                OK(MPI_Accumulate(send, L, MT, t, 0, L, MT, mx ? MPI_MAXLOC : MPI_MINLOC, win)); \
            OK(MPI_Win_fence(0, win)); \
            for (int e = 0; e < L; e++) { \
                int bv = loc_val(0, e), bi = 0; \
                for (int o = 1; o < n; o++) { \
                    int v = loc_val(o, e); \
                    if (mx ? v > bv : v < bv) { \
                        bv = v; \
                        bi = o; \
                    } \
                } \
                EXPECT(w[e].v == bv && w[e].i == bi, "element %d = (%g, %d), want (%d, %d)", e, \
                       (double)w[e].v, w[e].i, bv, bi); \
            } \
            OK(MPI_Win_fence(0, win)); \
        } \
        rs_win_free(RS_ALLOCATE, w, &win); \
    }
DEF_LOC(2int, struct int2, MPI_2INT)
DEF_LOC(double_int, struct dblint, MPI_DOUBLE_INT)

/* Layout of the atomics window (int64 words). */
enum { W_CNT, W_SWAP, W_GACC, W_LOCK, W_DATA, W_MAX, W_DBL, W_ORD, W_WORDS = W_ORD + 8 };

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void atomics(void)
{
    int64_t *w = NULL, one = 1, r, *got = malloc(sizeof(int64_t) * FAO_N);
    int64_t *all = malloc(sizeof(int64_t) * FAO_N * (size_t)n);
    int64_t *chain = malloc(sizeof(int64_t) * (size_t)(n + 1));
    MPI_Win win;
    int last = n - 1;

    rs_case("atomics window");
    if (!rs_win(RS_ALLOCATE, (MPI_Aint)sizeof(int64_t) * 64, (int)sizeof(int64_t), MPI_COMM_WORLD,
                (void **)&w, &win))
        goto out;
    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
    for (int i = 0; i < W_WORDS; i++)
        w[i] = 0;
    ((double *)w)[W_DBL] = 0.5;
    w[W_MAX] = -7;
    OK(MPI_Win_unlock(me, win));
    MPI_Barrier(MPI_COMM_WORLD);

    OK(MPI_Win_lock_all(0, win));
    /* n*N fetch-and-adds of one counter: each old value seen exactly once */
    rs_case("Fetch_and_op SUM contention");
    for (int k = 0; k < FAO_N; k++) {
        got[k] = -1;
        OK(MPI_Fetch_and_op(&one, &got[k], MPI_INT64_T, 0, W_CNT, MPI_SUM, win));
        OK(MPI_Win_flush(0, win));
    }
    /* swap chain: every rank's value replaces another's once */
    rs_case("Fetch_and_op REPLACE");
    {
        int64_t mine = me + 1;
        chain[0] = -1;
        OK(MPI_Fetch_and_op(&mine, &chain[0], MPI_INT64_T, last, W_SWAP, MPI_REPLACE, win));
    }
    rs_case("Get_accumulate SUM chain");
    {
        int64_t bit = (int64_t)1 << me, old = -1;
        OK(MPI_Get_accumulate(&bit, 1, MPI_INT64_T, &old, 1, MPI_INT64_T, 0, W_GACC, 1,
                              MPI_INT64_T, MPI_SUM, win));
        OK(MPI_Win_flush(0, win));
        EXPECT(old >= 0 && !(old & bit), "fetched %lld already holds own bit %lld",
               (long long)old, (long long)bit);
        chain[1] = old;
    }
    rs_case("Fetch_and_op MAX, double SUM");
    {
        int64_t v = 3 * me - 2;
        double d = 1.0, dold = -1;
        OK(MPI_Fetch_and_op(&v, &r, MPI_INT64_T, last, W_MAX, MPI_MAX, win));
        OK(MPI_Fetch_and_op(&d, &dold, MPI_DOUBLE, 0, W_DBL, MPI_SUM, win));
        OK(MPI_Win_flush_all(win));
        EXPECT(r >= -7 && r <= 3 * (n - 1) - 2, "MAX fetched %lld", (long long)r);
        EXPECT(dold >= 0.5 && dold <= n - 0.5 && dold - (int)dold == 0.5,
               "double SUM fetched %g", dold);
    }
    OK(MPI_Win_unlock_all(win));

    MPI_Gather(got, FAO_N, MPI_INT64_T, all, FAO_N, MPI_INT64_T, 0, MPI_COMM_WORLD);
    {
        int64_t pair[2] = { chain[0], chain[1] }, *pairs = malloc(sizeof(int64_t) * 2 * (size_t)n);
        MPI_Gather(pair, 2, MPI_INT64_T, pairs, 2, MPI_INT64_T, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        OK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
        if (me == 0) {
            rs_case("Fetch_and_op SUM contention");
            EXPECT(w[W_CNT] == (int64_t)n * FAO_N, "counter %lld, want %lld",
                   (long long)w[W_CNT], (long long)n * FAO_N);
            qsort(all, (size_t)n * FAO_N, sizeof(int64_t), cmp64);
            for (int64_t k = 0; k < (int64_t)n * FAO_N; k++) {
                if (all[k] != k) {
                    EXPECT(all[k] == k, "sorted fetched values: [%lld] = %lld (lost or twice)",
                           (long long)k, (long long)all[k]);
                    break;
                }
            }
            rs_case("Get_accumulate SUM chain");
            EXPECT(w[W_GACC] == ((int64_t)1 << n) - 1, "final %lld, want %lld",
                   (long long)w[W_GACC], (long long)(((int64_t)1 << n) - 1));
            for (int a = 0; a < n; a++) {
                int seen_by = 0;
                for (int b = 0; b < n; b++) {
                    int64_t x = pairs[2 * a + 1], y = pairs[2 * b + 1];
                    /* each fetched value a subset of every larger one */
                    if (x <= y && (x & y) != x)
                        seen_by++;
                }
                EXPECT(seen_by == 0, "rank %d fetched %lld, not a subset of later fetches", a,
                       (long long)pairs[2 * a + 1]);
            }
            rs_case("Fetch_and_op double SUM");
            EXPECT(((double *)w)[W_DBL] == n + 0.5, "double counter %g, want %g",
                   ((double *)w)[W_DBL], n + 0.5);
        }
        if (me == last) {
            /* the swap chain: fetched values + final value = {0, 1..n} */
            int seen[9] = { 0 }, bad = 0;
            int64_t *p0 = malloc(sizeof(int64_t) * 2 * (size_t)n);
            if (me != 0)
                MPI_Recv(p0, 2 * n, MPI_INT64_T, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            else
                memcpy(p0, pairs, sizeof(int64_t) * 2 * (size_t)n);
            rs_case("Fetch_and_op REPLACE");
            for (int a = 0; a < n; a++) {
                if (p0[2 * a] >= 0 && p0[2 * a] <= n)
                    seen[p0[2 * a]]++;
                else
                    bad = 1;
            }
            if (w[W_SWAP] >= 0 && w[W_SWAP] <= n)
                seen[w[W_SWAP]]++;
            else
                bad = 1;
            for (int v = 0; v <= n; v++)
                bad |= seen[v] != 1;
            EXPECT(!bad, "swapped values are not a permutation of 0..%d (final %lld)", n,
                   (long long)w[W_SWAP]);
            rs_case("Fetch_and_op MAX");
            EXPECT(w[W_MAX] == 3 * (n - 1) - 2, "MAX %lld, want %d", (long long)w[W_MAX], 3 * (n - 1) - 2);
            free(p0);
        } else if (me == 0) {
            MPI_Send(pairs, 2 * n, MPI_INT64_T, last, 7, MPI_COMM_WORLD);
        }
        OK(MPI_Win_unlock(me, win));
        free(pairs);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    OK(MPI_Win_lock_all(0, win));
    /* NO_OP reads; CAS with a wrong then a right compare value, on a word
     * of our own at the next rank */
    rs_case("NO_OP, Compare_and_swap");
    {
        int t = (me + 1) % n;
        int64_t dummy = 0, v = -1, cmp = 5, nv = 100 + me, res = -1;
        OK(MPI_Fetch_and_op(&dummy, &v, MPI_INT64_T, 0, W_CNT, MPI_NO_OP, win));
        OK(MPI_Win_flush(0, win));
        EXPECT(v == (int64_t)n * FAO_N, "Fetch_and_op NO_OP read %lld, want %lld", (long long)v,
               (long long)n * FAO_N);
        v = -1;
        OK(MPI_Get_accumulate(&dummy, 1, MPI_INT64_T, &v, 1, MPI_INT64_T, 0, W_CNT, 1,
                              MPI_INT64_T, MPI_NO_OP, win));
        OK(MPI_Win_flush(0, win));
        EXPECT(v == (int64_t)n * FAO_N, "Get_accumulate NO_OP read %lld", (long long)v);
        OK(MPI_Compare_and_swap(&nv, &cmp, &res, MPI_INT64_T, t, W_ORD + me, win));
        OK(MPI_Win_flush(t, win));
        EXPECT(res == 0, "CAS with wrong compare returned %lld, want 0", (long long)res);
        cmp = 0;
        res = -1;
        OK(MPI_Compare_and_swap(&nv, &cmp, &res, MPI_INT64_T, t, W_ORD + me, win));
        OK(MPI_Win_flush(t, win));
        EXPECT(res == 0, "CAS with right compare returned %lld, want 0", (long long)res);
        OK(MPI_Get(&v, 1, MPI_INT64_T, t, W_ORD + me, 1, MPI_INT64_T, win));
        OK(MPI_Win_flush(t, win));
        EXPECT(v == nv, "after CAS the word is %lld, want %lld", (long long)v, (long long)nv);
    }
    /* a spin lock of CAS on rank 0 guarding Get + Put of rank n-1's word */
    rs_case("CAS spin lock");
    for (int k = 0; k < CAS_ROUNDS; k++) {
        int64_t zero = 0, mine = me + 1, res = -1, x = -1;
        do {
            OK(MPI_Compare_and_swap(&mine, &zero, &res, MPI_INT64_T, 0, W_LOCK, win));
            OK(MPI_Win_flush(0, win));
        } while (res != 0 && res >= 0 && res <= n);
        EXPECT(res == 0, "lock word held %lld", (long long)res);
        OK(MPI_Get(&x, 1, MPI_INT64_T, last, W_DATA, 1, MPI_INT64_T, win));
        OK(MPI_Win_flush(last, win));
        x++;
        OK(MPI_Put(&x, 1, MPI_INT64_T, last, W_DATA, 1, MPI_INT64_T, win));
        OK(MPI_Win_flush(last, win));
        OK(MPI_Accumulate(&zero, 1, MPI_INT64_T, 0, W_LOCK, 1, MPI_INT64_T, MPI_REPLACE, win));
        OK(MPI_Win_flush(0, win));
    }
    OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    /* program order of one origin's accumulates to one location (each rank
     * its own word at the next rank) */
    rs_case("accumulate ordering");
    OK(MPI_Win_lock_all(0, win));
    {
        int t = (me + 1) % n;
        int64_t v[ORD_K], five = 5, dummy = 0, res = -1;
        for (int k = 0; k < ORD_K; k++) {
            v[k] = k + 1;
            OK(MPI_Accumulate(&v[k], 1, MPI_INT64_T, t, W_ORD + me, 1, MPI_INT64_T, MPI_REPLACE,
                              win));
        }
        OK(MPI_Accumulate(&five, 1, MPI_INT64_T, t, W_ORD + me, 1, MPI_INT64_T, MPI_SUM, win));
        OK(MPI_Get_accumulate(&dummy, 1, MPI_INT64_T, &res, 1, MPI_INT64_T, t, W_ORD + me, 1,
                              MPI_INT64_T, MPI_NO_OP, win));
        OK(MPI_Win_flush(t, win));
        EXPECT(res == ORD_K + 5, "REPLACE 1..%d, SUM 5, then NO_OP read %lld, want %d", ORD_K,
               (long long)res, ORD_K + 5);
    }
    OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
    if (me == last) {
        rs_case("CAS spin lock");
        EXPECT(w[W_DATA] == (int64_t)n * CAS_ROUNDS, "counter under the CAS lock %lld, want %lld",
               (long long)w[W_DATA], (long long)n * CAS_ROUNDS);
    }
    rs_case("accumulate ordering");
    {
        int o = (me - 1 + n) % n;
        EXPECT(w[W_ORD + o] == ORD_K + 5, "final word of origin %d: %lld, want %d", o,
               (long long)w[W_ORD + o], ORD_K + 5);
    }
    if (me == 0) {
        rs_case("CAS spin lock");
        EXPECT(w[W_LOCK] == 0, "lock word left %lld", (long long)w[W_LOCK]);
    }
    OK(MPI_Win_unlock(me, win));
    MPI_Barrier(MPI_COMM_WORLD);
    rs_win_free(RS_ALLOCATE, w, &win);
out:
    free(got);
    free(all);
    free(chain);
}

int main(int argc, char **argv)
{
    rs_init(&argc, &argv);
    me = th_rank;
    n = th_size;
    if (n > 8)
        TH_SKIP("at most 8 ranks");
    rs_flavor_now = "allocate";
    acc_signed_char();
    acc_unsigned_char();
    acc_short();
    acc_int();
    acc_unsigned();
    acc_long();
    acc_long_long();
    acc_int64();
    acc_uint64();
    acc_float();
    acc_double();
    acc_bool();
    acc_byte();
    acc_double_complex();
    loc_2int();
    loc_double_int();
    atomics();
    th_case = NULL;
    return mt_finish("rmas_acc");
}
