/*
 * MPI datatypes. A type's typemap is a short list of segments (mpi_impl.h):
 * a run of bytes of one basic type, or such a run (or one element of a child
 * type) repeated over a few nested (count, stride) loops. Constructors add
 * the blocks of the new type one by one (dtype_build_add): a block over a
 * type of one segment becomes one segment with the block's loops added, the
 * loops folded where they are contiguous (a vector of contiguous blocks is
 * one run); a block over a small type of plain runs is expanded; anything
 * else refers to the old type as a child. So regular types cost O(1)
 * memory, irregular ones a segment per non-empty block, and pack and unpack
 * walk the segments with a memcpy per run, allocating nothing.
 */
#include "config.h"

#include "dtype_impl.h"

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

/* size: bytes of data (a pair: its two members); extent: the C type's size;
 * for a pair, `second` is the offset of its int member and `first_size`
 * the size of its value member. */
#define BASIC(_id, _ctype) \
    [_id] = { sizeof(_ctype), sizeof(_ctype), _Alignof(_ctype), #_id, 0, 0, 0 }
#define PAIR(_id, _st, _vt) \
    [_id] = { sizeof(_vt) + sizeof(int), sizeof(struct _st), _Alignof(struct _st), #_id, 1, \
              offsetof(struct _st, i), sizeof(_vt) }
static const struct {
    size_t size, extent, align;
    const char *name;
    int pair;
    size_t second, first_size;
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
    PAIR(MPI_FLOAT_INT, rtmpi_float_int, float),
    PAIR(MPI_DOUBLE_INT, rtmpi_double_int, double),
    PAIR(MPI_LONG_INT, rtmpi_long_int, long),
    PAIR(MPI_2INT, rtmpi_2int, int),
    PAIR(MPI_SHORT_INT, rtmpi_short_int, short),
    PAIR(MPI_LONG_DOUBLE_INT, rtmpi_long_double_int, long double),
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

/* INT_MAX elements of a type of this size fit an MPI_Count. */
#define RTMPI_DIRECT_MAX_SIZE ((MPI_Count)1 << 32)

static rtmpi_dtype_t predefined[RTMPI_N_PREDEFINED_TYPES];
/* Two each: a pair whose members have a gap between them is two runs. */
static rtmpi_seg_t predefined_segs[RTMPI_N_PREDEFINED_TYPES][2];
rtmpi_dtype_t **rtmpi_types;  /* by handle; mpi_impl.h reads it inline */
int rtmpi_ntypes;
static int types_cap;

size_t rtmpi_basic_size(int basic)
{
    return basics[basic].size;
}

/* A pair with a gap between its members is two runs (one segment each,
 * never merged with a neighbour): the first, the value, begins it. */
static bool pair_split(int basic)
{
    return basics[basic].pair && basics[basic].second != basics[basic].first_size;
}

size_t rtmpi_run_elems(int basic, MPI_Aint len)
{
    if (pair_split(basic))
        return (size_t)len == basics[basic].first_size;
    return (size_t)len / basics[basic].size;
}

/* Basic elements a run holds. A pair type counts as two (MPI 3.1 5.9.4
 * defines each "as if" a struct of its two members: MPI_Get_elements and
 * MPI_Status_set_elements count members); a split pair's run is one member. */
static MPI_Count run_elems_done(int basic, MPI_Aint len)
{
    if (pair_split(basic))
        return 1;
    if (basics[basic].pair)
        return 2 * (len / (MPI_Aint)basics[basic].size);
    return len / (MPI_Aint)basics[basic].size;
}

void rtmpi_dtype_commit(rtmpi_dtype_t *d)
{
    d->committed = 1;
    /* direct: also small enough that any int count of it is a byte count
     * of 64 bits (the fast paths multiply unchecked; a larger type takes
     * the checked path) */
    d->direct = (d->nsegs == 0 || (d->contig && d->size == d->extent)) &&
                d->size <= RTMPI_DIRECT_MAX_SIZE;
    d->direct_off = d->nsegs == 0 ? 0 : d->segs[0].disp;
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
        d->combiner = MPI_COMBINER_NAMED;
        d->handle = i;
        d->size = (MPI_Count)basics[i].size;
        d->extent = (MPI_Aint)basics[i].extent;
        d->align = (MPI_Aint)basics[i].align;
        d->basic = i;
        d->nbasic = basics[i].pair ? 2 : 1;   /* a pair: its two members */
        d->segs = predefined_segs[i];
        if (pair_split(i)) {
            predefined_segs[i][0] = (rtmpi_seg_t){ 0, (MPI_Aint)basics[i].first_size, i, -1 };
            predefined_segs[i][1] = (rtmpi_seg_t){ (MPI_Aint)basics[i].second,
                                                   (MPI_Aint)sizeof(int), i, -1 };
            d->nsegs = 2;
            d->true_ub = (MPI_Aint)(basics[i].second + sizeof(int));
        } else {
            predefined_segs[i][0] = (rtmpi_seg_t){ 0, (MPI_Aint)basics[i].size, i, -1 };
            d->nsegs = 1;
            d->contig = 1;
            d->true_ub = (MPI_Aint)basics[i].size;
        }
        strcpy(d->name, basics[i].name);
        rtmpi_dtype_commit(d);
        rtmpi_types[i] = d;
    }
}

static void contents_clear(rtmpi_dtcontents_t *c)
{
    for (int i = 0; i < c->ntypes; i++)
        dtype_put(c->types[i]);
    free(c->ints);
    free(c->aints);
    free(c->types);
    memset(c, 0, sizeof(*c));
}

static void dtype_destroy(rtmpi_dtype_t *d)
{
    for (int r = 0; r < d->nreps; r++)
        if (d->reps[r].child)
            dtype_put(d->reps[r].child);
    contents_clear(&d->contents);
    if (d->handle > 0 && d->handle < rtmpi_ntypes && rtmpi_types[d->handle] == d)
        rtmpi_types[d->handle] = NULL;
    free(d->segs);
    free(d->reps);
    free(d);
}

void dtype_hold(rtmpi_dtype_t *d)
{
    if (!d->predefined)
        d->refcount++;
}

void dtype_put(rtmpi_dtype_t *d)
{
    if (!d->predefined && --d->refcount == 0)
        dtype_destroy(d);
}

void rtmpi_dtype_finalize(void)
{
    /* What the program did not free: drop the handles' references first,
     * then whatever types still hold each other. */
    for (int i = RTMPI_N_PREDEFINED_TYPES; i < rtmpi_ntypes; i++) {
        rtmpi_dtype_t *d = rtmpi_types[i];

        if (d && d->in_use) {
            d->in_use = 0;
            dtype_put(d);
        }
    }
    /* a type is older than the types built on it: newest first. An f90
     * type (dtype_f90_new) is predefined, so dtype_put never frees it: it
     * goes here, once every type that could refer to it is gone. */
    for (int i = rtmpi_ntypes - 1; i >= RTMPI_N_PREDEFINED_TYPES; i--) {
        if (rtmpi_types[i] && rtmpi_types[i]->predefined)
            dtype_destroy(rtmpi_types[i]);
        while (rtmpi_types[i])
            dtype_put(rtmpi_types[i]);
    }
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
        dtype_hold(rtmpi_types[dt]);
}

void rtmpi_dtype_release(MPI_Datatype dt)
{
    if (dt < RTMPI_N_PREDEFINED_TYPES || dt >= rtmpi_ntypes || !rtmpi_types[dt])
        return;
    dtype_put(rtmpi_types[dt]);
}

/* ---- Walking the typemap ----
 *
 * One engine for pack, unpack and rtmpi_dtype_walk: the segments of each
 * element in order, a repeated segment's loops outermost first, a child's
 * element by recursion (as deep as the type was nested). Offsets are bytes
 * from the buffer's address. Hot path: no allocation, lock or log. */

enum { RUN_PACK, RUN_UNPACK, RUN_WALK };

typedef struct run_cursor {
    int op;
    char *buf;                  /* the user's buffer */
    char *packed;               /* the next packed byte */
    size_t left;                /* unpack: input bytes left */
    rtmpi_dtype_walk_fn *fn;
    void *arg;
} run_cursor_t;

/* The runs of the common small types are one basic element: copied by a
 * load and a store, not a call. */
static inline void copy_run(void *dst, const void *src, size_t len)
{
    switch (len) {
    case 1: memcpy(dst, src, 1); break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    case 16: memcpy(dst, src, 16); break;
    default: memcpy(dst, src, len); break;
    }
}

/* Nonzero stops the walk (unpack: the input is used up). */
static inline int run_emit(run_cursor_t *c, MPI_Aint off, MPI_Aint len, int basic)
{
    switch (c->op) {
    case RUN_PACK:
        copy_run(c->packed, (char *)rtmpi_addr(c->buf, off), (size_t)len);
        c->packed += len;
        return 0;
    case RUN_UNPACK: {
        size_t n = (size_t)len < c->left ? (size_t)len : c->left;

        copy_run((char *)rtmpi_addr(c->buf, off), c->packed, n);
        c->packed += n;
        c->left -= n;
        return c->left == 0;
    }
    default:
        return c->fn(off, len, basic, c->arg);
    }
}

static int run_elements(const rtmpi_dtype_t *d, MPI_Count count, MPI_Aint off,
                        run_cursor_t *c);

/* Packs (unpacks) n runs of len bytes, `stride` apart in the buffer: the
 * length's switch outside the loop. Returns the next packed byte. */
static char *pack_strided(char *out, const char *in, MPI_Count n, MPI_Aint stride, size_t len)
{
#define PACK_LOOP(_len) \
    for (MPI_Count i = 0; i < n; i++, in += stride, out += (_len)) \
        memcpy(out, in, (_len)); \
    break;
    switch (len) {
    case 4: PACK_LOOP(4)
    case 8: PACK_LOOP(8)
    case 16: PACK_LOOP(16)
    default: PACK_LOOP(len)
    }
#undef PACK_LOOP
    return out;
}

static const char *unpack_strided(char *out, const char *in, MPI_Count n, MPI_Aint stride,
                                  size_t len)
{
#define UNPACK_LOOP(_len) \
    for (MPI_Count i = 0; i < n; i++, out += stride, in += (_len)) \
        memcpy(out, in, (_len)); \
    break;
    switch (len) {
    case 4: UNPACK_LOOP(4)
    case 8: UNPACK_LOOP(8)
    case 16: UNPACK_LOOP(16)
    default: UNPACK_LOOP(len)
    }
#undef UNPACK_LOOP
    return in;
}

static int run_rep(const rtmpi_seg_t *s, const rtmpi_rep_t *r, int level, MPI_Aint off,
                   run_cursor_t *c)
{
    int rc;

    if (level < 0)
        return r->child ? run_elements(r->child, 1, off, c) : run_emit(c, off, s->len, s->basic);
    if (level == 0 && !r->child) {
        /* the innermost loop of a run: a vector's blocks */
        if (c->op == RUN_PACK) {
            c->packed = pack_strided(c->packed, (char *)rtmpi_addr(c->buf, off), r->count[0], r->stride[0],
                                     (size_t)s->len);
            return 0;
        }
        if (c->op == RUN_UNPACK && (MPI_Count)c->left > r->count[0] * s->len) {
            /* all of it, and input left after it: nothing stops inside */
            c->packed = (char *)unpack_strided((char *)rtmpi_addr(c->buf, off), c->packed, r->count[0],
                                               r->stride[0], (size_t)s->len);
            c->left -= (size_t)(r->count[0] * s->len);
            return 0;
        }
        for (MPI_Count i = 0; i < r->count[0]; i++, off += r->stride[0])
            if ((rc = run_emit(c, off, s->len, s->basic)))
                return rc;
        return 0;
    }
    for (MPI_Count i = 0; i < r->count[level]; i++, off += r->stride[level])
        if ((rc = run_rep(s, r, level - 1, off, c)))
            return rc;
    return 0;
}

static int run_elements(const rtmpi_dtype_t *d, MPI_Count count, MPI_Aint off,
                        run_cursor_t *c)
{
    int rc;

    for (MPI_Count i = 0; i < count; i++, off += d->extent) {
        for (int k = 0; k < d->nsegs; k++) {
            const rtmpi_seg_t *s = &d->segs[k];

            if (s->rep < 0)
                rc = run_emit(c, off + s->disp, s->len, s->basic);
            else
                rc = run_rep(s, &d->reps[s->rep], d->reps[s->rep].nloops - 1, off + s->disp, c);
            if (rc)
                return rc;
        }
    }
    return 0;
}

int rtmpi_dtype_walk(const rtmpi_dtype_t *d, MPI_Count count, rtmpi_dtype_walk_fn *fn,
                     void *arg)
{
    run_cursor_t c = { .op = RUN_WALK, .fn = fn, .arg = arg };

    return run_elements(d, count, 0, &c);
}

void rtmpi_pack(const void *buf, MPI_Count count, const rtmpi_dtype_t *d, void *out)
{
    MPI_Aint off;

    if (rtmpi_dtype_contig(d, count, &off)) {
        if (count * d->size > 0)
            memcpy(out, rtmpi_addr(buf, off), (size_t)(count * d->size));
        return;
    }
    run_cursor_t c = { .op = RUN_PACK, .buf = (char *)buf, .packed = out };
    run_elements(d, count, 0, &c);
}

void rtmpi_unpack(const void *in, size_t bytes, void *buf, MPI_Count count,
                  const rtmpi_dtype_t *d)
{
    MPI_Aint off;

    if (bytes == 0)
        return;
    if (rtmpi_dtype_contig(d, count, &off)) {
        size_t all = (size_t)(count * d->size);

        if (all > 0)
            memcpy(rtmpi_addr(buf, off), in, bytes < all ? bytes : all);
        return;
    }
    run_cursor_t c = { .op = RUN_UNPACK, .buf = buf, .packed = (char *)in, .left = bytes };
    run_elements(d, count, 0, &c);
}

/* ---- Construction ---- */

/* Types expanded into a block's segments when they have no more than this
 * many runs in all; above it the block refers to the type as a child. */
#define EXPAND_MAX 64

int dtype_build_init(dtype_build_t *b, int combiner)
{
    memset(b, 0, sizeof(*b));
    b->d = calloc(1, sizeof(*b->d));
    if (!b->d)
        return MPI_ERR_NO_MEM;
    b->d->refcount = 1;
    b->d->combiner = combiner;
    b->d->align = 1;
    b->d->basic = MPI_BYTE;
    return MPI_SUCCESS;
}

void dtype_build_abort(dtype_build_t *b)
{
    if (b->d)
        dtype_put(b->d);
    b->d = NULL;
}

static int seg_reserve(dtype_build_t *b)
{
    rtmpi_dtype_t *d = b->d;

    if (d->nsegs < b->segcap)
        return MPI_SUCCESS;
    int cap = b->segcap ? b->segcap * 2 : 4;
    rtmpi_seg_t *s = realloc(d->segs, (size_t)cap * sizeof(*s));

    if (!s)
        return MPI_ERR_NO_MEM;
    d->segs = s;
    b->segcap = cap;
    return MPI_SUCCESS;
}

/* A plain run, merged into the previous one where it continues it. */
static int seg_run(dtype_build_t *b, MPI_Aint disp, MPI_Aint len, int basic)
{
    rtmpi_dtype_t *d = b->d;

    if (len == 0)
        return MPI_SUCCESS;
    if (d->nsegs > 0 && !pair_split(basic)) {
        rtmpi_seg_t *last = &d->segs[d->nsegs - 1];

        if (last->rep < 0 && last->basic == basic && last->disp + last->len == disp) {
            last->len += len;
            return MPI_SUCCESS;
        }
    }
    if (seg_reserve(b))
        return MPI_ERR_NO_MEM;
    d->segs[d->nsegs++] = (rtmpi_seg_t){ disp, len, basic, -1 };
    return MPI_SUCCESS;
}

/* A repeated segment (r's loops normalized by the caller; holds r->child). */
static int seg_rep(dtype_build_t *b, MPI_Aint disp, MPI_Aint len, int basic,
                   const rtmpi_rep_t *r)
{
    rtmpi_dtype_t *d = b->d;

    if (!r->child && r->nloops == 0)
        return seg_run(b, disp, len, basic);
    if (seg_reserve(b))
        return MPI_ERR_NO_MEM;
    if (d->nreps == b->repcap) {
        int cap = b->repcap ? b->repcap * 2 : 2;
        rtmpi_rep_t *n = realloc(d->reps, (size_t)cap * sizeof(*n));

        if (!n)
            return MPI_ERR_NO_MEM;
        d->reps = n;
        b->repcap = cap;
    }
    d->reps[d->nreps] = *r;
    if (r->child)
        dtype_hold(r->child);
    d->segs[d->nsegs++] = (rtmpi_seg_t){ disp, len, basic, d->nreps++ };
    return MPI_SUCCESS;
}

/* Drops loops of one iteration, folds the innermost loops of a run into its
 * length where they are contiguous, merges loops that continue each other. */
static void rep_normalize(rtmpi_rep_t *r, MPI_Aint *len)
{
    int n = 0;

    for (int k = 0; k < r->nloops; k++) {
        if (r->count[k] == 1)
            continue;
        r->count[n] = r->count[k];
        r->stride[n++] = r->stride[k];
    }
    r->nloops = n;
    while (!r->child && r->nloops > 0 && r->stride[0] == *len) {
        *len *= (MPI_Aint)r->count[0];
        r->nloops--;
        memmove(&r->count[0], &r->count[1], (size_t)r->nloops * sizeof(r->count[0]));
        memmove(&r->stride[0], &r->stride[1], (size_t)r->nloops * sizeof(r->stride[0]));
    }
    for (int k = 0; k + 1 < r->nloops;) {
        MPI_Aint next;

        if (!__builtin_mul_overflow(r->count[k], r->stride[k], &next) &&
            r->stride[k + 1] == next) {
            r->count[k] *= r->count[k + 1];
            r->nloops--;
            memmove(&r->count[k + 1], &r->count[k + 2],
                    (size_t)(r->nloops - k - 1) * sizeof(r->count[0]));
            memmove(&r->stride[k + 1], &r->stride[k + 2],
                    (size_t)(r->nloops - k - 1) * sizeof(r->stride[0]));
        } else {
            k++;
        }
    }
}

static bool all_plain(const rtmpi_dtype_t *t)
{
    for (int k = 0; k < t->nsegs; k++)
        if (t->segs[k].rep >= 0)
            return false;
    return true;
}

int dtype_build_add(dtype_build_t *b, MPI_Aint disp, rtmpi_dtype_t *t, int nloops,
                    const MPI_Count *count, const MPI_Aint *stride)
{
    rtmpi_dtype_t *d = b->d;
    MPI_Count iters = 1, count_v[2], nbasic = 0, size = 0;
    MPI_Aint lo = 0, hi = 0, stride_v[2], t_ub, first, last, lb, ub, true_lb = 0, true_ub = 0;
    int n = 0;

    for (int k = 0; k < nloops; k++) {
        if (count[k] == 1)
            continue;
        count_v[n] = count[k];
        stride_v[n++] = stride[k];
    }
    nloops = n;
    count = count_v;
    stride = stride_v;
    for (int k = 0; k < nloops; k++)
        if (count[k] == 0)
            return MPI_SUCCESS;
    /* Every sum and product below is checked: a type whose size, bounds or
     * element count does not fit 64 bits is refused, never wrapped. */
    for (int k = 0; k < nloops; k++) {
        MPI_Aint span;

        if (__builtin_mul_overflow(iters, count[k], &iters) ||
            __builtin_mul_overflow((MPI_Aint)(count[k] - 1), stride[k], &span) ||
            (span < 0 ? __builtin_add_overflow(lo, span, &lo)
                      : __builtin_add_overflow(hi, span, &hi)))
            return DTYPE_ERR_RANGE;
    }
    /* bounds: the lowest and highest placement of one element of t */
    if (__builtin_add_overflow(t->lb, t->extent, &t_ub) ||
        __builtin_add_overflow(disp, lo, &first) || __builtin_add_overflow(disp, hi, &last) ||
        __builtin_add_overflow(first, t->lb, &lb) || __builtin_add_overflow(last, t_ub, &ub))
        return DTYPE_ERR_RANGE;
    if (t->size > 0 &&
        (__builtin_add_overflow(first, t->true_lb, &true_lb) ||
         __builtin_add_overflow(last, t->true_ub, &true_ub) ||
         __builtin_mul_overflow(iters, t->size, &size) ||
         __builtin_add_overflow(d->size, size, &size) ||
         __builtin_mul_overflow(iters, t->nbasic, &nbasic) ||
         __builtin_add_overflow(d->nbasic, nbasic, &nbasic)))
        return DTYPE_ERR_RANGE;
    /* MPI 3.1 4.1.6: where the type map has explicit lb (ub) markers, the
     * bound is the lowest (highest) marker and the other entries do not move
     * it; a block of t has markers where t has them. */
    if (t->lb_mark ? !b->lb_mark || lb < b->lb : !b->lb_mark && (!b->any || lb < b->lb))
        b->lb = lb;
    if (t->ub_mark ? !b->ub_mark || ub > b->ub : !b->ub_mark && (!b->any || ub > b->ub))
        b->ub = ub;
    b->lb_mark |= t->lb_mark;
    b->ub_mark |= t->ub_mark;
    b->any = true;
    if (t->size == 0)
        return MPI_SUCCESS;
    /* the struct padding (dtype_build_done) follows the basic types that are
     * in the type map: a block with no data brings none (as in the peers) */
    if (t->align > d->align)
        d->align = t->align;
    if (!b->anydata || true_lb < d->true_lb)
        d->true_lb = true_lb;
    if (!b->anydata || true_ub > d->true_ub)
        d->true_ub = true_ub;
    d->basic = !b->anydata || d->basic == t->basic ? t->basic : RTMPI_BASIC_MIXED;
    b->anydata = true;
    d->size = size;
    d->nbasic = nbasic;

    rtmpi_rep_t r = { 0 };
    MPI_Aint len;

    if (t->nsegs == 1) {
        /* one segment: it, with the block's loops outside its own */
        const rtmpi_seg_t *s = &t->segs[0];

        if (s->rep >= 0)
            r = t->reps[s->rep];
        len = s->len;
        if (r.nloops + nloops <= RTMPI_REP_LOOPS) {
            for (int k = 0; k < nloops; k++) {
                r.count[r.nloops] = count[k];
                r.stride[r.nloops++] = stride[k];
            }
            rep_normalize(&r, &len);
            return seg_rep(b, disp + s->disp, len, s->basic, &r);
        }
    } else if (all_plain(t) && iters <= EXPAND_MAX && iters * t->nsegs <= EXPAND_MAX) {
        /* a few runs: copied, block by block */
        MPI_Count c0 = nloops > 0 ? count[0] : 1, c1 = nloops > 1 ? count[1] : 1;

        for (MPI_Count j = 0; j < c1; j++) {
            for (MPI_Count i = 0; i < c0; i++) {
                MPI_Aint base = disp + (nloops > 0 ? (MPI_Aint)i * stride[0] : 0) +
                                (nloops > 1 ? (MPI_Aint)j * stride[1] : 0);

                for (int k = 0; k < t->nsegs; k++)
                    if (seg_run(b, base + t->segs[k].disp, t->segs[k].len, t->segs[k].basic))
                        return MPI_ERR_NO_MEM;
            }
        }
        return MPI_SUCCESS;
    }
    /* anything else: t itself at each point */
    memset(&r, 0, sizeof(r));
    r.child = t;
    for (int k = 0; k < nloops; k++) {
        r.count[r.nloops] = count[k];
        r.stride[r.nloops++] = stride[k];
    }
    len = (MPI_Aint)t->size;
    rep_normalize(&r, &len);
    return seg_rep(b, disp, len, t->basic, &r);
}

int dtype_build_done(dtype_build_t *b, bool pad, rtmpi_dtype_t **d_p)
{
    rtmpi_dtype_t *d = b->d;
    MPI_Aint extent, true_extent;

    if (__builtin_sub_overflow(b->ub, b->lb, &extent) ||
        (pad && !b->ub_mark && extent % d->align &&
         __builtin_add_overflow(extent, d->align - extent % d->align, &extent)) ||
        __builtin_sub_overflow(d->true_ub, d->true_lb, &true_extent)) {
        dtype_build_abort(b);
        return DTYPE_ERR_RANGE;
    }
    b->d = NULL;
    d->in_use = 1;
    d->lb = b->lb;
    d->extent = extent;
    d->lb_mark = b->lb_mark;
    d->ub_mark = b->ub_mark;
    d->contig = 1;
    for (int k = 0; k < d->nsegs; k++)
        if (d->segs[k].rep >= 0 || (k > 0 && d->segs[k].disp != d->segs[k - 1].disp + d->segs[k - 1].len))
            d->contig = 0;
    *d_p = d;
    return MPI_SUCCESS;
}

int dtype_handle_new(rtmpi_dtype_t *d, MPI_Datatype *newtype)
{
    if (rtmpi_ntypes == types_cap) {
        int cap = types_cap * 2;
        rtmpi_dtype_t **t = realloc(rtmpi_types, (size_t)cap * sizeof(*t));

        if (!t) {
            dtype_put(d);
            return MPI_ERR_NO_MEM;
        }
        memset(t + types_cap, 0, (size_t)(cap - types_cap) * sizeof(*t));
        rtmpi_types = t;
        types_cap = cap;
    }
    /* Handles of freed types are not reused: a stale handle stays invalid. */
    d->in_use = 1;
    d->handle = rtmpi_ntypes;
    rtmpi_types[rtmpi_ntypes] = d;
    *newtype = rtmpi_ntypes++;
    return MPI_SUCCESS;
}

int dtype_set_contents(rtmpi_dtype_t *d, int nints, const int *ints, int naints,
                       const MPI_Aint *aints, int ntypes, const MPI_Datatype *types)
{
    rtmpi_dtcontents_t *c = &d->contents;

    c->ints = malloc((size_t)(nints ? nints : 1) * sizeof(*c->ints));
    c->aints = malloc((size_t)(naints ? naints : 1) * sizeof(*c->aints));
    c->types = malloc((size_t)(ntypes ? ntypes : 1) * sizeof(*c->types));
    if (!c->ints || !c->aints || !c->types) {
        contents_clear(c);
        return MPI_ERR_NO_MEM;
    }
    if (nints)
        memcpy(c->ints, ints, (size_t)nints * sizeof(*ints));
    if (naints)
        memcpy(c->aints, aints, (size_t)naints * sizeof(*aints));
    c->nints = nints;
    c->naints = naints;
    for (int i = 0; i < ntypes; i++) {
        c->types[i] = rtmpi_types[types[i]];
        dtype_hold(c->types[i]);
    }
    c->ntypes = ntypes;
    return MPI_SUCCESS;
}

int dtype_f90_new(MPI_Datatype base, int combiner, int nints, const int *ints,
                  MPI_Datatype *newtype)
{
    rtmpi_dtype_t *d = dtype_clone(rtmpi_types[base]);
    int rc;

    if (!d)
        return MPI_ERR_NO_MEM;
    contents_clear(&d->contents);
    d->combiner = combiner;
    if ((rc = dtype_set_contents(d, nints, ints, 0, NULL, 0, NULL))) {
        dtype_destroy(d);
        return rc;
    }
    if (nints == 2)
        snprintf(d->name, sizeof(d->name), "%.32s (p=%d, r=%d)", rtmpi_types[base]->name, ints[0],
                 ints[1]);
    else
        snprintf(d->name, sizeof(d->name), "%.32s (r=%d)", rtmpi_types[base]->name, ints[0]);
    if ((rc = dtype_handle_new(d, newtype)))
        return rc;   /* d is freed: it is not predefined yet */
    d->predefined = 1;
    return MPI_SUCCESS;
}

rtmpi_dtype_t *dtype_clone(const rtmpi_dtype_t *d)
{
    rtmpi_dtype_t *n = malloc(sizeof(*n));
    const rtmpi_dtcontents_t *c = &d->contents;

    if (!n)
        return NULL;
    *n = *d;
    n->in_use = 0;
    n->refcount = 1;
    n->handle = 0;
    n->segs = malloc((size_t)(d->nsegs ? d->nsegs : 1) * sizeof(*n->segs));
    n->reps = malloc((size_t)(d->nreps ? d->nreps : 1) * sizeof(*n->reps));
    memset(&n->contents, 0, sizeof(n->contents));
    if (!n->segs || !n->reps) {
        free(n->segs);
        free(n->reps);
        free(n);
        return NULL;
    }
    if (d->nsegs)
        memcpy(n->segs, d->segs, (size_t)d->nsegs * sizeof(*n->segs));
    if (d->nreps)
        memcpy(n->reps, d->reps, (size_t)d->nreps * sizeof(*n->reps));
    for (int r = 0; r < n->nreps; r++)
        if (n->reps[r].child)
            dtype_hold(n->reps[r].child);
    n->contents.ints = malloc((size_t)(c->nints ? c->nints : 1) * sizeof(int));
    n->contents.aints = malloc((size_t)(c->naints ? c->naints : 1) * sizeof(MPI_Aint));
    n->contents.types = malloc((size_t)(c->ntypes ? c->ntypes : 1) * sizeof(*c->types));
    if (!n->contents.ints || !n->contents.aints || !n->contents.types) {
        dtype_destroy(n);
        return NULL;
    }
    n->contents.nints = c->nints;
    n->contents.naints = c->naints;
    n->contents.ntypes = c->ntypes;
    if (c->nints)
        memcpy(n->contents.ints, c->ints, (size_t)c->nints * sizeof(int));
    if (c->naints)
        memcpy(n->contents.aints, c->aints, (size_t)c->naints * sizeof(MPI_Aint));
    for (int i = 0; i < c->ntypes; i++) {
        n->contents.types[i] = c->types[i];
        dtype_hold(c->types[i]);
    }
    return n;
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

int dtype_finish(const char *fn, int rc)
{
    if (rc == DTYPE_ERR_RANGE)
        return rtmpi_error(MPI_COMM_NULL, fn, rc, "the new datatype's size, extent, bounds or "
                           "element count does not fit 64 bits (MPI_Count, MPI_Aint)");
    return rc == MPI_SUCCESS ? rc : rtmpi_error(MPI_COMM_NULL, fn, rc, "cannot create the datatype");
}

/* The end of every constructor: its arguments kept, a handle. */
static int publish(rtmpi_dtype_t *d, int nints, const int *ints, int naints,
                   const MPI_Aint *aints, int ntypes, const MPI_Datatype *types,
                   MPI_Datatype *newtype)
{
    if (dtype_set_contents(d, nints, ints, naints, aints, ntypes, types)) {
        dtype_put(d);
        return MPI_ERR_NO_MEM;
    }
    return dtype_handle_new(d, newtype);
}

/* One block of `type` repeated over nloops loops: contiguous, vector,
 * hvector, resized and dup. */
static int build_one(int combiner, MPI_Aint disp, MPI_Datatype type, int nloops,
                     const MPI_Count *count, const MPI_Aint *stride, rtmpi_dtype_t **d_p)
{
    dtype_build_t b;
    int rc = dtype_build_init(&b, combiner);

    if (rc)
        return rc;
    rc = dtype_build_add(&b, disp, rtmpi_types[type], nloops, count, stride);
    if (rc) {
        dtype_build_abort(&b);
        return rc;
    }
    return dtype_build_done(&b, false, d_p);
}

int rtmpi_dtype_count_fits(const rtmpi_dtype_t *d, MPI_Count count)
{
    MPI_Count bytes;
    MPI_Aint reach, lo, hi;

    if (__builtin_mul_overflow(count, d->size, &bytes))
        return 0;
    if (count == 0 || d->size == 0)
        return 1;
    /* the data of element i is at i * extent + [true_lb, true_ub) */
    if (__builtin_mul_overflow((MPI_Aint)(count - 1), d->extent, &reach))
        return 0;
    return !__builtin_add_overflow(reach < 0 ? reach : 0, d->true_lb, &lo) &&
           !__builtin_add_overflow(reach > 0 ? reach : 0, d->true_ub, &hi);
}

int rtmpi_dtype_bytes_new(MPI_Count bytes, MPI_Datatype *newtype)
{
    rtmpi_dtype_t *d;
    MPI_Aint one = 1;
    int rc = build_one(MPI_COMBINER_CONTIGUOUS, 0, MPI_BYTE, 1, &bytes, &one, &d);

    if (rc)
        return rc;
    rtmpi_dtype_commit(d);
    return dtype_handle_new(d, newtype);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    rtmpi_dtype_t *old = NULL, *d;

    RTMPI_ENTER();
    CHECK_COUNT(__func__, count);
    CHECK_PTR(__func__, newtype, "newtype");
    int rc = check_old(__func__, oldtype, &old);
    if (rc)
        return rc;
    MPI_Count c = count;
    MPI_Aint s = old->extent;
    rc = build_one(MPI_COMBINER_CONTIGUOUS, 0, oldtype, 1, &c, &s, &d);
    if (rc == MPI_SUCCESS)
        rc = publish(d, 1, &count, 0, NULL, 1, &oldtype, newtype);
    return dtype_finish(__func__, rc);
}
RTMPI_WEAK(Type_contiguous)

static int vector(const char *fn, int count, int blocklength, MPI_Aint stride_bytes,
                  MPI_Datatype oldtype, rtmpi_dtype_t **d_p)
{
    rtmpi_dtype_t *old = NULL;
    int rc;

    CHECK_COUNT(fn, count);
    CHECK_COUNT(fn, blocklength);
    rc = check_old(fn, oldtype, &old);
    if (rc)
        return rc;
    MPI_Count c[2] = { blocklength, count };
    MPI_Aint s[2] = { old->extent, stride_bytes };
    return dtype_finish(fn, build_one(MPI_COMBINER_VECTOR, 0, oldtype, 2, c, s, d_p));
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    rtmpi_dtype_t *d;

    RTMPI_ENTER();
    CHECK_PTR(__func__, newtype, "newtype");
    rtmpi_dtype_t *old = rtmpi_dtype_get(oldtype);
    if (!old)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_TYPE, "invalid datatype %d", oldtype);
    MPI_Aint stride_bytes;
    if (__builtin_mul_overflow((MPI_Aint)stride, old->extent, &stride_bytes))
        return dtype_finish(__func__, DTYPE_ERR_RANGE);
    int rc = vector(__func__, count, blocklength, stride_bytes, oldtype, &d);
    if (rc)
        return rc;
    int ints[3] = { count, blocklength, stride };
    return dtype_finish(__func__, publish(d, 3, ints, 0, NULL, 1, &oldtype, newtype));
}
RTMPI_WEAK(Type_vector)

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                             MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    rtmpi_dtype_t *d;

    RTMPI_ENTER();
    CHECK_PTR(__func__, newtype, "newtype");
    int rc = vector(__func__, count, blocklength, stride, oldtype, &d);
    if (rc)
        return rc;
    d->combiner = MPI_COMBINER_HVECTOR;
    int ints[2] = { count, blocklength };
    return dtype_finish(__func__, publish(d, 2, ints, 1, &stride, 1, &oldtype, newtype));
}
RTMPI_WEAK(Type_create_hvector)

