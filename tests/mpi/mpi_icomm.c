/*
 * Intercommunicators and communicator creation (MPI 3.1 chapter 6): an
 * intercommunicator between the two halves of the world (group A the lower
 * world ranks, B the rest; uneven at odd sizes), made with
 * MPI_Intercomm_create over MPI_COMM_WORLD; point-to-point across it; every
 * collective, blocking and nonblocking, with the root in either group and
 * either end of it (MPI_ROOT / MPI_PROC_NULL / the remote rank), the data
 * checked element by element; Scan/Exscan refused; dup, split, create,
 * merge, compare, names and attributes of intercommunicators; and on
 * intracommunicators MPI_Comm_create with disjoint groups,
 * MPI_Comm_create_group, MPI_Comm_idup, dup_with_info, set/get_info and
 * MPI_Comm_disconnect.
 */
#include "mpitest.h"

static int n, me, h;            /* world size and rank; size of group A */
static int in_a, lsize, rsize, lrank, lbase, rbase;

#define RW(_j) (rbase + (_j))   /* world rank of remote rank j */

/* A collective, blocking or (nb) nonblocking then waited for. */
#define COLL(_nb, _blocking, _nonblocking) \
    do { \
        if (_nb) { \
            MPI_Request rq_ = MPI_REQUEST_NULL; \
            CHECK_RC(_nonblocking); \
            CHECK_RC(MPI_Wait(&rq_, MPI_STATUS_IGNORE)); \
        } else { \
            CHECK_RC(_blocking); \
        } \
    } while (0)

/* Not commutative: (a0,a1) o (b0,b1) = (a0,b1) when a1 + 1 == b0, so
 * contributions (i,i) reduced in rank order give (0, size - 1). */
static void chain_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout;

    (void)dt;
    for (int i = 0; i + 1 < *len; i += 2) {
        if (a[i + 1] + 1 == b[i] && a[i] >= 0)
            b[i] = a[i];
        else
            b[i] = b[i + 1] = -1000;
    }
}

static int sum_remote(void)
{
    int s = 0;

    for (int j = 0; j < rsize; j++)
        s += RW(j);
    return s;
}

static void test_p2p(MPI_Comm ic)
{
    int *out = malloc(2 * sizeof(int) * (size_t)rsize);
    int *in = malloc(2 * sizeof(int) * (size_t)rsize);
    MPI_Request *rq = malloc(2 * sizeof(MPI_Request) * (size_t)rsize);
    MPI_Status st;

    th_case = "p2p";
    for (int j = 0; j < rsize; j++) {
        out[2 * j] = me;
        out[2 * j + 1] = RW(j);
        CHECK_RC(MPI_Irecv(&in[2 * j], 2, MPI_INT, j, 5, ic, &rq[j]));
        CHECK_RC(MPI_Isend(&out[2 * j], 2, MPI_INT, j, 5, ic, &rq[rsize + j]));
    }
    CHECK_RC(MPI_Waitall(2 * rsize, rq, MPI_STATUSES_IGNORE));
    for (int j = 0; j < rsize; j++)
        EXPECT(in[2 * j] == RW(j) && in[2 * j + 1] == me, "from remote %d: %d %d", j,
               in[2 * j], in[2 * j + 1]);
    /* ANY_SOURCE: the status names the sender's rank in its own group */
    int v = me, got = -1;
    if (lrank < rsize)
        CHECK_RC(MPI_Send(&v, 1, MPI_INT, lrank, 6, ic));
    if (lrank < lsize && rsize > 0) {
        /* remote ranks j with j < lsize sent to their own number */
        if (lrank < rsize) {
            CHECK_RC(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 6, ic, &st));
            EXPECT(st.MPI_SOURCE == lrank && got == RW(lrank), "any source: source %d value %d",
                   st.MPI_SOURCE, got);
        }
    }
    /* PROC_NULL and a bad rank */
    CHECK_RC(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 7, ic));
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    EXPECT(MPI_Send(&v, 1, MPI_INT, rsize, 7, ic) == MPI_ERR_RANK, "dest = remote size");
    free(out);
    free(in);
    free(rq);
}

static int eh_calls, eh_class;

static void count_eh(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    eh_calls++;
    MPI_Error_class(*code, &eh_class);
}

/* A user error handler set on the intercommunicator and its handle freed,
 * then inherited by a duplicate (MPI_Comm_dup and MPI_Comm_idup) that is
 * freed: the intercommunicator still holds the handler, so its next error
 * goes there (each communicator counts the handler it holds; the
 * intercommunicator constructors once took it without counting, and the
 * duplicate's free then released the intercommunicator's). */
