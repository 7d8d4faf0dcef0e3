/*
 * The "external32" data representation (MPI 3.1 13.5.2): MPI_Pack_external,
 * MPI_Unpack_external, MPI_Pack_external_size. Every basic element is
 * written big-endian in the standard's size for its type (table 13.2):
 * integers two's complement, floating point IEEE (long double as the
 * 16-byte IEEE quad), a complex as its two parts, a pair type (MPI_2INT,
 * MPI_DOUBLE_INT, ...) as its two members without padding. Where the
 * standard's size is smaller than this ABI's (MPI_LONG, MPI_UNSIGNED_LONG:
 * 4 bytes; MPI_WCHAR: 2), a value that does not fit is MPI_ERR_CONVERSION,
 * and unpacking sign- or zero-extends. The typemap is read through
 * rtmpi_dtype_walk only.
 */
#include "config.h"

#include "mpi_impl.h"

#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum ext_kind {
    EXT_BYTES,     /* copied as is (MPI_BYTE, MPI_PACKED, chars, 1-byte integers) */
    EXT_BOOL,      /* one byte, 0 or 1 (input other than 0 unpacks as 1) */
    EXT_SINT,      /* two's complement integer */
    EXT_UINT,      /* unsigned integer */
    EXT_FLOAT,     /* IEEE float of the same size: only the byte order changes */
    EXT_LDOUBLE,   /* C long double, written as IEEE quad */
};

/* One member of a basic element: its kind, its offset and size in memory,
 * its size in external32. */
typedef struct ext_member {
    unsigned char kind, offset, native, ext;
} ext_member_t;

typedef struct ext_basic {
    int nmembers;
    ext_member_t m[2];
} ext_basic_t;

#define ONE(_kind, _ctype, _ext) { 1, { { _kind, 0, sizeof(_ctype), _ext } } }
#define TWO(_kind, _ctype, _ext) \
    { 2, { { _kind, 0, sizeof(_ctype), _ext }, { _kind, sizeof(_ctype), sizeof(_ctype), _ext } } }
#define PAIR(_stype, _fkind, _ftype, _fext, _ikind, _itype, _iext) \
    { 2, { { _fkind, offsetof(_stype, f), sizeof(_ftype), _fext }, \
           { _ikind, offsetof(_stype, i), sizeof(_itype), _iext } } }

struct ext_float_int       { float f; int i; };
struct ext_double_int      { double f; int i; };
struct ext_long_int        { long f; int i; };
struct ext_2int            { int f; int i; };
struct ext_short_int       { short f; int i; };
struct ext_long_double_int { long double f; int i; };
struct ext_2integer        { int32_t f, i; };
struct ext_2real           { float f, i; };
struct ext_2double         { double f, i; };

#ifdef __FLT128_MANT_DIG__
#define QUAD_SIZE sizeof(_Float128)
#else
#define QUAD_SIZE 16
#endif