/* Indexed family: displacement i is int_disps[i] * unit or aint_disps[i];
 * block length i is blocklengths[i] or the common `blocklength`. */
static int indexed(const char *fn, int count, const int *blocklengths, int blocklength,
                   const int *int_disps, const MPI_Aint *aint_disps, MPI_Datatype oldtype,
                   int combiner, rtmpi_dtype_t **d_p)
{
    rtmpi_dtype_t *old = NULL;
    dtype_build_t b;
    int rc;

    CHECK_COUNT(fn, count);
    rc = check_old(fn, oldtype, &old);
    if (rc)
        return rc;
    if (count > 0 && ((!blocklengths && blocklength < 0) || (!int_disps && !aint_disps)))
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "NULL array argument");
    for (int i = 0; i < count; i++) {
        int bl = blocklengths ? blocklengths[i] : blocklength;

        if (bl < 0)
            return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "negative block length %d", bl);
    }
    rc = dtype_build_init(&b, combiner);
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++) {
        MPI_Count bl = blocklengths ? blocklengths[i] : blocklength;
        MPI_Aint disp = aint_disps ? aint_disps[i] : 0;

        if (int_disps && __builtin_mul_overflow((MPI_Aint)int_disps[i], old->extent, &disp))
            rc = DTYPE_ERR_RANGE;
        else
            rc = dtype_build_add(&b, disp, old, 1, &bl, &old->extent);
    }
    if (rc == MPI_SUCCESS)
        return dtype_finish(fn, dtype_build_done(&b, false, d_p));
    dtype_build_abort(&b);
    return dtype_finish(fn, rc);
}

