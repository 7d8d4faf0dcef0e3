/*
 * MPI_BOTTOM as the buffer of the "w" collectives (MPI 3.1 sections 5.8,
 * 7.6 and 4.1.5): with buf = MPI_BOTTOM the byte displacement of a block is
 * its absolute address (MPI_Get_address), so a NULL buffer with a non-zero
 * count is valid there as long as the block's displacement is not 0.
 *   - MPI_Neighbor_alltoallw and MPI_Ineighbor_alltoallw on a periodic 1-D
 *     Cartesian ring (one rank: both neighbours are the rank itself);
 *   - MPI_Alltoallw and MPI_Ialltoallw, whose displacements are ints: the
 *     buffers are placed on a page mapped below 2 GiB so that their
 *     addresses fit (skipped if that page cannot be mapped);
 *   - MPI_Alltoallw on an intercommunicator (even and odd ranks), same page;
 *   - ARGV[1] "reduce" (or "large"): MPI_Reduce, MPI_Ireduce and
 *     MPI_Allreduce of MPI_BOTTOM with a type whose data lies at an
 *     absolute address, the root in place: as one element of 1000 ints (the
 *     binomial tree), or ("large") as 70000 elements of one int each, past
 *     RTM_MPI_REDUCE_LARGE (reduce-scatter, then gather). The root's receive
 *     buffer is then NULL, which those algorithms once took for a failed
 *     scratch allocation: the root built no steps, returned its own input
 *     and left the others' messages unreceived (the large form hung). Runs
 *     of their own (without the fix the large one hangs rather than fails).
 *     Also under the sanitizers: scratch for such a type is addressed as
 *     (buffer - absolute address), which the binding computes in integers
 *     (rtmpi_addr), so UBSan's pointer-overflow has nothing to report (it
 *     did when that was pointer arithmetic);
 *   - MPI_BOTTOM with displacement 0 and data is still refused
 *     (MPI_ERR_BUFFER under MPI_ERRORS_RETURN).
 */
#define _GNU_SOURCE
#include "tests/mpi/mpitest.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

static int rank, size;

static void neighbor_case(void)
{
    MPI_Comm ring;
    int dims[1] = { size }, periods[1] = { 1 };
    int sbuf[2], rbuf[2], counts[2] = { 1, 1 };
    MPI_Aint sd[2], rd[2];
    MPI_Datatype types[2] = { MPI_INT, MPI_INT };
    MPI_Request req;

    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    for (int nb = 0; nb < 2; nb++) {
        for (int k = 0; k < 2; k++) {
            sbuf[k] = rank * 10 + k + nb * 1000;
            rbuf[k] = -1;
            MPI_Get_address(&sbuf[k], &sd[k]);
            MPI_Get_address(&rbuf[k], &rd[k]);
        }
        /* block 0 goes to the -1 neighbour, block 1 to the +1 neighbour */
        if (nb) {
            CHECK_RC(MPI_Ineighbor_alltoallw(MPI_BOTTOM, counts, sd, types, MPI_BOTTOM, counts,
                                             rd, types, ring, &req));
            CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            CHECK_RC(MPI_Neighbor_alltoallw(MPI_BOTTOM, counts, sd, types, MPI_BOTTOM, counts,
                                            rd, types, ring));
        }
        int left = (rank + size - 1) % size, right = (rank + 1) % size;
        EXPECT(rbuf[0] == left * 10 + 1 + nb * 1000, "neighbor%s: from left %d, want %d",
               nb ? " (nonblocking)" : "", rbuf[0], left * 10 + 1 + nb * 1000);
        EXPECT(rbuf[1] == right * 10 + 0 + nb * 1000, "neighbor%s: from right %d, want %d",
               nb ? " (nonblocking)" : "", rbuf[1], right * 10 + nb * 1000);
    }

    /* displacement 0 with MPI_BOTTOM is a NULL block: refused at every rank */
    MPI_Aint zero[2] = { 0, 0 };
    MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
    int rc = MPI_Neighbor_alltoallw(MPI_BOTTOM, counts, zero, types, rbuf, counts, rd, types,
                                    ring);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    EXPECT(cls == MPI_ERR_BUFFER, "MPI_BOTTOM at displacement 0: class %d, want MPI_ERR_BUFFER",
           cls);
    MPI_Comm_free(&ring);
}

/* Alltoallw over comm (intra or inter) of 1 int per peer, every block at
 * its absolute address on the low page `low`. */
