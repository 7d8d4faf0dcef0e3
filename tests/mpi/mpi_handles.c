/*
 * Handles, errors, generalized requests, attributes, reference counting and
 * handle tables without limits (issue 14, part "handles"), each checked on
 * its data or its callbacks, at any number of ranks (a singleton too):
 *   - Fortran conversions: every int handle round-trips; a request's
 *     integer is the same on every c2f, names the request until it
 *     completes and is MPI_REQUEST_NULL after; integers are reclaimed (5000
 *     requests converted stay within a few hundred); persistent requests
 *     keep theirs; messages (Mprobe/Mrecv); statuses; the IGNORE constants;
 *   - MPI_Add_error_class/_code/_string, MPI_LASTUSEDCODE, Error_class/
 *     Error_string of added codes, a user handler getting an added code;
 *   - error handlers are counted: a handler freed while a communicator
 *     uses it is still called, with that communicator (and by a dup of
 *     it), not a handler created since; 300 handlers created and freed;
 *   - generalized requests through Test, Wait, Waitall, Waitany, Testsome,
 *     Request_get_status, Cancel, Request_free before completion, and a
 *     query_fn's error;
 *   - an attribute delete callback deleting other attributes of its
 *     communicator; datatype attributes (dup copies, free deletes, NULL
 *     copy, predefined types, keyval kinds); a dup whose handle is past
 *     every attribute list so far, and a copy callback that creates types
 *     and attributes between two copied attributes (read freed memory);
 *   - a persistent send and receive of a derived type freed right after
 *     Send_init/Recv_init, started three times (crashed at MPI_Start);
 *   - 1500 infos, keyvals and errhandlers, 300 ops at once (fixed limits
 *     of 1022, 992, 61 and 241 before);
 *   - MPI_COMM_SELF's attributes deleted at the very start of MPI_Finalize
 *     in the reverse order of setting, with MPI still working in the
 *     callbacks (checked after MPI_Finalize).
 */
#include "mpitest.h"

static int rank, size;

/* ---- Fortran conversions ---- */