/* The ints of an indexed-family contents: count, then up to two arrays. */
static int *ints_of(int count, int head2, const int *a, const int *b, int *n_p)
{
    int n = 1 + (head2 >= 0) + (a ? count : 0) + (b ? count : 0), k = 0;
    int *v = malloc((size_t)n * sizeof(*v));

    if (!v)
        return NULL;
    v[k++] = count;
    if (head2 >= 0)
        v[k++] = head2;
    for (int i = 0; a && i < count; i++)
        v[k++] = a[i];
    for (int i = 0; b && i < count; i++)
        v[k++] = b[i];
    *n_p = n;
    return v;
}

static int indexed_publish(const char *fn, rtmpi_dtype_t *d, int count, int head2,
                           const int *a, const int *b, const MPI_Aint *aints,
                           MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int n, *ints = ints_of(count, head2, a, b, &n);

    if (!ints) {
        dtype_put(d);
        return dtype_finish(fn, MPI_ERR_NO_MEM);
    }
    int rc = publish(d, n, ints, aints ? count : 0, aints, 1, &oldtype, newtype);
    free(ints);
    return dtype_finish(fn, rc);
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    rtmpi_dtype_t *d;

    RTMPI_ENTER();
    CHECK_PTR(__func__, newtype, "newtype");
    int rc = indexed(__func__, count, array_of_blocklengths, -1, array_of_displacements, NULL,
                     oldtype, MPI_COMBINER_INDEXED, &d);
    if (rc)
        return rc;
    return indexed_publish(__func__, d, count, -1, array_of_blocklengths,
                           array_of_displacements, NULL, oldtype, newtype);
}
RTMPI_WEAK(Type_indexed)

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    rtmpi_dtype_t *d;

    RTMPI_ENTER();
    CHECK_PTR(__func__, newtype, "newtype");
    int rc = indexed(__func__, count, array_of_blocklengths, -1, NULL, array_of_displacements,
                     oldtype, MPI_COMBINER_HINDEXED, &d);
    if (rc)
        return rc;
    return indexed_publish(__func__, d, count, -1, array_of_blocklengths, NULL,
                           array_of_displacements, oldtype, newtype);
}
RTMPI_WEAK(Type_create_hindexed)

