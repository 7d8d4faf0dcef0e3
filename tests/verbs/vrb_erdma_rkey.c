/*
 * The eager RDMA least-privilege test's program (verbs_erdma_rkey.sh, with
 * the vrb_erdma_evil module preloaded): 3 ranks. Rank 1 sends rank 0 enough
 * small messages that rank 0 offers it a ring, and rank 1 writes into it
 * (the module saves the ring's address and rkey). Then the rank named by
 * argv[1] arms the module and sends rank 0 one message: the module writes
 * into rank 0's ring with rank 1's rkey on the QP of that send. Rank 1 may
 * (its own ring); rank 2 was offered no ring and must get a remote access
 * error. The module ends the acting rank with exit code 42 after printing
 * the verdict, so this program is not expected to finish.
 */
#include "config.h"

#include "rtmsg.h"
#include "../integration/itest.h"

#include <dlfcn.h>

int main(int argc, char **argv)
{
    int rank, size, actor = argc > 1 ? atoi(argv[1]) : 2;
    char buf[64];

    itest_begin("vrb_erdma_rkey");
    CHECK_RTM(rtm_init());
    CHECK_RTM(rtm_comm_rank(RTM_COMM_WORLD, &rank));
    CHECK_RTM(rtm_comm_size(RTM_COMM_WORLD, &size));
    th_rank = rank;
    th_size = size;
    if (size != 3 || actor < 1 || actor > 2)
        TH_FAIL("run with 3 ranks; argument: the acting rank, 1 or 2");
    memset(buf, 0, sizeof(buf));
    for (int i = 0; i < 64; i++) {
        if (rank == 1)
            CHECK_RTM(rtm_send(buf, 8, 0, 1, RTM_COMM_WORLD));
        else if (rank == 0)
            CHECK_RTM(rtm_recv(buf, sizeof(buf), 1, 1, RTM_COMM_WORLD, NULL));
    }
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    if (rank == actor) {
        int (*evil_now)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "vrb_erdma_evil_now");

        if (evil_now == NULL || evil_now() != 0)
            TH_FAIL("the vrb_erdma_evil module is not loaded, or no ring write was seen");
        CHECK_RTM(rtm_send(buf, 8, 0, 2, RTM_COMM_WORLD));
    } else if (rank == 0) {
        CHECK_RTM(rtm_recv(buf, sizeof(buf), actor, 2, RTM_COMM_WORLD, NULL));
    }
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    CHECK_RTM(rtm_finalize());
    return 0;
}
