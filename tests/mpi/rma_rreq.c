/*
 * rma_rreq: an Rput/Rget issued by RDMA completes by its own wait or test,
 * and the progress engine never flushes for it (a flush may block). Counted
 * by the MPI_T performance variable rtm_rma_flushes (the engine's calls of
 * the transport's flush), 2 ranks, each the other's target, under
 * MPI_Win_lock_all on an MPI_Win_create window:
 *  1. an Rput pending while the rank makes progress on other things (an
 *     MPI_Test of an unrelated receive, MPI_Iprobe) a thousand times: no
 *     flush; then MPI_Test of the Rput alone, looped, completes it (one
 *     flush where it went by RDMA, none where by messages);
 *  2. an Rget, the same, completed by MPI_Wait; it reads back what 1 wrote;
 *  3. two Rputs completed by MPI_Testall;
 *  4. an Rput, then MPI_Win_flush: the request is complete, the next
 *     MPI_Test says so without a flush of its own.
 * RMA_RREQ_EXPECT: rdma (each completion flushes once), none (messages: no
 * flush at all), or unset (at most one).
 */
#include "mpitest.h"

#include <stdint.h>

#define N 64
#define PASSES 1000

static MPI_T_pvar_session ses;
static MPI_T_pvar_handle hflush;
static const char *expect;

static unsigned long long flushes(void)
{
    unsigned long long v = 0;

    CHECK_RC(MPI_T_pvar_read(ses, hflush, &v));
    return v;
}

/* A completion made `n` flushes (before: the count before the wait/test). */
static void expect_flushes(const char *what, unsigned long long before, int rdma_n)
{
    unsigned long long n = flushes() - before;

    if (expect && !strcmp(expect, "rdma"))
        EXPECT(n == (unsigned long long)rdma_n, "%s: %llu flushes, want %d", what, n, rdma_n);
    else if (expect && !strcmp(expect, "none"))
        EXPECT(n == 0, "%s: %llu flushes, want none (messages)", what, n);
    else
        EXPECT(n <= (unsigned long long)rdma_n, "%s: %llu flushes, want at most %d", what, n,
               rdma_n);
}

/* Progress on everything but the one-sided request: the test of another
 * request and probes, PASSES times; no flush may happen. */
