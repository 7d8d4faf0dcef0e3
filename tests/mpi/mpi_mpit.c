/*
 * MPI_T, the tool information interface (mpi/mpit.c):
 * - before MPI_Init: every call refused until MPI_T_init_thread; nested
 *   init/finalize; every control variable enumerated (name, doc, type,
 *   scope, enumeration items) and read; a row set in the environment by the
 *   driver (RTM_MPI_BCAST_LARGE=256K) reads back as that; writes refused
 *   (SET_NOT_NOW for a writable row, SET_NEVER for one read at init);
 *   categories cover every variable exactly once; performance variables
 *   enumerated, names unique, get_index finds each;
 * - after MPI_Init: a writable row written and read back (range checked),
 *   the written collective switch point used by a bcast whose data is
 *   checked; on 2 ranks, the counters of the transport in RTM_TRANSPORTS
 *   move by exactly the messages and bytes of known traffic (eager and
 *   rendezvous), unexpected messages are counted as held and the
 *   high-water mark follows, eager sends that met no credit are counted;
 *   start/stop/reset/write/readreset of a counter handle, continuous ones
 *   refusing them; sessions and handles freed, stale ones refused;
 * - after MPI_Finalize: still usable until the last MPI_T_finalize.
 */
#include "mpitest.h"

#include <limits.h>

#define SMALL     100
#define NSMALL    10
#define LARGE     (1 << 20)
#define NLARGE    2

static int cvar_index(const char *name)
{
    int i = -1;

    CHECK(MPI_T_cvar_get_index(name, &i) == MPI_SUCCESS, "no control variable %s", name);
    return i;
}

static int pvar_index(const char *name, int var_class)
{
    int i = -1;

    CHECK(MPI_T_pvar_get_index(name, var_class, &i) == MPI_SUCCESS,
          "no performance variable %s (class %d)", name, var_class);
    return i;
}

static int cvar_read_int(const char *name)
{
    MPI_T_cvar_handle h;
    int count = 0, v = -1;

    CHECK_RC(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, &count));
    EXPECT(count == 1, "%s: count %d", name, count);
    CHECK_RC(MPI_T_cvar_read(h, &v));
    CHECK_RC(MPI_T_cvar_handle_free(&h));
    return v;
}

static int cvar_write_int(const char *name, int v)
{
    MPI_T_cvar_handle h;
    int count = 0, rc;

    CHECK_RC(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, &count));
    rc = MPI_T_cvar_write(h, &v);
    CHECK_RC(MPI_T_cvar_handle_free(&h));
    return rc;
}

/* Every control variable: its description and value, checked for what
 * the standard allows. Returns how many there are. */
