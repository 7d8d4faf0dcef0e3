/*
 * Passive target one-sided communication (issue 15, steps 2-3): every rank
 * fetch-and-adds one counter on rank 0 1000 times under MPI_Win_lock_all
 * (the total and the set of fetched values are exact), compare-and-swap
 * takes turns, exclusive locks serialize read-modify-write, flush makes
 * puts visible, Get_accumulate with MPI_NO_OP reads, and the
 * request-based Rput/Rget/Raccumulate/Rget_accumulate complete. The target
 * is served while it waits in MPI_Barrier.
 */
#include "tests/mpi/mpitest.h"

#include <stdint.h>

#define ITERS 1000

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Win win;
    long long *base;

    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* [0] counter, [1] CAS turn, [2] exclusive RMW, [3..3+size) flush slots,
     * [8+...) request-based area */
    int nslots = 16 + 4 * size;
    CHECK_RC(MPI_Win_allocate(nslots * (MPI_Aint)sizeof(long long), sizeof(long long),
                              MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    for (int i = 0; i < nslots; i++)
        base[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    /* Fetch-and-add: every fetched value is distinct, the total exact. */
    long long one = 1, old = -1;
    long long *seen = calloc(ITERS, sizeof(*seen));
    CHECK_RC(MPI_Win_lock_all(0, win));
    for (int i = 0; i < ITERS; i++) {
        CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 0, 0, MPI_SUM, win));
        CHECK_RC(MPI_Win_flush(0, win));
        seen[i] = old;
    }
    CHECK_RC(MPI_Win_unlock_all(win));
    int mono = 1;
    for (int i = 1; i < ITERS; i++)
        mono &= seen[i] > seen[i - 1];
    EXPECT(mono, "the values one rank fetched do not increase");
    long long total = 0, sum = 0, want = 0;
    for (int i = 0; i < ITERS; i++)
        sum += seen[i];
    MPI_Allreduce(&sum, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    long long n = (long long)size * ITERS;
    want = n * (n - 1) / 2;   /* the fetched values are 0..n-1, once each */
    EXPECT(total == want, "sum of fetched values %lld, want %lld", total, want);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        EXPECT(base[0] == n, "counter %lld, want %lld", base[0], n);

    /* Compare-and-swap: rank r waits for turn r and passes it on. */
    CHECK_RC(MPI_Win_lock_all(0, win));
    long long mine = rank, next = rank + 1, got = -1;
    do {
        CHECK_RC(MPI_Compare_and_swap(&next, &mine, &got, MPI_LONG_LONG, 0, 1, win));
        CHECK_RC(MPI_Win_flush(0, win));
    } while (got != mine);
    /* Get_accumulate with MPI_NO_OP reads atomically. */
    long long turn = -1, dummy = 0;
    CHECK_RC(MPI_Get_accumulate(&dummy, 1, MPI_LONG_LONG, &turn, 1, MPI_LONG_LONG, 0, 1, 1,
                                MPI_LONG_LONG, MPI_NO_OP, win));
    CHECK_RC(MPI_Win_flush_local(0, win));
    EXPECT(turn >= rank + 1, "turn %lld after my swap (rank %d)", turn, rank);
    CHECK_RC(MPI_Win_unlock_all(win));

    /* Exclusive locks: a get-modify-put is not interleaved. */
    for (int i = 0; i < 50; i++) {
        long long v = -1;

        CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CHECK_RC(MPI_Get(&v, 1, MPI_LONG_LONG, 0, 2, 1, MPI_LONG_LONG, win));
        CHECK_RC(MPI_Win_flush(0, win));
        v += 1;
        CHECK_RC(MPI_Put(&v, 1, MPI_LONG_LONG, 0, 2, 1, MPI_LONG_LONG, win));
        CHECK_RC(MPI_Win_unlock(0, win));
    }
    /* Puts to every rank's slot under shared locks, flushed, then read
     * back by the next rank. */
    for (int t = 0; t < size; t++) {
        long long v = 1000 * rank + t;

        CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
        CHECK_RC(MPI_Put(&v, 1, MPI_LONG_LONG, t, 3 + rank, 1, MPI_LONG_LONG, win));
        CHECK_RC(MPI_Win_flush(t, win));
        CHECK_RC(MPI_Win_unlock(t, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);   /* the target serves while in here */
    if (rank == 0)
        EXPECT(base[1] == size && base[2] == 50LL * size, "turn %lld, exclusive count %lld",
               base[1], base[2]);
    int bad = 0;
    for (int r = 0; r < size; r++)
        bad += base[3 + r] != 1000LL * r + rank;
    EXPECT(bad == 0, "%d flushed puts missing", bad);

    /* Request-based operations to the next rank's area. */
    int nxt = (rank + 1) % size, area = 3 + size;
    long long vals[4] = { rank, rank + 1, rank + 2, rank + 3 }, back[4] = { 0 }, acc = 5,
              fetched[4] = { -1, -1, -1, -1 };
    MPI_Request rq[4];
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, nxt, 0, win));
    CHECK_RC(MPI_Rput(vals, 4, MPI_LONG_LONG, nxt, area, 4, MPI_LONG_LONG, win, &rq[0]));
    CHECK_RC(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Win_flush(nxt, win));
    CHECK_RC(MPI_Rget(back, 4, MPI_LONG_LONG, nxt, area, 4, MPI_LONG_LONG, win, &rq[1]));
    CHECK_RC(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));   /* before the get_accumulate below */
    CHECK_RC(MPI_Raccumulate(&acc, 1, MPI_LONG_LONG, nxt, area + 4, 1, MPI_LONG_LONG, MPI_SUM,
                             win, &rq[2]));
    CHECK_RC(MPI_Rget_accumulate(vals, 4, MPI_LONG_LONG, fetched, 4, MPI_LONG_LONG, nxt, area,
                                 4, MPI_LONG_LONG, MPI_SUM, win, &rq[3]));
    CHECK_RC(MPI_Waitall(2, &rq[2], MPI_STATUSES_IGNORE));
    CHECK_RC(MPI_Win_unlock(nxt, win));
    bad = 0;
    for (int i = 0; i < 4; i++)
        bad += back[i] != rank + i || fetched[i] != rank + i;
    EXPECT(bad == 0, "request-based get/get_accumulate: %d wrong", bad);
    MPI_Barrier(MPI_COMM_WORLD);
    int prv = (rank + size - 1) % size;
    bad = 0;
    for (int i = 0; i < 4; i++)
        bad += base[area + i] != 2LL * (prv + i);
    bad += base[area + 4] != 5;
    EXPECT(bad == 0, "request-based put/accumulate at the target: %d wrong", bad);

    /* MAXLOC on a pair type with padding (MPI_DOUBLE_INT) to rank 0. */
    struct { double v; int i; } pr = { (double)(rank % 3), rank }, *pw;
    int pidx = (area + 7) & ~1;   /* 16-byte aligned in the window */
    pw = (void *)&base[pidx];
    if (rank == 0) {
        pw->v = -1.0;
        pw->i = -1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Win_lock_all(0, win));
    CHECK_RC(MPI_Accumulate(&pr, 1, MPI_DOUBLE_INT, 0, pidx, 1, MPI_DOUBLE_INT, MPI_MAXLOC,
                            win));
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        double mv = size > 2 ? 2.0 : size - 1.0;
        int mi = size > 2 ? 2 : size - 1;
        EXPECT(pw->v == mv && pw->i == mi, "MAXLOC (%g, %d), want (%g, %d)", pw->v, pw->i,
               mv, mi);
    }

    CHECK_RC(MPI_Win_free(&win));
    free(seen);
    return mt_finish("rma_passive");
}
