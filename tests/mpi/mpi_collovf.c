/*
 * Collectives whose counts or displacements overflow only in products with
 * the number of ranks, or with the extent (issue 14): every buffer count is
 * valid on its own, but count * p elements, displs[i] * extent or a byte
 * displacement plus the span of a block reach beyond 64-bit offsets, or a
 * sum of counts beyond INT_MAX. Each call must return MPI_ERR_COUNT before
 * it touches memory, at every rank that can see the arguments (all of them
 * where the arguments are the same everywhere), and the communicator must
 * work afterwards. Without the checks these calls write at wrapped
 * addresses (SIGSEGV) or overflow int (UBSan).
 *
 * The types are huge in extent and tiny in size (MPI_BYTE resized), the
 * send sides plain bytes: nothing there allocates more than a few bytes per
 * rank, and the calls that must work (zero-size types at counts whose
 * products pass INT_MAX) move nothing.
 *
 * Part negext: a type of negative extent (elements going down from the
 * buffer address) through the reductions, scans, Bcast, Reduce_scatter,
 * Allgather, Gather and Alltoall, blocking and nonblocking, data checked (560 KB per
 * buffer, past the algorithms' switch points).
 * Needs 2 ranks or more for the product cases (at 1 they are single
 * counts, which mpi_dtovf covers); 3 or more for the sum of
 * Reduce_scatter_block's counts to wrap to a positive int.
 */
#include "mpitest.h"

#include <limits.h>
#include <stdint.h>

static int err_class(int rc)
{
    int cls = rc;

    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

#define EXPECT_COUNT_ERR(_call) \
    do { \
        int c_ = err_class(_call); \
        EXPECT(c_ == MPI_ERR_COUNT, "%s: error class %d, expected MPI_ERR_COUNT", #_call, c_); \
    } while (0)

/* MPI_BYTE with an extent such that 2 elements fit 64-bit offsets but
 * 2 * nblocks do not (nblocks >= 2). */
static MPI_Datatype huge_type(int nblocks)
{
    MPI_Datatype t;
    MPI_Aint e = INT64_MAX / (2 * (MPI_Aint)nblocks - 1) + 1;

    CHECK(MPI_Type_create_resized(MPI_BYTE, 0, e, &t) == MPI_SUCCESS, "resized to %ld", (long)e);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS, "commit");
    return t;
}

static MPI_Datatype resized_byte(MPI_Aint extent)
{
    MPI_Datatype t;

    CHECK(MPI_Type_create_resized(MPI_BYTE, 0, extent, &t) == MPI_SUCCESS, "resized");
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS, "commit");
    return t;
}

/* The communicator still works: the collectives that failed kept the
 * ranks' sequence of collectives aligned. */
static void still_works(MPI_Comm comm)
{
    int one = 1, sum = 0, n, inter;

    MPI_Comm_test_inter(comm, &inter);
    (inter ? MPI_Comm_remote_size : MPI_Comm_size)(comm, &n);   /* the group summed over */
    CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm));
    EXPECT(sum == n, "Allreduce after the errors: %d, expected %d", sum, n);
}

/* n blocks of 1 element, the last one INT_MAX elements in (zeros: n 0s). */
static void far_blocks(int n, int *counts, int *displs, int *zeros)
{
    for (int i = 0; i < n; i++) {
        counts[i] = 1;
        displs[i] = i == n - 1 ? INT_MAX : 0;
        zeros[i] = 0;
    }
}

static void noop_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
}

