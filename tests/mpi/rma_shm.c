/*
 * One-sided operations between ranks of one host on MPI_Win_allocate
 * windows (issue 15's shared-memory part): done by the origin in the host
 * segment, so they need nothing of the target.
 *
 * 1. Fetch-and-add without the target: ranks 1.. add to rank 0's counter
 *    (lock_all with MPI_MODE_NOCHECK) while rank 0 waits in a loop of plain
 *    atomic loads that calls no MPI function; the total is exact and every
 *    fetched value distinct. Over messages this waits forever (rank 0 never
 *    serves them): the guard of 60 s turns that into a failed check.
 * 1b. Exclusive locks without the target: ranks 1.. do Get, +1, Put under
 *    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0) while rank 0 calls no MPI function
 *    (the locks are words in the segment); the count is exact.
 * 2. Atomicity of types no single instruction changes, under contention:
 *    every rank accumulates MPI_DOUBLE SUM vectors, MPI_DOUBLE_INT MAXLOC
 *    pairs, a misaligned MPI_INT SUM (the lock word path for an integer)
 *    and MPI_INT MAX (an atomic compare-exchange loop) into rank 0; exact
 *    results (sums of small integers in doubles are exact).
 * 3. Mixed paths: a window where odd ranks give info rtmsg_win_shm=false,
 *    so their operations travel as messages that rank 0 applies while the
 *    even ranks apply theirs directly; fetch-and-add and double sums stay
 *    exact.
 * 4. Load/store visibility: plain stores then MPI_Win_sync are seen by a
 *    peer's MPI_Get; a peer's Put + flush is seen by plain loads after
 *    MPI_Win_sync.
 * 5. Sizes whose sum passes 2^64 (3 ranks of (2^64 + 2) / 3 bytes, the
 *    others 0): MPI_Win_allocate_shared fails with MPI_ERR_SIZE on every
 *    rank, instead of mapping the wrapped sum (a few bytes) and handing out
 *    parts that lie past it.
 */
#include "mpitest.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#define FAA_ITERS 2000
#define LOCK_ITERS 300
#define ACC_ITERS 200
#define VLEN 32
#define NPAIR 8

static int rank, size;
/* RMA_SHM_MESSAGES=1: every rank gives info rtmsg_win_shm=false, so every
 * operation goes by messages as before the host segment (test 1 must then
 * fail). */
static MPI_Info all_info = MPI_INFO_NULL;

static double vval(int r, int i, int j)
{
    return (double)((r + 1) * (j + 1) + (i % 7));
}

static double pval(int r, int i, int j)
{
    return (double)((i * 7 + r * 13 + j * 3) % 101);
}

/* Rank 0: no MPI call until *done reaches want (60 s guard). */
static void wait_done(int64_t *d, int64_t want, const char *what)
{
    _Atomic int64_t *done = (_Atomic int64_t *)(void *)d;
    double t0 = MPI_Wtime();
    unsigned k = 0;

    while (atomic_load(done) < want) {
        sched_yield();
        if ((++k & 1023) == 0 && MPI_Wtime() - t0 > 60)
            break;   /* the failure guard, not a timing */
    }
    EXPECT(atomic_load(done) == want, "%s: rank 0's counter of finished origins is %lld of "
           "%lld: origins waited for the target", what, (long long)atomic_load(done),
           (long long)want);
}

/* Exclusive-lock read-modify-writes (Get, +1, Put) by ranks 1.. on rank 0,
 * which calls no MPI function meanwhile: the locks are words in the
 * segment. */
