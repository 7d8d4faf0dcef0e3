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

typedef int kernel_fn(const void *in, void *inout, size_t n, int basic);

/* One kernel: a switch over the basic types it applies to, each case a loop
 * of `stmt` over a[i] (in) and b[i] (inout). */
#define CASE(_id, _ct) \
    case _id: { \
        const _ct *a = in; \
        _ct *b = inout; \
        for (size_t i = 0; i < n; i++) { STMT } \
        return 0; \
    }

#define STMT if (a[i] > b[i]) b[i] = a[i];
static int k_max(const void *in, void *inout, size_t n, int basic)
{
    switch (basic) { INT_TYPES(CASE) FLOAT_TYPES(CASE) default: return -1; }
}
#undef STMT
#define STMT if (a[i] < b[i]) b[i] = a[i];
static int k_min(const void *in, void *inout, size_t n, int basic)
{
    switch (basic) { INT_TYPES(CASE) FLOAT_TYPES(CASE) default: return -1; }
}
#undef STMT
#define STMT b[i] += a[i];
static int k_sum(const void *in, void *inout, size_t n, int basic)
{
    switch (basic) { INT_TYPES(CASE) FLOAT_TYPES(CASE) COMPLEX_TYPES(CASE) default: return -1; }
}
#undef STMT
#define STMT b[i] *= a[i];
static int k_prod(const void *in, void *inout, size_t n, int basic)
{
    switch (basic) { INT_TYPES(CASE) FLOAT_TYPES(CASE) COMPLEX_TYPES(CASE) default: return -1; }
}
#undef STMT
#define STMT b[i] = a[i] && b[i];
static int k_land(const void *in, void *inout, size_t n, int basic)
{
    switch (basic) { INT_TYPES(CASE) BOOL_TYPES(CASE) default: return -1; }
}
#undef STMT
#define STMT b[i] = a[i] || b[i];
static int k_lor(const void *in, void *inout, size_t n, int basic)
{
    switch (basic) { INT_TYPES(CASE) BOOL_TYPES(CASE) default: return -1; }
}
#undef STMT
#define STMT b[i] = (!a[i]) != (!b[i]);
static int k_lxor(const void *in, void *inout, size_t n, int basic)
{
    switch (basic) { INT_TYPES(CASE) BOOL_TYPES(CASE) default: return -1; }
}
#undef STMT
#define STMT b[i] &= a[i];
static int k_band(const void *in, void *inout, size_t n, int basic)
{
    switch (basic) { INT_TYPES(CASE) BYTE_TYPES(CASE) default: return -1; }
}
#undef STMT
#define STMT b[i] |= a[i];
static int k_bor(const void *in, void *inout, size_t n, int basic)
{
    switch (basic) { INT_TYPES(CASE) BYTE_TYPES(CASE) default: return -1; }
}
#undef STMT
#define STMT b[i] ^= a[i];
static int k_bxor(const void *in, void *inout, size_t n, int basic)
{
    switch (basic) { INT_TYPES(CASE) BYTE_TYPES(CASE) default: return -1; }
}
#undef STMT
/* MAXLOC/MINLOC: the larger (smaller) value; on a tie, the smaller index. */
/* Members, not the struct: a pair's data ends before its padding (its size
 * is 12 for MPI_DOUBLE_INT), and a buffer may end there too. */
#define STMT \
    if (a[i].f > b[i].f || (a[i].f == b[i].f && a[i].i < b[i].i)) { b[i].f = a[i].f; b[i].i = a[i].i; }
static int k_maxloc(const void *in, void *inout, size_t n, int basic)
{
    switch (basic) { PAIR_TYPES(CASE) default: return -1; }
}
#undef STMT
#define STMT \
    if (a[i].f < b[i].f || (a[i].f == b[i].f && a[i].i < b[i].i)) { b[i].f = a[i].f; b[i].i = a[i].i; }
static int k_minloc(const void *in, void *inout, size_t n, int basic)
{
    switch (basic) { PAIR_TYPES(CASE) default: return -1; }
}
#undef STMT
#undef CASE

static int k_replace(const void *in, void *inout, size_t n, int basic)
{
    memcpy(inout, in, n * rtmpi_basic_size(basic));
    return 0;
}

static int k_no_op(const void *in, void *inout, size_t n, int basic)
{
    (void)in; (void)inout; (void)n; (void)basic;
    return 0;
}

#define MAX_OPS 256
static struct {
    int in_use;
    int commute;
    kernel_fn *kernel;               /* predefined */
    MPI_User_function *user_fn;      /* user */
} ops[MAX_OPS] = {
    [MPI_MAX] = { 1, 1, k_max, NULL },       [MPI_MIN] = { 1, 1, k_min, NULL },
    [MPI_SUM] = { 1, 1, k_sum, NULL },       [MPI_PROD] = { 1, 1, k_prod, NULL },
    [MPI_LAND] = { 1, 1, k_land, NULL },     [MPI_BAND] = { 1, 1, k_band, NULL },
    [MPI_LOR] = { 1, 1, k_lor, NULL },       [MPI_BOR] = { 1, 1, k_bor, NULL },
    [MPI_LXOR] = { 1, 1, k_lxor, NULL },     [MPI_BXOR] = { 1, 1, k_bxor, NULL },
    [MPI_MAXLOC] = { 1, 1, k_maxloc, NULL }, [MPI_MINLOC] = { 1, 1, k_minloc, NULL },
    [MPI_REPLACE] = { 1, 0, k_replace, NULL }, [MPI_NO_OP] = { 1, 0, k_no_op, NULL },
};

void rtmpi_op_init(void)
{
}

int rtmpi_op_check(MPI_Op op)
{
    return op > 0 && op < MAX_OPS && ops[op].in_use ? MPI_SUCCESS : MPI_ERR_OP;
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

    return n && w->kernel(w->in + disp, w->inout + disp, n, basic) ? MPI_ERR_OP : 0;
}

int rtmpi_op_apply(MPI_Op op, const void *in, void *inout, MPI_Count count, MPI_Datatype dt)
{
    rtmpi_dtype_t *d = rtmpi_dtype_get(dt);
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
        return ops[op].kernel((const char *)in + off, (char *)inout + off,
                              (size_t)(count * d->size) / bs, d->basic) ? MPI_ERR_OP : MPI_SUCCESS;
    struct op_walk w = { ops[op].kernel, in, inout };
    return rtmpi_dtype_walk(d, count, op_run, &w);
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    RTMPI_ENTER();
    if (!user_fn || !op)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "user_fn or op is NULL");
    for (int i = MPI_NO_OP + 1; i < MAX_OPS; i++) {
        if (!ops[i].in_use) {
            ops[i].in_use = 1;
            ops[i].commute = commute ? 1 : 0;
            ops[i].kernel = NULL;
            ops[i].user_fn = user_fn;
            *op = i;
            return MPI_SUCCESS;
        }
    }
    return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM,
                       "more than %d user reduction ops", MAX_OPS - MPI_NO_OP - 1);
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
