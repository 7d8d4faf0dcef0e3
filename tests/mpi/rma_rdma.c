/*
 * MPI one-sided operations over RDMA (issue 15): on a window whose ranks
 * reach each other by verbs, MPI_Put and MPI_Get of one byte range go as
 * one RDMA write or read each, and every synchronization completes them at
 * the target. Checked by data and by the transport's own count of one-sided
 * work requests (rtm_rma_wr_count), in the same run:
 *
 * 1. Put and Get in fence, PSCW, lock (exclusive and shared), lock_all +
 *    flush and flush_local epochs, a strided target (one work request per
 *    block), Rput and Rget (complete at their Wait/Test), on MPI_Win_create and MPI_Win_allocate
 *    windows, with small ranges (one work request per operation) and one
 *    of 256 KiB (data only); each rank's count of work requests grows by
 *    exactly its small Puts and Gets (RMA_RDMA_EXPECT=rdma), its Gets only
 *    (=read: XRC exposes regions read only, Puts go as messages), or not at
 *    all (=none, or a transport that counts none).
 * 2. The same operations on a window made with info rtmsg_win_rdma=false:
 *    no work request at all (every operation is a message), same data.
 * 3. Narrowed rights: a window where the targets give rtmsg_win_rdma=read;
 *    Gets are RDMA reads, Puts messages (least privilege: no write right).
 * 4. Atomicity under contention on the same windows: every rank (rank 0,
 *    the target, too) MPI_Fetch_and_op(MPI_SUM)s one counter at rank 0 and
 *    Accumulates into another while others Put and Get next to it, and
 *    does MPI_MAX, MPI_REPLACE and compare-and-swap increments on three
 *    more; the totals are exact, the fetched values distinct, the values
 *    REPLACE swapped out a permutation of those swapped in.
 * 5. The cost of an atomic: on an HCA-atomic window (RMA_RDMA_EXPECT_ATOMIC=
 *    hca: every rank reaches every rank, itself included, by verbs with
 *    atomics) each MPI_Fetch_and_op(MPI_SUM, int64), MPI_Compare_and_swap
 *    and MPI_Fetch_and_op(MPI_NO_OP) is exactly one work request (an RDMA
 *    atomic), to a peer and to this rank itself; otherwise (=none) none.
 * 5b. Multi-element accumulates (more elements than a compare-and-swap
 *    batch) from every rank into rank 0: MPI_MAX of int64, MPI_SUM of
 *    doubles, Get_accumulate(MPI_REPLACE): exact maxima and sums, and per
 *    element the values swapped out plus the one left are 0 and every
 *    rank's value, each once.
 * 6. The cost of a passive-target lock on such a window: MPI_Win_lock
 *    (exclusive or shared) and MPI_Win_unlock are one RDMA atomic each on
 *    the target's lock word (no message: the target's CPU takes no part),
 *    MPI_Win_lock_all and unlock_all one per rank; none with messages.
 */
#include "mpitest.h"

#include <rtmsg.h>
#include <stdint.h>

#define SMALL 16                     /* int64 per small operation */
#define BIG (256 * 1024 / 8)         /* int64 of the big one */
#define FOP_ITERS 200

static int rank, size;
static const char *expect = "none", *expect_alloc, *expect_atomic = "none";
static int64_t want_wrs, counted = 1;

static uint64_t wrs(void)
{
    uint64_t n = 0;

    if (size > 1 && rtm_rma_wr_count(RTM_COMM_WORLD, (rank + 1) % size, &n) != RTM_OK)
        counted = 0;   /* this transport counts no one-sided work requests */
    return n;
}

static int64_t val(int src, int slot, int i)
{
    return ((int64_t)src << 40) | ((int64_t)slot << 20) | i;
}

/* How many work requests `puts` small Puts and `gets` small Gets make on a
 * window of this kind ("rdma", "read", "none"). */
static int64_t cost(const char *kind, int puts, int gets)
{
    if (!strcmp(kind, "rdma"))
        return puts + gets;
    if (!strcmp(kind, "read"))
        return gets;
    return 0;
}

