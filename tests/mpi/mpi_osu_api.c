/*
 * The MPI API the OSU Micro-Benchmarks 7.x reference (issue 4's list):
 * every function must link, and the ones that carry data are checked here
 * the way the benchmarks use them (type names printed in their headers,
 * derived types of their -D ddt option, the Cartesian and neighbourhood
 * setup, window creation reporting MPI_ERR_UNSUPPORTED_OPERATION). The
 * nonblocking collectives are checked on data by mpi_coll nb; here they
 * only have to link. Any number of ranks.
 */
#include "mpitest.h"

#if MPI_VERSION != 3 || MPI_SUBVERSION != 1
#error "mpi.h must say MPI 3.1"
#endif

typedef void (*any_fn)(void);

/* The nonblocking collectives and other calls OSU references, by address:
 * a missing one fails the link. */
static const any_fn referenced[] = {
    (any_fn)MPI_Iallgather, (any_fn)MPI_Iallgatherv, (any_fn)MPI_Iallreduce,
    (any_fn)MPI_Ialltoall, (any_fn)MPI_Ialltoallv, (any_fn)MPI_Ialltoallw,
    (any_fn)MPI_Ibarrier, (any_fn)MPI_Ibcast, (any_fn)MPI_Igather, (any_fn)MPI_Igatherv,
    (any_fn)MPI_Ireduce, (any_fn)MPI_Ireduce_scatter, (any_fn)MPI_Iscatter,
    (any_fn)MPI_Iscatterv, (any_fn)MPI_Reduce_scatter, (any_fn)MPI_Abort,
    (any_fn)MPI_Win_allocate, (any_fn)MPI_Win_attach, (any_fn)MPI_Win_create,
    (any_fn)MPI_Win_create_dynamic, (any_fn)MPI_Win_free,
};

static void check_type_name(MPI_Datatype t, const char *want)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;

    CHECK_RC(MPI_Type_get_name(t, name, &len));
    EXPECT(!strcmp(name, want) && len == (int)strlen(want), "type name '%s' (%d), want %s", name,
           len, want);
}

