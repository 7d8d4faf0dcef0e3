/*
 * Reduction operations: the predefined ops on every basic type they apply
 * to (MPI 3.1 5.9.2), and user ops. A kernel with n == 0 only answers
 * whether it applies to the type, which is how arguments are checked.
 */
#include "config.h"

#include "mpi_impl.h"

#include <complex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define INT_TYPES(X) \
    X(MPI_CHAR, char) X(MPI_SIGNED_CHAR, signed char) X(MPI_UNSIGNED_CHAR, unsigned char) \
    X(MPI_SHORT, short) X(MPI_UNSIGNED_SHORT, unsigned short) X(MPI_INT, int) \
    X(MPI_UNSIGNED, unsigned) X(MPI_LONG, long) X(MPI_UNSIGNED_LONG, unsigned long) \
    X(MPI_LONG_LONG_INT, long long) X(MPI_UNSIGNED_LONG_LONG, unsigned long long) \
    X(MPI_INT8_T, int8_t) X(MPI_INT16_T, int16_t) X(MPI_INT32_T, int32_t) \
    X(MPI_INT64_T, int64_t) X(MPI_UINT8_T, uint8_t) X(MPI_UINT16_T, uint16_t) \
    X(MPI_UINT32_T, uint32_t) X(MPI_UINT64_T, uint64_t) X(MPI_AINT, MPI_Aint) \
    X(MPI_COUNT, MPI_Count) X(MPI_OFFSET, MPI_Offset)
#define FLOAT_TYPES(X) \
    X(MPI_FLOAT, float) X(MPI_DOUBLE, double) X(MPI_LONG_DOUBLE, long double)
#define COMPLEX_TYPES(X) \
    X(MPI_C_FLOAT_COMPLEX, float _Complex) X(MPI_C_DOUBLE_COMPLEX, double _Complex) \
    X(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex)
#define BOOL_TYPES(X) X(MPI_C_BOOL, _Bool)
#define BYTE_TYPES(X) X(MPI_BYTE, unsigned char)
/* The Fortran and C++ types of MPI 3.1 5.9.2's classes (gfortran's sizes,
 * as datatype.c's table): Fortran integer takes MAX/MIN/SUM/PROD and the
 * bitwise ops, not the logical ones; Logical only LAND/LOR/LXOR (a
 * LOGICAL's result is 1 or 0, gfortran's .TRUE. and .FALSE.). */
#ifdef __SIZEOF_INT128__
#define FORTRAN_INT16_TYPES(X) X(MPI_INTEGER16, __int128)
#else
#define FORTRAN_INT16_TYPES(X)
#endif
#define FORTRAN_INT_TYPES(X) \
    X(MPI_INTEGER, int32_t) X(MPI_INTEGER1, int8_t) X(MPI_INTEGER2, int16_t) \
    X(MPI_INTEGER4, int32_t) X(MPI_INTEGER8, int64_t) FORTRAN_INT16_TYPES(X)
#ifdef __FLT128_MANT_DIG__
#define QUAD_FLOAT_TYPES(X) X(MPI_REAL16, _Float128)
#define QUAD_COMPLEX_TYPES(X) X(MPI_COMPLEX32, _Float128 _Complex)
#else
#define QUAD_FLOAT_TYPES(X)
#define QUAD_COMPLEX_TYPES(X)
#endif
#define FORTRAN_FLOAT_TYPES(X) \
    X(MPI_REAL, float) X(MPI_DOUBLE_PRECISION, double) X(MPI_REAL4, float) \
    X(MPI_REAL8, double) QUAD_FLOAT_TYPES(X)
#define MORE_COMPLEX_TYPES(X) \
    X(MPI_COMPLEX, float _Complex) X(MPI_DOUBLE_COMPLEX, double _Complex) \
    X(MPI_COMPLEX8, float _Complex) X(MPI_COMPLEX16, double _Complex) QUAD_COMPLEX_TYPES(X) \
    X(MPI_CXX_FLOAT_COMPLEX, float _Complex) X(MPI_CXX_DOUBLE_COMPLEX, double _Complex) \
    X(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex)
