/*
 * rmas_win: windows and everything around them.
 *
 *   Win_create with a size and disp_unit that differ by rank: attributes
 *   (BASE, SIZE, DISP_UNIT, CREATE_FLAVOR, MODEL), a Put lands at
 *   target_disp x the target's disp_unit; Win_get_group; names; info;
 *   keyvals and attributes (the delete callback runs at Win_delete_attr and
 *   at Win_free, the copy callback never); Win_c2f/f2c; error handlers (the
 *   default MPI_ERRORS_ARE_FATAL, a user handler through
 *   Win_call_errhandler, then MPI_ERRORS_RETURN and the classes
 *   MPI_ERR_RMA_RANGE, MPI_ERR_RMA_SYNC, MPI_ERR_WIN, MPI_ERR_RANK);
 *   Win_allocate: BASE is the pointer returned, 4 MiB Put and Get checked
 *   word by word, zero-size transfers and zero-size windows; request-based
 *   Rput, Rget, Raccumulate, Rget_accumulate with Wait, Test, Waitall;
 *   Win_allocate_shared + Win_shared_query: sizes, contiguity, load/store
 *   visibility after Win_sync + barrier;
 *   Win_create_dynamic + attach/detach: Put to an attached address.
 */
#include "tests/mpi/rmas_common.h"

#define BIG (4 << 20)

static int me, n, next, prev;

static int err_class(int rc)
{
    int c = -1;

    MPI_Error_class(rc, &c);
    return c;
}

static void check_flavor(MPI_Win win, const char *want_name, int want)
{
    int *v = NULL, flag = 0;


    OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &v, &flag));
    EXPECT(flag && v != NULL && *v == want, "MPI_WIN_CREATE_FLAVOR %d, want %s (%d)",
           flag && v ? *v : -1, want_name, want);
    v = NULL;
    flag = 0;
    OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &v, &flag));
    EXPECT(flag && v != NULL && (*v == MPI_WIN_UNIFIED || *v == MPI_WIN_SEPARATE),
           "MPI_WIN_MODEL %d", flag && v ? *v : -1);
}

static int del_calls, copy_calls;
static int win_copy(MPI_Win w, int k, void *extra, void *in, void *out, int *flag)
{
    (void)w; (void)k; (void)extra; (void)in; (void)out;
    *flag = 0;
    copy_calls++;
    return MPI_SUCCESS;
}
static int win_del(MPI_Win w, int k, void *val, void *extra)
{
    (void)w; (void)k;
    if (val == extra)
        del_calls++;
    return MPI_SUCCESS;
}
static int handler_calls, handler_code;
static MPI_Win handler_win;
static void win_handler(MPI_Win *w, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_win = *w;
}