static void test_errhandler_refs(MPI_Comm ic)
{
    MPI_Errhandler eh;
    MPI_Comm d;
    MPI_Request rq;
    int v = 0, rsize = 0;

    MPI_Comm_remote_size(ic, &rsize);
    CHECK_RC(MPI_Comm_create_errhandler(count_eh, &eh));
    CHECK_RC(MPI_Comm_set_errhandler(ic, eh));
    CHECK_RC(MPI_Errhandler_free(&eh));
    CHECK_RC(MPI_Comm_dup(ic, &d));
    CHECK_RC(MPI_Comm_free(&d));
    CHECK_RC(MPI_Comm_idup(ic, &d, &rq));
    CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Comm_free(&d));
    eh_calls = 0;
    eh_class = MPI_SUCCESS;
    MPI_Send(&v, 1, MPI_INT, rsize, 7, ic);
    EXPECT(eh_calls == 1 && eh_class == MPI_ERR_RANK, "the intercommunicator's handler after "
           "its duplicates were freed: %d calls, class %d", eh_calls, eh_class);
    CHECK_RC(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));   /* as test_p2p left it */
}

/* The rooted collectives with the root at local rank `rl` of group A
 * (root_in_a) or B. */
static void test_rooted(MPI_Comm ic, int root_in_a, int rl, int nb)
{
    int in_root_group = in_a == root_in_a;
    int root = in_root_group ? (lrank == rl ? MPI_ROOT : MPI_PROC_NULL) : rl;
    int rootw = (root_in_a ? 0 : h) + rl;
    int buf[8], big[64], cnt[8], dsp[8];

    /* Bcast */
    th_case = nb ? "ibcast" : "bcast";
    for (int k = 0; k < 5; k++)
        buf[k] = root == MPI_ROOT ? 1000 * rootw + k : -1;
    COLL(nb, MPI_Bcast(buf, 5, MPI_INT, root, ic), MPI_Ibcast(buf, 5, MPI_INT, root, ic, &rq_));
    for (int k = 0; k < 5; k++) {
        int want = root == MPI_PROC_NULL ? -1 : 1000 * rootw + k;
        EXPECT(buf[k] == want, "root %d (world %d) elt %d: %d, want %d", root, rootw, k, buf[k],
               want);
    }

    /* Gather: 3 ints from every process of the other group */
    th_case = nb ? "igather" : "gather";
    for (int k = 0; k < 3; k++)
        buf[k] = me * 10 + k;
    for (int k = 0; k < 64; k++)
        big[k] = -1;
    COLL(nb, MPI_Gather(buf, 3, MPI_INT, big, 3, MPI_INT, root, ic),
         MPI_Igather(buf, 3, MPI_INT, big, 3, MPI_INT, root, ic, &rq_));
    if (root == MPI_ROOT)
        for (int j = 0; j < rsize; j++)
            for (int k = 0; k < 3; k++)
                EXPECT(big[3 * j + k] == RW(j) * 10 + k, "block %d elt %d: %d", j, k,
                       big[3 * j + k]);
    if (root == MPI_PROC_NULL)
        EXPECT(big[0] == -1, "a PROC_NULL process's buffer was written");

    /* Gatherv: remote j sends j % 3 + 1 ints, placed with a gap */
    th_case = nb ? "igatherv" : "gatherv";
    for (int j = 0, off = 0; j < rsize; j++) {
        cnt[j] = j % 3 + 1;
        dsp[j] = off;
        off += cnt[j] + 1;
    }
    for (int k = 0; k < 64; k++)
        big[k] = -1;
    COLL(nb, MPI_Gatherv(buf, lrank % 3 + 1, MPI_INT, big, cnt, dsp, MPI_INT, root, ic),
         MPI_Igatherv(buf, lrank % 3 + 1, MPI_INT, big, cnt, dsp, MPI_INT, root, ic, &rq_));
    if (root == MPI_ROOT)
        for (int j = 0; j < rsize; j++) {
            for (int k = 0; k < cnt[j]; k++)
                EXPECT(big[dsp[j] + k] == RW(j) * 10 + k, "block %d elt %d: %d", j, k,
                       big[dsp[j] + k]);
            EXPECT(big[dsp[j] + cnt[j]] == -1, "gap after block %d written", j);
        }

    /* Scatter: 2 ints to every process of the other group */
    th_case = nb ? "iscatter" : "scatter";
    if (root == MPI_ROOT)
        for (int j = 0; j < rsize; j++)
            for (int k = 0; k < 2; k++)
                big[2 * j + k] = RW(j) * 7 + k;
    buf[0] = buf[1] = -1;
    COLL(nb, MPI_Scatter(big, 2, MPI_INT, buf, 2, MPI_INT, root, ic),
         MPI_Iscatter(big, 2, MPI_INT, buf, 2, MPI_INT, root, ic, &rq_));
    if (!in_root_group)
        for (int k = 0; k < 2; k++)
            EXPECT(buf[k] == me * 7 + k, "elt %d: %d", k, buf[k]);

    /* Scatterv: remote j gets j % 2 + 1 ints from offset 3j */
    th_case = nb ? "iscatterv" : "scatterv";
    if (root == MPI_ROOT)
        for (int j = 0; j < rsize; j++) {
            cnt[j] = j % 2 + 1;
            dsp[j] = 3 * j;
            for (int k = 0; k < 3; k++)
                big[3 * j + k] = RW(j) * 5 + k;
        }
    buf[0] = buf[1] = buf[2] = -1;
    COLL(nb, MPI_Scatterv(big, cnt, dsp, MPI_INT, buf, lrank % 2 + 1, MPI_INT, root, ic),
         MPI_Iscatterv(big, cnt, dsp, MPI_INT, buf, lrank % 2 + 1, MPI_INT, root, ic, &rq_));
    if (!in_root_group) {
        for (int k = 0; k < lrank % 2 + 1; k++)
            EXPECT(buf[k] == me * 5 + k, "elt %d: %d", k, buf[k]);
        EXPECT(buf[lrank % 2 + 1] == -1, "written past the count");
    }

    /* Reduce: a sum, and an op that is not commutative */
    th_case = nb ? "ireduce" : "reduce";
    for (int k = 0; k < 4; k++) {
        buf[k] = me + k;
        big[k] = -1;
    }
    COLL(nb, MPI_Reduce(buf, big, 4, MPI_INT, MPI_SUM, root, ic),
         MPI_Ireduce(buf, big, 4, MPI_INT, MPI_SUM, root, ic, &rq_));
    if (root == MPI_ROOT)
        for (int k = 0; k < 4; k++)
            EXPECT(big[k] == sum_remote() + rsize * k, "sum elt %d: %d", k, big[k]);
    MPI_Op chain;
    MPI_Op_create(chain_fn, 0, &chain);
    buf[0] = buf[1] = lrank;
    buf[2] = buf[3] = lrank;
    big[0] = big[1] = big[2] = big[3] = -1;
    COLL(nb, MPI_Reduce(buf, big, 4, MPI_INT, chain, root, ic),
         MPI_Ireduce(buf, big, 4, MPI_INT, chain, root, ic, &rq_));
    if (root == MPI_ROOT)
        for (int k = 0; k < 4; k += 2)
            EXPECT(big[k] == 0 && big[k + 1] == rsize - 1, "in rank order: (%d,%d), want (0,%d)",
                   big[k], big[k + 1], rsize - 1);
    MPI_Op_free(&chain);
}