static MPI_Win make_win(int alloc, MPI_Info info, int64_t **base, MPI_Aint n)
{
    MPI_Win win;

    if (alloc) {
        CHECK_RC(MPI_Win_allocate(n * 8, 8, info, MPI_COMM_WORLD, base, &win));
    } else {
        *base = calloc((size_t)n, 8);
        CHECK(*base != NULL, "out of memory");
        CHECK_RC(MPI_Win_create(*base, n * 8, 8, info, MPI_COMM_WORLD, &win));
    }
    return win;
}

static void free_win(int alloc, MPI_Win *win, int64_t *base)
{
    CHECK_RC(MPI_Win_free(win));
    if (!alloc)
        free(base);
}

/* Phase 1 (and 2, 3 with other info): the epochs, data checked. `kind`
 * says what the counts must be. Window layout: SMALL slots per source rank
 * for each epoch kind, then BIG. */
static void epochs(int alloc, MPI_Info info, const char *kind, const char *label)
{
    enum { S_FENCE, S_PSCW, S_EXCL, S_ALL, S_VEC, S_REQ, S_NSLOT };
    MPI_Aint n = (MPI_Aint)size * S_NSLOT * SMALL + BIG;
    int64_t *base, *buf = malloc((size_t)BIG * 8), got[SMALL];
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int puts = 0, gets = 0;
    MPI_Group wg, one;
    CHECK(buf != NULL, "out of memory");

    MPI_Win win = make_win(alloc, info, &base, n);
    uint64_t w0 = wrs(), lockw = 0;
    /* the lock word's atomics of a lock or unlock (HCA locks: phase 6
     * counts them; here a contended lock's reads would make them vary) */
#define LOCKCALL(_call) do { uint64_t b_ = wrs(); CHECK_RC(_call); lockw += wrs() - b_; } while (0)
#define SLOT(_src, _s) ((MPI_Aint)((_s) * size + (_src)) * SMALL)
    /* fence: a Put to next, then a Get back of it after the fence */
    for (int i = 0; i < SMALL; i++)
        buf[i] = val(rank, S_FENCE, i);
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_Put(buf, SMALL, MPI_INT64_T, next, SLOT(rank, S_FENCE), SMALL, MPI_INT64_T,
                     win));
    puts++;
    CHECK_RC(MPI_Win_fence(0, win));
    for (int i = 0; i < SMALL; i++)
        EXPECT(base[SLOT(prev, S_FENCE) + i] == val(prev, S_FENCE, i),
               "%s fence: [%d] = %lld from rank %d", label, i,
               (long long)base[SLOT(prev, S_FENCE) + i], prev);
    CHECK_RC(MPI_Get(got, SMALL, MPI_INT64_T, next, SLOT(rank, S_FENCE), SMALL, MPI_INT64_T,
                     win));
    gets++;
    CHECK_RC(MPI_Win_fence(0, win));
    for (int i = 0; i < SMALL; i++)
        EXPECT(got[i] == val(rank, S_FENCE, i), "%s fence get: [%d] = %lld", label, i,
               (long long)got[i]);

    /* PSCW: next exposes to this rank, which puts; complete -> wait */
    MPI_Win_get_group(win, &wg);
    MPI_Group_incl(wg, 1, &prev, &one);
    CHECK_RC(MPI_Win_post(one, 0, win));
    MPI_Group_free(&one);
    MPI_Group_incl(wg, 1, &next, &one);
    CHECK_RC(MPI_Win_start(one, 0, win));
    MPI_Group_free(&one);
    for (int i = 0; i < SMALL; i++)
        buf[i] = val(rank, S_PSCW, i);
    CHECK_RC(MPI_Put(buf, SMALL, MPI_INT64_T, next, SLOT(rank, S_PSCW), SMALL, MPI_INT64_T,
                     win));
    puts++;
    CHECK_RC(MPI_Win_complete(win));
    CHECK_RC(MPI_Win_wait(win));
    for (int i = 0; i < SMALL; i++)
        EXPECT(base[SLOT(prev, S_PSCW) + i] == val(prev, S_PSCW, i),
               "%s PSCW: [%d] = %lld from rank %d", label, i,
               (long long)base[SLOT(prev, S_PSCW) + i], prev);
    MPI_Group_free(&wg);

    /* exclusive lock: Put, unlock; shared lock: Get it back */
    for (int i = 0; i < SMALL; i++)
        buf[i] = val(rank, S_EXCL, i);
    LOCKCALL(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win));
    CHECK_RC(MPI_Put(buf, SMALL, MPI_INT64_T, next, SLOT(rank, S_EXCL), SMALL, MPI_INT64_T,
                     win));
    puts++;
    LOCKCALL(MPI_Win_unlock(next, win));
    LOCKCALL(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win));
    CHECK_RC(MPI_Get(got, SMALL, MPI_INT64_T, next, SLOT(rank, S_EXCL), SMALL, MPI_INT64_T,
                     win));
    gets++;
    LOCKCALL(MPI_Win_unlock(next, win));
    for (int i = 0; i < SMALL; i++)
        EXPECT(got[i] == val(rank, S_EXCL, i), "%s lock get: [%d] = %lld", label, i,
               (long long)got[i]);

    /* lock_all: Put, flush, Get (sees it), flush_local; the big range */
    for (int i = 0; i < SMALL; i++)
        buf[i] = val(rank, S_ALL, i);
    LOCKCALL(MPI_Win_lock_all(0, win));
    CHECK_RC(MPI_Put(buf, SMALL, MPI_INT64_T, next, SLOT(rank, S_ALL), SMALL, MPI_INT64_T,
                     win));
    puts++;
    CHECK_RC(MPI_Win_flush(next, win));
    memset(got, 0, sizeof(got));
    CHECK_RC(MPI_Get(got, SMALL, MPI_INT64_T, next, SLOT(rank, S_ALL), SMALL, MPI_INT64_T,
                     win));
    gets++;
    CHECK_RC(MPI_Win_flush_local(next, win));
    for (int i = 0; i < SMALL; i++)
        EXPECT(got[i] == val(rank, S_ALL, i), "%s flush get: [%d] = %lld", label, i,
               (long long)got[i]);
    /* a strided target (4 blocks of 2): one RDMA operation per block */
    MPI_Datatype vec;
    MPI_Type_vector(4, 2, 4, MPI_INT64_T, &vec);
    MPI_Type_commit(&vec);
    for (int i = 0; i < 8; i++)
        buf[i] = val(rank, S_VEC, i);
    CHECK_RC(MPI_Put(buf, 8, MPI_INT64_T, next, SLOT(rank, S_VEC), 1, vec, win));
    puts += 4;
    CHECK_RC(MPI_Win_flush(next, win));
    memset(got, 0, sizeof(got));
    CHECK_RC(MPI_Get(got, 8, MPI_INT64_T, next, SLOT(rank, S_VEC), 1, vec, win));
    gets += 4;
    CHECK_RC(MPI_Win_flush(next, win));
    MPI_Type_free(&vec);
    for (int i = 0; i < 8; i++)
        EXPECT(got[i] == val(rank, S_VEC, i), "%s vector get: [%d] = %lld", label, i,
               (long long)got[i]);
    /* Rput and Rget: RDMA as well, complete at their MPI_Wait or MPI_Test
     * (which flush the target); the flush between them orders the Rget
     * after the Rput where it went as a message (rtmsg_win_rdma=read) */
    MPI_Request rq;
    for (int i = 0; i < SMALL; i++)
        buf[i] = val(rank, S_REQ, i);
    CHECK_RC(MPI_Rput(buf, SMALL, MPI_INT64_T, next, SLOT(rank, S_REQ), SMALL, MPI_INT64_T,
                      win, &rq));
    CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    puts++;
    CHECK_RC(MPI_Win_flush(next, win));
    memset(got, 0, sizeof(got));
    CHECK_RC(MPI_Rget(got, SMALL, MPI_INT64_T, next, SLOT(rank, S_REQ), SMALL, MPI_INT64_T,
                      win, &rq));
    int done = 0;
    while (!done)
        CHECK_RC(MPI_Test(&rq, &done, MPI_STATUS_IGNORE));
    gets++;
    for (int i = 0; i < SMALL; i++)
        EXPECT(got[i] == val(rank, S_REQ, i), "%s Rput/Rget: [%d] = %lld", label, i,
               (long long)got[i]);
    int64_t w1 = (int64_t)(wrs() - w0) - (int64_t)lockw;
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int b = 0; b < 4; b++)
        for (int j = 0; j < 4; j++) {
            int64_t want = j < 2 ? val(prev, S_VEC, 2 * b + j) : 0;

            EXPECT(base[SLOT(prev, S_VEC) + 4 * b + j] == want, "%s vector put: [%d] = %lld",
                   label, 4 * b + j, (long long)base[SLOT(prev, S_VEC) + 4 * b + j]);
        }
    if (counted) {
        want_wrs = cost(kind, puts, gets);
        EXPECT(w1 == want_wrs, "%s: %lld one-sided work requests for %d Put and %d Get runs "
               "(want %lld: %s)", label, (long long)w1, puts, gets, (long long)want_wrs, kind);
    }

    /* the big range: rank `next` writes it here (only next, so no
     * conflict), this rank reads it back from next after */
    MPI_Aint boff = (MPI_Aint)size * S_NSLOT * SMALL;
    for (int i = 0; i < BIG; i++)
        buf[i] = val(rank, 7, i);
    CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win));
    CHECK_RC(MPI_Put(buf, BIG, MPI_INT64_T, next, boff, BIG, MPI_INT64_T, win));
    CHECK_RC(MPI_Win_unlock(next, win));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < BIG; i++)
        if (base[boff + i] != val(prev, 7, i)) {
            EXPECT(0, "%s big put: [%d] = %lld from rank %d", label, i,
                   (long long)base[boff + i], prev);
            break;
        }
    memset(buf, 0, (size_t)BIG * 8);
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win));
    CHECK_RC(MPI_Get(buf, BIG, MPI_INT64_T, next, boff, BIG, MPI_INT64_T, win));
    CHECK_RC(MPI_Win_unlock(next, win));
    for (int i = 0; i < BIG; i++)
        if (buf[i] != val(rank, 7, i)) {
            EXPECT(0, "%s big get: [%d] = %lld", label, i, (long long)buf[i]);
            break;
        }
    free_win(alloc, &win, base);
    free(buf);
}

