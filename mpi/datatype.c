/*
 * MPI datatypes. Every datatype is flattened at construction into a list of
 * segments (displacement, length, basic type) relative to the buffer, with
 * adjacent runs of one basic type merged; a contiguous datatype is therefore
 * one segment and travels without a copy, anything else is packed into (and
 * unpacked from) a contiguous buffer by walking the segments.
 */
#include "config.h"

#include "mpi_impl.h"

#include <complex.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* The pair types of MAXLOC/MINLOC: C lays them out like these structs. */
struct rtmpi_float_int       { float f; int i; };
struct rtmpi_double_int      { double f; int i; };
struct rtmpi_long_int        { long f; int i; };
struct rtmpi_2int            { int f; int i; };
struct rtmpi_short_int       { short f; int i; };
struct rtmpi_long_double_int { long double f; int i; };
/* The Fortran pairs of MAXLOC/MINLOC, in gfortran's types. */
struct rtmpi_2integer          { int32_t f, i; };
struct rtmpi_2real             { float f, i; };
struct rtmpi_2double_precision { double f, i; };
/* INTEGER(16) and REAL(16) of gfortran (IEEE quad) where the C compiler
 * has them; elsewhere the handles exist, as 16-byte types no op applies to. */
#ifdef __SIZEOF_INT128__
typedef __int128 rtmpi_integer16_t;
#else
typedef struct { _Alignas(16) unsigned char b[16]; } rtmpi_integer16_t;
#endif
#ifdef __FLT128_MANT_DIG__
typedef _Float128 rtmpi_real16_t;
typedef _Float128 _Complex rtmpi_complex32_t;
#else
typedef struct { _Alignas(16) unsigned char b[16]; } rtmpi_real16_t;
typedef struct { _Alignas(16) unsigned char b[32]; } rtmpi_complex32_t;
#endif

#define BASIC(_id, _ctype) [_id] = { sizeof(_ctype), _Alignof(_ctype), #_id }
static const struct {
    size_t size, align;
    const char *name;
} basics[RTMPI_N_PREDEFINED_TYPES] = {
    BASIC(MPI_CHAR, char),
    BASIC(MPI_SIGNED_CHAR, signed char),
    BASIC(MPI_UNSIGNED_CHAR, unsigned char),
    BASIC(MPI_BYTE, unsigned char),
    BASIC(MPI_SHORT, short),
    BASIC(MPI_UNSIGNED_SHORT, unsigned short),
    BASIC(MPI_INT, int),
    BASIC(MPI_UNSIGNED, unsigned),
    BASIC(MPI_LONG, long),
    BASIC(MPI_UNSIGNED_LONG, unsigned long),
    BASIC(MPI_LONG_LONG_INT, long long),
    BASIC(MPI_UNSIGNED_LONG_LONG, unsigned long long),
    BASIC(MPI_FLOAT, float),
    BASIC(MPI_DOUBLE, double),
    BASIC(MPI_LONG_DOUBLE, long double),
    BASIC(MPI_WCHAR, wchar_t),
    BASIC(MPI_C_BOOL, _Bool),
    BASIC(MPI_INT8_T, int8_t),
    BASIC(MPI_INT16_T, int16_t),
    BASIC(MPI_INT32_T, int32_t),
    BASIC(MPI_INT64_T, int64_t),
    BASIC(MPI_UINT8_T, uint8_t),
    BASIC(MPI_UINT16_T, uint16_t),
    BASIC(MPI_UINT32_T, uint32_t),
    BASIC(MPI_UINT64_T, uint64_t),
    BASIC(MPI_AINT, MPI_Aint),
    BASIC(MPI_COUNT, MPI_Count),
    BASIC(MPI_OFFSET, MPI_Offset),
    BASIC(MPI_C_FLOAT_COMPLEX, float _Complex),
    BASIC(MPI_C_DOUBLE_COMPLEX, double _Complex),
    BASIC(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex),
    BASIC(MPI_PACKED, unsigned char),
    BASIC(MPI_FLOAT_INT, struct rtmpi_float_int),
    BASIC(MPI_DOUBLE_INT, struct rtmpi_double_int),
    BASIC(MPI_LONG_INT, struct rtmpi_long_int),
    BASIC(MPI_2INT, struct rtmpi_2int),
    BASIC(MPI_SHORT_INT, struct rtmpi_short_int),
    BASIC(MPI_LONG_DOUBLE_INT, struct rtmpi_long_double_int),
    BASIC(MPI_INTEGER, int32_t),
    BASIC(MPI_REAL, float),
    BASIC(MPI_DOUBLE_PRECISION, double),
    BASIC(MPI_COMPLEX, float _Complex),
    BASIC(MPI_DOUBLE_COMPLEX, double _Complex),
    BASIC(MPI_LOGICAL, int32_t),
    BASIC(MPI_CHARACTER, char),
    BASIC(MPI_INTEGER1, int8_t),
    BASIC(MPI_INTEGER2, int16_t),
    BASIC(MPI_INTEGER4, int32_t),
    BASIC(MPI_INTEGER8, int64_t),
    BASIC(MPI_INTEGER16, rtmpi_integer16_t),
    BASIC(MPI_REAL4, float),
    BASIC(MPI_REAL8, double),
    BASIC(MPI_REAL16, rtmpi_real16_t),
    BASIC(MPI_COMPLEX8, float _Complex),
    BASIC(MPI_COMPLEX16, double _Complex),
    BASIC(MPI_COMPLEX32, rtmpi_complex32_t),
    BASIC(MPI_2INTEGER, struct rtmpi_2integer),
    BASIC(MPI_2REAL, struct rtmpi_2real),
    BASIC(MPI_2DOUBLE_PRECISION, struct rtmpi_2double_precision),
    BASIC(MPI_CXX_BOOL, _Bool),
    BASIC(MPI_CXX_FLOAT_COMPLEX, float _Complex),
    BASIC(MPI_CXX_DOUBLE_COMPLEX, double _Complex),
    BASIC(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex),
};

