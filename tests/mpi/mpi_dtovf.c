/*
 * Datatypes at the 64-bit limits (issue 14), one process:
 * - nested constructors (contiguous of vector of hindexed of struct,
 *   resized with huge extents, subarray, darray) whose size, extent, true
 *   extent or element count fits MPI_Count / MPI_Aint give the exact values
 *   through the _x queries, and MPI_UNDEFINED from the int forms beyond
 *   INT_MAX;
 * - one step further, where a value would not fit, the constructor fails
 *   with MPI_ERR_ARG (docs/mpi.md) instead of wrapping;
 * - MPI_Status_set_elements_x, MPI_Pack_size, the point-to-point calls
 *   and the collectives refuse a byte count beyond MPI_Count with
 *   MPI_ERR_COUNT.
 * Every type here is O(1) memory and no data is moved: it runs in
 * milliseconds, sanitizers included.
 */
#include "mpitest.h"

#include <limits.h>
#include <stdint.h>

#define GB ((MPI_Aint)1 << 30)

static int err_class(int rc)
{
    int cls = rc;

    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

/* The type must not exist: its constructor returned class `want`. */
#define EXPECT_REFUSED(_call, _want) \
    do { \
        int c_ = err_class(_call); \
        EXPECT(c_ == (_want), "%s: error class %d, expected %d", #_call, c_, (_want)); \
    } while (0)

static void expect_x(MPI_Datatype t, MPI_Count size, MPI_Count lb, MPI_Count extent,
                     MPI_Count tlb, MPI_Count textent, const char *what)
{
    MPI_Count s, l, e, tl, te;
    MPI_Aint al, ae;
    int si;

    CHECK_RC(MPI_Type_size_x(t, &s));
    CHECK_RC(MPI_Type_get_extent_x(t, &l, &e));
    CHECK_RC(MPI_Type_get_true_extent_x(t, &tl, &te));
    EXPECT(s == size && l == lb && e == extent && tl == tlb && te == textent,
           "%s: size %lld lb %lld extent %lld true lb %lld true extent %lld; expected %lld %lld "
           "%lld %lld %lld", what, s, l, e, tl, te, size, lb, extent, tlb, textent);
    CHECK_RC(MPI_Type_size(t, &si));
    EXPECT(si == (size > INT_MAX ? MPI_UNDEFINED : (int)size), "%s: Type_size %d", what, si);
    CHECK_RC(MPI_Type_get_extent(t, &al, &ae));
    EXPECT(al == lb && ae == extent, "%s: Type_get_extent %lld %lld", what, (long long)al,
           (long long)ae);
}

/* contiguous of vector of hindexed of struct, at the edge of MPI_Aint */
static void test_nested(void)
{
    MPI_Datatype s, h, v, c, r, cc, bad;
    MPI_Status st;
    MPI_Count n;
    int ni;

    th_case = "nested";
    /* struct {int; double}: size 12, extent 16 */
    int sbl[2] = { 1, 1 };
    MPI_Aint sd[2] = { 0, 8 };
    MPI_Datatype sty[2] = { MPI_INT, MPI_DOUBLE };
    CHECK_RC(MPI_Type_create_struct(2, sbl, sd, sty, &s));
    /* 3 of them at 0, one at 2^40 */
    const MPI_Aint far = (MPI_Aint)1 << 40, E = far + 16;
    int hbl[2] = { 3, 1 };
    MPI_Aint hd[2] = { 0, far };
    CHECK_RC(MPI_Type_create_hindexed(2, hbl, hd, s, &h));
    expect_x(h, 48, 0, E, 0, E, "hindexed");
    /* 2^10 blocks of 2, every 3 */
    CHECK_RC(MPI_Type_vector(1 << 10, 2, 3, h, &v));
    const MPI_Count ext_v = ((MPI_Count)1023 * 3 + 2) * E, size_v = 1024 * 2 * 48;
    expect_x(v, size_v, 0, ext_v, 0, ext_v, "vector");
    /* 2^11 of them: an extent of 6.9e18, 0.75 of MPI_Aint's range */
    CHECK_RC(MPI_Type_contiguous(1 << 11, v, &c));
    const MPI_Count ext_c = 2048 * ext_v, size_c = 2048 * size_v;
    expect_x(c, size_c, 0, ext_c, 0, ext_c, "contiguous");
    /* twice that does not fit */
    EXPECT_REFUSED(MPI_Type_contiguous(2, c, &bad), MPI_ERR_ARG);
    EXPECT_REFUSED(MPI_Type_vector(2, 1, 1, c, &bad), MPI_ERR_ARG);
    MPI_Aint two[2] = { 0, ext_c };
    EXPECT_REFUSED(MPI_Type_create_hindexed_block(2, 1, two, c, &bad), MPI_ERR_ARG);
    int tbl[2] = { 1, 1 };
    MPI_Datatype tty[2] = { c, c };
    EXPECT_REFUSED(MPI_Type_create_struct(2, tbl, two, tty, &bad), MPI_ERR_ARG);

    /* resized to extent 1, 2^20 of them: size 2.1e14 beyond INT_MAX, the
     * true extent near the top of MPI_Aint */
    CHECK_RC(MPI_Type_create_resized(c, 0, 1, &r));
    CHECK_RC(MPI_Type_contiguous(1 << 20, r, &cc));
    CHECK_RC(MPI_Type_commit(&cc));
    const MPI_Count size_cc = ((MPI_Count)1 << 20) * size_c;
    expect_x(cc, size_cc, 0, 1 << 20, 0, ((MPI_Count)1 << 20) - 1 + ext_c, "resized");
    /* element counts: 2^44 basic elements in one cc */
    const MPI_Count nb = ((MPI_Count)1 << 20) * 2048 * 1024 * 2 * 4 * 2;
    CHECK_RC(MPI_Status_set_elements_x(&st, cc, nb));
    CHECK_RC(MPI_Get_elements_x(&st, cc, &n));
    EXPECT(n == nb, "Get_elements_x %lld, expected %lld", n, nb);
    CHECK_RC(MPI_Get_elements(&st, cc, &ni));
    EXPECT(ni == MPI_UNDEFINED, "Get_elements beyond INT_MAX %d", ni);
    CHECK_RC(MPI_Get_count(&st, cc, &ni));
    EXPECT(ni == 1, "Get_count %d", ni);
    /* part of an element: one struct short of it */
    CHECK_RC(MPI_Status_set_elements_x(&st, cc, nb - 2));
    CHECK_RC(MPI_Get_elements_x(&st, cc, &n));
    EXPECT(n == nb - 2, "Get_elements_x of part %lld", n);
    CHECK_RC(MPI_Get_count(&st, cc, &ni));
    EXPECT(ni == MPI_UNDEFINED, "Get_count of part %d", ni);
    /* 2^20 more of those: the size does not fit; as many elements as a
     * status counting 2^63 bytes would need, neither */
    EXPECT_REFUSED(MPI_Type_contiguous(1 << 20, cc, &bad), MPI_ERR_ARG);
    EXPECT_REFUSED(MPI_Status_set_elements_x(&st, cc, nb * 65536), MPI_ERR_COUNT);
    MPI_Type_free(&cc);
    MPI_Type_free(&r);
    MPI_Type_free(&c);
    MPI_Type_free(&v);
    MPI_Type_free(&h);
    MPI_Type_free(&s);
    th_case = NULL;
}

/* resized, hvector and hindexed at the ends of MPI_Aint */
static void test_bounds(void)
{
    MPI_Datatype r, t, bad;

    th_case = "bounds";
    const MPI_Aint q = (MPI_Aint)1 << 61;
    CHECK_RC(MPI_Type_create_resized(MPI_INT, -q, 2 * q, &r));
    expect_x(r, 4, -q, 2 * q, 0, 4, "resized");
    /* one more element: ub 3q fits, but the extent 4q = 2^63 does not */
    EXPECT_REFUSED(MPI_Type_contiguous(2, r, &bad), MPI_ERR_ARG);
    MPI_Type_free(&r);
    CHECK_RC(MPI_Type_create_resized(MPI_INT, 0, q, &r));
    CHECK_RC(MPI_Type_contiguous(3, r, &t));
    expect_x(t, 12, 0, 3 * q, 0, 2 * q + 4, "3 resized");
    MPI_Type_free(&t);
    EXPECT_REFUSED(MPI_Type_contiguous(4, r, &bad), MPI_ERR_ARG);
    /* strides and displacements counted in extents of r: 2 x 2^61 fits,
     * 4 x 2^62 (below) does not even as a displacement */
    int two = 2, four = 4, one = 1;
    CHECK_RC(MPI_Type_vector(2, 1, 2, r, &t));
    expect_x(t, 8, 0, 3 * q, 0, 2 * q + 4, "vector of resized");
    MPI_Type_free(&t);
    CHECK_RC(MPI_Type_indexed(1, &one, &two, r, &t));
    expect_x(t, 4, 2 * q, q, 2 * q, 4, "indexed of resized");
    MPI_Type_free(&t);
    MPI_Type_free(&r);
    CHECK_RC(MPI_Type_create_resized(MPI_INT, 0, 2 * q, &r));
    EXPECT_REFUSED(MPI_Type_vector(2, 1, 4, r, &bad), MPI_ERR_ARG);
    EXPECT_REFUSED(MPI_Type_indexed(1, &one, &four, r, &bad), MPI_ERR_ARG);
    EXPECT_REFUSED(MPI_Type_create_indexed_block(1, 1, &four, r, &bad), MPI_ERR_ARG);
    MPI_Type_free(&r);
    /* lb + extent beyond MPI_Aint */
    EXPECT_REFUSED(MPI_Type_create_resized(MPI_INT, INT64_MAX - 2, 100, &bad), MPI_ERR_ARG);
    EXPECT_REFUSED(MPI_Type_create_resized(MPI_INT, INT64_MIN + 2, -100, &bad), MPI_ERR_ARG);

    CHECK_RC(MPI_Type_create_hvector(2, 1, INT64_MAX / 2, MPI_INT, &t));
    expect_x(t, 8, 0, INT64_MAX / 2 + 4, 0, INT64_MAX / 2 + 4, "hvector");
    MPI_Type_free(&t);
    EXPECT_REFUSED(MPI_Type_create_hvector(3, 1, INT64_MAX / 2, MPI_INT, &bad), MPI_ERR_ARG);
    EXPECT_REFUSED(MPI_Type_create_hvector(3, 1, INT64_MIN / 2, MPI_INT, &bad), MPI_ERR_ARG);
    /* both ends fit, their distance does not */
    int bl[2] = { 1, 1 };
    MPI_Aint d[2] = { INT64_MIN + 16, INT64_MAX - 16 };
    EXPECT_REFUSED(MPI_Type_create_hindexed(2, bl, d, MPI_INT, &bad), MPI_ERR_ARG);
    MPI_Datatype ty[2] = { MPI_INT, MPI_INT };
    EXPECT_REFUSED(MPI_Type_create_struct(2, bl, d, ty, &bad), MPI_ERR_ARG);
    /* a displacement plus the block beyond MPI_Aint */
    MPI_Aint top = INT64_MAX - 2;
    EXPECT_REFUSED(MPI_Type_create_hindexed(1, bl, &top, MPI_INT, &bad), MPI_ERR_ARG);
    th_case = NULL;
}

static void test_grids(void)
{
    MPI_Datatype t, bad;

    th_case = "grids";
    /* an INT_MAX x INT_MAX array of shorts: extent 2 * INT_MAX^2, just
     * below 2^63; the piece near its end */
    int sizes[3] = { INT_MAX, INT_MAX, INT_MAX }, sub[3] = { 2, 3, 1 },
        starts[3] = { INT_MAX - 2, 5, 0 };
    const MPI_Count M = INT_MAX;
    CHECK_RC(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_SHORT, &t));
    expect_x(t, 12, 0, 2 * M * M, ((M - 2) * M + 5) * 2, (M + 3) * 2, "subarray");
    MPI_Type_free(&t);
    /* of ints (2^63 bytes and more), or three dimensions: refused */
    EXPECT_REFUSED(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &bad),
                   MPI_ERR_ARG);
    EXPECT_REFUSED(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_INT,
                                            &bad), MPI_ERR_ARG);
    EXPECT_REFUSED(MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_BYTE, &bad),
                   MPI_ERR_ARG);
    int dist[3] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE },
        darg[3] = { MPI_DISTRIBUTE_DFLT_DARG, 7, MPI_DISTRIBUTE_DFLT_DARG }, ps[3] = { 1, 1, 1 };
    CHECK_RC(MPI_Type_create_darray(1, 0, 2, sizes, dist, darg, ps, MPI_ORDER_C, MPI_SHORT, &t));
    expect_x(t, 2 * M * M, 0, 2 * M * M, 0, 2 * M * M, "darray");
    MPI_Type_free(&t);
    EXPECT_REFUSED(MPI_Type_create_darray(1, 0, 3, sizes, dist, darg, ps, MPI_ORDER_C, MPI_SHORT,
                                          &bad), MPI_ERR_ARG);
    th_case = NULL;
}