/* Every rank passes the same arguments: every rank gets the error. */
static void test_everywhere(MPI_Comm comm)
{
    int p, r;
    char sbuf[64] = { 0 }, rbuf[64];
    MPI_Request req = MPI_REQUEST_NULL;

    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    th_case = "everywhere";
    MPI_Datatype big = huge_type(p);   /* 2 per block fit, 2p do not */
    EXPECT_COUNT_ERR(MPI_Allgather(sbuf, 2, MPI_BYTE, rbuf, 2, big, comm));
    EXPECT_COUNT_ERR(MPI_Iallgather(sbuf, 2, MPI_BYTE, rbuf, 2, big, comm, &req));
    EXPECT(req == MPI_REQUEST_NULL, "Iallgather set a request");
    EXPECT_COUNT_ERR(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rbuf, 2, big, comm));
    EXPECT_COUNT_ERR(MPI_Alltoall(sbuf, 2, MPI_BYTE, rbuf, 2, big, comm));
    EXPECT_COUNT_ERR(MPI_Ialltoall(sbuf, 2, MPI_BYTE, rbuf, 2, big, comm, &req));
    EXPECT_COUNT_ERR(MPI_Alltoall(rbuf, 2, big, sbuf, 2, MPI_BYTE, comm));

    /* displacements times the extent: INT_MAX * 2^40 */
    MPI_Datatype far = resized_byte((MPI_Aint)1 << 40);
    int counts[64], displs[64], zeros[64];
    far_blocks(p, counts, displs, zeros);
    EXPECT_COUNT_ERR(MPI_Allgatherv(sbuf, 1, MPI_BYTE, rbuf, counts, displs, far, comm));
    EXPECT_COUNT_ERR(MPI_Iallgatherv(sbuf, 1, MPI_BYTE, rbuf, counts, displs, far, comm, &req));
    EXPECT_COUNT_ERR(MPI_Alltoallv(sbuf, counts, zeros, MPI_BYTE, rbuf, counts, displs, far,
                                   comm));
    EXPECT_COUNT_ERR(MPI_Alltoallv(rbuf, counts, displs, far, sbuf, counts, zeros, MPI_BYTE,
                                   comm));
    EXPECT_COUNT_ERR(MPI_Ialltoallv(sbuf, counts, zeros, MPI_BYTE, rbuf, counts, displs, far,
                                    comm, &req));

    /* Alltoallw: a byte displacement plus the block's reach (2 elements
     * whose extent is 2^30 short of MPI_Aint's top) */
    MPI_Datatype top = resized_byte(INT64_MAX - ((MPI_Aint)1 << 30));
    MPI_Datatype bytes[64], tops[64];
    int twos[64], wdispls[64];
    for (int i = 0; i < p; i++) {
        bytes[i] = MPI_BYTE;
        tops[i] = top;
        twos[i] = 2;
        wdispls[i] = i == p - 1 ? INT_MAX : 0;
    }
    EXPECT_COUNT_ERR(MPI_Alltoallw(sbuf, twos, zeros, bytes, rbuf, twos, wdispls, tops, comm));
    EXPECT_COUNT_ERR(MPI_Ialltoallw(sbuf, twos, zeros, bytes, rbuf, twos, wdispls, tops, comm,
                                    &req));

    /* Reduce_scatter(_block): the counts add up to more than INT_MAX (a
     * type of size 0, so the buffers are empty) */
    MPI_Datatype zero;
    MPI_Op op;
    CHECK_RC(MPI_Type_contiguous(0, MPI_INT, &zero));
    CHECK_RC(MPI_Type_commit(&zero));
    CHECK_RC(MPI_Op_create(noop_op, 1, &op));
    /* at p >= 3 the int product wraps to a small positive number */
    int rc = p >= 3 ? (int)(((int64_t)1 << 32) / p + 1) : INT_MAX / 2 + 1;
    int big_counts[64];
    for (int i = 0; i < p; i++)
        big_counts[i] = rc;
    EXPECT_COUNT_ERR(MPI_Reduce_scatter_block(sbuf, rbuf, rc, zero, op, comm));
    EXPECT_COUNT_ERR(MPI_Ireduce_scatter_block(sbuf, rbuf, rc, zero, op, comm, &req));
    EXPECT_COUNT_ERR(MPI_Reduce_scatter(sbuf, rbuf, big_counts, zero, op, comm));
    EXPECT_COUNT_ERR(MPI_Reduce_scatter(MPI_IN_PLACE, rbuf, big_counts, zero, op, comm));
    EXPECT(req == MPI_REQUEST_NULL, "a failed nonblocking call set a request");
    still_works(comm);

    /* what can be done is done: counts whose products with p pass INT_MAX,
     * of a type of size 0, move nothing and succeed */
    memset(rbuf, 0x5a, sizeof(rbuf));
    CHECK_RC(MPI_Allgather(sbuf, INT_MAX, zero, rbuf, INT_MAX, zero, comm));
    CHECK_RC(MPI_Alltoall(sbuf, INT_MAX, zero, rbuf, INT_MAX, zero, comm));
    CHECK_RC(MPI_Iallgather(sbuf, INT_MAX, zero, rbuf, INT_MAX, zero, comm, &req));
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < p; i++) {
        counts[i] = INT_MAX;
        displs[i] = INT_MAX;
    }
    CHECK_RC(MPI_Allgatherv(sbuf, INT_MAX, zero, rbuf, counts, displs, zero, comm));
    CHECK_RC(MPI_Reduce_scatter_block(sbuf, rbuf, INT_MAX / p, zero, op, comm));
    for (size_t i = 0; i < sizeof(rbuf); i++)
        EXPECT(rbuf[i] == 0x5a, "byte %zu of the receive buffer was written", i);
    /* and real data through a type with gaps still arrives */
    MPI_Datatype gap = resized_byte(3);
    char mine = (char)('a' + r);
    memset(rbuf, 0, sizeof(rbuf));
    CHECK_RC(MPI_Allgather(&mine, 1, MPI_BYTE, rbuf, 1, gap, comm));
    for (int i = 0; i < p; i++)
        EXPECT(rbuf[3 * i] == 'a' + i && rbuf[3 * i + 1] == 0, "Allgather block %d: %d", i,
               rbuf[3 * i]);
    still_works(comm);
    MPI_Type_free(&gap);
    MPI_Op_free(&op);
    MPI_Type_free(&zero);
    MPI_Type_free(&top);
    MPI_Type_free(&far);
    MPI_Type_free(&big);
}