static rtmpi_dtype_t predefined[RTMPI_N_PREDEFINED_TYPES];
static rtmpi_seg_t predefined_segs[RTMPI_N_PREDEFINED_TYPES];
rtmpi_dtype_t **rtmpi_types;  /* by handle; mpi_impl.h reads it inline */
int rtmpi_ntypes;
static int types_cap;

size_t rtmpi_basic_size(int basic)
{
    return basics[basic].size;
}

void rtmpi_dtype_init(void)
{
    types_cap = 2 * RTMPI_N_PREDEFINED_TYPES;
rtmpi_types = calloc((size_t)types_cap, sizeof(*rtmpi_types));
    rtmpi_ntypes = RTMPI_N_PREDEFINED_TYPES;
    for (int i = 1; i < RTMPI_N_PREDEFINED_TYPES; i++) {
        rtmpi_dtype_t *d = &predefined[i];

        memset(d, 0, sizeof(*d));
        d->in_use = 1;
        d->refcount = 1;
        d->predefined = 1;
        d->committed = 1;
        d->combiner = MPI_COMBINER_NAMED;
        d->size = (MPI_Count)basics[i].size;
        d->extent = (MPI_Aint)basics[i].size;
        d->true_ub = d->extent;
        d->align = (MPI_Aint)basics[i].align;
        d->basic = i;
        d->nbasic = 1;
        predefined_segs[i] = (rtmpi_seg_t){ 0, (MPI_Aint)basics[i].size, i };
        d->nsegs = 1;
        d->segs = &predefined_segs[i];
        strcpy(d->name, basics[i].name);
        rtmpi_types[i] = d;
    }
}

static void dtype_destroy(rtmpi_dtype_t *d)
{
    free(d->segs);
    free(d);
}

void rtmpi_dtype_finalize(void)
{
    for (int i = RTMPI_N_PREDEFINED_TYPES; i < rtmpi_ntypes; i++)
        if (rtmpi_types[i])
            dtype_destroy(rtmpi_types[i]);
    free(rtmpi_types);
rtmpi_types = NULL;
    rtmpi_ntypes = types_cap = 0;
}

rtmpi_dtype_t *rtmpi_dtype_obj(MPI_Datatype dt)
{
    return dt > 0 && dt < rtmpi_ntypes ? rtmpi_types[dt] : NULL;
}

void rtmpi_dtype_retain(MPI_Datatype dt)
{
    if (dt >= RTMPI_N_PREDEFINED_TYPES && dt < rtmpi_ntypes && rtmpi_types[dt])
        rtmpi_types[dt]->refcount++;
}