#define MORE_BOOL_TYPES(X) X(MPI_LOGICAL, int32_t) X(MPI_CXX_BOOL, _Bool)
struct pair_2integer { int32_t f, i; };
struct pair_2real { float f, i; };
struct pair_2double_precision { double f, i; };
#define FORTRAN_PAIR_TYPES(X) \
    X(MPI_2INTEGER, struct pair_2integer) X(MPI_2REAL, struct pair_2real) \
    X(MPI_2DOUBLE_PRECISION, struct pair_2double_precision)
struct pair_float_int { float f; int i; };
struct pair_double_int { double f; int i; };
struct pair_long_int { long f; int i; };
struct pair_2int { int f; int i; };
struct pair_short_int { short f; int i; };
struct pair_long_double_int { long double f; int i; };
#define PAIR_TYPES(X) \
    X(MPI_FLOAT_INT, struct pair_float_int) X(MPI_DOUBLE_INT, struct pair_double_int) \
    X(MPI_LONG_INT, struct pair_long_int) X(MPI_2INT, struct pair_2int) \
    X(MPI_SHORT_INT, struct pair_short_int) X(MPI_LONG_DOUBLE_INT, struct pair_long_double_int)

typedef int kernel_fn(const void *restrict in, void *restrict inout, size_t n, int basic);

/* One kernel: a switch over the basic types it applies to, each case a loop
 * of `stmt` over a[i] (in) and b[i] (inout), element by element.
 *
 * Written for the vectorizer: in and inout do not overlap (restrict: MPI
 * forbids aliased arguments, and every caller here passes distinct
 * buffers), and the loop runs in blocks of KBLOCK elements, a constant trip
 * count that GCC's -O2 cost model vectorizes (it leaves a loop of unknown
 * count scalar), then the tail. Where the compiler can (configure's
 * RTM_HAVE_TARGET_CLONES), each kernel is built for AVX-512, AVX2 and the
 * base instruction set, and the loader picks the best the CPU has. A float
 * sum of 16384 elements: 6.9-7.3 us as a plain loop, 2.4 in blocks (SSE2),
 * 1.6 with AVX2/AVX-512 (Open MPI's op/avx: 1.6); docs/collectives.md. */
#define KBLOCK 16
#define CASE(_id, _ct) \
    case _id: { \
        size_t blocked_ = n - n % KBLOCK; \
        for (size_t o_ = 0; o_ < blocked_; o_ += KBLOCK) { \
            const _ct *a = (const _ct *)in + o_; \
            _ct *b = (_ct *)inout + o_; \
            for (int i = 0; i < KBLOCK; i++) { STMT } \
        } \
        const _ct *a = (const _ct *)in + blocked_; \
        _ct *b = (_ct *)inout + blocked_; \
        for (size_t i = 0; i < n - blocked_; i++) { STMT } \
        return 0; \
    }

#ifdef RTM_HAVE_TARGET_CLONES
#define KERNEL_ISAS __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define KERNEL_ISAS
#endif

/* MAX and MIN as a select, not a conditional store: the compiler may not
 * store where the source did not, so only the select vectorizes. The same
 * result, NaN included (b stays unless a compares greater/less). */