static void other_progress(const char *what, MPI_Request *other, int peer)
{
    unsigned long long before = flushes();

    for (int i = 0; i < PASSES; i++) {
        int flag = 1;

        CHECK_RC(MPI_Test(other, &flag, MPI_STATUS_IGNORE));
        EXPECT(!flag, "%s: the unrelated receive completed", what);
        CHECK_RC(MPI_Iprobe(peer, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    }
    unsigned long long n = flushes() - before;
    EXPECT(n == 0, "%s: %d progress passes with the request pending flushed %llu times", what,
           PASSES, n);
}

int main(int argc, char **argv)
{
    int provided, idx = -1, count = 0;

    mt_init(&argc, &argv);
    expect = getenv("RMA_RREQ_EXPECT");
    CHECK(th_size == 2, "run with 2 ranks");
    int peer = 1 - th_rank;
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK(MPI_T_pvar_get_index("rtm_rma_flushes", MPI_T_PVAR_CLASS_COUNTER, &idx) ==
          MPI_SUCCESS, "no performance variable rtm_rma_flushes");
    CHECK_RC(MPI_T_pvar_session_create(&ses));
    CHECK_RC(MPI_T_pvar_handle_alloc(ses, idx, NULL, &hflush, &count));
    CHECK_RC(MPI_T_pvar_start(ses, hflush));

    int64_t *base, src[N], got[N];
    MPI_Win win;
    CHECK_RC(MPI_Alloc_mem(2 * N * sizeof(int64_t), MPI_INFO_NULL, &base));
    memset(base, 0, 2 * N * sizeof(int64_t));
    CHECK_RC(MPI_Win_create(base, 2 * N * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &win));
    for (int i = 0; i < N; i++)
        src[i] = ((int64_t)th_rank << 32) | (i + 1);

    /* a receive that stays pending until the end: progress to test */
    int token = 0, mine = 1;
    MPI_Request other, rq, two[2];
    CHECK_RC(MPI_Irecv(&token, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &other));
    CHECK_RC(MPI_Win_lock_all(0, win));

    /* 1: Rput, progress elsewhere, then its own MPI_Test */
    CHECK_RC(MPI_Rput(src, N, MPI_INT64_T, peer, 0, N, MPI_INT64_T, win, &rq));
    other_progress("Rput", &other, peer);
    unsigned long long f = flushes();
    int done = 0;
    while (!done)
        CHECK_RC(MPI_Test(&rq, &done, MPI_STATUS_IGNORE));
    EXPECT(rq == MPI_REQUEST_NULL, "Rput: MPI_Test left the request");
    expect_flushes("Rput completed by MPI_Test", f, 1);

    /* 2: Rget of what 1 put there, completed by MPI_Wait */
    memset(got, 0, sizeof(got));
    CHECK_RC(MPI_Rget(got, N, MPI_INT64_T, peer, 0, N, MPI_INT64_T, win, &rq));
    other_progress("Rget", &other, peer);
    f = flushes();
    CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    expect_flushes("Rget completed by MPI_Wait", f, 1);
    for (int i = 0; i < N; i++)
        EXPECT(got[i] == src[i], "Rget: [%d] = %llx, want %llx", i, (unsigned long long)got[i],
               (unsigned long long)src[i]);

    /* 3: two Rputs to one target, completed by MPI_Testall (one flush) */
    CHECK_RC(MPI_Rput(src, N / 2, MPI_INT64_T, peer, N, N / 2, MPI_INT64_T, win, &two[0]));
    CHECK_RC(MPI_Rput(src + N / 2, N / 2, MPI_INT64_T, peer, N + N / 2, N / 2, MPI_INT64_T, win,
                      &two[1]));
    other_progress("two Rputs", &other, peer);
    f = flushes();
    done = 0;
    while (!done)
        CHECK_RC(MPI_Testall(2, two, &done, MPI_STATUSES_IGNORE));
    expect_flushes("two Rputs completed by MPI_Testall", f, 1);

    /* 4: MPI_Win_flush completes an Rput: its test flushes nothing more */
    CHECK_RC(MPI_Rput(src, 1, MPI_INT64_T, peer, 0, 1, MPI_INT64_T, win, &rq));
    f = flushes();
    CHECK_RC(MPI_Win_flush(peer, win));
    expect_flushes("MPI_Win_flush with an Rput pending", f, 1);
    f = flushes();
    done = 0;
    CHECK_RC(MPI_Test(&rq, &done, MPI_STATUS_IGNORE));
    EXPECT(done, "an Rput was not complete after MPI_Win_flush of its target");
    EXPECT(flushes() == f, "MPI_Test of an Rput completed by MPI_Win_flush flushed again");

    CHECK_RC(MPI_Win_unlock_all(win));
    /* both ranks are past their progress loops: the receive may complete */
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Send(&mine, 1, MPI_INT, peer, 7, MPI_COMM_WORLD));
    CHECK_RC(MPI_Wait(&other, MPI_STATUS_IGNORE));
    EXPECT(token == 1, "the unrelated receive got %d", token);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    /* what the peer put here: its src in both halves of the window */
    for (int i = 0; i < 2 * N; i++) {
        int64_t want = ((int64_t)peer << 32) | ((i % N) + 1);

        EXPECT(base[i] == want, "window [%d] = %llx, want %llx", i, (unsigned long long)base[i],
               (unsigned long long)want);
    }
    CHECK_RC(MPI_Win_free(&win));
    CHECK_RC(MPI_Free_mem(base));
    CHECK_RC(MPI_T_pvar_handle_free(ses, &hflush));
    CHECK_RC(MPI_T_pvar_session_free(&ses));
    CHECK_RC(MPI_T_finalize());
    return mt_finish("rma_rreq");
}