int PMPI_Type_create_indexed_block(int count, int blocklength,
                                   const int array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype)
{
    rtmpi_dtype_t *d;

    RTMPI_ENTER();
    CHECK_PTR(__func__, newtype, "newtype");
    CHECK_COUNT(__func__, blocklength);
    int rc = indexed(__func__, count, NULL, blocklength, array_of_displacements, NULL, oldtype,
                     MPI_COMBINER_INDEXED_BLOCK, &d);
    if (rc)
        return rc;
    return indexed_publish(__func__, d, count, blocklength, array_of_displacements, NULL, NULL,
                           oldtype, newtype);
}
RTMPI_WEAK(Type_create_indexed_block)

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    rtmpi_dtype_t *d;

    RTMPI_ENTER();
    CHECK_PTR(__func__, newtype, "newtype");
    CHECK_COUNT(__func__, blocklength);
    int rc = indexed(__func__, count, NULL, blocklength, NULL, array_of_displacements, oldtype,
                     MPI_COMBINER_HINDEXED_BLOCK, &d);
    if (rc)
        return rc;
    return indexed_publish(__func__, d, count, blocklength, NULL, NULL, array_of_displacements,
                           oldtype, newtype);
}
RTMPI_WEAK(Type_create_hindexed_block)

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    dtype_build_t b;
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
    rc = dtype_build_init(&b, MPI_COMBINER_STRUCT);
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++) {
        rtmpi_dtype_t *t = rtmpi_types[array_of_types[i]];
        MPI_Count bl = array_of_blocklengths[i];

        rc = dtype_build_add(&b, array_of_displacements[i], t, 1, &bl, &t->extent);
    }
    rtmpi_dtype_t *d;
    if (rc == MPI_SUCCESS)
        rc = dtype_build_done(&b, true, &d);
    else
        dtype_build_abort(&b);
    if (rc)
        return dtype_finish(__func__, rc);
    int n, *ints = ints_of(count, -1, array_of_blocklengths, NULL, &n);
    if (!ints) {
        dtype_put(d);
        return dtype_finish(__func__, MPI_ERR_NO_MEM);
    }
    rc = publish(d, n, ints, count, array_of_displacements, count, array_of_types, newtype);
    free(ints);
    return dtype_finish(__func__, rc);
}
RTMPI_WEAK(Type_create_struct)