static void create_section(void)
{
    MPI_Aint size = (MPI_Aint)(me + 1) * 64;
    int du = me % 2 ? 1 : 4, du_next = next % 2 ? 1 : 4, flag = 0, len = -1, cmp = -1, key;
    /* slack past the window: an implementation that misses the Put past
     * the end (below) writes there, not into the heap */
    char *base = calloc(1, (size_t)size + 64), name[MPI_MAX_OBJECT_NAME];
    void *bp = NULL;
    MPI_Aint *sp = NULL;
    int *dp = NULL, val = 4242 + me, ok, keyx;
    MPI_Win win = MPI_WIN_NULL;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL, mine = MPI_ERRHANDLER_NULL;
    MPI_Group wg, cg;
    MPI_Info info, used = MPI_INFO_NULL;

    rs_flavor_now = "create";
    rs_case("Win_create");
    MPI_Info_create(&info);
    MPI_Info_set(info, "accumulate_ordering", "rar,raw,war,waw");
    ok = OK(MPI_Win_create(base, size, du, info, MPI_COMM_WORLD, &win));
    MPI_Info_free(&info);
    if (!rs_all(ok && win != MPI_WIN_NULL)) {
        EXPECT(0, "Win_create failed somewhere: section skipped");
        free(base);
        return;
    }
    rs_case("error handlers");
    OK(MPI_Win_get_errhandler(win, &eh));
    EXPECT(eh == MPI_ERRORS_ARE_FATAL, "a new window's error handler is not MPI_ERRORS_ARE_FATAL");
    if (eh != MPI_ERRHANDLER_NULL)
        MPI_Errhandler_free(&eh);
    OK(MPI_Win_create_errhandler(win_handler, &mine));
    OK(MPI_Win_set_errhandler(win, mine));
    OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    EXPECT(handler_calls == 1 && handler_code == MPI_ERR_OTHER && handler_win == win,
           "user handler: %d calls, code %d", handler_calls, handler_code);
    if (mine != MPI_ERRHANDLER_NULL)
        MPI_Errhandler_free(&mine);
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    OK(MPI_Win_get_errhandler(win, &eh));
    EXPECT(eh == MPI_ERRORS_RETURN, "Win_get_errhandler after set to MPI_ERRORS_RETURN");
    if (eh != MPI_ERRHANDLER_NULL)
        MPI_Errhandler_free(&eh);

    rs_case("attributes");
    OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &bp, &flag));
    EXPECT(flag && bp == base, "MPI_WIN_BASE %p, want %p", bp, (void *)base);
    OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sp, &flag));
    EXPECT(flag && sp && *sp == size, "MPI_WIN_SIZE %ld, want %ld", sp ? (long)*sp : -1L,
           (long)size);
    OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &dp, &flag));
    EXPECT(flag && dp && *dp == du, "MPI_WIN_DISP_UNIT %d, want %d", dp ? *dp : -1, du);
    check_flavor(win, "MPI_WIN_FLAVOR_CREATE", MPI_WIN_FLAVOR_CREATE);
    OK(MPI_Win_get_group(win, &wg));
    MPI_Comm_group(MPI_COMM_WORLD, &cg);
    MPI_Group_compare(wg, cg, &cmp);
    EXPECT(cmp == MPI_IDENT, "Win_get_group compares %d to the communicator's", cmp);
    MPI_Group_free(&wg);
    MPI_Group_free(&cg);

    rs_case("names, info, c2f");
    name[0] = 'x';
    OK(MPI_Win_get_name(win, name, &len));
    /* MPI 3.1 6.8: an empty string until a name is set (Open MPI 4.1 says
     * "rdma window 3": RMAS_LAX=name there) */
    EXPECT((len == 0 && name[0] == '\0') || rs_lax("name"), "default name '%.*s' (%d)", len > 0 ? len : 0, name, len);
    OK(MPI_Win_set_name(win, "rmas window"));
    OK(MPI_Win_get_name(win, name, &len));
    EXPECT(len == 11 && strcmp(name, "rmas window") == 0, "name '%s' (%d)", name, len);
    OK(MPI_Win_get_info(win, &used));
    EXPECT(used != MPI_INFO_NULL, "Win_get_info gave MPI_INFO_NULL");
    if (used != MPI_INFO_NULL)
        MPI_Info_free(&used);
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "false");
    OK(MPI_Win_set_info(win, info));
    MPI_Info_free(&info);
    EXPECT(MPI_Win_f2c(MPI_Win_c2f(win)) == win, "Win_f2c(Win_c2f(win)) is another window");
    EXPECT(MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL, "c2f/f2c of MPI_WIN_NULL");

    rs_case("keyvals");
    key = MPI_KEYVAL_INVALID;
    OK(MPI_Win_create_keyval(win_copy, win_del, &key, &keyx));
    OK(MPI_Win_set_attr(win, key, &keyx));
    bp = NULL;
    OK(MPI_Win_get_attr(win, key, &bp, &flag));
    EXPECT(flag && bp == &keyx, "attribute read back %p, want %p", bp, (void *)&keyx);
    OK(MPI_Win_delete_attr(win, key));
    EXPECT(del_calls == 1, "delete callback ran %d times at Win_delete_attr", del_calls);
    OK(MPI_Win_get_attr(win, key, &bp, &flag));
    EXPECT(!flag, "attribute still set after Win_delete_attr");
    OK(MPI_Win_set_attr(win, key, &keyx));

    rs_case("disp_unit");
    OK(MPI_Win_fence(0, win));
    OK(MPI_Put(&val, 1, MPI_INT, next, 2, 1, MPI_INT, win));
    OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    {
        int got, want = 4242 + prev, du_here = du;
        memcpy(&got, base + 2 * du_here, sizeof(int));
        EXPECT(got == want, "Put at disp 2 (disp_unit %d) read %d, want %d", du_here, got, want);
    }
    (void)du_next;

    rs_case("error classes");
    {
        int big[64] = { 0 }, rc;
        MPI_Aint next_size = (MPI_Aint)(next + 1) * 64;
        MPI_Barrier(MPI_COMM_WORLD);
        OK(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win));
        rc = MPI_Put(big, 4, MPI_INT, next, next_size / du_next, 4, MPI_INT, win);
        EXPECT(err_class(rc) == MPI_ERR_RMA_RANGE || rs_lax("range"), "Put past the end: class %d, want %d",
               err_class(rc), MPI_ERR_RMA_RANGE);
        rc = MPI_Put(big, 1, MPI_INT, n, 0, 1, MPI_INT, win);
        EXPECT(err_class(rc) == MPI_ERR_RANK, "Put to rank %d: class %d, want %d", n,
               err_class(rc), MPI_ERR_RANK);
        OK(MPI_Win_unlock(next, win));
        rc = MPI_Win_unlock(next, win);
        EXPECT(err_class(rc) == MPI_ERR_RMA_SYNC, "unlock without lock: class %d, want %d",
               err_class(rc), MPI_ERR_RMA_SYNC);
        rc = MPI_Put(big, 1, MPI_INT, next, 0, 1, MPI_INT, MPI_WIN_NULL);
        EXPECT(err_class(rc) == MPI_ERR_WIN, "Put on MPI_WIN_NULL: class %d, want %d",
               err_class(rc), MPI_ERR_WIN);
        rc = MPI_Win_fence(0, MPI_WIN_NULL);
        EXPECT(err_class(rc) == MPI_ERR_WIN, "fence on MPI_WIN_NULL: class %d, want %d",
               err_class(rc), MPI_ERR_WIN);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    rs_case("free");
    del_calls = 0;
    OK(MPI_Win_free(&win));
    EXPECT(win == MPI_WIN_NULL, "Win_free did not set MPI_WIN_NULL");
    EXPECT(del_calls == 1, "delete callback ran %d times at Win_free, want 1", del_calls);
    EXPECT(copy_calls == 0, "copy callback ran %d times (windows are never copied)", copy_calls);
    OK(MPI_Win_free_keyval(&key));
    free(base);
}