static void test_all(MPI_Comm ic, int nb)
{
    int buf[64], big[64], sc[8], sd[8], rc[8], rd[8];
    MPI_Datatype st[8], rt[8];

    th_case = nb ? "ibarrier" : "barrier";
    COLL(nb, MPI_Barrier(ic), MPI_Ibarrier(ic, &rq_));

    th_case = nb ? "iallgather" : "allgather";
    buf[0] = me * 3;
    buf[1] = me * 3 + 1;
    for (int k = 0; k < 64; k++)
        big[k] = -1;
    COLL(nb, MPI_Allgather(buf, 2, MPI_INT, big, 2, MPI_INT, ic),
         MPI_Iallgather(buf, 2, MPI_INT, big, 2, MPI_INT, ic, &rq_));
    for (int j = 0; j < rsize; j++)
        for (int k = 0; k < 2; k++)
            EXPECT(big[2 * j + k] == RW(j) * 3 + k, "block %d elt %d: %d", j, k, big[2 * j + k]);

    th_case = nb ? "iallgatherv" : "allgatherv";
    for (int j = 0; j < rsize; j++) {
        rc[j] = j % 2 + 1;
        rd[j] = 2 * (rsize - 1 - j);   /* blocks in reverse order */
    }
    for (int k = 0; k < 64; k++)
        big[k] = -1;
    COLL(nb, MPI_Allgatherv(buf, lrank % 2 + 1, MPI_INT, big, rc, rd, MPI_INT, ic),
         MPI_Iallgatherv(buf, lrank % 2 + 1, MPI_INT, big, rc, rd, MPI_INT, ic, &rq_));
    for (int j = 0; j < rsize; j++)
        for (int k = 0; k < rc[j]; k++)
            EXPECT(big[rd[j] + k] == RW(j) * 3 + k, "block %d elt %d: %d", j, k, big[rd[j] + k]);

    th_case = nb ? "ialltoall" : "alltoall";
    for (int j = 0; j < rsize; j++)
        for (int k = 0; k < 2; k++)
            buf[2 * j + k] = me * 1000 + RW(j) * 10 + k;
    for (int k = 0; k < 64; k++)
        big[k] = -1;
    COLL(nb, MPI_Alltoall(buf, 2, MPI_INT, big, 2, MPI_INT, ic),
         MPI_Ialltoall(buf, 2, MPI_INT, big, 2, MPI_INT, ic, &rq_));
    for (int j = 0; j < rsize; j++)
        for (int k = 0; k < 2; k++)
            EXPECT(big[2 * j + k] == RW(j) * 1000 + me * 10 + k, "block %d elt %d: %d", j, k,
                   big[2 * j + k]);

    /* v and w: 1 + (a + b) % 2 ints between world ranks a and b */
    for (int j = 0; j < rsize; j++) {
        sc[j] = rc[j] = 1 + (me + RW(j)) % 2;
        sd[j] = rd[j] = 3 * j;
        st[j] = rt[j] = MPI_INT;
        for (int k = 0; k < 3; k++)
            buf[3 * j + k] = me * 1000 + RW(j) * 10 + k;
    }
    for (int w = 0; w < 2; w++) {
        th_case = w ? (nb ? "ialltoallw" : "alltoallw") : (nb ? "ialltoallv" : "alltoallv");
        for (int k = 0; k < 64; k++)
            big[k] = -1;
        if (w) {
            int sdb[8], rdb[8];

            for (int j = 0; j < rsize; j++) {
                sdb[j] = sd[j] * (int)sizeof(int);
                rdb[j] = rd[j] * (int)sizeof(int);
            }
            COLL(nb, MPI_Alltoallw(buf, sc, sdb, st, big, rc, rdb, rt, ic),
                 MPI_Ialltoallw(buf, sc, sdb, st, big, rc, rdb, rt, ic, &rq_));
        } else {
            COLL(nb, MPI_Alltoallv(buf, sc, sd, MPI_INT, big, rc, rd, MPI_INT, ic),
                 MPI_Ialltoallv(buf, sc, sd, MPI_INT, big, rc, rd, MPI_INT, ic, &rq_));
        }
        for (int j = 0; j < rsize; j++) {
            for (int k = 0; k < rc[j]; k++)
                EXPECT(big[rd[j] + k] == RW(j) * 1000 + me * 10 + k, "block %d elt %d: %d", j,
                       k, big[rd[j] + k]);
            EXPECT(big[rd[j] + rc[j]] == -1, "written past block %d", j);
        }
    }

    th_case = nb ? "iallreduce" : "allreduce";
    for (int k = 0; k < 3; k++) {
        buf[k] = me * 2 + k;
        big[k] = -1;
    }
    COLL(nb, MPI_Allreduce(buf, big, 3, MPI_INT, MPI_SUM, ic),
         MPI_Iallreduce(buf, big, 3, MPI_INT, MPI_SUM, ic, &rq_));
    for (int k = 0; k < 3; k++)
        EXPECT(big[k] == 2 * sum_remote() + rsize * k, "elt %d: %d", k, big[k]);
    MPI_Op chain;
    MPI_Op_create(chain_fn, 0, &chain);
    buf[0] = buf[1] = lrank;
    big[0] = big[1] = -1;
    COLL(nb, MPI_Allreduce(buf, big, 2, MPI_INT, chain, ic),
         MPI_Iallreduce(buf, big, 2, MPI_INT, chain, ic, &rq_));
    EXPECT(big[0] == 0 && big[1] == rsize - 1, "chain: (%d,%d), want (0,%d)", big[0], big[1],
           rsize - 1);
    MPI_Op_free(&chain);

    /* Reduce_scatter: both groups' counts add up to lsize * rsize */
    th_case = nb ? "ireduce_scatter" : "reduce_scatter";
    int total = lsize * rsize, off = 0;
    for (int i = 0; i < lsize; i++)
        rc[i] = rsize;
    if (lsize >= 2) {
        rc[0] = 0;
        rc[1] = 2 * rsize;
    }
    for (int i = 0; i < lrank; i++)
        off += rc[i];
    for (int k = 0; k < total; k++)
        buf[k] = me + k;
    for (int k = 0; k < 64; k++)
        big[k] = -1;
    COLL(nb, MPI_Reduce_scatter(buf, big, rc, MPI_INT, MPI_SUM, ic),
         MPI_Ireduce_scatter(buf, big, rc, MPI_INT, MPI_SUM, ic, &rq_));
    for (int k = 0; k < rc[lrank]; k++)
        EXPECT(big[k] == sum_remote() + rsize * (off + k), "elt %d: %d", k, big[k]);
    EXPECT(big[rc[lrank]] == -1, "written past the count");

    th_case = nb ? "ireduce_scatter_block" : "reduce_scatter_block";
    for (int k = 0; k < 64; k++)
        big[k] = -1;
    COLL(nb, MPI_Reduce_scatter_block(buf, big, rsize, MPI_INT, MPI_SUM, ic),
         MPI_Ireduce_scatter_block(buf, big, rsize, MPI_INT, MPI_SUM, ic, &rq_));
    for (int k = 0; k < rsize; k++)
        EXPECT(big[k] == sum_remote() + rsize * (lrank * rsize + k), "elt %d: %d", k, big[k]);
}

