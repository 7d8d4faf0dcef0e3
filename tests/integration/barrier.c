/*
 * Barrier: no rank leaves a barrier before the last one has entered it.
 * Each round one rank (a different one each round) arrives late; every rank
 * records when it entered and left (CLOCK_MONOTONIC, one clock for the
 * whole host), and rank 0 checks max(enter) <= min(leave). Then a long run
 * of back-to-back barriers on world, a dup and a split communicator, which
 * must not mix up consecutive barriers.
 */
#include "config.h"

#include "itest.h"

#define ROUNDS 12
#define BACK_TO_BACK 2000

int main(void)
{
    double times[2];
    rtm_comm_t dup, half;

    itest_init("barrier");
    for (int round = 0; round < ROUNDS; round++) {
        CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
        if (round % th_size == th_rank)
            itest_sleep_ms(100);
        times[0] = itest_now();
        CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
        times[1] = itest_now();
        if (th_rank == 0) {
            double last_enter = times[0], first_leave = times[1];
            int late = 0, early = 0;

            for (int r = 1; r < th_size; r++) {
                double t[2];
                rtm_msg_status_t st;

                CHECK_RTM(rtm_recv(t, sizeof(t), r, 600 + round, RTM_COMM_WORLD, &st));
                if (t[0] > last_enter) { last_enter = t[0]; late = r; }
                if (t[1] < first_leave) { first_leave = t[1]; early = r; }
            }
            CHECK(last_enter <= first_leave, "round %d: rank %d left the barrier %.6f s "
                   "before rank %d entered it", round, early, last_enter - first_leave,
                   late);
        } else {
            CHECK_RTM(rtm_send(times, sizeof(times), 0, 600 + round, RTM_COMM_WORLD));
        }
    }

    CHECK_RTM(rtm_comm_dup(RTM_COMM_WORLD, &dup));
    CHECK_RTM(rtm_comm_split(RTM_COMM_WORLD, th_rank % 2, th_rank, &half));
    {
        double t0 = itest_now();

        for (int i = 0; i < BACK_TO_BACK; i++) {
            CHECK_RTM(rtm_barrier(i % 3 == 0 ? RTM_COMM_WORLD : i % 3 == 1 ? dup : half));
        }
        if (th_rank == 0)
            printf("barrier: %d back-to-back barriers in %.3f s\n", BACK_TO_BACK,
                   itest_now() - t0);
    }
    CHECK_RTM(rtm_barrier(RTM_COMM_SELF));
    CHECK_RTM(rtm_comm_free(&half));
    CHECK_RTM(rtm_comm_free(&dup));
    return itest_finish();
}