/* Phase 4: many ranks, one counter; Puts and Gets next to it. Slots: 0
 * and 1 counters, 2 MAX, 3 CAS increments, 4 REPLACE, 5-7 unused, then 4
 * per rank. */
static void contention(int alloc, MPI_Info info, const char *label)
{
    int64_t *base, one = 1, old, mine[FOP_ITERS], neigh[4], swapped[FOP_ITERS / 4];
    MPI_Win win = make_win(alloc, info, &base, 8 + 4 * (MPI_Aint)size);

    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Win_lock_all(0, win));
    for (int i = 0; i < FOP_ITERS; i++) {
        int64_t v[4] = { rank, i, -rank, -i };

        CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, 0, MPI_SUM, win));
        CHECK_RC(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, 1, 1, MPI_INT64_T, MPI_SUM, win));
        CHECK_RC(MPI_Put(v, 4, MPI_INT64_T, 0, 8 + 4 * rank, 4, MPI_INT64_T, win));
        CHECK_RC(MPI_Win_flush(0, win));
        mine[i] = old;
        CHECK_RC(MPI_Get(neigh, 4, MPI_INT64_T, 0, 8 + 4 * rank, 4, MPI_INT64_T, win));
        CHECK_RC(MPI_Win_flush(0, win));
        EXPECT(neigh[0] == rank && neigh[1] == i, "%s: own slot read back %lld %lld",
               label, (long long)neigh[0], (long long)neigh[1]);
        if (i % 4)
            continue;
        /* MAX, a compare-and-swap increment, a REPLACE (unique value in) */
        int64_t mx = (int64_t)rank * FOP_ITERS + i, seen, cur = 0, rep = mx + 1;
        CHECK_RC(MPI_Accumulate(&mx, 1, MPI_INT64_T, 0, 2, 1, MPI_INT64_T, MPI_MAX, win));
        CHECK_RC(MPI_Fetch_and_op(NULL, &cur, MPI_INT64_T, 0, 3, MPI_NO_OP, win));
        CHECK_RC(MPI_Win_flush(0, win));
        for (;;) {
            int64_t nv = cur + 1;

            CHECK_RC(MPI_Compare_and_swap(&nv, &cur, &seen, MPI_INT64_T, 0, 3, win));
            CHECK_RC(MPI_Win_flush(0, win));
            if (seen == cur)
                break;
            cur = seen;
        }
        CHECK_RC(MPI_Fetch_and_op(&rep, &swapped[i / 4], MPI_INT64_T, 0, 4, MPI_REPLACE, win));
        CHECK_RC(MPI_Win_flush(0, win));
    }
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        EXPECT(base[0] == (int64_t)size * FOP_ITERS && base[1] == (int64_t)size * FOP_ITERS,
               "%s: counters %lld and %lld, want %lld", label, (long long)base[0],
               (long long)base[1], (long long)size * FOP_ITERS);
        EXPECT(base[2] == (int64_t)(size - 1) * FOP_ITERS + FOP_ITERS - 4,
               "%s: MAX %lld, want %lld", label, (long long)base[2],
               (long long)(size - 1) * FOP_ITERS + FOP_ITERS - 4);
        EXPECT(base[3] == (int64_t)size * (FOP_ITERS / 4), "%s: CAS increments %lld, want %lld",
               label, (long long)base[3], (long long)size * (FOP_ITERS / 4));
    }
    /* REPLACE: the values swapped out, and the one left, are 0 and every
     * value swapped in, each once */
    int64_t *sw = rank == 0 ? malloc((size_t)size * (FOP_ITERS / 4) * 8) : NULL;
    MPI_Gather(swapped, FOP_ITERS / 4, MPI_INT64_T, sw, FOP_ITERS / 4, MPI_INT64_T, 0,
               MPI_COMM_WORLD);
    if (rank == 0) {
        int nsw = size * (FOP_ITERS / 4);
        char *hit = calloc((size_t)size * FOP_ITERS + 1, 1);

        CHECK(sw && hit, "out of memory");
        for (int i = 0; i <= nsw; i++) {
            int64_t v = i < nsw ? sw[i] : base[4];

            EXPECT(v >= 0 && v <= (int64_t)size * FOP_ITERS && !hit[v],
                   "%s: REPLACE gave %lld twice or out of range", label, (long long)v);
            if (v >= 0 && v <= (int64_t)size * FOP_ITERS)
                hit[v] = 1;
        }
        EXPECT(hit[0], "%s: REPLACE lost the initial 0", label);
        free(hit);
        free(sw);
    }
    /* every fetched value is distinct over the job */
    int64_t *all = rank == 0 ? malloc((size_t)size * FOP_ITERS * 8) : NULL;
    MPI_Gather(mine, FOP_ITERS, MPI_INT64_T, all, FOP_ITERS, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        char *seen = calloc((size_t)size * FOP_ITERS, 1);

        CHECK(all && seen, "out of memory");
        for (int i = 0; i < size * FOP_ITERS; i++) {
            EXPECT(all[i] >= 0 && all[i] < (int64_t)size * FOP_ITERS && !seen[all[i]],
                   "%s: fetched %lld twice or out of range", label, (long long)all[i]);
            if (all[i] >= 0 && all[i] < (int64_t)size * FOP_ITERS)
                seen[all[i]] = 1;
        }
        free(seen);
        free(all);
    }
    free_win(alloc, &win, base);
}