static void test_f2c(void)
{
    MPI_Group g;
    MPI_Info info;
    MPI_Errhandler eh = MPI_ERRORS_RETURN;

    MPI_Comm_group(MPI_COMM_WORLD, &g);
    MPI_Info_create(&info);
    EXPECT(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "comm");
    EXPECT(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_NULL)) == MPI_COMM_NULL, "comm null");
    EXPECT(MPI_Group_f2c(MPI_Group_c2f(g)) == g, "group");
    EXPECT(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE, "type");
    EXPECT(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM, "op");
    EXPECT(MPI_Info_f2c(MPI_Info_c2f(info)) == info, "info");
    EXPECT(MPI_Errhandler_f2c(MPI_Errhandler_c2f(eh)) == eh, "errhandler");
    EXPECT(MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL, "win");
    MPI_Group_free(&g);
    MPI_Info_free(&info);

    /* Requests */
    EXPECT(MPI_Request_c2f(MPI_REQUEST_NULL) == 0, "c2f(MPI_REQUEST_NULL)");
    EXPECT(MPI_Request_f2c(0) == MPI_REQUEST_NULL, "f2c(0)");
    EXPECT(MPI_Request_f2c(123456) == MPI_REQUEST_NULL, "f2c of an unknown integer");
    EXPECT(MPI_Request_f2c(-5) == MPI_REQUEST_NULL, "f2c of a negative integer");

    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int maxf = 0;
    for (int it = 0; it < 500; it++) {
        MPI_Request rq[10];
        MPI_Fint f[10];
        int out[5], in[5];

        for (int k = 0; k < 5; k++) {
            out[k] = rank * 100000 + it * 10 + k;
            MPI_Irecv(&in[k], 1, MPI_INT, from, 50 + k, MPI_COMM_WORLD, &rq[k]);
            MPI_Isend(&out[k], 1, MPI_INT, to, 50 + k, MPI_COMM_WORLD, &rq[5 + k]);
        }
        for (int k = 0; k < 10; k++) {
            f[k] = MPI_Request_c2f(rq[k]);
            EXPECT(f[k] != 0, "c2f of a live request gave 0");
            EXPECT(MPI_Request_c2f(rq[k]) == f[k], "a second c2f gave another integer");
            if (f[k] > maxf)
                maxf = f[k];
        }
        for (int k = 0; k < 10; k++) {
            MPI_Request c = MPI_Request_f2c(f[k]);

            EXPECT(c == rq[k], "f2c(c2f(request %d)) is another request", k);
            CHECK_RC(MPI_Wait(&c, MPI_STATUS_IGNORE));
        }
        for (int k = 0; k < 10; k++)
            EXPECT(MPI_Request_f2c(f[k]) == MPI_REQUEST_NULL,
                   "f2c of a completed request's integer %d is not MPI_REQUEST_NULL", f[k]);
        for (int k = 0; k < 5; k++)
            EXPECT(in[k] == from * 100000 + it * 10 + k, "data %d", in[k]);
    }
    EXPECT(maxf < 200, "5000 converted requests, 10 alive at once, used integers up to %d", maxf);

    /* A persistent request keeps its integer across starts. */
    int v = 7, w = 0;
    MPI_Request ps, pr;
    MPI_Send_init(&v, 1, MPI_INT, 0, 60, MPI_COMM_SELF, &ps);
    MPI_Recv_init(&w, 1, MPI_INT, 0, 60, MPI_COMM_SELF, &pr);
    MPI_Fint fps = MPI_Request_c2f(ps), fpr = MPI_Request_c2f(pr);
    for (int k = 0; k < 3; k++) {
        MPI_Request both[2] = { MPI_Request_f2c(fpr), MPI_Request_f2c(fps) };

        v = 7 + k;
        EXPECT(both[0] == pr && both[1] == ps, "persistent f2c, start %d", k);
        CHECK_RC(MPI_Startall(2, both));
        CHECK_RC(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
        EXPECT(w == 7 + k, "persistent data %d", w);
        EXPECT(MPI_Request_c2f(ps) == fps, "persistent integer changed");
    }
    MPI_Request_free(&ps);
    MPI_Request_free(&pr);
    EXPECT(MPI_Request_f2c(fps) == MPI_REQUEST_NULL, "f2c of a freed persistent request");

    /* Messages */
    EXPECT(MPI_Message_c2f(MPI_MESSAGE_NULL) == 0, "message null");
    EXPECT(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC,
           "message no proc");
    MPI_Message m;
    MPI_Status st;
    int x = 4242 + rank, y = 0, cnt = -1;
    MPI_Request sr;
    MPI_Isend(&x, 1, MPI_INT, 0, 61, MPI_COMM_SELF, &sr);
    CHECK_RC(MPI_Mprobe(0, 61, MPI_COMM_SELF, &m, &st));
    MPI_Fint fm = MPI_Message_c2f(m);
    EXPECT(fm > 1 && MPI_Message_c2f(m) == fm, "message integer %d", fm);
    MPI_Message m2 = MPI_Message_f2c(fm);
    EXPECT(m2 == m, "f2c(c2f(message))");
    CHECK_RC(MPI_Mrecv(&y, 1, MPI_INT, &m2, &st));
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
    EXPECT(y == 4242 + rank, "mrecv data %d", y);
    EXPECT(MPI_Message_f2c(fm) == MPI_MESSAGE_NULL, "f2c of a received message's integer");

    /* Statuses */
    MPI_Fint fs[MPI_F_STATUS_SIZE];
    MPI_Status back;
    st.MPI_SOURCE = 3;
    st.MPI_TAG = 77;
    st.MPI_ERROR = MPI_ERR_TRUNCATE;
    MPI_Status_set_elements(&st, MPI_INT, 5);
    CHECK_RC(MPI_Status_c2f(&st, fs));
    EXPECT(fs[MPI_F_SOURCE] == 3 && fs[MPI_F_TAG] == 77 && fs[MPI_F_ERROR] == MPI_ERR_TRUNCATE,
           "fortran status %d %d %d", fs[MPI_F_SOURCE], fs[MPI_F_TAG], fs[MPI_F_ERROR]);
    memset(&back, 0, sizeof(back));
    CHECK_RC(MPI_Status_f2c(fs, &back));
    MPI_Get_count(&back, MPI_INT, &cnt);
    EXPECT(back.MPI_SOURCE == 3 && back.MPI_TAG == 77 && back.MPI_ERROR == MPI_ERR_TRUNCATE &&
           cnt == 5, "status round trip: count %d", cnt);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT(MPI_Status_c2f(&st, MPI_F_STATUS_IGNORE) == MPI_ERR_ARG, "c2f into F_STATUS_IGNORE");
    EXPECT(MPI_Status_f2c(MPI_F_STATUSES_IGNORE, &back) == MPI_ERR_ARG, "f2c of F_STATUSES_IGNORE");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- Error classes, codes and handlers ---- */

static int h1_calls, h1_code, h2_calls;
static MPI_Comm h1_comm;

static void handler1(MPI_Comm *comm, int *code, ...)
{
    h1_calls++;
    h1_code = *code;
    h1_comm = *comm;
}

static void handler2(MPI_Comm *comm, int *code, ...)
{
    (void)comm; (void)code;
    h2_calls++;
}

static void test_errors(void)
{
    int cls, code, code2, c, len, *last, flag;
    char s[MPI_MAX_ERROR_STRING];

    CHECK_RC(MPI_Add_error_class(&cls));
    EXPECT(cls > MPI_ERR_LASTCODE, "new class %d", cls);
    CHECK_RC(MPI_Add_error_code(cls, &code));
    CHECK_RC(MPI_Add_error_code(MPI_ERR_ARG, &code2));
    EXPECT(code > cls && code2 > code, "codes %d %d after class %d", code, code2, cls);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
    EXPECT(flag && *last == code2, "MPI_LASTUSEDCODE %d, last added %d", flag ? *last : -1, code2);
    MPI_Error_class(code, &c);
    EXPECT(c == cls, "class of the added code %d", c);
    MPI_Error_class(code2, &c);
    EXPECT(c == MPI_ERR_ARG, "class of a code of MPI_ERR_ARG %d", c);
    MPI_Error_class(cls, &c);
    EXPECT(c == cls, "class of the added class %d", c);
    MPI_Error_string(code, s, &len);
    EXPECT(len == 0, "string of a code with none: \"%s\"", s);
    CHECK_RC(MPI_Add_error_string(code, "my library: the widget broke"));
    MPI_Error_string(code, s, &len);
    EXPECT(!strcmp(s, "my library: the widget broke") && len == (int)strlen(s), "\"%s\"", s);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT(MPI_Add_error_string(MPI_ERR_ARG, "no") == MPI_ERR_ARG, "string of a predefined code");
    EXPECT(MPI_Add_error_code(code, &c) == MPI_ERR_ARG, "a code as a class");
    MPI_Error_string(MPI_ERR_ARG, s, &len);
    EXPECT(!strncmp(s, "MPI_ERR_ARG", 11), "predefined string changed: %s", s);

    /* A handler freed while a communicator uses it stays its handler. */
    MPI_Comm a, b;
    MPI_Errhandler e1, e2;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_create_errhandler(handler1, &e1);
    MPI_Comm_set_errhandler(a, e1);
    MPI_Errhandler_free(&e1);
    EXPECT(e1 == MPI_ERRHANDLER_NULL, "freed handle");
    MPI_Comm_create_errhandler(handler2, &e2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, e2);
    MPI_Comm_dup(a, &b);   /* inherits handler1 */
    MPI_Comm_call_errhandler(a, code);
    EXPECT(h1_calls == 1 && h1_code == code && h1_comm == a && h2_calls == 0,
           "on a: handler1 %d calls (code %d comm %d), handler2 %d", h1_calls, h1_code, h1_comm,
           h2_calls);
    MPI_Comm_free(&a);
    MPI_Comm c3;
    MPI_Comm_dup(MPI_COMM_WORLD, &c3);   /* may take a's handle */
    MPI_Comm_call_errhandler(b, MPI_ERR_OTHER);
    EXPECT(h1_calls == 2 && h1_code == MPI_ERR_OTHER && h1_comm == b && h2_calls == 0,
           "on b: handler1 %d calls (code %d), handler2 %d", h1_calls, h1_code, h2_calls);
    /* A real error on b goes to handler1 with b and the class. */
    EXPECT(MPI_Send(&c, 1, MPI_INT, size + 5, 0, b) == MPI_ERR_RANK, "send to a bad rank");
    EXPECT(h1_calls == 3 && h1_code == MPI_ERR_RANK && h1_comm == b, "handler1 %d calls code %d",
           h1_calls, h1_code);
    MPI_Comm_call_errhandler(c3, MPI_ERR_OTHER);
    EXPECT(h2_calls == 1 && h1_calls == 3, "on c3 (inherits WORLD's): handler2 %d handler1 %d",
           h2_calls, h1_calls);
    MPI_Errhandler got;
    MPI_Comm_get_errhandler(b, &got);
    MPI_Comm_free(&b);
    MPI_Comm_free(&c3);
    MPI_Errhandler_free(&got);   /* the last reference to handler1 */

    /* A communicator freed while a request holds it: the request's error
     * goes to its handler, with its handle, not to a communicator created
     * since (which took that handle before). Both a packed receive and a
     * persistent one (started after the free) hold it. */
    MPI_Comm f, g2;
    MPI_Datatype vec;
    MPI_Request rr, sr, pr, ps;
    MPI_Status rst;
    int big[12], small[12], pin = -1, pout = 31;
    MPI_Comm_create_errhandler(handler1, &e1);
    MPI_Comm_dup(MPI_COMM_SELF, &f);
    MPI_Comm_set_errhandler(f, e1);
    MPI_Errhandler_free(&e1);
    MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    for (int i = 0; i < 12; i++)
        big[i] = i;
    MPI_Irecv(small, 1, vec, 0, 90, f, &rr);        /* takes 3 ints */
    MPI_Isend(big, 12, MPI_INT, 0, 90, f, &sr);     /* sends 12: truncated */
    MPI_Recv_init(&pin, 1, MPI_INT, 0, 91, f, &pr);
    MPI_Send_init(&pout, 1, MPI_INT, 0, 91, f, &ps);
    MPI_Comm held = f;
    MPI_Type_free(&vec);
    CHECK_RC(MPI_Comm_free(&f));
    MPI_Comm_dup(MPI_COMM_SELF, &g2);
    EXPECT(g2 != held, "a communicator freed while requests hold it gave its handle away");
    MPI_Comm_set_errhandler(g2, MPI_ERRORS_RETURN);
    h1_calls = 0;
    h1_comm = MPI_COMM_NULL;
    int wrc = MPI_Wait(&rr, &rst);
    EXPECT(wrc == MPI_ERR_TRUNCATE && h1_calls == 1 && h1_code == MPI_ERR_TRUNCATE &&
           h1_comm == held, "truncated receive on a freed communicator: rc %d, handler1 %d "
           "calls (code %d, comm %d, want %d)", wrc, h1_calls, h1_code, h1_comm, held);
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
    CHECK_RC(MPI_Start(&pr));
    CHECK_RC(MPI_Start(&ps));
    CHECK_RC(MPI_Wait(&ps, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Wait(&pr, &rst));
    EXPECT(pin == 31 && rst.MPI_TAG == 91, "persistent receive after its comm was freed: %d",
           pin);
    MPI_Request_free(&ps);
    MPI_Request_free(&pr);
    MPI_Comm_free(&g2);

    /* No limit: 300 handlers alive at once, each called on its own comm. */
    enum { NH = 300 };
    MPI_Errhandler *hs = malloc(NH * sizeof(*hs));
    for (int i = 0; i < NH; i++)
        CHECK_RC(MPI_Comm_create_errhandler(i % 2 ? handler1 : handler2, &hs[i]));
    h1_calls = h2_calls = 0;
    for (int i = 0; i < NH; i += 37) {
        MPI_Comm d;
        MPI_Comm_dup(MPI_COMM_SELF, &d);
        MPI_Comm_set_errhandler(d, hs[i]);
        MPI_Comm_call_errhandler(d, code2);
        MPI_Comm_free(&d);
    }
    EXPECT(h1_calls == 4 && h2_calls == 5, "handlers called %d/%d", h1_calls, h2_calls);
    for (int i = 0; i < NH; i++)
        CHECK_RC(MPI_Errhandler_free(&hs[i]));
    free(hs);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&e2);
}

/* ---- Generalized requests ---- */

struct greq_state {
    int id;
    int query_calls, free_calls, cancel_calls, cancel_complete;
    int query_rc;
};

static int g_query(void *extra, MPI_Status *st)
{
    struct greq_state *g = extra;

    g->query_calls++;
    st->MPI_SOURCE = 1000 + g->id;
    st->MPI_TAG = 2000 + g->id;
    MPI_Status_set_elements(st, MPI_BYTE, g->id);
    MPI_Status_set_cancelled(st, g->cancel_calls > 0);
    return g->query_rc;
}

static int g_free(void *extra)
{
    ((struct greq_state *)extra)->free_calls++;
    return MPI_SUCCESS;
}

static int g_cancel(void *extra, int complete)
{
    struct greq_state *g = extra;

    g->cancel_calls++;
    g->cancel_complete = complete;
    return MPI_SUCCESS;
}

static void test_grequest(void)
{
    enum { N = 4 };
    struct greq_state g[N];
    MPI_Request rq[N + 2];
    MPI_Status st, sts[N + 2];
    int flag, idx, cnt;

    memset(g, 0, sizeof(g));
    for (int i = 0; i < N; i++) {
        g[i].id = i + 1;
        CHECK_RC(MPI_Grequest_start(g_query, g_free, g_cancel, &g[i], &rq[i]));
    }
    /* Test and Request_get_status before completion. */
    CHECK_RC(MPI_Test(&rq[0], &flag, &st));
    EXPECT(!flag && rq[0] != MPI_REQUEST_NULL, "test before completion");
    CHECK_RC(MPI_Request_get_status(rq[1], &flag, &st));
    EXPECT(!flag && g[1].query_calls == 0, "get_status before completion");
    /* Wait after completion: the status comes from query_fn, then free_fn. */
    CHECK_RC(MPI_Grequest_complete(rq[0]));
    CHECK_RC(MPI_Wait(&rq[0], &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    EXPECT(rq[0] == MPI_REQUEST_NULL && st.MPI_SOURCE == 1001 && st.MPI_TAG == 2001 && cnt == 1,
           "wait: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, cnt);
    EXPECT(g[0].query_calls == 1 && g[0].free_calls == 1, "query %d free %d", g[0].query_calls,
           g[0].free_calls);
    /* get_status after completion leaves the request alive. */
    CHECK_RC(MPI_Grequest_complete(rq[1]));
    CHECK_RC(MPI_Request_get_status(rq[1], &flag, &st));
    EXPECT(flag && st.MPI_TAG == 2002 && g[1].free_calls == 0 && rq[1] != MPI_REQUEST_NULL,
           "get_status after completion");
    /* MPI 3.1 12.2: every MPI_Request_get_status of a completed generalized
     * request calls query_fn, and returns the error query_fn returns. */
    int q = g[1].query_calls;
    g[1].query_rc = MPI_ERR_IO;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int grc = MPI_Request_get_status(rq[1], &flag, &st);
    EXPECT(flag && grc == MPI_ERR_IO && g[1].query_calls == q + 1,
           "get_status again: rc %d, query_fn ran %d times more", grc, g[1].query_calls - q);
    g[1].query_rc = MPI_SUCCESS;
    g[1].id = 5;
    grc = MPI_Request_get_status(rq[1], &flag, &st);
    EXPECT(flag && grc == MPI_SUCCESS && st.MPI_TAG == 2005 && g[1].query_calls == q + 2,
           "get_status a third time: rc %d tag %d", grc, st.MPI_TAG);
    g[1].id = 2;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    /* Waitany among them: only index 3 is complete (index 1 too: it is). */
    CHECK_RC(MPI_Grequest_complete(rq[3]));
    MPI_Request any[2] = { rq[2], rq[3] };
    CHECK_RC(MPI_Waitany(2, any, &idx, &st));
    EXPECT(idx == 1 && st.MPI_TAG == 2004 && any[1] == MPI_REQUEST_NULL && g[3].free_calls == 1,
           "waitany index %d", idx);
    /* Cancel of an incomplete one, then Testsome, then Waitall with p2p. */
    CHECK_RC(MPI_Cancel(&rq[2]));
    EXPECT(g[2].cancel_calls == 1 && g[2].cancel_complete == 0, "cancel_fn(%d)",
           g[2].cancel_complete);
    int outc, ind[N];
    CHECK_RC(MPI_Testsome(1, &rq[2], &outc, ind, sts));
    EXPECT(outc == 0, "testsome before completion: %d", outc);
    CHECK_RC(MPI_Grequest_complete(rq[2]));
    CHECK_RC(MPI_Testsome(1, &rq[2], &outc, ind, sts));
    MPI_Test_cancelled(&sts[0], &flag);
    EXPECT(outc == 1 && ind[0] == 0 && flag && g[2].free_calls == 1, "testsome %d cancelled %d",
           outc, flag);
    int x = rank, y = -1;
    MPI_Irecv(&y, 1, MPI_INT, 0, 70, MPI_COMM_SELF, &rq[2]);
    MPI_Isend(&x, 1, MPI_INT, 0, 70, MPI_COMM_SELF, &rq[3]);
    CHECK_RC(MPI_Waitall(4, rq, sts));
    EXPECT(y == rank && sts[1].MPI_TAG == 2002 && g[1].free_calls == 1 && sts[2].MPI_TAG == 70,
           "waitall mixed: y %d tag %d", y, sts[1].MPI_TAG);
    for (int i = 0; i < N; i++)
        EXPECT(g[i].free_calls == 1, "request %d: free_fn ran %d times", i, g[i].free_calls);

    /* Request_free before completion: free_fn once it completes. */
    struct greq_state h = { .id = 9 };
    MPI_Request r, keep;
    MPI_Grequest_start(g_query, g_free, g_cancel, &h, &r);
    keep = r;
    CHECK_RC(MPI_Request_free(&r));
    EXPECT(r == MPI_REQUEST_NULL && h.free_calls == 0, "freed before completion");
    CHECK_RC(MPI_Grequest_complete(keep));
    EXPECT(h.free_calls == 1, "free_fn after complete of a freed request: %d", h.free_calls);

    /* query_fn's error is the call's. */
    struct greq_state e = { .id = 3, .query_rc = MPI_ERR_IO };
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Grequest_start(g_query, g_free, NULL, &e, &r);
    MPI_Grequest_complete(r);
    EXPECT(MPI_Wait(&r, &st) == MPI_ERR_IO && e.free_calls == 1, "error of query_fn");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- Attributes ---- */

static int keys[5];
static int deleted[5];
static int delete_calls;

/* Key 0's callback deletes keys 1 and 2 of the same communicator. */
static int del_cb(MPI_Comm comm, int keyval, void *val, void *extra)
{
    int k = (int)(intptr_t)extra;

    (void)keyval; (void)val;
    deleted[k]++;
    delete_calls++;
    if (k == 0) {
        MPI_Comm_delete_attr(comm, keys[1]);
        MPI_Comm_delete_attr(comm, keys[2]);
    }
    return MPI_SUCCESS;
}

static int type_del_calls;
static void *type_del_last;

static int type_del(MPI_Datatype t, int keyval, void *val, void *extra)
{
    (void)t; (void)keyval; (void)extra;
    type_del_calls++;
    type_del_last = val;
    return MPI_SUCCESS;
}

static void test_attrs(void)
{
    for (int order = 0; order < 2; order++) {
        MPI_Comm d;

        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        memset(deleted, 0, sizeof(deleted));
        for (int k = 0; k < 5; k++)
            MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_cb, &keys[k], (void *)(intptr_t)k);
        /* order 0: keys set 1, 2, 0, 3, 4 and key 0 deleted by
         * Comm_delete_attr, its callback deleting the two attributes before
         * it in the list (the link to it among them); order 1: key 0 set
         * last, so deleted first by Comm_free, its callback deleting two
         * attributes the free has still to visit. */
        static const int set_order[2][5] = { { 1, 2, 0, 3, 4 }, { 4, 3, 2, 1, 0 } };
        for (int k = 0; k < 5; k++)
            MPI_Comm_set_attr(d, keys[set_order[order][k]], (void *)(intptr_t)(k + 1));
        if (order == 0)
            CHECK_RC(MPI_Comm_delete_attr(d, keys[0]));
        CHECK_RC(MPI_Comm_free(&d));
        for (int k = 0; k < 5; k++)
            EXPECT(deleted[k] == 1, "order %d: key %d deleted %d times", order, k, deleted[k]);
        for (int k = 0; k < 5; k++)
            MPI_Comm_free_keyval(&keys[k]);
    }

    /* Datatype attributes */
    MPI_Datatype t, t2;
    int kdup, knull, kcomm, flag;
    void *v;
    MPI_Type_contiguous(3, MPI_INT, &t);
    MPI_Type_commit(&t);
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, type_del, &kdup, NULL));
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &knull, NULL));
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kcomm, NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, NULL, NULL) ==
           MPI_ERR_ARG, "Type_create_keyval into NULL");
    EXPECT(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, NULL, NULL) ==
           MPI_ERR_ARG, "Comm_create_keyval into NULL");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK_RC(MPI_Type_get_attr(t, kdup, &v, &flag));
    EXPECT(!flag, "attribute before set");
    CHECK_RC(MPI_Type_set_attr(t, kdup, (void *)0x1234));
    CHECK_RC(MPI_Type_set_attr(t, knull, (void *)0x99));
    CHECK_RC(MPI_Type_dup(t, &t2));
    CHECK_RC(MPI_Type_get_attr(t2, kdup, &v, &flag));
    EXPECT(flag && v == (void *)0x1234, "dup copied the DUP_FN attribute (%d, %p)", flag, v);
    CHECK_RC(MPI_Type_get_attr(t2, knull, &v, &flag));
    EXPECT(!flag, "dup copied a NULL_COPY_FN attribute");
    CHECK_RC(MPI_Type_set_attr(t2, kdup, (void *)0x5678));   /* replaces: deletes the old value */
    EXPECT(type_del_calls == 1 && type_del_last == (void *)0x1234, "replace: %d",
           type_del_calls);
    CHECK_RC(MPI_Type_free(&t));
    EXPECT(type_del_calls == 2 && type_del_last == (void *)0x1234, "type free: %d",
           type_del_calls);
    CHECK_RC(MPI_Type_delete_attr(t2, kdup));
    EXPECT(type_del_calls == 3 && type_del_last == (void *)0x5678, "delete_attr: %d",
           type_del_calls);
    CHECK_RC(MPI_Type_get_attr(t2, kdup, &v, &flag));
    EXPECT(!flag, "deleted attribute still there");
    CHECK_RC(MPI_Type_free(&t2));
    EXPECT(type_del_calls == 3, "free of a type without the attribute called back");
    CHECK_RC(MPI_Type_set_attr(MPI_INT, kdup, (void *)0x42));
    CHECK_RC(MPI_Type_get_attr(MPI_INT, kdup, &v, &flag));
    EXPECT(flag && v == (void *)0x42, "attribute on MPI_INT");
    CHECK_RC(MPI_Type_delete_attr(MPI_INT, kdup));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT(MPI_Type_set_attr(MPI_INT, kcomm, NULL) == MPI_ERR_KEYVAL, "comm keyval on a type");
    EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, kdup, NULL) == MPI_ERR_KEYVAL, "type keyval on a comm");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK_RC(MPI_Type_free_keyval(&kdup));
    CHECK_RC(MPI_Type_free_keyval(&knull));
    EXPECT(kdup == MPI_KEYVAL_INVALID, "freed keyval");
    MPI_Comm_free_keyval(&kcomm);
}

