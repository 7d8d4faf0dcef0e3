/*
 * A long wait backs off (runtime/progress.c): rank 1 sleeps DELAY ms (1500
 * by default) before it sends, while rank 0 waits in rtm_recv; rank 0's
 * wait is at least that long whatever the machine's speed, longer than the
 * idle time after which a spinning wait yields (50 ms) and sleeps (0.5 s).
 * The driver reads rank 0's yield and sleep counters from its debug log.
 */
#include "config.h"

#include "itest.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
    long delay = argc > 1 ? atol(argv[1]) : 1500;
    uint64_t v = 0;

    itest_init("idle_backoff");
    if (th_size != 2) {
        if (th_rank == 0)
            printf("idle_backoff: needs 2 ranks, skipped\n");
        return itest_finish();
    }
    if (th_rank == 1) {
        itest_sleep_ms(delay);
        v = 0x1d1e;
        CHECK_RTM(rtm_send(&v, sizeof(v), 0, 7, RTM_COMM_WORLD));
        CHECK_RTM(rtm_recv(&v, sizeof(v), 0, 8, RTM_COMM_WORLD, RTM_STATUS_IGNORE));
    } else {
        CHECK_RTM(rtm_recv(&v, sizeof(v), 1, 7, RTM_COMM_WORLD, RTM_STATUS_IGNORE));
        CHECK(v == 0x1d1e, "received %#llx", (unsigned long long)v);
        CHECK_RTM(rtm_send(&v, sizeof(v), 1, 8, RTM_COMM_WORLD));
    }
    return itest_finish();
}