/* byte counts beyond MPI_Count where a count multiplies a size */
static void test_counts(void)
{
    MPI_Datatype a, b, t;
    MPI_Status st;
    MPI_Request rq;
    MPI_Count n;
    int ni, pos = 0;
    char buf[16];

    th_case = "counts";
    /* 2^62 bytes */
    CHECK_RC(MPI_Type_contiguous(1 << 30, MPI_BYTE, &a));
    CHECK_RC(MPI_Type_contiguous(1 << 30, a, &b));
    CHECK_RC(MPI_Type_contiguous(4, b, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_x(t, (MPI_Count)1 << 62, 0, (MPI_Count)1 << 62, 0, (MPI_Count)1 << 62, "2^62");
    EXPECT_REFUSED(MPI_Type_contiguous(2, t, &a), MPI_ERR_ARG);
    /* status counts: 2^62 bytes are 2^60 ints */
    CHECK_RC(MPI_Status_set_elements_x(&st, MPI_INT, (MPI_Count)1 << 60));
    CHECK_RC(MPI_Get_count(&st, t, &ni));
    EXPECT(ni == 1, "Get_count %d", ni);
    CHECK_RC(MPI_Get_elements_x(&st, MPI_BYTE, &n));
    EXPECT(n == (MPI_Count)1 << 62, "Get_elements_x %lld", n);
    CHECK_RC(MPI_Get_count(&st, MPI_INT, &ni));
    EXPECT(ni == MPI_UNDEFINED, "Get_count beyond INT_MAX %d", ni);
    EXPECT_REFUSED(MPI_Status_set_elements_x(&st, MPI_DOUBLE, INT64_MAX / 4), MPI_ERR_COUNT);
    EXPECT_REFUSED(MPI_Status_set_elements_x(&st, MPI_INT, (MPI_Count)1 << 61), MPI_ERR_COUNT);
    /* just above INT_MAX, and the int form */
    CHECK_RC(MPI_Status_set_elements_x(&st, MPI_BYTE, (MPI_Count)INT_MAX + 3));
    CHECK_RC(MPI_Get_elements_x(&st, MPI_BYTE, &n));
    EXPECT(n == (MPI_Count)INT_MAX + 3, "Get_elements_x %lld", n);
    CHECK_RC(MPI_Get_elements(&st, MPI_BYTE, &ni));
    EXPECT(ni == MPI_UNDEFINED, "Get_elements %d", ni);
    CHECK_RC(MPI_Get_count(&st, MPI_SHORT, &ni));
    EXPECT(ni == (INT_MAX + 3LL) / 2, "Get_count as shorts %d", ni);
    CHECK_RC(MPI_Status_set_elements(&st, MPI_INT, INT_MAX));
    CHECK_RC(MPI_Get_elements_x(&st, MPI_BYTE, &n));
    EXPECT(n == (MPI_Count)INT_MAX * 4, "Status_set_elements of INT_MAX ints: %lld bytes", n);
    /* 4 x 2^62 bytes wraps to 0 unchecked */
    EXPECT_REFUSED(MPI_Pack_size(4, t, MPI_COMM_WORLD, &ni), MPI_ERR_COUNT);
    EXPECT_REFUSED(MPI_Pack(buf, 4, t, buf, sizeof(buf), &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
    MPI_Aint asz;
    EXPECT_REFUSED(MPI_Pack_external_size("external32", 4, t, &asz), MPI_ERR_COUNT);
    /* and as a message: refused before anything moves */
    EXPECT_REFUSED(MPI_Send(buf, 4, t, 0, 1, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_REFUSED(MPI_Isend(buf, 4, t, 0, 1, MPI_COMM_WORLD, &rq), MPI_ERR_COUNT);
    EXPECT_REFUSED(MPI_Irecv(buf, 4, t, 0, 1, MPI_COMM_WORLD, &rq), MPI_ERR_COUNT);
    EXPECT_REFUSED(MPI_Recv(buf, 4, t, 0, 1, MPI_COMM_WORLD, &st), MPI_ERR_COUNT);
    EXPECT_REFUSED(MPI_Sendrecv(buf, 4, t, 0, 1, buf, 1, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st),
                   MPI_ERR_COUNT);
    /* a matched message received into too many bytes: refused, and the
     * message can still be received */
    MPI_Message msg;
    int one = 1, got = 0;
    CHECK_RC(MPI_Send(&one, 1, MPI_INT, 0, 2, MPI_COMM_WORLD));
    CHECK_RC(MPI_Mprobe(0, 2, MPI_COMM_WORLD, &msg, &st));
    EXPECT_REFUSED(MPI_Mrecv(buf, 4, t, &msg, &st), MPI_ERR_COUNT);
    EXPECT_REFUSED(MPI_Imrecv(buf, 4, t, &msg, &rq), MPI_ERR_COUNT);
    CHECK_RC(MPI_Mrecv(&got, 1, MPI_INT, &msg, &st));
    EXPECT(got == 1, "the message after the refused receives: %d", got);
    /* collectives: refused at every rank (all pass the same count) */
    EXPECT_REFUSED(MPI_Bcast(buf, 4, t, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_REFUSED(MPI_Ibcast(buf, 4, t, 0, MPI_COMM_WORLD, &rq), MPI_ERR_COUNT);
    EXPECT_REFUSED(MPI_Allgather(buf, 4, t, buf, 4, t, MPI_COMM_WORLD), MPI_ERR_COUNT);
    MPI_Type_free(&t);
    MPI_Type_free(&b);
    MPI_Type_free(&a);

    /* 16 bytes, but 4 elements 2^62 apart: addresses beyond MPI_Aint (the
     * pack loop walked them) */
    CHECK_RC(MPI_Type_create_resized(MPI_INT, 0, (MPI_Aint)1 << 62, &t));
    CHECK_RC(MPI_Type_commit(&t));
    CHECK_RC(MPI_Pack_size(4, t, MPI_COMM_WORLD, &ni));
    EXPECT(ni == 16, "Pack_size %d", ni);
    pos = 0;
    EXPECT_REFUSED(MPI_Pack(buf, 4, t, buf, sizeof(buf), &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_REFUSED(MPI_Send(buf, 4, t, 0, 1, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_REFUSED(MPI_Isend(buf, 4, t, 0, 1, MPI_COMM_WORLD, &rq), MPI_ERR_COUNT);
    EXPECT_REFUSED(MPI_Recv(buf, 4, t, 0, 1, MPI_COMM_WORLD, &st), MPI_ERR_COUNT);
    EXPECT_REFUSED(MPI_Bcast(buf, 4, t, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    /* 2 of them reach 2^62 + 4: fine (nothing moves: to MPI_PROC_NULL) */
    CHECK_RC(MPI_Send(buf, 2, t, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MPI_Type_free(&t);
    th_case = NULL;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_nested();
    test_bounds();
    test_grids();
    test_counts();
    return mt_finish("mpi_dtovf");
}
