/*
 * Issue 14, part dtmisc: the predefined datatypes MPI 3.1 names that C can
 * use (the Fortran ones with gfortran's sizes, the C++ ones), the
 * predefined ops on them (MPI 3.1 5.9.2: data checked across ranks, and
 * MPI_ERR_OP where an op does not apply), MPI_Type_match_size, the
 * external32 representation against hand-encoded bytes (and between
 * ranks), the MPI-1 names removed in MPI 3.0, and the declared functions no
 * other test calls. Any number of ranks.
 *
 * Optional argument: "gfortran=I,R,D,C,Z,L,CH,I1,I2,I8,I16,R16,C32,T", the
 * storage sizes a gfortran program printed (mpi_dtmisc.sh), checked against
 * the MPI types' sizes, and the integer value of its .TRUE., which the
 * logical ops on MPI_LOGICAL must give.
 */
#define RTMPI_NO_DEPRECATION_WARNINGS 1  /* the MPI-1 names are called on purpose */
#include "mpitest.h"

#include <complex.h>
#include <stdint.h>

/* |z|^2, without libm */
static double norm2(double _Complex z)
{
    return creal(z) * creal(z) + cimag(z) * cimag(z);
}

static int err_class(int rc)
{
    int cls = -1;

    MPI_Error_class(rc, &cls);
    return cls;
}

/* ---- The predefined types: size, extent, name ---- */

static void check_type(MPI_Datatype t, const char *name, int size)
{
    char got[MPI_MAX_OBJECT_NAME];
    int len = -1, sz = -1;
    MPI_Aint lb = -1, extent = -1;
    MPI_Count szx = -1;

    th_case = name;
    CHECK_RC(MPI_Type_get_name(t, got, &len));
    EXPECT(!strcmp(got, name) && len == (int)strlen(name), "name '%s'", got);
    CHECK_RC(MPI_Type_size(t, &sz));
    EXPECT(sz == size, "size %d, want %d", sz, size);
    CHECK_RC(MPI_Type_size_x(t, &szx));
    EXPECT(szx == size, "size_x %lld", (long long)szx);
    CHECK_RC(MPI_Type_get_extent(t, &lb, &extent));
    EXPECT(lb == 0 && extent >= size, "lb %ld extent %ld", (long)lb, (long)extent);
    th_case = NULL;
}

#define T(_t, _size) { _t, #_t, _size }
static const struct {
    MPI_Datatype t;
    const char *name;
    int size;
} new_types[] = {
    T(MPI_INTEGER, 4), T(MPI_REAL, 4), T(MPI_DOUBLE_PRECISION, 8), T(MPI_COMPLEX, 8),
    T(MPI_DOUBLE_COMPLEX, 16), T(MPI_LOGICAL, 4), T(MPI_CHARACTER, 1),
    T(MPI_INTEGER1, 1), T(MPI_INTEGER2, 2), T(MPI_INTEGER4, 4), T(MPI_INTEGER8, 8),
    T(MPI_INTEGER16, 16), T(MPI_REAL4, 4), T(MPI_REAL8, 8), T(MPI_REAL16, 16),
    T(MPI_COMPLEX8, 8), T(MPI_COMPLEX16, 16), T(MPI_COMPLEX32, 32),
    T(MPI_2INTEGER, 8), T(MPI_2REAL, 8), T(MPI_2DOUBLE_PRECISION, 16),
    T(MPI_CXX_BOOL, 1), T(MPI_CXX_FLOAT_COMPLEX, 8), T(MPI_CXX_DOUBLE_COMPLEX, 16),
    T(MPI_CXX_LONG_DOUBLE_COMPLEX, (int)sizeof(long double _Complex)),
    /* the C ones MPI 3.1 names that were there before */
    T(MPI_C_BOOL, 1), T(MPI_C_FLOAT_COMPLEX, 8), T(MPI_C_DOUBLE_COMPLEX, 16),
    T(MPI_C_LONG_DOUBLE_COMPLEX, (int)sizeof(long double _Complex)),
    T(MPI_AINT, (int)sizeof(MPI_Aint)), T(MPI_OFFSET, (int)sizeof(MPI_Offset)),
    T(MPI_COUNT, (int)sizeof(MPI_Count)), T(MPI_INT8_T, 1), T(MPI_INT16_T, 2),
    T(MPI_INT32_T, 4), T(MPI_INT64_T, 8), T(MPI_UINT8_T, 1), T(MPI_UINT16_T, 2),
    T(MPI_UINT32_T, 4), T(MPI_UINT64_T, 8), T(MPI_WCHAR, (int)sizeof(wchar_t)),
    T(MPI_UNSIGNED_LONG_LONG, 8), T(MPI_SIGNED_CHAR, 1), T(MPI_PACKED, 1),
};

static void test_types(const char *gfortran)
{
    for (size_t i = 0; i < sizeof(new_types) / sizeof(new_types[0]); i++)
        check_type(new_types[i].t, new_types[i].name, new_types[i].size);
    EXPECT(MPI_C_COMPLEX == MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX is MPI_C_FLOAT_COMPLEX");
    /* Distinct handles: a Fortran type is not its C twin (names differ). */
    EXPECT(MPI_INTEGER != MPI_INT && MPI_REAL != MPI_FLOAT && MPI_COMPLEX8 != MPI_COMPLEX,
           "distinct handles");

    if (gfortran && !strncmp(gfortran, "gfortran=", 9)) {
        static const MPI_Datatype order[] = {
            MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_COMPLEX, MPI_DOUBLE_COMPLEX,
            MPI_LOGICAL, MPI_CHARACTER, MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER8,
            MPI_INTEGER16, MPI_REAL16, MPI_COMPLEX32,
        };
        const char *p = gfortran + 9;

        for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
            char *end;
            long want = strtol(p, &end, 10);
            int sz = -1;

            CHECK(end != p, "gfortran sizes '%s': entry %zu missing", gfortran, i);
            MPI_Type_size(order[i], &sz);
            EXPECT(sz == want, "gfortran entry %zu: gfortran's size %ld, MPI's %d", i, want, sz);
            p = *end == ',' ? end + 1 : end;
        }
        char *end;
        long t = strtol(p, &end, 10);
        int32_t a[2] = { 1, 1 }, b[2] = { 1, 0 };

        CHECK(end != p, "gfortran '%s': no value of .TRUE.", gfortran);
        CHECK_RC(MPI_Reduce_local(a, b, 2, MPI_LOGICAL, MPI_LOR));
        EXPECT(b[0] == t && b[1] == t,
               "MPI_LOR on MPI_LOGICAL gives %d %d, gfortran's .TRUE. is %ld", b[0], b[1], t);
    }
}

/* ---- Point-to-point of the new types ---- */

