/*
 * A peer killed mid-rendezvous (vrb_kill.sh): rank 0 starts sending a large
 * message to rank 1 (rendezvous: rank 1 RDMA-Reads it), keeps the library
 * progressing for a moment so the reads are under way, then kills itself
 * with SIGKILL. The job must end, naming rank 0; rank 1 must never report
 * the message complete.
 */
#include "config.h"

#include "rtmsg.h"
#include "../integration/itest.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#define LEN ((size_t)128 << 20)

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void)
{
    int rank, size;
    char *buf = malloc(LEN);

    itest_name = "vrb_kill";
    CHECK(rtm_init());
    CHECK(rtm_comm_rank(RTM_COMM_WORLD, &rank));
    CHECK(rtm_comm_size(RTM_COMM_WORLD, &size));
    itest_rank = rank;
    itest_size = size;
    if (size != 2 || buf == NULL)
        itest_fail("run with 2 ranks (and %zu bytes of memory)", LEN);
    memset(buf, rank + 1, LEN);
    CHECK(rtm_barrier(RTM_COMM_WORLD));
    if (rank == 0) {
        rtm_request_t req;
        double end;

        CHECK(rtm_isend(buf, LEN, 1, 5, RTM_COMM_WORLD, &req));
        for (end = now() + 0.1; now() < end;)
            rtm_progress();
        printf("vrb_kill: rank 0 kills itself mid-rendezvous\n");
        fflush(stdout);
        raise(SIGKILL);
    } else {
        CHECK(rtm_recv(buf, LEN, 0, 5, RTM_COMM_WORLD, NULL));
        itest_fail("received all %zu bytes from a rank that was killed mid-transfer", LEN);
    }
    CHECK(rtm_finalize());
    return 0;
}
