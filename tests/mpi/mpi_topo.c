/*
 * Process topologies and the neighbourhood collectives (MPI 3.1 chapter 7),
 * at any number of ranks:
 *   - Dims_create against a table (the largest dimension as small as
 *     divisibility allows: 72 over 2 is 9 x 8), fixed dimensions, errors;
 *   - Cartesian grids (1-D periodic, 2-D and 3-D mixed, a periodic
 *     dimension of size 1): Cart_shift for displacements -3..3 and INT_MAX
 *     against coordinates computed here, Cart_sub, Cart_map, a grid too
 *     large to count in 64 bits;
 *   - graphs (a ring with a self-loop and a double edge): Graph_get,
 *     Graphdims_get, Graph_neighbors(_count) of every node, Graph_map, a
 *     graph of fewer nodes than ranks (MPI_COMM_NULL for the rest);
 *   - distributed graphs, adjacent and general (edges named by other ranks,
 *     a rank naming none with MPI_WEIGHTS_EMPTY, multi-edges, self-loops),
 *     weighted and MPI_UNWEIGHTED: neighbours and weights;
 *   - on every one of them the five neighbourhood collectives, blocking and
 *     all five nonblocking at once: block k of the receive buffer holds what
 *     in-neighbour k sent to this rank, blocks of MPI_PROC_NULL neighbours
 *     and the gaps between blocks are untouched; small and rendezvous-sized
 *     blocks, per-block counts (some zero) and a strided datatype;
 *   - no topology constructor calls an attribute copy callback;
 *   - errors: no topology, wrong kind, MPI_IN_PLACE, NULL request, and a bad
 *     argument at one rank only makes every rank fail instead of hanging.
 */
#include "tests/mpi/mpitest.h"

#include <limits.h>

#define MAXN   16          /* neighbours of a rank in any topology here */
#define LARGE  16384       /* ints in a block of the large case (64 KiB) */
#define SENT   (-7)        /* what an untouched receive element holds */

static int rank, size;

/* Element e of block blk of rank from's send buffer. */
static int val(int from, int blk, int e)
{
    return (from << 24) | (blk << 16) | (e & 0xffff);
}

/* What the test itself knows of a communicator's neighbourhood, computed
 * without the library: in-neighbour k's data for this rank is the
 * sender's block src_blk[k]. */
typedef struct model {
    const char *name;
    MPI_Comm comm;
    int nin, nout;
    int in[MAXN], out[MAXN], src_blk[MAXN];
} model_t;

/* ---- Checks of one block ---- */

static void expect_block(const model_t *m, const char *what, const int *buf, int n, int k,
                         int stride, int blk_from_sender)
{
    for (int e = 0; e < n; e++) {
        int want = m->in[k] == MPI_PROC_NULL ? SENT : val(m->in[k], blk_from_sender, e);
        int got = buf[(size_t)e * (size_t)stride];

        if (got != want) {
            EXPECT(0, "%s on %s: block %d (from rank %d) element %d: want 0x%x got 0x%x", what,
                   m->name, k, m->in[k], e, (unsigned)want, (unsigned)got);
            return;
        }
    }
}

static void expect_untouched(const model_t *m, const char *what, const int *buf, size_t from,
                             size_t to)
{
    for (size_t i = from; i < to; i++)
        if (buf[i] != SENT) {
            EXPECT(0, "%s on %s: gap element %zu written (0x%x)", what, m->name, i,
                   (unsigned)buf[i]);
            return;
        }
}

static int *alloc_fill(size_t n, int v)
{
    int *b = malloc((n ? n : 1) * sizeof(int));

    CHECK(b != NULL, "out of memory");
    for (size_t i = 0; i < n; i++)
        b[i] = v;
    return b;
}

/* ---- The five collectives: arguments, run, check ---- */

/* Per-block sizes that the sender and the receiver both compute. */
static int cnt_v(int from, int blk) { return (from + blk) % 3; }        /* 0..2 */
static int cnt_gv(int from) { return 1 + from % 3; }                     /* 1..3 */
static int cnt_w(int from, int blk) { return 2 + (from + blk) % 2; }    /* 2..3 */

typedef struct bufs {
    /* allgather, alltoall */
    int count, *ag_s, *ag_r, *a2a_s, *a2a_r;
    /* allgatherv */
    int *agv_s, *agv_r, agv_rc[MAXN], agv_dsp[MAXN];
    size_t agv_len;
    /* alltoallv */
    int *a2av_s, *a2av_r, a2av_sc[MAXN], a2av_sd[MAXN], a2av_rc[MAXN], a2av_rd[MAXN];
    size_t a2av_len;
    /* alltoallw: odd receive blocks strided (every other int) */
    int *a2aw_s, *a2aw_r, a2aw_sc[MAXN], a2aw_rc[MAXN];
    MPI_Aint a2aw_sd[MAXN], a2aw_rd[MAXN];
    MPI_Datatype a2aw_st[MAXN], a2aw_rt[MAXN];
    size_t a2aw_len;
} bufs_t;

static MPI_Datatype strided[4];   /* strided[n]: n ints, every other one */