static void test_p2p(void)
{
    int r = th_rank, p = th_size;
    double _Complex z[4], zr[4];
    int32_t lg[3], lgr[3];

    if (p < 2)
        return;
    for (int i = 0; i < 4; i++)
        z[i] = (double)(r * 10 + i) + (double)(i - r) * I;
    for (int i = 0; i < 3; i++)
        lg[i] = (r + i) % 2;
    CHECK_RC(MPI_Sendrecv(z, 4, MPI_DOUBLE_COMPLEX, (r + 1) % p, 5, zr, 4, MPI_DOUBLE_COMPLEX,
                          (r + p - 1) % p, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Sendrecv(lg, 3, MPI_LOGICAL, (r + 1) % p, 6, lgr, 3, MPI_LOGICAL,
                          (r + p - 1) % p, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    int from = (r + p - 1) % p;
    for (int i = 0; i < 4; i++)
        EXPECT(zr[i] == (double)(from * 10 + i) + (double)(i - from) * I, "complex %d", i);
    for (int i = 0; i < 3; i++)
        EXPECT(lgr[i] == (from + i) % 2, "logical %d", i);
}

/* ---- Reductions ---- */

static void test_complex_sum_prod(void)
{
    int r = th_rank, p = th_size;
    float _Complex c[2] = { (float)(r + 1) + 1.0f * I, 1.0f - (float)r * I }, cs[2];
    double _Complex d = (double)(r + 1) - 0.5 * I, ds, dp;
    double _Complex want_sum = 0, want_prod = 1;
    float _Complex wc0 = 0, wc1 = 0;

    for (int k = 0; k < p; k++) {
        want_sum += (double)(k + 1) - 0.5 * I;
        want_prod *= (double)(k + 1) - 0.5 * I;
        wc0 += (float)(k + 1) + 1.0f * I;
        wc1 += 1.0f - (float)k * I;
    }
    CHECK_RC(MPI_Allreduce(c, cs, 2, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(cs[0] == wc0 && cs[1] == wc1, "MPI_COMPLEX sum");
    CHECK_RC(MPI_Allreduce(&d, &ds, 1, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(ds == want_sum, "MPI_DOUBLE_COMPLEX sum %g%+gi", creal(ds), cimag(ds));
    /* products of a few small complex numbers are exact in double */
    CHECK_RC(MPI_Allreduce(&d, &dp, 1, MPI_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
    EXPECT(norm2(dp - want_prod) <= 1e-24 * norm2(want_prod), "MPI_DOUBLE_COMPLEX prod");
    CHECK_RC(MPI_Allreduce(&d, &dp, 1, MPI_COMPLEX16, MPI_PROD, MPI_COMM_WORLD));
    EXPECT(norm2(dp - want_prod) <= 1e-24 * norm2(want_prod), "MPI_COMPLEX16 prod");
    CHECK_RC(MPI_Allreduce(&d, &ds, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(ds == want_sum, "MPI_CXX_DOUBLE_COMPLEX sum");
    CHECK_RC(MPI_Allreduce(c, cs, 2, MPI_CXX_FLOAT_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(cs[0] == wc0 && cs[1] == wc1, "MPI_CXX_FLOAT_COMPLEX sum");
    CHECK_RC(MPI_Allreduce(c, cs, 2, MPI_COMPLEX8, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(cs[0] == wc0 && cs[1] == wc1, "MPI_COMPLEX8 sum");
    {
        long double _Complex l = (long double)(r + 1) + 2.0L * I, ls, lw = 0;

        for (int k = 0; k < p; k++)
            lw += (long double)(k + 1) + 2.0L * I;
        CHECK_RC(MPI_Allreduce(&l, &ls, 1, MPI_CXX_LONG_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
        EXPECT(ls == lw, "MPI_CXX_LONG_DOUBLE_COMPLEX sum");
    }
#ifdef __FLT128_MANT_DIG__
    {
        _Float128 _Complex q[1], qs[1], qw = 0;
        _Float128 rq = (_Float128)(r + 1), qprod, qpw = 1;

        q[0] = (_Float128)(r + 1) + (_Float128)1 * I;
        for (int k = 0; k < p; k++) {
            qw += (_Float128)(k + 1) + (_Float128)1 * I;
            qpw *= (_Float128)(k + 1);
        }
        CHECK_RC(MPI_Allreduce(q, qs, 1, MPI_COMPLEX32, MPI_SUM, MPI_COMM_WORLD));
        EXPECT(qs[0] == qw, "MPI_COMPLEX32 sum");
        CHECK_RC(MPI_Allreduce(&rq, &qprod, 1, MPI_REAL16, MPI_PROD, MPI_COMM_WORLD));
        EXPECT(qprod == qpw, "MPI_REAL16 prod");
        CHECK_RC(MPI_Allreduce(&rq, &qprod, 1, MPI_REAL16, MPI_MAX, MPI_COMM_WORLD));
        EXPECT(qprod == (_Float128)p, "MPI_REAL16 max");
    }
#endif
}

static void test_logical(void)
{
    int r = th_rank, p = th_size;
    /* element i of rank r is true when bit i of r+1 is set (and element 3 always) */
    int32_t lg[4], land[4], lor[4], lxor[4];
    _Bool b[4], band_[4], bor_[4], bxor_[4];

    for (int i = 0; i < 4; i++) {
        lg[i] = i == 3 ? 1 : ((r + 1) >> i) & 1;
        b[i] = lg[i] != 0;
    }
    CHECK_RC(MPI_Allreduce(lg, land, 4, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
    CHECK_RC(MPI_Allreduce(lg, lor, 4, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD));
    CHECK_RC(MPI_Allreduce(lg, lxor, 4, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD));
    CHECK_RC(MPI_Allreduce(b, band_, 4, MPI_CXX_BOOL, MPI_LAND, MPI_COMM_WORLD));
    CHECK_RC(MPI_Allreduce(b, bor_, 4, MPI_C_BOOL, MPI_LOR, MPI_COMM_WORLD));
    CHECK_RC(MPI_Allreduce(b, bxor_, 4, MPI_CXX_BOOL, MPI_LXOR, MPI_COMM_WORLD));
    for (int i = 0; i < 4; i++) {
        int all = 1, any = 0, odd = 0;

        for (int k = 0; k < p; k++) {
            int v = i == 3 ? 1 : ((k + 1) >> i) & 1;

            all &= v;
            any |= v;
            odd ^= v;
        }
        EXPECT(land[i] == all && lor[i] == any && lxor[i] == odd,
               "MPI_LOGICAL element %d: land %d lor %d lxor %d, want %d %d %d", i, land[i],
               lor[i], lxor[i], all, any, odd);
        EXPECT(band_[i] == all && bor_[i] == any && bxor_[i] == odd, "bool element %d", i);
    }
}

static void test_fortran_int_real(void)
{
    int r = th_rank, p = th_size;
    int32_t i4 = r + 1, s4, b4;
    int64_t i8 = (int64_t)1 << (r % 40), o8;
    int16_t i2 = (int16_t)(r + 1), m2;
    int8_t i1 = (int8_t)(r + 1), m1;
    float rl = (float)r + 0.5f, mr;
    double dd = (double)r * 2.0, md;

    CHECK_RC(MPI_Allreduce(&i4, &s4, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(s4 == p * (p + 1) / 2, "MPI_INTEGER sum %d", s4);
    CHECK_RC(MPI_Allreduce(&i4, &b4, 1, MPI_INTEGER4, MPI_BXOR, MPI_COMM_WORLD));
    int want = 0;
    for (int k = 1; k <= p; k++)
        want ^= k;
    EXPECT(b4 == want, "MPI_INTEGER4 bxor %d want %d", b4, want);
    CHECK_RC(MPI_Allreduce(&i8, &o8, 1, MPI_INTEGER8, MPI_BOR, MPI_COMM_WORLD));
    int64_t w8 = 0;
    for (int k = 0; k < p; k++)
        w8 |= (int64_t)1 << (k % 40);
    EXPECT(o8 == w8, "MPI_INTEGER8 bor");
    CHECK_RC(MPI_Allreduce(&i2, &m2, 1, MPI_INTEGER2, MPI_MAX, MPI_COMM_WORLD));
    EXPECT(m2 == p, "MPI_INTEGER2 max %d", m2);
    CHECK_RC(MPI_Allreduce(&i1, &m1, 1, MPI_INTEGER1, MPI_MIN, MPI_COMM_WORLD));
    EXPECT(m1 == 1, "MPI_INTEGER1 min %d", m1);
    CHECK_RC(MPI_Allreduce(&rl, &mr, 1, MPI_REAL, MPI_MAX, MPI_COMM_WORLD));
    EXPECT(mr == (float)(p - 1) + 0.5f, "MPI_REAL max %g", mr);
    CHECK_RC(MPI_Allreduce(&dd, &md, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(md == (double)(p * (p - 1)), "MPI_DOUBLE_PRECISION sum %g", md);
    CHECK_RC(MPI_Allreduce(&dd, &md, 1, MPI_REAL8, MPI_MIN, MPI_COMM_WORLD));
    EXPECT(md == 0.0, "MPI_REAL8 min %g", md);
    CHECK_RC(MPI_Allreduce(&rl, &mr, 1, MPI_REAL4, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(mr == (float)(p * (p - 1)) / 2.0f + 0.5f * (float)p, "MPI_REAL4 sum %g", mr);
#ifdef __SIZEOF_INT128__
    __int128 big = (__int128)1 << 100, bs;
    CHECK_RC(MPI_Allreduce(&big, &bs, 1, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(bs == ((__int128)p << 100), "MPI_INTEGER16 sum");
#endif
}

static void test_loc(void)
{
    int r = th_rank, p = th_size;
    /* value of rank r: (r * 7) % p on slot 0, -r on slot 1; ties go to the lower index */
    struct { int32_t v, i; } a[2], amax[2], amin[2];
    struct { float v, i; } f[1], fmax[1];
    struct { double v, i; } d[1], dmin[1];

    a[0].v = (r * 7) % p; a[0].i = r;
    a[1].v = 5;           a[1].i = r;          /* a tie everywhere */
    f[0].v = (float)(r % 3); f[0].i = (float)r;
    d[0].v = -(double)r;  d[0].i = (double)r;
    CHECK_RC(MPI_Allreduce(a, amax, 2, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK_RC(MPI_Allreduce(a, amin, 2, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK_RC(MPI_Allreduce(f, fmax, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK_RC(MPI_Allreduce(d, dmin, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD));
    int best = -1, bi = -1, worst = p + 1, wi = -1, fbest = -1, fbi = -1;
    for (int k = 0; k < p; k++) {
        int v = (k * 7) % p;

        if (v > best) { best = v; bi = k; }
        if (v < worst) { worst = v; wi = k; }
        if (k % 3 > fbest) { fbest = k % 3; fbi = k; }
    }
    EXPECT(amax[0].v == best && amax[0].i == bi, "2INTEGER maxloc (%d,%d)", amax[0].v, amax[0].i);
    EXPECT(amin[0].v == worst && amin[0].i == wi, "2INTEGER minloc (%d,%d)", amin[0].v, amin[0].i);
    EXPECT(amax[1].v == 5 && amax[1].i == 0 && amin[1].i == 0, "2INTEGER tie: lowest index");
    EXPECT(fmax[0].v == (float)fbest && fmax[0].i == (float)fbi, "2REAL maxloc");
    EXPECT(dmin[0].v == -(double)(p - 1) && dmin[0].i == (double)(p - 1),
           "2DOUBLE_PRECISION minloc");
}

/* Ops the standard does not allow on a type: MPI_ERR_OP (checked locally). */
static void test_op_errors(void)
{
    static const struct {
        MPI_Op op;
        MPI_Datatype t;
        const char *what;
    } bad[] = {
        { MPI_LAND, MPI_INTEGER, "LAND on MPI_INTEGER (Fortran integer)" },
        { MPI_LOR, MPI_INTEGER8, "LOR on MPI_INTEGER8" },
        { MPI_BAND, MPI_LOGICAL, "BAND on MPI_LOGICAL" },
        { MPI_SUM, MPI_LOGICAL, "SUM on MPI_LOGICAL" },
        { MPI_MAX, MPI_CXX_BOOL, "MAX on MPI_CXX_BOOL" },
        { MPI_MAX, MPI_COMPLEX, "MAX on MPI_COMPLEX" },
        { MPI_MIN, MPI_DOUBLE_COMPLEX, "MIN on MPI_DOUBLE_COMPLEX" },
        { MPI_LAND, MPI_CXX_FLOAT_COMPLEX, "LAND on MPI_CXX_FLOAT_COMPLEX" },
        { MPI_BAND, MPI_REAL8, "BAND on MPI_REAL8" },
        { MPI_LXOR, MPI_REAL, "LXOR on MPI_REAL" },
        { MPI_MAXLOC, MPI_INTEGER, "MAXLOC on MPI_INTEGER" },
        { MPI_MINLOC, MPI_DOUBLE_PRECISION, "MINLOC on MPI_DOUBLE_PRECISION" },
        { MPI_SUM, MPI_2INTEGER, "SUM on MPI_2INTEGER" },
        { MPI_SUM, MPI_CHARACTER, "SUM on MPI_CHARACTER" },
    };
    unsigned char in[64] = { 0 }, inout[64] = { 0 };

    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int rc = MPI_Reduce_local(in, inout, 1, bad[i].t, bad[i].op);

        EXPECT(err_class(rc) == MPI_ERR_OP, "%s: class %d, want MPI_ERR_OP", bad[i].what,
               err_class(rc));
    }
    /* ... and the ones it allows (REPLACE and NO_OP take any type) */
    static const struct {
        MPI_Op op;
        MPI_Datatype t;
    } good[] = {
        { MPI_SUM, MPI_COMPLEX32 }, { MPI_PROD, MPI_CXX_LONG_DOUBLE_COMPLEX },
        { MPI_BAND, MPI_INTEGER1 }, { MPI_BXOR, MPI_INTEGER16 }, { MPI_MAX, MPI_REAL16 },
        { MPI_LXOR, MPI_LOGICAL }, { MPI_MINLOC, MPI_2REAL }, { MPI_REPLACE, MPI_COMPLEX },
        { MPI_NO_OP, MPI_LOGICAL },
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        EXPECT(MPI_Reduce_local(in, inout, 1, good[i].t, good[i].op) == MPI_SUCCESS,
               "op %d on type %d refused", good[i].op, good[i].t);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* ---- MPI_Type_match_size ---- */

static void test_match_size(void)
{
    static const struct {
        int tc, size;
        MPI_Datatype want;
    } ok[] = {
        { MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1 }, { MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2 },
        { MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4 }, { MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8 },
        { MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16 }, { MPI_TYPECLASS_REAL, 4, MPI_REAL4 },
        { MPI_TYPECLASS_REAL, 8, MPI_REAL8 },       { MPI_TYPECLASS_REAL, 16, MPI_REAL16 },
        { MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8 }, { MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16 },
        { MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32 },
    };
    static const struct {
        int tc, size;
    } bad[] = {
        { MPI_TYPECLASS_INTEGER, 3 }, { MPI_TYPECLASS_INTEGER, 32 }, { MPI_TYPECLASS_REAL, 2 },
        { MPI_TYPECLASS_REAL, 1 },    { MPI_TYPECLASS_COMPLEX, 4 },  { MPI_TYPECLASS_COMPLEX, 64 },
        { 0, 4 },                     { 99, 8 },
    };

    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        MPI_Datatype t = MPI_DATATYPE_NULL;
        int sz = -1;

        CHECK_RC(MPI_Type_match_size(ok[i].tc, ok[i].size, &t));
        EXPECT(t == ok[i].want, "class %d size %d: type %d, want %d", ok[i].tc, ok[i].size, t,
               ok[i].want);
        MPI_Type_size(t, &sz);
        EXPECT(sz == ok[i].size, "class %d size %d: the type's size is %d", ok[i].tc,
               ok[i].size, sz);
    }
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        MPI_Datatype t = MPI_INT;
        int rc = MPI_Type_match_size(bad[i].tc, bad[i].size, &t);

        EXPECT(err_class(rc) == MPI_ERR_ARG && t == MPI_INT,
               "class %d size %d: class %d, want MPI_ERR_ARG, type untouched", bad[i].tc,
               bad[i].size, err_class(rc));
    }
    EXPECT(err_class(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, NULL)) == MPI_ERR_ARG,
           "NULL datatype");
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* ---- external32 ---- */

/* Packs `count` elements of t at buf; the bytes must be want[0..n). Then
 * unpacks them and compares with buf (same_back: the value survives). */
static void ext_case(const char *what, const void *buf, int count, MPI_Datatype t,
                     const unsigned char *want, int n, int same_back)
{
    unsigned char out[128], back[128];
    MPI_Aint pos = 0, size = -1, extent, lb;

    th_case = what;
    memset(out, 0xEE, sizeof(out));
    memset(back, 0, sizeof(back));
    CHECK_RC(MPI_Pack_external_size("external32", count, t, &size));
    EXPECT(size == n, "external size %ld, want %d", (long)size, n);
    CHECK_RC(MPI_Pack_external("external32", buf, count, t, out, sizeof(out), &pos));
    EXPECT(pos == n, "position %ld, want %d", (long)pos, n);
    EXPECT(!memcmp(out, want, (size_t)n), "bytes differ: %02x %02x %02x %02x ...", out[0],
           out[1], out[2], out[3]);
    EXPECT(out[n] == 0xEE, "wrote past its %d bytes", n);
    pos = 0;
    CHECK_RC(MPI_Unpack_external("external32", out, n, &pos, back, count, t));
    EXPECT(pos == n, "unpack position %ld", (long)pos);
    MPI_Type_get_extent(t, &lb, &extent);
    if (same_back)
        EXPECT(!memcmp(back, buf, (size_t)(extent * count)), "value changed on the way back");
    th_case = NULL;
}

static void test_external32(void)
{
    int i = 0x01020304;
    static const unsigned char e_int[] = { 1, 2, 3, 4 };
    short s[2] = { -1, 0x1234 };
    static const unsigned char e_short[] = { 0xff, 0xff, 0x12, 0x34 };
    double d = 1.0;
    static const unsigned char e_double[] = { 0x3f, 0xf0, 0, 0, 0, 0, 0, 0 };
    float f = -2.5f;   /* 0xC0200000 */
    static const unsigned char e_float[] = { 0xc0, 0x20, 0, 0 };
    long l = -2;
    static const unsigned char e_long[] = { 0xff, 0xff, 0xff, 0xfe };
    unsigned long ul = 0xfffffffeUL;
    static const unsigned char e_ulong[] = { 0xff, 0xff, 0xff, 0xfe };
    wchar_t w = L'A';
    static const unsigned char e_wchar[] = { 0, 0x41 };
    long double ld = 1.0L;   /* IEEE quad: sign 0, exponent 0x3fff */
    static const unsigned char e_ld[16] = { 0x3f, 0xff };
    long double ld2 = -0.75L;   /* -1.1b x 2^-1: 0xbffe8000... */
    static const unsigned char e_ld2[16] = { 0xbf, 0xfe, 0x80 };
    float _Complex fc = 1.0f - 2.0f * I;
    static const unsigned char e_fc[] = { 0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0 };
    struct { double v; int i; } di = { 1.5, 7 };   /* 12 bytes: no padding */
    static const unsigned char e_di[] = { 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7 };
    struct { short v; int i; } si = { -3, 258 };
    static const unsigned char e_si[] = { 0xff, 0xfd, 0, 0, 1, 2 };
    long long ll = 0x0102030405060708LL;
    static const unsigned char e_ll[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    int32_t lg[2] = { 1, 0 };
    static const unsigned char e_lg[] = { 0, 0, 0, 1, 0, 0, 0, 0 };
    _Bool b = 1;
    static const unsigned char e_b[] = { 1 };
    char str[3] = { 'a', 'b', 'c' };
    static const unsigned char e_str[] = { 'a', 'b', 'c' };
    MPI_Aint ai = -256;
    static const unsigned char e_ai[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0 };

    ext_case("MPI_INT", &i, 1, MPI_INT, e_int, 4, 1);
    ext_case("MPI_SHORT x2", s, 2, MPI_SHORT, e_short, 4, 1);
    ext_case("MPI_DOUBLE", &d, 1, MPI_DOUBLE, e_double, 8, 1);
    ext_case("MPI_FLOAT", &f, 1, MPI_FLOAT, e_float, 4, 1);
    ext_case("MPI_REAL", &f, 1, MPI_REAL, e_float, 4, 1);
    ext_case("MPI_LONG (4 bytes in external32)", &l, 1, MPI_LONG, e_long, 4, 1);
    ext_case("MPI_UNSIGNED_LONG", &ul, 1, MPI_UNSIGNED_LONG, e_ulong, 4, 1);
    ext_case("MPI_WCHAR (2 bytes)", &w, 1, MPI_WCHAR, e_wchar, 2, 1);
    ext_case("MPI_LONG_DOUBLE 1.0", &ld, 1, MPI_LONG_DOUBLE, e_ld, 16, 0);
    ext_case("MPI_LONG_DOUBLE -0.75", &ld2, 1, MPI_LONG_DOUBLE, e_ld2, 16, 0);
    ext_case("MPI_C_FLOAT_COMPLEX", &fc, 1, MPI_C_FLOAT_COMPLEX, e_fc, 8, 1);
    ext_case("MPI_COMPLEX", &fc, 1, MPI_COMPLEX, e_fc, 8, 1);
    ext_case("MPI_DOUBLE_INT (no padding)", &di, 1, MPI_DOUBLE_INT, e_di, 12, 0);
    ext_case("MPI_SHORT_INT", &si, 1, MPI_SHORT_INT, e_si, 6, 0);
    ext_case("MPI_LONG_LONG", &ll, 1, MPI_LONG_LONG, e_ll, 8, 1);
    ext_case("MPI_INTEGER8", &ll, 1, MPI_INTEGER8, e_ll, 8, 1);
    ext_case("MPI_LOGICAL x2", lg, 2, MPI_LOGICAL, e_lg, 8, 1);
    ext_case("MPI_C_BOOL", &b, 1, MPI_C_BOOL, e_b, 1, 1);
    ext_case("MPI_CHAR x3", str, 3, MPI_CHAR, e_str, 3, 1);
    ext_case("MPI_AINT", &ai, 1, MPI_AINT, e_ai, 8, 1);

    /* values that come back exactly though their memory has padding */
    {
        long double back = 0;
        unsigned char buf[16];
        MPI_Aint pos = 0;

        CHECK_RC(MPI_Pack_external("external32", &ld2, 1, MPI_LONG_DOUBLE, buf, 16, &pos));
        pos = 0;
        CHECK_RC(MPI_Unpack_external("external32", buf, 16, &pos, &back, 1, MPI_LONG_DOUBLE));
        EXPECT(back == -0.75L, "long double back %Lg", back);
        struct { double v; int i; } dib = { 0, 0 };
        pos = 0;
        CHECK_RC(MPI_Unpack_external("external32", e_di, 12, &pos, &dib, 1, MPI_DOUBLE_INT));
        EXPECT(dib.v == 1.5 && dib.i == 7, "double_int back (%g, %d)", dib.v, dib.i);
        long lb = 0;
        pos = 0;
        CHECK_RC(MPI_Unpack_external("external32", e_long, 4, &pos, &lb, 1, MPI_LONG));
        EXPECT(lb == -2, "long back %ld (sign extended)", lb);
        static const unsigned char e_two[2] = { 2, 0 };
        _Bool bb[2] = { 0, 1 };
        pos = 0;
        CHECK_RC(MPI_Unpack_external("external32", e_two, 2, &pos, bb, 2, MPI_CXX_BOOL));
        EXPECT(bb[0] == 1 && bb[1] == 0, "bool from external byte 2: %d %d", bb[0], bb[1]);
        unsigned long ulb = 0;
        pos = 0;
        CHECK_RC(MPI_Unpack_external("external32", e_ulong, 4, &pos, &ulb, 1, MPI_UNSIGNED_LONG));
        EXPECT(ulb == 0xfffffffeUL, "unsigned long back %lx", ulb);
    }
#ifdef __FLT128_MANT_DIG__
    {
        _Float128 q = 1.0;
        static const unsigned char e_q[16] = { 0x3f, 0xff };
        __int128 big = -1;
        static const unsigned char e_big[16] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                                 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

        ext_case("MPI_REAL16", &q, 1, MPI_REAL16, e_q, 16, 1);
        ext_case("MPI_INTEGER16", &big, 1, MPI_INTEGER16, e_big, 16, 1);
    }
#endif
    /* a derived type: every other int of 6, then a struct {char; double} */
    {
        int v[6] = { 1, 2, 3, 4, 5, 6 };
        static const unsigned char e_vec[] = { 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 5 };
        MPI_Datatype vec, st;

        CHECK_RC(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
        CHECK_RC(MPI_Type_commit(&vec));
        ext_case("vector of MPI_INT", v, 1, vec, e_vec, 12, 0);
        MPI_Type_free(&vec);

        struct { char c; double x; } cx[2] = { { 'x', 2.0 }, { 'y', -1.0 } };
        static const unsigned char e_cx[] = { 'x', 0x40, 0, 0, 0, 0, 0, 0, 0,
                                              'y', 0xbf, 0xf0, 0, 0, 0, 0, 0, 0 };
        int bl[2] = { 1, 1 };
        MPI_Aint disp[2] = { 0, 8 };
        MPI_Datatype tys[2] = { MPI_CHAR, MPI_DOUBLE };
        CHECK_RC(MPI_Type_create_struct(2, bl, disp, tys, &st));
        CHECK_RC(MPI_Type_commit(&st));
        ext_case("struct {char; double} x2", cx, 2, st, e_cx, 18, 0);
        MPI_Type_free(&st);
    }

    /* errors */
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    {
        unsigned char buf[16];
        MPI_Aint pos = 0, size = 0;
        long big = 1L << 40;

        EXPECT(err_class(MPI_Pack_external("native", &i, 1, MPI_INT, buf, 16, &pos)) ==
               MPI_ERR_ARG, "datarep native");
        EXPECT(err_class(MPI_Pack_external_size("internal", 1, MPI_INT, &size)) == MPI_ERR_ARG,
               "datarep internal");
        EXPECT(err_class(MPI_Unpack_external("External32", buf, 4, &pos, &i, 1, MPI_INT)) ==
               MPI_ERR_ARG, "datarep is case-sensitive");
        EXPECT(err_class(MPI_Pack_external(NULL, &i, 1, MPI_INT, buf, 16, &pos)) == MPI_ERR_ARG,
               "NULL datarep");
        EXPECT(err_class(MPI_Pack_external("external32", &i, 1, MPI_INT, buf, 3, &pos)) ==
               MPI_ERR_TRUNCATE && pos == 0, "3 bytes for an int");
        pos = 14;
        EXPECT(err_class(MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, buf, 16, &pos)) ==
               MPI_ERR_TRUNCATE && pos == 14, "no room at position 14");
        pos = 0;
        EXPECT(err_class(MPI_Unpack_external("external32", buf, 7, &pos, &d, 1, MPI_DOUBLE)) ==
               MPI_ERR_TRUNCATE && pos == 0, "7 bytes of input for a double");
        EXPECT(err_class(MPI_Pack_external("external32", &big, 1, MPI_LONG, buf, 16, &pos)) ==
               MPI_ERR_CONVERSION && pos == 0, "2^40 in MPI_LONG's 4 bytes");
        EXPECT(err_class(MPI_Pack_external("external32", &i, -1, MPI_INT, buf, 16, &pos)) ==
               MPI_ERR_COUNT, "negative count");
        EXPECT(err_class(MPI_Pack_external("external32", &i, 1, MPI_DATATYPE_NULL, buf, 16,
                                           &pos)) == MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
        EXPECT(err_class(MPI_Pack_external("external32", &i, 1, MPI_INT, buf, 16, NULL)) ==
               MPI_ERR_ARG, "NULL position");
        EXPECT(err_class(MPI_Pack_external_size("external32", 1, MPI_INT, NULL)) == MPI_ERR_ARG,
               "NULL size");
    }
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    /* between ranks: each packs doubles and longs in external32, sends the
     * bytes to the next rank, which unpacks them */
    if (th_size > 1) {
        int r = th_rank, p = th_size;
        double dv[3] = { r + 0.25, -r * 1.5, 1e300 };
        long lv[2] = { -r, 1000 + r };
        unsigned char out[64], in[64];
        MPI_Aint pos = 0, n1 = 0, n2 = 0;

        CHECK_RC(MPI_Pack_external_size("external32", 3, MPI_DOUBLE, &n1));
        CHECK_RC(MPI_Pack_external_size("external32", 2, MPI_LONG, &n2));
        EXPECT(n1 == 24 && n2 == 8, "sizes %ld %ld", (long)n1, (long)n2);
        CHECK_RC(MPI_Pack_external("external32", dv, 3, MPI_DOUBLE, out, sizeof(out), &pos));
        CHECK_RC(MPI_Pack_external("external32", lv, 2, MPI_LONG, out, sizeof(out), &pos));
        CHECK_RC(MPI_Sendrecv(out, (int)pos, MPI_PACKED, (r + 1) % p, 9, in, sizeof(in),
                              MPI_PACKED, (r + p - 1) % p, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        int from = (r + p - 1) % p;
        double dr[3];
        long lr[2];
        pos = 0;
        CHECK_RC(MPI_Unpack_external("external32", in, 32, &pos, dr, 3, MPI_DOUBLE));
        CHECK_RC(MPI_Unpack_external("external32", in, 32, &pos, lr, 2, MPI_LONG));
        EXPECT(dr[0] == from + 0.25 && dr[1] == -from * 1.5 && dr[2] == 1e300, "doubles");
        EXPECT(lr[0] == -from && lr[1] == 1000 + from, "longs %ld %ld", lr[0], lr[1]);
        EXPECT(in[0] == 0x40 || in[0] == 0x3f, "big-endian on the wire (first byte %02x)", in[0]);
    }
}

/* ---- The MPI-1 names removed in MPI 3.0 ---- */

static int handler_calls, handler_code;
static MPI_Comm handler_comm;

static void old_handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_comm = *comm;
    handler_code = *code;
}

static int deletes;

static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm; (void)keyval; (void)value; (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static void test_deprecated(void)
{
    int x[4];
    MPI_Aint a1 = 0, a2 = 0, ext = 0, lb = 0, ub = 0;

    CHECK_RC(MPI_Address(&x[2], &a1));
    CHECK_RC(MPI_Get_address(&x[2], &a2));
    EXPECT(a1 == a2 && a1 != 0, "MPI_Address");

    MPI_Datatype rs;
    CHECK_RC(MPI_Type_create_resized(MPI_INT, -4, 16, &rs));
    CHECK_RC(MPI_Type_extent(rs, &ext));
    CHECK_RC(MPI_Type_lb(rs, &lb));
    CHECK_RC(MPI_Type_ub(rs, &ub));
    EXPECT(ext == 16 && lb == -4 && ub == 12, "extent %ld lb %ld ub %ld", (long)ext, (long)lb,
           (long)ub);
    MPI_Type_free(&rs);

    /* the old constructors build the same types as their replacements */
    {
        int bl[2] = { 1, 2 };
        MPI_Aint disp[2] = { 0, 8 };
        MPI_Datatype tys[2] = { MPI_INT, MPI_SHORT }, t_old, t_new, hv_old, hv_new, hi_old,
                     hi_new;
        CHECK_RC(MPI_Type_struct(2, bl, disp, tys, &t_old));
        CHECK_RC(MPI_Type_create_struct(2, bl, disp, tys, &t_new));
        CHECK_RC(MPI_Type_hvector(3, 2, 12, MPI_SHORT, &hv_old));
        CHECK_RC(MPI_Type_create_hvector(3, 2, 12, MPI_SHORT, &hv_new));
        CHECK_RC(MPI_Type_hindexed(2, bl, disp, MPI_INT, &hi_old));
        CHECK_RC(MPI_Type_create_hindexed(2, bl, disp, MPI_INT, &hi_new));
        MPI_Datatype pairs[3][2] = { { t_old, t_new }, { hv_old, hv_new }, { hi_old, hi_new } };
        for (int k = 0; k < 3; k++) {
            unsigned char src[64], p_old[64], p_new[64];
            int s_old = -1, s_new = -2, po = 0, pn = 0;
            MPI_Aint e_old, e_new, l_old, l_new;

            for (int j = 0; j < 64; j++)
                src[j] = (unsigned char)(j * 3 + 1);
            MPI_Type_commit(&pairs[k][0]);
            MPI_Type_commit(&pairs[k][1]);
            MPI_Type_size(pairs[k][0], &s_old);
            MPI_Type_size(pairs[k][1], &s_new);
            MPI_Type_get_extent(pairs[k][0], &l_old, &e_old);
            MPI_Type_get_extent(pairs[k][1], &l_new, &e_new);
            EXPECT(s_old == s_new && e_old == e_new && l_old == l_new, "pair %d: size/extent", k);
            CHECK_RC(MPI_Pack(src, 1, pairs[k][0], p_old, 64, &po, MPI_COMM_WORLD));
            CHECK_RC(MPI_Pack(src, 1, pairs[k][1], p_new, 64, &pn, MPI_COMM_WORLD));
            EXPECT(po == pn && !memcmp(p_old, p_new, (size_t)po), "pair %d: packed bytes", k);
            MPI_Type_free(&pairs[k][0]);
            MPI_Type_free(&pairs[k][1]);
        }
    }

    /* error handlers */
    {
        MPI_Errhandler eh = MPI_ERRHANDLER_NULL, got = MPI_ERRHANDLER_NULL;
        MPI_Comm dup;

        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        CHECK_RC(MPI_Errhandler_create(old_handler, &eh));
        CHECK_RC(MPI_Errhandler_set(dup, eh));
        CHECK_RC(MPI_Errhandler_get(dup, &got));
        EXPECT(got == eh, "Errhandler_get %d, want %d", got, eh);
        int rc = MPI_Send(x, -1, MPI_INT, 0, 0, dup);
        EXPECT(handler_calls == 1 && handler_comm == dup &&
               err_class(handler_code) == MPI_ERR_COUNT,
               "old-style handler: %d calls, comm %d, class %d", handler_calls, handler_comm,
               err_class(handler_code));
        EXPECT(err_class(rc) == MPI_ERR_COUNT, "MPI_Send returned class %d", err_class(rc));
        MPI_Errhandler_free(&got);
        MPI_Errhandler_free(&eh);
        MPI_Comm_free(&dup);
    }

    /* keyvals and attributes, with the MPI-1 callbacks */
    {
        int k_dup = MPI_KEYVAL_INVALID, k_null = MPI_KEYVAL_INVALID, k_cnt = MPI_KEYVAL_INVALID;
        int v1 = 11, v2 = 22, v3 = 33, flag = -1;
        int *got = NULL;
        MPI_Comm c1, c2;

        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &c1));
        CHECK_RC(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k_dup, NULL));
        CHECK_RC(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &k_null, NULL));
        CHECK_RC(MPI_Keyval_create(MPI_DUP_FN, count_delete, &k_cnt, NULL));
        CHECK_RC(MPI_Attr_put(c1, k_dup, &v1));
        CHECK_RC(MPI_Attr_put(c1, k_null, &v2));
        CHECK_RC(MPI_Attr_put(c1, k_cnt, &v3));
        CHECK_RC(MPI_Attr_get(c1, k_dup, &got, &flag));
        EXPECT(flag && got == &v1, "Attr_get");
        CHECK_RC(MPI_Comm_dup(c1, &c2));
        flag = -1;
        CHECK_RC(MPI_Attr_get(c2, k_dup, &got, &flag));
        EXPECT(flag && got == &v1, "MPI_DUP_FN copied the attribute");
        flag = -1;
        CHECK_RC(MPI_Attr_get(c2, k_null, &got, &flag));
        EXPECT(flag == 0, "MPI_NULL_COPY_FN did not copy it");
        CHECK_RC(MPI_Attr_delete(c1, k_cnt));
        EXPECT(deletes == 1, "delete callback on Attr_delete: %d", deletes);
        flag = -1;
        CHECK_RC(MPI_Attr_get(c1, k_cnt, &got, &flag));
        EXPECT(flag == 0, "deleted");
        CHECK_RC(MPI_Attr_delete(c1, k_null));
        CHECK_RC(MPI_Comm_free(&c2));   /* its k_cnt copy: one more delete */
        EXPECT(deletes == 2, "delete callback on Comm_free: %d", deletes);
        CHECK_RC(MPI_Comm_free(&c1));
        CHECK_RC(MPI_Keyval_free(&k_dup));
        CHECK_RC(MPI_Keyval_free(&k_null));
        CHECK_RC(MPI_Keyval_free(&k_cnt));
        EXPECT(k_dup == MPI_KEYVAL_INVALID && k_cnt == MPI_KEYVAL_INVALID, "Keyval_free");
    }
}

/* ---- The audit: declared functions no other test calls ---- */

static int keep_copies(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    return MPI_COMM_DUP_FN(comm, keyval, extra, in, out, flag);
}

static void test_audit(void)
{
    int r = th_rank, p = th_size;

    /* addresses */
    {
        char buf[16] = { 0 };
        MPI_Aint a, b;

        MPI_Get_address(&buf[0], &a);
        MPI_Get_address(&buf[10], &b);
        EXPECT(MPI_Aint_add(a, 10) == b && MPI_Aint_diff(b, a) == 10, "Aint_add/diff");
    }
    /* version, profiling control, thread queries */
    {
        char v[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = -1, flag = -1;

        CHECK_RC(MPI_Get_library_version(v, &len));
        EXPECT(len > 0 && len == (int)strlen(v) && strstr(v, "librtmsg"), "version '%s'", v);
        CHECK_RC(MPI_Pcontrol(1));
        CHECK_RC(MPI_Pcontrol(0, "extra", 3));
        CHECK_RC(MPI_Is_thread_main(&flag));
        EXPECT(flag == 1, "Is_thread_main");
    }
    /* ops */
    {
        int c = -1, in[3] = { 1, 2, 3 }, io[3] = { 10, 20, 30 };

        CHECK_RC(MPI_Op_commutative(MPI_SUM, &c));
        EXPECT(c == 1, "SUM commutes");
        CHECK_RC(MPI_Reduce_local(in, io, 3, MPI_INT, MPI_PROD));
        EXPECT(io[0] == 10 && io[1] == 40 && io[2] == 90, "Reduce_local PROD");
    }
    /* probe without blocking */
    if (p > 1) {
        int flag = 0, v = r, got = -1;
        MPI_Status st;
        MPI_Request rq;

        CHECK_RC(MPI_Isend(&v, 1, MPI_INT, (r + 1) % p, 77, MPI_COMM_WORLD, &rq));
        while (!flag)
            CHECK_RC(MPI_Iprobe((r + p - 1) % p, 77, MPI_COMM_WORLD, &flag, &st));
        EXPECT(st.MPI_SOURCE == (r + p - 1) % p && st.MPI_TAG == 77, "Iprobe status");
        CHECK_RC(MPI_Recv(&got, 1, MPI_INT, st.MPI_SOURCE, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        EXPECT(got == (r + p - 1) % p, "Iprobe'd message %d", got);
    }
    /* statuses */
    {
        MPI_Status st;
        int flag = -1, n = -1;
        MPI_Count nx = -1;

        CHECK_RC(MPI_Status_set_cancelled(&st, 1));
        CHECK_RC(MPI_Test_cancelled(&st, &flag));
        EXPECT(flag == 1, "set_cancelled");
        CHECK_RC(MPI_Status_set_elements(&st, MPI_DOUBLE, 5));
        CHECK_RC(MPI_Get_elements(&st, MPI_DOUBLE, &n));
        CHECK_RC(MPI_Get_count(&st, MPI_DOUBLE, &n));
        EXPECT(n == 5, "count after set_elements: %d", n);
        CHECK_RC(MPI_Status_set_elements_x(&st, MPI_INT, 6));
        CHECK_RC(MPI_Get_elements_x(&st, MPI_INT, &nx));
        EXPECT(nx == 6, "elements_x %lld", (long long)nx);
    }
    /* datatypes */
    {
        MPI_Aint disp[2] = { 0, 16 };
        MPI_Datatype hib, dup;
        MPI_Count lb = -1, ext = -1, tlb = -1, text = -1, sz = -1;
        int v[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, packed[4], pos = 0;

        CHECK_RC(MPI_Type_create_hindexed_block(2, 2, disp, MPI_INT, &hib));
        CHECK_RC(MPI_Type_dup(hib, &dup));
        CHECK_RC(MPI_Type_commit(&dup));
        CHECK_RC(MPI_Type_size_x(dup, &sz));
        CHECK_RC(MPI_Type_get_extent_x(dup, &lb, &ext));
        CHECK_RC(MPI_Type_get_true_extent_x(dup, &tlb, &text));
        EXPECT(sz == 16 && lb == 0 && ext == 24 && tlb == 0 && text == 24,
               "hindexed_block: size %lld extent %lld true extent %lld", (long long)sz,
               (long long)ext, (long long)text);
        CHECK_RC(MPI_Pack(v, 1, dup, packed, sizeof(packed), &pos, MPI_COMM_WORLD));
        EXPECT(pos == 16 && packed[0] == 1 && packed[1] == 2 && packed[2] == 5 && packed[3] == 6,
               "hindexed_block data");
        MPI_Type_free(&dup);
        MPI_Type_free(&hib);
    }
    /* communicators: dup with info (and MPI_COMM_DUP_FN), a Cartesian get */
    {
        MPI_Comm d, cart;
        MPI_Info info;
        int k = MPI_KEYVAL_INVALID, val = 5, *got = NULL, flag = 0, size = -1;
        int dims[1] = { p }, periods[1] = { 1 }, gd[1], gp[1], gc[1];

        CHECK_RC(MPI_Comm_create_keyval(keep_copies, MPI_COMM_NULL_DELETE_FN, &k, NULL));
        CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, k, &val));
        CHECK_RC(MPI_Info_create(&info));
        CHECK_RC(MPI_Info_set(info, "mpi_assert_no_any_tag", "false"));
        CHECK_RC(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &d));
        CHECK_RC(MPI_Comm_size(d, &size));
        EXPECT(size == p, "dup_with_info size %d", size);
        CHECK_RC(MPI_Comm_get_attr(d, k, &got, &flag));
        EXPECT(flag && got == &val, "MPI_COMM_DUP_FN copy");
        CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, k));
        CHECK_RC(MPI_Comm_free(&d));
        CHECK_RC(MPI_Comm_free_keyval(&k));
        CHECK_RC(MPI_Info_free(&info));
        CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
        CHECK_RC(MPI_Cart_get(cart, 1, gd, gp, gc));
        int cr = -1;
        MPI_Comm_rank(cart, &cr);
        EXPECT(gd[0] == p && gp[0] == 1 && gc[0] == cr, "Cart_get");
        CHECK_RC(MPI_Comm_free(&cart));
    }
    /* groups */
    {
        MPI_Group world, g;
        int ranges[1][3] = { { 0, p - 1, 2 } }, size = -1;

        CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &world));
        CHECK_RC(MPI_Group_range_excl(world, 1, ranges, &g));
        CHECK_RC(MPI_Group_size(g, &size));
        EXPECT(size == p / 2, "range_excl of the even ranks: size %d", size);
        MPI_Group_free(&g);
        MPI_Group_free(&world);
    }
    /* memory */
    {
        double *m = NULL;

        CHECK_RC(MPI_Alloc_mem(64 * sizeof(double), MPI_INFO_NULL, &m));
        EXPECT(m != NULL, "Alloc_mem");
        if (m) {
            m[63] = 1.0;
            CHECK_RC(MPI_Free_mem(m));
        }
    }
    /* one-sided (issue 15, tests/mpi/rma_*): outside an epoch the calls
     * report MPI_ERR_RMA_SYNC through the window's handler, never crash */
    {
        int in = 1, out = 0;
        MPI_Win w = MPI_WIN_NULL;
        MPI_Request q1 = MPI_REQUEST_NULL, q2 = MPI_REQUEST_NULL;

        CHECK_RC(MPI_Win_create(&in, sizeof(in), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w));
        CHECK_RC(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
        int rcs[] = {
            MPI_Win_flush(0, w), MPI_Win_flush_local(0, w), MPI_Win_wait(w),
            MPI_Win_complete(w), MPI_Win_unlock_all(w),
            MPI_Rput(&in, 1, MPI_INT, 0, 0, 1, MPI_INT, w, &q1),
            MPI_Rget(&out, 1, MPI_INT, 0, 0, 1, MPI_INT, w, &q2),
            MPI_Accumulate(&in, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, w),
            MPI_Compare_and_swap(&in, &in, &out, MPI_INT, 0, 0, w),
        };
        for (size_t i = 0; i < sizeof(rcs) / sizeof(rcs[0]); i++)
            EXPECT(err_class(rcs[i]) == MPI_ERR_RMA_SYNC,
                   "one-sided call %zu: class %d", i, err_class(rcs[i]));
        EXPECT(q1 == MPI_REQUEST_NULL && q2 == MPI_REQUEST_NULL, "output handles set to null");
        CHECK_RC(MPI_Win_free(&w));
    }
}

int main(int argc, char **argv)
{
    int provided = -1, query = -1;
    const char *slash = strrchr(argv[0], '/');

    th_name = slash ? slash + 1 : argv[0];
    th_fatal_hook = mt_abort_job;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &th_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &th_size);
    MPI_Query_thread(&query);
    EXPECT(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE && query == provided,
           "Init_thread provided %d, Query_thread %d", provided, query);

    test_types(argc > 1 ? argv[1] : NULL);
    test_p2p();
    test_complex_sum_prod();
    test_logical();
    test_fortran_int_real();
    test_loc();
    test_op_errors();
    test_match_size();
    test_external32();
    test_deprecated();
    test_audit();
    return mt_finish("mpi_dtmisc");
}
