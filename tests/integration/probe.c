/*
 * Probe then receive; iprobe; mprobe/mrecv and improbe/imrecv. Rank pairs
 * (0-1, 2-3; an odd rank out works with itself): the lower rank sends, the
 * higher probes. Sizes cover eager and rendezvous. Checks that probe
 * reports source, tag and the full byte count without consuming the
 * message, and that a matched probe takes the message out of matching: a
 * later receive gets the next message, the mrecv gets the probed one.
 */
#include "config.h"

#include "itest.h"

static const size_t lens[] = { 0, 33, 4096, 4097, 70000, 300000 };
#define NLEN ((int)(sizeof(lens) / sizeof(lens[0])))

static uint32_t seed_of(int i, int which) { return (uint32_t)(i * 17 + which * 3 + 1); }

static void sender(int peer, uint8_t *sbuf, rtm_request_t *reqs)
{
    int n = 0;

    /* per size: tag 10 (probe), tag 11 (iprobe), tag 12 twice (mprobe then
     * a plain receive), tag 13 (improbe/imrecv) */
    for (int i = 0; i < NLEN; i++) {
        static const int tags[] = { 10, 11, 12, 12, 13 };

        for (int k = 0; k < 5; k++) {
            uint8_t *b = sbuf + (size_t)n * 300000;

            itest_fill(b, lens[i], seed_of(i, k));
            CHECK_RTM(rtm_isend(b, lens[i], peer, tags[k] + 100 * i, RTM_COMM_WORLD, &reqs[n]));
            n++;
        }
    }
}

static void expect_status(const rtm_msg_status_t *st, int src, int tag, size_t len,
                          const char *how)
{
    CHECK(st->source == src && st->tag == tag && st->count == len,
           "%s: status source %d tag %d count %zu, expected %d/%d/%zu", how, st->source,
           st->tag, st->count, src, tag, len);
}

static void receiver(int peer, uint8_t *rbuf)
{
    for (int i = 0; i < NLEN; i++) {
        rtm_msg_status_t st, st2;
        rtm_message_t msg = RTM_MESSAGE_NULL;
        rtm_request_t req;
        int flag = 0, base = 100 * i;
        char what[96];

        snprintf(what, sizeof(what), "size %zu", lens[i]);
        /* probe (wildcard source), then receive from what it reported */
        CHECK_RTM(rtm_probe(RTM_ANY_SOURCE, base + 10, RTM_COMM_WORLD, &st));
        expect_status(&st, peer, base + 10, lens[i], "probe");
        CHECK_RTM(rtm_probe(st.source, RTM_ANY_TAG, RTM_COMM_WORLD, &st2));   /* not consumed */
        expect_status(&st2, peer, base + 10, lens[i], "second probe");
        CHECK_RTM(rtm_recv(rbuf, st.count, st.source, st.tag, RTM_COMM_WORLD, &st2));
        expect_status(&st2, peer, base + 10, lens[i], "receive after probe");
        itest_check(rbuf, lens[i], seed_of(i, 0), what);

        /* iprobe until it sees the message */
        for (long spins = 0; !flag; spins++) {
            CHECK_RTM(rtm_iprobe(peer, base + 11, RTM_COMM_WORLD, &flag, &st));
            CHECK(spins < 200000000L, "iprobe never found tag %d", base + 11);
        }
        expect_status(&st, peer, base + 11, lens[i], "iprobe");
        CHECK_RTM(rtm_recv(rbuf, lens[i], peer, base + 11, RTM_COMM_WORLD, &st2));
        itest_check(rbuf, lens[i], seed_of(i, 1), what);

        /* mprobe takes the first tag-12 message; recv gets the second */
        CHECK_RTM(rtm_mprobe(peer, base + 12, RTM_COMM_WORLD, &msg, &st));
        expect_status(&st, peer, base + 12, lens[i], "mprobe");
        CHECK(msg != RTM_MESSAGE_NULL, "mprobe returned RTM_MESSAGE_NULL");
        CHECK_RTM(rtm_recv(rbuf, lens[i], peer, base + 12, RTM_COMM_WORLD, &st2));
        itest_check(rbuf, lens[i], seed_of(i, 3), "plain receive after mprobe (must get the "
                    "second message)");
        memset(rbuf, 0, lens[i]);
        CHECK_RTM(rtm_mrecv(rbuf, lens[i], &msg, &st2));
        CHECK(msg == RTM_MESSAGE_NULL, "mrecv did not reset the message handle");
        expect_status(&st2, peer, base + 12, lens[i], "mrecv");
        itest_check(rbuf, lens[i], seed_of(i, 2), "mrecv (must get the probed message)");

        /* improbe / imrecv */
        flag = 0;
        for (long spins = 0; !flag; spins++) {
            CHECK_RTM(rtm_improbe(peer, base + 13, RTM_COMM_WORLD, &flag, &msg, &st));
            CHECK(spins < 200000000L, "improbe never found tag %d", base + 13);
        }
        expect_status(&st, peer, base + 13, lens[i], "improbe");
        flag = 0;
        CHECK_RTM(rtm_iprobe(peer, base + 13, RTM_COMM_WORLD, &flag, &st2));
        CHECK(flag == 0, "iprobe still sees the message improbe took out of matching");
        CHECK_RTM(rtm_imrecv(rbuf, lens[i], &msg, &req));
        CHECK_RTM(rtm_wait(&req, &st2));
        expect_status(&st2, peer, base + 13, lens[i], "imrecv");
        itest_check(rbuf, lens[i], seed_of(i, 4), "imrecv");
    }
}

int main(void)
{
    int peer, flag = 1;
    uint8_t *sbuf = NULL, *rbuf;
    rtm_request_t reqs[5 * NLEN];
    rtm_msg_status_t st;
    rtm_message_t msg;

    itest_init("probe");
    peer = th_rank ^ 1;
    if (peer >= th_size)
        peer = th_rank;
    rbuf = itest_malloc(300000);

    /* Nothing was sent with this tag: iprobe says so. */
    CHECK_RTM(rtm_iprobe(RTM_ANY_SOURCE, 9999, RTM_COMM_WORLD, &flag, &st));
    CHECK(flag == 0, "iprobe found a message nobody sent");
    CHECK_RTM(rtm_mprobe(RTM_PROC_NULL, 5, RTM_COMM_WORLD, &msg, &st));
    CHECK(msg == RTM_MESSAGE_NO_PROC, "mprobe on RTM_PROC_NULL: expected RTM_MESSAGE_NO_PROC");
    CHECK_RTM(rtm_mrecv(rbuf, 10, &msg, &st));
    CHECK(st.source == RTM_PROC_NULL && st.count == 0, "mrecv of RTM_MESSAGE_NO_PROC: "
           "source %d count %zu", st.source, st.count);
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));

    if (th_rank <= peer) {
        sbuf = itest_malloc((size_t)5 * NLEN * 300000);
        sender(peer, sbuf, reqs);
    }
    if (th_rank >= peer)
        receiver(peer, rbuf);
    if (th_rank <= peer)
        CHECK_RTM(rtm_waitall(5 * NLEN, reqs, RTM_STATUSES_IGNORE));
    free(sbuf);
    free(rbuf);
    return itest_finish();
}