static void bufs_make(const model_t *m, bufs_t *b, int count)
{
    memset(b, 0, sizeof(*b));
    b->count = count;
    b->ag_s = alloc_fill((size_t)count, 0);
    for (int e = 0; e < count; e++)
        b->ag_s[e] = val(rank, 0, e);
    b->ag_r = alloc_fill((size_t)count * (size_t)m->nin, SENT);
    b->a2a_s = alloc_fill((size_t)count * (size_t)m->nout, 0);
    for (int j = 0; j < m->nout; j++)
        for (int e = 0; e < count; e++)
            b->a2a_s[(size_t)j * (size_t)count + (size_t)e] = val(rank, j, e);
    b->a2a_r = alloc_fill((size_t)count * (size_t)m->nin, SENT);

    /* allgatherv: blocks in reverse order, one element of gap between */
    b->agv_s = alloc_fill((size_t)cnt_gv(rank), 0);
    for (int e = 0; e < cnt_gv(rank); e++)
        b->agv_s[e] = val(rank, 0, e);
    size_t off = 1;
    for (int k = m->nin - 1; k >= 0; k--) {
        b->agv_rc[k] = m->in[k] == MPI_PROC_NULL ? 2 : cnt_gv(m->in[k]);
        b->agv_dsp[k] = (int)off;
        off += (size_t)b->agv_rc[k] + 1;
    }
    b->agv_len = off;
    b->agv_r = alloc_fill(off, SENT);

    /* alltoallv: send blocks reversed, receive blocks in order, gaps */
    off = 0;
    for (int j = m->nout - 1; j >= 0; j--) {
        b->a2av_sc[j] = cnt_v(rank, j);
        b->a2av_sd[j] = (int)off;
        off += (size_t)b->a2av_sc[j];
    }
    b->a2av_s = alloc_fill(off, 0);
    for (int j = 0; j < m->nout; j++)
        for (int e = 0; e < b->a2av_sc[j]; e++)
            b->a2av_s[b->a2av_sd[j] + e] = val(rank, j, e);
    off = 2;
    for (int k = 0; k < m->nin; k++) {
        b->a2av_rc[k] = m->in[k] == MPI_PROC_NULL ? 1 : cnt_v(m->in[k], m->src_blk[k]);
        b->a2av_rd[k] = (int)off;
        off += (size_t)b->a2av_rc[k] + 1;
    }
    b->a2av_len = off;
    b->a2av_r = alloc_fill(off, SENT);

    /* alltoallw: contiguous ints out; in, even blocks contiguous, odd ones
     * strided; byte displacements */
    off = 0;
    for (int j = 0; j < m->nout; j++) {
        b->a2aw_sc[j] = cnt_w(rank, j);
        b->a2aw_st[j] = MPI_INT;
        b->a2aw_sd[j] = (MPI_Aint)(off * sizeof(int));
        off += (size_t)b->a2aw_sc[j];
    }
    b->a2aw_s = alloc_fill(off, 0);
    for (int j = 0; j < m->nout; j++)
        for (int e = 0; e < b->a2aw_sc[j]; e++)
            b->a2aw_s[b->a2aw_sd[j] / (MPI_Aint)sizeof(int) + e] = val(rank, j, e);
    off = 1;
    for (int k = 0; k < m->nin; k++) {
        int n = m->in[k] == MPI_PROC_NULL ? 2 : cnt_w(m->in[k], m->src_blk[k]);

        b->a2aw_rd[k] = (MPI_Aint)(off * sizeof(int));
        if (k % 2) {
            b->a2aw_rc[k] = 1;
            b->a2aw_rt[k] = strided[n];
            off += 2 * (size_t)n + 1;
        } else {
            b->a2aw_rc[k] = n;
            b->a2aw_rt[k] = MPI_INT;
            off += (size_t)n + 1;
        }
    }
    b->a2aw_len = off;
    b->a2aw_r = alloc_fill(off, SENT);
}

static void bufs_free(bufs_t *b)
{
    free(b->ag_s);
    free(b->ag_r);
    free(b->a2a_s);
    free(b->a2a_r);
    free(b->agv_s);
    free(b->agv_r);
    free(b->a2av_s);
    free(b->a2av_r);
    free(b->a2aw_s);
    free(b->a2aw_r);
}

static void bufs_check(const model_t *m, const bufs_t *b, const char *how)
{
    char what[64];
    int c = b->count;

    snprintf(what, sizeof(what), "Neighbor_allgather %s count %d", how, c);
    for (int k = 0; k < m->nin; k++)
        expect_block(m, what, b->ag_r + (size_t)k * (size_t)c, c, k, 1, 0);
    snprintf(what, sizeof(what), "Neighbor_alltoall %s count %d", how, c);
    for (int k = 0; k < m->nin; k++)
        expect_block(m, what, b->a2a_r + (size_t)k * (size_t)c, c, k, 1, m->src_blk[k]);

    snprintf(what, sizeof(what), "Neighbor_allgatherv %s", how);
    size_t prev = 0;   /* blocks were laid out from the last one */
    for (int k = m->nin - 1; k >= 0; k--) {
        expect_untouched(m, what, b->agv_r, prev, (size_t)b->agv_dsp[k]);
        expect_block(m, what, b->agv_r + b->agv_dsp[k], b->agv_rc[k], k, 1, 0);
        prev = (size_t)b->agv_dsp[k] + (size_t)b->agv_rc[k];
    }
    expect_untouched(m, what, b->agv_r, prev, b->agv_len);

    snprintf(what, sizeof(what), "Neighbor_alltoallv %s", how);
    prev = 0;
    for (int k = 0; k < m->nin; k++) {
        expect_untouched(m, what, b->a2av_r, prev, (size_t)b->a2av_rd[k]);
        expect_block(m, what, b->a2av_r + b->a2av_rd[k], b->a2av_rc[k], k, 1, m->src_blk[k]);
        prev = (size_t)b->a2av_rd[k] + (size_t)b->a2av_rc[k];
    }
    expect_untouched(m, what, b->a2av_r, prev, b->a2av_len);

    snprintf(what, sizeof(what), "Neighbor_alltoallw %s", how);
    prev = 0;
    for (int k = 0; k < m->nin; k++) {
        size_t at = (size_t)b->a2aw_rd[k] / sizeof(int);
        int n = m->in[k] == MPI_PROC_NULL ? 2 : cnt_w(m->in[k], m->src_blk[k]);
        int stride = k % 2 ? 2 : 1;

        expect_untouched(m, what, b->a2aw_r, prev, at);
        expect_block(m, what, b->a2aw_r + at, n, k, stride, m->src_blk[k]);
        for (int e = 0; stride == 2 && e < n - 1; e++)
            expect_untouched(m, what, b->a2aw_r, at + 2 * (size_t)e + 1, at + 2 * (size_t)e + 2);
        prev = at + (size_t)(stride * (n - 1) + 1);
    }
    expect_untouched(m, what, b->a2aw_r, prev, b->a2aw_len);
}