/* MPI 3.1 4.1.10, 6.7.4: MPI_Type_dup copies each attribute whose copy
 * callback says so, and a callback may call MPI itself. The attribute
 * lists must stay where they are while the table of them grows: the dup's
 * handle (past every list made so far), and types a copy callback creates
 * and gives attributes, between two attributes of the copy. */
static MPI_Datatype grow_types[600];
static int grow_n, grow_key;

static int copy_grows(MPI_Datatype t, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)t; (void)keyval; (void)extra;
    for (int i = 0; i < 300 && grow_n < 600; i++)
        MPI_Type_contiguous(2, MPI_INT, &grow_types[grow_n++]);
    MPI_Type_set_attr(grow_types[grow_n - 1], grow_key, (void *)0x77);
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void test_type_attr_growth(void)
{
    MPI_Datatype t, d1, d2;
    int kdup, kgrow, kafter, flag;
    void *v;

    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &kdup, NULL));
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &kafter, NULL));
    CHECK_RC(MPI_Type_create_keyval(copy_grows, MPI_TYPE_NULL_DELETE_FN, &kgrow, NULL));
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &grow_key,
                                    NULL));
    CHECK_RC(MPI_Type_contiguous(3, MPI_INT, &t));
    CHECK_RC(MPI_Type_set_attr(t, kdup, (void *)0x11));
    /* new handles, none with attributes: the dup's is past them all */
    for (grow_n = 0; grow_n < 300; grow_n++)
        CHECK_RC(MPI_Type_contiguous(1, MPI_INT, &grow_types[grow_n]));
    CHECK_RC(MPI_Type_dup(t, &d1));
    CHECK_RC(MPI_Type_get_attr(d1, kdup, &v, &flag));
    EXPECT(flag && v == (void *)0x11, "dup past the table: attribute (%d, %p)", flag, v);
    /* kgrow's callback makes 300 types and an attribute on the last; kafter is copied after it */
    CHECK_RC(MPI_Type_set_attr(d1, kgrow, (void *)0x22));
    CHECK_RC(MPI_Type_set_attr(d1, kafter, (void *)0x33));
    CHECK_RC(MPI_Type_dup(d1, &d2));
    CHECK_RC(MPI_Type_get_attr(d2, kdup, &v, &flag));
    EXPECT(flag && v == (void *)0x11, "dup with a growing callback: first attribute (%d, %p)", flag, v);
    CHECK_RC(MPI_Type_get_attr(d2, kgrow, &v, &flag));
    EXPECT(flag && v == (void *)0x22, "dup with a growing callback: its own (%d, %p)", flag, v);
    CHECK_RC(MPI_Type_get_attr(d2, kafter, &v, &flag));
    EXPECT(flag && v == (void *)0x33, "dup with a growing callback: the next one (%d, %p)", flag, v);
    CHECK_RC(MPI_Type_get_attr(grow_types[grow_n - 1], grow_key, &v, &flag));
    EXPECT(flag && v == (void *)0x77, "attribute set by the callback (%d, %p)", flag, v);
    for (int i = 0; i < grow_n; i++)
        MPI_Type_free(&grow_types[i]);
    MPI_Type_free(&d2);
    MPI_Type_free(&d1);
    MPI_Type_free(&t);
    MPI_Type_free_keyval(&kdup);
    MPI_Type_free_keyval(&kgrow);
    MPI_Type_free_keyval(&kafter);
    MPI_Type_free_keyval(&grow_key);
}