void rtmpi_dtype_release(MPI_Datatype dt)
{
    if (dt < RTMPI_N_PREDEFINED_TYPES || dt >= rtmpi_ntypes || !rtmpi_types[dt])
        return;
    if (--rtmpi_types[dt]->refcount == 0) {
        dtype_destroy(rtmpi_types[dt]);
        rtmpi_types[dt] = NULL;
    }
}

int rtmpi_dtype_walk(const rtmpi_dtype_t *d, MPI_Count count, rtmpi_dtype_walk_fn *fn,
                     void *arg)
{
    MPI_Aint base = 0;

    for (MPI_Count i = 0; i < count; i++, base += d->extent) {
        for (int s = 0; s < d->nsegs; s++) {
            int rc = fn(base + d->segs[s].disp, d->segs[s].len, d->segs[s].basic, arg);

            if (rc)
                return rc;
        }
    }
    return 0;
}

void rtmpi_pack(const void *buf, MPI_Count count, const rtmpi_dtype_t *d, void *out)
{
    char *o = out;
    const char *base = buf;

    for (MPI_Count i = 0; i < count; i++, base += d->extent) {
        for (int s = 0; s < d->nsegs; s++) {
            memcpy(o, base + d->segs[s].disp, (size_t)d->segs[s].len);
            o += d->segs[s].len;
        }
    }
}

void rtmpi_unpack(const void *in, size_t bytes, void *buf, MPI_Count count,
                  const rtmpi_dtype_t *d)
{
    const char *p = in;
    char *base = buf;

    for (MPI_Count i = 0; i < count && bytes > 0; i++, base += d->extent) {
        for (int s = 0; s < d->nsegs && bytes > 0; s++) {
            size_t n = (size_t)d->segs[s].len < bytes ? (size_t)d->segs[s].len : bytes;

            memcpy(base + d->segs[s].disp, p, n);
            p += n;
            bytes -= n;
        }
    }
}

/* ---- Construction ---- */

typedef struct block {
    MPI_Aint     disp;     /* bytes */
    MPI_Count    count;    /* elements of type */
    MPI_Datatype type;
} block_t;

static int handle_new(rtmpi_dtype_t *d, MPI_Datatype *newtype)
{
    if (rtmpi_ntypes == types_cap) {
        int cap = types_cap * 2;
        rtmpi_dtype_t **t = realloc(rtmpi_types, (size_t)cap * sizeof(*t));

        if (!t)
            return MPI_ERR_NO_MEM;
        memset(t + types_cap, 0, (size_t)(cap - types_cap) * sizeof(*t));
rtmpi_types = t;
        types_cap = cap;
    }
    /* Handles of freed types are not reused: a stale handle stays invalid. */
    rtmpi_types[rtmpi_ntypes] = d;
    *newtype = rtmpi_ntypes++;
    return MPI_SUCCESS;
}

static int seg_append(rtmpi_dtype_t *d, int *cap, MPI_Aint disp, MPI_Aint len, int basic)
{
    if (len == 0)
        return MPI_SUCCESS;
    if (d->nsegs > 0) {
        rtmpi_seg_t *last = &d->segs[d->nsegs - 1];

        if (last->basic == basic && last->disp + last->len == disp) {
            last->len += len;
            return MPI_SUCCESS;
        }
    }
    if (d->nsegs == *cap) {
        int ncap = *cap ? *cap * 2 : 4;
        rtmpi_seg_t *s = realloc(d->segs, (size_t)ncap * sizeof(*s));

        if (!s)
            return MPI_ERR_NO_MEM;
        d->segs = s;
        *cap = ncap;
    }
    d->segs[d->nsegs++] = (rtmpi_seg_t){ disp, len, basic };
    return MPI_SUCCESS;
}

/* The typemap of blocks[0..n): each block is `count` consecutive elements
 * (stride: the type's extent) of its type at its displacement. Struct types
 * get their extent rounded up to their alignment, as a C compiler pads. */
