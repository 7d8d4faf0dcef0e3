/*
 * Self-send: each rank sends to its own rank on RTM_COMM_WORLD and to rank
 * 0 of RTM_COMM_SELF, eager and large sizes, with the receive posted first
 * and with the send first (unexpected). Also RTM_PROC_NULL: sends to it
 * complete at once, receives from it complete empty.
 */
#include "config.h"

#include "itest.h"

static const size_t lens[] = { 0, 1, 100, 4095, 4096, 4097, 65536, 262145, (1u << 20) + 3,
                               16u << 20 };

static void one(rtm_comm_t comm, int dest, size_t len, uint32_t seed, int posted_first,
                uint8_t *sbuf, uint8_t *rbuf)
{
    rtm_request_t sreq, rreq;
    rtm_msg_status_t st;
    char what[128];

    snprintf(what, sizeof(what), "self-send on %s, %s", comm == RTM_COMM_SELF ? "COMM_SELF" :
             "COMM_WORLD", posted_first ? "receive posted first" : "send first");
    itest_fill(sbuf, len, seed);
    itest_set_canary(rbuf, len);
    if (posted_first) {
        CHECK_RTM(rtm_irecv(rbuf, len, dest, 3, comm, &rreq));
        CHECK_RTM(rtm_isend(sbuf, len, dest, 3, comm, &sreq));
        CHECK_RTM(rtm_wait(&rreq, &st));
    } else {
        CHECK_RTM(rtm_isend(sbuf, len, dest, 3, comm, &sreq));
        CHECK_RTM(rtm_recv(rbuf, len, dest, 3, comm, &st));
    }
    CHECK_RTM(rtm_wait(&sreq, RTM_STATUS_IGNORE));
    CHECK(st.source == dest && st.tag == 3 && st.count == len && st.error == RTM_OK,
           "%s: status source %d tag %d count %zu error %d, expected %d/3/%zu/0", what,
           st.source, st.tag, st.count, (int)st.error, dest, len);
    itest_check(rbuf, len, seed, what);
    itest_check_canary(rbuf, len, what);
}

int main(void)
{
    size_t max = 16u << 20;
    uint8_t *sbuf, *rbuf;
    rtm_msg_status_t st;
    rtm_request_t req;
    int self_rank = -1, self_size = -1, flag = 0;

    itest_init("selfsend");
    sbuf = itest_malloc(max);
    rbuf = itest_malloc(max + ITEST_CANARY_LEN);

    CHECK_RTM(rtm_comm_rank(RTM_COMM_SELF, &self_rank));
    CHECK_RTM(rtm_comm_size(RTM_COMM_SELF, &self_size));
    CHECK(self_rank == 0 && self_size == 1, "COMM_SELF: rank %d size %d, expected 0 and 1",
           self_rank, self_size);
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        for (int pf = 0; pf < 2; pf++) {
            one(RTM_COMM_WORLD, th_rank, lens[i], (uint32_t)(i * 2 + (size_t)pf), pf,
                sbuf, rbuf);
            one(RTM_COMM_SELF, 0, lens[i], (uint32_t)(i * 2 + (size_t)pf + 100), pf, sbuf,
                rbuf);
        }
    }

    /* RTM_PROC_NULL: MPI semantics, nothing moves. */
    CHECK_RTM(rtm_send(sbuf, 100, RTM_PROC_NULL, 1, RTM_COMM_WORLD));
    memset(rbuf, 0x3c, 100);
    CHECK_RTM(rtm_recv(rbuf, 100, RTM_PROC_NULL, 1, RTM_COMM_WORLD, &st));
    CHECK(st.source == RTM_PROC_NULL && st.count == 0 && st.error == RTM_OK,
           "receive from RTM_PROC_NULL: source %d count %zu error %d, expected %d/0/0",
           st.source, st.count, (int)st.error, RTM_PROC_NULL);
    CHECK(rbuf[0] == 0x3c && rbuf[99] == 0x3c, "receive from RTM_PROC_NULL wrote the buffer");
    CHECK_RTM(rtm_irecv(rbuf, 100, RTM_PROC_NULL, 1, RTM_COMM_WORLD, &req));
    CHECK_RTM(rtm_test(&req, &flag, &st));
    CHECK(flag == 1, "irecv from RTM_PROC_NULL not complete at once");

    free(sbuf);
    free(rbuf);
    return itest_finish();
}