static void run_collectives(const model_t *m, int count)
{
    bufs_t b;
    MPI_Comm c = m->comm;

    th_case = m->name;
    bufs_make(m, &b, count);
    CHECK_RC(MPI_Neighbor_allgather(b.ag_s, count, MPI_INT, b.ag_r, count, MPI_INT, c));
    CHECK_RC(MPI_Neighbor_alltoall(b.a2a_s, count, MPI_INT, b.a2a_r, count, MPI_INT, c));
    CHECK_RC(MPI_Neighbor_allgatherv(b.agv_s, cnt_gv(rank), MPI_INT, b.agv_r, b.agv_rc,
                                     b.agv_dsp, MPI_INT, c));
    CHECK_RC(MPI_Neighbor_alltoallv(b.a2av_s, b.a2av_sc, b.a2av_sd, MPI_INT, b.a2av_r, b.a2av_rc,
                                    b.a2av_rd, MPI_INT, c));
    CHECK_RC(MPI_Neighbor_alltoallw(b.a2aw_s, b.a2aw_sc, b.a2aw_sd, b.a2aw_st, b.a2aw_r,
                                    b.a2aw_rc, b.a2aw_rd, b.a2aw_rt, c));
    bufs_check(m, &b, "blocking");
    bufs_free(&b);

    /* all five in flight at once, in another order */
    MPI_Request rq[5];
    bufs_make(m, &b, count);
    CHECK_RC(MPI_Ineighbor_alltoallw(b.a2aw_s, b.a2aw_sc, b.a2aw_sd, b.a2aw_st, b.a2aw_r,
                                     b.a2aw_rc, b.a2aw_rd, b.a2aw_rt, c, &rq[0]));
    CHECK_RC(MPI_Ineighbor_alltoall(b.a2a_s, count, MPI_INT, b.a2a_r, count, MPI_INT, c, &rq[1]));
    CHECK_RC(MPI_Ineighbor_allgatherv(b.agv_s, cnt_gv(rank), MPI_INT, b.agv_r, b.agv_rc,
                                      b.agv_dsp, MPI_INT, c, &rq[2]));
    CHECK_RC(MPI_Ineighbor_allgather(b.ag_s, count, MPI_INT, b.ag_r, count, MPI_INT, c, &rq[3]));
    CHECK_RC(MPI_Ineighbor_alltoallv(b.a2av_s, b.a2av_sc, b.a2av_sd, MPI_INT, b.a2av_r,
                                     b.a2av_rc, b.a2av_rd, MPI_INT, c, &rq[4]));
    CHECK_RC(MPI_Waitall(5, rq, MPI_STATUSES_IGNORE));
    bufs_check(m, &b, "nonblocking");
    bufs_free(&b);
    th_case = NULL;
}

static void run_all(const model_t *m)
{
    run_collectives(m, 3);
    run_collectives(m, LARGE);
}

/* src_blk by pairing occurrences: the j-th time q appears among this
 * rank's in-neighbours pairs with the j-th time this rank appears among
 * q's out-neighbours (outs[q][0..nouts[q])). */
static void pair_blocks(model_t *m, int outs[][MAXN], const int *nouts)
{
    for (int k = 0; k < m->nin; k++) {
        int q = m->in[k], nth = 0, found = -1;

        if (q == MPI_PROC_NULL)
            continue;
        for (int i = 0; i < k; i++)
            nth += m->in[i] == q;
        for (int j = 0; j < nouts[q] && found < 0; j++)
            if (outs[q][j] == rank && nth-- == 0)
                found = j;
        CHECK(found >= 0, "%s: rank %d has no edge to this rank for in-block %d", m->name, q, k);
        m->src_blk[k] = found;
    }
}

/* ---- Dims_create ---- */

static void test_dims_create(void)
{
    static const struct { int n, nd, want[4]; } table[] = {
        { 1, 2, { 1, 1 } },      { 6, 2, { 3, 2 } },      { 7, 2, { 7, 1 } },
        { 8, 3, { 2, 2, 2 } },   { 12, 2, { 4, 3 } },     { 16, 3, { 4, 2, 2 } },
        { 20, 4, { 5, 2, 2, 1 } }, { 36, 2, { 6, 6 } },   { 72, 2, { 9, 8 } },
        { 72, 3, { 6, 4, 3 } },  { 120, 3, { 6, 5, 4 } }, { 30, 4, { 5, 3, 2, 1 } },
    };
    th_case = "Dims_create";
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        int d[4] = { 0, 0, 0, 0 };

        CHECK_RC(MPI_Dims_create(table[i].n, table[i].nd, d));
        for (int k = 0; k < table[i].nd; k++)
            EXPECT(d[k] == table[i].want[k], "Dims_create(%d, %d): dims[%d] = %d, want %d",
                   table[i].n, table[i].nd, k, d[k], table[i].want[k]);
    }
    int fixed[3] = { 0, 3, 0 };
    CHECK_RC(MPI_Dims_create(24, 3, fixed));
    EXPECT(fixed[0] == 4 && fixed[1] == 3 && fixed[2] == 2, "Dims_create(24, {0,3,0}) = %d %d %d",
           fixed[0], fixed[1], fixed[2]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);   /* Dims_create raises there */
    int bad[2] = { 2, 0 };
    EXPECT(MPI_Dims_create(7, 2, bad) == MPI_ERR_DIMS && bad[0] == 2 && bad[1] == 0,
           "7 nodes with a fixed 2: MPI_ERR_DIMS, dims untouched");
    int neg[2] = { -1, 0 };
    EXPECT(MPI_Dims_create(4, 2, neg) == MPI_ERR_DIMS, "negative dimension: MPI_ERR_DIMS");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    int big[3] = { 0, 0, 0 };
    CHECK_RC(MPI_Dims_create(INT_MAX, 3, big));   /* a prime: INT_MAX x 1 x 1 */
    EXPECT(big[0] == INT_MAX && big[1] == 1 && big[2] == 1, "Dims_create(INT_MAX, 3)");
    th_case = NULL;
}

