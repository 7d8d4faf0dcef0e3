/*
 * Datatype representation (issue 14, part dtrep), data checked:
 * - regular types of huge counts cost O(1) memory (malloc'd bytes measured
 *   around their construction), their sizes, extents and element counts up
 *   to the _x limits (MPI_UNDEFINED from the int forms);
 * - zero-length blocks at huge displacements neither appear in the map nor
 *   move the bounds;
 * - pack/unpack of nested vector/indexed/struct types against offsets
 *   computed here by hand, and the same types sent between ranks;
 * - the pair types: size the sum of the members, extent with padding;
 *   MAXLOC over a strided vector of them;
 * - MPI_Type_get_envelope/get_contents for every combiner;
 * - MPI_Type_create_darray against layouts computed here from the
 *   distribution's definition (owner of each global index).
 */
#include "mpitest.h"

#include <limits.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes the program holds from malloc (0 when the allocator does not say,
 * as under ASan). */
static size_t heap_bytes(void)
{
    struct mallinfo2 mi = mallinfo2();

    return mi.uordblks + mi.hblkhd;
}

static void test_huge(void)
{
    MPI_Datatype v, vv, h;
    MPI_Count sx, lbx, extx, tlbx, textx, n;
    MPI_Aint lb, ext;
    MPI_Status st;
    int sz, ni;
    const MPI_Count half = INT_MAX / 2;

    th_case = "huge";
    size_t before = heap_bytes();
    /* Each of these is INT_MAX/2 blocks: eagerly expanded, gigabytes each. */
    MPI_Datatype many[16];
    for (int i = 0; i < 16; i++) {
        CHECK_RC(MPI_Type_vector(INT_MAX / 2, 1, 2, MPI_INT, &many[i]));
        CHECK_RC(MPI_Type_commit(&many[i]));
    }
    size_t after = heap_bytes();
    if (before > 0)
        EXPECT(after - before < 256 * 1024, "16 vectors of INT_MAX/2 blocks took %zu bytes",
               after - before);
    for (int i = 1; i < 16; i++)
        MPI_Type_free(&many[i]);
    v = many[0];

    MPI_Type_size(v, &sz);
    EXPECT(sz == MPI_UNDEFINED, "Type_size of a type above INT_MAX bytes: %d", sz);
    MPI_Type_size_x(v, &sx);
    EXPECT(sx == half * 4, "Type_size_x %lld", sx);
    MPI_Type_get_extent_x(v, &lbx, &extx);
    EXPECT(lbx == 0 && extx == ((half - 1) * 2 + 1) * 4, "extent_x %lld %lld", lbx, extx);
    MPI_Type_get_true_extent_x(v, &tlbx, &textx);
    EXPECT(tlbx == 0 && textx == extx, "true extent_x %lld %lld", tlbx, textx);
    MPI_Type_get_extent(v, &lb, &ext);
    EXPECT(ext == (MPI_Aint)extx, "extent %ld", (long)ext);

    /* elements: a whole element, part of one, and beyond INT_MAX */
    CHECK_RC(MPI_Status_set_elements_x(&st, v, half));
    MPI_Get_count(&st, v, &ni);
    EXPECT(ni == 1, "Get_count after set_elements of one element: %d", ni);
    MPI_Get_elements_x(&st, MPI_INT, &n);
    EXPECT(n == half, "Get_elements_x as MPI_INT %lld", n);
    CHECK_RC(MPI_Status_set_elements_x(&st, v, 12345));
    MPI_Get_elements_x(&st, v, &n);
    EXPECT(n == 12345, "Get_elements_x of part of an element %lld", n);
    MPI_Get_count(&st, v, &ni);
    EXPECT(ni == MPI_UNDEFINED, "Get_count of part of an element %d", ni);

    CHECK_RC(MPI_Type_create_hvector(3, 1, (MPI_Aint)extx + 4, v, &vv));
    CHECK_RC(MPI_Type_commit(&vv));
    MPI_Type_size_x(vv, &sx);
    EXPECT(sx == 3 * half * 4, "nested size_x %lld", sx);
    CHECK_RC(MPI_Status_set_elements_x(&st, vv, 3 * half));
    MPI_Get_elements_x(&st, vv, &n);
    EXPECT(n == 3 * half, "nested Get_elements_x %lld", n);
    MPI_Get_elements(&st, vv, &ni);
    EXPECT(ni == MPI_UNDEFINED, "Get_elements above INT_MAX: %d", ni);
    CHECK_RC(MPI_Status_set_elements_x(&st, vv, half + 7));
    MPI_Get_elements_x(&st, vv, &n);
    EXPECT(n == half + 7, "nested partial Get_elements_x %lld", n);
    /* a vector of the vector of vectors: still O(1) */
    before = heap_bytes();
    CHECK_RC(MPI_Type_vector(1 << 20, 2, 3, vv, &h));
    CHECK_RC(MPI_Type_commit(&h));
    after = heap_bytes();
    if (before > 0)
        EXPECT(after - before < 64 * 1024, "a vector of 2^20 blocks of nested vectors took %zu "
               "bytes", after - before);
    MPI_Type_size_x(h, &sx);
    EXPECT(sx == (MPI_Count)(1 << 20) * 2 * 3 * half * 4, "vector of vectors size_x %lld", sx);
    MPI_Type_free(&h);
    MPI_Type_free(&vv);
    MPI_Type_free(&v);

    /* zero-length blocks at huge displacements are not in the map */
    int bl[4] = { 1, 0, 2, 0 };
    MPI_Aint hd[4] = { 0, (MPI_Aint)1 << 50, 8, -((MPI_Aint)1 << 52) };
    CHECK_RC(MPI_Type_create_hindexed(4, bl, hd, MPI_INT, &h));
    CHECK_RC(MPI_Type_commit(&h));
    MPI_Type_size(h, &sz);
    MPI_Type_get_extent(h, &lb, &ext);
    EXPECT(sz == 12 && lb == 0 && ext == 16, "hindexed with empty blocks: size %d lb %ld ext %ld",
           sz, (long)lb, (long)ext);
    int src[4] = { 10, 11, 12, 13 }, packed[3] = { 0 }, pos = 0;
    CHECK_RC(MPI_Pack(src, 1, h, packed, sizeof(packed), &pos, MPI_COMM_WORLD));
    EXPECT(pos == 12 && packed[0] == 10 && packed[1] == 12 && packed[2] == 13,
           "hindexed pack %d: %d %d %d", pos, packed[0], packed[1], packed[2]);
    MPI_Type_free(&h);
    MPI_Datatype ty[3] = { MPI_DOUBLE, MPI_INT, MPI_CHAR };
    int sbl[3] = { 1, 0, 1 };
    MPI_Aint sd[3] = { 0, (MPI_Aint)1 << 55, 8 };
    CHECK_RC(MPI_Type_create_struct(3, sbl, sd, ty, &h));
    CHECK_RC(MPI_Type_commit(&h));
    MPI_Type_size(h, &sz);
    MPI_Type_get_extent(h, &lb, &ext);
    EXPECT(sz == 9 && lb == 0 && ext == 16, "struct with an empty block: size %d lb %ld ext %ld",
           sz, (long)lb, (long)ext);
    MPI_Type_free(&h);
    th_case = NULL;
}