static const ext_basic_t ext_basics[RTMPI_N_PREDEFINED_TYPES] = {
    [MPI_CHAR] = ONE(EXT_BYTES, char, 1),
    [MPI_SIGNED_CHAR] = ONE(EXT_BYTES, signed char, 1),
    [MPI_UNSIGNED_CHAR] = ONE(EXT_BYTES, unsigned char, 1),
    [MPI_BYTE] = ONE(EXT_BYTES, unsigned char, 1),
    [MPI_SHORT] = ONE(EXT_SINT, short, 2),
    [MPI_UNSIGNED_SHORT] = ONE(EXT_UINT, unsigned short, 2),
    [MPI_INT] = ONE(EXT_SINT, int, 4),
    [MPI_UNSIGNED] = ONE(EXT_UINT, unsigned, 4),
    [MPI_LONG] = ONE(EXT_SINT, long, 4),
    [MPI_UNSIGNED_LONG] = ONE(EXT_UINT, unsigned long, 4),
    [MPI_LONG_LONG_INT] = ONE(EXT_SINT, long long, 8),
    [MPI_UNSIGNED_LONG_LONG] = ONE(EXT_UINT, unsigned long long, 8),
    [MPI_FLOAT] = ONE(EXT_FLOAT, float, 4),
    [MPI_DOUBLE] = ONE(EXT_FLOAT, double, 8),
    [MPI_LONG_DOUBLE] = ONE(EXT_LDOUBLE, long double, 16),
    [MPI_WCHAR] = ONE(EXT_UINT, wchar_t, 2),
    [MPI_C_BOOL] = ONE(EXT_BOOL, _Bool, 1),
    [MPI_INT8_T] = ONE(EXT_BYTES, int8_t, 1),
    [MPI_INT16_T] = ONE(EXT_SINT, int16_t, 2),
    [MPI_INT32_T] = ONE(EXT_SINT, int32_t, 4),
    [MPI_INT64_T] = ONE(EXT_SINT, int64_t, 8),
    [MPI_UINT8_T] = ONE(EXT_BYTES, uint8_t, 1),
    [MPI_UINT16_T] = ONE(EXT_UINT, uint16_t, 2),
    [MPI_UINT32_T] = ONE(EXT_UINT, uint32_t, 4),
    [MPI_UINT64_T] = ONE(EXT_UINT, uint64_t, 8),
    [MPI_AINT] = ONE(EXT_SINT, MPI_Aint, 8),
    [MPI_COUNT] = ONE(EXT_SINT, MPI_Count, 8),
    [MPI_OFFSET] = ONE(EXT_SINT, MPI_Offset, 8),
    [MPI_C_FLOAT_COMPLEX] = TWO(EXT_FLOAT, float, 4),
    [MPI_C_DOUBLE_COMPLEX] = TWO(EXT_FLOAT, double, 8),
    [MPI_C_LONG_DOUBLE_COMPLEX] = TWO(EXT_LDOUBLE, long double, 16),
    [MPI_PACKED] = ONE(EXT_BYTES, unsigned char, 1),
    [MPI_FLOAT_INT] = PAIR(struct ext_float_int, EXT_FLOAT, float, 4, EXT_SINT, int, 4),
    [MPI_DOUBLE_INT] = PAIR(struct ext_double_int, EXT_FLOAT, double, 8, EXT_SINT, int, 4),
    [MPI_LONG_INT] = PAIR(struct ext_long_int, EXT_SINT, long, 4, EXT_SINT, int, 4),
    [MPI_2INT] = PAIR(struct ext_2int, EXT_SINT, int, 4, EXT_SINT, int, 4),
    [MPI_SHORT_INT] = PAIR(struct ext_short_int, EXT_SINT, short, 2, EXT_SINT, int, 4),
    [MPI_LONG_DOUBLE_INT] = PAIR(struct ext_long_double_int, EXT_LDOUBLE, long double, 16,
                                 EXT_SINT, int, 4),
    [MPI_INTEGER] = ONE(EXT_SINT, int32_t, 4),
    [MPI_REAL] = ONE(EXT_FLOAT, float, 4),
    [MPI_DOUBLE_PRECISION] = ONE(EXT_FLOAT, double, 8),
    [MPI_COMPLEX] = TWO(EXT_FLOAT, float, 4),
    [MPI_DOUBLE_COMPLEX] = TWO(EXT_FLOAT, double, 8),
    [MPI_LOGICAL] = ONE(EXT_SINT, int32_t, 4),
    [MPI_CHARACTER] = ONE(EXT_BYTES, char, 1),
    [MPI_INTEGER1] = ONE(EXT_BYTES, int8_t, 1),
    [MPI_INTEGER2] = ONE(EXT_SINT, int16_t, 2),
    [MPI_INTEGER4] = ONE(EXT_SINT, int32_t, 4),
    [MPI_INTEGER8] = ONE(EXT_SINT, int64_t, 8),
    [MPI_INTEGER16] = { 1, { { EXT_SINT, 0, 16, 16 } } },
    [MPI_REAL4] = ONE(EXT_FLOAT, float, 4),
    [MPI_REAL8] = ONE(EXT_FLOAT, double, 8),
    [MPI_REAL16] = { 1, { { EXT_FLOAT, 0, QUAD_SIZE, 16 } } },
    [MPI_COMPLEX8] = TWO(EXT_FLOAT, float, 4),
    [MPI_COMPLEX16] = TWO(EXT_FLOAT, double, 8),
    [MPI_COMPLEX32] = { 2, { { EXT_FLOAT, 0, QUAD_SIZE, 16 },
                             { EXT_FLOAT, QUAD_SIZE, QUAD_SIZE, 16 } } },
    [MPI_2INTEGER] = PAIR(struct ext_2integer, EXT_SINT, int32_t, 4, EXT_SINT, int32_t, 4),
    [MPI_2REAL] = PAIR(struct ext_2real, EXT_FLOAT, float, 4, EXT_FLOAT, float, 4),
    [MPI_2DOUBLE_PRECISION] = PAIR(struct ext_2double, EXT_FLOAT, double, 8, EXT_FLOAT, double, 8),
    [MPI_CXX_BOOL] = ONE(EXT_BOOL, _Bool, 1),
    [MPI_CXX_FLOAT_COMPLEX] = TWO(EXT_FLOAT, float, 4),
    [MPI_CXX_DOUBLE_COMPLEX] = TWO(EXT_FLOAT, double, 8),
    [MPI_CXX_LONG_DOUBLE_COMPLEX] = TWO(EXT_LDOUBLE, long double, 16),
};

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BIG_ENDIAN 1
#else
#define HOST_BIG_ENDIAN 0
#endif

