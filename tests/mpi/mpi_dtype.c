/*
 * Datatype constructors (sizes, extents, true extents), pack/unpack,
 * struct padding, subarray, resized, names, Get_elements; and a struct
 * array sent through point-to-point to the next rank.
 */
#include "mpitest.h"

#include <stddef.h>

struct particle { double x; int id; char tag; };

static void expect_bounds(MPI_Datatype t, MPI_Aint want_lb, MPI_Aint want_ext, const char *what)
{
    MPI_Aint lb = -1, ext = -1;

    CHECK_RC(MPI_Type_get_extent(t, &lb, &ext));
    EXPECT(lb == want_lb && ext == want_ext, "%s: lb %ld extent %ld, want %ld %ld", what,
           (long)lb, (long)ext, (long)want_lb, (long)want_ext);
}

/* struct{n0 x t0 at d0, one t1 at d1}: its bounds checked, then freed. */
static void expect_struct2(int n0, MPI_Datatype t0, MPI_Aint d0, MPI_Datatype t1, MPI_Aint d1,
                           MPI_Aint want_lb, MPI_Aint want_ext, const char *what)
{
    int bl[2] = { n0, 1 };
    MPI_Aint d[2] = { d0, d1 };
    MPI_Datatype t[2] = { t0, t1 }, s;

    CHECK_RC(MPI_Type_create_struct(2, bl, d, t, &s));
    expect_bounds(s, want_lb, want_ext, what);
    MPI_Type_free(&s);
}

/* MPI 3.1 4.1.6-4.1.7: a resized type's type map carries explicit lb and
 * ub markers; in any type built on it the markers are where its copies put
 * them, and where a type map has an lb (ub) marker the lower (upper) bound
 * is the lowest (highest) marker, whatever the other entries are, with no
 * alignment padding after an explicit ub. Subarray is such a resized type. */
static void test_bound_markers(void)
{
    MPI_Datatype r8, rc, dup, sub, s, c2, t[2] = { MPI_DATATYPE_NULL, MPI_INT };
    int bl[2] = { 1, 1 };
    MPI_Aint d[2] = { 0, 20 }, tlb, text;

    CHECK_RC(MPI_Type_create_resized(MPI_INT, 0, 8, &r8));
    CHECK_RC(MPI_Type_create_resized(MPI_CHAR, 0, 1, &rc));
    /* {(lb,0),(int,0),(ub,8),(int,20)}: ub is the marker, not 24 */
    t[0] = r8;
    CHECK_RC(MPI_Type_create_struct(2, bl, d, t, &s));
    expect_bounds(s, 0, 8, "struct{resized(int,0,8)@0, int@20}");
    CHECK_RC(MPI_Type_get_true_extent(s, &tlb, &text));
    EXPECT(tlb == 0 && text == 24, "true bounds %ld %ld", (long)tlb, (long)text);
    /* the copies of a contiguous type are one extent (8) apart: ints at 0, 20, 8, 28 */
    CHECK_RC(MPI_Type_contiguous(2, s, &c2));
    CHECK_RC(MPI_Type_commit(&c2));
    expect_bounds(c2, 0, 16, "contiguous(2) of it");
    int src[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, out[4] = { -1, -1, -1, -1 }, pos = 0;
    CHECK_RC(MPI_Pack(src, 1, c2, out, sizeof(out), &pos, MPI_COMM_SELF));
    EXPECT(pos == 16 && out[0] == 0 && out[1] == 5 && out[2] == 2 && out[3] == 7,
           "packed %d: %d %d %d %d", pos, out[0], out[1], out[2], out[3]);
    MPI_Type_free(&c2);
    MPI_Type_free(&s);
    /* markers at a negative displacement: lb -12, ub -4 (the int at 4 is outside) */
    expect_struct2(1, MPI_INT, 4, r8, -12, -12, 8, "struct{int@4, resized(int,0,8)@-12}");
    /* an explicit ub: no padding to the double's alignment */
    expect_struct2(1, MPI_DOUBLE, 0, rc, 8, 8, 1, "struct{double@0, resized(char,0,1)@8}");
    /* a dup keeps the markers */
    CHECK_RC(MPI_Type_dup(r8, &dup));
    expect_struct2(1, dup, 0, MPI_INT, 20, 0, 8, "struct{dup(resized)@0, int@20}");
    /* a subarray's bounds are markers too: the int at 100 is past its ub (80) */
    int sizes[2] = { 4, 5 }, subs[2] = { 3, 2 }, starts[2] = { 1, 2 };
    CHECK_RC(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &sub));
    expect_struct2(1, sub, 0, MPI_INT, 100, 0, 80, "struct{subarray@0, int@100}");
    MPI_Type_free(&sub);
    MPI_Type_free(&dup);
    MPI_Type_free(&rc);
    MPI_Type_free(&r8);
}

/* MPI 3.1 4.1.6: the padding epsilon rounds a struct's extent to the largest
 * alignment of the types *in its type map*; a block of count 0, or of a type
 * with no data, puts nothing there (its position still bounds an empty
 * type's block, as in the peers). */