/* A nested type and the byte offsets of its ints, by hand:
 * inner = vector(3, 2, 5, INT): ints 0 1 5 6 10 11 (extent 12 ints);
 * mid = indexed({2, 1}, {0, 3}, inner): inner at 0, 12 and 36 ints (extent 48);
 * outer = hvector(2, 1, 400 bytes, mid). */
#define NESTED_INTS 36
static int nested_offsets(int *off)
{
    static const int in[6] = { 0, 1, 5, 6, 10, 11 };
    int k = 0;

    for (int h = 0; h < 2; h++) {
        int base = h * 100;
        int starts[3] = { 0, 12, 36 };

        for (int b = 0; b < 3; b++)
            for (int i = 0; i < 6; i++)
                off[k++] = base + starts[b] + in[i];
    }
    return k;
}

static MPI_Datatype nested_type(void)
{
    MPI_Datatype inner, mid, outer;
    int bl[2] = { 2, 1 }, di[2] = { 0, 3 };

    MPI_Type_vector(3, 2, 5, MPI_INT, &inner);
    MPI_Type_indexed(2, bl, di, inner, &mid);
    MPI_Type_create_hvector(2, 1, 400, mid, &outer);
    MPI_Type_free(&inner);
    MPI_Type_free(&mid);
    MPI_Type_commit(&outer);
    return outer;
}

struct si { short s; int i; };
struct di { double d; int i; };

