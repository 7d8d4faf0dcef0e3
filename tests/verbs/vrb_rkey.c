/*
 * The rkey least-privilege test's program (vrb_rkey.sh, with the vrb_evil
 * module preloaded): rank 0 sends one rendezvous message to rank 1 from the
 * start of a larger buffer (so memory right after the shown bytes exists
 * and a too generous registration would let a peer read it), then a small
 * message once its send is complete (the FIN has ended the exposure).
 * Rank 1, where the module plays the malicious peer, receives both and,
 * in after_fin mode, asks the module to read the old buffer again. The
 * module ends rank 1 with its verdict (vrb_rkey.sh), or the transport ends
 * the job on the module's fake async event (vrb_async.sh); if rank 1 is
 * still running 20 s later, neither happened and it fails.
 */
#include "config.h"

#include "rtmsg.h"
#include "../integration/itest.h"

#include <dlfcn.h>
#include <time.h>

#define LEN 100000

int main(void)
{
    int rank, size;

    itest_begin("vrb_rkey");
    CHECK_RTM(rtm_init());
    CHECK_RTM(rtm_comm_rank(RTM_COMM_WORLD, &rank));
    CHECK_RTM(rtm_comm_size(RTM_COMM_WORLD, &size));
    th_rank = rank;
    th_size = size;
    if (size != 2)
        TH_FAIL("run with 2 ranks");
    if (rank == 0) {
        char *buf = malloc(LEN + 8192);
        char ack = 1;

        if (buf == NULL)
            TH_FAIL("malloc");
        itest_fill(buf, LEN + 8192, 7);
        CHECK_RTM(rtm_send(buf, LEN, 1, 1, RTM_COMM_WORLD));
        CHECK_RTM(rtm_send(&ack, 1, 1, 2, RTM_COMM_WORLD));
        CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));   /* rank 1 never gets there */
        free(buf);
    } else {
        char *buf = malloc(LEN);
        char ack;
        int (*evil_now)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "vrb_evil_now");
        const char *mode;
        time_t end;

        if (buf == NULL)
            TH_FAIL("malloc");
        CHECK_RTM(rtm_recv(buf, LEN, 0, 1, RTM_COMM_WORLD, NULL));
        itest_check(buf, LEN, 7, "rendezvous message");
        CHECK_RTM(rtm_recv(&ack, 1, 0, 2, RTM_COMM_WORLD, NULL));
        /* after_fin: the module reads now; cq_err/qp_fatal (vrb_async.sh):
         * its fake event is waiting for the transport to poll it */
        mode = getenv("VRB_EVIL");
        if (mode != NULL && !strcmp(mode, "after_fin") && (evil_now == NULL || evil_now() != 0))
            TH_FAIL("the vrb_evil module is not loaded, or saw no RDMA read");
        for (end = time(NULL) + 20; time(NULL) < end;)
            rtm_progress();
        TH_FAIL("the job should have ended by now (VRB_EVIL=%s)", mode ? mode : "");
    }
    CHECK_RTM(rtm_finalize());
    return 0;
}