/* ---- Cartesian ---- */

static void cart_coords_of(int nd, const int *dims, int r, int *coords)
{
    for (int d = nd - 1; d >= 0; d--) {
        coords[d] = r % dims[d];
        r /= dims[d];
    }
}

static int cart_rank_at(int nd, const int *dims, const int *coords)
{
    int r = 0;

    for (int d = 0; d < nd; d++)
        r = r * dims[d] + coords[d];
    return r;
}

/* The rank at displacement disp along dim, computed here. */
static int cart_expect(int nd, const int *dims, const int *periods, const int *mine, int dim,
                       long long disp)
{
    int c[8];
    long long x = mine[dim] + disp;

    memcpy(c, mine, (size_t)nd * sizeof(int));
    if (periods[dim])
        x = ((x % dims[dim]) + dims[dim]) % dims[dim];
    else if (x < 0 || x >= dims[dim])
        return MPI_PROC_NULL;
    c[dim] = (int)x;
    return cart_rank_at(nd, dims, c);
}

static void test_cart(const char *name, int nd, const int *dims, const int *periods)
{
    MPI_Comm cart;
    int coords[8], st, np = 1;

    th_case = name;
    for (int d = 0; d < nd; d++)
        np *= dims[d];
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 1, &cart));
    if (rank >= np) {
        EXPECT(cart == MPI_COMM_NULL, "rank outside the grid gets MPI_COMM_NULL");
        th_case = NULL;
        return;
    }
    CHECK(cart != MPI_COMM_NULL, "rank %d inside the grid of %d got no communicator", rank, np);
    CHECK_RC(MPI_Topo_test(cart, &st));
    EXPECT(st == MPI_CART, "Topo_test %d", st);
    cart_coords_of(nd, dims, rank, coords);
    int got[8], gd[8], gp[8], n;
    CHECK_RC(MPI_Cartdim_get(cart, &n));
    CHECK_RC(MPI_Cart_get(cart, nd, gd, gp, got));
    EXPECT(n == nd, "Cartdim_get %d", n);
    for (int d = 0; d < nd; d++)
        EXPECT(gd[d] == dims[d] && gp[d] == !!periods[d] && got[d] == coords[d],
               "Cart_get dimension %d", d);
    for (int d = 0; d < nd; d++) {
        for (int disp = -3; disp <= 3; disp++) {
            int src, dst;

            CHECK_RC(MPI_Cart_shift(cart, d, disp, &src, &dst));
            EXPECT(src == cart_expect(nd, dims, periods, coords, d, -disp) &&
                   dst == cart_expect(nd, dims, periods, coords, d, disp),
                   "Cart_shift(dim %d, disp %d) = %d, %d", d, disp, src, dst);
        }
        int src, dst;
        CHECK_RC(MPI_Cart_shift(cart, d, INT_MAX, &src, &dst));
        EXPECT(src == cart_expect(nd, dims, periods, coords, d, -(long long)INT_MAX) &&
               dst == cart_expect(nd, dims, periods, coords, d, INT_MAX),
               "Cart_shift(dim %d, INT_MAX) = %d, %d", d, src, dst);
    }
    int newrank;
    CHECK_RC(MPI_Cart_map(MPI_COMM_WORLD, nd, dims, periods, &newrank));
    EXPECT(newrank == rank, "Cart_map: %d", newrank);

    /* Cart_sub keeping the last dimension: a row */
    if (nd >= 2) {
        int remain[8] = { 0 }, rs, rr, sub_nd, sd[8], sp[8], sc[8];
        MPI_Comm row;

        remain[nd - 1] = 1;
        CHECK_RC(MPI_Cart_sub(cart, remain, &row));
        CHECK_RC(MPI_Comm_size(row, &rs));
        CHECK_RC(MPI_Comm_rank(row, &rr));
        CHECK_RC(MPI_Cartdim_get(row, &sub_nd));
        CHECK_RC(MPI_Cart_get(row, 1, sd, sp, sc));
        EXPECT(rs == dims[nd - 1] && rr == coords[nd - 1] && sub_nd == 1 &&
               sd[0] == dims[nd - 1] && sp[0] == !!periods[nd - 1] && sc[0] == coords[nd - 1],
               "Cart_sub row: size %d rank %d ndims %d", rs, rr, sub_nd);
        MPI_Comm_free(&row);
    }
    /* a duplicate keeps the grid */
    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(cart, &dup));
    CHECK_RC(MPI_Topo_test(dup, &st));
    CHECK_RC(MPI_Cart_get(dup, nd, gd, gp, got));
    EXPECT(st == MPI_CART && (nd == 0 || (gd[0] == dims[0] && got[0] == coords[0])),
           "Comm_dup keeps the grid");
    MPI_Comm_free(&dup);

    /* nothing kept: a zero-dimensional grid of one */
    int none[8] = { 0 }, zs, znd;
    MPI_Comm zero;
    CHECK_RC(MPI_Cart_sub(cart, none, &zero));
    CHECK_RC(MPI_Comm_size(zero, &zs));
    CHECK_RC(MPI_Cartdim_get(zero, &znd));
    EXPECT(zs == 1 && znd == 0, "Cart_sub of nothing: size %d ndims %d", zs, znd);
    MPI_Comm_free(&zero);

    /* the neighbourhood, independently */
    model_t m = { .name = name, .comm = cart, .nin = 2 * nd, .nout = 2 * nd };
    for (int d = 0; d < nd; d++) {
        m.in[2 * d] = m.out[2 * d] = cart_expect(nd, dims, periods, coords, d, -1);
        m.in[2 * d + 1] = m.out[2 * d + 1] = cart_expect(nd, dims, periods, coords, d, 1);
    }
    for (int k = 0; k < m.nin; k++)
        m.src_blk[k] = k ^ 1;   /* from the -1 side its +1 block, and back */
    run_all(&m);
    MPI_Comm_free(&cart);
}