static int check_cvars(void)
{
    int num = -1, bcast_large_seen = 0;

    CHECK_RC(MPI_T_cvar_get_num(&num));
    EXPECT(num >= 30, "only %d control variables", num);
    for (int i = 0; i < num; i++) {
        char name[128], desc[1024], value[1024];
        int name_len = 0, desc_len = 0, verbosity, bind, scope, count, idx = -1;
        MPI_Datatype dt;
        MPI_T_enum et;
        MPI_T_cvar_handle h;

        /* lengths first, as a tool sizes its buffers */
        CHECK_RC(MPI_T_cvar_get_info(i, NULL, &name_len, NULL, NULL, NULL, NULL, &desc_len,
                                     NULL, NULL));
        EXPECT(name_len > 5 && name_len <= (int)sizeof(name), "cvar %d: name_len %d", i,
               name_len);
        EXPECT(desc_len > 10 && desc_len <= (int)sizeof(desc), "cvar %d: desc_len %d", i,
               desc_len);
        name_len = sizeof(name);
        desc_len = sizeof(desc);
        CHECK_RC(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &dt, &et, desc, &desc_len,
                                     &bind, &scope));
        th_case = name;
        EXPECT(strncmp(name, "RTM_", 4) == 0, "name \"%s\"", name);
        EXPECT(name_len == (int)strlen(name) + 1, "name_len %d", name_len);
        EXPECT(desc_len == (int)strlen(desc) + 1 && desc[0] != '\0', "desc \"%s\"", desc);
        EXPECT(verbosity >= MPI_T_VERBOSITY_USER_BASIC &&
               verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL, "verbosity %d", verbosity);
        EXPECT(bind == MPI_T_BIND_NO_OBJECT, "bind %d", bind);
        EXPECT(scope >= MPI_T_SCOPE_CONSTANT && scope <= MPI_T_SCOPE_ALL_EQ, "scope %d", scope);
        EXPECT(dt == MPI_INT || dt == MPI_COUNT || dt == MPI_UNSIGNED_LONG_LONG ||
               dt == MPI_CHAR, "datatype %d", dt);
        CHECK_RC(MPI_T_cvar_get_index(name, &idx));
        EXPECT(idx == i, "get_index gave %d", idx);
        /* a short buffer gets a terminated prefix */
        name_len = 5;
        CHECK_RC(MPI_T_cvar_get_info(i, value, &name_len, NULL, NULL, NULL, NULL, NULL, NULL,
                                     NULL));
        EXPECT(name_len == 5 && strcmp(value, "RTM_") == 0, "short name \"%s\" (%d)", value,
               name_len);
        if (et != MPI_T_ENUM_NULL) {
            int items = 0, ename_len = sizeof(value);

            EXPECT(dt == MPI_INT, "an enumeration of datatype %d", dt);
            CHECK_RC(MPI_T_enum_get_info(et, &items, value, &ename_len));
            EXPECT(items >= 2, "enumeration of %d items", items);
            for (int k = 0; k < items; k++) {
                int v = -1, len = sizeof(value);

                CHECK_RC(MPI_T_enum_get_item(et, k, &v, value, &len));
                EXPECT(v == k && len > 1, "item %d: value %d, \"%s\"", k, v, value);
            }
            EXPECT(MPI_T_enum_get_item(et, items, &count, NULL, NULL) == MPI_T_ERR_INVALID_ITEM,
                   "item past the last accepted");
        }
        CHECK_RC(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
        if (dt == MPI_CHAR) {
            EXPECT(count >= 1 && count <= (int)sizeof(value), "string count %d", count);
            memset(value, 'x', sizeof(value));
            CHECK_RC(MPI_T_cvar_read(h, value));
            EXPECT(memchr(value, '\0', (size_t)count) != NULL, "string not terminated");
        } else {
            long long v = -1;

            EXPECT(count == 1, "count %d", count);
            CHECK_RC(MPI_T_cvar_read(h, &v));
            if (!strcmp(name, "RTM_MPI_BCAST_LARGE")) {
                /* the driver sets it: the value is the environment's */
                EXPECT(dt == MPI_UNSIGNED_LONG_LONG && v == 256 * 1024, "read %lld", v);
                bcast_large_seen = 1;
            }
        }
        CHECK_RC(MPI_T_cvar_handle_free(&h));
        EXPECT(h == MPI_T_CVAR_HANDLE_NULL, "handle not set to null");
        th_case = NULL;
    }
    EXPECT(bcast_large_seen, "no RTM_MPI_BCAST_LARGE");
    EXPECT(MPI_T_cvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
           MPI_T_ERR_INVALID_INDEX, "index past the last accepted");
    EXPECT(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
           MPI_T_ERR_INVALID_INDEX, "index -1 accepted");
    {
        int idx = 7;

        EXPECT(MPI_T_cvar_get_index("RTM_NO_SUCH_ROW", &idx) == MPI_T_ERR_INVALID_NAME &&
               idx == 7, "an unknown name found");
    }
    return num;
}