static void test_pack_and_send(int p)
{
    int off[NESTED_INTS], buf[2 * 160], got[2 * 160], packed[2 * NESTED_INTS], pos = 0, sz;
    MPI_Datatype t = nested_type();
    MPI_Aint lb, ext;

    th_case = "nested";
    EXPECT(nested_offsets(off) == NESTED_INTS, "offsets");
    MPI_Type_size(t, &sz);
    MPI_Type_get_extent(t, &lb, &ext);
    EXPECT(sz == NESTED_INTS * 4 && lb == 0 && ext == (100 + 48) * 4,
           "nested size %d lb %ld extent %ld", sz, (long)lb, (long)ext);
    for (int i = 0; i < 2 * 160; i++)
        buf[i] = 1000 + i;
    /* two elements: the second at the extent (148 ints) */
    CHECK_RC(MPI_Pack(buf, 2, t, packed, sizeof(packed), &pos, MPI_COMM_WORLD));
    int bad = 0;
    for (int e = 0; e < 2; e++)
        for (int i = 0; i < NESTED_INTS; i++)
            bad += packed[e * NESTED_INTS + i] != 1000 + e * 148 + off[i];
    EXPECT(pos == 2 * NESTED_INTS * 4 && bad == 0, "nested pack: %d ints wrong", bad);
    memset(got, 0xff, sizeof(got));
    pos = 0;
    CHECK_RC(MPI_Unpack(packed, sizeof(packed), &pos, got, 2, t, MPI_COMM_WORLD));
    bad = 0;
    int inmap[2 * 160] = { 0 };
    for (int e = 0; e < 2; e++)
        for (int i = 0; i < NESTED_INTS; i++)
            inmap[e * 148 + off[i]] = 1;
    for (int i = 0; i < 2 * 160; i++)
        bad += inmap[i] ? got[i] != buf[i] : got[i] != -1;
    EXPECT(bad == 0, "nested unpack: %d ints wrong", bad);

    /* the same between ranks: as the type, and received as plain ints */
    int right = (th_rank + 1) % p, left = (th_rank + p - 1) % p;
    MPI_Status st;
    for (int i = 0; i < 2 * 160; i++)
        buf[i] = th_rank * 10000 + i;
    memset(got, 0xff, sizeof(got));
    CHECK_RC(MPI_Sendrecv(buf, 2, t, right, 5, got, 2, t, left, 5, MPI_COMM_WORLD, &st));
    bad = 0;
    for (int i = 0; i < 2 * 160; i++)
        bad += inmap[i] ? got[i] != left * 10000 + i : got[i] != -1;
    EXPECT(bad == 0, "nested sendrecv: %d ints wrong", bad);
    CHECK_RC(MPI_Sendrecv(buf, 2, t, right, 6, packed, 2 * NESTED_INTS, MPI_INT, left, 6,
                          MPI_COMM_WORLD, &st));
    bad = 0;
    for (int e = 0; e < 2; e++)
        for (int i = 0; i < NESTED_INTS; i++)
            bad += packed[e * NESTED_INTS + i] != left * 10000 + e * 148 + off[i];
    EXPECT(bad == 0, "nested type to ints: %d wrong", bad);
    /* a short message into the type: the first 5 ints of its map, no more */
    memset(got, 0xff, sizeof(got));
    CHECK_RC(MPI_Sendrecv(buf, 5, MPI_INT, right, 7, got, 2, t, left, 7, MPI_COMM_WORLD, &st));
    bad = 0;
    for (int i = 0; i < 2 * 160; i++) {
        int k = -1;

        for (int j = 0; j < 5; j++)
            if (off[j] == i)
                k = j;
        bad += k >= 0 ? got[i] != left * 10000 + k : got[i] != -1;
    }
    MPI_Get_elements(&st, t, &sz);
    EXPECT(bad == 0 && sz == 5, "short message into the nested type: %d ints wrong, %d elements",
           bad, sz);
    MPI_Type_free(&t);

    /* pair types: size is the members' sum, extent the C struct's */
    th_case = "pairs";
    struct { MPI_Datatype t; int size; MPI_Aint extent; } pairs[] = {
        { MPI_FLOAT_INT, sizeof(float) + sizeof(int), sizeof(struct { float f; int i; }) },
        { MPI_DOUBLE_INT, sizeof(double) + sizeof(int), sizeof(struct di) },
        { MPI_LONG_INT, sizeof(long) + sizeof(int), sizeof(struct { long l; int i; }) },
        { MPI_2INT, 2 * sizeof(int), 2 * sizeof(int) },
        { MPI_SHORT_INT, sizeof(short) + sizeof(int), sizeof(struct si) },
        { MPI_LONG_DOUBLE_INT, sizeof(long double) + sizeof(int),
          sizeof(struct { long double l; int i; }) },
    };
    for (unsigned i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        MPI_Type_size(pairs[i].t, &sz);
        MPI_Type_get_extent(pairs[i].t, &lb, &ext);
        EXPECT(sz == pairs[i].size && lb == 0 && ext == pairs[i].extent,
               "pair %u: size %d (want %d) extent %ld (want %ld)", i, sz, pairs[i].size,
               (long)ext, (long)pairs[i].extent);
    }
    EXPECT(sizeof(struct di) == 16, "test assumes a padded double_int");
    struct si s3[3] = { { 1, 10 }, { 2, 20 }, { 3, 30 } };
    char sp[18];
    pos = 0;
    CHECK_RC(MPI_Pack(s3, 3, MPI_SHORT_INT, sp, sizeof(sp), &pos, MPI_COMM_WORLD));
    short sv;
    int iv;
    memcpy(&sv, sp + 12, 2);
    memcpy(&iv, sp + 14, 4);
    EXPECT(pos == 18 && sv == 3 && iv == 30, "SHORT_INT pack %d %d %d", pos, sv, iv);
    MPI_Status es;
    MPI_Count n;
    /* A pair type is "as if" a struct of its two members (MPI 3.1 5.9.4):
     * two basic elements each, for MPI_Get_elements and
     * MPI_Status_set_elements. */
    CHECK_RC(MPI_Status_set_elements(&es, MPI_SHORT_INT, 4));
    MPI_Get_count(&es, MPI_BYTE, &sz);
    EXPECT(sz == 12, "4 elements of SHORT_INT (2 pairs) are %d bytes", sz);
    CHECK_RC(MPI_Status_set_elements(&es, MPI_SHORT_INT, 3));
    MPI_Get_count(&es, MPI_BYTE, &sz);
    EXPECT(sz == 8, "3 elements of SHORT_INT (a pair and a short) are %d bytes", sz);
    CHECK_RC(MPI_Status_set_elements(&es, MPI_BYTE, 8));   /* a pair and the next's short */
    MPI_Get_elements_x(&es, MPI_SHORT_INT, &n);
    EXPECT(n == 3, "elements of 8 bytes of SHORT_INT: %lld, want 3", n);
    CHECK_RC(MPI_Status_set_elements(&es, MPI_BYTE, 7));   /* inside the second short */
    MPI_Get_elements_x(&es, MPI_SHORT_INT, &n);
    EXPECT(n == MPI_UNDEFINED, "elements of 7 bytes of SHORT_INT: %lld", n);
    CHECK_RC(MPI_Status_set_elements(&es, MPI_BYTE, 2 * 12 + 8));  /* 2 DOUBLE_INT + a double */
    MPI_Get_elements_x(&es, MPI_DOUBLE_INT, &n);
    EXPECT(n == 5, "elements of 32 bytes of DOUBLE_INT: %lld, want 5", n);
    MPI_Get_count(&es, MPI_DOUBLE_INT, &sz);
    EXPECT(sz == MPI_UNDEFINED, "count of 32 bytes of DOUBLE_INT: %d", sz);
    CHECK_RC(MPI_Status_set_elements(&es, MPI_BYTE, 4));
    MPI_Get_elements_x(&es, MPI_2INT, &n);
    EXPECT(n == 1, "elements of 4 bytes of 2INT: %lld, want 1", n);
    {
        /* a struct of pairs: {DOUBLE_INT, INT} counts 3 per element */
        MPI_Datatype st, tt[2] = { MPI_DOUBLE_INT, MPI_INT };
        int bl[2] = { 1, 1 };
        MPI_Aint dp[2] = { 0, 16 };

        CHECK_RC(MPI_Type_create_struct(2, bl, dp, tt, &st));
        CHECK_RC(MPI_Type_commit(&st));
        CHECK_RC(MPI_Status_set_elements(&es, st, 3 + 2));
        MPI_Get_count(&es, MPI_BYTE, &sz);
        EXPECT(sz == 16 + 12, "5 elements of {DOUBLE_INT, INT} are %d bytes", sz);
        MPI_Get_elements_x(&es, st, &n);
        EXPECT(n == 5, "elements of {DOUBLE_INT, INT}: %lld, want 5", n);
        MPI_Type_free(&st);
    }

    /* MAXLOC over every other pair of an array: a non-contiguous walk */
    MPI_Datatype every2;
    struct di dv[8], dr[8];
    MPI_Type_vector(4, 1, 2, MPI_DOUBLE_INT, &every2);
    MPI_Type_commit(&every2);
    for (int i = 0; i < 8; i++) {
        dv[i].d = (i % 2) ? -1 : (double)((th_rank + i) % p);
        dv[i].i = th_rank;
        dr[i].d = 99;
        dr[i].i = 99;
    }
    CHECK_RC(MPI_Allreduce(dv, dr, 1, every2, MPI_MAXLOC, MPI_COMM_WORLD));
    bad = 0;
    for (int i = 0; i < 8; i += 2) {
        /* max of (r + i) % p over r is p - 1, first reached at r = (p - 1 - i) mod p */
        int want = ((p - 1 - i) % p + p) % p;
        bad += dr[i].d != p - 1 || dr[i].i != want || dr[i + 1].d != 99;
    }
    EXPECT(bad == 0, "MAXLOC over a vector of DOUBLE_INT: %d wrong", bad);
    struct si sv4[4], sr4[4];
    MPI_Datatype severy;
    MPI_Type_create_hvector(2, 1, 2 * sizeof(struct si), MPI_SHORT_INT, &severy);
    MPI_Type_commit(&severy);
    for (int i = 0; i < 4; i++) {
        sv4[i].s = (short)(th_rank == p - 1 ? 7 : 1);
        sv4[i].i = th_rank;
        sr4[i].s = 0;
        sr4[i].i = -5;
    }
    CHECK_RC(MPI_Allreduce(sv4, sr4, 1, severy, MPI_MINLOC, MPI_COMM_WORLD));
    int wmin = p == 1 ? 7 : 1;
    EXPECT(sr4[0].s == wmin && sr4[0].i == 0 && sr4[2].s == wmin && sr4[2].i == 0 &&
           sr4[1].i == -5 && sr4[3].i == -5, "MINLOC over SHORT_INT %d/%d %d/%d", sr4[0].s,
           sr4[0].i, sr4[2].s, sr4[2].i);
    MPI_Type_free(&severy);
    MPI_Type_free(&every2);
    th_case = NULL;
}