/* Phase 5: work requests per atomic, to the next rank and to this one. */
static void atomic_cost(int alloc, const char *label)
{
    enum { K = 8 };
    int64_t *base, one = 1, old, cmp, nv;
    int next = (rank + 1) % size, ts[2] = { next, rank };
    MPI_Win win = make_win(alloc, MPI_INFO_NULL, &base, 4);
    int64_t per = !strcmp(expect_atomic, "hca") ? 1 : 0;

    CHECK_RC(MPI_Win_lock_all(0, win));
    for (int k = 0; k < 2; k++) {
        int t = ts[k];
        uint64_t w0 = wrs();

        for (int i = 0; i < K; i++)
            CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, t, 0, MPI_SUM, win));
        CHECK_RC(MPI_Win_flush(t, win));
        uint64_t w1 = wrs();
        for (int i = 0; i < K; i++) {
            cmp = i;
            nv = i + 1;
            CHECK_RC(MPI_Compare_and_swap(&nv, &cmp, &old, MPI_INT64_T, t, 1, win));
        }
        CHECK_RC(MPI_Win_flush(t, win));
        uint64_t w2 = wrs();
        CHECK_RC(MPI_Fetch_and_op(NULL, &old, MPI_INT64_T, t, 1, MPI_NO_OP, win));
        CHECK_RC(MPI_Win_flush(t, win));
        uint64_t w3 = wrs();
        EXPECT(old == K, "%s: %d compare-and-swaps to rank %d left %lld", label, K, t,
               (long long)old);
        if (counted)
            EXPECT((int64_t)(w1 - w0) == K * per && (int64_t)(w2 - w1) == K * per &&
                   (int64_t)(w3 - w2) == per, "%s: work requests to rank %d%s: %lld for %d "
                   "Fetch_and_op(SUM), %lld for %d Compare_and_swap, %lld for one NO_OP "
                   "(want %lld each: %s)", label, t, t == rank ? " (itself)" : "",
                   (long long)(w1 - w0), K, (long long)(w2 - w1), K, (long long)(w3 - w2),
                   (long long)per, expect_atomic);
        if (rank == 0 && k == 0)
            printf("rma_rdma: %s: work requests per Fetch_and_op(SUM) %.2f, per "
                   "Compare_and_swap %.2f (%s)\n", label, (double)(w1 - w0) / K,
                   (double)(w2 - w1) / K, counted ? "counted" : "not counted");
    }
    /* accumulate ordering across the paths, on words 2 and 3 of the next
     * rank (only this rank writes them): a 4-byte accumulate (a message) then an
     * 8-byte read of the same word (an RDMA atomic in an HCA-atomic
     * window) sees it; an 8-byte fetch-and-add then a 4-byte
     * Get_accumulate of the same word sees that */
    int32_t seven[2] = { 7, 0 }, halves[2] = { -1, -1 }, zero32[2] = { 0, 0 };
    int64_t want7, got = -1, five = 5, want5;
    memcpy(&want7, seven, 8);
    CHECK_RC(MPI_Accumulate(seven, 1, MPI_INT32_T, next, 2, 1, MPI_INT32_T, MPI_SUM, win));
    CHECK_RC(MPI_Fetch_and_op(NULL, &got, MPI_INT64_T, next, 2, MPI_NO_OP, win));
    CHECK_RC(MPI_Fetch_and_op(&five, &old, MPI_INT64_T, next, 3, MPI_SUM, win));
    CHECK_RC(MPI_Get_accumulate(zero32, 2, MPI_INT32_T, halves, 2, MPI_INT32_T, next, 3, 2,
                                MPI_INT32_T, MPI_NO_OP, win));
    CHECK_RC(MPI_Win_flush(next, win));
    memcpy(&want5, halves, 8);
    EXPECT(got == want7, "%s: an 8-byte read after a 4-byte accumulate got %llx, want %llx",
           label, (unsigned long long)got, (unsigned long long)want7);
    EXPECT(want5 == 5, "%s: a 4-byte read after an 8-byte fetch-and-add got %lld, want 5",
           label, (long long)want5);
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT(base[0] == 2 * K, "%s: counter %lld, want %d", label, (long long)base[0], 2 * K);
    free_win(alloc, &win, base);
}