/* Every performance variable; returns how many. */
static int check_pvars(void)
{
    int num = -1;
    char names[64][64];

    CHECK_RC(MPI_T_pvar_get_num(&num));
    EXPECT(num >= 10 && num <= 64, "%d performance variables", num);
    for (int i = 0; i < num && i < 64; i++) {
        char desc[512];
        int name_len = sizeof(names[i]), desc_len = sizeof(desc), verbosity, var_class, bind;
        int readonly, continuous, atomic, idx = -1;
        MPI_Datatype dt;
        MPI_T_enum et;

        CHECK_RC(MPI_T_pvar_get_info(i, names[i], &name_len, &verbosity, &var_class, &dt, &et,
                                     desc, &desc_len, &bind, &readonly, &continuous, &atomic));
        th_case = names[i];
        EXPECT(strncmp(names[i], "rtm_", 4) == 0 && desc[0] != '\0', "name, desc \"%s\"",
               desc);
        EXPECT(var_class >= MPI_T_PVAR_CLASS_STATE && var_class <= MPI_T_PVAR_CLASS_GENERIC,
               "class %d", var_class);
        EXPECT(bind == MPI_T_BIND_NO_OBJECT, "bind %d", bind);
        if (var_class == MPI_T_PVAR_CLASS_STATE)
            EXPECT(dt == MPI_INT && et != MPI_T_ENUM_NULL, "a state without an enumeration");
        else
            EXPECT(dt == MPI_UNSIGNED_LONG_LONG && et == MPI_T_ENUM_NULL, "datatype %d", dt);
        if (var_class == MPI_T_PVAR_CLASS_COUNTER)
            EXPECT(!readonly && !continuous && atomic, "counter flags %d %d %d", readonly,
                   continuous, atomic);
        else
            EXPECT(readonly && continuous, "flags %d %d", readonly, continuous);
        CHECK_RC(MPI_T_pvar_get_index(names[i], var_class, &idx));
        EXPECT(idx == i, "get_index gave %d", idx);
        for (int o = 0; o < i; o++)
            EXPECT(strcmp(names[o], names[i]) != 0, "name of variables %d and %d", o, i);
        th_case = NULL;
    }
    pvar_index("rtm_unexpected_held", MPI_T_PVAR_CLASS_LEVEL);
    pvar_index("rtm_unexpected_held_max", MPI_T_PVAR_CLASS_HIGHWATERMARK);
    pvar_index("rtm_credit_stalls", MPI_T_PVAR_CLASS_COUNTER);
    pvar_index("rtm_shm_msgs_sent", MPI_T_PVAR_CLASS_COUNTER);
    {
        int idx = 3;

        EXPECT(MPI_T_pvar_get_index("rtm_credit_stalls", MPI_T_PVAR_CLASS_LEVEL, &idx) ==
               MPI_T_ERR_INVALID_NAME && idx == 3, "found under another class");
    }
    return num;
}

/* Every variable is in exactly one category; the root holds the others. */
static void check_categories(int num_cvars, int num_pvars)
{
    int num = -1, cvar_seen[256] = {0}, pvar_seen[64] = {0}, stamp = -1, stamp2 = -2;

    CHECK(num_cvars <= 256 && num_pvars <= 64, "too many variables for this test");
    CHECK_RC(MPI_T_category_get_num(&num));
    EXPECT(num >= 6, "%d categories", num);
    for (int c = 0; c < num; c++) {
        char name[64], desc[256];
        int name_len = sizeof(name), desc_len = sizeof(desc), nc = -1, np = -1, nk = -1, idx = -1;
        int ind[256];

        CHECK_RC(MPI_T_category_get_info(c, name, &name_len, desc, &desc_len, &nc, &np, &nk));
        th_case = name;
        EXPECT(desc[0] != '\0', "no description");
        CHECK_RC(MPI_T_category_get_index(name, &idx));
        EXPECT(idx == c, "get_index gave %d", idx);
        CHECK(nc >= 0 && nc <= 256 && np >= 0 && np <= 64 && nk >= 0 && nk < num,
              "members %d %d %d", nc, np, nk);
        CHECK_RC(MPI_T_category_get_cvars(c, nc, ind));
        for (int k = 0; k < nc; k++) {
            char cname[128];
            int len = sizeof(cname);

            CHECK(ind[k] >= 0 && ind[k] < num_cvars, "cvar index %d", ind[k]);
            cvar_seen[ind[k]]++;
            CHECK_RC(MPI_T_cvar_get_info(ind[k], cname, &len, NULL, NULL, NULL, NULL, NULL,
                                         NULL, NULL));
        }
        CHECK_RC(MPI_T_category_get_pvars(c, np, ind));
        for (int k = 0; k < np; k++) {
            CHECK(ind[k] >= 0 && ind[k] < num_pvars, "pvar index %d", ind[k]);
            pvar_seen[ind[k]]++;
        }
        CHECK_RC(MPI_T_category_get_categories(c, nk, ind));
        for (int k = 0; k < nk; k++)
            EXPECT(ind[k] > 0 && ind[k] < num && ind[k] != c, "subcategory %d", ind[k]);
        if (c == 0)
            EXPECT(!strcmp(name, "rtmsg") && nk == num - 1 && nc == 0 && np == 0,
                   "root category: %d subcategories, %d cvars, %d pvars", nk, nc, np);
        th_case = NULL;
    }
    for (int i = 0; i < num_cvars; i++)
        EXPECT(cvar_seen[i] == 1, "cvar %d is in %d categories", i, cvar_seen[i]);
    for (int i = 0; i < num_pvars; i++)
        EXPECT(pvar_seen[i] == 1, "pvar %d is in %d categories", i, pvar_seen[i]);
    CHECK_RC(MPI_T_category_changed(&stamp));
    CHECK_RC(MPI_T_category_changed(&stamp2));
    EXPECT(stamp == stamp2, "stamp changed with no change: %d, %d", stamp, stamp2);
    EXPECT(MPI_T_category_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
           MPI_T_ERR_INVALID_INDEX, "category past the last accepted");
}