/* ---- envelope and contents ---- */

static void expect_env(MPI_Datatype t, int ni, int na, int nd, int comb, const char *what)
{
    int a, b, c, k;

    CHECK_RC(MPI_Type_get_envelope(t, &a, &b, &c, &k));
    EXPECT(a == ni && b == na && c == nd && k == comb, "%s: envelope %d %d %d %d, want %d %d %d %d",
           what, a, b, c, k, ni, na, nd, comb);
}

/* Contents must be ints/aints as given; returned derived types are new
 * handles with the envelope of the original, and are freed here. */
static void expect_contents(MPI_Datatype t, int ni, const int *ints, int na, const MPI_Aint *aints,
                            int nd, const MPI_Datatype *types, const char *what)
{
    int gi[64];
    MPI_Aint ga[16];
    MPI_Datatype gt[16];

    CHECK_RC(MPI_Type_get_contents(t, 64, 16, 16, gi, ga, gt));
    for (int i = 0; i < ni; i++)
        EXPECT(gi[i] == ints[i], "%s: integer %d is %d, want %d", what, i, gi[i], ints[i]);
    for (int i = 0; i < na; i++)
        EXPECT(ga[i] == aints[i], "%s: address %d is %ld, want %ld", what, i, (long)ga[i],
               (long)aints[i]);
    for (int i = 0; i < nd; i++) {
        int a, b, c, k, a2, b2, c2, k2;

        MPI_Type_get_envelope(types[i], &a, &b, &c, &k);
        MPI_Type_get_envelope(gt[i], &a2, &b2, &c2, &k2);
        EXPECT(a == a2 && b == b2 && c == c2 && k == k2, "%s: datatype %d's envelope", what, i);
        if (k == MPI_COMBINER_NAMED) {
            EXPECT(gt[i] == types[i], "%s: named datatype %d is %d, want %d", what, i, gt[i],
                   types[i]);
        } else {
            MPI_Count s1, s2;

            EXPECT(gt[i] != types[i], "%s: derived datatype %d is not a new handle", what, i);
            MPI_Type_size_x(types[i], &s1);
            MPI_Type_size_x(gt[i], &s2);
            EXPECT(s1 == s2, "%s: datatype %d size %lld vs %lld", what, i, s1, s2);
            CHECK_RC(MPI_Type_free(&gt[i]));
        }
    }
}