/* Arguments significant at the root only: the root gets the error. The
 * other ranks cannot know (docs/collectives.md, "Argument errors"), so
 * here only the root calls, on a communicator of its own. */
static void test_root(MPI_Comm world)
{
    int p, r;
    char sbuf[64] = { 0 }, rbuf[64];
    MPI_Comm comm;

    th_case = "root";
    CHECK_RC(MPI_Comm_dup(world, &comm));
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    if (r == 0) {
        MPI_Datatype big = huge_type(p), far = resized_byte((MPI_Aint)1 << 40);
        int counts[64], displs[64], zeros[64];
        MPI_Request req = MPI_REQUEST_NULL;

        far_blocks(p, counts, displs, zeros);
        EXPECT_COUNT_ERR(MPI_Gather(sbuf, 2, MPI_BYTE, rbuf, 2, big, 0, comm));
        EXPECT_COUNT_ERR(MPI_Igather(sbuf, 2, MPI_BYTE, rbuf, 2, big, 0, comm, &req));
        EXPECT_COUNT_ERR(MPI_Scatter(rbuf, 2, big, sbuf, 2, MPI_BYTE, 0, comm));
        EXPECT_COUNT_ERR(MPI_Gatherv(sbuf, 1, MPI_BYTE, rbuf, counts, displs, far, 0, comm));
        EXPECT_COUNT_ERR(MPI_Scatterv(rbuf, counts, displs, far, sbuf, 1, MPI_BYTE, 0, comm));
        EXPECT_COUNT_ERR(MPI_Iscatterv(rbuf, counts, displs, far, sbuf, 1, MPI_BYTE, 0, comm,
                                       &req));
        EXPECT(req == MPI_REQUEST_NULL, "a failed nonblocking call set a request");
        MPI_Type_free(&big);
        MPI_Type_free(&far);
    }
    MPI_Comm_free(&comm);
}

