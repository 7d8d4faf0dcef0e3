/*
 * Error classes under MPI_ERRORS_RETURN: invalid rank, tag, count,
 * datatype, communicator, op, root, buffer, truncation; user error
 * handlers; Error_string/Error_class; a window's MPI_ERR_RMA_SYNC. With argument "fatal", rank 0 sends to
 * an invalid rank under MPI_ERRORS_ARE_FATAL (the driver checks the job
 * dies with one line naming the function and the error).
 */
#include "mpitest.h"

static int handler_calls, handler_code;

static void handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    handler_code = *code;
}

/* A call that must fail with error class _class. */
#define EXPECT_CLASS(_call, _class) \
    do { \
        int rc_ = (_call), cls_; \
        MPI_Error_class(rc_, &cls_); \
        EXPECT(cls_ == (_class), "%s gave class %d, want %s", #_call, cls_, #_class); \
    } while (0)

int main(int argc, char **argv)
{
    int p, buf[4] = { 0 };

    mt_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc > 1 && !strcmp(argv[1], "fatal")) {
        if (th_rank == 0)
            MPI_Send(buf, 1, MPI_INT, p + 5, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;   /* not reached on rank 0 */
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    EXPECT(eh == MPI_ERRORS_RETURN, "get_errhandler");

    EXPECT_CLASS(MPI_Send(buf, 1, MPI_INT, p, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Send(buf, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Send(buf, 1, MPI_INT, 0, -1, MPI_COMM_WORLD), MPI_ERR_TAG);
    EXPECT_CLASS(MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Send(buf, 1, 12345, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Send(NULL, 1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Recv(buf, 1, MPI_INT, p + 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Bcast(buf, 1, MPI_INT, p, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT_CLASS(MPI_Reduce(buf, buf + 1, 1, MPI_INT, 999, 0, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Allreduce(buf, buf + 1, 1, MPI_DOUBLE_INT, MPI_SUM, MPI_COMM_WORLD),
                 MPI_ERR_OP);
    EXPECT_CLASS(MPI_Allreduce(buf, buf + 1, 1, MPI_FLOAT, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP);
    MPI_Datatype uncommitted;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    EXPECT_CLASS(MPI_Send(buf, 1, uncommitted, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    MPI_Type_free(&uncommitted);
    MPI_Comm freed;
    MPI_Comm_dup(MPI_COMM_WORLD, &freed);
    MPI_Comm stale = freed;
    MPI_Comm_free(&freed);
    EXPECT_CLASS(MPI_Send(buf, 1, MPI_INT, 0, 0, stale), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Type_free(&(MPI_Datatype){ MPI_INT }), MPI_ERR_TYPE);

    /* truncation: 4 ints into room for 2 */
    MPI_Request rq;
    MPI_Status st;
    MPI_Isend(buf, 4, MPI_INT, th_rank, 5, MPI_COMM_WORLD, &rq);
    EXPECT_CLASS(MPI_Recv(buf, 2, MPI_INT, th_rank, 5, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);

    /* one-sided (issue 15): a window's errors go to its own handler, here
     * set to return; an unlock without a lock is MPI_ERR_RMA_SYNC */
    MPI_Win win;
    CHECK_RC(MPI_Win_create(buf, 16, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_free(&win));
    EXPECT(win == MPI_WIN_NULL, "win handle");

    /* strings */
    char s[MPI_MAX_ERROR_STRING];
    int len;
    CHECK_RC(MPI_Error_string(MPI_ERR_TRUNCATE, s, &len));
    EXPECT(strstr(s, "MPI_ERR_TRUNCATE") && len == (int)strlen(s), "error string %s", s);

    /* a user handler sees the error code */
    MPI_Errhandler mine;
    MPI_Comm_create_errhandler(handler, &mine);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, mine);
    EXPECT_CLASS(MPI_Send(buf, 1, MPI_INT, 0, -3, MPI_COMM_WORLD), MPI_ERR_TAG);
    EXPECT(handler_calls == 1 && handler_code == MPI_ERR_TAG, "user handler %d %d", handler_calls,
           handler_code);
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
    EXPECT(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "call_errhandler");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&mine);

    /* environment */
    int v, sv, flag, prov;
    MPI_Get_version(&v, &sv);
    EXPECT(v == 3 && sv == 1, "version %d.%d", v, sv);
    MPI_Initialized(&flag);
    EXPECT(flag, "initialized");
    MPI_Query_thread(&prov);
    EXPECT(prov == MPI_THREAD_SINGLE, "query_thread %d", prov);
    MPI_Is_thread_main(&flag);
    EXPECT(flag, "is_thread_main");
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Get_processor_name(host, &len);
    EXPECT(len > 0 && len == (int)strlen(host), "processor name");
    double t0 = MPI_Wtime();
    EXPECT(MPI_Wtime() >= t0 && MPI_Wtick() > 0, "wtime");
    return mt_finish("mpi_errors");
}