static void test_empty_block_padding(void)
{
    MPI_Datatype e, z;

    expect_struct2(0, MPI_DOUBLE, 0, MPI_INT, 4, 4, 4, "struct{0 x double@0, int@4}");
    CHECK_RC(MPI_Type_vector(0, 1, 2, MPI_DOUBLE, &e));
    expect_struct2(1, MPI_CHAR, 8, e, 0, 0, 9, "struct{char@8, vector(0,double)@0}");
    CHECK_RC(MPI_Type_contiguous(0, MPI_LONG_DOUBLE, &z));
    expect_struct2(1, MPI_CHAR, 0, z, 0, 0, 1, "struct{char@0, contiguous(0,long double)@0}");
    MPI_Type_free(&z);
    MPI_Type_free(&e);
}

int main(int argc, char **argv)
{
    int p, sz;
    MPI_Aint lb, ext, tlb, text;
    MPI_Datatype t, t2;

    mt_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);

    MPI_Type_contiguous(5, MPI_INT, &t);
    MPI_Type_commit(&t);
    MPI_Type_size(t, &sz);
    MPI_Type_get_extent(t, &lb, &ext);
    EXPECT(sz == 20 && lb == 0 && ext == 20, "contiguous %d %ld %ld", sz, (long)lb, (long)ext);
    MPI_Type_free(&t);
    EXPECT(t == MPI_DATATYPE_NULL, "free did not null the handle");

    MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    MPI_Type_size(t, &sz);
    MPI_Type_get_extent(t, &lb, &ext);
    EXPECT(sz == 48 && ext == (2 * 4 + 2) * 8, "vector size %d extent %ld", sz, (long)ext);
    double src[12], dst[12];
    for (int i = 0; i < 12; i++)
        src[i] = i;
    char packed[64];
    int pos = 0;
    CHECK_RC(MPI_Pack(src, 1, t, packed, sizeof(packed), &pos, MPI_COMM_WORLD));
    EXPECT(pos == 48, "pack position %d", pos);
    double *pk = (double *)packed;
    EXPECT(pk[0] == 0 && pk[1] == 1 && pk[2] == 4 && pk[3] == 5 && pk[4] == 8 && pk[5] == 9,
           "packed order");
    for (int i = 0; i < 12; i++)
        dst[i] = -1;
    pos = 0;
    CHECK_RC(MPI_Unpack(packed, 48, &pos, dst, 1, t, MPI_COMM_WORLD));
    EXPECT(dst[0] == 0 && dst[4] == 4 && dst[9] == 9 && dst[2] == -1 && dst[3] == -1, "unpack");
    int psz;
    MPI_Pack_size(2, t, MPI_COMM_WORLD, &psz);
    EXPECT(psz == 96, "pack_size %d", psz);
    pos = 0;
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS, "errhandler");
    EXPECT(MPI_Pack(src, 2, t, packed, sizeof(packed), &pos, MPI_COMM_WORLD) == MPI_ERR_TRUNCATE,
           "pack overflow must be MPI_ERR_TRUNCATE");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* hvector of the vector, resized, dup */
    MPI_Type_create_hvector(2, 1, 1000, t, &t2);
    MPI_Type_commit(&t2);
    MPI_Type_size(t2, &sz);
    MPI_Type_get_extent(t2, &lb, &ext);
    EXPECT(sz == 96 && ext == 1000 + 80, "hvector size %d extent %ld", sz, (long)ext);
    MPI_Type_free(&t2);
    MPI_Type_create_resized(t, -8, 200, &t2);
    MPI_Type_commit(&t2);
    MPI_Type_get_extent(t2, &lb, &ext);
    MPI_Type_get_true_extent(t2, &tlb, &text);
    EXPECT(lb == -8 && ext == 200 && tlb == 0 && text == 80, "resized %ld %ld %ld %ld", (long)lb,
           (long)ext, (long)tlb, (long)text);
    MPI_Type_free(&t2);
    MPI_Type_free(&t);
    test_bound_markers();
    test_empty_block_padding();

    /* indexed, indexed_block, hindexed */
    int bl[3] = { 1, 2, 3 }, di[3] = { 0, 3, 10 };
    MPI_Type_indexed(3, bl, di, MPI_INT, &t);
    MPI_Type_commit(&t);
    MPI_Type_size(t, &sz);
    MPI_Type_get_extent(t, &lb, &ext);
    EXPECT(sz == 24 && ext == 13 * 4, "indexed %d %ld", sz, (long)ext);
    MPI_Type_free(&t);
    MPI_Type_create_indexed_block(3, 2, di, MPI_INT, &t);
    MPI_Type_commit(&t);
    MPI_Type_size(t, &sz);
    EXPECT(sz == 24, "indexed_block %d", sz);
    MPI_Type_free(&t);
    MPI_Aint hd[2] = { 4, 40 };
    int hb[2] = { 2, 1 };
    MPI_Type_create_hindexed(2, hb, hd, MPI_SHORT, &t);
    MPI_Type_commit(&t);
    MPI_Type_get_true_extent(t, &tlb, &text);
    EXPECT(tlb == 4 && text == 38, "hindexed true extent %ld %ld", (long)tlb, (long)text);
    MPI_Type_free(&t);

    /* struct with C padding */
    struct particle parts[4];
    int sbl[3] = { 1, 1, 1 };
    MPI_Aint sd[3] = { offsetof(struct particle, x), offsetof(struct particle, id),
                       offsetof(struct particle, tag) };
    MPI_Datatype sty[3] = { MPI_DOUBLE, MPI_INT, MPI_CHAR };
    MPI_Type_create_struct(3, sbl, sd, sty, &t);
    MPI_Type_commit(&t);
    MPI_Type_size(t, &sz);
    MPI_Type_get_extent(t, &lb, &ext);
    EXPECT(sz == 13 && ext == (MPI_Aint)sizeof(struct particle), "struct %d %ld", sz, (long)ext);
    int right = (th_rank + 1) % p, left = (th_rank - 1 + p) % p;
    struct particle in[4];
    for (int i = 0; i < 4; i++) {
        parts[i].x = th_rank + i * 0.25;
        parts[i].id = th_rank * 10 + i;
        parts[i].tag = (char)('a' + i);
    }
    memset(in, 0, sizeof(in));
    MPI_Status st;
    CHECK_RC(MPI_Sendrecv(parts, 4, t, right, 1, in, 4, t, left, 1, MPI_COMM_WORLD, &st));
    int ok = 1;
    for (int i = 0; i < 4; i++)
        ok &= in[i].x == left + i * 0.25 && in[i].id == left * 10 + i && in[i].tag == 'a' + i;
    EXPECT(ok, "struct array through sendrecv");
    int ne;
    MPI_Get_elements(&st, t, &ne);
    EXPECT(ne == 12, "Get_elements of 4 structs %d", ne);
    MPI_Get_count(&st, t, &ne);
    EXPECT(ne == 4, "Get_count %d", ne);
    MPI_Type_free(&t);

    /* subarray: a 3x2 block at (1,2) of a 4x5 int matrix, C order */
    int sizes[2] = { 4, 5 }, subs[2] = { 3, 2 }, starts[2] = { 1, 2 };
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    MPI_Type_size(t, &sz);
    MPI_Type_get_extent(t, &lb, &ext);
    EXPECT(sz == 24 && lb == 0 && ext == 80, "subarray %d %ld %ld", sz, (long)lb, (long)ext);
    int mat[20], out[6];
    for (int i = 0; i < 20; i++)
        mat[i] = i;
    pos = 0;
    MPI_Pack(mat, 1, t, out, sizeof(out), &pos, MPI_COMM_WORLD);
    EXPECT(out[0] == 7 && out[1] == 8 && out[2] == 12 && out[5] == 18, "subarray content %d %d %d %d",
           out[0], out[1], out[2], out[5]);
    MPI_Type_free(&t);
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &t);
    MPI_Type_commit(&t);
    pos = 0;
    MPI_Pack(mat, 1, t, out, sizeof(out), &pos, MPI_COMM_WORLD);
    /* Fortran: dim 0 (size 4) fastest: elements (1..3, 2..3) -> 4*2+1.. */
    EXPECT(out[0] == 9 && out[1] == 10 && out[2] == 11 && out[3] == 13, "fortran subarray %d %d %d %d",
           out[0], out[1], out[2], out[3]);
    MPI_Type_free(&t);

    /* names, sizes of predefined types, pair types */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Type_get_name(MPI_DOUBLE, name, &len);
    EXPECT(!strcmp(name, "MPI_DOUBLE") && len == 10, "name %s", name);
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_set_name(t, "pair");
    MPI_Type_get_name(t, name, &len);
    EXPECT(!strcmp(name, "pair"), "set_name %s", name);
    MPI_Type_free(&t);
    struct { double d; int i; } di_pair;
    MPI_Type_get_extent(MPI_DOUBLE_INT, &lb, &ext);
    EXPECT(ext == (MPI_Aint)sizeof(di_pair), "DOUBLE_INT extent %ld", (long)ext);
    MPI_Datatype all[] = { MPI_CHAR, MPI_SHORT, MPI_INT, MPI_LONG, MPI_LONG_LONG, MPI_FLOAT,
                           MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_INT8_T, MPI_UINT64_T, MPI_AINT,
                           MPI_C_DOUBLE_COMPLEX, MPI_C_BOOL, MPI_WCHAR };
    size_t want[] = { 1, sizeof(short), sizeof(int), sizeof(long), sizeof(long long), 4, 8,
                      sizeof(long double), 1, 8, sizeof(MPI_Aint), 16, sizeof(_Bool), sizeof(wchar_t) };
    for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        MPI_Type_size(all[i], &sz);
        EXPECT((size_t)sz == want[i], "size of predefined type %u: %d", i, sz);
    }
    MPI_Aint a1, a2;
    MPI_Get_address(&parts[0], &a1);
    MPI_Get_address(&parts[1], &a2);
    EXPECT(MPI_Aint_diff(a2, a1) == (MPI_Aint)sizeof(struct particle), "Get_address/Aint_diff");
    return mt_finish("mpi_dtype");
}
