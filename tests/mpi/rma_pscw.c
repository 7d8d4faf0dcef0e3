/*
 * Generalized active target synchronization (post/start/complete/wait,
 * Win_test) and derived datatypes on the origin and the target side
 * (issue 15, step 3): a strided target vector, an indexed origin, small
 * (inline) and large (separate message) run lists and data, Get into a
 * derived origin type, Accumulate through a target vector; then
 * MPI_Win_allocate_shared with load/store among the ranks and
 * MPI_Win_create_dynamic with attach/detach (step 4).
 */
#include "tests/mpi/mpitest.h"

#include <stdint.h>

#define LEN 4096   /* doubles per rank's window */

static void test_pscw(int rank, int size)
{
    double *base;
    MPI_Win win;
    MPI_Group world, peers;
    int nxt = (rank + 1) % size, prv = (rank + size - 1) % size;

    CHECK_RC(MPI_Win_allocate(LEN * (MPI_Aint)sizeof(double), sizeof(double), MPI_INFO_NULL,
                              MPI_COMM_WORLD, &base, &win));
    for (int i = 0; i < LEN; i++)
        base[i] = -1.0;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ranks2[2] = { prv, nxt };
    MPI_Group_incl(world, prv == nxt ? 1 : 2, prv == nxt ? ranks2 + 1 : ranks2, &peers);

    /* Every-other element of the target (a vector type), from an indexed
     * origin (its even elements). */
    MPI_Datatype tvec, oidx, tvec_big;
    MPI_Type_vector(16, 1, 2, MPI_DOUBLE, &tvec);
    MPI_Type_commit(&tvec);
    int blens[16], displs[16];
    for (int i = 0; i < 16; i++) {
        blens[i] = 1;
        displs[i] = 2 * i;
    }
    MPI_Type_indexed(16, blens, displs, MPI_DOUBLE, &oidx);
    MPI_Type_commit(&oidx);
    /* 1024 runs: its run list does not fit in a header. */
    MPI_Type_vector(1024, 1, 3, MPI_DOUBLE, &tvec_big);
    MPI_Type_commit(&tvec_big);
    double src[32], bigsrc[1024];
    for (int i = 0; i < 32; i++)
        src[i] = rank * 100.0 + i;
    for (int i = 0; i < 1024; i++)
        bigsrc[i] = rank * 10000.0 + i;

    /* Epoch 1: nxt and prv are both target and origin. */
    CHECK_RC(MPI_Win_post(peers, 0, win));
    CHECK_RC(MPI_Win_start(peers, 0, win));
    CHECK_RC(MPI_Put(src, 1, oidx, nxt, 0, 1, tvec, win));           /* [0,32) even */
    CHECK_RC(MPI_Put(bigsrc, 1024, MPI_DOUBLE, nxt, 100, 1, tvec_big, win));   /* [100,3172) */
    CHECK_RC(MPI_Accumulate(src, 16, MPI_DOUBLE, nxt, 1, 1, tvec, MPI_REPLACE, win)); /* odd */
    CHECK_RC(MPI_Win_complete(win));
    int flag = 0;
    while (!flag)
        CHECK_RC(MPI_Win_test(win, &flag));
    int bad = 0;
    for (int i = 0; i < 16; i++) {
        bad += base[2 * i] != prv * 100.0 + 2 * i;
        bad += base[2 * i + 1] != prv * 100.0 + i;
    }
    for (int i = 0; i < 1024; i++) {
        bad += base[100 + 3 * i] != prv * 10000.0 + i;
        bad += base[101 + 3 * i] != -1.0;
    }
    EXPECT(bad == 0, "%d wrong elements after the PSCW epoch of puts", bad);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Epoch 2: get back through derived types on both sides; accumulate
     * into a strided target. */
    double back[32], bigback[1024];
    for (int i = 0; i < 32; i++)
        back[i] = 0.0;
    CHECK_RC(MPI_Win_post(peers, MPI_MODE_NOSTORE, win));
    CHECK_RC(MPI_Win_start(peers, 0, win));
    CHECK_RC(MPI_Get(back, 1, oidx, nxt, 0, 1, tvec, win));
    CHECK_RC(MPI_Get(bigback, 1024, MPI_DOUBLE, nxt, 100, 1, tvec_big, win));
    CHECK_RC(MPI_Win_complete(win));
    CHECK_RC(MPI_Win_wait(win));
    bad = 0;
    for (int i = 0; i < 16; i++)
        bad += back[2 * i] != rank * 100.0 + 2 * i || back[2 * i + 1] != 0.0;
    for (int i = 0; i < 1024; i++)
        bad += bigback[i] != rank * 10000.0 + i;
    EXPECT(bad == 0, "%d wrong elements got through derived types", bad);

    /* Epoch 3 (fence): a sum through the big vector from every rank to 0. */
    CHECK_RC(MPI_Win_fence(0, win));
    double ones[1024];
    for (int i = 0; i < 1024; i++)
        ones[i] = 1.0;
    CHECK_RC(MPI_Accumulate(ones, 1024, MPI_DOUBLE, 0, 101, 1, tvec_big, MPI_SUM, win));
    CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    if (rank == 0) {
        bad = 0;
        for (int i = 0; i < 1024; i++)
            bad += base[101 + 3 * i] != -1.0 + size;
        EXPECT(bad == 0, "%d wrong sums through a strided target", bad);
    }
    MPI_Type_free(&tvec);
    MPI_Type_free(&oidx);
    MPI_Type_free(&tvec_big);
    MPI_Group_free(&peers);
    MPI_Group_free(&world);
    CHECK_RC(MPI_Win_free(&win));
}