static void allocate_section(void)
{
    unsigned *mem = NULL, *buf = malloc(BIG);
    MPI_Win win, zwin = MPI_WIN_NULL;
    void *bp = NULL, *zb = NULL;
    MPI_Aint *sp = NULL;
    int flag = 0, bad = 0;

    rs_flavor_now = "allocate";
    rs_case("Win_allocate 4 MiB");
    if (!rs_win(RS_ALLOCATE, BIG, 4, MPI_COMM_WORLD, (void **)&mem, &win)) {
        free(buf);
        return;
    }
    OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &bp, &flag));
    EXPECT(flag && bp == mem, "MPI_WIN_BASE %p, baseptr %p", bp, (void *)mem);
    check_flavor(win, "MPI_WIN_FLAVOR_ALLOCATE", MPI_WIN_FLAVOR_ALLOCATE);
    for (unsigned i = 0; i < BIG / 4; i++) {
        mem[i] = 0;
        buf[i] = (unsigned)me * 0x01000000u + i;
    }
    OK(MPI_Win_fence(0, win));
    OK(MPI_Put(buf, BIG / 4, MPI_UNSIGNED, next, 0, BIG / 4, MPI_UNSIGNED, win));
    OK(MPI_Win_fence(0, win));
    for (unsigned i = 0; i < BIG / 4 && bad < 3; i++)
        if (mem[i] != (unsigned)prev * 0x01000000u + i) {
            EXPECT(0, "4 MiB Put: word %u = %#x, want %#x", i, mem[i],
                   (unsigned)prev * 0x01000000u + i);
            bad++;
        }
    memset(buf, 0, BIG);
    OK(MPI_Get(buf, BIG / 4, MPI_UNSIGNED, prev, 0, BIG / 4, MPI_UNSIGNED, win));
    OK(MPI_Win_fence(0, win));
    bad = 0;
    /* prev's window holds what prev's prev put */
    for (unsigned i = 0; i < BIG / 4 && bad < 3; i++) {
        unsigned want = (unsigned)((prev - 1 + n) % n) * 0x01000000u + i;
        if (buf[i] != want) {
            EXPECT(0, "4 MiB Get: word %u = %#x, want %#x", i, buf[i], want);
            bad++;
        }
    }
    rs_case("zero-size");
    buf[0] = 77;
    OK(MPI_Put(buf, 0, MPI_UNSIGNED, next, 0, 0, MPI_UNSIGNED, win));
    OK(MPI_Get(buf, 0, MPI_UNSIGNED, next, 0, 0, MPI_UNSIGNED, win));
    OK(MPI_Accumulate(buf, 0, MPI_UNSIGNED, next, 0, 0, MPI_UNSIGNED, MPI_SUM, win));
    OK(MPI_Win_fence(0, win));
    EXPECT(buf[0] == 77 && mem[0] == (unsigned)prev * 0x01000000u,
           "zero-size transfers changed memory");

    rs_case("request-based");
    OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Win_lock_all(0, win));
    {
        MPI_Request r[8], *ra = malloc(sizeof(MPI_Request) * (size_t)n);
        unsigned v[4] = { 11u + (unsigned)me, 12, 13, 14 }, g[4] = { 0 }, one = (unsigned)me + 1;
        unsigned fetched = 0, zero = 0;
        int done = 0;
        OK(MPI_Rput(v, 4, MPI_UNSIGNED, next, 8, 4, MPI_UNSIGNED, win, &r[0]));
        OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
        OK(MPI_Win_flush(next, win));
        OK(MPI_Rget(g, 4, MPI_UNSIGNED, next, 8, 4, MPI_UNSIGNED, win, &r[1]));
        while (!done)
            if (!OK(MPI_Test(&r[1], &done, MPI_STATUS_IGNORE)))
                break;
        EXPECT(g[0] == v[0] && g[3] == 14, "Rget after Rput: %u %u, want %u 14", g[0], g[3],
               v[0]);
        for (int t = 0; t < n; t++)
            OK(MPI_Raccumulate(&one, 1, MPI_UNSIGNED, t, 16, 1, MPI_UNSIGNED, MPI_SUM, win,
                               &ra[t]));
        OK(MPI_Waitall(n, ra, MPI_STATUSES_IGNORE));
        OK(MPI_Win_flush_all(win));
        MPI_Barrier(MPI_COMM_WORLD);
        OK(MPI_Rget_accumulate(&zero, 1, MPI_UNSIGNED, &fetched, 1, MPI_UNSIGNED, next, 16, 1,
                               MPI_UNSIGNED, MPI_NO_OP, win, &r[2]));
        OK(MPI_Wait(&r[2], MPI_STATUS_IGNORE));
        EXPECT(fetched == (unsigned)(n * (n + 1) / 2) +
                              (unsigned)((next - 1 + n) % n) * 0x01000000u + 16,
               "Rget_accumulate NO_OP of the Raccumulate counter %#x", fetched);
        free(ra);
    }
    OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    rs_win_free(RS_ALLOCATE, mem, &win);

    rs_case("zero-size window");
    if (OK(MPI_Win_allocate(me % 2 ? 0 : 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &zb, &zwin))) {
        OK(MPI_Win_get_attr(zwin, MPI_WIN_SIZE, &sp, &flag));
        EXPECT(flag && sp && *sp == (me % 2 ? 0 : 64), "MPI_WIN_SIZE %ld",
               sp ? (long)*sp : -1L);
        OK(MPI_Win_free(&zwin));
    }
    free(buf);
}