/* ---- Graph ---- */

/* Node i's neighbours: a ring both ways, a self-loop at 0 and a double
 * edge between 0 and the last node (symmetric as a multiset). */
static int graph_adj(int p, int i, int *adj)
{
    int n = 0;

    adj[n++] = (i + 1) % p;
    adj[n++] = (i - 1 + p) % p;
    if (i == 0)
        adj[n++] = 0;
    if (i == 0)
        adj[n++] = p - 1;
    if (i == p - 1)
        adj[n++] = 0;
    return n;
}

static void test_graph(void)
{
    int p = size, *index = malloc((size_t)p * sizeof(int)), *edges = malloc((size_t)p * 8 * sizeof(int));
    int ne = 0, adj[MAXN], st;
    MPI_Comm g;

    CHECK(index && edges, "out of memory");
    th_case = "graph";
    for (int i = 0; i < p; i++) {
        int n = graph_adj(p, i, adj);

        memcpy(edges + ne, adj, (size_t)n * sizeof(int));
        ne += n;
        index[i] = ne;
    }
    CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, p, index, edges, 0, &g));
    CHECK(g != MPI_COMM_NULL, "no graph communicator");
    CHECK_RC(MPI_Topo_test(g, &st));
    EXPECT(st == MPI_GRAPH, "Topo_test %d", st);
    int nn, nedges;
    CHECK_RC(MPI_Graphdims_get(g, &nn, &nedges));
    EXPECT(nn == p && nedges == ne, "Graphdims_get %d %d", nn, nedges);
    int *gi = malloc((size_t)p * sizeof(int)), *ge = malloc((size_t)ne * sizeof(int));
    CHECK(gi && ge, "out of memory");
    CHECK_RC(MPI_Graph_get(g, p, ne, gi, ge));
    EXPECT(!memcmp(gi, index, (size_t)p * sizeof(int)) && !memcmp(ge, edges, (size_t)ne * sizeof(int)),
           "Graph_get returns index and edges as given");
    for (int i = 0; i < p; i++) {
        int n, want = graph_adj(p, i, adj), nb[MAXN];

        CHECK_RC(MPI_Graph_neighbors_count(g, i, &n));
        CHECK_RC(MPI_Graph_neighbors(g, i, MAXN, nb));
        EXPECT(n == want && !memcmp(nb, adj, (size_t)n * sizeof(int)), "Graph_neighbors of node %d", i);
    }
    int newrank;
    CHECK_RC(MPI_Graph_map(MPI_COMM_WORLD, p, index, edges, &newrank));
    EXPECT(newrank == rank, "Graph_map %d", newrank);

    model_t m = { .name = "graph", .comm = g };
    int outs[8][MAXN], nouts[8];
    CHECK(p <= 8, "this test models at most 8 ranks");
    for (int q = 0; q < p; q++)
        nouts[q] = graph_adj(p, q, outs[q]);
    m.nin = m.nout = graph_adj(p, rank, m.in);
    memcpy(m.out, m.in, sizeof(m.in));
    pair_blocks(&m, outs, nouts);
    run_all(&m);
    /* a duplicate keeps the graph */
    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(g, &dup));
    CHECK_RC(MPI_Topo_test(dup, &st));
    CHECK_RC(MPI_Graph_get(dup, p, ne, gi, ge));
    EXPECT(st == MPI_GRAPH && !memcmp(gi, index, (size_t)p * sizeof(int)) &&
           !memcmp(ge, edges, (size_t)ne * sizeof(int)), "Comm_dup keeps the graph");
    m.comm = dup;
    m.name = "graph_dup";
    run_collectives(&m, 3);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&g);

    /* fewer nodes than ranks: the last rank is left out */
    if (p >= 2) {
        int idx2[8], e2[16], n2 = 0;

        for (int i = 0; i < p - 1; i++) {
            e2[n2++] = (i + 1) % (p - 1);
            idx2[i] = n2;
        }
        CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, p - 1, idx2, e2, 0, &g));
        CHECK_RC(MPI_Graph_map(MPI_COMM_WORLD, p - 1, idx2, e2, &newrank));
        if (rank == p - 1) {
            EXPECT(g == MPI_COMM_NULL && newrank == MPI_UNDEFINED, "rank outside the graph");
        } else {
            CHECK(g != MPI_COMM_NULL, "rank inside the graph got none");
            CHECK_RC(MPI_Graphdims_get(g, &nn, &nedges));
            EXPECT(nn == p - 1 && nedges == p - 1 && newrank == rank, "graph of %d nodes", p - 1);
            MPI_Comm_free(&g);
        }
    }
    /* an empty graph: MPI_COMM_NULL everywhere */
    CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &g));
    EXPECT(g == MPI_COMM_NULL, "empty graph gives MPI_COMM_NULL");
    free(gi);
    free(ge);
    free(index);
    free(edges);
    th_case = NULL;
}

