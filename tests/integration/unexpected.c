/*
 * Unexpected messages: a sender sends long before the receive is posted.
 * Ranks pair up (0-1, 2-3, ...; an odd rank out sends to itself). The lower
 * rank first starts one rendezvous message (1 MiB + 3), then floods the
 * peer with many small and eager-limit-sized messages, together far larger
 * than eager credits x eager limit, while the receiver sleeps. Flow control
 * may stall the sender, but no message may be lost, reordered or damaged.
 * Then the roles swap.
 */
#include "config.h"

#include "itest.h"

#define NSMALL 3000
#define BIG    ((1u << 20) + 3)
#define TAG    77

static size_t len_of(int i, size_t eager)
{
    if (i % 4 == 3)
        return eager;           /* exactly the eager limit */
    return 1 + (size_t)i * 13 % (eager < 1000 ? eager : 1000);
}

/* Sends the large message then the flood to peer, a remote rank. */
static void flood(int peer, size_t eager, int round)
{
    uint8_t *big = itest_malloc(BIG);
    uint8_t *small = itest_malloc(eager);
    rtm_request_t big_req;
    double t0 = itest_now();

    itest_fill(big, BIG, (uint32_t)(round * 1000 + 999999));
    CHECK_RTM(rtm_isend(big, BIG, peer, TAG, RTM_COMM_WORLD, &big_req));
    for (int i = 0; i < NSMALL; i++) {
        itest_fill(small, len_of(i, eager), (uint32_t)(round * 1000 + i));
        CHECK_RTM(rtm_send(small, len_of(i, eager), peer, TAG, RTM_COMM_WORLD));
    }
    CHECK_RTM(rtm_wait(&big_req, RTM_STATUS_IGNORE));
    printf("unexpected: rank %d sent 1 large + %d small messages to rank %d in %.2f s\n",
           th_rank, NSMALL, peer, itest_now() - t0);
    free(big);
    free(small);
}

static void drain(int peer, size_t eager, int round);

/* To itself a blocking send could wait forever for its own receive: every
 * send is nonblocking, all issued before the first receive. */
static void flood_self(size_t eager, int round)
{
    rtm_request_t *reqs = itest_malloc((NSMALL + 1) * sizeof(*reqs));
    uint8_t *big = itest_malloc(BIG);
    uint8_t *bufs = itest_malloc((size_t)NSMALL * eager);

    itest_fill(big, BIG, (uint32_t)(round * 1000 + 999999));
    CHECK_RTM(rtm_isend(big, BIG, th_rank, TAG, RTM_COMM_WORLD, &reqs[NSMALL]));
    for (int i = 0; i < NSMALL; i++) {
        uint8_t *b = bufs + (size_t)i * eager;

        itest_fill(b, len_of(i, eager), (uint32_t)(round * 1000 + i));
        CHECK_RTM(rtm_isend(b, len_of(i, eager), th_rank, TAG, RTM_COMM_WORLD, &reqs[i]));
    }
    drain(th_rank, eager, round);
    CHECK_RTM(rtm_waitall(NSMALL + 1, reqs, RTM_STATUSES_IGNORE));
    free(reqs);
    free(big);
    free(bufs);
}

static void drain(int peer, size_t eager, int round)
{
    uint8_t *buf = itest_malloc(BIG + ITEST_CANARY_LEN);
    rtm_msg_status_t st;

    if (peer != th_rank)
        itest_sleep_ms(1500);   /* the sender runs far ahead meanwhile */
    itest_set_canary(buf, BIG);
    CHECK_RTM(rtm_recv(buf, BIG, peer, TAG, RTM_COMM_WORLD, &st));
    CHECK(st.count == BIG && st.source == peer && st.tag == TAG, "first message from "
           "rank %d: count %zu source %d tag %d, expected the %u-byte one first", peer,
           st.count, st.source, st.tag, BIG);
    itest_check(buf, BIG, (uint32_t)(round * 1000 + 999999), "large unexpected message");
    itest_check_canary(buf, BIG, "large unexpected message");
    for (int i = 0; i < NSMALL; i++) {
        char what[96];

        itest_set_canary(buf, eager);
        CHECK_RTM(rtm_recv(buf, eager, peer, TAG, RTM_COMM_WORLD, &st));
        CHECK(st.count == len_of(i, eager) && st.source == peer && st.error == RTM_OK,
               "small message %d from rank %d: count %zu source %d error %d, expected "
               "%zu bytes (lost or reordered?)", i, peer, st.count, st.source,
               (int)st.error, len_of(i, eager));
        snprintf(what, sizeof(what), "small unexpected message %d from rank %d", i, peer);
        itest_check(buf, st.count, (uint32_t)(round * 1000 + i), what);
        itest_check_canary(buf, eager, what);
    }
    free(buf);
}

int main(void)
{
    size_t eager = itest_parse_size(getenv("RTM_SHM_EAGER_LIMIT"));
    long credits = atol(getenv("RTM_EAGER_CREDITS") ? getenv("RTM_EAGER_CREDITS") : "64");
    int peer;

    if (eager == 0)
        eager = 4096;
    itest_init("unexpected");
    CHECK((size_t)NSMALL * 500 > (size_t)credits * eager, "flood of %d messages is not "
           "larger than %ld credits x %zu bytes: raise NSMALL", NSMALL, credits, eager);
    peer = th_rank ^ 1;
    if (peer >= th_size)
        peer = th_rank;
    for (int round = 0; round < 2; round++) {
        int sender = (th_rank < peer) == (round == 0) || peer == th_rank;

        if (peer == th_rank)
            flood_self(eager, round);
        else if (sender)
            flood(peer, eager, round);
        else
            drain(peer, eager, round);
        CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    }
    return itest_finish();
}