/* ---- A persistent request of a type freed right after init ---- */

static void test_persistent_freed_type(void)
{
    enum { N = 6 };
    int out[2 * N], in[2 * N];
    MPI_Datatype vec;
    MPI_Request ps, pr;
    int to = (rank + 1) % size, from = (rank + size - 1) % size;

    MPI_Type_vector(N, 1, 2, MPI_INT, &vec);   /* every other int: packed */
    MPI_Type_commit(&vec);
    CHECK_RC(MPI_Recv_init(in, 1, vec, from, 80, MPI_COMM_WORLD, &pr));
    CHECK_RC(MPI_Send_init(out, 1, vec, to, 80, MPI_COMM_WORLD, &ps));
    CHECK_RC(MPI_Type_free(&vec));
    for (int it = 0; it < 3; it++) {
        for (int i = 0; i < 2 * N; i++) {
            out[i] = rank * 1000 + it * 100 + i;
            in[i] = -1;
        }
        CHECK_RC(MPI_Start(&pr));
        CHECK_RC(MPI_Start(&ps));
        CHECK_RC(MPI_Wait(&ps, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Wait(&pr, MPI_STATUS_IGNORE));
        int bad = 0;
        for (int i = 0; i < 2 * N; i++)
            bad += in[i] != (i % 2 ? -1 : from * 1000 + it * 100 + i);
        EXPECT(bad == 0, "persistent vector, start %d: %d ints wrong", it, bad);
    }
    MPI_Request_free(&ps);
    MPI_Request_free(&pr);
}

/* ---- A nonblocking collective whose op and type are freed at once ---- */

static void op_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len * 2; i++)   /* 2 ints per element of the pair type */
        ((int *)inout)[i] += ((int *)in)[i];
}