static void test_lock_no_target(void)
{
    MPI_Win win;
    int64_t *base;

    CHECK_RC(MPI_Win_allocate(2 * sizeof(int64_t), sizeof(int64_t), all_info, MPI_COMM_WORLD,
                              &base, &win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        wait_done(&base[1], size - 1, "locks");
        CHECK_RC(MPI_Win_sync(win));
        EXPECT(base[0] == (int64_t)(size - 1) * LOCK_ITERS, "exclusive RMW count %lld, want "
               "%lld", (long long)base[0], (long long)(size - 1) * LOCK_ITERS);
    } else {
        int64_t v, one = 1;

        for (int i = 0; i < LOCK_ITERS; i++) {
            CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            CHECK_RC(MPI_Get(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win));
            CHECK_RC(MPI_Win_flush(0, win));
            v++;
            CHECK_RC(MPI_Put(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win));
            CHECK_RC(MPI_Win_unlock(0, win));
        }
        CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CHECK_RC(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, 1, 1, MPI_INT64_T, MPI_SUM, win));
        CHECK_RC(MPI_Win_unlock(0, win));
    }
    CHECK_RC(MPI_Win_free(&win));
}

static void test_faa_no_target(void)
{
    MPI_Win win;
    int64_t *base;

    CHECK_RC(MPI_Win_allocate(2 * sizeof(int64_t), sizeof(int64_t), all_info,
                              MPI_COMM_WORLD, &base, &win));
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t *seen = calloc(FAA_ITERS, sizeof(*seen));
    int64_t sum = 0, total = 0;

    if (rank == 0) {
        wait_done(&base[1], size - 1, "fetch-and-add");
        CHECK_RC(MPI_Win_sync(win));
        EXPECT(base[0] == (int64_t)(size - 1) * FAA_ITERS, "counter %lld, want %lld",
               (long long)base[0], (long long)(size - 1) * FAA_ITERS);
    } else {
        int64_t one = 1, old = -1;

        CHECK_RC(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
        for (int i = 0; i < FAA_ITERS; i++) {
            CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, 0, MPI_SUM, win));
            CHECK_RC(MPI_Win_flush(0, win));
            seen[i] = old;
            sum += old;
        }
        int mono = 1;
        for (int i = 1; i < FAA_ITERS; i++)
            mono &= seen[i] > seen[i - 1];
        EXPECT(mono, "the values rank %d fetched do not increase", rank);
        CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, 1, MPI_SUM, win));
        CHECK_RC(MPI_Win_unlock_all(win));
    }
    MPI_Allreduce(&sum, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    int64_t n = (int64_t)(size - 1) * FAA_ITERS;
    EXPECT(total == n * (n - 1) / 2, "sum of fetched values %lld, want %lld (each of "
           "0..%lld once)", (long long)total, (long long)(n * (n - 1) / 2), (long long)n - 1);
    free(seen);
    CHECK_RC(MPI_Win_free(&win));
}

struct dpair { double v; int i; };

/* Window layout (bytes): [0, 256) doubles, [256, 384) pairs, 390 a
 * misaligned int, 400 an int for MAX, 417 a misaligned pair. */
#define OFF_V 0
#define OFF_P 256
#define OFF_MIS 390
#define OFF_MAX 400
#define OFF_MISP 417   /* a misaligned MPI_DOUBLE_INT */
#define WBYTES 512

static void acc_all(MPI_Win win, int target)
{
    double v[VLEN];
    struct dpair p[NPAIR];
    int one = 1;

    CHECK_RC(MPI_Win_lock_all(0, win));
    for (int i = 0; i < ACC_ITERS; i++) {
        for (int j = 0; j < VLEN; j++)
            v[j] = vval(rank, i, j);
        for (int j = 0; j < NPAIR; j++) {
            p[j].v = pval(rank, i, j);
            p[j].i = rank;
        }
        int mx = rank * 1000 + i;
        CHECK_RC(MPI_Accumulate(v, VLEN, MPI_DOUBLE, target, OFF_V, VLEN, MPI_DOUBLE, MPI_SUM,
                                win));
        CHECK_RC(MPI_Accumulate(p, NPAIR, MPI_DOUBLE_INT, target, OFF_P, NPAIR,
                                MPI_DOUBLE_INT, MPI_MAXLOC, win));
        CHECK_RC(MPI_Accumulate(&one, 1, MPI_INT, target, OFF_MIS, 1, MPI_INT, MPI_SUM, win));
        CHECK_RC(MPI_Accumulate(&mx, 1, MPI_INT, target, OFF_MAX, 1, MPI_INT, MPI_MAX, win));
        CHECK_RC(MPI_Accumulate(&p[0], 1, MPI_DOUBLE_INT, target, OFF_MISP, 1, MPI_DOUBLE_INT,
                                MPI_MAXLOC, win));
        if (i % 16 == 0)
            CHECK_RC(MPI_Win_flush(target, win));
    }
    CHECK_RC(MPI_Win_unlock_all(win));
}