int dtype_grid(int ndims, const int *sizes, int order, rtmpi_dtype_t *old,
                     const int *nblocks, const dtype_dim_block_t (*blocks)[2], int combiner,
                     rtmpi_dtype_t **d_p)
{
    MPI_Aint stride[RTMPI_GRID_MAXDIMS], extent;
    rtmpi_dtype_t *inner = old;
    int rc = MPI_SUCCESS, last = order == MPI_ORDER_C ? 0 : ndims - 1;

    /* the strides of the dimensions and the array's extent: checked */
    if (order == MPI_ORDER_C) {
        stride[ndims - 1] = old->extent;
        for (int k = ndims - 2; k >= 0; k--)
            if (__builtin_mul_overflow(stride[k + 1], sizes[k + 1], &stride[k]))
                return DTYPE_ERR_RANGE;
    } else {
        stride[0] = old->extent;
        for (int k = 1; k < ndims; k++)
            if (__builtin_mul_overflow(stride[k - 1], sizes[k - 1], &stride[k]))
                return DTYPE_ERR_RANGE;
    }
    if (__builtin_mul_overflow(stride[last], sizes[last], &extent))
        return DTYPE_ERR_RANGE;
    dtype_hold(inner);
    for (int s = 0; s < ndims; s++) {
        int k = order == MPI_ORDER_C ? ndims - 1 - s : s;   /* fastest first */
        dtype_build_t b;

        rc = dtype_build_init(&b, combiner);
        for (int j = 0; j < nblocks[k] && rc == MPI_SUCCESS; j++) {
            const dtype_dim_block_t *bl = &blocks[k][j];
            MPI_Count c[2] = { bl->len, bl->repeat };
            MPI_Aint st[2] = { stride[k], 0 }, disp;

            if (__builtin_mul_overflow(bl->every, stride[k], &st[1]) ||
                __builtin_mul_overflow(bl->first, stride[k], &disp))
                rc = DTYPE_ERR_RANGE;
            else
                rc = dtype_build_add(&b, disp, inner, 2, c, st);
        }
        dtype_put(inner);
        if (rc == MPI_SUCCESS)
            rc = dtype_build_done(&b, false, &inner);
        else
            dtype_build_abort(&b);
        if (rc)
            return rc;
    }
    inner->lb = 0;
    inner->extent = extent;
    inner->lb_mark = inner->ub_mark = 1;   /* as a resized type (MPI 3.1 4.1.3, 4.1.4) */
    *d_p = inner;
    return MPI_SUCCESS;
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                              const int array_of_subsizes[], const int array_of_starts[],
                              int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    rtmpi_dtype_t *old = NULL, *d;
    int nblocks[RTMPI_GRID_MAXDIMS];
    dtype_dim_block_t blocks[RTMPI_GRID_MAXDIMS][2];
    int rc;

    RTMPI_ENTER();
    CHECK_PTR(__func__, newtype, "newtype");
    if (ndims <= 0 || ndims > RTMPI_GRID_MAXDIMS)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_DIMS, "ndims %d not in 1..%d", ndims,
                           RTMPI_GRID_MAXDIMS);
    if (!array_of_sizes || !array_of_subsizes || !array_of_starts)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "NULL array argument");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "invalid order %d", order);
    rc = check_old(__func__, oldtype, &old);
    if (rc)
        return rc;
    for (int k = 0; k < ndims; k++) {
        if (array_of_sizes[k] <= 0 || array_of_subsizes[k] <= 0 || array_of_starts[k] < 0 ||
            array_of_subsizes[k] > array_of_sizes[k] - array_of_starts[k])
            return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG,
                               "dimension %d: size %d, subsize %d, start %d do not fit", k,
                               array_of_sizes[k], array_of_subsizes[k], array_of_starts[k]);
        nblocks[k] = 1;
        blocks[k][0] = (dtype_dim_block_t){ array_of_starts[k], array_of_subsizes[k], 1, 0 };
    }
    rc = dtype_grid(ndims, array_of_sizes, order, old, nblocks,
                          (const dtype_dim_block_t (*)[2])blocks, MPI_COMBINER_SUBARRAY, &d);
    if (rc)
        return dtype_finish(__func__, rc);
    int ints[3 * RTMPI_GRID_MAXDIMS + 2];
    ints[0] = ndims;
    for (int k = 0; k < ndims; k++) {
        ints[1 + k] = array_of_sizes[k];
        ints[1 + ndims + k] = array_of_subsizes[k];
        ints[1 + 2 * ndims + k] = array_of_starts[k];
    }
    ints[1 + 3 * ndims] = order;
    return dtype_finish(__func__, publish(d, 3 * ndims + 2, ints, 0, NULL, 1, &oldtype, newtype));
}
RTMPI_WEAK(Type_create_subarray)

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    rtmpi_dtype_t *d;

    RTMPI_ENTER();
    CHECK_PTR(__func__, newtype, "newtype");
    int rc = check_old(__func__, oldtype, NULL);
    if (rc)
        return rc;
    MPI_Aint ub;
    if (__builtin_add_overflow(lb, extent, &ub))
        return dtype_finish(__func__, DTYPE_ERR_RANGE);
    rc = build_one(MPI_COMBINER_RESIZED, 0, oldtype, 0, NULL, NULL, &d);
    if (rc != MPI_SUCCESS)
        return dtype_finish(__func__, rc);
    d->lb = lb;
    d->extent = extent;
    d->lb_mark = d->ub_mark = 1;
    MPI_Aint aints[2] = { lb, extent };
    return dtype_finish(__func__, publish(d, 0, NULL, 2, aints, 1, &oldtype, newtype));
}
RTMPI_WEAK(Type_create_resized)

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    rtmpi_dtype_t *old = NULL, *d;

    RTMPI_ENTER();
    CHECK_PTR(__func__, newtype, "newtype");
    int rc = check_old(__func__, oldtype, &old);
    if (rc)
        return rc;
    rc = build_one(MPI_COMBINER_DUP, 0, oldtype, 0, NULL, NULL, &d);
    if (rc != MPI_SUCCESS)
        return dtype_finish(__func__, rc);
    d->lb = old->lb;
    d->extent = old->extent;
    d->lb_mark = old->lb_mark;
    d->ub_mark = old->ub_mark;
    if (old->committed)
        rtmpi_dtype_commit(d);
    memcpy(d->name, old->name, sizeof(d->name));
    rc = publish(d, 0, NULL, 0, NULL, 1, &oldtype, newtype);
    if (rc != MPI_SUCCESS)
        return dtype_finish(__func__, rc);
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
    rtmpi_dtype_commit(d);
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
    MPI_Count n;
    if (__builtin_mul_overflow((MPI_Count)incount, d->size, &n) || n > INT_MAX)
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
    if (!rtmpi_dtype_count_fits(d, incount))
        return rtmpi_error(comm, __func__, MPI_ERR_COUNT, "%d elements of %s are more bytes, "
                           "or span more addresses, than 64 bits hold", incount, d->name);
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
    if (!rtmpi_dtype_count_fits(d, outcount))
        return rtmpi_error(comm, __func__, MPI_ERR_COUNT, "%d elements of %s are more bytes, "
                           "or span more addresses, than 64 bits hold", outcount, d->name);
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

