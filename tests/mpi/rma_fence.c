/*
 * One-sided basics (issue 15, step 1): windows of MPI_Win_create and
 * MPI_Win_allocate, their attributes, name, group, info and error
 * handler, and Put/Get/Accumulate in fence epochs with small (inline) and
 * large (separate message, zero-copy) data, on any number of ranks.
 */
#include "tests/mpi/mpitest.h"

#include <stdint.h>

#define N 64
#define BIG (1 << 17)   /* ints: above the inline limit, rendezvous-sized */

static int errs_seen, last_class;

/* The error class of a return code (MPICH returns codes). */
static int cls(int rc)
{
    int c = rc;

    MPI_Error_class(rc, &c);
    return c;
}

static void win_eh(MPI_Win *win, int *code, ...)
{
    (void)win;
    errs_seen++;
    MPI_Error_class(*code, &last_class);
}

static void check_attrs(MPI_Win win, void *base, MPI_Aint size, int du, int flavor)
{
    void *v;
    int flag = 0;

    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_BASE, &v, &flag));
    EXPECT(flag && v == base, "MPI_WIN_BASE %p, want %p", v, base);
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_SIZE, &v, &flag));
    EXPECT(flag && *(MPI_Aint *)v == size, "MPI_WIN_SIZE %ld", (long)*(MPI_Aint *)v);
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &v, &flag));
    EXPECT(flag && *(int *)v == du, "MPI_WIN_DISP_UNIT %d", *(int *)v);
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &v, &flag));
    EXPECT(flag && *(int *)v == flavor, "MPI_WIN_CREATE_FLAVOR %d", *(int *)v);
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_MODEL, &v, &flag));
    EXPECT(flag && *(int *)v == MPI_WIN_UNIFIED, "MPI_WIN_MODEL %d", *(int *)v);
}

static int deleted;

static int del_fn(MPI_Win win, int keyval, void *val, void *extra)
{
    (void)win; (void)keyval; (void)extra;
    deleted += *(int *)val;
    return MPI_SUCCESS;
}

