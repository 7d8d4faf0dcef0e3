/*
 * The job the tcp attacks (tests/security/tcp_*.sh) run against.
 *   tcp_target GO_FILE [record|hold]
 * record: rank 0 sends one message to rank 1 first (so that connection's
 * handshake can be recorded; rank 1 prints "phase1 done"). Then every
 * rank prints "rank R waiting" and polls (rtm_iprobe, which drives the
 * transports, so the attacker's connections are handled) until GO_FILE
 * exists: nobody has sent anything then, so ANY message seen is forged
 * and fails the job. Then a ring of byte-checked messages, received with
 * RTM_ANY_SOURCE/RTM_ANY_TAG: each must come from the left neighbour with
 * its tag and contents, and nothing else may arrive. hold: then every
 * rank waits (polling) for GO_FILE.end before it finishes, so the test
 * can look at the attacker while the whole job is still up.
 */
#include "config.h"

#include "tests/integration/itest.h"

#include <unistd.h>

#define RING_LEN 1000

int main(int argc, char **argv)
{
    uint8_t sbuf[RING_LEN], rbuf[RING_LEN + ITEST_CANARY_LEN];
    double until;
    int next, prev, flag;
    rtm_msg_status_t st;

    itest_init("tcp_target");
    if (argc < 2)
        TH_FAIL("usage: tcp_target GO_FILE [record]");
    next = (th_rank + 1) % th_size;
    prev = (th_rank + th_size - 1) % th_size;
    if (argc > 2 && strcmp(argv[2], "record") == 0 && th_size > 1) {
        if (th_rank == 0) {
            itest_fill(sbuf, sizeof(sbuf), 7);
            CHECK_RTM(rtm_send(sbuf, sizeof(sbuf), 1, 1, RTM_COMM_WORLD));
        } else if (th_rank == 1) {
            CHECK_RTM(rtm_recv(rbuf, sizeof(sbuf), 0, 1, RTM_COMM_WORLD, &st));
            itest_check(rbuf, sizeof(sbuf), 7, "the recorded connection's message");
            printf("phase1 done\n");
        }
    }
    printf("rank %d waiting\n", th_rank);
    /* bounded only against a hang: the test creates GO_FILE */
    until = itest_now() + 240.0;
    while (access(argv[1], F_OK) != 0) {
        CHECK_RTM(rtm_iprobe(RTM_ANY_SOURCE, RTM_ANY_TAG, RTM_COMM_WORLD, &flag, &st));
        CHECK(!flag, "a message \"from rank %d\" (tag %d, %zu B) arrived before any rank sent "
              "one: forged", st.source, st.tag, st.count);
        CHECK(itest_now() < until, "%s never appeared", argv[1]);
        itest_sleep_ms(2);
    }
    itest_fill(sbuf, sizeof(sbuf), (uint32_t)(100 + th_rank));
    itest_set_canary(rbuf, sizeof(sbuf));
    CHECK_RTM(rtm_sendrecv(sbuf, sizeof(sbuf), next, 2, rbuf, sizeof(sbuf), RTM_ANY_SOURCE,
                           RTM_ANY_TAG, RTM_COMM_WORLD, &st));
    CHECK(st.source == prev && st.tag == 2 && st.count == sizeof(sbuf),
          "ring message: source %d tag %d count %zu, expected %d/2/%zu", st.source, st.tag,
          st.count, prev, sizeof(sbuf));
    itest_check(rbuf, sizeof(sbuf), (uint32_t)(100 + prev), "the ring message");
    itest_check_canary(rbuf, sizeof(sbuf), "the ring message");
    CHECK_RTM(rtm_iprobe(RTM_ANY_SOURCE, RTM_ANY_TAG, RTM_COMM_WORLD, &flag, &st));
    CHECK(!flag, "an extra message \"from rank %d\" (tag %d): forged", st.source, st.tag);
    printf("rank %d ring ok\n", th_rank);
    if (argc > 2 && strcmp(argv[2], "hold") == 0) {
        char end[4096];

        snprintf(end, sizeof(end), "%s.end", argv[1]);
        until = itest_now() + 240.0;
        while (access(end, F_OK) != 0) {
            CHECK_RTM(rtm_iprobe(RTM_ANY_SOURCE, RTM_ANY_TAG, RTM_COMM_WORLD, &flag, &st));
            CHECK(!flag, "a message \"from rank %d\" after the ring: forged", st.source);
            CHECK(itest_now() < until, "%s never appeared", end);
            itest_sleep_ms(2);
        }
    }
    return itest_finish();
}
