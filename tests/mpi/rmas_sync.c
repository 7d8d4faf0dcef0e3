/*
 * rmas_sync: every synchronization mode of one-sided communication, with
 * Put, Get and Accumulate between all pairs of ranks (the rank itself
 * included), on a window of MPI_Win_create and one of MPI_Win_allocate:
 *
 *   fence        plain, then with NOPRECEDE / NOSTORE / NOPUT / NOSUCCEED
 *   PSCW         all ranks with Win_test; ring neighbours with Win_wait
 *   lock         shared (every target); exclusive, protecting a Get + Put
 *                read-modify-write of one counter: the total is exact
 *   lock_all     with flush, flush_local, flush_local_all, flush_all
 *   Win_sync     local stores seen by remote Get after Win_sync + barrier,
 *                remote Put seen by local loads after barrier + Win_sync
 *
 * Window layout (ints): SLOT region, K ints per origin rank; ACC region of
 * 2 ints (accumulate target, exclusive-lock counter); RO region of n ints
 * that only its owner stores to. Values say round, origin, target, index,
 * so a misplaced or stale element names where it came from.
 */
#include "tests/mpi/rmas_common.h"

#define K 4
#define LOCK_ROUNDS 5

static int me, n;
static int *mem;                 /* the local window memory */
static MPI_Win win;

#define SLOT(o, k) ((o) * K + (k))
#define ACC(i)     (n * K + (i))
#define RO(i)      (n * K + 2 + (i))
/* Padded to 64 bytes: MPICH 4.0's Win_allocate (shared-memory path) puts
 * each rank's segment at a 16-byte boundary locally but addresses it
 * unpadded from the other ranks, so odd sizes shift remote accesses. */
#define WIN_INTS   (((n * K + 2 + n) + 15) / 16 * 16)

static int val(int round, int o, int t, int k)
{
    return round * 100000 + o * 1000 + t * 10 + k;
}

static int ro_val(int owner, int i)
{
    return 7000000 + owner * 100 + i;
}

/* The window back to its start state, through an exclusive lock on self
 * (valid in either memory model), then a barrier so no rank starts the
 * next round on a half-reset window. */
static void reset(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
    for (int i = 0; i < n * K; i++)
        mem[i] = -1;
    mem[ACC(0)] = 0;
    mem[ACC(1)] = 0;
    for (int i = 0; i < n; i++)
        mem[RO(i)] = ro_val(me, i);
    OK(MPI_Win_unlock(me, win));
    MPI_Barrier(MPI_COMM_WORLD);
}

static void put_slot(int round, int t)
{
    int v[K];

    for (int k = 0; k < K; k++)
        v[k] = val(round, me, t, k);
    OK(MPI_Put(v, K, MPI_INT, t, SLOT(me, 0), K, MPI_INT, win));
}

/* A Put's origin buffer may be reused only after the epoch ends or a
 * flush: the variant that keeps the buffer alive until then. */
static void put_slot_buf(int *v, int round, int t)
{
    for (int k = 0; k < K; k++)
        v[k] = val(round, me, t, k);
    OK(MPI_Put(v, K, MPI_INT, t, SLOT(me, 0), K, MPI_INT, win));
}

static void check_slots(const char *what, int round, const int *from)
{
    for (int o = 0; o < n; o++) {
        if (!from[o])
            continue;
        for (int k = 0; k < K; k++) {
            int want = val(round, o, me, k), got = mem[SLOT(o, k)];
            EXPECT(got == want, "%s: slot of origin %d [%d] = %d, want %d", what, o, k, got, want);
        }
    }
}

static void check_ro(const char *what, const int *got, int t)
{
    for (int i = 0; i < n; i++)
        EXPECT(got[i] == ro_val(t, i), "%s: Get of RO[%d] from %d = %d, want %d", what, i, t,
               got[i], ro_val(t, i));
}

static void all_from(int *from)
{
    for (int o = 0; o < n; o++)
        from[o] = 1;
}

static void fence_plain(void)
{
    int from[8], *g = malloc(sizeof(int) * (size_t)(n * n));
    int one;

    rs_case("fence");
    all_from(from);
    reset();
    OK(MPI_Win_fence(0, win));
    for (int t = 0; t < n; t++)
        put_slot(1, t);
    OK(MPI_Win_fence(0, win));
    check_slots("fence put", 1, from);
    one = me + 1;
    for (int t = 0; t < n; t++) {
        OK(MPI_Get(g + t * n, n, MPI_INT, t, RO(0), n, MPI_INT, win));
        OK(MPI_Accumulate(&one, 1, MPI_INT, t, ACC(0), 1, MPI_INT, MPI_SUM, win));
    }
    OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    for (int t = 0; t < n; t++)
        check_ro("fence get", g + t * n, t);
    EXPECT(mem[ACC(0)] == n * (n + 1) / 2, "fence accumulate: %d, want %d", mem[ACC(0)],
           n * (n + 1) / 2);
    free(g);
}