/* Phase 5b: many elements per operation. */
#define NEL 100
static void multi_elem(int alloc, const char *label)
{
    int64_t *base, mx[NEL], rp[NEL], old[NEL];
    double one[NEL];
    MPI_Win win = make_win(alloc, MPI_INFO_NULL, &base, 3 * NEL);

    for (int i = 0; i < NEL; i++) {
        mx[i] = (int64_t)rank * 1000 + i;
        rp[i] = (int64_t)(rank + 1) * 1000 + i;
        one[i] = 1.0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Win_lock_all(0, win));
    CHECK_RC(MPI_Accumulate(mx, NEL, MPI_INT64_T, 0, 0, NEL, MPI_INT64_T, MPI_MAX, win));
    CHECK_RC(MPI_Accumulate(one, NEL, MPI_DOUBLE, 0, NEL, NEL, MPI_DOUBLE, MPI_SUM, win));
    CHECK_RC(MPI_Get_accumulate(rp, NEL, MPI_INT64_T, old, NEL, MPI_INT64_T, 0, 2 * NEL, NEL,
                                MPI_INT64_T, MPI_REPLACE, win));
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t *all = rank == 0 ? malloc((size_t)size * NEL * 8) : NULL;
    MPI_Gather(old, NEL, MPI_INT64_T, all, NEL, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        const double *d = (const double *)(void *)(base + NEL);

        CHECK(all != NULL, "out of memory");
        for (int i = 0; i < NEL; i++) {
            EXPECT(base[i] == (int64_t)(size - 1) * 1000 + i, "%s: MAX [%d] = %lld", label, i,
                   (long long)base[i]);
            EXPECT(d[i] == (double)size, "%s: double SUM [%d] = %g", label, i, d[i]);
            /* 0 and (r + 1) * 1000 + i for every r, each once */
            int seen0 = 0, hit = 0;
            for (int r = 0; r <= size; r++) {
                int64_t x = r < size ? all[(size_t)r * NEL + i] : base[2 * NEL + i];

                if (x == 0)
                    seen0++;
                else if (x % 1000 == i && x / 1000 >= 1 && x / 1000 <= size)
                    hit |= 1 << (x / 1000 - 1);
            }
            EXPECT(seen0 == 1 && hit == (1 << size) - 1, "%s: REPLACE [%d]: 0 seen %d times, "
                   "ranks' values %#x", label, i, seen0, hit);
        }
        free(all);
    }
    free_win(alloc, &win, base);
}