/* Elements in the first `rem` bytes (0 < rem < d->size) of one element of
 * d; -1 when they end inside a basic element. Whole runs and whole loop
 * iterations are skipped by arithmetic, so this costs O(segments x depth),
 * never O(count). */
static MPI_Count elems_partial(const rtmpi_dtype_t *d, MPI_Count rem)
{
    MPI_Count n = 0;

    for (int k = 0; k < d->nsegs && rem > 0; k++) {
        const rtmpi_seg_t *s = &d->segs[k];
        const rtmpi_rep_t *r = s->rep >= 0 ? &d->reps[s->rep] : NULL;
        const rtmpi_dtype_t *child = r ? r->child : NULL;
        MPI_Count iters = 1, unit = s->len;
        MPI_Count unit_elems = child ? child->nbasic : run_elems_done(s->basic, s->len);

        for (int l = 0; r && l < r->nloops; l++)
            iters *= r->count[l];
        if (rem >= iters * unit) {
            n += iters * unit_elems;
            rem -= iters * unit;
            continue;
        }
        n += rem / unit * unit_elems;
        rem %= unit;
        if (rem == 0)
            return n;
        if (child) {
            MPI_Count m = elems_partial(child, rem);

            return m < 0 ? -1 : n + m;
        }
        if (pair_split(s->basic))
            return -1;   /* inside one member */
        MPI_Count bs = (MPI_Count)basics[s->basic].size, part = rem % bs;
        if (basics[s->basic].pair) {
            /* whole pairs, then perhaps the first member of the next */
            if (part != 0 && part != (MPI_Count)basics[s->basic].first_size)
                return -1;
            return n + 2 * (rem / bs) + (part != 0);
        }
        if (part != 0)
            return -1;
        return n + rem / bs;
    }
    return n;
}