static int build(int n, const block_t *blocks, int combiner, bool pad,
                 MPI_Datatype *newtype)
{
    rtmpi_dtype_t *d = calloc(1, sizeof(*d));
    int cap = 0, rc;
    bool any = false;
    MPI_Aint lb = 0, ub = 0;

    if (!d)
        return MPI_ERR_NO_MEM;
    d->in_use = 1;
    d->refcount = 1;
    d->combiner = combiner;
    d->align = 1;
    for (int b = 0; b < n; b++) {
        const rtmpi_dtype_t *old = rtmpi_dtype_get(blocks[b].type);

        if (old->align > d->align)
            d->align = old->align;
        if (blocks[b].count == 0)
            continue;
        MPI_Aint first = blocks[b].disp + old->lb;
        MPI_Aint last = blocks[b].disp + (MPI_Aint)(blocks[b].count - 1) * old->extent + old->lb;
        MPI_Aint blb = first < last ? first : last;
        MPI_Aint bub = (first > last ? first : last) + old->extent;

        if (!any || blb < lb)
            lb = blb;
        if (!any || bub > ub)
            ub = bub;
        any = true;
        for (MPI_Count c = 0; c < blocks[b].count; c++) {
            MPI_Aint base = blocks[b].disp + (MPI_Aint)c * old->extent;

            for (int s = 0; s < old->nsegs; s++) {
                rc = seg_append(d, &cap, base + old->segs[s].disp, old->segs[s].len,
                                old->segs[s].basic);
                if (rc != MPI_SUCCESS)
                    goto err_free_type;
            }
        }
    }
    d->lb = lb;
    d->extent = ub - lb;
    if (pad && d->extent % d->align)
        d->extent += d->align - d->extent % d->align;
    d->basic = d->nsegs ? d->segs[0].basic : MPI_BYTE;
    for (int s = 0; s < d->nsegs; s++) {
        const rtmpi_seg_t *sg = &d->segs[s];

        d->size += sg->len;
        d->nbasic += sg->len / (MPI_Aint)basics[sg->basic].size;
        if (sg->basic != d->basic)
            d->basic = RTMPI_BASIC_MIXED;
        if (s == 0 || sg->disp < d->true_lb)
            d->true_lb = sg->disp;
        if (s == 0 || sg->disp + sg->len > d->true_ub)
            d->true_ub = sg->disp + sg->len;
    }
    rc = handle_new(d, newtype);
    if (rc != MPI_SUCCESS)
        goto err_free_type;
    return MPI_SUCCESS;

err_free_type:
    dtype_destroy(d);
    return rc;
}

static int check_old(const char *fn, MPI_Datatype old, rtmpi_dtype_t **dp)
{
    rtmpi_dtype_t *d = rtmpi_dtype_get(old);

    if (!d)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_TYPE, "invalid datatype %d", old);
    if (dp)
        *dp = d;
    return MPI_SUCCESS;
}

#define CHECK_COUNT(_fn, _c) \
    do { \
        if ((_c) < 0) \
            return rtmpi_error(MPI_COMM_NULL, _fn, MPI_ERR_COUNT, "negative count %d", (int)(_c)); \
    } while (0)
#define CHECK_PTR(_fn, _p, _name) \
    do { \
        if (!(_p)) \
            return rtmpi_error(MPI_COMM_NULL, _fn, MPI_ERR_ARG, "%s is NULL", _name); \
    } while (0)

static int finish(const char *fn, int rc)
{
    return rc == MPI_SUCCESS ? rc : rtmpi_error(MPI_COMM_NULL, fn, rc, "cannot create the datatype");
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    RTMPI_ENTER();
    CHECK_COUNT(__func__, count);
    CHECK_PTR(__func__, newtype, "newtype");
    int rc = check_old(__func__, oldtype, NULL);
    if (rc)
        return rc;
    block_t b = { 0, count, oldtype };
    return finish(__func__, build(1, &b, MPI_COMBINER_CONTIGUOUS, false, newtype));
}
RTMPI_WEAK(Type_contiguous)

static int vector(const char *fn, int count, int blocklength, MPI_Aint stride_bytes,
                  MPI_Datatype oldtype, int combiner, MPI_Datatype *newtype)
{
    block_t *b;
    int rc;

    CHECK_COUNT(fn, count);
    CHECK_COUNT(fn, blocklength);
    CHECK_PTR(fn, newtype, "newtype");
    rc = check_old(fn, oldtype, NULL);
    if (rc)
        return rc;
    b = malloc((size_t)(count ? count : 1) * sizeof(*b));
    if (!b)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < count; i++)
        b[i] = (block_t){ (MPI_Aint)i * stride_bytes, blocklength, oldtype };
    rc = build(count, b, combiner, false, newtype);
    free(b);
    return finish(fn, rc);
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    RTMPI_ENTER();
    rtmpi_dtype_t *old = rtmpi_dtype_get(oldtype);
    if (!old)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_TYPE, "invalid datatype %d", oldtype);
    return vector(__func__, count, blocklength, (MPI_Aint)stride * old->extent, oldtype,
                  MPI_COMBINER_VECTOR, newtype);
}
RTMPI_WEAK(Type_vector)

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                             MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    RTMPI_ENTER();
    return vector(__func__, count, blocklength, stride, oldtype, MPI_COMBINER_HVECTOR, newtype);
}
RTMPI_WEAK(Type_create_hvector)