#define STMT b[i] = a[i] > b[i] ? a[i] : b[i];
KERNEL_ISAS static int k_max(const void *restrict in, void *restrict inout, size_t n, int basic)
{
    switch (basic) {
    INT_TYPES(CASE) FLOAT_TYPES(CASE) FORTRAN_INT_TYPES(CASE) FORTRAN_FLOAT_TYPES(CASE)
    default: return -1;
    }
}
#undef STMT
#define STMT b[i] = a[i] < b[i] ? a[i] : b[i];
KERNEL_ISAS static int k_min(const void *restrict in, void *restrict inout, size_t n, int basic)
{
    switch (basic) {
    INT_TYPES(CASE) FLOAT_TYPES(CASE) FORTRAN_INT_TYPES(CASE) FORTRAN_FLOAT_TYPES(CASE)
    default: return -1;
    }
}
#undef STMT
#define STMT b[i] += a[i];
KERNEL_ISAS static int k_sum(const void *restrict in, void *restrict inout, size_t n, int basic)
{
    switch (basic) {
    INT_TYPES(CASE) FLOAT_TYPES(CASE) COMPLEX_TYPES(CASE)
    FORTRAN_INT_TYPES(CASE) FORTRAN_FLOAT_TYPES(CASE) MORE_COMPLEX_TYPES(CASE)
    default: return -1;
    }
}
#undef STMT
#define STMT b[i] *= a[i];
KERNEL_ISAS static int k_prod(const void *restrict in, void *restrict inout, size_t n, int basic)
{
    switch (basic) {
    INT_TYPES(CASE) FLOAT_TYPES(CASE) COMPLEX_TYPES(CASE)
    FORTRAN_INT_TYPES(CASE) FORTRAN_FLOAT_TYPES(CASE) MORE_COMPLEX_TYPES(CASE)
    default: return -1;
    }
}
#undef STMT
#define STMT b[i] = a[i] && b[i];
KERNEL_ISAS static int k_land(const void *restrict in, void *restrict inout, size_t n, int basic)
{
    switch (basic) { INT_TYPES(CASE) BOOL_TYPES(CASE) MORE_BOOL_TYPES(CASE) default: return -1; }
}
#undef STMT
#define STMT b[i] = a[i] || b[i];
KERNEL_ISAS static int k_lor(const void *restrict in, void *restrict inout, size_t n, int basic)
{
    switch (basic) { INT_TYPES(CASE) BOOL_TYPES(CASE) MORE_BOOL_TYPES(CASE) default: return -1; }
}
#undef STMT
#define STMT b[i] = (!a[i]) != (!b[i]);
KERNEL_ISAS static int k_lxor(const void *restrict in, void *restrict inout, size_t n, int basic)
{
    switch (basic) { INT_TYPES(CASE) BOOL_TYPES(CASE) MORE_BOOL_TYPES(CASE) default: return -1; }
}
#undef STMT
#define STMT b[i] &= a[i];
KERNEL_ISAS static int k_band(const void *restrict in, void *restrict inout, size_t n, int basic)
{
    switch (basic) {
    INT_TYPES(CASE) BYTE_TYPES(CASE) FORTRAN_INT_TYPES(CASE)
    default: return -1;
    }
}
#undef STMT
#define STMT b[i] |= a[i];
KERNEL_ISAS static int k_bor(const void *restrict in, void *restrict inout, size_t n, int basic)
{
    switch (basic) {
    INT_TYPES(CASE) BYTE_TYPES(CASE) FORTRAN_INT_TYPES(CASE)
    default: return -1;
    }
}
#undef STMT
#define STMT b[i] ^= a[i];
KERNEL_ISAS static int k_bxor(const void *restrict in, void *restrict inout, size_t n, int basic)
{
    switch (basic) {
    INT_TYPES(CASE) BYTE_TYPES(CASE) FORTRAN_INT_TYPES(CASE)
    default: return -1;
    }
}
#undef STMT
/* MAXLOC/MINLOC: the larger (smaller) value; on a tie, the smaller index. */
/* Members, not the struct: a pair's data ends before its padding (its size
 * is 12 for MPI_DOUBLE_INT), and a buffer may end there too. */
#define STMT \
    if (a[i].f > b[i].f || (a[i].f == b[i].f && a[i].i < b[i].i)) { b[i].f = a[i].f; b[i].i = a[i].i; }
static int k_maxloc(const void *restrict in, void *restrict inout, size_t n, int basic)
{
    switch (basic) { PAIR_TYPES(CASE) FORTRAN_PAIR_TYPES(CASE) default: return -1; }
}
#undef STMT
#define STMT \
    if (a[i].f < b[i].f || (a[i].f == b[i].f && a[i].i < b[i].i)) { b[i].f = a[i].f; b[i].i = a[i].i; }