static void test_shared(int rank, int size)
{
    MPI_Win win;
    int *mine, *peer;
    MPI_Aint sz;
    int du;

    CHECK_RC(MPI_Win_allocate_shared((rank + 1) * 16 * (MPI_Aint)sizeof(int), sizeof(int),
                                     MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win));
    void *v;
    int flag;
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &v, &flag));
    EXPECT(flag && *(int *)v == MPI_WIN_FLAVOR_SHARED, "flavor");
    CHECK_RC(MPI_Win_lock_all(0, win));
    for (int i = 0; i < (rank + 1) * 16; i++)
        mine[i] = rank * 1000 + i;
    CHECK_RC(MPI_Win_sync(win));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Win_sync(win));
    int bad = 0;
    for (int r = 0; r < size; r++) {
        CHECK_RC(MPI_Win_shared_query(win, r, &sz, &du, &peer));
        bad += sz != (r + 1) * 16 * (MPI_Aint)sizeof(int) || du != (int)sizeof(int);
        for (int i = 0; i < (r + 1) * 16; i++)
            bad += peer[i] != r * 1000 + i;   /* a load of the peer's store */
    }
    EXPECT(bad == 0, "%d wrong loads from shared memory", bad);
    /* The parts are contiguous: rank r's follows rank r-1's. */
    if (rank > 0) {
        int *prev;
        CHECK_RC(MPI_Win_shared_query(win, rank - 1, &sz, &du, &prev));
        EXPECT(prev + rank * 16 == mine, "rank %d's part does not follow rank %d's", rank,
               rank - 1);
    }
    /* RMA calls work on a shared window too (once everyone has read). */
    MPI_Barrier(MPI_COMM_WORLD);
    int x = 7;
    CHECK_RC(MPI_Accumulate(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Win_shared_query(win, 0, &sz, &du, &peer));
    EXPECT(peer[0] == 7 * size, "accumulate on a shared window: %d", peer[0]);
    /* Put (a strided target) and Get between the parts, in a fence epoch. */
    int nxt = (rank + 1) % size, vals[4] = { rank, rank + 10, rank + 20, rank + 30 };
    int back[4] = { 0 };
    MPI_Datatype every2;
    MPI_Type_vector(4, 1, 2, MPI_INT, &every2);
    MPI_Type_commit(&every2);
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_Put(vals, 4, MPI_INT, nxt, 1, 1, every2, win));   /* 1, 3, 5, 7 */
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_Get(back, 4, MPI_INT, nxt, 1, 1, every2, win));
    CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    int prv = (rank + size - 1) % size;
    bad = 0;
    for (int i = 0; i < 4; i++)
        bad += mine[1 + 2 * i] != prv + 10 * i || back[i] != vals[i] ||
               mine[2 * i] != (i == 0 && rank == 0 ? 7 * size : rank * 1000 + 2 * i);
    EXPECT(bad == 0, "%d wrong elements put/got through a shared window", bad);
    MPI_Type_free(&every2);
    CHECK_RC(MPI_Win_free(&win));
}

static void test_dynamic(int rank, int size)
{
    MPI_Win win;
    int *mem = calloc(64, sizeof(int));
    MPI_Aint addr, *addrs = malloc((size_t)size * sizeof(*addrs));

    CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_RC(MPI_Win_attach(win, mem, 64 * sizeof(int)));
    MPI_Get_address(mem, &addr);
    MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    int nxt = (rank + 1) % size, prv = (rank + size - 1) % size;
    int vals[8], back[8] = { 0 };
    for (int i = 0; i < 8; i++)
        vals[i] = rank * 10 + i;
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_Put(vals, 8, MPI_INT, nxt, MPI_Aint_add(addrs[nxt], 8 * sizeof(int)), 8,
                     MPI_INT, win));
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_Get(back, 8, MPI_INT, prv, MPI_Aint_add(addrs[prv], 8 * sizeof(int)), 8,
                     MPI_INT, win));
    CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    int bad = 0;
    for (int i = 0; i < 8; i++)
        bad += mem[8 + i] != prv * 10 + i || back[i] != ((prv + size - 1) % size) * 10 + i;
    EXPECT(bad == 0, "%d wrong elements through a dynamic window", bad);
    CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    /* An address outside the attached memory: the target reports it at
     * the unlock and at the fence. */
    MPI_Aint outside = MPI_Aint_add(addrs[nxt], 64 * sizeof(int));
    int c = -1, rc;
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, nxt, 0, win));
    CHECK_RC(MPI_Put(vals, 1, MPI_INT, nxt, outside, 1, MPI_INT, win));
    rc = MPI_Win_unlock(nxt, win);
    MPI_Error_class(rc, &c);
    EXPECT(c == MPI_ERR_RMA_RANGE, "unlock after a put outside the window: class %d", c);
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_Put(vals, 1, MPI_INT, nxt, outside, 1, MPI_INT, win));
    rc = MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Error_class(rc, &c);
    EXPECT(c == MPI_ERR_RMA_RANGE, "fence after a put outside the window: class %d", c);
    rc = MPI_Win_detach(win, mem + 1);
    MPI_Error_class(rc, &c);
    EXPECT(c == MPI_ERR_RMA_ATTACH, "detach of memory never attached: class %d", c);
    CHECK_RC(MPI_Win_detach(win, mem));
    CHECK_RC(MPI_Win_free(&win));
    free(mem);
    free(addrs);
}

int main(int argc, char **argv)
{
    int rank, size;

    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_pscw(rank, size);
    test_shared(rank, size);
    test_dynamic(rank, size);
    return mt_finish("rma_pscw");
}