/* Basic elements in the first `bytes` bytes of data of type d; -1 when the
 * bytes end inside a basic element. */
static MPI_Count elements_in(const rtmpi_dtype_t *d, MPI_Count bytes)
{
    if (d->size == 0)
        return 0;
    MPI_Count n = bytes / d->size * d->nbasic, rem = bytes % d->size;

    if (rem == 0)
        return n;
    MPI_Count m = elems_partial(d, rem);
    return m < 0 ? -1 : n + m;
}

/* Bytes of the first `want` (< d->nbasic) basic elements of one element. */
static MPI_Count bytes_partial(const rtmpi_dtype_t *d, MPI_Count want)
{
    MPI_Count bytes = 0;

    for (int k = 0; k < d->nsegs && want > 0; k++) {
        const rtmpi_seg_t *s = &d->segs[k];
        const rtmpi_rep_t *r = s->rep >= 0 ? &d->reps[s->rep] : NULL;
        const rtmpi_dtype_t *child = r ? r->child : NULL;
        MPI_Count iters = 1, unit = s->len;
        MPI_Count unit_elems = child ? child->nbasic : run_elems_done(s->basic, s->len);

        for (int l = 0; r && l < r->nloops; l++)
            iters *= r->count[l];
        if (iters * unit_elems <= want) {
            bytes += iters * unit;
            want -= iters * unit_elems;
            continue;
        }
        bytes += want / unit_elems * unit;
        want %= unit_elems;
        if (want == 0)
            return bytes;
        if (child)
            return bytes + bytes_partial(child, want);
        if (basics[s->basic].pair && !pair_split(s->basic))
            return bytes + want / 2 * (MPI_Count)basics[s->basic].size +
                   (want % 2) * (MPI_Count)basics[s->basic].first_size;
        return bytes + want * (MPI_Count)basics[s->basic].size;
    }
    return bytes;
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
    MPI_Count bytes;
    if (__builtin_mul_overflow(count / d->nbasic, d->size, &bytes) ||
        __builtin_add_overflow(bytes, bytes_partial(d, count % d->nbasic), &bytes))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COUNT,
                           "%lld elements of %s are more bytes than MPI_Count holds",
                           (long long)count, d->name);
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
