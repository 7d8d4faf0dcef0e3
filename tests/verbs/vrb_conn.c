/*
 * Connection set-up of the verbs transport, driven by tests/verbs/verbs_conn.sh.
 *
 *   vrb_conn alltoall   right after init, every rank posts a receive from and
 *                       a send to every other rank at once (eager and
 *                       rendezvous sizes), so on-demand connection requests
 *                       cross in every pair; three rounds, every byte checked.
 *   vrb_conn silent S   rank 0 sends to rank 1, which calls nothing in the
 *                       library for S seconds: with a short
 *                       RTM_VERBS_CONNECT_TIMEOUT the job must end with a
 *                       message naming rank 1 (the driver checks it).
 */
#include "config.h"

#include "rtmsg.h"
#include "../integration/itest.h"

#include <unistd.h>

#define ROUNDS 3
#define TAG    7

static size_t len_of(int round, int src, int dst)
{
    static const size_t sizes[] = {16, 4000, 100000};

    return sizes[(round + src + dst) % 3];
}

static uint32_t seed_of(int round, int src, int dst)
{
    return (uint32_t)(round * 1000003 + src * 1009 + dst);
}

static void alltoall(int rank, int size)
{
    size_t max = 100000;
    uint8_t **sbuf = calloc((size_t)size, sizeof(*sbuf));
    uint8_t **rbuf = calloc((size_t)size, sizeof(*rbuf));
    rtm_request_t *req = calloc(2 * (size_t)size, sizeof(*req));
    int n;

    CHECK(sbuf && rbuf && req, "no memory");
    for (int p = 0; p < size; p++) {
        sbuf[p] = malloc(max);
        rbuf[p] = malloc(max);
        CHECK(sbuf[p] && rbuf[p], "no memory");
    }
    for (int round = 0; round < ROUNDS; round++) {
        n = 0;
        for (int p = 0; p < size; p++) {
            if (p == rank)
                continue;
            CHECK_RTM(rtm_irecv(rbuf[p], max, p, TAG + round, RTM_COMM_WORLD, &req[n++]));
        }
        for (int k = 1; k < size; k++) {
            int p = (rank + k) % size;

            itest_fill(sbuf[p], len_of(round, rank, p), seed_of(round, rank, p));
            CHECK_RTM(rtm_isend(sbuf[p], len_of(round, rank, p), p, TAG + round, RTM_COMM_WORLD,
                            &req[n++]));
        }
        CHECK_RTM(rtm_waitall(n, req, NULL));
        for (int p = 0; p < size; p++) {
            char what[64];

            if (p == rank)
                continue;
            snprintf(what, sizeof(what), "round %d from rank %d", round, p);
            itest_check(rbuf[p], len_of(round, p, rank), seed_of(round, p, rank), what);
        }
    }
    for (int p = 0; p < size; p++) {
        free(sbuf[p]);
        free(rbuf[p]);
    }
    free(sbuf);
    free(rbuf);
    free(req);
    if (rank == 0)
        printf("vrb_conn: all-to-all of %d ranks, %d rounds, intact\n", size, ROUNDS);
}

static void silent(int rank, int seconds)
{
    char buf[64] = "hello";

    if (rank == 1) {
        sleep((unsigned)seconds);       /* no progress: connection requests go unanswered */
        CHECK_RTM(rtm_recv(buf, sizeof(buf), 0, TAG, RTM_COMM_WORLD, NULL));
    } else if (rank == 0) {
        CHECK_RTM(rtm_send(buf, sizeof(buf), 1, TAG, RTM_COMM_WORLD));
    }
}

int main(int argc, char **argv)
{
    int rank, size;

    itest_begin("vrb_conn");
    CHECK_RTM(rtm_init());
    CHECK_RTM(rtm_comm_rank(RTM_COMM_WORLD, &rank));
    CHECK_RTM(rtm_comm_size(RTM_COMM_WORLD, &size));
    th_rank = rank;
    th_size = size;
    if (argc > 2 && !strcmp(argv[1], "silent"))
        silent(rank, atoi(argv[2]));
    else
        alltoall(rank, size);
    CHECK_RTM(rtm_finalize());
    return 0;
}
