/*
 * A stale request handle (a copy of a request that has completed and been
 * freed) must be refused, never acted on (issue 12): under
 * MPI_ERRORS_RETURN MPI_Wait, MPI_Test, MPI_Waitall, MPI_Request_free,
 * MPI_Cancel and MPI_Request_get_status on it return MPI_ERR_REQUEST and
 * leave every live request alone, also when the request object behind it
 * has been reused for a newer request; under MPI_ERRORS_ARE_FATAL (argument
 * "fatal") MPI_Wait on it ends the job with one line naming MPI_ERR_REQUEST.
 * Each rank talks to itself, so the test runs as a singleton and under
 * rtrun alike.
 */
#include "mpitest.h"

#define TAG 5

static int error_class(int rc)
{
    int cls = -1;

    MPI_Error_class(rc, &cls);
    return cls;
}

/* A completed self-send: its receive request, already waited for. */
static MPI_Request done_request(int *in, int *out)
{
    MPI_Request rq, sq;

    CHECK_RC(MPI_Irecv(in, 1, MPI_INT, th_rank, TAG, MPI_COMM_WORLD, &rq));
    CHECK_RC(MPI_Isend(out, 1, MPI_INT, th_rank, TAG, MPI_COMM_WORLD, &sq));
    MPI_Request copy = rq;
    CHECK_RC(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    EXPECT(rq == MPI_REQUEST_NULL, "the waited request is not MPI_REQUEST_NULL");
    return copy;
}

static void test_stale_returns(void)
{
    int in = 0, out = 42, a = 1, b = 2, ra = 0, rb = 0, flag = 0;
    MPI_Request stale = done_request(&in, &out), again, live[2], rs[2];
    MPI_Status st;

    EXPECT(in == 42, "self message carried %d", in);
    again = stale;
    EXPECT(error_class(MPI_Wait(&again, &st)) == MPI_ERR_REQUEST,
           "MPI_Wait on a stale handle did not return MPI_ERR_REQUEST");
    /* The request objects are recycled: new requests now (likely) reuse the
     * one the stale handle named; the stale handle must still be refused
     * and the new requests must be unharmed. */
    CHECK_RC(MPI_Irecv(&ra, 1, MPI_INT, th_rank, TAG, MPI_COMM_WORLD, &live[0]));
    CHECK_RC(MPI_Irecv(&rb, 1, MPI_INT, th_rank, TAG + 1, MPI_COMM_WORLD, &live[1]));
    EXPECT(live[0] != live[1], "two live requests share a handle");
    again = stale;
    EXPECT(error_class(MPI_Wait(&again, MPI_STATUS_IGNORE)) == MPI_ERR_REQUEST,
           "MPI_Wait on a stale handle whose object was reused");
    again = stale;
    EXPECT(error_class(MPI_Test(&again, &flag, MPI_STATUS_IGNORE)) == MPI_ERR_REQUEST,
           "MPI_Test on a stale handle");
    again = stale;
    EXPECT(error_class(MPI_Request_free(&again)) == MPI_ERR_REQUEST,
           "MPI_Request_free on a stale handle");
    again = stale;
    EXPECT(error_class(MPI_Cancel(&again)) == MPI_ERR_REQUEST, "MPI_Cancel on a stale handle");
    EXPECT(error_class(MPI_Request_get_status(stale, &flag, MPI_STATUS_IGNORE)) ==
           MPI_ERR_REQUEST, "MPI_Request_get_status on a stale handle");
    MPI_Request arr[2] = {stale, MPI_REQUEST_NULL};
    EXPECT(error_class(MPI_Waitall(2, arr, MPI_STATUSES_IGNORE)) == MPI_ERR_REQUEST,
           "MPI_Waitall with a stale handle");
    EXPECT(error_class(MPI_Testall(2, arr, &flag, MPI_STATUSES_IGNORE)) == MPI_ERR_REQUEST,
           "MPI_Testall with a stale handle");
    /* the live receives still complete, with their own data */
    CHECK_RC(MPI_Isend(&b, 1, MPI_INT, th_rank, TAG + 1, MPI_COMM_WORLD, &rs[1]));
    CHECK_RC(MPI_Isend(&a, 1, MPI_INT, th_rank, TAG, MPI_COMM_WORLD, &rs[0]));
    CHECK_RC(MPI_Waitall(2, rs, MPI_STATUSES_IGNORE));
    CHECK_RC(MPI_Waitall(2, live, MPI_STATUSES_IGNORE));
    EXPECT(ra == 1 && rb == 2, "live receives got %d and %d", ra, rb);

    /* A freed persistent request leaves a stale handle too. */
    MPI_Request p, pcopy;
    CHECK_RC(MPI_Send_init(&out, 1, MPI_INT, th_rank, TAG, MPI_COMM_WORLD, &p));
    pcopy = p;
    CHECK_RC(MPI_Request_free(&p));
    EXPECT(error_class(MPI_Start(&pcopy)) == MPI_ERR_REQUEST, "MPI_Start on a freed persistent request");
}

int main(int argc, char **argv)
{
    int fatal = argc > 1 && strcmp(argv[1], "fatal") == 0;

    mt_init(&argc, &argv);
    if (fatal) {
        int in = 0, out = 7;
        MPI_Request stale = done_request(&in, &out);

        MPI_Wait(&stale, MPI_STATUS_IGNORE);   /* must end the job */
        printf("rank %d: MPI_Wait on a stale handle returned under MPI_ERRORS_ARE_FATAL\n",
               th_rank);
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_stale_returns();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return mt_finish("mpi_stale");
}