static int copies;
static int copy_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c; (void)k; (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void test_constructors(MPI_Comm ic)
{
    int res, flag, sz, rk;
    MPI_Comm d, s, m;
    MPI_Group g, lg;

    /* dup: congruent, attributes copied, its own messages */
    th_case = "dup";
    int key;
    static int val = 42;
    void *got;
    MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    CHECK_RC(MPI_Comm_set_attr(ic, key, &val));
    CHECK_RC(MPI_Comm_set_name(ic, "a-to-b"));
    CHECK_RC(MPI_Comm_dup(ic, &d));
    MPI_Comm_test_inter(d, &flag);
    EXPECT(flag, "the dup is not an intercommunicator");
    MPI_Comm_compare(ic, d, &res);
    EXPECT(res == MPI_CONGRUENT, "compare with the dup: %d", res);
    CHECK_RC(MPI_Comm_get_attr(d, key, &got, &flag));
    EXPECT(flag && got == &val && copies == 1, "attribute on the dup: flag %d copies %d", flag,
           copies);
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Comm_get_name(ic, name, &res);
    EXPECT(!strcmp(name, "a-to-b"), "name %s", name);
    int x = me, y = -1;
    /* the same tag on ic and on the dup never crosses */
    MPI_Request rq[4];
    CHECK_RC(MPI_Irecv(&y, 1, MPI_INT, 0, 9, d, &rq[0]));
    CHECK_RC(MPI_Irecv(&res, 1, MPI_INT, 0, 9, ic, &rq[1]));
    if (lrank == 0) {
        for (int j = 0; j < rsize; j++) {
            int v1 = -me - 1;
            CHECK_RC(MPI_Send(&v1, 1, MPI_INT, j, 9, ic));
            CHECK_RC(MPI_Send(&x, 1, MPI_INT, j, 9, d));
        }
    }
    CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    EXPECT(y == rbase && res == -rbase - 1, "dup got %d, original got %d", y, res);
    CHECK_RC(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, d));
    EXPECT(y == RW(rsize - 1), "allreduce on the dup: %d", y);
    CHECK_RC(MPI_Comm_delete_attr(ic, key));
    CHECK_RC(MPI_Comm_free(&d));
    MPI_Comm_free_keyval(&key);

    /* split by parity, keys reversed */
    th_case = "split";
    CHECK_RC(MPI_Comm_split(ic, lrank % 2, -lrank, &s));
    int lsame = (lsize - lrank % 2 + 1) / 2, rsame = (rsize - lrank % 2 + 1) / 2;
    if (rsame == 0) {
        EXPECT(s == MPI_COMM_NULL, "no remote process of my color, yet a communicator");
    } else if (s != MPI_COMM_NULL) {
        MPI_Comm_size(s, &sz);
        MPI_Comm_remote_size(s, &res);
        MPI_Comm_rank(s, &rk);
        EXPECT(sz == lsame && res == rsame, "sizes %d/%d want %d/%d", sz, res, lsame, rsame);
        EXPECT(rk == lsame - 1 - lrank / 2, "rank %d", rk);
        CHECK_RC(MPI_Allreduce(&me, &y, 1, MPI_INT, MPI_MIN, s));
        EXPECT(y == RW(lrank % 2), "allreduce min on the split: %d", y);
        /* rank k with remote rank k, both ways; remote rank k of s is the
         * (rsame - 1 - k)-th remote rank of my parity */
        y = -1;
        if (rk < rsame) {
            int want = RW(lrank % 2 + 2 * (rsame - 1 - rk));

            CHECK_RC(MPI_Sendrecv(&me, 1, MPI_INT, rk, 3, &y, 1, MPI_INT, rk, 3, s,
                                  MPI_STATUS_IGNORE));
            EXPECT(y == want, "from remote rank %d of the split: %d want %d", rk, y, want);
        }
        CHECK_RC(MPI_Comm_free(&s));
    } else {
        EXPECT(0, "no communicator from the split");
    }

    /* create: the even ranks of each group */
    th_case = "create";
    MPI_Comm_group(ic, &lg);
    int evens[8], ne = 0;
    for (int i = 0; i < lsize; i += 2)
        evens[ne++] = i;
    MPI_Group_incl(lg, ne, evens, &g);
    CHECK_RC(MPI_Comm_create(ic, g, &s));
    if (lrank % 2) {
        EXPECT(s == MPI_COMM_NULL, "odd rank got a communicator");
    } else {
        EXPECT(s != MPI_COMM_NULL, "even rank got none");
        if (s != MPI_COMM_NULL) {
            MPI_Comm_remote_size(s, &res);
            EXPECT(res == (rsize + 1) / 2, "remote size %d", res);
            CHECK_RC(MPI_Comm_free(&s));
        }
    }
    MPI_Group_free(&g);

    /* the groups */
    th_case = "groups";
    MPI_Comm_remote_group(ic, &g);
    MPI_Group_size(g, &sz);
    MPI_Group_size(lg, &res);
    EXPECT(sz == rsize && res == lsize, "group sizes %d %d", res, sz);
    MPI_Group wg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int j = 0; j < rsize; j++) {
        MPI_Group_translate_ranks(g, 1, &j, wg, &rk);
        EXPECT(rk == RW(j), "remote rank %d is world %d", j, rk);
    }
    MPI_Group_free(&wg);
    MPI_Group_free(&g);
    MPI_Group_free(&lg);

    /* merge: group B high, then A high */
    for (int hi = 0; hi < 2; hi++) {
        th_case = hi ? "merge A high" : "merge B high";
        CHECK_RC(MPI_Intercomm_merge(ic, hi ? in_a : !in_a, &m));
        MPI_Comm_test_inter(m, &flag);
        MPI_Comm_size(m, &sz);
        MPI_Comm_rank(m, &rk);
        int want = hi ? (in_a ? (n - h) + lrank : lrank) : me;
        EXPECT(!flag && sz == n && rk == want, "inter %d size %d rank %d want %d", flag, sz, rk,
               want);
        CHECK_RC(MPI_Allreduce(&me, &y, 1, MPI_INT, MPI_SUM, m));
        EXPECT(y == n * (n - 1) / 2, "allreduce on the merged: %d", y);
        CHECK_RC(MPI_Comm_free(&m));
    }

    /* Scan and Exscan are not defined here; nor is an intercomm as local comm */
    th_case = "errors";
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    EXPECT(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, ic) == MPI_ERR_COMM, "scan accepted");
    EXPECT(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, ic) == MPI_ERR_COMM, "exscan accepted");
    EXPECT(MPI_Bcast(&x, 1, MPI_INT, rsize, ic) == MPI_ERR_ROOT, "bad root accepted");
    EXPECT(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, ic) != MPI_SUCCESS,
           "MPI_IN_PLACE accepted");
    {   /* no topology on an intercommunicator */
        int dims[1] = { 1 }, periods[1] = { 0 }, one = 1, zero = 0;
        MPI_Comm t = MPI_COMM_NULL;

        EXPECT(MPI_Cart_create(ic, 1, dims, periods, 0, &t) == MPI_ERR_COMM, "cart on an intercomm");
        EXPECT(MPI_Graph_create(ic, 1, &one, &zero, 0, &t) == MPI_ERR_COMM, "graph on an intercomm");
        EXPECT(MPI_Dist_graph_create_adjacent(ic, 0, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED,
                                              MPI_INFO_NULL, 0, &t) == MPI_ERR_COMM,
               "dist graph on an intercomm");
        EXPECT(t == MPI_COMM_NULL, "a topology handle came back");
        EXPECT(MPI_Neighbor_allgather(&x, 1, MPI_INT, &y, 1, MPI_INT, ic) == MPI_ERR_TOPOLOGY,
               "neighbour collective on an intercomm");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT(MPI_Intercomm_create(ic, 0, MPI_COMM_WORLD, 0, 1, &m) == MPI_ERR_COMM,
           "an intercommunicator as local_comm");
    EXPECT(MPI_Comm_remote_size(MPI_COMM_WORLD, &sz) == MPI_ERR_COMM, "remote size of world");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Intracommunicator constructors of this part. */
static void test_intra(void)
{
    MPI_Comm c, d;
    MPI_Group wg, g;
    int sz, rk, flag, y;

    MPI_Comm_group(MPI_COMM_WORLD, &wg);

    /* MPI_Comm_create with a different, disjoint group on each half */
    th_case = "create disjoint";
    int lo = me < h ? 0 : h, hi = me < h ? h : n, ranks[8];
    for (int i = lo; i < hi; i++)
        ranks[i - lo] = hi - 1 - (i - lo);   /* reversed */
    MPI_Group_incl(wg, hi - lo, ranks, &g);
    CHECK_RC(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
    MPI_Comm_size(c, &sz);
    MPI_Comm_rank(c, &rk);
    EXPECT(sz == hi - lo && rk == hi - 1 - me, "size %d rank %d", sz, rk);
    CHECK_RC(MPI_Allreduce(&me, &y, 1, MPI_INT, MPI_SUM, c));
    EXPECT(y == (lo + hi - 1) * (hi - lo) / 2, "sum %d", y);
    MPI_Group_free(&g);
    CHECK_RC(MPI_Comm_free(&c));

    /* create_group: the odd world ranks only, the even ones call nothing */
    th_case = "create_group";
    int no = 0;
    for (int i = 1; i < n; i += 2)
        ranks[no++] = i;
    MPI_Group_incl(wg, no, ranks, &g);
    if (me % 2) {
        CHECK_RC(MPI_Comm_create_group(MPI_COMM_WORLD, g, 77, &c));
        MPI_Comm_size(c, &sz);
        MPI_Comm_rank(c, &rk);
        EXPECT(sz == no && rk == me / 2, "size %d rank %d", sz, rk);
        CHECK_RC(MPI_Allreduce(&me, &y, 1, MPI_INT, MPI_MAX, c));
        EXPECT(y == ranks[no - 1], "max %d", y);
        CHECK_RC(MPI_Comm_free(&c));
    }
    MPI_Group_free(&g);

    /* idup, dup_with_info, set/get_info */
    th_case = "idup";
    MPI_Request rq;
    CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &c, &rq));
    CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    MPI_Comm_compare(MPI_COMM_WORLD, c, &flag);
    EXPECT(flag == MPI_CONGRUENT, "compare %d", flag);
    CHECK_RC(MPI_Allreduce(&me, &y, 1, MPI_INT, MPI_SUM, c));
    EXPECT(y == n * (n - 1) / 2, "sum %d", y);

    th_case = "info";
    MPI_Info info, used;
    char v[32];
    MPI_Info_create(&info);
    MPI_Info_set(info, "rtmsg_test_hint", "yes");
    CHECK_RC(MPI_Comm_dup_with_info(c, info, &d));
    MPI_Info_free(&info);
    CHECK_RC(MPI_Comm_get_info(d, &used));
    MPI_Info_get(used, "rtmsg_test_hint", sizeof(v) - 1, v, &flag);
    EXPECT(flag && !strcmp(v, "yes"), "hint after dup_with_info: %d", flag);
    MPI_Info_free(&used);
    CHECK_RC(MPI_Comm_set_info(d, MPI_INFO_NULL));
    CHECK_RC(MPI_Comm_get_info(d, &used));
    MPI_Info_get_nkeys(used, &sz);
    EXPECT(sz == 0, "%d keys after set_info(MPI_INFO_NULL)", sz);
    MPI_Info_free(&used);

    /* disconnect: a message in flight on d is received first */
    th_case = "disconnect";
    int x = me, got = -1;
    MPI_Request r2[2];
    CHECK_RC(MPI_Irecv(&got, 1, MPI_INT, (me + n - 1) % n, 4, d, &r2[0]));
    CHECK_RC(MPI_Isend(&x, 1, MPI_INT, (me + 1) % n, 4, d, &r2[1]));
    CHECK_RC(MPI_Waitall(2, r2, MPI_STATUSES_IGNORE));
    CHECK_RC(MPI_Comm_disconnect(&d));
    EXPECT(d == MPI_COMM_NULL && got == (me + n - 1) % n, "after disconnect: %d", got);
    CHECK_RC(MPI_Comm_free(&c));
    MPI_Group_free(&wg);
}