static void shared_section(void)
{
    MPI_Comm node;
    MPI_Win win = MPI_WIN_NULL;
    int nr, nn, *mine = NULL, ok, bad = 0;
    MPI_Aint sz = 0;
    int du = 0;
    int *p = NULL, *p0 = NULL;

    rs_flavor_now = "shared";
    rs_case("Win_allocate_shared");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &nn);
    ok = OK(MPI_Win_allocate_shared((MPI_Aint)(nr + 1) * 64, (int)sizeof(int), MPI_INFO_NULL, node,
                                    &mine, &win));
    if (!rs_all_in(ok && win != MPI_WIN_NULL, node)) {
        EXPECT(0, "Win_allocate_shared failed somewhere: section skipped");
        MPI_Comm_free(&node);
        return;
    }
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    check_flavor(win, "MPI_WIN_FLAVOR_SHARED", MPI_WIN_FLAVOR_SHARED);
    for (int r = 0; r < nn; r++) {
        OK(MPI_Win_shared_query(win, r, &sz, &du, &p));
        EXPECT(sz == (MPI_Aint)(r + 1) * 64 && du == (int)sizeof(int),
               "shared_query(%d): size %ld disp_unit %d", r, (long)sz, du);
        if (r == nr)
            EXPECT(p == mine, "shared_query of self %p, baseptr %p", (void *)p, (void *)mine);
        if (r > 0)    /* contiguous by default: rank r starts where r-1 ends */
            EXPECT((char *)p == (char *)p0 + r * 64, "segment %d at %p, want %p", r, (void *)p,
                   (void *)((char *)p0 + r * 64));
        p0 = p;
    }
    OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p));
    OK(MPI_Win_shared_query(win, 0, &sz, &du, &p0));
    EXPECT(p == p0 && sz == 64, "shared_query(MPI_PROC_NULL) %p size %ld, want rank 0's %p",
           (void *)p, (long)sz, (void *)p0);

    rs_case("load/store after Win_sync + barrier");
    OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    for (int i = 0; i < (nr + 1) * 16; i++)
        mine[i] = nr * 1000 + i;
    OK(MPI_Win_sync(win));
    MPI_Barrier(node);
    OK(MPI_Win_sync(win));
    for (int r = 0; r < nn; r++) {
        OK(MPI_Win_shared_query(win, r, &sz, &du, &p));
        for (int i = 0; i < (r + 1) * 16 && bad < 3; i++)
            if (p[i] != r * 1000 + i) {
                EXPECT(0, "load of rank %d's [%d] = %d, want %d", r, i, p[i], r * 1000 + i);
                bad++;
            }
    }
    /* and a store into the next rank's segment, seen there */
    MPI_Barrier(node);
    OK(MPI_Win_shared_query(win, (nr + 1) % nn, &sz, &du, &p));
    p[0] = -5 - nr;
    OK(MPI_Win_sync(win));
    MPI_Barrier(node);
    OK(MPI_Win_sync(win));
    EXPECT(mine[0] == -5 - (nr - 1 + nn) % nn, "store by rank %d into my segment: %d",
           (nr - 1 + nn) % nn, mine[0]);
    OK(MPI_Win_unlock_all(win));
    MPI_Barrier(node);
    OK(MPI_Win_free(&win));
    MPI_Comm_free(&node);
}