static int k_minloc(const void *restrict in, void *restrict inout, size_t n, int basic)
{
    switch (basic) { PAIR_TYPES(CASE) FORTRAN_PAIR_TYPES(CASE) default: return -1; }
}
#undef STMT
/* MPI_REPLACE of pairs, member by member: MPI_SHORT_INT's int does not
 * follow its short (its size, 6, is not its layout's). */
#define STMT b[i].f = a[i].f; b[i].i = a[i].i;
static int k_replace_pair(const void *restrict in, void *restrict inout, size_t n, int basic)
{
    switch (basic) { PAIR_TYPES(CASE) FORTRAN_PAIR_TYPES(CASE) default: return -1; }
}
#undef STMT
#undef CASE

static int k_replace(const void *restrict in, void *restrict inout, size_t n, int basic)
{
    if (n == 0)   /* the check of rtmpi_op_valid_for: no buffers (NULL) */
        return 0;
    if (k_replace_pair(in, inout, n, basic) == 0)
        return 0;
    memcpy(inout, in, n * rtmpi_basic_size(basic));
    return 0;
}

static int k_no_op(const void *restrict in, void *restrict inout, size_t n, int basic)
{
    (void)in; (void)inout; (void)n; (void)basic;
    return 0;
}

/* The op table: the predefined ops, then user ops in a table that grows as
 * needed (a copy of this one, made at the first MPI_Op_create). */
typedef struct op_entry {
    int in_use;
    int commute;
    kernel_fn *kernel;               /* predefined */
    MPI_User_function *user_fn;      /* user */
    int refs;                        /* requests holding it: its slot is not reused */
} op_entry_t;
static op_entry_t predefined_ops[MPI_NO_OP + 1] = {
    [MPI_MAX] = { 1, 1, k_max, NULL },       [MPI_MIN] = { 1, 1, k_min, NULL },
    [MPI_SUM] = { 1, 1, k_sum, NULL },       [MPI_PROD] = { 1, 1, k_prod, NULL },
    [MPI_LAND] = { 1, 1, k_land, NULL },     [MPI_BAND] = { 1, 1, k_band, NULL },
    [MPI_LOR] = { 1, 1, k_lor, NULL },       [MPI_BOR] = { 1, 1, k_bor, NULL },
    [MPI_LXOR] = { 1, 1, k_lxor, NULL },     [MPI_BXOR] = { 1, 1, k_bxor, NULL },
    [MPI_MAXLOC] = { 1, 1, k_maxloc, NULL }, [MPI_MINLOC] = { 1, 1, k_minloc, NULL },
    [MPI_REPLACE] = { 1, 0, k_replace, NULL }, [MPI_NO_OP] = { 1, 0, k_no_op, NULL },
};
static op_entry_t *ops = predefined_ops;
static int nops = MPI_NO_OP + 1, ops_cap;   /* ops_cap 0: ops is predefined_ops */

void rtmpi_op_init(void)
{
}

int rtmpi_op_check(MPI_Op op)
{
    return op > 0 && op < nops && ops[op].in_use ? MPI_SUCCESS : MPI_ERR_OP;
}

void rtmpi_op_retain(MPI_Op op)
{
    if (op > MPI_NO_OP && op < nops)
        ops[op].refs++;
}

void rtmpi_op_release(MPI_Op op)
{
    if (op > MPI_NO_OP && op < nops)
        ops[op].refs--;
}

int rtmpi_op_commutative(MPI_Op op)
{
    return ops[op].commute;
}

int rtmpi_op_valid_for(MPI_Op op, MPI_Datatype dt)
{
    rtmpi_dtype_t *d = rtmpi_dtype_get(dt);

    if (rtmpi_op_check(op) || !d)
        return MPI_ERR_OP;
    if (ops[op].user_fn || d->size == 0)
        return MPI_SUCCESS;
    if (d->basic == RTMPI_BASIC_MIXED || ops[op].kernel(NULL, NULL, 0, d->basic) != 0)
        return MPI_ERR_OP;
    return MPI_SUCCESS;
}