static void test_envelope(void)
{
    MPI_Datatype c, v, hv, ix, hx, ib, hb, st, sa, da, rs, dp;
    int bl[3] = { 1, 2, 3 }, di[3] = { 0, 4, 9 };
    MPI_Aint ad[3] = { 0, 16, 40 };

    th_case = "envelope";
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    expect_env(MPI_INT, 0, 0, 0, MPI_COMBINER_NAMED, "MPI_INT");
    expect_env(MPI_DOUBLE_INT, 0, 0, 0, MPI_COMBINER_NAMED, "MPI_DOUBLE_INT");
    int gi[4];
    MPI_Aint ga[4];
    MPI_Datatype gt[4];
    EXPECT(MPI_Type_get_contents(MPI_INT, 4, 4, 4, gi, ga, gt) == MPI_ERR_TYPE,
           "contents of a named type must be MPI_ERR_TYPE");

    MPI_Type_contiguous(4, MPI_INT, &c);
    expect_env(c, 1, 0, 1, MPI_COMBINER_CONTIGUOUS, "contiguous");
    expect_contents(c, 1, (int[]){ 4 }, 0, NULL, 1, (MPI_Datatype[]){ MPI_INT }, "contiguous");
    MPI_Type_vector(3, 2, 5, c, &v);
    expect_env(v, 3, 0, 1, MPI_COMBINER_VECTOR, "vector");
    expect_contents(v, 3, (int[]){ 3, 2, 5 }, 0, NULL, 1, &c, "vector");
    MPI_Type_create_hvector(3, 2, 100, MPI_DOUBLE, &hv);
    expect_env(hv, 2, 1, 1, MPI_COMBINER_HVECTOR, "hvector");
    expect_contents(hv, 2, (int[]){ 3, 2 }, 1, (MPI_Aint[]){ 100 }, 1,
                    (MPI_Datatype[]){ MPI_DOUBLE }, "hvector");
    MPI_Type_indexed(3, bl, di, v, &ix);
    expect_env(ix, 7, 0, 1, MPI_COMBINER_INDEXED, "indexed");
    expect_contents(ix, 7, (int[]){ 3, 1, 2, 3, 0, 4, 9 }, 0, NULL, 1, &v, "indexed");
    MPI_Type_create_hindexed(3, bl, ad, MPI_SHORT, &hx);
    expect_env(hx, 4, 3, 1, MPI_COMBINER_HINDEXED, "hindexed");
    expect_contents(hx, 4, (int[]){ 3, 1, 2, 3 }, 3, ad, 1, (MPI_Datatype[]){ MPI_SHORT },
                    "hindexed");
    MPI_Type_create_indexed_block(3, 2, di, hv, &ib);
    expect_env(ib, 5, 0, 1, MPI_COMBINER_INDEXED_BLOCK, "indexed_block");
    expect_contents(ib, 5, (int[]){ 3, 2, 0, 4, 9 }, 0, NULL, 1, &hv, "indexed_block");
    MPI_Type_create_hindexed_block(3, 2, ad, MPI_INT, &hb);
    expect_env(hb, 2, 3, 1, MPI_COMBINER_HINDEXED_BLOCK, "hindexed_block");
    expect_contents(hb, 2, (int[]){ 3, 2 }, 3, ad, 1, (MPI_Datatype[]){ MPI_INT },
                    "hindexed_block");
    MPI_Datatype sty[3] = { MPI_CHAR, ix, MPI_DOUBLE_INT };
    MPI_Type_create_struct(3, bl, ad, sty, &st);
    expect_env(st, 4, 3, 3, MPI_COMBINER_STRUCT, "struct");
    expect_contents(st, 4, (int[]){ 3, 1, 2, 3 }, 3, ad, 3, sty, "struct");
    int sizes[2] = { 6, 7 }, subs[2] = { 2, 3 }, starts[2] = { 1, 4 };
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_FLOAT, &sa);
    expect_env(sa, 8, 0, 1, MPI_COMBINER_SUBARRAY, "subarray");
    expect_contents(sa, 8, (int[]){ 2, 6, 7, 2, 3, 1, 4, MPI_ORDER_FORTRAN }, 0, NULL, 1,
                    (MPI_Datatype[]){ MPI_FLOAT }, "subarray");
    int gs[2] = { 10, 9 }, dist[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC },
        darg[2] = { MPI_DISTRIBUTE_DFLT_DARG, 2 }, ps[2] = { 2, 3 };
    CHECK_RC(MPI_Type_create_darray(6, 4, 2, gs, dist, darg, ps, MPI_ORDER_C, c, &da));
    expect_env(da, 12, 0, 1, MPI_COMBINER_DARRAY, "darray");
    expect_contents(da, 12,
                    (int[]){ 6, 4, 2, 10, 9, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC,
                             MPI_DISTRIBUTE_DFLT_DARG, 2, 2, 3, MPI_ORDER_C },
                    0, NULL, 1, &c, "darray");
    MPI_Type_create_resized(st, -4, 1000, &rs);
    expect_env(rs, 0, 2, 1, MPI_COMBINER_RESIZED, "resized");
    expect_contents(rs, 0, NULL, 2, (MPI_Aint[]){ -4, 1000 }, 1, &st, "resized");
    MPI_Type_dup(rs, &dp);
    expect_env(dp, 0, 0, 1, MPI_COMBINER_DUP, "dup");
    expect_contents(dp, 0, NULL, 0, NULL, 1, &rs, "dup");
    EXPECT(MPI_Type_get_contents(v, 2, 0, 1, gi, ga, gt) == MPI_ERR_ARG,
           "contents into arrays too small must be MPI_ERR_ARG");

    /* A returned type outlives the original and packs the same data. */
    MPI_Datatype got;
    int ints[3];
    EXPECT(MPI_Type_get_contents(ix, 0, 0, 0, NULL, NULL, NULL) == MPI_ERR_ARG,
           "contents into no arrays must be MPI_ERR_ARG");
    CHECK_RC(MPI_Type_get_contents(ix, 7, 0, 1, (int[7]){ 0 }, NULL, &got));
    MPI_Type_free(&v);
    MPI_Type_free(&c);
    CHECK_RC(MPI_Type_get_contents(got, 3, 0, 1, ints, NULL, &c));  /* the vector's */
    EXPECT(ints[0] == 3 && ints[1] == 2 && ints[2] == 5, "contents of a returned vector");
    CHECK_RC(MPI_Type_commit(&got));
    int src[30 * 4], pk[12 * 4], pos = 0;
    for (int i = 0; i < 30 * 4; i++)
        src[i] = i;
    CHECK_RC(MPI_Pack(src, 1, got, pk, sizeof(pk), &pos, MPI_COMM_WORLD));
    /* vector(3, 2, 5) of contiguous(4 ints): blocks of 8 ints every 20 */
    int bad = 0;
    for (int b = 0; b < 3; b++)
        for (int i = 0; i < 8; i++)
            bad += pk[b * 8 + i] != b * 20 + i;
    EXPECT(pos == 24 * 4 && bad == 0, "returned vector packs %d bytes, %d wrong", pos, bad);
    MPI_Type_free(&c);
    MPI_Type_free(&got);
    MPI_Datatype all[] = { hv, ix, hx, ib, hb, st, sa, da, rs, dp };
    for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        CHECK_RC(MPI_Type_free(&all[i]));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    th_case = NULL;
}