static void test_objects(int rank, int size)
{
    int buf[N];
    MPI_Win win;
    MPI_Group g, wg;
    int res, len, kv, one = 1;
    char name[MPI_MAX_OBJECT_NAME];

    CHECK_RC(MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    check_attrs(win, buf, sizeof(buf), sizeof(int), MPI_WIN_FLAVOR_CREATE);
    CHECK_RC(MPI_Win_get_group(win, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &res);
    EXPECT(res == MPI_IDENT, "window group compares %d to the world's", res);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    CHECK_RC(MPI_Win_get_name(win, name, &len));
    EXPECT(len == 0 && name[0] == '\0', "a new window's name is '%s' (%d), not empty", name, len);
    CHECK_RC(MPI_Win_set_name(win, "rma_fence window"));
    CHECK_RC(MPI_Win_get_name(win, name, &len));
    EXPECT(!strcmp(name, "rma_fence window") && len == 16, "name '%s' (%d)", name, len);

    CHECK_RC(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &kv, NULL));
    CHECK_RC(MPI_Win_set_attr(win, kv, &one));
    void *v = NULL;
    int flag = 0;
    CHECK_RC(MPI_Win_get_attr(win, kv, &v, &flag));
    EXPECT(flag && v == &one, "user attribute not found");

    MPI_Info info, used;
    char val[32];
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "false");
    CHECK_RC(MPI_Win_set_info(win, info));
    MPI_Info_free(&info);
    CHECK_RC(MPI_Win_get_info(win, &used));
    MPI_Info_get(used, "no_locks", sizeof(val) - 1, val, &flag);
    EXPECT(flag && !strcmp(val, "false"), "info no_locks lost");
    MPI_Info_free(&used);

    /* Errors go to the window's handler. */
    MPI_Errhandler eh, got;
    CHECK_RC(MPI_Win_create_errhandler(win_eh, &eh));
    CHECK_RC(MPI_Win_set_errhandler(win, eh));
    CHECK_RC(MPI_Win_get_errhandler(win, &got));
    EXPECT(got == eh, "MPI_Win_get_errhandler %d, want %d", got, eh);
    MPI_Errhandler_free(&got);
    MPI_Errhandler_free(&eh);
    errs_seen = 0;
    /* No epoch open yet: MPI_ERR_RMA_SYNC. */
    EXPECT(cls(MPI_Put(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, win)) == MPI_ERR_RMA_SYNC,
           "put outside an epoch");
    EXPECT(errs_seen == 1 && last_class == MPI_ERR_RMA_SYNC, "handler saw %d (class %d)",
           errs_seen, last_class);
    CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Win_fence(0, win));
    EXPECT(cls(MPI_Put(buf, 1, MPI_INT, size, 0, 1, MPI_INT, win)) == MPI_ERR_RANK, "bad rank");
    EXPECT(cls(MPI_Put(buf, 1, MPI_INT, 0, N, 1, MPI_INT, win)) == MPI_ERR_RMA_RANGE,
           "put past the window's end");
    EXPECT(cls(MPI_Get(buf, 2, MPI_INT, 0, N - 1, 2, MPI_INT, win)) == MPI_ERR_RMA_RANGE,
           "get across the window's end");
    /* displacements whose byte offset passes int64: range errors, never a
     * wrapped address (an undefined overflow, then a write outside the
     * window at the origin or the target) */
    EXPECT(cls(MPI_Put(buf, 1, MPI_INT, 0, (MPI_Aint)(INT64_MAX / (int64_t)sizeof(int)), 1,
                       MPI_INT, win)) == MPI_ERR_RMA_RANGE, "put at the last int64 offset");
    EXPECT(cls(MPI_Put(buf, 1, MPI_INT, 0, (MPI_Aint)INT64_MAX, 1, MPI_INT, win)) ==
           MPI_ERR_RMA_RANGE, "put at target_disp INT64_MAX (times the unit)");
    EXPECT(cls(MPI_Accumulate(buf, 2, MPI_INT, 0, (MPI_Aint)(INT64_MAX / (int64_t)sizeof(int)),
                              2, MPI_INT, MPI_SUM, win)) == MPI_ERR_RMA_RANGE,
           "accumulate across the last int64 offset");
    EXPECT(cls(MPI_Accumulate(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_OP_NULL, win)) == MPI_ERR_OP,
           "accumulate with MPI_OP_NULL");
    EXPECT(cls(MPI_Win_fence(0x4000, win)) == MPI_ERR_ASSERT, "bad fence assert");
    EXPECT(cls(MPI_Win_unlock(0, win)) == MPI_ERR_RMA_SYNC, "unlock without lock");
    EXPECT(cls(MPI_Win_lock(7, 0, 0, win)) == MPI_ERR_LOCKTYPE, "bad lock type");
    CHECK_RC(MPI_Put(buf, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
    CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    /* Synchronization out of order: MPI_ERR_RMA_SYNC; calls of another
     * flavor: MPI_ERR_RMA_FLAVOR. */
    EXPECT(cls(MPI_Win_complete(win)) == MPI_ERR_RMA_SYNC, "complete without start");
    EXPECT(cls(MPI_Win_wait(win)) == MPI_ERR_RMA_SYNC, "wait without post");
    EXPECT(cls(MPI_Win_flush_all(win)) == MPI_ERR_RMA_SYNC, "flush_all without a lock");
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    EXPECT(cls(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win)) == MPI_ERR_RMA_SYNC, "lock twice");
    EXPECT(cls(MPI_Win_lock_all(0, win)) == MPI_ERR_RMA_SYNC, "lock_all inside a lock");
    EXPECT(cls(MPI_Win_fence(0, win)) == MPI_ERR_RMA_SYNC, "fence inside a lock epoch");
    EXPECT(cls(MPI_Win_free(&win)) == MPI_ERR_RMA_SYNC, "free inside a lock epoch");
    CHECK_RC(MPI_Win_unlock(0, win));
    MPI_Aint qsz;
    int qdu;
    void *qbase;
    EXPECT(cls(MPI_Win_shared_query(win, 0, &qsz, &qdu, &qbase)) == MPI_ERR_RMA_FLAVOR,
           "shared_query of a created window");
    EXPECT(cls(MPI_Win_attach(win, buf, 4)) == MPI_ERR_RMA_FLAVOR,
           "attach to a created window");

    deleted = 0;
    CHECK_RC(MPI_Win_free(&win));
    EXPECT(win == MPI_WIN_NULL, "win not MPI_WIN_NULL after free");
    EXPECT(deleted == 1, "the attribute's delete callback ran %d times", deleted);
    CHECK_RC(MPI_Win_free_keyval(&kv));
    (void)rank;
}

