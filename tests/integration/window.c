/*
 * A window of rendezvous messages whose receives are posted after every
 * RTS has arrived: rank 0 starts NWIN sends of 5-64 KiB (tags 0..NWIN-1),
 * then an eager "posted" message, which travels behind them; rank 1 takes
 * "posted" first, so every RTS waits as unexpected, then posts the NWIN
 * receives in reverse tag order and waits for them all. On shm each
 * receive's read is gathered, and the window is read in one or two system
 * calls (cma_load.sh checks the counters rank 1 logs at close). Every byte
 * is checked, with a canary after each buffer. Pairs 0-1, 2-3, ...; an odd
 * rank out only joins the final barrier.
 *
 * Usage: window
 */
#include "config.h"

#include "itest.h"

#define NWIN   64
#define POSTED 1000

static size_t len_of(int i)
{
    return 5000 + (size_t)i * 977;   /* 5000 .. 66551 B */
}

int main(void)
{
    rtm_request_t reqs[NWIN];
    uint8_t *bufs[NWIN];
    uint8_t one = 1;

    itest_init("window");
    if ((th_rank ^ 1) < th_size) {
        int peer = th_rank ^ 1;

        if ((th_rank & 1) == 0) {
            for (int i = 0; i < NWIN; i++) {
                bufs[i] = itest_malloc(len_of(i));
                itest_fill(bufs[i], len_of(i), (uint32_t)(th_rank * 100 + i));
                CHECK_RTM(rtm_isend(bufs[i], len_of(i), peer, i, RTM_COMM_WORLD, &reqs[i]));
            }
            CHECK_RTM(rtm_send(&one, 1, peer, POSTED, RTM_COMM_WORLD));
        } else {
            rtm_msg_status_t st[NWIN];

            CHECK_RTM(rtm_recv(&one, 1, peer, POSTED, RTM_COMM_WORLD, RTM_STATUS_IGNORE));
            for (int i = NWIN - 1; i >= 0; i--) {
                bufs[i] = itest_malloc(len_of(i) + ITEST_CANARY_LEN);
                itest_set_canary(bufs[i], len_of(i));
                CHECK_RTM(rtm_irecv(bufs[i], len_of(i) + ITEST_CANARY_LEN, peer, i,
                                    RTM_COMM_WORLD, &reqs[i]));
            }
            CHECK_RTM(rtm_waitall(NWIN, reqs, st));
            for (int i = 0; i < NWIN; i++) {
                CHECK(st[i].count == len_of(i) && st[i].source == peer && st[i].tag == i,
                      "message %d: %zu B from %d, tag %d", i, st[i].count, st[i].source,
                      st[i].tag);
                itest_check(bufs[i], len_of(i), (uint32_t)(peer * 100 + i), "window");
                itest_check_canary(bufs[i], len_of(i), "window");
            }
            printf("window: rank %d received %d messages of 5000-%zu B from rank %d\n",
                   th_rank, NWIN, len_of(NWIN - 1), peer);
        }
        if ((th_rank & 1) == 0)
            CHECK_RTM(rtm_waitall(NWIN, reqs, RTM_STATUSES_IGNORE));
        for (int i = 0; i < NWIN; i++)
            free(bufs[i]);
    }
    return itest_finish();
}