/* ---- darray ---- */

/* The process coordinate that owns global index g of a dimension. */
static int owner(int g, int gsize, int distrib, int darg, int psize)
{
    if (distrib == MPI_DISTRIBUTE_NONE)
        return 0;
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
        return g / b;
    }
    int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    return (g / b) % psize;
}

/* Checks every rank's darray of an int array against the owners: packs
 * the array's indices in order, each element exactly once over all ranks. */
static void check_darray(int ndims, const int *gs, const int *dist, const int *darg,
                         const int *ps, int order, const char *what)
{
    int size = 1, total = 1;

    for (int k = 0; k < ndims; k++) {
        size *= ps[k];
        total *= gs[k];
    }
    int *arr = malloc((size_t)total * sizeof(int)), *pk = malloc((size_t)total * sizeof(int));
    int *want = malloc((size_t)total * sizeof(int)), *seen = calloc((size_t)total, sizeof(int));
    for (int i = 0; i < total; i++)
        arr[i] = i;
    for (int rank = 0; rank < size; rank++) {
        int coords[4], idx[4] = { 0 }, nwant = 0;
        MPI_Datatype t;

        for (int k = ndims - 1, r = rank; k >= 0; k--) {
            coords[k] = r % ps[k];
            r /= ps[k];
        }
        /* every global index in array order (C: last dimension fastest) */
        for (int n = 0; n < total; n++) {
            int mine = 1, lin = 0;

            for (int k = 0; k < ndims; k++)
                mine &= owner(idx[k], gs[k], dist[k], darg[k], ps[k]) == coords[k];
            if (order == MPI_ORDER_C)
                for (int k = 0; k < ndims; k++)
                    lin = lin * gs[k] + idx[k];
            else
                for (int k = ndims - 1; k >= 0; k--)
                    lin = lin * gs[k] + idx[k];
            if (mine)
                want[nwant++] = lin;
            for (int s = 0; s < ndims; s++) {
                int k = order == MPI_ORDER_C ? ndims - 1 - s : s;

                if (++idx[k] < gs[k])
                    break;
                idx[k] = 0;
            }
        }
        CHECK_RC(MPI_Type_create_darray(size, rank, ndims, gs, dist, darg, ps, order, MPI_INT, &t));
        CHECK_RC(MPI_Type_commit(&t));
        int sz, pos = 0;
        MPI_Aint lb, ext;
        MPI_Type_size(t, &sz);
        MPI_Type_get_extent(t, &lb, &ext);
        EXPECT(sz == nwant * 4 && lb == 0 && ext == (MPI_Aint)total * 4,
               "%s rank %d: size %d (want %d) lb %ld extent %ld", what, rank, sz, nwant * 4,
               (long)lb, (long)ext);
        CHECK_RC(MPI_Pack(arr, 1, t, pk, total * 4, &pos, MPI_COMM_WORLD));
        int bad = 0;
        for (int i = 0; i < nwant && i < pos / 4; i++) {
            bad += pk[i] != want[i];
            seen[pk[i]]++;
        }
        EXPECT(bad == 0 && pos == nwant * 4, "%s rank %d: %d of %d elements wrong", what, rank, bad,
               nwant);
        MPI_Type_free(&t);
    }
    int cover = 0;
    for (int i = 0; i < total; i++)
        cover += seen[i] == 1;
    EXPECT(cover == total, "%s: %d of %d elements owned exactly once", what, cover, total);
    free(arr);
    free(pk);
    free(want);
    free(seen);
}