static void alltoallw_case(MPI_Comm comm, int *low, int nb, const char *what)
{
    int inter = 0, n, me;

    MPI_Comm_test_inter(comm, &inter);
    if (inter)
        MPI_Comm_remote_size(comm, &n);
    else
        MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    int *sbuf = low, *rbuf = low + n;
    int *counts = malloc(sizeof(int) * (size_t)n), *sd = malloc(sizeof(int) * (size_t)n);
    int *rd = malloc(sizeof(int) * (size_t)n);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)n);
    MPI_Request req;

    for (int i = 0; i < n; i++) {
        MPI_Aint a, b;

        sbuf[i] = rank * 100 + i;
        rbuf[i] = -1;
        MPI_Get_address(&sbuf[i], &a);
        MPI_Get_address(&rbuf[i], &b);
        sd[i] = (int)a;
        rd[i] = (int)b;
        counts[i] = 1;
        types[i] = MPI_INT;
    }
    if (nb) {
        CHECK_RC(MPI_Ialltoallw(MPI_BOTTOM, counts, sd, types, MPI_BOTTOM, counts, rd, types,
                                comm, &req));
        CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
        CHECK_RC(MPI_Alltoallw(MPI_BOTTOM, counts, sd, types, MPI_BOTTOM, counts, rd, types,
                               comm));
    }
    /* block i came from peer i (a rank of the remote group if inter), which
     * sent its block `me`; world ranks: inter groups are even / odd ranks */
    for (int i = 0; i < n; i++) {
        int from = inter ? 2 * i + (rank % 2 == 0) : i;

        EXPECT(rbuf[i] == from * 100 + me, "%s: block %d is %d, want %d", what, i, rbuf[i],
               from * 100 + me);
    }
    free(counts);
    free(sd);
    free(rd);
    free(types);
}

/* Reduce of MPI_BOTTOM at every root (in place there), and Allreduce: n
 * ints at their absolute address, as `count` elements of type t. */
static void reduce_bottom(int *a, int n, MPI_Datatype t, int count, const char *what)
{
    for (int root = 0; root < size; root++) {
        for (int nb = 0; nb < 2; nb++) {
            MPI_Request req;

            for (int i = 0; i < n; i++)
                a[i] = rank * 3 + i;
            void *sbuf = rank == root ? MPI_IN_PLACE : MPI_BOTTOM;
            if (nb) {
                CHECK_RC(MPI_Ireduce(sbuf, MPI_BOTTOM, count, t, MPI_SUM, root, MPI_COMM_WORLD,
                                     &req));
                CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
            } else {
                CHECK_RC(MPI_Reduce(sbuf, MPI_BOTTOM, count, t, MPI_SUM, root, MPI_COMM_WORLD));
            }
            int bad = 0, first = -1;
            for (int i = 0; rank == root && i < n; i++)
                if (a[i] != 3 * size * (size - 1) / 2 + size * i && !bad++)
                    first = i;
            EXPECT(bad == 0, "%s %s to root %d: %d of %d ints wrong, first %d is %d", what,
                   nb ? "Ireduce" : "Reduce", root, bad, n, first, first < 0 ? 0 : a[first]);
        }
    }
    for (int i = 0; i < n; i++)
        a[i] = rank * 3 + i;
    CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, MPI_BOTTOM, count, t, MPI_SUM, MPI_COMM_WORLD));
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += a[i] != 3 * size * (size - 1) / 2 + size * i;
    EXPECT(bad == 0, "%s Allreduce: %d of %d ints wrong", what, bad, n);
}

static void reduce_case(int large)
{
    int n = 70000;   /* 280 KB: past RTM_MPI_REDUCE_LARGE (256K) as n elements */
    int *a = calloc((size_t)n, sizeof(int));
    MPI_Aint addr;
    MPI_Datatype block, one, elem;
    int bl = 1000, one_int = 1;

    CHECK(a != NULL, "calloc");
    MPI_Get_address(a, &addr);
    /* 1000 ints as one element, and one int as an element of extent 4 */
    CHECK_RC(MPI_Type_create_hindexed(1, &bl, &addr, MPI_INT, &block));
    CHECK_RC(MPI_Type_create_hindexed(1, &one_int, &addr, MPI_INT, &one));
    CHECK_RC(MPI_Type_create_resized(one, addr, (MPI_Aint)sizeof(int), &elem));
    MPI_Type_commit(&block);
    MPI_Type_commit(&elem);
    if (large)
        reduce_bottom(a, n, elem, n, "70000 elements of 1 int");
    else
        reduce_bottom(a, 1000, block, 1, "1 element of 1000 ints");
    MPI_Type_free(&block);
    MPI_Type_free(&one);
    MPI_Type_free(&elem);
    free(a);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    rank = th_rank;
    size = th_size;
    if (argc > 1 && (strcmp(argv[1], "reduce") == 0 || strcmp(argv[1], "large") == 0)) {
        reduce_case(strcmp(argv[1], "large") == 0);
        return mt_finish("mpi_bottom reduce");
    }
    neighbor_case();

    /* a page whose addresses fit an int, for the int displacements */
    long pg = sysconf(_SC_PAGESIZE);
    void *want = (void *)(uintptr_t)0x10000000;
    int *low = mmap(want, (size_t)pg, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    int ok = low != MAP_FAILED && low == want, all = 0;

    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (all && (size_t)(4 * size) * sizeof(int) <= (size_t)pg) {
        alltoallw_case(MPI_COMM_WORLD, low, 0, "alltoallw");
        alltoallw_case(MPI_COMM_WORLD, low, 1, "ialltoallw");
        if (size >= 2) {
            MPI_Comm half, inter;

            MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
            CHECK_RC(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter));
            alltoallw_case(inter, low, 0, "alltoallw (inter)");
            MPI_Comm_free(&inter);
            MPI_Comm_free(&half);
        }
    } else if (rank == 0) {
        printf("mpi_bottom: no page below 2 GiB, Alltoallw cases skipped\n");
    }
    if (ok)
        munmap(low, (size_t)pg);
    return mt_finish("mpi_bottom");
}
