/*
 * Truncation: a message longer than the receive buffer completes the
 * receive with RTM_ERR_TRUNCATE (in the status and as the return of
 * rtm_recv / rtm_wait), never writes past the buffer (a canary follows it),
 * and leaves the job healthy: the sender's send succeeds and the next
 * message on the same pair arrives intact. Eager, pipelined and single-copy
 * sizes; receive buffers one byte short, half, and empty.
 */
#include "config.h"

#include "itest.h"

static const size_t lens[] = { 1, 100, 4096, 4097, 8193, 65537, 262145, (1u << 20) + 1 };
#define NLEN ((int)(sizeof(lens) / sizeof(lens[0])))

static size_t short_len(size_t len, int k)
{
    return k == 0 ? len - 1 : k == 1 ? len / 2 : 0;
}

static uint32_t seed_of(int i, int k) { return (uint32_t)(i * 10 + k + 5); }

static void receive_short(int peer, int i, int k, uint8_t *rbuf)
{
    size_t len = lens[i], rlen = short_len(len, k);
    rtm_msg_status_t st;
    rtm_status_t ret;
    char what[128];

    snprintf(what, sizeof(what), "%zu-byte message into a %zu-byte buffer (%s)", len, rlen,
             k % 2 ? "irecv+wait" : "recv");
    itest_set_canary(rbuf, rlen);
    memset(&st, 0, sizeof(st));
    if (k % 2) {
        rtm_request_t req;

        CHECK_RTM(rtm_irecv(rbuf, rlen, peer, 20 + k, RTM_COMM_WORLD, &req));
        ret = rtm_wait(&req, &st);
    } else {
        ret = rtm_recv(rbuf, rlen, peer, 20 + k, RTM_COMM_WORLD, &st);
    }
    CHECK(ret == RTM_ERR_TRUNCATE, "%s: returned %d (%s), expected RTM_ERR_TRUNCATE", what,
           (int)ret, rtm_strerror(ret));
    CHECK(st.error == RTM_ERR_TRUNCATE, "%s: status.error %d, expected RTM_ERR_TRUNCATE",
           what, (int)st.error);
    CHECK(st.source == peer && st.tag == 20 + k && st.count <= rlen,
           "%s: status source %d tag %d count %zu (count may not exceed the buffer)", what,
           st.source, st.tag, st.count);
    itest_check(rbuf, st.count, seed_of(i, k), what);   /* what was delivered is right */
    itest_check_canary(rbuf, rlen, what);

    /* The pair still works: the next message arrives whole. */
    itest_set_canary(rbuf, len);
    CHECK_RTM(rtm_recv(rbuf, len, peer, 30, RTM_COMM_WORLD, &st));
    CHECK(st.count == len && st.error == RTM_OK, "message after truncation: count %zu "
           "error %d, expected %zu/0", st.count, (int)st.error, len);
    itest_check(rbuf, len, seed_of(i, 9), "message after a truncated one");
    itest_check_canary(rbuf, len, "message after a truncated one");
}

static void send_pair(int peer, int i, int k, uint8_t *sbuf, uint8_t *sbuf2)
{
    rtm_request_t reqs[2];

    itest_fill(sbuf, lens[i], seed_of(i, k));
    itest_fill(sbuf2, lens[i], seed_of(i, 9));
    CHECK_RTM(rtm_isend(sbuf, lens[i], peer, 20 + k, RTM_COMM_WORLD, &reqs[0]));
    CHECK_RTM(rtm_isend(sbuf2, lens[i], peer, 30, RTM_COMM_WORLD, &reqs[1]));
    if (peer != th_rank)
        CHECK_RTM(rtm_waitall(2, reqs, RTM_STATUSES_IGNORE));
    else
        receive_short(peer, i, k, sbuf2 + lens[i] + 8);
    if (peer == th_rank)
        CHECK_RTM(rtm_waitall(2, reqs, RTM_STATUSES_IGNORE));
}

int main(void)
{
    size_t max = (1u << 20) + 1;
    uint8_t *sbuf, *sbuf2, *rbuf;
    int peer;

    itest_init("truncate");
    peer = th_rank ^ 1;
    if (peer >= th_size)
        peer = th_rank;
    sbuf = itest_malloc(max);
    /* for self-sends the receive buffer lives after the second send buffer */
    sbuf2 = itest_malloc(2 * max + 8 + ITEST_CANARY_LEN);
    rbuf = itest_malloc(max + ITEST_CANARY_LEN);
    for (int i = 0; i < NLEN; i++) {
        for (int k = 0; k < 3; k++) {
            if (peer == th_rank || th_rank < peer)
                send_pair(peer, i, k, sbuf, sbuf2);
            else
                receive_short(peer, i, k, rbuf);
        }
    }
    free(sbuf);
    free(sbuf2);
    free(rbuf);
    return itest_finish();
}
