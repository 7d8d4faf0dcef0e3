/*
 * alltoall: every rank sends to every other rank at once, with sizes on
 * both sides of each switch point of the small shm rings a large host gets
 * (RTM_SHM_RX_BUDGET): a 4 KiB ring carries active messages of up to
 * 1016 B (eager up to 760 B), an 8 KiB ring 2040 B (eager 1784 B); so one-
 * line and eager messages, rendezvous just over each eager limit, messages
 * larger than a whole ring (fragments through it), one above the busy
 * host's CMA threshold and one above the quiet host's. All sends of a round
 * are issued before any is waited for, so every ring fills and the senders
 * must be held back (RTM_ERR_AGAIN, queued) without a deadlock. Rounds
 * alternate receives posted before the sends (expected path) and after
 * (unexpected path). Every message is checked byte for byte.
 *
 * Usage: alltoall [ROUNDS]   (default 2)
 */
#include "config.h"

#include "itest.h"

#include <stdlib.h>

static const size_t lens[] = { 0, 40, 700, 900, 1500, 2100, 5000, 9000, 40000, 600001 };
#define NLENS (sizeof(lens) / sizeof(lens[0]))
#define TAG_BASE 300

static uint32_t seed_of(int src, int dst, int round, size_t i)
{
    return (uint32_t)(src * 7919 + dst * 104729 + round * 31 + (int)i);
}

/* A receive from every peer for every size, from th_rank - 1 down; returns
 * how many were posted. */
static int post_recvs(uint8_t **rbuf, rtm_request_t *rreq)
{
    int n = 0;

    for (int step = 1; step < th_size; step++) {
        int src = (th_rank + th_size - step) % th_size;

        for (size_t i = 0; i < NLENS; i++) {
            size_t k = (size_t)src * NLENS + i;

            itest_set_canary(rbuf[k], lens[i]);
            CHECK_RTM(rtm_irecv(rbuf[k], lens[i], src, TAG_BASE + (int)i, RTM_COMM_WORLD,
                                &rreq[n++]));
        }
    }
    return n;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 2;
    size_t total = 0, nreq;
    uint8_t **sbuf, **rbuf;
    rtm_request_t *sreq, *rreq;
    rtm_msg_status_t *st;

    itest_init("alltoall");
    CHECK(rounds >= 1, "rounds %d", rounds);
    nreq = (size_t)th_size * NLENS;
    sbuf = calloc(nreq, sizeof(*sbuf));
    rbuf = calloc(nreq, sizeof(*rbuf));
    sreq = calloc(nreq, sizeof(*sreq));
    rreq = calloc(nreq, sizeof(*rreq));
    st = calloc(nreq, sizeof(*st));
    CHECK(sbuf && rbuf && sreq && rreq && st, "no memory for %zu requests", nreq);
    for (size_t k = 0; k < nreq; k++) {
        sbuf[k] = itest_malloc(lens[k % NLENS] + 1);
        rbuf[k] = itest_malloc(lens[k % NLENS] + ITEST_CANARY_LEN);
    }

    for (int round = 0; round < rounds; round++) {
        int posted_first = round % 2 == 0;
        int n = posted_first ? post_recvs(rbuf, rreq) : 0;

        /* to th_rank + 1 first, so that no peer is everyone's first target */
        for (int step = 1, m = 0; step < th_size; step++) {
            int dst = (th_rank + step) % th_size;

            for (size_t i = 0; i < NLENS; i++) {
                size_t k = (size_t)dst * NLENS + i;

                itest_fill(sbuf[k], lens[i], seed_of(th_rank, dst, round, i));
                CHECK_RTM(rtm_isend(sbuf[k], lens[i], dst, TAG_BASE + (int)i, RTM_COMM_WORLD,
                                    &sreq[m++]));
                total += lens[i];
            }
        }
        if (!posted_first)
            n = post_recvs(rbuf, rreq);
        CHECK_RTM(rtm_waitall(n, sreq, st));
        CHECK_RTM(rtm_waitall(n, rreq, st));
        n = 0;
        for (int step = 1; step < th_size; step++) {
            int src = (th_rank + th_size - step) % th_size;

            for (size_t i = 0; i < NLENS; i++, n++) {
                size_t k = (size_t)src * NLENS + i;
                char what[96];

                CHECK(st[n].source == src && st[n].tag == TAG_BASE + (int)i &&
                      st[n].count == lens[i] && st[n].error == RTM_OK,
                      "round %d, %zu B from rank %d: status source %d tag %d count %zu error %d",
                      round, lens[i], src, st[n].source, st[n].tag, st[n].count,
                      (int)st[n].error);
                snprintf(what, sizeof(what), "round %d, %zu B from rank %d", round, lens[i], src);
                itest_check(rbuf[k], lens[i], seed_of(src, th_rank, round, i), what);
                itest_check_canary(rbuf[k], lens[i], what);
            }
        }
    }
    if (th_rank == 0)
        printf("alltoall: %d rounds, %zu B sent by rank 0 to %d peers\n", rounds, total,
               th_size - 1);
    for (size_t k = 0; k < nreq; k++) {
        free(sbuf[k]);
        free(rbuf[k]);
    }
    free(sbuf);
    free(rbuf);
    free(sreq);
    free(rreq);
    free(st);
    return itest_finish();
}