/* Phase 6: work requests per lock and unlock, each target locked by one
 * origin at a time (its previous rank; barriers between the kinds). */
static void lock_cost(int alloc, const char *label)
{
    int64_t *base, v = rank;
    int next = (rank + 1) % size;
    int64_t per = !strcmp(expect_atomic, "hca") ? 1 : 0;
    MPI_Win win = make_win(alloc, MPI_INFO_NULL, &base, 4);
    uint64_t w[9];

    MPI_Barrier(MPI_COMM_WORLD);
    w[0] = wrs();
    CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win));
    w[1] = wrs();
    CHECK_RC(MPI_Win_unlock(next, win));
    w[2] = wrs();
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win));
    w[3] = wrs();
    CHECK_RC(MPI_Win_unlock(next, win));
    w[4] = wrs();
    MPI_Barrier(MPI_COMM_WORLD);
    w[5] = wrs();
    CHECK_RC(MPI_Win_lock_all(0, win));
    w[6] = wrs();
    CHECK_RC(MPI_Win_unlock_all(win));
    w[7] = wrs();
    MPI_Barrier(MPI_COMM_WORLD);
    /* an epoch with a Put: the Put's write, then the release */
    w[7] = wrs();
    CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win));
    CHECK_RC(MPI_Put(&v, 1, MPI_INT64_T, next, 0, 1, MPI_INT64_T, win));
    CHECK_RC(MPI_Win_unlock(next, win));
    w[8] = wrs();
    if (counted) {
        int64_t put = !strcmp(alloc ? expect_alloc : expect, "rdma") ? 1 : 0;

        EXPECT((int64_t)(w[1] - w[0]) == per && (int64_t)(w[2] - w[1]) == per &&
               (int64_t)(w[3] - w[2]) == per && (int64_t)(w[4] - w[3]) == per &&
               (int64_t)(w[6] - w[5]) == size * per && (int64_t)(w[7] - w[6]) >= 0 &&
               (int64_t)(w[8] - w[7]) == 2 * per + put,
               "%s: work requests: exclusive lock %lld, unlock %lld, shared lock %lld, unlock "
               "%lld, lock_all %lld, lock+Put+unlock %lld (want %lld per lock word: %s)",
               label, (long long)(w[1] - w[0]), (long long)(w[2] - w[1]),
               (long long)(w[3] - w[2]), (long long)(w[4] - w[3]), (long long)(w[6] - w[5]),
               (long long)(w[8] - w[7]), (long long)per, expect_atomic);
        if (rank == 0)
            printf("rma_rdma: %s: work requests per lock %lld, per unlock %lld, per "
                   "lock_all %lld (%d ranks)\n", label, (long long)(w[1] - w[0]),
                   (long long)(w[2] - w[1]), (long long)(w[6] - w[5]), size);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT(base[0] == (rank + size - 1) % size, "%s: the Put under the lock left %lld",
           label, (long long)base[0]);
    free_win(alloc, &win, base);
}