/* Indexed family: displacement i is int_disps[i] * unit or aint_disps[i];
 * block length i is blocklengths[i] or the common `blocklength`. */
static int indexed(const char *fn, int count, const int *blocklengths, int blocklength,
                   const int *int_disps, const MPI_Aint *aint_disps, MPI_Datatype oldtype,
                   int combiner, MPI_Datatype *newtype)
{
    rtmpi_dtype_t *old = NULL;
    block_t *b;
    int rc;

    CHECK_COUNT(fn, count);
    CHECK_PTR(fn, newtype, "newtype");
    rc = check_old(fn, oldtype, &old);
    if (rc)
        return rc;
    if (count > 0 && ((!blocklengths && blocklength < 0) || (!int_disps && !aint_disps)))
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "NULL array argument");
    b = malloc((size_t)(count ? count : 1) * sizeof(*b));
    if (!b)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < count; i++) {
        int bl = blocklengths ? blocklengths[i] : blocklength;

        if (bl < 0) {
            free(b);
            return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "negative block length %d", bl);
        }
        b[i] = (block_t){ int_disps ? (MPI_Aint)int_disps[i] * old->extent : aint_disps[i],
                          bl, oldtype };
    }
    rc = build(count, b, combiner, false, newtype);
    free(b);
    return finish(fn, rc);
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    RTMPI_ENTER();
    return indexed(__func__, count, array_of_blocklengths, -1, array_of_displacements, NULL,
                   oldtype, MPI_COMBINER_INDEXED, newtype);
}
RTMPI_WEAK(Type_indexed)

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    RTMPI_ENTER();
    return indexed(__func__, count, array_of_blocklengths, -1, NULL, array_of_displacements,
                   oldtype, MPI_COMBINER_HINDEXED, newtype);
}
RTMPI_WEAK(Type_create_hindexed)