/* ---- Distributed graphs ---- */

static int weight_of(int s, int d, int nth) { return 1000 * s + 10 * d + nth; }

/* The edges of the general test, as (source, destination, nth) where nth
 * tells repeated edges apart: s -> s+1, s -> s+3, s -> s for even s, and
 * 0 -> p-1 three times. */
static int general_edges(int p, int (*e)[3])
{
    int n = 0;

    for (int s = 0; s < p; s++) {
        e[n][0] = s, e[n][1] = (s + 1) % p, e[n++][2] = 0;
        e[n][0] = s, e[n][1] = (s + 3) % p, e[n++][2] = 1;
        if (s % 2 == 0)
            e[n][0] = s, e[n][1] = s, e[n++][2] = 2;
    }
    for (int k = 0; k < 3; k++)
        e[n][0] = 0, e[n][1] = p - 1, e[n++][2] = 3 + k;
    return n;
}

/* Who names an edge: any rank but rank 1, which names none. */
static int namer_of(int p, const int *e)
{
    int r = (e[0] + 2 * e[1] + e[2]) % p;

    return p > 1 && r == 1 ? 0 : r;
}

static int cmp_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;

    return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

/* Checks this rank's lists (Dist_graph_neighbors) against the multisets
 * expected; fills the model (pairing through the allgathered out-lists). */
static void dist_model(model_t *m, int weighted, int exp_in[][2], int nexp_in, int exp_out[][2],
                       int nexp_out)
{
    int nin, nout, w, sw[MAXN], dw[MAXN];

    CHECK_RC(MPI_Dist_graph_neighbors_count(m->comm, &nin, &nout, &w));
    EXPECT(nin == nexp_in && nout == nexp_out && w == weighted,
           "%s: Dist_graph_neighbors_count %d %d %d, want %d %d %d", m->name, nin, nout, w,
           nexp_in, nexp_out, weighted);
    CHECK(nin <= MAXN && nout <= MAXN, "too many neighbours");
    CHECK_RC(MPI_Dist_graph_neighbors(m->comm, MAXN, m->in, weighted ? sw : MPI_UNWEIGHTED, MAXN,
                                      m->out, weighted ? dw : MPI_UNWEIGHTED));
    m->nin = nin;
    m->nout = nout;
    int got[MAXN][2];
    for (int k = 0; k < nin; k++)
        got[k][0] = m->in[k], got[k][1] = weighted ? sw[k] : 0;
    qsort(got, (size_t)nin, sizeof(got[0]), cmp_pair);
    qsort(exp_in, (size_t)nexp_in, sizeof(exp_in[0]), cmp_pair);
    EXPECT(nin == nexp_in && !memcmp(got, exp_in, (size_t)nin * sizeof(got[0])),
           "%s: sources and their weights", m->name);
    for (int k = 0; k < nout; k++)
        got[k][0] = m->out[k], got[k][1] = weighted ? dw[k] : 0;
    qsort(got, (size_t)nout, sizeof(got[0]), cmp_pair);
    qsort(exp_out, (size_t)nexp_out, sizeof(exp_out[0]), cmp_pair);
    EXPECT(nout == nexp_out && !memcmp(got, exp_out, (size_t)nout * sizeof(got[0])),
           "%s: destinations and their weights", m->name);

    int outs[8][MAXN], nouts[8];
    int mine[MAXN + 1] = { nout };
    memcpy(mine + 1, m->out, (size_t)nout * sizeof(int));
    int all[8][MAXN + 1];
    CHECK_RC(MPI_Allgather(mine, MAXN + 1, MPI_INT, all, MAXN + 1, MPI_INT, MPI_COMM_WORLD));
    for (int q = 0; q < size; q++) {
        nouts[q] = all[q][0];
        memcpy(outs[q], all[q] + 1, (size_t)nouts[q] * sizeof(int));
    }
    pair_blocks(m, outs, nouts);
}

static void test_dist_adjacent(void)
{
    int p = size, r = rank;
    int src[2] = { (r - 2 + 2 * p) % p, (r - 1 + p) % p }, dst[2] = { (r + 1) % p, (r + 2) % p };
    int sw[2] = { weight_of(src[0], r, 0), weight_of(src[1], r, 0) };
    int dw[2] = { weight_of(r, dst[0], 0), weight_of(r, dst[1], 0) };
    int gs[2], gsw[2], gd[2], gdw[2], nin, nout, w, st;
    MPI_Comm g;

    th_case = "dist_graph_adjacent";
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 2, dst, dw, MPI_INFO_NULL,
                                            0, &g));
    CHECK_RC(MPI_Topo_test(g, &st));
    EXPECT(st == MPI_DIST_GRAPH, "Topo_test %d", st);
    CHECK_RC(MPI_Dist_graph_neighbors_count(g, &nin, &nout, &w));
    CHECK_RC(MPI_Dist_graph_neighbors(g, 2, gs, gsw, 2, gd, gdw));
    EXPECT(nin == 2 && nout == 2 && w && !memcmp(gs, src, sizeof(src)) &&
           !memcmp(gsw, sw, sizeof(sw)) && !memcmp(gd, dst, sizeof(dst)) &&
           !memcmp(gdw, dw, sizeof(dw)), "adjacent lists and weights as given, in order");
    model_t m = { .name = "dist_graph_adjacent", .comm = g, .nin = 2, .nout = 2 };
    memcpy(m.in, src, sizeof(src));
    memcpy(m.out, dst, sizeof(dst));
    int outs[8][MAXN], nouts[8];
    for (int q = 0; q < p; q++) {
        nouts[q] = 2;
        outs[q][0] = (q + 1) % p;
        outs[q][1] = (q + 2) % p;
    }
    pair_blocks(&m, outs, nouts);
    run_all(&m);
    MPI_Comm_free(&g);

    /* unweighted, and a rank with no edges at all (MPI_WEIGHTS_EMPTY) */
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
    CHECK_RC(MPI_Dist_graph_neighbors_count(g, &nin, &nout, &w));
    EXPECT(nin == 2 && nout == 2 && !w, "unweighted: weighted flag %d", w);
    MPI_Comm_free(&g);
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL,
                                            MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &g));
    CHECK_RC(MPI_Dist_graph_neighbors_count(g, &nin, &nout, &w));
    EXPECT(nin == 0 && nout == 0 && w, "empty weighted: %d %d %d", nin, nout, w);
    model_t e = { .name = "dist_graph_empty", .comm = g };
    run_collectives(&e, 3);
    MPI_Comm_free(&g);
    th_case = NULL;
}