static void op_wrong(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in; (void)dt;
    for (int i = 0; i < *len * 2; i++)
        ((int *)inout)[i] = -1000;
}

static void test_coll_hold(void)
{
    enum { N = 64 };
    int in[2 * N], out[2 * N];
    MPI_Datatype pair;
    MPI_Op sum, wrong;
    MPI_Request r;

    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Op_create(op_sum, 1, &sum);
    for (int i = 0; i < 2 * N; i++)
        in[i] = rank * 3 + i;
    CHECK_RC(MPI_Iallreduce(in, out, N, pair, sum, MPI_COMM_WORLD, &r));
    CHECK_RC(MPI_Op_free(&sum));
    CHECK_RC(MPI_Type_free(&pair));
    MPI_Op_create(op_wrong, 1, &wrong);   /* must not take the held op's place */
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    int bad = 0;
    for (int i = 0; i < 2 * N; i++)
        bad += out[i] != 3 * size * (size - 1) / 2 + size * i;
    EXPECT(bad == 0, "iallreduce with its op and type freed: %d of %d ints wrong (out[0] %d out[1] %d)", bad, 2 * N, out[0], out[1]);
    MPI_Op_free(&wrong);
}

/* ---- No fixed limit on any handle table ---- */

static void user_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void test_limits(void)
{
    enum { NI = 1500, NO = 300 };
    MPI_Info *infos = malloc(NI * sizeof(*infos));
    int *kv = malloc(NI * sizeof(*kv));
    MPI_Op *ops = malloc(NO * sizeof(*ops));
    char key[32], val[32];
    int flag;

    for (int i = 0; i < NI; i++) {
        CHECK_RC(MPI_Info_create(&infos[i]));
        snprintf(val, sizeof(val), "%d", i);
        MPI_Info_set(infos[i], "n", val);
        CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv[i],
                                        NULL));
    }
    for (int i = 0; i < NI; i += 149) {
        snprintf(key, sizeof(key), "%d", i);
        MPI_Info_get(infos[i], "n", sizeof(val) - 1, val, &flag);
        EXPECT(flag && !strcmp(val, key), "info %d has %s", i, val);
        MPI_Comm_set_attr(MPI_COMM_WORLD, kv[i], (void *)(intptr_t)i);
    }
    for (int i = 0; i < NI; i += 149) {
        void *v;
        MPI_Comm_get_attr(MPI_COMM_WORLD, kv[i], &v, &flag);
        EXPECT(flag && v == (void *)(intptr_t)i, "keyval %d", i);
        MPI_Comm_delete_attr(MPI_COMM_WORLD, kv[i]);
    }
    for (int i = 0; i < NI; i++) {
        CHECK_RC(MPI_Info_free(&infos[i]));
        CHECK_RC(MPI_Comm_free_keyval(&kv[i]));
    }
    for (int i = 0; i < NO; i++)
        CHECK_RC(MPI_Op_create(user_op, 1, &ops[i]));
    int one = rank + 1, sum = 0;
    CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, ops[NO - 1], MPI_COMM_WORLD));
    EXPECT(sum == size * (size + 1) / 2, "allreduce with the 300th user op: %d", sum);
    for (int i = 0; i < NO; i++)
        CHECK_RC(MPI_Op_free(&ops[i]));
    free(infos);
    free(kv);
    free(ops);
}