/* n bytes from src to dst, big-endian on one side and host order on the other. */
static void copy_swapped(unsigned char *dst, const unsigned char *src, size_t n)
{
    if (HOST_BIG_ENDIAN) {
        memcpy(dst, src, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        dst[i] = src[n - 1 - i];
}

/* Host-order integer of `size` bytes (at most 8) as 64 bits, sign- or
 * zero-extended. */
static uint64_t int_load(const unsigned char *p, size_t size, int is_signed)
{
    unsigned char be[8];
    uint64_t v = 0;

    copy_swapped(be, p, size);
    for (size_t i = 0; i < size; i++)
        v = v << 8 | be[i];
    if (is_signed && size < 8 && (be[0] & 0x80))
        v |= ~(uint64_t)0 << (8 * size);
    return v;
}

/* The low `size` bytes of v, big-endian. */
static void int_store_be(unsigned char *p, size_t size, uint64_t v)
{
    for (size_t i = 0; i < size; i++)
        p[size - 1 - i] = (unsigned char)(v >> (8 * i));
}

/* The low `size` bytes of v, in host order. */
static void int_store(unsigned char *p, size_t size, uint64_t v)
{
    unsigned char be[8];

    int_store_be(be, size, v);
    copy_swapped(p, be, size);
}

/* Whether v (sign- or zero-extended from its native size) fits `ext` bytes. */
static int int_fits(uint64_t v, size_t ext, int is_signed)
{
    if (ext >= 8)
        return 1;
    if (is_signed) {
        int64_t s = (int64_t)v, lim = (int64_t)1 << (8 * ext - 1);

        return s >= -lim && s < lim;
    }
    return v >> (8 * ext) == 0;
}

/* One member from memory to external32 (returns MPI_ERR_CONVERSION when the
 * value does not fit). */
static int member_pack(const ext_member_t *m, const unsigned char *src, unsigned char *dst)
{
    switch (m->kind) {
    case EXT_BYTES:
        memcpy(dst, src, m->ext);
        return MPI_SUCCESS;
    case EXT_BOOL:
        *dst = *src != 0;
        return MPI_SUCCESS;
    case EXT_FLOAT:
        copy_swapped(dst, src, m->ext);
        return MPI_SUCCESS;
    case EXT_SINT:
    case EXT_UINT:
        if (m->native == m->ext) {
            copy_swapped(dst, src, m->ext);
        } else {
            uint64_t v = int_load(src, m->native, m->kind == EXT_SINT);

            if (!int_fits(v, m->ext, m->kind == EXT_SINT))
                return MPI_ERR_CONVERSION;
            int_store_be(dst, m->ext, v);
        }
        return MPI_SUCCESS;
    case EXT_LDOUBLE:
#if LDBL_MANT_DIG == 113
        copy_swapped(dst, src, 16);
        return MPI_SUCCESS;
#elif defined(__FLT128_MANT_DIG__)
    {
        long double ld;
        _Float128 q;

        memcpy(&ld, src, sizeof(ld));
        q = (_Float128)ld;   /* exact: quad holds every long double */
        copy_swapped(dst, (const unsigned char *)&q, 16);
        return MPI_SUCCESS;
    }
#else
        return MPI_ERR_CONVERSION;
#endif
    }
    return MPI_ERR_INTERN;
}

static int member_unpack(const ext_member_t *m, const unsigned char *src, unsigned char *dst)
{
    switch (m->kind) {
    case EXT_BYTES:
        memcpy(dst, src, m->ext);
        return MPI_SUCCESS;
    case EXT_BOOL:
        *dst = *src != 0;   /* a _Bool holds 0 or 1, nothing else */
        return MPI_SUCCESS;
    case EXT_FLOAT:
        copy_swapped(dst, src, m->ext);
        return MPI_SUCCESS;
    case EXT_SINT:
    case EXT_UINT:
        if (m->native == m->ext) {
            copy_swapped(dst, src, m->ext);
        } else {
            unsigned char host[8];

            copy_swapped(host, src, m->ext);
            int_store(dst, m->native, int_load(host, m->ext, m->kind == EXT_SINT));
        }
        return MPI_SUCCESS;
    case EXT_LDOUBLE:
#if LDBL_MANT_DIG == 113
        copy_swapped(dst, src, 16);
        return MPI_SUCCESS;
#elif defined(__FLT128_MANT_DIG__)
    {
        _Float128 q;
        long double ld;

        copy_swapped((unsigned char *)&q, src, 16);
        ld = (long double)q;   /* rounds to the nearest long double */
        memcpy(dst, &ld, sizeof(ld));
        return MPI_SUCCESS;
    }
#else
        return MPI_ERR_CONVERSION;
#endif
    }
    return MPI_ERR_INTERN;
}

static size_t ext_size_of(int basic)
{
    const ext_basic_t *e = &ext_basics[basic];
    size_t n = 0;

    for (int i = 0; i < e->nmembers; i++)
        n += e->m[i].ext;
    return n;
}

enum walk_mode { WALK_SIZE, WALK_PACK, WALK_UNPACK };

typedef struct walk_state {
    enum walk_mode mode;
    unsigned char *mem;        /* the user's buffer */
    unsigned char *ext;        /* the external32 bytes, advanced as they go */
    MPI_Count ext_bytes;       /* WALK_SIZE: the total */
    int bad_basic;             /* the type that failed to convert */
} walk_state_t;

static int walk_run(MPI_Aint disp, MPI_Aint len, int basic, void *arg)
{
    walk_state_t *w = arg;
    const ext_basic_t *e = &ext_basics[basic];
    size_t native = rtmpi_basic_size(basic);
    MPI_Aint n = len / (MPI_Aint)native;

    /* A pair with a gap between its members walks as one run per member
     * (datatype.c): len is that member's size, disp its address. */
    if (e->nmembers == 2 && len % (MPI_Aint)native != 0) {
        int i = (size_t)len == e->m[0].native ? 0 : (size_t)len == e->m[1].native ? 1 : -1;
        int rc;

        if (i < 0)
            return MPI_ERR_INTERN;
        if (w->mode == WALK_SIZE) {
            w->ext_bytes += e->m[i].ext;
            return 0;
        }
        rc = w->mode == WALK_PACK ? member_pack(&e->m[i], w->mem + disp, w->ext)
                                  : member_unpack(&e->m[i], w->ext, w->mem + disp);
        if (rc != MPI_SUCCESS) {
            w->bad_basic = basic;
            return rc;
        }
        w->ext += e->m[i].ext;
        return 0;
    }
    if (w->mode == WALK_SIZE) {
        w->ext_bytes += (MPI_Count)n * (MPI_Count)ext_size_of(basic);
        return 0;
    }
    for (MPI_Aint k = 0; k < n; k++) {
        unsigned char *elem = w->mem + disp + k * (MPI_Aint)native;

        for (int i = 0; i < e->nmembers; i++) {
            const ext_member_t *m = &e->m[i];
            int rc = w->mode == WALK_PACK ? member_pack(m, elem + m->offset, w->ext)
                                          : member_unpack(m, w->ext, elem + m->offset);

            if (rc != MPI_SUCCESS) {
                w->bad_basic = basic;
                return rc;
            }
            w->ext += m->ext;
        }
    }
    return 0;
}

static int check_datarep(const char *fn, const char *datarep)
{
    if (!datarep)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "datarep is NULL");
    if (strcmp(datarep, "external32") != 0)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                           "data representation \"%.64s\" is not supported (only \"external32\")",
                           datarep);
    return MPI_SUCCESS;
}