static void check_acc(const char *what, const char *b, int nranks)
{
    int bad = 0;

    for (int j = 0; j < VLEN; j++) {
        double want = 0, got;

        for (int r = 0; r < nranks; r++)
            for (int i = 0; i < ACC_ITERS; i++)
                want += vval(r, i, j);
        memcpy(&got, b + OFF_V + j * sizeof(double), sizeof(got));
        if (got != want && bad++ < 3)
            EXPECT(0, "%s: sum element %d is %g, want %g", what, j, got, want);
    }
    for (int j = 0; j < NPAIR; j++) {
        struct dpair want = { -1, 0 }, got;

        for (int r = 0; r < nranks; r++)
            for (int i = 0; i < ACC_ITERS; i++) {
                double x = pval(r, i, j);

                if (x > want.v || (x == want.v && r < want.i)) {
                    want.v = x;
                    want.i = r;
                }
            }
        memcpy(&got, b + OFF_P + j * sizeof(struct dpair), sizeof(got));
        if ((got.v != want.v || got.i != want.i) && bad++ < 6)
            EXPECT(0, "%s: maxloc pair %d is (%g, %d), want (%g, %d)", what, j, got.v, got.i,
                   want.v, want.i);
    }
    struct dpair wantp = { -1, 0 }, gotp;
    for (int r = 0; r < nranks; r++)
        for (int i = 0; i < ACC_ITERS; i++)
            if (pval(r, i, 0) > wantp.v) {
                wantp.v = pval(r, i, 0);
                wantp.i = r;
            }
    memcpy(&gotp.v, b + OFF_MISP, sizeof(double));
    memcpy(&gotp.i, b + OFF_MISP + 8, sizeof(int));
    EXPECT(gotp.v == wantp.v && gotp.i == wantp.i, "%s: misaligned maxloc (%g, %d), want "
           "(%g, %d)", what, gotp.v, gotp.i, wantp.v, wantp.i);
    int mis, mx;
    memcpy(&mis, b + OFF_MIS, sizeof(mis));
    memcpy(&mx, b + OFF_MAX, sizeof(mx));
    EXPECT(mis == nranks * ACC_ITERS, "%s: misaligned int sum %d, want %d", what, mis,
           nranks * ACC_ITERS);
    EXPECT(mx == (nranks - 1) * 1000 + ACC_ITERS - 1, "%s: int max %d, want %d", what, mx,
           (nranks - 1) * 1000 + ACC_ITERS - 1);
}

