/*
 * Communicators, groups, attributes and topologies: dup/split/split_type/
 * create/compare/free, collectives on sub-communicators with the same tags
 * as user messages in flight, group algebra, keyval callbacks, predefined
 * attributes, Cartesian and distributed-graph topologies.
 */
#include "mpitest.h"

static int copies, deletes;

static int copy_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c; (void)k; (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c; (void)k; (void)val; (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int p, r, res, flag;

    mt_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    r = th_rank;

    /* dup: congruent; messages on the dup never match the original */
    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &res);
    EXPECT(res == MPI_CONGRUENT, "compare dup %d", res);
    MPI_Comm_compare(dup, dup, &res);
    EXPECT(res == MPI_IDENT, "compare self %d", res);
    int x = r, y = -1, z = -1;
    MPI_Request rq[2];
    MPI_Irecv(&y, 1, MPI_INT, (r - 1 + p) % p, 0, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(&z, 1, MPI_INT, (r - 1 + p) % p, 0, dup, &rq[1]);
    int xx = x + 100;
    MPI_Send(&xx, 1, MPI_INT, (r + 1) % p, 0, dup);
    MPI_Send(&x, 1, MPI_INT, (r + 1) % p, 0, MPI_COMM_WORLD);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    EXPECT(y == (r - 1 + p) % p && z == y + 100, "dup isolation %d %d", y, z);
    /* a collective while a user message with tag 0 is pending on the same comm */
    MPI_Irecv(&y, 1, MPI_INT, (r - 1 + p) % p, 0, dup, &rq[0]);
    int sum;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, dup);
    EXPECT(sum == p * (p - 1) / 2, "allreduce with a user receive posted: %d", sum);
    MPI_Send(&x, 1, MPI_INT, (r + 1) % p, 0, dup);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    EXPECT(y == (r - 1 + p) % p, "user message after the collective");

    /* split by parity, reversed key */
    MPI_Comm half;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, r % 2, -r, &half));
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    EXPECT(hs == (p + 1 - r % 2) / 2, "split size %d", hs);
    EXPECT(hr == hs - 1 - r / 2, "split rank %d (reversed key)", hr);
    MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, half);
    int want = 0;
    for (int k = r % 2; k < p; k += 2)
        want += k;
    EXPECT(sum == want, "allreduce on split %d != %d", sum, want);
    MPI_Comm none;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, r == 0 ? MPI_UNDEFINED : 1, 0, &none));
    EXPECT((r == 0) == (none == MPI_COMM_NULL), "MPI_UNDEFINED color");
    if (none != MPI_COMM_NULL)
        MPI_Comm_free(&none);

    MPI_Comm node;
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, &node));
    int ns;
    MPI_Comm_size(node, &ns);
    EXPECT(ns == p, "split_type shared on one host: %d of %d", ns, p);
    MPI_Comm_free(&node);

    /* groups */
    MPI_Group wg, g1, g2, g3;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int evens[64], ne = 0;
    for (int k = 0; k < p && ne < 64; k += 2)
        evens[ne++] = k;
    MPI_Group_incl(wg, ne, evens, &g1);
    MPI_Group_excl(wg, ne, evens, &g2);
    int s1, s2;
    MPI_Group_size(g1, &s1);
    MPI_Group_size(g2, &s2);
    EXPECT(s1 + s2 == p, "incl/excl sizes %d %d", s1, s2);
    MPI_Group_union(g1, g2, &g3);
    MPI_Group_compare(g3, wg, &res);
    EXPECT(res == (p > 2 ? MPI_SIMILAR : MPI_IDENT), "union compare %d", res);
    MPI_Group_free(&g3);
    MPI_Group_intersection(g1, g2, &g3);
    MPI_Group_size(g3, &s1);
    EXPECT(s1 == 0 && g3 == MPI_GROUP_EMPTY, "intersection empty");
    MPI_Group_difference(wg, g2, &g3);
    MPI_Group_compare(g3, g1, &res);
    EXPECT(res == MPI_IDENT, "difference %d", res);
    MPI_Group_free(&g3);
    int ranges[1][3] = { { p - 1, 0, -1 } };
    MPI_Group_range_incl(wg, 1, ranges, &g3);
    int tr[1] = { 0 }, out[1];
    MPI_Group_translate_ranks(g3, 1, tr, wg, out);
    EXPECT(out[0] == p - 1, "range_incl reversed: %d", out[0]);
    MPI_Group_rank(g3, &res);
    EXPECT(res == p - 1 - r, "group rank %d", res);
    MPI_Group_free(&g3);
    /* Comm_create from the even group */
    MPI_Comm ec;
    CHECK_RC(MPI_Comm_create(MPI_COMM_WORLD, g1, &ec));
    EXPECT((r % 2 == 0) == (ec != MPI_COMM_NULL), "comm_create membership");
    if (ec != MPI_COMM_NULL) {
        MPI_Comm_rank(ec, &res);
        EXPECT(res == r / 2, "comm_create rank %d", res);
        MPI_Barrier(ec);
        MPI_Comm_free(&ec);
    }
    MPI_Group_free(&g1);
    MPI_Group_free(&g2);
    MPI_Group_free(&wg);

    /* attributes */
    int key, *val;
    static int payload = 77;
    CHECK_RC(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL));
    CHECK_RC(MPI_Comm_set_attr(dup, key, &payload));
    CHECK_RC(MPI_Comm_get_attr(dup, key, &val, &flag));
    EXPECT(flag && val == &payload, "get_attr");
    MPI_Comm dup2;
    MPI_Comm_dup(dup, &dup2);
    EXPECT(copies == 1, "copy callback ran %d times", copies);
    MPI_Comm_get_attr(dup2, key, &val, &flag);
    EXPECT(flag && *val == 77, "attribute copied on dup");
    MPI_Comm_free(&dup2);
    EXPECT(deletes == 1, "delete callback on free ran %d times", deletes);
    MPI_Comm_delete_attr(dup, key);
    EXPECT(deletes == 2, "delete_attr");
    MPI_Comm_get_attr(dup, key, &val, &flag);
    EXPECT(!flag, "attribute still there after delete");
    MPI_Comm_free_keyval(&key);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag);
    EXPECT(flag && *val >= 32767, "MPI_TAG_UB %d", flag ? *val : -1);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &val, &flag);
    EXPECT(flag && *val >= p, "MPI_UNIVERSE_SIZE");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    EXPECT(!strcmp(name, "MPI_COMM_WORLD"), "world name %s", name);
    MPI_Comm_set_name(dup, "mine");
    MPI_Comm_get_name(dup, name, &len);
    EXPECT(!strcmp(name, "mine") && len == 4, "set_name");
    MPI_Comm_test_inter(dup, &flag);
    EXPECT(!flag, "test_inter");
    MPI_Comm_free(&dup);
    EXPECT(dup == MPI_COMM_NULL, "free nulls the handle");
    MPI_Comm_free(&half);

    /* Cartesian topology */
    int dims[2] = { 0, 0 }, periods[2] = { 1, 0 }, coords[2];
    MPI_Dims_create(p, 2, dims);
    EXPECT(dims[0] * dims[1] == p && dims[0] >= dims[1], "dims_create %d x %d", dims[0], dims[1]);
    int d3[3] = { 0, 3, 0 };
    MPI_Dims_create(12, 3, d3);
    EXPECT(d3[0] * d3[1] * d3[2] == 12 && d3[1] == 3 && d3[0] == 2 && d3[2] == 2,
           "dims_create fixed dim %d %d %d", d3[0], d3[1], d3[2]);
    MPI_Comm cart;
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart));
    MPI_Topo_test(cart, &res);
    EXPECT(res == MPI_CART, "topo_test %d", res);
    MPI_Cart_coords(cart, r, 2, coords);
    EXPECT(coords[0] == r / dims[1] && coords[1] == r % dims[1], "cart coords");
    MPI_Cart_rank(cart, coords, &res);
    EXPECT(res == r, "cart_rank");
    int src, dst;
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    EXPECT(dst == ((coords[0] + 1) % dims[0]) * dims[1] + coords[1], "periodic shift dst %d", dst);
    MPI_Cart_shift(cart, 1, 1, &src, &dst);
    EXPECT(coords[1] == dims[1] - 1 ? dst == MPI_PROC_NULL : dst == r + 1, "non-periodic shift %d", dst);
    EXPECT(coords[1] == 0 ? src == MPI_PROC_NULL : src == r - 1, "non-periodic shift src %d", src);
    int rd[2] = { 0, 1 };
    MPI_Comm row;
    CHECK_RC(MPI_Cart_sub(cart, rd, &row));
    int rs, ndims;
    MPI_Comm_size(row, &rs);
    MPI_Cartdim_get(row, &ndims);
    EXPECT(rs == dims[1] && ndims == 1, "cart_sub size %d ndims %d", rs, ndims);
    MPI_Comm_free(&row);
    MPI_Comm_free(&cart);

    /* Distributed graph: a ring */
    int srcs[1] = { (r - 1 + p) % p }, dsts[1] = { (r + 1) % p }, w[1] = { 5 };
    MPI_Comm g;
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, srcs, w, 1, dsts, w, MPI_INFO_NULL, 0, &g));
    int indeg, outdeg, weighted, s[1], d[1], sw[1], dw[1];
    MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted);
    EXPECT(indeg == 1 && outdeg == 1 && weighted, "dist graph counts");
    MPI_Dist_graph_neighbors(g, 1, s, sw, 1, d, dw);
    EXPECT(s[0] == srcs[0] && d[0] == dsts[0] && sw[0] == 5 && dw[0] == 5, "dist graph neighbours");
    MPI_Comm_free(&g);

    /* MPI_Comm_free with operations pending (MPI 3.1 6.4.3: they complete
     * normally): in pairs (r even receives from r + 1), the receiver posts a
     * 4 B and a 1 MiB (rendezvous) receive and frees the communicator before
     * the barrier, the sender sends only after it, then frees; then a new
     * dup (which may reuse the context id) carries a message of its own. */
    enum { BIG = 1 << 18 };
    static int big_in[BIG], big_out[BIG];
    int small_in = -1, small_out = 1000 + r, partner = r ^ 1, from = (r - 1 + p) % p;
    MPI_Comm doomed, fresh;
    MPI_Request fr[2];
    for (int i = 0; i < BIG; i++)
        big_out[i] = r * 7 + i;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &doomed));
    if (partner >= p) {
        CHECK_RC(MPI_Comm_free(&doomed));
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    } else if (r % 2 == 0) {
        CHECK_RC(MPI_Irecv(&small_in, 1, MPI_INT, partner, 1, doomed, &fr[0]));
        CHECK_RC(MPI_Irecv(big_in, BIG, MPI_INT, partner, 2, doomed, &fr[1]));
        CHECK_RC(MPI_Comm_free(&doomed));
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_RC(MPI_Waitall(2, fr, MPI_STATUSES_IGNORE));
        int bad = 0;
        for (int i = 0; i < BIG; i++)
            bad += big_in[i] != partner * 7 + i;
        EXPECT(small_in == 1000 + partner && bad == 0,
               "receives on a communicator freed before they matched: small %d (expected %d), "
               "%d of %d large elements wrong", small_in, 1000 + partner, bad, BIG);
    } else {
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_RC(MPI_Isend(&small_out, 1, MPI_INT, partner, 1, doomed, &fr[0]));
        CHECK_RC(MPI_Isend(big_out, BIG, MPI_INT, partner, 2, doomed, &fr[1]));
        CHECK_RC(MPI_Comm_free(&doomed));
        CHECK_RC(MPI_Waitall(2, fr, MPI_STATUSES_IGNORE));
    }
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &fresh));
    small_in = -1;
    CHECK_RC(MPI_Sendrecv(&small_out, 1, MPI_INT, (r + 1) % p, 1, &small_in, 1, MPI_INT, from, 1,
                          fresh, MPI_STATUS_IGNORE));
    EXPECT(small_in == 1000 + from, "a dup after the freed one carried %d, expected %d",
           small_in, 1000 + from);
    MPI_Comm_free(&fresh);
    return mt_finish("mpi_comm");
}
