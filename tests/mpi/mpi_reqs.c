/*
 * Point-to-point calls the other tests leave out, each checked on its data
 * or its completion semantics (2 ranks or more; ranks above 1 only take
 * part in the collective parts):
 *   - MPI_Ibsend through an attached buffer, detach waits for delivery;
 *   - persistent Bsend_init / Ssend_init / Rsend_init, each started twice;
 *     Ssend_init must not complete before the receive is posted;
 *   - Testany / Testsome / Waitsome / Waitany: all-null and inactive
 *     persistent requests (MPI_UNDEFINED), partial completion, indices;
 *   - Sendrecv_replace with a non-contiguous (vector) type, gaps untouched;
 *   - MPI_Info_*: set/get/valuelen/nkeys/nthkey/delete/dup and the error
 *     classes of bad keys and values under MPI_ERRORS_RETURN;
 *   - the MPI_ERROR field of a status (MPI 3.1 3.2.5): calls with one status
 *     (Recv, Probe, Mprobe/Mrecv, Wait, Test, MPI_PROC_NULL) leave it as it
 *     was, and so do Waitall/Testall/Waitsome when they succeed; Waitall
 *     that returns MPI_ERR_IN_STATUS sets it in every status; the empty
 *     status of a null request has MPI_SUCCESS (3.7.3).
 * Runs as a singleton too (only the Info part then).
 */
#include "mpitest.h"

#define TAG_DATA 11
#define TAG_GO   30