static void test_acc_atomicity(void)
{
    MPI_Win win;
    char *base;

    CHECK_RC(MPI_Win_allocate(WBYTES, 1, all_info, MPI_COMM_WORLD, &base, &win));
    if (rank == 0) {
        struct dpair lo = { -1, 0 };

        for (int j = 0; j < NPAIR; j++)
            memcpy(base + OFF_P + j * sizeof(lo), &lo, sizeof(lo));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    acc_all(win, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK_RC(MPI_Win_sync(win));
        check_acc("direct", base, size);
    }
    CHECK_RC(MPI_Win_free(&win));
}

static void test_mixed(void)
{
    MPI_Win win;
    char *base;
    MPI_Info info;

    MPI_Info_create(&info);
    if (rank % 2 || all_info != MPI_INFO_NULL)
        MPI_Info_set(info, "rtmsg_win_shm", "false");
    CHECK_RC(MPI_Win_allocate(WBYTES + 16, 1, info, MPI_COMM_WORLD, &base, &win));
    MPI_Info_free(&info);
    if (rank == 0) {
        struct dpair lo = { -1, 0 };

        for (int j = 0; j < NPAIR; j++)
            memcpy(base + OFF_P + j * sizeof(lo), &lo, sizeof(lo));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    acc_all(win, 0);
    /* Fetch-and-add on one counter from both paths. */
    int64_t one = 1, old = -1, sum = 0, total = 0;
    CHECK_RC(MPI_Win_lock_all(0, win));
    for (int i = 0; i < FAA_ITERS / 4; i++) {
        CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, WBYTES, MPI_SUM, win));
        CHECK_RC(MPI_Win_flush(0, win));
        sum += old;
    }
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(&sum, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    int64_t n = (int64_t)size * (FAA_ITERS / 4);
    EXPECT(total == n * (n - 1) / 2, "mixed: sum of fetched values %lld, want %lld",
           (long long)total, (long long)(n * (n - 1) / 2));
    if (rank == 0) {
        int64_t c;

        CHECK_RC(MPI_Win_sync(win));
        check_acc("mixed", base, size);
        memcpy(&c, base + WBYTES, sizeof(c));
        EXPECT(c == n, "mixed: counter %lld, want %lld", (long long)c, (long long)n);
    }
    CHECK_RC(MPI_Win_free(&win));
}

static void test_visibility(void)
{
    MPI_Win win;
    int *base;
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;

    CHECK_RC(MPI_Win_allocate(64 * sizeof(int), sizeof(int), all_info, MPI_COMM_WORLD,
                              &base, &win));
    CHECK_RC(MPI_Win_lock_all(0, win));
    /* Plain stores into my own part, then Win_sync: the next rank Gets
     * them. */
    for (int k = 0; k < 16; k++)
        base[k] = 1000 * rank + k;
    CHECK_RC(MPI_Win_sync(win));
    MPI_Barrier(MPI_COMM_WORLD);
    int got[16];
    CHECK_RC(MPI_Get(got, 16, MPI_INT, from, 0, 16, MPI_INT, win));
    CHECK_RC(MPI_Win_flush(from, win));
    int bad = 0;
    for (int k = 0; k < 16; k++)
        bad += got[k] != 1000 * from + k;
    EXPECT(!bad, "rank %d read %d of rank %d's stored values wrong (first %d)", rank, bad,
           from, got[0]);
    /* A Put + flush into the next rank, then Win_sync there: its plain
     * loads see it. */
    int v[16];
    for (int k = 0; k < 16; k++)
        v[k] = 7 * rank + k + 1;
    CHECK_RC(MPI_Put(v, 16, MPI_INT, peer, 32, 16, MPI_INT, win));
    CHECK_RC(MPI_Win_flush(peer, win));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Win_sync(win));
    bad = 0;
    for (int k = 0; k < 16; k++)
        bad += base[32 + k] != 7 * from + k + 1;
    EXPECT(!bad, "rank %d sees %d of rank %d's Put values wrong", rank, bad, from);
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Win_free(&win));
}

static void test_seg_overflow(void)
{
    MPI_Aint sz = rank < 3 ? (MPI_Aint)6148914691236517206LL : 0;   /* 3 sz = 2^64 + 2 */
    MPI_Win win = MPI_WIN_NULL;
    void *base = NULL;
    int rc, c = -1;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Win_allocate_shared(sz, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    if (rc == MPI_SUCCESS) {
        EXPECT(0, "a window of 3 x %lld bytes was made (at %p)", (long long)sz, base);
        MPI_Win_free(&win);
        return;
    }
    MPI_Error_class(rc, &c);
    EXPECT(c == MPI_ERR_SIZE, "sizes past 2^64: error class %d, not MPI_ERR_SIZE", c);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *m = getenv("RMA_SHM_MESSAGES");
    if (m && *m == '1') {
        MPI_Info_create(&all_info);
        MPI_Info_set(all_info, "rtmsg_win_shm", "false");
    }
    if (size > 1) {
        test_faa_no_target();
        test_lock_no_target();
    }
    test_acc_atomicity();
    test_mixed();
    test_visibility();
    if (size >= 3)
        test_seg_overflow();
    if (all_info != MPI_INFO_NULL)
        MPI_Info_free(&all_info);
    return mt_finish("rma_shm");
}