int main(int argc, char **argv)
{
    MPI_Comm half, ic;
    int flag, sz;

    mt_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    me = th_rank;
    h = n / 2;
    if (n == 1)
        h = 1;

    th_case = "world";
    MPI_Comm_test_inter(MPI_COMM_WORLD, &flag);
    EXPECT(!flag, "MPI_COMM_WORLD is an intercommunicator");
    test_intra();

    if (n >= 2) {
        in_a = me < h;
        lsize = in_a ? h : n - h;
        rsize = n - lsize;
        lbase = in_a ? 0 : h;
        rbase = in_a ? h : 0;
        lrank = me - lbase;
        th_case = "create";
        CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, in_a, me, &half));
        /* the leaders: local rank 0 and world rank rbase across the world */
        CHECK_RC(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rbase, 12, &ic));
        MPI_Comm_test_inter(ic, &flag);
        MPI_Comm_size(ic, &sz);
        int rs = -1, rk = -1;
        MPI_Comm_remote_size(ic, &rs);
        MPI_Comm_rank(ic, &rk);
        EXPECT(flag && sz == lsize && rs == rsize && rk == lrank, "inter %d size %d remote %d "
               "rank %d", flag, sz, rs, rk);
        test_p2p(ic);
        test_errhandler_refs(ic);
        for (int nb = 0; nb < 2; nb++) {
            for (int root_in_a = 0; root_in_a < 2; root_in_a++) {
                int gsize = root_in_a ? h : n - h;

                test_rooted(ic, root_in_a, 0, nb);
                if (gsize > 1)
                    test_rooted(ic, root_in_a, gsize - 1, nb);
            }
            test_all(ic, nb);
        }
        /* rendezvous sizes: 1 MiB across the intercommunicator both ways,
         * and a 1 MiB Bcast from group B's last rank */
        th_case = "large";
        enum { BIG = 1 << 18 };
        int *lb = malloc(BIG * sizeof(int)), *lr = malloc(BIG * sizeof(int));
        for (int k = 0; k < BIG; k++)
            lb[k] = me * 7 + k;
        if (lrank == 0) {
            CHECK_RC(MPI_Sendrecv(lb, BIG, MPI_INT, 0, 8, lr, BIG, MPI_INT, 0, 8, ic,
                                  MPI_STATUS_IGNORE));
            int bad = 0;
            for (int k = 0; k < BIG; k++)
                bad += lr[k] != rbase * 7 + k;
            EXPECT(!bad, "%d of %d ints differ from remote rank 0", bad, (int)BIG);
        }
        int broot = in_a ? n - h - 1 : (lrank == lsize - 1 ? MPI_ROOT : MPI_PROC_NULL);
        CHECK_RC(MPI_Bcast(broot == MPI_ROOT ? lb : lr, BIG, MPI_INT, broot, ic));
        if (in_a) {
            int bad = 0;
            for (int k = 0; k < BIG; k++)
                bad += lr[k] != (n - 1) * 7 + k;
            EXPECT(!bad, "%d of %d ints differ in the bcast", bad, (int)BIG);
        }
        free(lb);
        free(lr);

        /* many nonblocking collectives in flight at once, completed in reverse */
        th_case = "in flight";
        MPI_Request rq[3];
        int a = me, b = -1, c = -1, d = -1;
        CHECK_RC(MPI_Iallreduce(&a, &b, 1, MPI_INT, MPI_SUM, ic, &rq[0]));
        CHECK_RC(MPI_Ibarrier(ic, &rq[1]));
        CHECK_RC(MPI_Ibcast(in_a ? &a : &c, 1, MPI_INT, in_a ? (lrank == 0 ? MPI_ROOT
                                                                       : MPI_PROC_NULL) : 0,
                            ic, &rq[2]));
        for (int i = 2; i >= 0; i--)
            CHECK_RC(MPI_Wait(&rq[i], MPI_STATUS_IGNORE));
        EXPECT(b == sum_remote(), "iallreduce %d", b);
        if (!in_a)
            EXPECT(c == 0, "ibcast %d", c);
        (void)d;
        test_constructors(ic);
        /* the other way round: leaders are the last ranks, peer is a dup */
        th_case = "create 2";
        MPI_Comm w2, ic2;
        MPI_Comm_dup(MPI_COMM_WORLD, &w2);
        CHECK_RC(MPI_Intercomm_create(half, lsize - 1, w2, rbase + rsize - 1, 3, &ic2));
        int s = -1;
        CHECK_RC(MPI_Allreduce(&me, &s, 1, MPI_INT, MPI_SUM, ic2));
        EXPECT(s == sum_remote(), "allreduce on the second: %d", s);
        CHECK_RC(MPI_Comm_free(&ic2));
        CHECK_RC(MPI_Comm_free(&w2));
        CHECK_RC(MPI_Comm_free(&ic));
        CHECK_RC(MPI_Comm_free(&half));
    }
    return mt_finish("mpi_icomm");
}