/* A rank that spins on RDMA (Get + Win_flush until a flag flips) still
 * serves what reaches its window as messages: rank 1's 4-byte Accumulate
 * to rank 0 is a message that rank 0's engine must apply and answer before
 * rank 1's Win_flush returns and rank 1 sets the flag rank 0 reads. Before,
 * an RDMA-only Win_flush never ran the MPI engine: both waited forever. */
static void spin_serves(int alloc, const char *label)
{
    int64_t *base, f = 0, one64 = 1;
    int one = 1, spins = 0;
    MPI_Win win = make_win(alloc, MPI_INFO_NULL, &base, 2);

    CHECK_RC(MPI_Win_lock_all(0, win));
    if (rank == 0) {
        do {
            CHECK_RC(MPI_Get(&f, 1, MPI_INT64_T, 1, 0, 1, MPI_INT64_T, win));
            CHECK_RC(MPI_Win_flush(1, win));
            spins++;
        } while (f != 1);
    } else if (rank == 1) {
        CHECK_RC(MPI_Accumulate(&one, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win));
        CHECK_RC(MPI_Win_flush(0, win));
        CHECK_RC(MPI_Put(&one64, 1, MPI_INT64_T, 1, 0, 1, MPI_INT64_T, win));
        CHECK_RC(MPI_Win_flush(1, win));
    }
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int got;

        memcpy(&got, &base[1], sizeof(got));
        EXPECT(got == 1, "%s: the Accumulate a spinning rank served left %d", label, got);
    }
    free_win(alloc, &win, base);
}