static void dynamic_section(void)
{
    MPI_Win win = MPI_WIN_NULL;
    int *buf = calloc(64, sizeof(int)), ok, flag = 0, *dp = NULL, v[4];
    MPI_Aint addr, *addrs = malloc(sizeof(MPI_Aint) * (size_t)n), *sp = NULL;
    void *bp = &flag;

    rs_flavor_now = "dynamic";
    rs_case("Win_create_dynamic");
    ok = OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    if (!rs_all(ok && win != MPI_WIN_NULL)) {
        EXPECT(0, "Win_create_dynamic failed somewhere: section skipped");
        free(buf);
        free(addrs);
        return;
    }
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    check_flavor(win, "MPI_WIN_FLAVOR_DYNAMIC", MPI_WIN_FLAVOR_DYNAMIC);
    OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &bp, &flag));
    EXPECT(flag && bp == MPI_BOTTOM, "MPI_WIN_BASE %p, want MPI_BOTTOM", bp);
    OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sp, &flag));
    EXPECT(flag && sp && *sp == 0, "MPI_WIN_SIZE %ld, want 0", sp ? (long)*sp : -1L);
    OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &dp, &flag));
    EXPECT(flag && dp && *dp == 1, "MPI_WIN_DISP_UNIT %d, want 1", dp ? *dp : -1);
    OK(MPI_Win_attach(win, buf, 64 * sizeof(int)));
    MPI_Get_address(buf, &addr);
    MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    OK(MPI_Win_lock_all(0, win));
    for (int k = 0; k < 4; k++)
        v[k] = 300 + me * 10 + k;
    OK(MPI_Put(v, 4, MPI_INT, next, MPI_Aint_add(addrs[next], 4 * sizeof(int)), 4, MPI_INT, win));
    OK(MPI_Win_flush(next, win));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Win_sync(win));
    for (int k = 0; k < 4; k++)
        EXPECT(buf[4 + k] == 300 + prev * 10 + k, "attached memory [%d] = %d, want %d", 4 + k,
               buf[4 + k], 300 + prev * 10 + k);
    OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Win_detach(win, buf));
    OK(MPI_Win_free(&win));
    free(buf);
    free(addrs);
}

int main(int argc, char **argv)
{
    rs_init(&argc, &argv);
    me = th_rank;
    n = th_size;
    next = (me + 1) % n;
    prev = (me - 1 + n) % n;
    create_section();
    allocate_section();
    shared_section();
    dynamic_section();
    th_case = NULL;
    return mt_finish("rmas_win");
}