static void test_fence(int rank, int size, int use_allocate)
{
    int *base;
    MPI_Win win;
    int nxt = (rank + 1) % size, prv = (rank + size - 1) % size;
    MPI_Aint bytes = (MPI_Aint)(3 * N + BIG) * (MPI_Aint)sizeof(int);

    if (use_allocate) {
        CHECK_RC(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                                  &win));
        check_attrs(win, base, bytes, sizeof(int), MPI_WIN_FLAVOR_ALLOCATE);
    } else {
        base = malloc((size_t)bytes);
        CHECK_RC(MPI_Win_create(base, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    }
    /* Layout: [0,N) puts, [N,2N) accumulates, [2N,3N) the get source, then BIG. */
    for (int i = 0; i < N; i++) {
        base[i] = -1;
        base[N + i] = 0;
        base[2 * N + i] = rank * 1000 + i;
    }
    for (int i = 0; i < BIG; i++)
        base[3 * N + i] = -1;
    int *src = malloc(BIG * sizeof(int)), got[N], gotp[N];
    for (int i = 0; i < BIG; i++)
        src[i] = rank * 7 + i;
    int mine[N];
    for (int i = 0; i < N; i++)
        mine[i] = rank * 100 + i;

    CHECK_RC(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    /* Put to the next rank; everyone accumulates into rank 0's and its
     * next's; get from the previous; a big put to the next. */
    CHECK_RC(MPI_Put(mine, N, MPI_INT, nxt, 0, N, MPI_INT, win));
    int ones[N];
    for (int i = 0; i < N; i++)
        ones[i] = i + 1;
    CHECK_RC(MPI_Accumulate(ones, N, MPI_INT, 0, N, N, MPI_INT, MPI_SUM, win));
    CHECK_RC(MPI_Get(got, N, MPI_INT, prv, 2 * N, N, MPI_INT, win));
    CHECK_RC(MPI_Put(src, BIG, MPI_INT, nxt, 3 * N, BIG, MPI_INT, win));
    CHECK_RC(MPI_Win_fence(0, win));

    int bad = 0;
    for (int i = 0; i < N; i++) {
        bad += base[i] != prv * 100 + i;
        bad += got[i] != prv * 1000 + i;
        bad += base[N + i] != (rank == 0 ? size * (i + 1) : 0);
    }
    EXPECT(bad == 0, "%d wrong elements after the first fence epoch", bad);
    bad = 0;
    for (int i = 0; i < BIG; i++)
        bad += base[3 * N + i] != prv * 7 + i;
    EXPECT(bad == 0, "%d wrong elements of the big put", bad);
    /* Checked before anyone starts the next epoch's operations. */
    MPI_Barrier(MPI_COMM_WORLD);

    /* Second epoch: a big get back, MPI_REPLACE and MPI_MAX, a get of the
     * new puts. */
    int *bigget = malloc(BIG * sizeof(int));
    CHECK_RC(MPI_Get(bigget, BIG, MPI_INT, nxt, 3 * N, BIG, MPI_INT, win));
    CHECK_RC(MPI_Accumulate(mine, N, MPI_INT, nxt, N, N, MPI_INT, MPI_REPLACE, win));
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_Accumulate(ones, N, MPI_INT, nxt, N, N, MPI_INT, MPI_MAX, win));
    CHECK_RC(MPI_Get(gotp, N, MPI_INT, nxt, 0, N, MPI_INT, win));
    CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    bad = 0;
    for (int i = 0; i < BIG; i++)
        bad += bigget[i] != rank * 7 + i;   /* what this rank put there */
    for (int i = 0; i < N; i++) {
        int want = prv * 100 + i > i + 1 ? prv * 100 + i : i + 1;

        bad += base[N + i] != want;
        bad += gotp[i] != rank * 100 + i;
    }
    EXPECT(bad == 0, "%d wrong elements after the second and third epochs", bad);

    CHECK_RC(MPI_Win_free(&win));
    if (!use_allocate)
        free(base);
    free(src);
    free(bigget);
}

/* MPI_REPLACE of MPI_SHORT_INT pairs: each rank replaces the next rank's
 * pair; the whole int must arrive (the kernel once copied the pair's size,
 * 6 bytes, over its 8-byte layout: the int's high half stayed). */
static void test_replace_pair(int rank, int size, int use_allocate)
{
    struct si { short s; int i; } *base, mine = { (short)(rank + 1), 0x12340000 + rank };
    int nxt = (rank + 1) % size, prv = (rank + size - 1) % size;
    MPI_Aint bytes = 2 * (MPI_Aint)sizeof(struct si);
    MPI_Win win;

    if (use_allocate) {
        CHECK_RC(MPI_Win_allocate(bytes, sizeof(struct si), MPI_INFO_NULL, MPI_COMM_WORLD,
                                  &base, &win));
    } else {
        base = malloc((size_t)bytes);
        CHECK_RC(MPI_Win_create(base, bytes, sizeof(struct si), MPI_INFO_NULL, MPI_COMM_WORLD,
                                &win));
    }
    base[0].s = base[1].s = 0;
    base[0].i = base[1].i = 0;
    CHECK_RC(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    CHECK_RC(MPI_Accumulate(&mine, 1, MPI_SHORT_INT, nxt, 1, 1, MPI_SHORT_INT, MPI_REPLACE, win));
    CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    EXPECT(base[1].s == prv + 1 && base[1].i == 0x12340000 + prv && base[0].i == 0,
           "MPI_REPLACE of MPI_SHORT_INT (%s): {%d, %#x}, want {%d, %#x}",
           use_allocate ? "allocate" : "create", base[1].s, (unsigned)base[1].i, prv + 1,
           (unsigned)(0x12340000 + prv));
    CHECK_RC(MPI_Win_free(&win));
    if (!use_allocate)
        free(base);
}

int main(int argc, char **argv)
{
    int rank, size;

    mt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_objects(rank, size);
    test_fence(rank, size, 0);
    test_fence(rank, size, 1);
    test_replace_pair(rank, size, 0);
    test_replace_pair(rank, size, 1);
    return mt_finish("rma_fence");
}
