/*
 * Argument validation: every entry point rejects a bad rank, tag, count,
 * communicator or NULL buffer with a non-zero count with the matching
 * rtm_status_t and a non-empty rtm_last_error(), leaves its output
 * parameters alone, and refuses use before rtm_init and after rtm_finalize.
 */
#include "config.h"

#include "itest.h"

#include <stdint.h>

int main(void)
{
    char buf[64] = { 0 };
    rtm_request_t req = RTM_REQUEST_NULL;
    rtm_msg_status_t st;
    rtm_comm_t newcomm = 4242;
    int x, flag;

    itest_begin("argcheck");
    setvbuf(stdout, NULL, _IOLBF, 0);

    /* before init */
    CHECK(rtm_initialized() == 0 && rtm_finalized() == 0, "before init: initialized %d "
           "finalized %d", rtm_initialized(), rtm_finalized());
    EXPECT_STATUS(rtm_send(buf, 1, 0, 0, RTM_COMM_WORLD), RTM_ERR_NOT_INITIALIZED);
    EXPECT_STATUS(rtm_recv(buf, 1, 0, 0, RTM_COMM_WORLD, &st), RTM_ERR_NOT_INITIALIZED);
    x = -99;
    EXPECT_STATUS(rtm_comm_rank(RTM_COMM_WORLD, &x), RTM_ERR_NOT_INITIALIZED);
    CHECK(x == -99, "comm_rank before init wrote its output (%d)", x);
    EXPECT_STATUS(rtm_barrier(RTM_COMM_WORLD), RTM_ERR_NOT_INITIALIZED);
    EXPECT_STATUS(rtm_finalize(), RTM_ERR_NOT_INITIALIZED);

    /* every status has a distinct, non-empty description */
    for (int s = 0; s > RTM_ERR_LAST; s--) {
        const char *d = rtm_strerror((rtm_status_t)s);

        CHECK(d != NULL && d[0] != '\0', "rtm_strerror(%d) is empty", s);
        for (int t = 0; t > s; t--)
            CHECK(strcmp(d, rtm_strerror((rtm_status_t)t)) != 0, "rtm_strerror(%d) and "
                   "rtm_strerror(%d) are both \"%s\"", s, t, d);
    }
    CHECK(rtm_strerror((rtm_status_t)-1000) != NULL, "rtm_strerror of an unknown code is NULL");

    itest_init("argcheck");
    CHECK(rtm_initialized() == 1, "rtm_initialized() %d after init", rtm_initialized());
    EXPECT_STATUS(rtm_init(), RTM_ERR_ALREADY_INITIALIZED);

    /* bad ranks */
    EXPECT_STATUS(rtm_send(buf, 1, th_size, 0, RTM_COMM_WORLD), RTM_ERR_RANK);
    EXPECT_STATUS(rtm_send(buf, 1, -5, 0, RTM_COMM_WORLD), RTM_ERR_RANK);
    EXPECT_STATUS(rtm_send(buf, 1, RTM_ANY_SOURCE, 0, RTM_COMM_WORLD), RTM_ERR_RANK);
    EXPECT_STATUS(rtm_isend(buf, 1, th_size + 3, 0, RTM_COMM_WORLD, &req), RTM_ERR_RANK);
    CHECK(req == RTM_REQUEST_NULL, "failed isend wrote its request handle");
    EXPECT_STATUS(rtm_recv(buf, 1, th_size, 0, RTM_COMM_WORLD, &st), RTM_ERR_RANK);
    EXPECT_STATUS(rtm_irecv(buf, 1, -7, 0, RTM_COMM_WORLD, &req), RTM_ERR_RANK);
    CHECK(req == RTM_REQUEST_NULL, "failed irecv wrote its request handle");
    EXPECT_STATUS(rtm_probe(th_size, 0, RTM_COMM_WORLD, &st), RTM_ERR_RANK);
    EXPECT_STATUS(rtm_iprobe(-3, 0, RTM_COMM_WORLD, &flag, &st), RTM_ERR_RANK);
    EXPECT_STATUS(rtm_sendrecv(buf, 1, th_size, 0, buf, 1, 0, 0, RTM_COMM_WORLD, &st),
                  RTM_ERR_RANK);
    EXPECT_STATUS(rtm_send(buf, 1, 1, 0, RTM_COMM_SELF), RTM_ERR_RANK);
    x = -99;
    EXPECT_STATUS(rtm_comm_world_rank(RTM_COMM_WORLD, th_size, &x), RTM_ERR_RANK);
    CHECK(x == -99, "failed comm_world_rank wrote its output");

    /* bad tags */
    EXPECT_STATUS(rtm_send(buf, 1, 0, -5, RTM_COMM_WORLD), RTM_ERR_TAG);
    EXPECT_STATUS(rtm_send(buf, 1, 0, RTM_ANY_TAG, RTM_COMM_WORLD), RTM_ERR_TAG);
    EXPECT_STATUS(rtm_isend(buf, 1, 0, -100, RTM_COMM_WORLD, &req), RTM_ERR_TAG);
    EXPECT_STATUS(rtm_recv(buf, 1, 0, -5, RTM_COMM_WORLD, &st), RTM_ERR_TAG);
    EXPECT_STATUS(rtm_irecv(buf, 1, 0, -2, RTM_COMM_WORLD, &req), RTM_ERR_TAG);
    EXPECT_STATUS(rtm_probe(0, -9, RTM_COMM_WORLD, &st), RTM_ERR_TAG);

    /* bad count: no buffer holds SIZE_MAX bytes */
    EXPECT_STATUS(rtm_send(buf, SIZE_MAX, 0, 0, RTM_COMM_WORLD), RTM_ERR_COUNT);
    EXPECT_STATUS(rtm_irecv(buf, SIZE_MAX, 0, 0, RTM_COMM_WORLD, &req), RTM_ERR_COUNT);

    /* bad communicators */
    EXPECT_STATUS(rtm_send(buf, 1, 0, 0, 12345), RTM_ERR_COMM);
    EXPECT_STATUS(rtm_send(buf, 1, 0, 0, RTM_COMM_NULL), RTM_ERR_COMM);
    EXPECT_STATUS(rtm_recv(buf, 1, 0, 0, -77, &st), RTM_ERR_COMM);
    EXPECT_STATUS(rtm_barrier(999), RTM_ERR_COMM);
    EXPECT_STATUS(rtm_comm_dup(RTM_COMM_NULL, &newcomm), RTM_ERR_COMM);
    EXPECT_STATUS(rtm_comm_split(777, 0, 0, &newcomm), RTM_ERR_COMM);
    CHECK(newcomm == 4242, "failed comm_split/dup wrote its output (%d)", newcomm);
    x = -99;
    EXPECT_STATUS(rtm_comm_size(31337, &x), RTM_ERR_COMM);
    CHECK(x == -99, "failed comm_size wrote its output");

    /* NULL buffer with a non-zero count; a zero count is fine */
    EXPECT_STATUS(rtm_send(NULL, 10, 0, 0, RTM_COMM_WORLD), RTM_ERR_BUFFER);
    EXPECT_STATUS(rtm_isend(NULL, 1, 0, 0, RTM_COMM_WORLD, &req), RTM_ERR_BUFFER);
    EXPECT_STATUS(rtm_recv(NULL, 10, 0, 0, RTM_COMM_WORLD, &st), RTM_ERR_BUFFER);
    EXPECT_STATUS(rtm_irecv(NULL, 10, 0, 0, RTM_COMM_WORLD, &req), RTM_ERR_BUFFER);
    EXPECT_STATUS(rtm_sendrecv(NULL, 4, 0, 0, buf, 4, 0, 0, RTM_COMM_WORLD, &st),
                  RTM_ERR_BUFFER);
    CHECK_RTM(rtm_isend(NULL, 0, th_rank, 1, RTM_COMM_WORLD, &req));
    CHECK_RTM(rtm_recv(NULL, 0, th_rank, 1, RTM_COMM_WORLD, &st));
    CHECK(st.count == 0 && st.source == th_rank, "zero-byte self message: count %zu "
           "source %d", st.count, st.source);
    CHECK_RTM(rtm_wait(&req, RTM_STATUS_IGNORE));

    /* NULL output pointers */
    EXPECT_STATUS(rtm_comm_rank(RTM_COMM_WORLD, NULL), RTM_ERR_INVALID_ARG);
    EXPECT_STATUS(rtm_isend(buf, 1, 0, 0, RTM_COMM_WORLD, NULL), RTM_ERR_INVALID_ARG);
    EXPECT_STATUS(rtm_irecv(buf, 1, 0, 0, RTM_COMM_WORLD, NULL), RTM_ERR_INVALID_ARG);
    EXPECT_STATUS(rtm_comm_dup(RTM_COMM_WORLD, NULL), RTM_ERR_INVALID_ARG);

    /* errors left the job healthy */
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    CHECK_RTM(rtm_finalize());

    /* after finalize */
    CHECK(rtm_initialized() == 0 && rtm_finalized() == 1, "after finalize: initialized %d "
           "finalized %d", rtm_initialized(), rtm_finalized());
    EXPECT_STATUS(rtm_send(buf, 1, 0, 0, RTM_COMM_WORLD), RTM_ERR_FINALIZED);
    EXPECT_STATUS(rtm_irecv(buf, 1, 0, 0, RTM_COMM_WORLD, &req), RTM_ERR_FINALIZED);
    EXPECT_STATUS(rtm_barrier(RTM_COMM_WORLD), RTM_ERR_FINALIZED);
    EXPECT_STATUS(rtm_comm_size(RTM_COMM_WORLD, &x), RTM_ERR_FINALIZED);
    EXPECT_STATUS(rtm_finalize(), RTM_ERR_FINALIZED);
    if (th_rank == 0)
        printf("argcheck: PASS with %d rank%s\n", th_size, th_size == 1 ? "" : "s");
    return 0;
}