static void test_ibsend(int r)
{
    enum { N = 4, LEN = 1000 };
    int bufsize = N * (LEN * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *attach = malloc((size_t)bufsize);
    int *data = malloc(sizeof(int) * N * LEN);

    if (r == 0) {
        MPI_Request rq[N];
        CHECK_RC(MPI_Buffer_attach(attach, bufsize));
        for (int k = 0; k < N; k++) {
            for (int i = 0; i < LEN; i++)
                data[k * LEN + i] = k * 100000 + i;
            CHECK_RC(MPI_Ibsend(&data[k * LEN], LEN, MPI_INT, 1, TAG_DATA, MPI_COMM_WORLD, &rq[k]));
        }
        /* buffered: complete locally, whatever the receiver does */
        CHECK_RC(MPI_Waitall(N, rq, MPI_STATUSES_IGNORE));
        for (int k = 0; k < N; k++)
            EXPECT(rq[k] == MPI_REQUEST_NULL, "ibsend request %d not freed", k);
        memset(data, 0, sizeof(int) * N * LEN);   /* the copies must travel */
        MPI_Send(NULL, 0, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD);
        void *back;
        int backsize;
        CHECK_RC(MPI_Buffer_detach(&back, &backsize));
        EXPECT(back == attach && backsize == bufsize, "detach returned %p/%d", back, backsize);
    } else if (r == 1) {
        MPI_Recv(NULL, 0, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int k = 0; k < N; k++) {
            MPI_Status st;
            int cnt, ok = 1;
            CHECK_RC(MPI_Recv(data, LEN, MPI_INT, 0, TAG_DATA, MPI_COMM_WORLD, &st));
            MPI_Get_count(&st, MPI_INT, &cnt);
            for (int i = 0; i < LEN; i++)
                ok &= data[i] == k * 100000 + i;
            EXPECT(ok && cnt == LEN, "ibsend message %d (count %d)", k, cnt);
        }
    }
    free(data);
    free(attach);
}

static void test_persistent_modes(int r)
{
    enum { LEN = 300 };
    int buf[LEN], ok;

    if (r == 0) {
        MPI_Request rq;
        int flag = 1;
        /* Bsend_init, started twice with new data each time */
        int bufsize = 2 * (LEN * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
        char *attach = malloc((size_t)bufsize);
        void *back;
        CHECK_RC(MPI_Buffer_attach(attach, bufsize));
        CHECK_RC(MPI_Bsend_init(buf, LEN, MPI_INT, 1, TAG_DATA, MPI_COMM_WORLD, &rq));
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < LEN; i++)
                buf[i] = round * 1000 + i;
            CHECK_RC(MPI_Start(&rq));
            CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            EXPECT(rq != MPI_REQUEST_NULL, "persistent bsend request freed by Wait");
        }
        CHECK_RC(MPI_Request_free(&rq));
        CHECK_RC(MPI_Buffer_detach(&back, &bufsize));
        free(attach);

        /* Ssend_init: not complete until the receiver has matched it */
        CHECK_RC(MPI_Ssend_init(buf, LEN, MPI_INT, 1, TAG_DATA + 1, MPI_COMM_WORLD, &rq));
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < LEN; i++)
                buf[i] = -round * 1000 - i;
            CHECK_RC(MPI_Start(&rq));
            for (int k = 0; k < 50; k++)
                CHECK_RC(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
            EXPECT(!flag, "ssend_init round %d completed before the receive was posted", round);
            MPI_Send(NULL, 0, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD);
            if (!flag)
                CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        }
        CHECK_RC(MPI_Request_free(&rq));

        /* Rsend_init: the receiver posts first and says so */
        CHECK_RC(MPI_Rsend_init(buf, LEN, MPI_INT, 1, TAG_DATA + 2, MPI_COMM_WORLD, &rq));
        for (int round = 0; round < 2; round++) {
            MPI_Recv(NULL, 0, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < LEN; i++)
                buf[i] = 7 * i + round;
            CHECK_RC(MPI_Start(&rq));
            CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        }
        CHECK_RC(MPI_Request_free(&rq));
    } else if (r == 1) {
        for (int round = 0; round < 2; round++) {
            CHECK_RC(MPI_Recv(buf, LEN, MPI_INT, 0, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            ok = 1;
            for (int i = 0; i < LEN; i++)
                ok &= buf[i] == round * 1000 + i;
            EXPECT(ok, "bsend_init round %d data", round);
        }
        for (int round = 0; round < 2; round++) {
            MPI_Recv(NULL, 0, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK_RC(MPI_Recv(buf, LEN, MPI_INT, 0, TAG_DATA + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            ok = 1;
            for (int i = 0; i < LEN; i++)
                ok &= buf[i] == -round * 1000 - i;
            EXPECT(ok, "ssend_init round %d data", round);
        }
        for (int round = 0; round < 2; round++) {
            MPI_Request rq;
            CHECK_RC(MPI_Irecv(buf, LEN, MPI_INT, 0, TAG_DATA + 2, MPI_COMM_WORLD, &rq));
            MPI_Send(NULL, 0, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
            CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            ok = 1;
            for (int i = 0; i < LEN; i++)
                ok &= buf[i] == 7 * i + round;
            EXPECT(ok, "rsend_init round %d data", round);
        }
    }
}

static void test_some_any(int r)
{
    MPI_Request rq[4];
    MPI_Status st[4];
    int idx[4], outcount, index, flag;

    /* all null: MPI_UNDEFINED, flag true for Testany */
    for (int k = 0; k < 4; k++)
        rq[k] = MPI_REQUEST_NULL;
    outcount = 5;
    CHECK_RC(MPI_Waitsome(4, rq, &outcount, idx, st));
    EXPECT(outcount == MPI_UNDEFINED, "waitsome on null requests: outcount %d", outcount);
    outcount = 5;
    CHECK_RC(MPI_Testsome(4, rq, &outcount, idx, st));
    EXPECT(outcount == MPI_UNDEFINED, "testsome on null requests: outcount %d", outcount);
    outcount = 5;
    CHECK_RC(MPI_Waitsome(0, rq, &outcount, idx, MPI_STATUSES_IGNORE));
    EXPECT(outcount == MPI_UNDEFINED, "waitsome of 0 requests: outcount %d", outcount);
    flag = 0;
    index = 5;
    CHECK_RC(MPI_Testany(4, rq, &index, &flag, &st[0]));
    EXPECT(flag && index == MPI_UNDEFINED, "testany on null requests: flag %d index %d", flag, index);
    index = 5;
    CHECK_RC(MPI_Waitany(4, rq, &index, MPI_STATUS_IGNORE));
    EXPECT(index == MPI_UNDEFINED, "waitany on null requests: index %d", index);

    /* an inactive persistent request counts as null */
    int dummy = 0;
    CHECK_RC(MPI_Recv_init(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &rq[1]));
    outcount = 5;
    CHECK_RC(MPI_Testsome(4, rq, &outcount, idx, MPI_STATUSES_IGNORE));
    EXPECT(outcount == MPI_UNDEFINED, "testsome with an inactive persistent request: %d", outcount);
    flag = 0;
    CHECK_RC(MPI_Testany(4, rq, &index, &flag, MPI_STATUS_IGNORE));
    EXPECT(flag && index == MPI_UNDEFINED, "testany with an inactive persistent request");
    EXPECT(rq[1] != MPI_REQUEST_NULL, "inactive persistent request was freed");
    MPI_Request_free(&rq[1]);

    if (r > 1)
        return;
    int peer = 1 - r, in[3] = { -1, -1, -1 }, out[3];
    /* r posts receives of tags 0..2; the peer sends tag 1 first and the
     * others after a go message, so exactly one can be done before it */
    for (int k = 0; k < 3; k++)
        CHECK_RC(MPI_Irecv(&in[k], 1, MPI_INT, peer, 20 + k, MPI_COMM_WORLD, &rq[k]));
    rq[3] = MPI_REQUEST_NULL;
    for (int k = 0; k < 3; k++)
        out[k] = 100 * r + k;
    MPI_Send(&out[1], 1, MPI_INT, peer, 21, MPI_COMM_WORLD);
    CHECK_RC(MPI_Waitsome(4, rq, &outcount, idx, st));
    EXPECT(outcount == 1 && idx[0] == 1, "waitsome: outcount %d first index %d", outcount, idx[0]);
    EXPECT(st[0].MPI_SOURCE == peer && st[0].MPI_TAG == 21, "waitsome status %d/%d",
           st[0].MPI_SOURCE, st[0].MPI_TAG);
    EXPECT(rq[1] == MPI_REQUEST_NULL && in[1] == 100 * peer + 1, "waitsome completion of index 1");
    outcount = 5;
    CHECK_RC(MPI_Testsome(4, rq, &outcount, idx, st));
    EXPECT(outcount == 0, "testsome before the other sends: outcount %d", outcount);
    flag = 1;
    CHECK_RC(MPI_Testany(4, rq, &index, &flag, MPI_STATUS_IGNORE));
    EXPECT(!flag && index == MPI_UNDEFINED, "testany before the other sends: flag %d index %d", flag, index);
    /* both ranks got here: the remaining messages go */
    MPI_Sendrecv(NULL, 0, MPI_INT, peer, TAG_GO, NULL, 0, MPI_INT, peer, TAG_GO, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Send(&out[2], 1, MPI_INT, peer, 22, MPI_COMM_WORLD);
    MPI_Send(&out[0], 1, MPI_INT, peer, 20, MPI_COMM_WORLD);
    int seen = 0, got = 0;
    while (got < 2) {
        CHECK_RC(MPI_Testsome(4, rq, &outcount, idx, st));
        if (outcount == MPI_UNDEFINED) {
            EXPECT(0, "testsome: no active request left after %d of 2", got);
            break;
        }
        for (int k = 0; k < outcount; k++) {
            EXPECT(idx[k] == 0 || idx[k] == 2, "testsome index %d", idx[k]);
            EXPECT(st[k].MPI_TAG == 20 + idx[k], "testsome status tag %d for index %d", st[k].MPI_TAG,
                   idx[k]);
            seen |= 1 << idx[k];
        }
        got += outcount;
    }
    EXPECT(seen == 5 && in[0] == 100 * peer && in[2] == 100 * peer + 2, "testsome results %x %d %d",
           seen, in[0], in[2]);
    outcount = 5;
    CHECK_RC(MPI_Testsome(4, rq, &outcount, idx, st));
    EXPECT(outcount == MPI_UNDEFINED, "testsome after all completed: %d", outcount);
}

static void test_sendrecv_replace_vector(int r, int p)
{
    enum { N = 1000 };
    MPI_Datatype vec;
    double *v = malloc(2 * N * sizeof(double));
    int right = (r + 1) % p, left = (r - 1 + p) % p, ok = 1;
    MPI_Status st;

    MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    for (int i = 0; i < 2 * N; i++)
        v[i] = i % 2 ? -1.0 - i : r * 10000.0 + i;
    CHECK_RC(MPI_Sendrecv_replace(v, 1, vec, right, 5, left, 5, MPI_COMM_WORLD, &st));
    for (int i = 0; i < 2 * N; i++)
        ok &= v[i] == (i % 2 ? -1.0 - i : left * 10000.0 + i);
    EXPECT(ok, "sendrecv_replace of a vector from %d (gaps untouched)", left);
    int cnt = -1;
    MPI_Get_count(&st, vec, &cnt);
    EXPECT(st.MPI_SOURCE == left && st.MPI_TAG == 5 && cnt == 1, "status %d/%d count %d",
           st.MPI_SOURCE, st.MPI_TAG, cnt);
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    EXPECT(cnt == N, "count in doubles %d", cnt);
    MPI_Type_free(&vec);
    free(v);
}

static void test_info(void)
{
    MPI_Info info, dup;
    char value[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY + 1];
    int flag, len, nkeys;
    char longkey[MPI_MAX_INFO_KEY + 2];

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_RC(MPI_Info_create(&info));
    CHECK_RC(MPI_Info_set(info, "alpha", "1"));
    CHECK_RC(MPI_Info_set(info, "beta", "two words"));
    CHECK_RC(MPI_Info_set(info, "alpha", "replaced"));
    CHECK_RC(MPI_Info_get_nkeys(info, &nkeys));
    EXPECT(nkeys == 2, "nkeys %d", nkeys);
    CHECK_RC(MPI_Info_get_nthkey(info, 0, key));
    EXPECT(!strcmp(key, "alpha"), "key 0 is %s", key);
    CHECK_RC(MPI_Info_get_nthkey(info, 1, key));
    EXPECT(!strcmp(key, "beta"), "key 1 is %s", key);
    CHECK_RC(MPI_Info_get_valuelen(info, "beta", &len, &flag));
    EXPECT(flag && len == 9, "valuelen %d flag %d", len, flag);
    CHECK_RC(MPI_Info_get(info, "alpha", MPI_MAX_INFO_VAL, value, &flag));
    EXPECT(flag && !strcmp(value, "replaced"), "alpha = %s", value);
    /* valuelen shorter than the value: truncated, still terminated */
    memset(value, 'x', sizeof(value));
    CHECK_RC(MPI_Info_get(info, "beta", 3, value, &flag));
    EXPECT(flag && !strcmp(value, "two"), "truncated value '%.8s'", value);
    CHECK_RC(MPI_Info_get(info, "gamma", MPI_MAX_INFO_VAL, value, &flag));
    EXPECT(!flag, "missing key found");
    CHECK_RC(MPI_Info_get_valuelen(info, "gamma", &len, &flag));
    EXPECT(!flag, "valuelen of a missing key");

    CHECK_RC(MPI_Info_dup(info, &dup));
    CHECK_RC(MPI_Info_delete(info, "alpha"));
    CHECK_RC(MPI_Info_get_nkeys(info, &nkeys));
    EXPECT(nkeys == 1, "nkeys after delete %d", nkeys);
    CHECK_RC(MPI_Info_get(dup, "alpha", MPI_MAX_INFO_VAL, value, &flag));
    EXPECT(flag && !strcmp(value, "replaced"), "dup is independent: alpha %s", flag ? value : "(gone)");

    /* error classes */
    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    int rc = MPI_Info_set(info, longkey, "v"), cls = -1;
    MPI_Error_class(rc, &cls);
    EXPECT(cls == MPI_ERR_INFO_KEY, "key of %d chars: class %d", MPI_MAX_INFO_KEY + 1, cls);
    rc = MPI_Info_set(info, "", "v");
    MPI_Error_class(rc, &cls);
    EXPECT(cls == MPI_ERR_INFO_KEY, "empty key: class %d", cls);
    rc = MPI_Info_delete(info, "never-set");
    MPI_Error_class(rc, &cls);
    EXPECT(cls == MPI_ERR_INFO_NOKEY, "delete of a missing key: class %d", cls);
    rc = MPI_Info_get_nthkey(info, 5, key);
    MPI_Error_class(rc, &cls);
    EXPECT(cls == MPI_ERR_ARG || cls == MPI_ERR_INFO_KEY, "nthkey out of range: class %d", cls);
    char *longval = malloc(MPI_MAX_INFO_VAL + 2);
    memset(longval, 'v', MPI_MAX_INFO_VAL + 1);
    longval[MPI_MAX_INFO_VAL + 1] = '\0';
    rc = MPI_Info_set(info, "big", longval);
    MPI_Error_class(rc, &cls);
    EXPECT(cls == MPI_ERR_INFO_VALUE, "value of %d chars: class %d", MPI_MAX_INFO_VAL + 1, cls);
    free(longval);

    CHECK_RC(MPI_Info_free(&info));
    EXPECT(info == MPI_INFO_NULL, "info not reset by free");
    CHECK_RC(MPI_Info_free(&dup));
    rc = MPI_Info_get_nkeys(info, &nkeys);
    MPI_Error_class(rc, &cls);
    EXPECT(cls == MPI_ERR_INFO || cls == MPI_ERR_ARG, "MPI_INFO_NULL: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* A value no call may write into MPI_ERROR unless the standard lets it. */
#define ERR_MARK 12345

static void mark(MPI_Status *st, int n)
{
    for (int i = 0; i < n; i++)
        st[i].MPI_ERROR = ERR_MARK;
}

static void test_status_error_field(int r)
{
    int v[4] = {1, 2, 3, 4}, in[8], in2[8], flag;
    MPI_Status st[3];
    MPI_Request rq[3];
    MPI_Message msg;
    MPI_Datatype vec;

    CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    CHECK_RC(MPI_Type_commit(&vec));
    if (r == 0) {
        for (int k = 0; k < 9; k++)
            CHECK_RC(MPI_Send(v, 4, MPI_INT, 1, 40 + k, MPI_COMM_WORLD));
    } else if (r == 1) {
        mark(st, 1);   /* contiguous receive */
        CHECK_RC(MPI_Recv(in, 4, MPI_INT, 0, 40, MPI_COMM_WORLD, st));
        EXPECT(st[0].MPI_ERROR == ERR_MARK, "Recv wrote MPI_ERROR (%d)", st[0].MPI_ERROR);
        mark(st, 1);   /* a derived type takes the request path */
        CHECK_RC(MPI_Recv(in, 2, vec, 0, 41, MPI_COMM_WORLD, st));
        EXPECT(st[0].MPI_ERROR == ERR_MARK, "Recv (vector) wrote MPI_ERROR (%d)", st[0].MPI_ERROR);
        mark(st, 1);
        CHECK_RC(MPI_Probe(0, 42, MPI_COMM_WORLD, st));
        EXPECT(st[0].MPI_ERROR == ERR_MARK, "Probe wrote MPI_ERROR (%d)", st[0].MPI_ERROR);
        flag = 0;
        mark(st, 1);
        while (!flag)
            CHECK_RC(MPI_Iprobe(0, 42, MPI_COMM_WORLD, &flag, st));
        EXPECT(st[0].MPI_ERROR == ERR_MARK, "Iprobe wrote MPI_ERROR (%d)", st[0].MPI_ERROR);
        mark(st, 2);
        CHECK_RC(MPI_Mprobe(0, 42, MPI_COMM_WORLD, &msg, &st[0]));
        CHECK_RC(MPI_Mrecv(in, 4, MPI_INT, &msg, &st[1]));
        EXPECT(st[0].MPI_ERROR == ERR_MARK && st[1].MPI_ERROR == ERR_MARK,
               "Mprobe/Mrecv wrote MPI_ERROR (%d %d)", st[0].MPI_ERROR, st[1].MPI_ERROR);
        mark(st, 1);
        CHECK_RC(MPI_Irecv(in, 4, MPI_INT, 0, 43, MPI_COMM_WORLD, &rq[0]));
        CHECK_RC(MPI_Wait(&rq[0], st));
        EXPECT(st[0].MPI_ERROR == ERR_MARK, "Wait wrote MPI_ERROR (%d)", st[0].MPI_ERROR);
        mark(st, 1);
        CHECK_RC(MPI_Irecv(in, 2, vec, 0, 44, MPI_COMM_WORLD, &rq[0]));
        for (flag = 0; !flag;)
            CHECK_RC(MPI_Test(&rq[0], &flag, st));
        EXPECT(st[0].MPI_ERROR == ERR_MARK, "Test wrote MPI_ERROR (%d)", st[0].MPI_ERROR);
        mark(st, 3);   /* Waitall that succeeds: fast path, request path, null */
        CHECK_RC(MPI_Irecv(in, 1, MPI_INT, 0, 45, MPI_COMM_WORLD, &rq[0]));
        CHECK_RC(MPI_Irecv(in2, 2, vec, 0, 46, MPI_COMM_WORLD, &rq[1]));
        rq[2] = MPI_REQUEST_NULL;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_Waitall(3, rq, st);
        EXPECT(rc == MPI_ERR_IN_STATUS, "Waitall with a truncated receive returned %d", rc);
        EXPECT(st[0].MPI_ERROR == MPI_ERR_TRUNCATE && st[1].MPI_ERROR == MPI_SUCCESS &&
               st[2].MPI_ERROR == MPI_SUCCESS,
               "MPI_ERR_IN_STATUS: MPI_ERROR fields %d %d %d", st[0].MPI_ERROR,
               st[1].MPI_ERROR, st[2].MPI_ERROR);
        mark(st, 2);
        CHECK_RC(MPI_Irecv(in, 4, MPI_INT, 0, 47, MPI_COMM_WORLD, &rq[0]));
        CHECK_RC(MPI_Irecv(in, 2, vec, 0, 48, MPI_COMM_WORLD, &rq[1]));
        CHECK_RC(MPI_Waitall(2, rq, st));
        EXPECT(st[0].MPI_ERROR == ERR_MARK && st[1].MPI_ERROR == ERR_MARK,
               "Waitall that succeeded wrote MPI_ERROR (%d %d)", st[0].MPI_ERROR,
               st[1].MPI_ERROR);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    mark(st, 2);
    CHECK_RC(MPI_Recv(in, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st[0]));
    CHECK_RC(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st[1]));
    EXPECT(st[0].MPI_ERROR == ERR_MARK && st[1].MPI_ERROR == ERR_MARK,
           "MPI_PROC_NULL Recv/Probe wrote MPI_ERROR (%d %d)", st[0].MPI_ERROR, st[1].MPI_ERROR);
    mark(st, 2);
    CHECK_RC(MPI_Irecv(in, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rq[0]));
    rq[1] = MPI_REQUEST_NULL;
    CHECK_RC(MPI_Testall(2, rq, &flag, st));
    /* a null request's status is the empty status, MPI_ERROR MPI_SUCCESS */
    EXPECT(flag && st[0].MPI_ERROR == ERR_MARK && st[1].MPI_ERROR == MPI_SUCCESS,
           "Testall: MPI_ERROR fields %d %d", st[0].MPI_ERROR, st[1].MPI_ERROR);
    mark(st, 1);
    CHECK_RC(MPI_Wait(&rq[1], st));
    EXPECT(st[0].MPI_ERROR == MPI_SUCCESS, "Wait(MPI_REQUEST_NULL): MPI_ERROR %d",
           st[0].MPI_ERROR);
    MPI_Type_free(&vec);
}

int main(int argc, char **argv)
{
    int p;

    mt_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    test_info();
    if (p >= 2) {
        test_ibsend(th_rank);
        MPI_Barrier(MPI_COMM_WORLD);
        test_persistent_modes(th_rank);
        MPI_Barrier(MPI_COMM_WORLD);
        test_some_any(th_rank);
        MPI_Barrier(MPI_COMM_WORLD);
        test_status_error_field(th_rank);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    test_sendrecv_replace_vector(th_rank, p);
    return mt_finish("mpi_reqs");
}
