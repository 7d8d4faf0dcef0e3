/*
 * Passive-target locks with origins of every kind (issue 15): on an
 * MPI_Win_allocate window that spans hosts (tests/multihost/rma.sh) a
 * target has origins on its own host (direct load/store into the host
 * segment) and on other hosts (messages or RDMA), all under one lock.
 *
 *   exclusive   every rank, ITERS times, locks rank t's window
 *               exclusively and does a non-atomic read-modify-write of one
 *               counter (Get, flush, +1, Put, unlock), for each target t:
 *               the final counts are exact (size * ITERS) only if the
 *               exclusive lock excludes origins of every kind
 *   shared      a shared lock is granted while another shared one is held,
 *               even when an exclusive request waits at the target (MPI 3.1
 *               §11.5.3: shared locks may be held concurrently; the holder
 *               here waits for the second shared locker, so a lock queue
 *               that keeps the second behind the waiting exclusive hangs)
 *
 * argv[1]: ITERS (default 100).
 */
#include "tests/mpi/mpitest.h"

#include <stdlib.h>

static void rmw_exclusive(MPI_Win win, int t)
{
    long long v = -1;

    CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    CHECK_RC(MPI_Get(&v, 1, MPI_LONG_LONG, t, 0, 1, MPI_LONG_LONG, win));
    CHECK_RC(MPI_Win_flush(t, win));
    v++;
    CHECK_RC(MPI_Put(&v, 1, MPI_LONG_LONG, t, 0, 1, MPI_LONG_LONG, win));
    CHECK_RC(MPI_Win_unlock(t, win));
}

/* Rank h holds a shared lock on target 0 and waits for rank s, which takes
 * its own shared lock only after rank x asked for an exclusive one. */
static void shared_while_exclusive_waits(MPI_Win win, int rank, int size)
{
    int h = 1, x = 2, s = size > 3 ? 3 : 0, tok = 0;

    if (size < 3)
        return;
    if (rank == h) {
        CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        MPI_Send(&tok, 1, MPI_INT, x, 1, MPI_COMM_WORLD);
        MPI_Recv(&tok, 1, MPI_INT, s, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_RC(MPI_Win_unlock(0, win));
    } else if (rank == x) {
        MPI_Recv(&tok, 1, MPI_INT, h, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&tok, 1, MPI_INT, s, 2, MPI_COMM_WORLD);
        CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CHECK_RC(MPI_Win_unlock(0, win));
    } else if (rank == s) {
        MPI_Recv(&tok, 1, MPI_INT, x, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        MPI_Send(&tok, 1, MPI_INT, h, 3, MPI_COMM_WORLD);
        CHECK_RC(MPI_Win_unlock(0, win));
    }
}

int main(int argc, char **argv)
{
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 100;
    MPI_Win win;
    long long *base;

    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_RC(MPI_Win_allocate((MPI_Aint)sizeof(long long), sizeof(long long), MPI_INFO_NULL,
                              MPI_COMM_WORLD, &base, &win));
    *base = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    /* every rank increments every target's counter, targets in turn from
     * a different start per rank so that targets are contended at once */
    for (int i = 0; i < iters; i++)
        for (int k = 0; k < size; k++)
            rmw_exclusive(win, (rank + k) % size);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    long long mine = *base;
    CHECK_RC(MPI_Win_unlock(rank, win));
    EXPECT(mine == (long long)size * iters, "rank %d's counter is %lld after %d exclusive "
           "read-modify-writes by each of %d ranks, want %lld", rank, mine, iters, size,
           (long long)size * iters);

    /* a barrier between rounds: no shared lock of the next round may come
     * before the waiting exclusive one is granted (a lock that preferred
     * shared requests could keep it back forever, which would be a hang
     * of the program's own making) */
    for (int i = 0; i < iters; i++) {
        shared_while_exclusive_waits(win, rank, size);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    CHECK_RC(MPI_Win_free(&win));
    return mt_finish("rma_locks");
}