static void fence_asserts(void)
{
    int from[8], *g = malloc(sizeof(int) * (size_t)(n * n));

    rs_case("fence+asserts");
    all_from(from);
    reset();
    OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    for (int t = 0; t < n; t++)
        put_slot(2, t);
    /* the next epoch only reads: no puts into this window, no local stores */
    OK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win));
    check_slots("fence(NOPRECEDE) put", 2, from);
    for (int t = 0; t < n; t++)
        OK(MPI_Get(g + t * n, n, MPI_INT, t, RO(0), n, MPI_INT, win));
    OK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win));
    for (int t = 0; t < n; t++)
        check_ro("fence(NOPUT) get", g + t * n, t);
    free(g);
}

static MPI_Group group_of(const int *ranks, int count)
{
    MPI_Group world, g = MPI_GROUP_NULL;
    int uniq[8], u = 0;

    for (int i = 0; i < count; i++) {
        int dup = 0;
        for (int j = 0; j < u; j++)
            dup |= uniq[j] == ranks[i];
        if (!dup)
            uniq[u++] = ranks[i];
    }
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, u, uniq, &g);
    MPI_Group_free(&world);
    return g;
}

static void pscw_all(void)
{
    int from[8], all[8], flag = 0, rc = MPI_SUCCESS;
    MPI_Group g;

    rs_case("pscw+test");
    all_from(from);
    for (int i = 0; i < n; i++)
        all[i] = i;
    g = group_of(all, n);
    reset();
    OK(MPI_Win_post(g, 0, win));
    OK(MPI_Win_start(g, 0, win));
    for (int t = 0; t < n; t++)
        put_slot(3, t);
    OK(MPI_Win_complete(win));
    while (!flag && rc == MPI_SUCCESS)
        rc = MPI_Win_test(win, &flag);
    OK(rc);
    check_slots("pscw put", 3, from);
    MPI_Group_free(&g);
}

/* Each rank accesses the next two ranks: exposure and access groups differ
 * (and have one member where n is 2 or 1). */
static void pscw_ring(void)
{
    int from[8] = { 0 }, to[2], src[2], one = me + 1, want = 0;
    int *g = malloc(sizeof(int) * (size_t)(2 * n));
    MPI_Group eg, ag;

    rs_case("pscw+wait");
    to[0] = (me + 1) % n;
    to[1] = (me + 2) % n;
    src[0] = (me - 1 + n) % n;
    src[1] = (me - 2 + 2 * n) % n;
    from[src[0]] = from[src[1]] = 1;
    for (int o = 0; o < n; o++)
        want += from[o] ? o + 1 : 0;
    eg = group_of(src, 2);
    ag = group_of(to, 2);
    reset();
    OK(MPI_Win_post(eg, 0, win));
    OK(MPI_Win_start(ag, 0, win));
    for (int i = 0; i < 2; i++) {
        if (i == 1 && to[1] == to[0])
            break;
        put_slot(4, to[i]);
        OK(MPI_Accumulate(&one, 1, MPI_INT, to[i], ACC(0), 1, MPI_INT, MPI_SUM, win));
        OK(MPI_Get(g + i * n, n, MPI_INT, to[i], RO(0), n, MPI_INT, win));
    }
    OK(MPI_Win_complete(win));
    OK(MPI_Win_wait(win));
    check_slots("pscw ring put", 4, from);
    EXPECT(mem[ACC(0)] == want, "pscw ring accumulate: %d, want %d", mem[ACC(0)], want);
    check_ro("pscw ring get", g, to[0]);
    if (to[1] != to[0])
        check_ro("pscw ring get", g + n, to[1]);
    MPI_Group_free(&eg);
    MPI_Group_free(&ag);
    free(g);
}