/* The transport two ranks of this host use: the first of RTM_TRANSPORTS
 * that is not self. */
static void peer_transport(char *tl, size_t len)
{
    MPI_T_cvar_handle h;
    char list[256], *p;
    int count;

    CHECK_RC(MPI_T_cvar_handle_alloc(cvar_index("RTM_TRANSPORTS"), NULL, &h, &count));
    CHECK(count <= (int)sizeof(list), "RTM_TRANSPORTS: count %d", count);
    CHECK_RC(MPI_T_cvar_read(h, list));
    CHECK_RC(MPI_T_cvar_handle_free(&h));
    p = strtok(list, ",");
    while (p != NULL && !strcmp(p, "self"))
        p = strtok(NULL, ",");
    CHECK(p != NULL, "RTM_TRANSPORTS has no transport but self");
    snprintf(tl, len, "%s", p);
}

enum { MS, BS, MR, BR, RS, RR, NTL };
static const char *const tl_what[NTL] = {
    "msgs_sent", "bytes_sent", "msgs_recv", "bytes_recv", "rndv_sent", "rndv_recv",
};

static unsigned long long pread_ull(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = ~0ull;

    CHECK_RC(MPI_T_pvar_read(s, h, &v));
    return v;
}

/* Known traffic between ranks 0 and 1, counted by the transport's
 * counters and the rank's unexpected-message and credit variables. */