/* One run of the typemap: the elements that begin in it, reduced. */
struct op_walk {
    kernel_fn *kernel;
    const char *in;
    char *inout;
};

static int op_run(MPI_Aint disp, MPI_Aint len, int basic, void *arg)
{
    struct op_walk *w = arg;
    size_t n = rtmpi_run_elems(basic, len);

    return n && w->kernel(rtmpi_addr(w->in, disp), rtmpi_addr(w->inout, disp), n, basic) ? MPI_ERR_OP : 0;
}

int rtmpi_op_apply(MPI_Op op, const void *in, void *inout, MPI_Count count, MPI_Datatype dt)
{
    rtmpi_dtype_t *d = rtmpi_dtype_obj(dt);   /* a held type may have been freed */
    MPI_Aint off;

    if (count == 0)
        return MPI_SUCCESS;
    if (ops[op].user_fn) {
        /* Counts above INT_MAX would need splitting by the caller. */
        int n = (int)count;
        MPI_Datatype t = dt;

        ops[op].user_fn((void *)in, inout, &n, &t);
        return MPI_SUCCESS;
    }
    if (d->basic == RTMPI_BASIC_MIXED)
        return MPI_ERR_OP;
    size_t bs = rtmpi_basic_size(d->basic);
    if (rtmpi_dtype_contig(d, count, &off))
        return ops[op].kernel(rtmpi_addr(in, off), rtmpi_addr(inout, off),
                              (size_t)(count * d->size) / bs, d->basic) ? MPI_ERR_OP : MPI_SUCCESS;
    struct op_walk w = { ops[op].kernel, in, inout };
    return rtmpi_dtype_walk(d, count, op_run, &w);
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    RTMPI_ENTER();
    if (!user_fn || !op)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "user_fn or op is NULL");
    int h = 0;
    for (int i = MPI_NO_OP + 1; i < nops && !h; i++)
        if (!ops[i].in_use && !ops[i].refs)
            h = i;
    if (!h && nops == (ops_cap ? ops_cap : nops)) {
        int cap = ops_cap ? ops_cap * 2 : 64;
        op_entry_t *t = realloc(ops_cap ? ops : NULL, (size_t)cap * sizeof(*t));

        if (!t)
            return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM,
                               "out of memory for a reduction op");
        int old = ops_cap ? ops_cap : MPI_NO_OP + 1;
        if (!ops_cap)
            memcpy(t, predefined_ops, sizeof(predefined_ops));
        memset(t + old, 0, (size_t)(cap - old) * sizeof(*t));
        ops = t;
        ops_cap = cap;
    }
    if (!h)
        h = nops++;
    ops[h].in_use = 1;
    ops[h].commute = commute ? 1 : 0;
    ops[h].kernel = NULL;
    ops[h].user_fn = user_fn;
    *op = h;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Op_create)

int PMPI_Op_free(MPI_Op *op)
{
    RTMPI_ENTER();
    if (!op || rtmpi_op_check(*op))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_OP, "invalid op");
    if (*op <= MPI_NO_OP)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_OP, "predefined op %d cannot be freed", *op);
    ops[*op].in_use = 0;
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Op_free)

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    RTMPI_ENTER();
    if (rtmpi_op_check(op))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_OP, "invalid op %d", op);
    if (!commute)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "commute is NULL");
    *commute = ops[op].commute;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Op_commutative)

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    rtmpi_dtype_t *d;

    RTMPI_ENTER();
    if (rtmpi_op_check(op))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_OP, "invalid op %d", op);
    if (rtmpi_dtype_check(datatype, &d))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_TYPE, "invalid datatype %d", datatype);
    if (count < 0)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COUNT, "negative count %d", count);
    if (count > 0 && (!inbuf || !inoutbuf) && d->true_lb == 0)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_BUFFER, "NULL buffer");
    if (rtmpi_op_valid_for(op, datatype))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_OP,
                           "op %d does not apply to datatype %s", op, d->name);
    return rtmpi_op_apply(op, inbuf, inoutbuf, count, datatype);
}
RTMPI_WEAK(Reduce_local)