static void test_dist_general(int weighted)
{
    int p = size, (*e)[3] = malloc((size_t)(3 * p + 3) * sizeof(*e));
    CHECK(e != NULL, "out of memory");
    int ne = general_edges(p, e);
    const char *name = weighted ? "dist_graph" : "dist_graph_unweighted";

    th_case = name;
    /* what this rank names, grouped by source in order of appearance */
    int *srcs = malloc((size_t)ne * sizeof(int)), *degs = malloc((size_t)ne * sizeof(int));
    int *dsts = malloc((size_t)ne * sizeof(int)), *ws = malloc((size_t)ne * sizeof(int));
    int n = 0, nd = 0;
    CHECK(srcs && degs && dsts && ws, "out of memory");
    for (int s = 0; s < p; s++) {
        int deg = 0;

        for (int i = 0; i < ne; i++)
            if (e[i][0] == s && namer_of(p, e[i]) == rank) {
                dsts[nd] = e[i][1];
                ws[nd++] = weight_of(e[i][0], e[i][1], e[i][2]);
                deg++;
            }
        if (deg) {
            srcs[n] = s;
            degs[n++] = deg;
        }
    }
    MPI_Comm g;
    if (n == 0)   /* rank 1 (and any rank naming nothing): no arrays at all */
        CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL,
                                       weighted ? MPI_WEIGHTS_EMPTY : MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &g));
    else
        CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, n, srcs, degs, dsts,
                                       weighted ? ws : MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &g));
    int st;
    CHECK_RC(MPI_Topo_test(g, &st));
    EXPECT(st == MPI_DIST_GRAPH, "Topo_test %d", st);

    int exp_in[MAXN][2], exp_out[MAXN][2], nin = 0, nout = 0;
    for (int i = 0; i < ne; i++) {
        int w = weighted ? weight_of(e[i][0], e[i][1], e[i][2]) : 0;

        if (e[i][1] == rank && nin < MAXN)
            exp_in[nin][0] = e[i][0], exp_in[nin++][1] = w;
        if (e[i][0] == rank && nout < MAXN)
            exp_out[nout][0] = e[i][1], exp_out[nout++][1] = w;
    }
    model_t m = { .name = name, .comm = g };
    dist_model(&m, weighted, exp_in, nin, exp_out, nout);
    run_all(&m);
    MPI_Comm_free(&g);
    free(srcs);
    free(degs);
    free(dsts);
    free(ws);
    free(e);
    th_case = NULL;
}

/* ---- Attributes are not copied by a topology constructor ---- */

static int copies;

static int count_copy(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void test_no_attr_copy(void)
{
    int kv, flag, dims[1] = { size }, per[1] = { 0 }, self = rank, one = 1;
    int idx[8], edg[8];
    void *v;
    MPI_Comm c[4];

    th_case = "attributes";
    for (int i = 0; i < size; i++) {
        idx[i] = i + 1;
        edg[i] = i;
    }
    CHECK_RC(MPI_Comm_create_keyval(count_copy, MPI_COMM_NULL_DELETE_FN, &kv, NULL));
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, &kv));
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &c[0]));
    CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, size, idx, edg, 0, &c[1]));
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &self, MPI_UNWEIGHTED, 1, &self,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c[2]));
    CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &self, &one, &self, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &c[3]));
    EXPECT(copies == 0, "a topology constructor called the attribute copy callback %d times",
           copies);
    for (int i = 0; i < 4; i++) {
        CHECK_RC(MPI_Comm_get_attr(c[i], kv, &v, &flag));
        EXPECT(!flag, "constructor %d: the attribute was copied", i);
        MPI_Comm_free(&c[i]);
    }
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, kv));
    CHECK_RC(MPI_Comm_free_keyval(&kv));
    th_case = NULL;
}

/* ---- Errors ---- */