int main(int argc, char **argv)
{
    MPI_Info off, rd;

    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (getenv("RMA_RDMA_EXPECT"))
        expect = getenv("RMA_RDMA_EXPECT");
    /* MPI_Win_allocate on one host: the segment's loads and stores, no
     * work request (RMA_RDMA_EXPECT_ALLOC=none) */
    expect_alloc = getenv("RMA_RDMA_EXPECT_ALLOC") ? getenv("RMA_RDMA_EXPECT_ALLOC") : expect;
    if (getenv("RMA_RDMA_EXPECT_ATOMIC"))
        expect_atomic = getenv("RMA_RDMA_EXPECT_ATOMIC");
    MPI_Info_create(&off);
    MPI_Info_set(off, "rtmsg_win_rdma", "false");
    MPI_Info_create(&rd);
    MPI_Info_set(rd, "rtmsg_win_rdma", "read");
    if (size > 1) {
        for (int alloc = 0; alloc < 2; alloc++) {
            const char *fl = alloc ? "Win_allocate" : "Win_create";
            const char *kind = alloc ? expect_alloc : expect;
            char label[64];

            snprintf(label, sizeof(label), "%s", fl);
            epochs(alloc, MPI_INFO_NULL, kind, label);
            snprintf(label, sizeof(label), "%s, rtmsg_win_rdma=false", fl);
            epochs(alloc, off, "none", label);
            snprintf(label, sizeof(label), "%s, rtmsg_win_rdma=read", fl);
            epochs(alloc, rd, strcmp(kind, "none") ? "read" : "none", label);
            snprintf(label, sizeof(label), "%s, contention", fl);
            contention(alloc, MPI_INFO_NULL, label);
            snprintf(label, sizeof(label), "%s, atomics", fl);
            atomic_cost(alloc, label);
            snprintf(label, sizeof(label), "%s, many elements", fl);
            multi_elem(alloc, label);
            snprintf(label, sizeof(label), "%s, locks", fl);
            lock_cost(alloc, label);
            snprintf(label, sizeof(label), "%s, a spinning rank serves", fl);
            spin_serves(alloc, label);
        }
        if (rank == 0)
            printf("rma_rdma: work requests %s (expected: %s)\n",
                   counted ? "counted" : "not counted by this transport", expect);
    }
    MPI_Info_free(&off);
    MPI_Info_free(&rd);
    return mt_finish("rma_rdma");
}