int main(int argc, char **argv)
{
    int p, r;

    mt_init(&argc, &argv);
    r = th_rank;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (size_t i = 0; i < sizeof(referenced) / sizeof(referenced[0]); i++)
        EXPECT(referenced[i] != NULL, "function %zu", i);

    /* predefined types and their names (osu_* print "# Datatype: MPI_CHAR.") */
    check_type_name(MPI_CHAR, "MPI_CHAR");
    check_type_name(MPI_INT, "MPI_INT");
    check_type_name(MPI_FLOAT, "MPI_FLOAT");
    check_type_name(MPI_DOUBLE, "MPI_DOUBLE");
    int sz;
    CHECK_RC(MPI_Type_size(MPI_AINT, &sz));
    EXPECT(sz == (int)sizeof(MPI_Aint), "MPI_AINT size %d", sz);

    /* the -D ddt types: contiguous, vector, indexed; sizes and a transfer */
    MPI_Datatype cont, vec, idx;
    int bl[3] = { 2, 1, 3 }, dp[3] = { 0, 4, 8 };
    CHECK_RC(MPI_Type_contiguous(8, MPI_CHAR, &cont));
    CHECK_RC(MPI_Type_vector(4, 2, 8, MPI_CHAR, &vec));
    CHECK_RC(MPI_Type_indexed(3, bl, dp, MPI_INT, &idx));
    CHECK_RC(MPI_Type_commit(&cont));
    CHECK_RC(MPI_Type_commit(&vec));
    CHECK_RC(MPI_Type_commit(&idx));
    MPI_Type_size(cont, &sz);
    EXPECT(sz == 8, "contiguous size %d", sz);
    MPI_Type_size(vec, &sz);
    EXPECT(sz == 8, "vector size %d", sz);
    MPI_Type_size(idx, &sz);
    EXPECT(sz == 6 * (int)sizeof(int), "indexed size %d", sz);
    int src[11], dst[11];
    for (int i = 0; i < 11; i++) {
        src[i] = i + 1;
        dst[i] = 0;
    }
    CHECK_RC(MPI_Sendrecv(src, 1, idx, r, 3, dst, 1, idx, r, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    static const int want_idx[11] = { 1, 2, 0, 0, 5, 0, 0, 0, 9, 10, 11 };
    EXPECT(!memcmp(dst, want_idx, sizeof(dst)), "indexed transfer to self");
    CHECK_RC(MPI_Type_free(&cont));
    CHECK_RC(MPI_Type_free(&vec));
    CHECK_RC(MPI_Type_free(&idx));
    EXPECT(cont == MPI_DATATYPE_NULL && idx == MPI_DATATYPE_NULL, "Type_free resets the handle");
    MPI_Aint a0, a1;
    CHECK_RC(MPI_Get_address(&src[0], &a0));
    CHECK_RC(MPI_Get_address(&src[3], &a1));
    EXPECT(a1 - a0 == 3 * (MPI_Aint)sizeof(int), "Get_address difference %ld", (long)(a1 - a0));

    /* neighbourhood setup: Dims_create + Cart_create + coords/rank, and a
     * distributed graph of the ring */
    int dims[2] = { 0, 0 }, periods[2] = { 1, 1 }, coords[2], crank;
    MPI_Comm cart;
    CHECK_RC(MPI_Dims_create(p, 2, dims));
    EXPECT(dims[0] * dims[1] == p && dims[0] >= dims[1], "dims %d x %d", dims[0], dims[1]);
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    CHECK_RC(MPI_Cart_coords(cart, r, 2, coords));
    CHECK_RC(MPI_Cart_rank(cart, coords, &crank));
    EXPECT(crank == r && coords[0] == r / dims[1] && coords[1] == r % dims[1], "cart %d -> (%d,%d) -> %d",
           r, coords[0], coords[1], crank);
    CHECK_RC(MPI_Comm_free(&cart));
    EXPECT(cart == MPI_COMM_NULL, "Comm_free resets the handle");
    int left = (r - 1 + p) % p, right = (r + 1) % p, srcs[2], dsts[2], ind, outd, weighted;
    int in_n[1] = { left }, out_n[1] = { right };
    MPI_Comm ring;
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, in_n, MPI_UNWEIGHTED, 1, out_n,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &ring));
    CHECK_RC(MPI_Dist_graph_neighbors_count(ring, &ind, &outd, &weighted));
    EXPECT(ind == 1 && outd == 1 && !weighted, "neighbors count %d %d %d", ind, outd, weighted);
    CHECK_RC(MPI_Dist_graph_neighbors(ring, 2, srcs, MPI_UNWEIGHTED, 2, dsts, MPI_UNWEIGHTED));
    EXPECT(srcs[0] == left && dsts[0] == right, "neighbors %d %d", srcs[0], dsts[0]);
    MPI_Comm_free(&ring);

    /* one-sided (issue 15): each creation call makes a window */
    MPI_Win win = MPI_WIN_NULL;
    void *base = NULL;
    char wbuf[64];
    CHECK_RC(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    EXPECT(win != MPI_WIN_NULL && base != NULL, "Win_allocate");
    CHECK_RC(MPI_Win_free(&win));
    CHECK_RC(MPI_Win_create(wbuf, sizeof(wbuf), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_RC(MPI_Win_free(&win));
    CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_RC(MPI_Win_free(&win));
    EXPECT(win == MPI_WIN_NULL, "a freed window is not MPI_WIN_NULL");

    /* the constants, in the expressions the benchmarks use them in */
    EXPECT(MPI_COMM_WORLD != MPI_COMM_NULL && MPI_INFO_NULL == MPI_INFO_NULL && MPI_SUCCESS == 0,
           "constants");
    float fin = 1.0f, fout = 0.0f;
    CHECK_RC(MPI_Allreduce(&fin, &fout, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(fout == (float)p, "float sum %g", (double)fout);
    int imin = r, imax = r, omin = -1, omax = -1;
    CHECK_RC(MPI_Allreduce(&imin, &omin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    CHECK_RC(MPI_Allreduce(&imax, &omax, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    EXPECT(omin == 0 && omax == p - 1, "min %d max %d", omin, omax);
    double t = MPI_Wtime();
    EXPECT(t > 0.0, "MPI_Wtime %g", t);
    return mt_finish("mpi_osu_api");
}