static MPI_Count external_size(const rtmpi_dtype_t *d, MPI_Count count)
{
    walk_state_t w = { .mode = WALK_SIZE };

    rtmpi_dtype_walk(d, count, walk_run, &w);
    return w.ext_bytes;
}

static int check_args(const char *fn, const char *datarep, MPI_Datatype datatype, int count,
                      rtmpi_dtype_t **dp)
{
    int rc = check_datarep(fn, datarep);

    if (rc)
        return rc;
    if (rtmpi_dtype_check(datatype, dp))
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_TYPE, "invalid or uncommitted datatype %d",
                           datatype);
    if (count < 0)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_COUNT, "negative count %d", count);
    /* external32 is never larger than the native data */
    if (!rtmpi_dtype_count_fits(*dp, count))
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_COUNT, "%d elements of %s are more "
                           "bytes, or span more addresses, than 64 bits hold", count,
                           (*dp)->name);
    return MPI_SUCCESS;
}

int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    rtmpi_dtype_t *d;
    int rc;

    RTMPI_ENTER();
    rc = check_args(__func__, datarep, datatype, incount, &d);
    if (rc)
        return rc;
    if (!size)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "size is NULL");
    *size = (MPI_Aint)external_size(d, incount);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Pack_external_size)

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                       MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                       MPI_Aint *position)
{
    rtmpi_dtype_t *d;
    int rc;

    RTMPI_ENTER();
    rc = check_args(__func__, datarep, datatype, incount, &d);
    if (rc)
        return rc;
    if (!position || (!outbuf && outsize > 0))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "position or outbuf is NULL");
    MPI_Count n = external_size(d, incount);
    if (*position < 0 || outsize < 0 || n > (MPI_Count)outsize - *position)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_TRUNCATE,
                           "%lld bytes at position %ld do not fit in %ld bytes", (long long)n,
                           (long)*position, (long)outsize);
    walk_state_t w = { .mode = WALK_PACK, .mem = (unsigned char *)(uintptr_t)inbuf,
                       .ext = (unsigned char *)outbuf + *position };
    rc = rtmpi_dtype_walk(d, incount, walk_run, &w);
    if (rc)
        return rtmpi_error(MPI_COMM_NULL, __func__, rc,
                           "a %s value does not fit its %zu bytes in external32",
                           rtmpi_dtype_get(w.bad_basic)->name, ext_size_of(w.bad_basic));
    *position += (MPI_Aint)n;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Pack_external)

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount,
                         MPI_Datatype datatype)
{
    rtmpi_dtype_t *d;
    int rc;

    RTMPI_ENTER();
    rc = check_args(__func__, datarep, datatype, outcount, &d);
    if (rc)
        return rc;
    if (!position || (!inbuf && insize > 0))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "position or inbuf is NULL");
    MPI_Count n = external_size(d, outcount);
    if (*position < 0 || insize < 0 || n > (MPI_Count)insize - *position)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_TRUNCATE,
                           "%lld bytes at position %ld exceed the input of %ld bytes",
                           (long long)n, (long)*position, (long)insize);
    walk_state_t w = { .mode = WALK_UNPACK, .mem = outbuf,
                       .ext = (unsigned char *)(uintptr_t)inbuf + *position };
    rc = rtmpi_dtype_walk(d, outcount, walk_run, &w);
    if (rc)
        return rtmpi_error(MPI_COMM_NULL, __func__, rc, "cannot convert a %s value from external32",
                           rtmpi_dtype_get(w.bad_basic)->name);
    *position += (MPI_Aint)n;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Unpack_external)