/* Neighbourhood collectives on a periodic ring: 2 neighbours each. */
static void test_neighbor(MPI_Comm world)
{
    int p, dims[1], periods[1] = { 1 };
    char sbuf[64] = { 0 }, rbuf[64];
    MPI_Comm ring;
    MPI_Request req = MPI_REQUEST_NULL;

    th_case = "neighbor";
    MPI_Comm_size(world, &p);
    dims[0] = p;
    CHECK_RC(MPI_Cart_create(world, 1, dims, periods, 0, &ring));
    MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
    MPI_Datatype big = huge_type(2), far = resized_byte((MPI_Aint)1 << 40);
    MPI_Datatype top = resized_byte(INT64_MAX - ((MPI_Aint)1 << 30));
    int counts[2] = { 1, 1 }, displs[2] = { 0, INT_MAX }, zeros[2] = { 0, 0 };
    int twos[2] = { 2, 2 };
    MPI_Aint wz[2] = { 0, 0 }, wd[2] = { 0, INT64_MAX / 2 };
    MPI_Datatype bytes[2] = { MPI_BYTE, MPI_BYTE }, tops[2] = { top, top };

    EXPECT_COUNT_ERR(MPI_Neighbor_allgather(sbuf, 2, MPI_BYTE, rbuf, 2, big, ring));
    EXPECT_COUNT_ERR(MPI_Ineighbor_allgather(sbuf, 2, MPI_BYTE, rbuf, 2, big, ring, &req));
    EXPECT_COUNT_ERR(MPI_Neighbor_alltoall(sbuf, 2, MPI_BYTE, rbuf, 2, big, ring));
    EXPECT_COUNT_ERR(MPI_Neighbor_alltoall(rbuf, 2, big, sbuf, 2, MPI_BYTE, ring));
    EXPECT_COUNT_ERR(MPI_Neighbor_allgatherv(sbuf, 1, MPI_BYTE, rbuf, counts, displs, far,
                                             ring));
    EXPECT_COUNT_ERR(MPI_Neighbor_alltoallv(sbuf, counts, zeros, MPI_BYTE, rbuf, counts, displs,
                                            far, ring));
    EXPECT_COUNT_ERR(MPI_Ineighbor_alltoallv(rbuf, counts, displs, far, sbuf, counts, zeros,
                                             MPI_BYTE, ring, &req));
    EXPECT_COUNT_ERR(MPI_Neighbor_alltoallw(sbuf, twos, wz, bytes, rbuf, twos, wd, tops, ring));
    EXPECT(req == MPI_REQUEST_NULL, "a failed nonblocking call set a request");
    /* the send side of Neighbor_allgather(v) is one block, not one per
     * neighbour: 2 elements of extent 2^62 (and size 0) are fine there */
    MPI_Datatype zero, zfar;
    CHECK_RC(MPI_Type_contiguous(0, MPI_INT, &zero));
    CHECK_RC(MPI_Type_create_resized(zero, 0, (MPI_Aint)1 << 62, &zfar));
    CHECK_RC(MPI_Type_commit(&zero));
    CHECK_RC(MPI_Type_commit(&zfar));
    CHECK_RC(MPI_Neighbor_allgather(sbuf, 2, zfar, rbuf, 2, zero, ring));
    CHECK_RC(MPI_Neighbor_allgatherv(sbuf, 2, zfar, rbuf, twos, zeros, zero, ring));
    MPI_Type_free(&zfar);
    MPI_Type_free(&zero);
    still_works(ring);
    MPI_Type_free(&top);
    MPI_Type_free(&far);
    MPI_Type_free(&big);
    MPI_Comm_free(&ring);
}

/* An intercommunicator of the even and the odd ranks: blocks per remote
 * process. */