static void test_errors(void)
{
    int buf[4] = { 0 }, rc, dims[4], per[4] = { 0 }, st;
    MPI_Comm c = MPI_COMM_NULL;

    th_case = "errors";
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT(MPI_Neighbor_allgather(buf, 1, MPI_INT, buf, 1, MPI_INT, MPI_COMM_WORLD) ==
               MPI_ERR_TOPOLOGY, "neighbourhood collective without topology: MPI_ERR_TOPOLOGY");
    CHECK_RC(MPI_Topo_test(MPI_COMM_WORLD, &st));
    EXPECT(st == MPI_UNDEFINED, "Topo_test of world %d", st);

    dims[0] = size + 1;
    c = MPI_COMM_SELF;
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &c) == MPI_ERR_TOPOLOGY &&
               c == MPI_COMM_SELF, "grid larger than the communicator: MPI_ERR_TOPOLOGY, output untouched");
    /* 65536^4 = 2^64 points: must not wrap around to a small number */
    for (int d = 0; d < 4; d++)
        dims[d] = 65536;
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 4, dims, per, 0, &c) == MPI_ERR_TOPOLOGY,
           "a grid of 2^64 points: MPI_ERR_TOPOLOGY");
    int newrank;
    EXPECT(MPI_Cart_map(MPI_COMM_WORLD, 4, dims, per, &newrank) == MPI_ERR_TOPOLOGY,
           "Cart_map of 2^64 points");
    dims[0] = 1;
    CHECK_RC(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, per, &newrank));
    EXPECT(newrank == (rank == 0 ? 0 : MPI_UNDEFINED), "Cart_map onto 1 point: %d", newrank);

    dims[0] = size;
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &c));
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int n;
    EXPECT(MPI_Graph_neighbors_count(c, 0, &n) == MPI_ERR_TOPOLOGY, "graph call on a grid");
    EXPECT(MPI_Dist_graph_neighbors_count(c, &n, &n, &n) == MPI_ERR_TOPOLOGY,
           "dist-graph call on a grid");
    EXPECT(MPI_Cart_shift(c, 1, 1, &n, &n) == MPI_ERR_ARG, "Cart_shift of a missing dimension");
    EXPECT(MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, buf, 1, MPI_INT, c) == MPI_ERR_BUFFER,
           "MPI_IN_PLACE refused");
    EXPECT(MPI_Ineighbor_alltoall(buf, 1, MPI_INT, buf + 2, 1, MPI_INT, c, NULL) == MPI_ERR_ARG,
           "NULL request refused");
    EXPECT(MPI_Neighbor_alltoallv(buf, NULL, NULL, MPI_INT, buf, NULL, NULL, MPI_INT, c) ==
               MPI_ERR_ARG, "NULL counts refused");
    MPI_Comm_free(&c);

    /* a bad argument at the last rank only: every rank fails, none hangs */
    int self = rank, bad = rank == size - 1 ? size : rank;
    rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad, MPI_UNWEIGHTED, 1, &self,
                                        MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
    EXPECT(rank == size - 1 ? rc == MPI_ERR_RANK : rc != MPI_SUCCESS,
           "one rank's bad source: %d at rank %d", rc, rank);
    int one = 1;
    rc = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &self, &one, &bad, MPI_UNWEIGHTED,
                               MPI_INFO_NULL, 0, &c);
    EXPECT(rank == size - 1 ? rc == MPI_ERR_RANK : rc != MPI_SUCCESS,
           "one rank's bad destination (general form): %d at rank %d", rc, rank);
    rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &self, MPI_WEIGHTS_EMPTY, 1, &self,
                                        MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &c);
    EXPECT(rc == MPI_ERR_ARG, "MPI_WEIGHTS_EMPTY for one edge: %d", rc);
    int idx[1] = { 1 }, edg[1] = { 5 };
    rc = MPI_Graph_create(MPI_COMM_WORLD, 1, idx, edg, 0, &c);
    EXPECT(rc == MPI_ERR_ARG, "edge to a node that does not exist: %d", rc);
    /* after all that, the world still works */
    int sum = 0;
    CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(sum == size, "allreduce after the errors: %d", sum);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    th_case = NULL;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    rank = th_rank;
    size = th_size;
    CHECK(size <= 8, "this test models at most 8 ranks (got %d)", size);
    for (int n = 1; n < 4; n++) {
        MPI_Type_vector(n, 1, 2, MPI_INT, &strided[n]);
        MPI_Type_commit(&strided[n]);
    }

    test_dims_create();

    int p = size, d2[2] = { 0, 0 }, d3[3] = { 0, 0, 0 };
    MPI_Dims_create(p, 2, d2);
    MPI_Dims_create(p, 3, d3);
    int ring[1] = { p }, per1[1] = { 1 }, line_per[1] = { 0 };
    test_cart("cart_ring", 1, ring, per1);
    test_cart("cart_line", 1, ring, line_per);
    test_cart("cart_2d", 2, d2, (int[]){ 0, 1 });
    test_cart("cart_3d", 3, d3, (int[]){ 1, 0, 1 });
    test_cart("cart_with_1", 2, (int[]){ p, 1 }, (int[]){ 0, 1 });
    if (p > 2)   /* a grid smaller than the communicator */
        test_cart("cart_part", 1, (int[]){ p - 1 }, per1);

    /* zero dimensions: one point, rank 0's, with no neighbours */
    MPI_Comm z;
    int zst, zn, zbuf[1] = { 5 };
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &z));
    if (rank == 0) {
        CHECK(z != MPI_COMM_NULL, "zero-dimensional grid: no communicator at rank 0");
        CHECK_RC(MPI_Comm_size(z, &zn));
        CHECK_RC(MPI_Topo_test(z, &zst));
        CHECK_RC(MPI_Neighbor_alltoall(zbuf, 1, MPI_INT, zbuf, 1, MPI_INT, z));
        EXPECT(zn == 1 && zst == MPI_CART && zbuf[0] == 5, "zero-dimensional grid");
        MPI_Comm_free(&z);
    } else {
        EXPECT(z == MPI_COMM_NULL, "zero-dimensional grid: rank %d is outside", rank);
    }

    test_graph();
    test_dist_adjacent();
    test_dist_general(1);
    test_dist_general(0);
    test_no_attr_copy();
    test_errors();

    for (int n = 1; n < 4; n++)
        MPI_Type_free(&strided[n]);
    return mt_finish("mpi_topo");
}
