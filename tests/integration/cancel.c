/*
 * Cancel: a posted receive that nothing matches is canceled (the status
 * says so and no data is written); a message sent afterwards with the same
 * tag goes to the next receive, not to the canceled one. Canceling a
 * receive that has already matched leaves it to complete normally with its
 * data. Ranks pair up; an odd rank out works with itself.
 */
#include "config.h"

#include "itest.h"

int main(void)
{
    uint8_t rbuf[128], rbuf2[128], sbuf[128];
    rtm_request_t req, req2, sreq;
    rtm_msg_status_t st;
    rtm_status_t ret;
    int peer, flag;

    itest_init("cancel");
    peer = th_rank ^ 1;
    if (peer >= th_size)
        peer = th_rank;

    /* 1: cancel an unmatched receive; a later message does not go to it */
    memset(rbuf, 0x11, sizeof(rbuf));
    CHECK_RTM(rtm_irecv(rbuf, sizeof(rbuf), peer, 50, RTM_COMM_WORLD, &req));
    CHECK_RTM(rtm_cancel(req));
    ret = rtm_wait(&req, &st);
    CHECK(ret == RTM_OK || ret == RTM_ERR_CANCELED, "wait on a canceled receive returned "
           "%d (%s)", (int)ret, rtm_strerror(ret));
    CHECK(st.cancelled == 1, "canceled receive: status.cancelled %d, expected 1",
           st.cancelled);
    CHECK(req == RTM_REQUEST_NULL, "wait did not free the canceled request");
    for (size_t i = 0; i < sizeof(rbuf); i++)
        CHECK(rbuf[i] == 0x11, "canceled receive wrote its buffer at offset %zu", i);
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));

    itest_fill(sbuf, sizeof(sbuf), (uint32_t)th_rank + 1);
    CHECK_RTM(rtm_isend(sbuf, sizeof(sbuf), peer, 50, RTM_COMM_WORLD, &sreq));
    CHECK_RTM(rtm_recv(rbuf2, sizeof(rbuf2), peer, 50, RTM_COMM_WORLD, &st));
    CHECK(st.cancelled == 0 && st.count == sizeof(rbuf2), "receive after cancel: "
           "cancelled %d count %zu", st.cancelled, st.count);
    itest_check(rbuf2, sizeof(rbuf2), (uint32_t)peer + 1, "receive after a canceled one");
    for (size_t i = 0; i < sizeof(rbuf); i++)
        CHECK(rbuf[i] == 0x11, "message sent after the cancel landed in the canceled "
               "receive's buffer (offset %zu)", i);
    CHECK_RTM(rtm_wait(&sreq, RTM_STATUS_IGNORE));

    /* 2: cancel of a matched receive: it completes with the data */
    CHECK_RTM(rtm_irecv(rbuf, sizeof(rbuf), peer, 51, RTM_COMM_WORLD, &req));
    CHECK_RTM(rtm_isend(sbuf, sizeof(sbuf), peer, 51, RTM_COMM_WORLD, &sreq));
    flag = 0;
    while (!flag)
        CHECK_RTM(rtm_request_get_status(req, &flag, &st));
    CHECK_RTM(rtm_cancel(req));
    CHECK_RTM(rtm_wait(&req, &st));
    CHECK(st.cancelled == 0 && st.error == RTM_OK && st.count == sizeof(rbuf),
           "cancel of a completed receive: cancelled %d error %d count %zu", st.cancelled,
           (int)st.error, st.count);
    itest_check(rbuf, sizeof(rbuf), (uint32_t)peer + 1, "completed receive after cancel");
    CHECK_RTM(rtm_wait(&sreq, RTM_STATUS_IGNORE));

    /* 3: a canceled wildcard receive among posted ones keeps order intact */
    CHECK_RTM(rtm_irecv(rbuf, sizeof(rbuf), RTM_ANY_SOURCE, RTM_ANY_TAG, RTM_COMM_WORLD, &req));
    CHECK_RTM(rtm_irecv(rbuf2, sizeof(rbuf2), peer, 52, RTM_COMM_WORLD, &req2));
    CHECK_RTM(rtm_cancel(req));
    ret = rtm_wait(&req, &st);
    CHECK(ret == RTM_OK || ret == RTM_ERR_CANCELED, "wait on a canceled wildcard receive "
           "returned %d (%s)", (int)ret, rtm_strerror(ret));
    CHECK(st.cancelled == 1, "canceled wildcard receive: status.cancelled %d", st.cancelled);
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    CHECK_RTM(rtm_isend(sbuf, sizeof(sbuf), peer, 52, RTM_COMM_WORLD, &sreq));
    CHECK_RTM(rtm_wait(&req2, &st));
    CHECK(st.source == peer && st.tag == 52 && st.count == sizeof(rbuf2), "receive posted "
           "behind a canceled one: source %d tag %d count %zu", st.source, st.tag, st.count);
    itest_check(rbuf2, sizeof(rbuf2), (uint32_t)peer + 1, "receive behind a canceled one");
    CHECK_RTM(rtm_wait(&sreq, RTM_STATUS_IGNORE));
    return itest_finish();
}