static void lock_shared(void)
{
    int from[8], one = me + 1, *g = malloc(sizeof(int) * (size_t)n);

    rs_case("lock shared");
    all_from(from);
    reset();
    for (int t = 0; t < n; t++) {
        OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
        put_slot(5, t);
        OK(MPI_Accumulate(&one, 1, MPI_INT, t, ACC(0), 1, MPI_INT, MPI_SUM, win));
        OK(MPI_Get(g, n, MPI_INT, t, RO(0), n, MPI_INT, win));
        OK(MPI_Win_unlock(t, win));
        check_ro("lock shared get", g, t);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
    check_slots("lock shared put", 5, from);
    EXPECT(mem[ACC(0)] == n * (n + 1) / 2, "lock shared accumulate: %d, want %d", mem[ACC(0)],
           n * (n + 1) / 2);
    OK(MPI_Win_unlock(me, win));
    free(g);
}

/* Get + flush + Put of a counter is not atomic: only the exclusive lock
 * keeps two ranks from losing an increment. */
static void lock_exclusive(void)
{
    int x;

    rs_case("lock exclusive");
    reset();
    for (int r = 0; r < LOCK_ROUNDS; r++) {
        for (int i = 0; i < n; i++) {
            int t = (me + i) % n;
            OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
            x = -1;
            OK(MPI_Get(&x, 1, MPI_INT, t, ACC(1), 1, MPI_INT, win));
            OK(MPI_Win_flush(t, win));
            x++;
            OK(MPI_Put(&x, 1, MPI_INT, t, ACC(1), 1, MPI_INT, win));
            OK(MPI_Win_unlock(t, win));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
    EXPECT(mem[ACC(1)] == n * LOCK_ROUNDS, "counter under exclusive locks: %d, want %d",
           mem[ACC(1)], n * LOCK_ROUNDS);
    OK(MPI_Win_unlock(me, win));
}

static void lock_all_flush(void)
{
    int from[8], got[K], b[K], c, *bufs = malloc(sizeof(int) * (size_t)(n * K));

    rs_case("lock_all+flush");
    all_from(from);
    reset();
    OK(MPI_Win_lock_all(0, win));
    for (int t = 0; t < n; t++) {
        put_slot_buf(bufs + t * K, 6, t);
        OK(MPI_Win_flush(t, win));
        for (int k = 0; k < K; k++)
            got[k] = -2;
        OK(MPI_Get(got, K, MPI_INT, t, SLOT(me, 0), K, MPI_INT, win));
        OK(MPI_Win_flush_local(t, win));
        for (int k = 0; k < K; k++)
            EXPECT(got[k] == val(6, me, t, k), "Get after flush from %d [%d] = %d, want %d", t,
                   k, got[k], val(6, me, t, k));
        /* after flush_local the origin buffer is ours again */
        put_slot_buf(b, 7, t);
        OK(MPI_Win_flush_local(t, win));
        for (int k = 0; k < K; k++)
            b[k] = -3;
        OK(MPI_Win_flush(t, win));
    }
    for (int t = 0; t < n; t++) {
        c = me + 1;
        OK(MPI_Accumulate(&c, 1, MPI_INT, t, ACC(0), 1, MPI_INT, MPI_SUM, win));
        OK(MPI_Win_flush_local_all(win));
        c = -1000;
    }
    OK(MPI_Win_flush_all(win));
    OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
    check_slots("put after flush_local", 7, from);
    EXPECT(mem[ACC(0)] == n * (n + 1) / 2, "accumulate after flush_local_all: %d, want %d",
           mem[ACC(0)], n * (n + 1) / 2);
    OK(MPI_Win_unlock(me, win));
    free(bufs);
}

static void win_sync(void)
{
    int from[8], *g = malloc(sizeof(int) * (size_t)(n * n));

    rs_case("Win_sync");
    all_from(from);
    reset();
    OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < n; i++)
        mem[RO(i)] = ro_val(me, i) + 1;
    OK(MPI_Win_sync(win));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = 0; t < n; t++)
        OK(MPI_Get(g + t * n, n, MPI_INT, t, RO(0), n, MPI_INT, win));
    OK(MPI_Win_flush_all(win));
    for (int t = 0; t < n; t++)
        for (int i = 0; i < n; i++)
            EXPECT(g[t * n + i] == ro_val(t, i) + 1,
                   "local store of %d seen by Get after Win_sync: RO[%d] = %d, want %d", t, i,
                   g[t * n + i], ro_val(t, i) + 1);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = 0; t < n; t++)
        put_slot(8, t);
    OK(MPI_Win_flush_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Win_sync(win));
    check_slots("remote put seen by load after Win_sync", 8, from);
    OK(MPI_Win_unlock_all(win));
    free(g);
}

int main(int argc, char **argv)
{
    rs_init(&argc, &argv);
    me = th_rank;
    n = th_size;
    if (n > 8)
        TH_SKIP("at most 8 ranks");
    for (int f = RS_CREATE; f <= RS_ALLOCATE; f++) {
        void *base;

        rs_flavor_now = rs_flavor_name[f];
        rs_case("window");
        if (!rs_win((enum rs_flavor)f, (MPI_Aint)sizeof(int) * WIN_INTS, (int)sizeof(int),
                    MPI_COMM_WORLD, &base, &win))
            continue;
        mem = base;
        fence_plain();
        fence_asserts();
        pscw_all();
        pscw_ring();
        lock_shared();
        lock_exclusive();
        lock_all_flush();
        win_sync();
        rs_case("free");
        MPI_Barrier(MPI_COMM_WORLD);
        rs_win_free((enum rs_flavor)f, base, &win);
    }
    th_case = NULL;
    return mt_finish("rmas_sync");
}