static void check_counters(void)
{
    MPI_T_pvar_session s;
    MPI_T_pvar_handle tl_h[NTL], held, held_max, stalls, idle, copies;
    char tl[32], name[64];
    int count, credits = cvar_read_int("RTM_EAGER_CREDITS");
    int peer = 1 - th_rank, go = 7;
    unsigned long long v[NTL], n;
    char *big = malloc(LARGE), small[SMALL];
    MPI_Request reqs[NSMALL + 1];

    CHECK(big != NULL, "no memory");
    peer_transport(tl, sizeof(tl));
    th_case = tl;
    CHECK_RC(MPI_T_pvar_session_create(&s));
    for (int k = 0; k < NTL; k++) {
        snprintf(name, sizeof(name), "rtm_%s_%s", tl, tl_what[k]);
        CHECK_RC(MPI_T_pvar_handle_alloc(s, pvar_index(name, MPI_T_PVAR_CLASS_COUNTER), NULL,
                                         &tl_h[k], &count));
        EXPECT(count == 1, "%s: count %d", name, count);
        /* stopped when allocated: nothing counted */
        EXPECT(pread_ull(s, tl_h[k]) == 0, "%s not 0 when allocated", name);
    }
    CHECK_RC(MPI_T_pvar_handle_alloc(s, pvar_index("rtm_unexpected_held", MPI_T_PVAR_CLASS_LEVEL),
                                     NULL, &held, &count));
    CHECK_RC(MPI_T_pvar_handle_alloc(s, pvar_index("rtm_unexpected_held_max",
                                                   MPI_T_PVAR_CLASS_HIGHWATERMARK),
                                     NULL, &held_max, &count));
    CHECK_RC(MPI_T_pvar_handle_alloc(s, pvar_index("rtm_credit_stalls", MPI_T_PVAR_CLASS_COUNTER),
                                     NULL, &stalls, &count));
    CHECK_RC(MPI_T_pvar_handle_alloc(s, pvar_index("rtm_idle_policy", MPI_T_PVAR_CLASS_STATE),
                                     NULL, &idle, &count));
    CHECK_RC(MPI_T_pvar_handle_alloc(s, pvar_index("rtm_rndv_copies", MPI_T_PVAR_CLASS_COUNTER),
                                     NULL, &copies, &count));
    EXPECT(MPI_T_pvar_start(s, held) == MPI_T_ERR_PVAR_NO_STARTSTOP, "a level started");
    EXPECT(MPI_T_pvar_reset(s, held_max) == MPI_T_ERR_PVAR_NO_WRITE, "a high-water mark reset");
    EXPECT(MPI_T_pvar_write(s, idle, &go) == MPI_T_ERR_PVAR_NO_WRITE, "a state written");
    EXPECT(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &n) == MPI_T_ERR_INVALID_HANDLE,
           "read of MPI_T_PVAR_ALL_HANDLES accepted");

    /* Phase 1: NSMALL eager-sized and NLARGE rendezvous messages 0 -> 1.
     * Nothing is in flight when a rank starts counting: rank 0 starts,
     * then sends "ready" (counted by it alone: rank 1 starts once it has
     * received it), rank 1 answers "go" (counted by both), then the
     * messages; rank 1 stops, then sends "done" (counted by rank 0 alone,
     * which stops once it has it) and waits for rank 0's "stopped" (counted
     * by neither): nothing of the next step (a barrier message) can arrive
     * while the other still counts, not even in the progress pass that
     * brings "done". */
    MPI_Barrier(MPI_COMM_WORLD);
    memset(big, 0x5a, LARGE);
    memset(small, 1, sizeof(small));
    if (th_rank == 1) {
        CHECK_RC(MPI_Recv(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
        CHECK_RC(MPI_Send(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
        for (int i = 0; i < NSMALL; i++)
            CHECK_RC(MPI_Recv(small, SMALL, MPI_CHAR, peer, 2, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
        for (int i = 0; i < NLARGE; i++) {
            memset(big, 0, LARGE);
            CHECK_RC(MPI_Recv(big, LARGE, MPI_CHAR, peer, 3, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
            EXPECT(big[0] == 0x5a && big[LARGE - 1] == 0x5a, "large message data");
        }
        CHECK_RC(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
        CHECK_RC(MPI_Send(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
        CHECK_RC(MPI_Recv(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
        CHECK_RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
        CHECK_RC(MPI_Send(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
        CHECK_RC(MPI_Recv(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < NSMALL; i++)
            CHECK_RC(MPI_Send(small, SMALL, MPI_CHAR, peer, 2, MPI_COMM_WORLD));
        for (int i = 0; i < NLARGE; i++)
            CHECK_RC(MPI_Send(big, LARGE, MPI_CHAR, peer, 3, MPI_COMM_WORLD));
        CHECK_RC(MPI_Recv(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
        CHECK_RC(MPI_Send(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
    }
    for (int k = 0; k < NTL; k++)
        v[k] = pread_ull(s, tl_h[k]);
    if (th_rank == 0) {
        EXPECT(v[MS] == 1 + NSMALL + NLARGE &&
               v[BS] == sizeof(int) + NSMALL * SMALL + NLARGE * (unsigned long long)LARGE,
               "sent %llu messages, %llu bytes", v[MS], v[BS]);
        EXPECT(v[MR] == 2 && v[BR] == 2 * sizeof(int), "received %llu messages, %llu bytes",
               v[MR], v[BR]);
        EXPECT(v[RS] >= NLARGE && v[RS] <= 1 + NSMALL + NLARGE && v[RR] == 0,
               "rendezvous: %llu sent, %llu received", v[RS], v[RR]);
        if (credits >= 2 * (NSMALL + 2))
            EXPECT(v[RS] == NLARGE, "%llu sent by rendezvous with %d credits", v[RS], credits);
    } else {
        EXPECT(v[MR] == NSMALL + NLARGE &&
               v[BR] == NSMALL * SMALL + NLARGE * (unsigned long long)LARGE,
               "received %llu messages, %llu bytes", v[MR], v[BR]);
        EXPECT(v[MS] == 1 && v[BS] == sizeof(int), "sent %llu messages, %llu bytes", v[MS],
               v[BS]);
        EXPECT(v[RR] >= NLARGE && v[RR] <= NSMALL + NLARGE && v[RS] == 0,
               "rendezvous: %llu received, %llu sent", v[RR], v[RS]);
    }
    /* stopped: nothing more is counted; then a reset, a write, readreset */
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT(pread_ull(s, tl_h[MS]) == v[MS], "a stopped counter moved");
    CHECK_RC(MPI_T_pvar_reset(s, tl_h[MS]));
    EXPECT(pread_ull(s, tl_h[MS]) == 0, "reset counter not 0");
    n = 1000;
    CHECK_RC(MPI_T_pvar_write(s, tl_h[BS], &n));
    EXPECT(pread_ull(s, tl_h[BS]) == 1000, "written counter not 1000");
    CHECK_RC(MPI_T_pvar_readreset(s, tl_h[BS], &n));
    EXPECT(n == 1000 && pread_ull(s, tl_h[BS]) == 0, "readreset: %llu, then %llu", n,
           pread_ull(s, tl_h[BS]));

    /* Phase 2 (the same ready, go, done): NSMALL + 1 small messages 0 -> 1
     * while rank 1 receives only the last: the others wait as unexpected
     * (all of them held once the last is in, as a peer's messages are
     * handled in order); with fewer credits than messages the sender meets
     * a stall for each one past its credits. */
    CHECK_RC(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES));
    MPI_Barrier(MPI_COMM_WORLD);
    if (th_rank == 0) {
        CHECK_RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
        CHECK_RC(MPI_Send(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
        CHECK_RC(MPI_Recv(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < NSMALL; i++)
            CHECK_RC(MPI_Isend(small, SMALL, MPI_CHAR, peer, 4, MPI_COMM_WORLD, &reqs[i]));
        CHECK_RC(MPI_Isend(small, SMALL, MPI_CHAR, peer, 5, MPI_COMM_WORLD, &reqs[NSMALL]));
        CHECK_RC(MPI_Waitall(NSMALL + 1, reqs, MPI_STATUSES_IGNORE));
        CHECK_RC(MPI_Recv(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
        CHECK_RC(MPI_Send(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
    } else {
        CHECK_RC(MPI_Recv(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
        CHECK_RC(MPI_Send(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
        CHECK_RC(MPI_Recv(small, SMALL, MPI_CHAR, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        n = pread_ull(s, held);
        EXPECT(n == NSMALL, "%llu unexpected messages held, expected %d", n, NSMALL);
        EXPECT(pread_ull(s, held_max) >= NSMALL, "high-water mark %llu",
               pread_ull(s, held_max));
        for (int i = 0; i < NSMALL; i++)
            CHECK_RC(MPI_Recv(small, SMALL, MPI_CHAR, peer, 4, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
        EXPECT(pread_ull(s, held) == 0, "%llu held after the receives", pread_ull(s, held));
        EXPECT(pread_ull(s, held_max) >= NSMALL, "high-water mark fell to %llu",
               pread_ull(s, held_max));
        CHECK_RC(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
        CHECK_RC(MPI_Send(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
        CHECK_RC(MPI_Recv(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    /* Sends past the credits are detached, and a small one's bytes travel
     * inside its RTS: the receiver never asks for a copy (CTS) of them,
     * whatever the credits (before: one CTS + DATA round trip each). */
    n = pread_ull(s, copies);
    EXPECT(n == 0, "phase 2: %llu messages received by CTS + DATA with %d credits", n, credits);
    n = pread_ull(s, stalls);
    if (th_rank == 1 || credits >= 2 * (NSMALL + 2))
        EXPECT(n == 0, "%llu credit stalls with %d credits", n, credits);
    else
        EXPECT(n >= (unsigned long long)(NSMALL + 1 - credits),
               "%llu credit stalls with %d credits for %d messages", n, credits, NSMALL + 1);
    v[MS] = pread_ull(s, tl_h[MS]);
    v[MR] = pread_ull(s, tl_h[MR]);
    if (th_rank == 0)
        EXPECT(v[MS] == NSMALL + 2 && v[MR] == 2, "phase 2: %llu sent, %llu received", v[MS],
               v[MR]);
    else
        EXPECT(v[MR] == NSMALL + 1 && v[MS] == 1, "phase 2: %llu received, %llu sent", v[MR],
               v[MS]);
    {
        int state = -1;

        CHECK_RC(MPI_T_pvar_read(s, idle, &state));
        EXPECT(state >= 0 && state <= 2, "idle policy %d", state);
    }
    /* a handle freed is refused afterwards; the session frees the rest */
    {
        MPI_T_pvar_handle stale = stalls;

        CHECK_RC(MPI_T_pvar_handle_free(s, &stalls));
        EXPECT(stalls == MPI_T_PVAR_HANDLE_NULL, "handle not nulled");
        EXPECT(MPI_T_pvar_read(s, stale, &n) == MPI_T_ERR_INVALID_HANDLE, "freed handle read");
    }
    CHECK_RC(MPI_T_pvar_session_free(&s));
    EXPECT(s == MPI_T_PVAR_SESSION_NULL, "session not nulled");
    EXPECT(MPI_T_pvar_read(s, held, &n) == MPI_T_ERR_INVALID_SESSION, "null session read");
    th_case = NULL;
    free(big);
}

int main(int argc, char **argv)
{
    int provided = -1, num, num_cvars, num_pvars, total = 0;

    th_name = "mpi_mpit";
    EXPECT(MPI_T_cvar_get_num(&num) == MPI_T_ERR_NOT_INITIALIZED, "used before init");
    EXPECT(MPI_T_init_thread(MPI_THREAD_SINGLE, NULL) == MPI_T_ERR_INVALID, "provided NULL");
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    EXPECT(provided == MPI_THREAD_SERIALIZED, "provided %d", provided);
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    EXPECT(provided == MPI_THREAD_SINGLE, "provided %d", provided);

    /* before MPI_Init */
    num_cvars = check_cvars();
    num_pvars = check_pvars();
    check_categories(num_cvars, num_pvars);
    EXPECT(cvar_write_int("RTM_NET_POLL_INTERVAL", 4) == MPI_T_ERR_CVAR_SET_NOT_NOW,
           "a write before MPI_Init accepted");
    EXPECT(cvar_write_int("RTM_EAGER_CREDITS", 4) == MPI_T_ERR_CVAR_SET_NEVER,
           "RTM_EAGER_CREDITS written");
    CHECK_RC(MPI_T_finalize());   /* one of two: still initialized */

    mt_init(&argc, &argv);
    th_name = "mpi_mpit";
    CHECK_RC(MPI_T_cvar_get_num(&num));
    EXPECT(num == num_cvars, "%d control variables after MPI_Init, %d before", num, num_cvars);
    CHECK_RC(MPI_T_pvar_get_num(&num));
    EXPECT(num == num_pvars, "%d performance variables after MPI_Init, %d before", num,
           num_pvars);

    /* writable rows */
    {
        int old = cvar_read_int("RTM_NET_POLL_INTERVAL"), scope = -1;

        CHECK_RC(MPI_T_cvar_get_info(cvar_index("RTM_NET_POLL_INTERVAL"), NULL, NULL, NULL,
                                     NULL, NULL, NULL, NULL, NULL, &scope));
        EXPECT(scope == MPI_T_SCOPE_LOCAL, "scope %d", scope);
        CHECK_RC(cvar_write_int("RTM_NET_POLL_INTERVAL", 3));
        EXPECT(cvar_read_int("RTM_NET_POLL_INTERVAL") == 3, "write not read back");
        EXPECT(cvar_write_int("RTM_NET_POLL_INTERVAL", 0) == MPI_T_ERR_INVALID,
               "out of range value accepted");
        EXPECT(cvar_read_int("RTM_NET_POLL_INTERVAL") == 3, "a refused write changed it");
        CHECK_RC(cvar_write_int("RTM_NET_POLL_INTERVAL", old));
        EXPECT(cvar_write_int("RTM_EAGER_CREDITS", 4) == MPI_T_ERR_CVAR_SET_NEVER,
               "RTM_EAGER_CREDITS written after MPI_Init");
        old = cvar_read_int("RTM_LOG_LEVEL");
        CHECK_RC(cvar_write_int("RTM_LOG_LEVEL", 0));
        EXPECT(cvar_read_int("RTM_LOG_LEVEL") == 0, "log level not written");
        EXPECT(cvar_write_int("RTM_LOG_LEVEL", 99) == MPI_T_ERR_INVALID, "item 99 accepted");
        CHECK_RC(cvar_write_int("RTM_LOG_LEVEL", old));
    }
    /* a collective switch point, written alike on every rank (scope
     * ALL_EQ), then a bcast on each side of it */
    {
        MPI_T_cvar_handle h;
        unsigned long long large = 1024, back = 0;
        int count, buf[4096], scope = -1;

        CHECK_RC(MPI_T_cvar_get_info(cvar_index("RTM_MPI_BCAST_LARGE"), NULL, NULL, NULL, NULL,
                                     NULL, NULL, NULL, NULL, &scope));
        EXPECT(scope == MPI_T_SCOPE_ALL_EQ, "scope %d", scope);
        CHECK_RC(MPI_T_cvar_handle_alloc(cvar_index("RTM_MPI_BCAST_LARGE"), NULL, &h, &count));
        CHECK_RC(MPI_T_cvar_write(h, &large));
        CHECK_RC(MPI_T_cvar_read(h, &back));
        EXPECT(back == 1024, "read back %llu", back);
        for (int i = 0; i < 4096; i++)
            buf[i] = th_rank == 0 ? i * 3 : -1;
        CHECK_RC(MPI_Bcast(buf, 4096, MPI_INT, 0, MPI_COMM_WORLD));
        for (int i = 0; i < 4096; i++)
            if (buf[i] != i * 3) {
                EXPECT(0, "bcast element %d is %d", i, buf[i]);
                break;
            }
        large = 256 * 1024;
        CHECK_RC(MPI_T_cvar_write(h, &large));
        CHECK_RC(MPI_T_cvar_handle_free(&h));
    }
    if (th_size == 2)
        check_counters();

    MPI_Allreduce(&th_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    /* after MPI_Finalize: still usable, a write now never possible */
    CHECK_RC(MPI_T_cvar_get_num(&num));
    EXPECT(num == num_cvars, "%d control variables after MPI_Finalize", num);
    EXPECT(cvar_write_int("RTM_NET_POLL_INTERVAL", 4) == MPI_T_ERR_CVAR_SET_NEVER,
           "a write after MPI_Finalize accepted");
    CHECK_RC(MPI_T_finalize());
    EXPECT(MPI_T_cvar_get_num(&num) == MPI_T_ERR_NOT_INITIALIZED, "used after the last finalize");
    EXPECT(MPI_T_finalize() == MPI_T_ERR_NOT_INITIALIZED, "finalized once too often");
    if (th_rank == 0)
        printf("mpi_mpit (%d ranks): %s (%d failed checks before MPI_Finalize)\n", th_size,
               total || th_failures ? "FAIL" : "PASS", total);
    return total || th_failures ? 1 : 0;
}