static void test_inter(MPI_Comm world)
{
    int r, p, rsize;
    char sbuf[64] = { 0 }, rbuf[64];
    MPI_Comm half, inter;

    th_case = "inter";
    MPI_Comm_rank(world, &r);
    MPI_Comm_size(world, &p);
    CHECK_RC(MPI_Comm_split(world, r % 2, r, &half));
    CHECK_RC(MPI_Intercomm_create(half, 0, world, r % 2 ? 0 : 1, 7, &inter));
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    MPI_Comm_remote_size(inter, &rsize);
    /* both groups see a remote size of 2 or more from 4 ranks on; with
     * fewer, only the check that does not need products runs */
    int bothwide = p / 2 >= 2;
    MPI_Datatype far = resized_byte((MPI_Aint)1 << 40);
    int counts[64], displs[64], zeros[64];
    far_blocks(rsize, counts, displs, zeros);
    EXPECT_COUNT_ERR(MPI_Allgatherv(sbuf, 1, MPI_BYTE, rbuf, counts, displs, far, inter));
    EXPECT_COUNT_ERR(MPI_Alltoallv(sbuf, counts, zeros, MPI_BYTE, rbuf, counts, displs, far,
                                   inter));
    if (bothwide) {
        MPI_Datatype big = huge_type(rsize);

        EXPECT_COUNT_ERR(MPI_Allgather(sbuf, 2, MPI_BYTE, rbuf, 2, big, inter));
        EXPECT_COUNT_ERR(MPI_Alltoall(sbuf, 2, MPI_BYTE, rbuf, 2, big, inter));
        MPI_Type_free(&big);
    }
    /* the v-forms check each block: NULL with every count 0 is valid */
    for (int i = 0; i < rsize; i++)
        counts[i] = displs[i] = 0;
    CHECK_RC(MPI_Allgatherv(sbuf, 0, MPI_BYTE, NULL, counts, displs, MPI_BYTE, inter));
    still_works(inter);
    MPI_Type_free(&far);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

/* A type whose elements go down from the buffer's address (extent -4,
 * MPI_Type_create_resized): the temporary buffers of the schedules must
 * span the elements below the address too. Element i of a buffer `top` is
 * top[-i]. Counts small and past the switch points of the algorithms
 * (RTM_MPI_ALLREDUCE_RING 64K, RTM_MPI_REDUCE_LARGE 256K, RTM_MPI_BCAST_LARGE
 * 512K), blocking (shared memory on one host) and nonblocking
 * (schedules). */
/* EXPECT that sets `bad` when it fails (one report per loop) */
#define EXPECT_B(_bad, _cond, ...) \
    do { \
        if (!(_cond)) { \
            (_bad) = 1; \
            EXPECT(_cond, __VA_ARGS__); \
        } \
    } while (0)

/* The blocking call, or the nonblocking one (on `req`) and its wait. */
#define BLOCKING_OR_NOT(_nb, _blocking, _nonblocking) \
    do { \
        if (_nb) { \
            CHECK_RC(_nonblocking); \
            CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE)); \
        } else { \
            CHECK_RC(_blocking); \
        } \
    } while (0)