int PMPI_Type_create_indexed_block(int count, int blocklength,
                                   const int array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype)
{
    RTMPI_ENTER();
    CHECK_COUNT(__func__, blocklength);
    return indexed(__func__, count, NULL, blocklength, array_of_displacements, NULL, oldtype,
                   MPI_COMBINER_INDEXED_BLOCK, newtype);
}
RTMPI_WEAK(Type_create_indexed_block)

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    RTMPI_ENTER();
    CHECK_COUNT(__func__, blocklength);
    return indexed(__func__, count, NULL, blocklength, NULL, array_of_displacements, oldtype,
                   MPI_COMBINER_HINDEXED_BLOCK, newtype);
}
RTMPI_WEAK(Type_create_hindexed_block)

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    block_t *b;
    int rc;

    RTMPI_ENTER();
    CHECK_COUNT(__func__, count);
    CHECK_PTR(__func__, newtype, "newtype");
    if (count > 0 && (!array_of_blocklengths || !array_of_displacements || !array_of_types))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "NULL array argument");
    for (int i = 0; i < count; i++) {
        rc = check_old(__func__, array_of_types[i], NULL);
        if (rc)
            return rc;
        CHECK_COUNT(__func__, array_of_blocklengths[i]);
    }
    b = malloc((size_t)(count ? count : 1) * sizeof(*b));
    if (!b)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < count; i++)
        b[i] = (block_t){ array_of_displacements[i], array_of_blocklengths[i], array_of_types[i] };
    rc = build(count, b, MPI_COMBINER_STRUCT, true, newtype);
    free(b);
    return finish(__func__, rc);
}
RTMPI_WEAK(Type_create_struct)

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                              const int array_of_subsizes[], const int array_of_starts[],
                              int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    rtmpi_dtype_t *old = NULL;
    MPI_Aint stride[32];
    int idx[32];
    int fast, rc;
    long nblocks = 1;
    block_t *b;

    RTMPI_ENTER();
    CHECK_PTR(__func__, newtype, "newtype");
    if (ndims <= 0 || ndims > 32)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_DIMS, "ndims %d not in 1..32", ndims);
    if (!array_of_sizes || !array_of_subsizes || !array_of_starts)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "NULL array argument");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "invalid order %d", order);
    rc = check_old(__func__, oldtype, &old);
    if (rc)
        return rc;
    for (int d = 0; d < ndims; d++) {
        if (array_of_sizes[d] <= 0 || array_of_subsizes[d] <= 0 || array_of_starts[d] < 0 ||
            array_of_subsizes[d] + array_of_starts[d] > array_of_sizes[d])
            return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG,
                               "dimension %d: size %d, subsize %d, start %d do not fit", d,
                               array_of_sizes[d], array_of_subsizes[d], array_of_starts[d]);
    }
    /* Byte stride of each dimension; `fast` is the one that varies fastest. */
    fast = order == MPI_ORDER_C ? ndims - 1 : 0;
    if (order == MPI_ORDER_C) {
        stride[ndims - 1] = old->extent;
        for (int d = ndims - 2; d >= 0; d--)
            stride[d] = stride[d + 1] * array_of_sizes[d + 1];
    } else {
        stride[0] = old->extent;
        for (int d = 1; d < ndims; d++)
            stride[d] = stride[d - 1] * array_of_sizes[d - 1];
    }
    for (int d = 0; d < ndims; d++)
        if (d != fast)
            nblocks *= array_of_subsizes[d];
    b = malloc((size_t)nblocks * sizeof(*b));
    if (!b)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM, "out of memory");
    memset(idx, 0, sizeof(idx));
    for (long k = 0; k < nblocks; k++) {
        MPI_Aint disp = 0;

        for (int d = 0; d < ndims; d++)
            disp += (MPI_Aint)(array_of_starts[d] + (d == fast ? 0 : idx[d])) * stride[d];
        b[k] = (block_t){ disp, array_of_subsizes[fast], oldtype };
        /* next index tuple, slowest dimension last to change */
        for (int s = 0; s < ndims; s++) {
            int d = order == MPI_ORDER_C ? ndims - 1 - s : s;

            if (d == fast)
                continue;
            if (++idx[d] < array_of_subsizes[d])
                break;
            idx[d] = 0;
        }
    }
    rc = build((int)nblocks, b, MPI_COMBINER_SUBARRAY, false, newtype);
    free(b);
    if (rc != MPI_SUCCESS)
        return finish(__func__, rc);
    /* The subarray spans the whole array: lb 0, extent of the full array. */
    rtmpi_dtype_t *d = rtmpi_types[*newtype];
    d->lb = 0;
    d->extent = stride[order == MPI_ORDER_C ? 0 : ndims - 1] *
                array_of_sizes[order == MPI_ORDER_C ? 0 : ndims - 1];
    return MPI_SUCCESS;
}
RTMPI_WEAK(Type_create_subarray)

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    RTMPI_ENTER();
    CHECK_PTR(__func__, newtype, "newtype");
    int rc = check_old(__func__, oldtype, NULL);
    if (rc)
        return rc;
    block_t b = { 0, 1, oldtype };
    rc = build(1, &b, MPI_COMBINER_RESIZED, false, newtype);
    if (rc != MPI_SUCCESS)
        return finish(__func__, rc);
    rtmpi_types[*newtype]->lb = lb;
    rtmpi_types[*newtype]->extent = extent;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Type_create_resized)

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    rtmpi_dtype_t *old = NULL;

    RTMPI_ENTER();
    CHECK_PTR(__func__, newtype, "newtype");
    int rc = check_old(__func__, oldtype, &old);
    if (rc)
        return rc;
    block_t b = { 0, 1, oldtype };
    rc = build(1, &b, MPI_COMBINER_DUP, false, newtype);
    if (rc != MPI_SUCCESS)
        return finish(__func__, rc);
    rtmpi_dtype_t *d = rtmpi_types[*newtype];
    d->lb = old->lb;
    d->extent = old->extent;
    d->committed = old->committed;
    memcpy(d->name, old->name, sizeof(d->name));
    return rtmpi_type_dup_attrs(__func__, oldtype, newtype);   /* attr.c: attributes */
}
RTMPI_WEAK(Type_dup)

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    RTMPI_ENTER();
    CHECK_PTR(__func__, datatype, "datatype");
    rtmpi_dtype_t *d = rtmpi_dtype_get(*datatype);
    if (!d)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_TYPE, "invalid datatype %d", *datatype);
    d->committed = 1;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Type_commit)

