/*
 * Eager RDMA rings under windows of messages (verbs_erdma.sh): every rank
 * sends WINDOW messages to every other rank, receives theirs, waits for all,
 * ROUNDS times; every message's length and bytes are checked. Run with the
 * debug log, the test reads from the ring statistics each rank logs at close
 * how many messages went by RDMA Write into the rings and how many by Send.
 *
 * Usage: vrb_erdma_window LEN WINDOW ROUNDS
 *   LEN > 0: every message LEN bytes (256: a 4-rank MPI_Alltoall of 64 ints);
 *   LEN = 0: lengths cycle through 1..8000 bytes (eager), so writes of very
 *   different sizes share a ring and wrap around its end.
 */
#include "config.h"

#include "rtmsg.h"
#include "../integration/itest.h"

#include <stdlib.h>

#define MAXLEN 8000

static size_t msg_len(long fixed, int round, int k)
{
    if (fixed > 0)
        return (size_t)fixed;
    return 1 + ((size_t)round * 997 + (size_t)k * 4099) % MAXLEN;
}

int main(int argc, char **argv)
{
    long fixed = argc > 1 ? atol(argv[1]) : 256;
    int window = argc > 2 ? atoi(argv[2]) : 16, rounds = argc > 3 ? atoi(argv[3]) : 100;
    int rank, size;
    size_t slot = MAXLEN;
    char *sbuf, *rbuf;
    rtm_request_t *reqs;
    rtm_msg_status_t *st;

    itest_begin("vrb_erdma_window");
    CHECK_RTM(rtm_init());
    CHECK_RTM(rtm_comm_rank(RTM_COMM_WORLD, &rank));
    CHECK_RTM(rtm_comm_size(RTM_COMM_WORLD, &size));
    th_rank = rank;
    th_size = size;
    if (size < 2 || fixed < 0 || fixed > MAXLEN || window < 1 || window > 256 || rounds < 1)
        TH_FAIL("usage: vrb_erdma_window LEN(0..%d) WINDOW(1..256) ROUNDS, 2 or more ranks",
                MAXLEN);
    sbuf = malloc((size_t)size * (size_t)window * slot);
    rbuf = malloc((size_t)size * (size_t)window * slot);
    reqs = calloc(2 * (size_t)size * (size_t)window, sizeof(*reqs));
    st = calloc(2 * (size_t)size * (size_t)window, sizeof(*st));
    if (sbuf == NULL || rbuf == NULL || reqs == NULL || st == NULL)
        TH_FAIL("no memory");
    for (int r = 0; r < rounds; r++) {
        int n = 0;

        for (int p = 0; p < size; p++) {
            if (p == rank)
                continue;
            for (int k = 0; k < window; k++)
                CHECK_RTM(rtm_irecv(rbuf + ((size_t)p * (size_t)window + (size_t)k) * slot,
                                    slot, p, k, RTM_COMM_WORLD, &reqs[n++]));
        }
        for (int i = 1; i < size; i++) {
            int p = (rank + i) % size;

            for (int k = 0; k < window; k++) {
                char *b = sbuf + ((size_t)p * (size_t)window + (size_t)k) * slot;

                itest_fill(b, msg_len(fixed, r, k), (uint32_t)r * 1000003u + (uint32_t)(rank * 1009 + k));
                CHECK_RTM(rtm_isend(b, msg_len(fixed, r, k), p, k, RTM_COMM_WORLD, &reqs[n++]));
            }
        }
        CHECK_RTM(rtm_waitall(n, reqs, st));
        n = 0;
        for (int p = 0; p < size; p++) {
            if (p == rank)
                continue;
            for (int k = 0; k < window; k++, n++) {
                char what[80];

                snprintf(what, sizeof(what), "round %d message %d from rank %d", r, k, p);
                CHECK(st[n].count == msg_len(fixed, r, k), "%s: %zu bytes, expected %zu", what,
                      st[n].count, msg_len(fixed, r, k));
                itest_check(rbuf + ((size_t)p * (size_t)window + (size_t)k) * slot,
                            msg_len(fixed, r, k), (uint32_t)r * 1000003u + (uint32_t)(p * 1009 + k), what);
            }
        }
    }
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    if (rank == 0)
        printf("vrb_erdma_window: %d rounds of %d messages per peer, %d ranks, intact\n", rounds,
               window, size);
    free(st);
    free(reqs);
    free(sbuf);
    free(rbuf);
    CHECK_RTM(rtm_finalize());
    return 0;
}
