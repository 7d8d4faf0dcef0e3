/*
 * A peer killed mid-rendezvous (vrb_kill.sh): rank 0 sends rank 1 a 128 MiB
 * message (rendezvous: rank 1 RDMA-Reads it in 1 MiB chunks, at most 8 in
 * flight). Rank 1 watches its own receive buffer and, as soon as the first
 * bytes have landed while the last chunk has not, SIGKILLs rank 0. The job
 * must end, naming rank 0; rank 1 must never report the message complete.
 *
 * No clock decides when the kill lands: it happens when the receiver has
 * seen part of the data, so on any machine the transfer is in flight. At
 * that moment at most 2 x 8 MiB of reads have been posted (rank 1 posts the
 * next chunks only from its own progress calls, between which it looks at
 * the buffer), and what a dead rank 0 had already written into its sockets
 * (4 MiB each way) cannot make up the 112 MiB still missing.
 */
#include "config.h"

#include "rtmsg.h"
#include "../integration/itest.h"

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#define LEN ((size_t)128 << 20)
#define CHUNK ((size_t)1 << 20)

/* How many whole 1 MiB chunks hold rank 0's bytes (1) at their first and
 * last byte: the reads fill the buffer front to back. */
static size_t chunks_arrived(const char *buf)
{
    size_t n = 0;

    while (n < LEN / CHUNK && buf[n * CHUNK] == 1 && buf[n * CHUNK + CHUNK - 1] == 1)
        n++;
    return n;
}

int main(void)
{
    char *buf = malloc(LEN);

    itest_init("vrb_kill");
    if (th_size != 2 || buf == NULL)
        TH_FAIL("run with 2 ranks (and %zu bytes of memory)", LEN);
    memset(buf, th_rank + 1, LEN);
    if (th_rank == 0) {
        rtm_request_t req;
        int32_t pid = (int32_t)getpid();

        CHECK_RTM(rtm_send(&pid, sizeof(pid), 1, 4, RTM_COMM_WORLD));
        CHECK_RTM(rtm_isend(buf, LEN, 1, 5, RTM_COMM_WORLD, &req));
        /* Serves the reads until rank 1 kills us. */
        CHECK_RTM(rtm_wait(&req, NULL));
        TH_FAIL("the send of %zu bytes completed although rank 1 was to kill rank 0 "
                   "mid-transfer", LEN);
    } else {
        rtm_request_t req;
        int32_t pid = 0;
        int done = 0;
        size_t have;

        CHECK_RTM(rtm_recv(&pid, sizeof(pid), 0, 4, RTM_COMM_WORLD, NULL));
        CHECK_RTM(rtm_irecv(buf, LEN, 0, 5, RTM_COMM_WORLD, &req));
        while (!done && buf[0] != 1)
            CHECK_RTM(rtm_test(&req, &done, NULL));
        if (done)
            TH_FAIL("received all %zu bytes before rank 0 could be killed", LEN);
        have = chunks_arrived(buf);
        CHECK(buf[LEN - 1] != 1, "the last byte of the %zu-byte message had arrived when the "
              "first was seen (%zu chunks of 1 MiB in): the transfer was not in flight",
              LEN, have);
        printf("vrb_kill: rank 1 has %zu of %zu MiB and not the last byte: SIGKILL to rank 0 "
               "(pid %d) mid-rendezvous\n", have, LEN / CHUNK, (int)pid);
        fflush(stdout);
        CHECK(kill((pid_t)pid, SIGKILL) == 0, "kill(%d, SIGKILL): %s", (int)pid,
              strerror(errno));
        CHECK_RTM(rtm_wait(&req, NULL));
        TH_FAIL("received all %zu bytes from a rank that was killed mid-transfer", LEN);
    }
    CHECK_RTM(rtm_finalize());
    return 0;
}