int PMPI_Type_free(MPI_Datatype *datatype)
{
    RTMPI_ENTER();
    CHECK_PTR(__func__, datatype, "datatype");
    rtmpi_dtype_t *d = rtmpi_dtype_get(*datatype);
    if (!d)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_TYPE, "invalid datatype %d", *datatype);
    if (d->predefined)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_TYPE,
                           "%s is predefined and cannot be freed", d->name);
    int attr_rc = rtmpi_type_free_attrs(__func__, *datatype);   /* attr.c: delete callbacks */
    if (attr_rc)
        return attr_rc;
    /* Operations in flight keep their reference: the type lives until they end. */
    d->in_use = 0;
    rtmpi_dtype_release(*datatype);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Type_free)

#define GET_TYPE(_dt, _d) \
    rtmpi_dtype_t *_d = rtmpi_dtype_get(_dt); \
    if (!_d) \
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_TYPE, "invalid datatype %d", _dt)

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    RTMPI_ENTER();
    GET_TYPE(datatype, d);
    CHECK_PTR(__func__, size, "size");
    *size = d->size > INT_MAX ? MPI_UNDEFINED : (int)d->size;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Type_size)

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    RTMPI_ENTER();
    GET_TYPE(datatype, d);
    CHECK_PTR(__func__, size, "size");
    *size = d->size;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Type_size_x)

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    RTMPI_ENTER();
    GET_TYPE(datatype, d);
    CHECK_PTR(__func__, lb, "lb");
    CHECK_PTR(__func__, extent, "extent");
    *lb = d->lb;
    *extent = d->extent;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Type_get_extent)

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    RTMPI_ENTER();
    GET_TYPE(datatype, d);
    CHECK_PTR(__func__, lb, "lb");
    CHECK_PTR(__func__, extent, "extent");
    *lb = d->lb;
    *extent = d->extent;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Type_get_extent_x)

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    RTMPI_ENTER();
    GET_TYPE(datatype, d);
    CHECK_PTR(__func__, true_lb, "true_lb");
    CHECK_PTR(__func__, true_extent, "true_extent");
    *true_lb = d->true_lb;
    *true_extent = d->true_ub - d->true_lb;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Type_get_true_extent)

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                                MPI_Count *true_extent)
{
    RTMPI_ENTER();
    GET_TYPE(datatype, d);
    CHECK_PTR(__func__, true_lb, "true_lb");
    CHECK_PTR(__func__, true_extent, "true_extent");
    *true_lb = d->true_lb;
    *true_extent = d->true_ub - d->true_lb;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Type_get_true_extent_x)

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    RTMPI_ENTER();
    GET_TYPE(datatype, d);
    CHECK_PTR(__func__, type_name, "type_name");
    CHECK_PTR(__func__, resultlen, "resultlen");
    strcpy(type_name, d->name);
    *resultlen = (int)strlen(d->name);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Type_get_name)

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    RTMPI_ENTER();
    GET_TYPE(datatype, d);
    CHECK_PTR(__func__, type_name, "type_name");
    snprintf(d->name, sizeof(d->name), "%s", type_name);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Type_set_name)

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    CHECK_PTR(__func__, address, "address");
    *address = (MPI_Aint)(intptr_t)location;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Get_address)

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((char *)base + disp);
}
RTMPI_WEAK(Aint_add)

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((char *)addr1 - (char *)addr2);
}
RTMPI_WEAK(Aint_diff)

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    RTMPI_ENTER();
    GET_TYPE(datatype, d);
    CHECK_COUNT(__func__, incount);
    CHECK_PTR(__func__, size, "size");
    if (!rtmpi_comm_get(comm))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", comm);
    MPI_Count n = (MPI_Count)incount * d->size;
    if (n > INT_MAX)
        return rtmpi_error(comm, __func__, MPI_ERR_COUNT, "packed size %lld exceeds INT_MAX", n);
    *size = (int)n;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Pack_size)

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
              int outsize, int *position, MPI_Comm comm)
{
    rtmpi_dtype_t *d;

    RTMPI_ENTER();
    if (!rtmpi_comm_get(comm))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", comm);
    if (rtmpi_dtype_check(datatype, &d))
        return rtmpi_error(comm, __func__, MPI_ERR_TYPE, "invalid or uncommitted datatype %d", datatype);
    if (incount < 0)
        return rtmpi_error(comm, __func__, MPI_ERR_COUNT, "negative count %d", incount);
    if (!position || (!outbuf && outsize > 0))
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "position or outbuf is NULL");
    MPI_Count n = (MPI_Count)incount * d->size;
    if (*position < 0 || *position + n > outsize)
        return rtmpi_error(comm, __func__, MPI_ERR_TRUNCATE,
                           "%lld bytes at position %d do not fit in %d bytes", n, *position, outsize);
    rtmpi_pack(inbuf, incount, d, (char *)outbuf + *position);
    *position += (int)n;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Pack)

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    rtmpi_dtype_t *d;

    RTMPI_ENTER();
    if (!rtmpi_comm_get(comm))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", comm);
    if (rtmpi_dtype_check(datatype, &d))
        return rtmpi_error(comm, __func__, MPI_ERR_TYPE, "invalid or uncommitted datatype %d", datatype);
    if (outcount < 0)
        return rtmpi_error(comm, __func__, MPI_ERR_COUNT, "negative count %d", outcount);
    if (!position || (!inbuf && insize > 0))
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "position or inbuf is NULL");
    MPI_Count n = (MPI_Count)outcount * d->size;
    if (*position < 0 || *position + n > insize)
        return rtmpi_error(comm, __func__, MPI_ERR_TRUNCATE,
                           "%lld bytes at position %d exceed the input of %d bytes", n,
                           *position, insize);
    rtmpi_unpack((const char *)inbuf + *position, (size_t)n, outbuf, outcount, d);
    *position += (int)n;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Unpack)