static void test_negext(MPI_Comm comm)
{
    enum { BIG = 140000 };
    int p, r, ns[2] = { 5, BIG };
    MPI_Datatype down;
    MPI_Request req;

    th_case = "negext";
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    CHECK_RC(MPI_Type_create_resized(MPI_INT, 0, -(MPI_Aint)sizeof(int), &down));
    CHECK_RC(MPI_Type_commit(&down));
    int *in = malloc(BIG * sizeof(int)), *out = malloc(BIG * sizeof(int));
    int *all = malloc((size_t)p * BIG * sizeof(int));
    CHECK(in && out && all, "out of memory");
    int *tin = in + BIG - 1, *tout = out + BIG - 1;
    for (int k = 0; k < 2; k++) {
        int n = ns[k];

        for (int i = 0; i < n; i++)
            tin[-i] = i + r;
        for (int nb = 0; nb < 2; nb++) {
            /* sum over ranks of i + rank */
            memset(out, 0, BIG * sizeof(int));
            BLOCKING_OR_NOT(nb, MPI_Allreduce(tin, tout, n, down, MPI_SUM, comm),
                            MPI_Iallreduce(tin, tout, n, down, MPI_SUM, comm, &req));
            for (int i = 0, bad = 0; i < n && !bad; i++)
                EXPECT_B(bad, tout[-i] == p * i + p * (p - 1) / 2,
                         "Allreduce n %d nb %d element %d: %d", n, nb, i, tout[-i]);
            memset(out, 0, BIG * sizeof(int));
            BLOCKING_OR_NOT(nb, MPI_Reduce(tin, tout, n, down, MPI_SUM, p - 1, comm),
                            MPI_Ireduce(tin, tout, n, down, MPI_SUM, p - 1, comm, &req));
            for (int i = 0, bad = 0; r == p - 1 && i < n && !bad; i++)
                EXPECT_B(bad, tout[-i] == p * i + p * (p - 1) / 2,
                         "Reduce n %d nb %d element %d: %d", n, nb, i, tout[-i]);
            /* inclusive scan: sum over ranks 0..r */
            memset(out, 0, BIG * sizeof(int));
            BLOCKING_OR_NOT(nb, MPI_Scan(tin, tout, n, down, MPI_SUM, comm),
                            MPI_Iscan(tin, tout, n, down, MPI_SUM, comm, &req));
            for (int i = 0, bad = 0; i < n && !bad; i++)
                EXPECT_B(bad, tout[-i] == (r + 1) * i + r * (r + 1) / 2,
                         "Scan n %d nb %d element %d: %d", n, nb, i, tout[-i]);
            /* broadcast from the last rank */
            for (int i = 0; i < n; i++)
                tout[-i] = r == p - 1 ? 3 * i : -1;
            BLOCKING_OR_NOT(nb, MPI_Bcast(tout, n, down, p - 1, comm),
                            MPI_Ibcast(tout, n, down, p - 1, comm, &req));
            for (int i = 0, bad = 0; i < n && !bad; i++)
                EXPECT_B(bad, tout[-i] == 3 * i, "Bcast n %d nb %d element %d: %d", n, nb, i,
                         tout[-i]);
            /* reduce-scatter of p blocks of n / p */
            int m = n / p;
            memset(out, 0, BIG * sizeof(int));
            BLOCKING_OR_NOT(nb, MPI_Reduce_scatter_block(tin, tout, m, down, MPI_SUM, comm),
                            MPI_Ireduce_scatter_block(tin, tout, m, down, MPI_SUM, comm, &req));
            for (int i = 0, bad = 0; i < m && !bad; i++) {
                int e = r * m + i;

                EXPECT_B(bad, tout[-i] == p * e + p * (p - 1) / 2,
                         "Reduce_scatter_block n %d nb %d element %d: %d", n, nb, i,
                         tout[-i]);
            }
            /* allgather: m ints each, block j of the result at element j * m */
            int *tall = all + (size_t)p * m - 1;
            BLOCKING_OR_NOT(nb, MPI_Allgather(tin, m, down, tall, m, down, comm),
                            MPI_Iallgather(tin, m, down, tall, m, down, comm, &req));
            for (int j = 0, bad = 0; j < p && !bad; j++)
                for (int i = 0; i < m && !bad; i++)
                    EXPECT_B(bad, tall[-(j * m + i)] == i + j,
                             "Allgather n %d nb %d block %d element %d: %d", n, nb, j, i,
                             tall[-(j * m + i)]);
            /* gather to the last rank: the same blocks */
            memset(all, 0, (size_t)p * BIG * sizeof(int));
            BLOCKING_OR_NOT(nb, MPI_Gather(tin, m, down, tall, m, down, p - 1, comm),
                            MPI_Igather(tin, m, down, tall, m, down, p - 1, comm, &req));
            for (int j = 0, bad = 0; r == p - 1 && j < p && !bad; j++)
                for (int i = 0; i < m && !bad; i++)
                    EXPECT_B(bad, tall[-(j * m + i)] == i + j,
                             "Gather n %d nb %d block %d element %d: %d", n, nb, j, i,
                             tall[-(j * m + i)]);
            /* alltoall: block j of rank r's input (elements j * q..) goes to rank j */
            int q = m / p;
            memset(all, 0, (size_t)p * BIG * sizeof(int));
            BLOCKING_OR_NOT(nb, MPI_Alltoall(tin, q, down, tall, q, down, comm),
                            MPI_Ialltoall(tin, q, down, tall, q, down, comm, &req));
            for (int j = 0, bad = 0; j < p && !bad; j++)
                for (int i = 0; i < q && !bad; i++)
                    EXPECT_B(bad, tall[-(j * q + i)] == r * q + i + j,
                             "Alltoall n %d nb %d block %d element %d: %d", n, nb, j, i,
                             tall[-(j * q + i)]);
        }
    }
    free(all);
    free(out);
    free(in);
    MPI_Type_free(&down);
}

/* argv[1], when given, names the one part to run (everywhere, root,
 * neighbor, inter). */
int main(int argc, char **argv)
{
    static const struct { const char *name; void (*fn)(MPI_Comm); } parts[] = {
        { "everywhere", test_everywhere }, { "root", test_root },
        { "neighbor", test_neighbor }, { "inter", test_inter }, { "negext", test_negext },
    };
    MPI_Comm comm;

    mt_init(&argc, &argv);
    CHECK(th_size <= 64, "at most 64 ranks (the arrays here)");
    if (th_size >= 2) {
        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
            if (argc < 2 || !strcmp(argv[1], parts[i].name))
                parts[i].fn(comm);
        MPI_Comm_free(&comm);
    }
    return mt_finish("mpi_collovf");
}