/* ---- MPI_COMM_SELF's attributes at MPI_Finalize (checked after it) ---- */

static int self_order[3], self_n, self_mpi_ok = 1;

static int self_del(MPI_Comm comm, int keyval, void *val, void *extra)
{
    int finalized = 1, x = 5, y = 0;

    (void)comm; (void)keyval; (void)extra;
    if (self_n < 3)
        self_order[self_n] = (int)(intptr_t)val;
    self_n++;
    /* MPI still works here: the very start of MPI_Finalize. */
    MPI_Finalized(&finalized);
    if (finalized ||
        MPI_Sendrecv(&x, 1, MPI_INT, 0, 1, &y, 1, MPI_INT, 0, 1, MPI_COMM_SELF,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS || y != 5)
        self_mpi_ok = 0;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int k[3], total = 0;

    mt_init(&argc, &argv);
    rank = th_rank;
    size = th_size;
    th_case = "f2c";
    test_f2c();
    th_case = "errors";
    test_errors();
    th_case = "grequest";
    test_grequest();
    th_case = "attributes";
    test_attrs();
    test_type_attr_growth();
    th_case = "persistent";
    test_persistent_freed_type();
    th_case = "collective";
    test_coll_hold();
    th_case = "limits";
    test_limits();

    th_case = "finalize";
    for (int i = 0; i < 3; i++) {
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_del, &k[i], NULL);
        MPI_Comm_set_attr(MPI_COMM_SELF, k[i], (void *)(intptr_t)(i + 1));
    }
    MPI_Allreduce(&th_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    EXPECT(self_n == 3 && self_order[0] == 3 && self_order[1] == 2 && self_order[2] == 1,
           "MPI_COMM_SELF's attributes deleted %d times, in the order %d %d %d (want 3 2 1)",
           self_n, self_order[0], self_order[1], self_order[2]);
    EXPECT(self_mpi_ok, "MPI did not work in a MPI_COMM_SELF delete callback of MPI_Finalize");
    if (rank == 0)
        printf("mpi_handles (%d ranks): %s (%d failed checks before MPI_Finalize)\n", size,
               total || th_failures ? "FAIL" : "PASS", total);
    return th_failures || total ? 1 : 0;
}