static void test_darray(void)
{
    th_case = "darray";
    /* by hand first: 5x7, psizes 2x2, BLOCK (3 rows: 0-2 | 3-4) x CYCLIC(2)
     * (columns 0 1 4 5 | 2 3 6); rank 3 = coords (1, 1): rows 3-4, columns
     * 2 3 6 */
    int gs[2] = { 5, 7 }, dist[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC },
        darg[2] = { MPI_DISTRIBUTE_DFLT_DARG, 2 }, ps[2] = { 2, 2 };
    int arr[35], pk[35], pos = 0;
    MPI_Datatype t;
    for (int i = 0; i < 35; i++)
        arr[i] = i;
    CHECK_RC(MPI_Type_create_darray(4, 3, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t));
    CHECK_RC(MPI_Type_commit(&t));
    CHECK_RC(MPI_Pack(arr, 1, t, pk, sizeof(pk), &pos, MPI_COMM_WORLD));
    int want[6] = { 23, 24, 27, 30, 31, 34 };
    EXPECT(pos == 24 && !memcmp(pk, want, sizeof(want)), "5x7 rank 3: %d bytes, %d %d %d %d %d %d",
           pos, pk[0], pk[1], pk[2], pk[3], pk[4], pk[5]);
    MPI_Type_free(&t);
    /* Fortran order, rank 1 = coords (0, 1): rows 0-2, columns 2 3 6,
     * element (i, j) at i + 5 j, rows fastest */
    pos = 0;
    CHECK_RC(MPI_Type_create_darray(4, 1, 2, gs, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_INT, &t));
    CHECK_RC(MPI_Type_commit(&t));
    CHECK_RC(MPI_Pack(arr, 1, t, pk, sizeof(pk), &pos, MPI_COMM_WORLD));
    int wantf[9] = { 10, 11, 12, 15, 16, 17, 30, 31, 32 };
    EXPECT(pos == 36 && !memcmp(pk, wantf, sizeof(wantf)), "5x7 Fortran rank 1: %d bytes", pos);
    MPI_Type_free(&t);

    check_darray(2, gs, dist, darg, ps, MPI_ORDER_C, "5x7 block x cyclic(2)");
    check_darray(2, gs, dist, darg, ps, MPI_ORDER_FORTRAN, "5x7 block x cyclic(2), Fortran");
    int gs3[3] = { 7, 4, 11 }, dist3[3] = { MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE,
                                           MPI_DISTRIBUTE_BLOCK },
        darg3[3] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, 4 }, ps3[3] = { 3, 1, 3 };
    check_darray(3, gs3, dist3, darg3, ps3, MPI_ORDER_C, "7x4x11 cyclic x none x block(4)");
    check_darray(3, gs3, dist3, darg3, ps3, MPI_ORDER_FORTRAN,
                 "7x4x11 cyclic x none x block(4), Fortran");
    int gs1[1] = { 23 }, dist1[1] = { MPI_DISTRIBUTE_CYCLIC }, darg1[1] = { 3 }, ps1[1] = { 4 };
    check_darray(1, gs1, dist1, darg1, ps1, MPI_ORDER_C, "23 cyclic(3) over 4");
    dist1[0] = MPI_DISTRIBUTE_BLOCK;
    darg1[0] = MPI_DISTRIBUTE_DFLT_DARG;
    check_darray(1, gs1, dist1, darg1, ps1, MPI_ORDER_C, "23 block over 4");

    /* errors: a grid that is not `size`, blocks that do not cover */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT(MPI_Type_create_darray(5, 0, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t) ==
               MPI_ERR_ARG, "darray over a grid of 4 with size 5");
    int small[2] = { 2, 2 };
    int dblock[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK };
    EXPECT(MPI_Type_create_darray(4, 0, 2, gs, dblock, small, ps, MPI_ORDER_C, MPI_INT, &t) ==
               MPI_ERR_ARG, "darray blocks of 2 over 2 processes for 5 elements");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* a darray piece sent to the next rank and received as ints */
    int p, right, left;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    right = (th_rank + 1) % p;
    left = (th_rank + p - 1) % p;
    CHECK_RC(MPI_Type_create_darray(4, th_rank % 4, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t));
    CHECK_RC(MPI_Type_commit(&t));
    int sz;
    MPI_Type_size(t, &sz);
    int lt;
    MPI_Datatype ltype;
    MPI_Type_create_darray(4, left % 4, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &ltype);
    MPI_Type_commit(&ltype);
    MPI_Type_size(ltype, &lt);
    pos = 0;
    int expect[35];
    MPI_Pack(arr, 1, ltype, expect, sizeof(expect), &pos, MPI_COMM_WORLD);
    memset(pk, 0xff, sizeof(pk));
    MPI_Status st;
    CHECK_RC(MPI_Sendrecv(arr, 1, t, right, 9, pk, 35, MPI_INT, left, 9, MPI_COMM_WORLD, &st));
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    EXPECT(cnt * 4 == lt && !memcmp(pk, expect, (size_t)lt), "darray piece from rank %d", left);
    MPI_Type_free(&ltype);
    MPI_Type_free(&t);
    th_case = NULL;
}

int main(int argc, char **argv)
{
    int p;

    mt_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    test_huge();
    test_pack_and_send(p);
    test_envelope();
    test_darray();
    return mt_finish("mpi_dtrep");
}