/* ---- Counting received data ---- */

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    RTMPI_ENTER();
    GET_TYPE(datatype, d);
    CHECK_PTR(__func__, status, "status");
    CHECK_PTR(__func__, count, "count");
    if (d->size == 0)
        *count = 0;
    else if (status->rtmpi_count % d->size || status->rtmpi_count / d->size > INT_MAX)
        *count = MPI_UNDEFINED;
    else
        *count = (int)(status->rtmpi_count / d->size);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Get_count)

/* Basic elements in the first `bytes` bytes of data of type d; -1 when the
 * bytes end inside a basic element. */
static MPI_Count elements_in(const rtmpi_dtype_t *d, MPI_Count bytes)
{
    MPI_Count n, rem;

    if (d->size == 0)
        return 0;
    n = bytes / d->size * d->nbasic;
    rem = bytes % d->size;
    for (int s = 0; s < d->nsegs && rem > 0; s++) {
        MPI_Count bs = (MPI_Count)basics[d->segs[s].basic].size;
        MPI_Count take = rem < d->segs[s].len ? rem : d->segs[s].len;

        if (take % bs)
            return -1;
        n += take / bs;
        rem -= take;
    }
    return n;
}

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    RTMPI_ENTER();
    GET_TYPE(datatype, d);
    CHECK_PTR(__func__, status, "status");
    CHECK_PTR(__func__, count, "count");
    MPI_Count n = elements_in(d, status->rtmpi_count);
    *count = n < 0 ? MPI_UNDEFINED : n;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Get_elements_x)

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count n;
    int rc = PMPI_Get_elements_x(status, datatype, &n);

    if (rc == MPI_SUCCESS)
        *count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return rc;
}
RTMPI_WEAK(Get_elements)

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    RTMPI_ENTER();
    GET_TYPE(datatype, d);
    CHECK_PTR(__func__, status, "status");
    if (count < 0)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COUNT, "negative count");
    if (d->nbasic == 0) {
        status->rtmpi_count = 0;
        return MPI_SUCCESS;
    }
    MPI_Count bytes = count / d->nbasic * d->size, rem = count % d->nbasic;
    for (int s = 0; s < d->nsegs && rem > 0; s++) {
        MPI_Count bs = (MPI_Count)basics[d->segs[s].basic].size;
        MPI_Count n = d->segs[s].len / bs;

        if (n > rem)
            n = rem;
        bytes += n * bs;
        rem -= n;
    }
    status->rtmpi_count = bytes;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Status_set_elements_x)

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return PMPI_Status_set_elements_x(status, datatype, count);
}
RTMPI_WEAK(Status_set_elements)

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    CHECK_PTR(__func__, status, "status");
    status->rtmpi_cancelled = flag ? 1 : 0;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Status_set_cancelled)
