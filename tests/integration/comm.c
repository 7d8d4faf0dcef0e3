/*
 * Communicators: dup and split (including RTM_UNDEFINED and a reversed key
 * order) give the right sizes, ranks and world-rank mapping; messages with
 * the same source, destination and tag on different communicators never
 * cross (each has its own matching context), even with ANY_SOURCE and when
 * the receives are posted in the opposite order of the sends; barrier works
 * on each; a freed communicator is rejected.
 */
#include "config.h"

#include "itest.h"

#define NCOMM 5
#define LEN   1000
#define BIG   100000

static void check_split(rtm_comm_t c, int color_of_me, int (*color)(int), int reverse)
{
    int size = -1, rank = -1, want_size = 0, want_rank = 0;

    CHECK_RTM(rtm_comm_size(c, &size));
    CHECK_RTM(rtm_comm_rank(c, &rank));
    for (int r = 0; r < th_size; r++) {
        if (color(r) != color_of_me)
            continue;
        want_size++;
        if (reverse ? r > th_rank : r < th_rank)
            want_rank++;
    }
    CHECK(size == want_size && rank == want_rank, "split (color %d%s): rank %d size %d, "
           "expected %d and %d", color_of_me, reverse ? ", reversed keys" : "", rank, size,
           want_rank, want_size);
    for (int r = 0; r < size; r++) {
        int w = -1, n = 0, expect_w = -1;

        CHECK_RTM(rtm_comm_world_rank(c, r, &w));
        /* the r-th world rank of this color, in key order */
        for (int k = 0; k < th_size; k++) {
            int x = reverse ? th_size - 1 - k : k;

            if (color(x) == color_of_me && n++ == r) {
                expect_w = x;
                break;
            }
        }
        CHECK(w == expect_w, "split: rank %d maps to world rank %d, expected %d", r, w,
               expect_w);
    }
}

static int parity(int r) { return r % 2; }
static int zero(int r) { (void)r; return 0; }
static int only_rank0(int r) { return r == 0 ? 1 : -1; }

int main(void)
{
    rtm_comm_t comms[NCOMM], dup, half, whole, undef, shared;
    uint8_t *sbuf[NCOMM], *rbuf[NCOMM];
    rtm_request_t sreq[NCOMM], rreq[NCOMM];
    rtm_msg_status_t st[NCOMM];
    int size, rank, shared_size;

    itest_init("comm");

    CHECK_RTM(rtm_comm_dup(RTM_COMM_WORLD, &dup));
    CHECK_RTM(rtm_comm_split(RTM_COMM_WORLD, th_rank % 2, -th_rank, &half));
    check_split(half, th_rank % 2, parity, 1);
    CHECK_RTM(rtm_comm_split(RTM_COMM_WORLD, 0, th_rank, &whole));
    check_split(whole, 0, zero, 0);
    CHECK_RTM(rtm_comm_split(RTM_COMM_WORLD, th_rank == 0 ? 1 : RTM_UNDEFINED, 0, &undef));
    if (th_rank == 0)
        check_split(undef, 1, only_rank0, 0);
    else
        CHECK(undef == RTM_COMM_NULL, "split with RTM_UNDEFINED gave a communicator");
    CHECK_RTM(rtm_comm_split_type(RTM_COMM_WORLD, RTM_COMM_TYPE_SHARED, th_rank, &shared));
    CHECK_RTM(rtm_comm_size(shared, &size));
    /* Across hosts the multi-host tests say how many ranks share one. */
    shared_size = getenv("ITEST_SHARED_SIZE") ? atoi(getenv("ITEST_SHARED_SIZE")) : th_size;
    CHECK(size == shared_size, "split_type SHARED: size %d, expected %d", size, shared_size);
    CHECK_RTM(rtm_comm_size(dup, &size));
    CHECK_RTM(rtm_comm_rank(dup, &rank));
    CHECK(size == th_size && rank == th_rank, "dup: rank %d size %d", rank, size);

    /* The same (tag, peer) on five communicators; the receives are posted
     * in reverse order with ANY_SOURCE, the sends go in forward order. Two
     * rounds: eager messages, then rendezvous ones. */
    comms[0] = RTM_COMM_WORLD;
    comms[1] = dup;
    comms[2] = half;
    comms[3] = whole;
    comms[4] = shared;
    for (int round = 0; round < 2; round++) {
        size_t len = round ? BIG : LEN;

        for (int c = NCOMM - 1; c >= 0; c--) {
            rbuf[c] = itest_malloc(len);
            CHECK_RTM(rtm_irecv(rbuf[c], len, RTM_ANY_SOURCE, 9, comms[c], &rreq[c]));
        }
        CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
        for (int c = 0; c < NCOMM; c++) {
            CHECK_RTM(rtm_comm_size(comms[c], &size));
            CHECK_RTM(rtm_comm_rank(comms[c], &rank));
            sbuf[c] = itest_malloc(len);
            itest_fill(sbuf[c], len, (uint32_t)(c * 1000 + th_rank + round * 77));
            CHECK_RTM(rtm_isend(sbuf[c], len, (rank + 1) % size, 9, comms[c], &sreq[c]));
        }
        CHECK_RTM(rtm_waitall(NCOMM, rreq, st));
        for (int c = 0; c < NCOMM; c++) {
            int prev, prev_world;
            char what[96];

            CHECK_RTM(rtm_comm_size(comms[c], &size));
            CHECK_RTM(rtm_comm_rank(comms[c], &rank));
            prev = (rank + size - 1) % size;
            CHECK_RTM(rtm_comm_world_rank(comms[c], prev, &prev_world));
            CHECK(st[c].source == prev && st[c].tag == 9 && st[c].count == len,
                   "communicator %d: status source %d tag %d count %zu, expected %d/9/%zu", c,
                   st[c].source, st[c].tag, st[c].count, prev, len);
            snprintf(what, sizeof(what), "message on communicator %d (did it cross "
                     "communicators?)", c);
            itest_check(rbuf[c], len, (uint32_t)(c * 1000 + prev_world + round * 77), what);
        }
        CHECK_RTM(rtm_waitall(NCOMM, sreq, RTM_STATUSES_IGNORE));
        for (int c = 0; c < NCOMM; c++) {
            free(sbuf[c]);
            free(rbuf[c]);
        }
    }

    for (int c = 0; c < NCOMM; c++)
        CHECK_RTM(rtm_barrier(comms[c]));
    if (undef != RTM_COMM_NULL) {
        CHECK_RTM(rtm_barrier(undef));
        CHECK_RTM(rtm_comm_free(&undef));
    }

    CHECK_RTM(rtm_comm_free(&dup));
    CHECK(dup == RTM_COMM_NULL, "comm_free did not set the handle to RTM_COMM_NULL");
    {
        rtm_comm_t freed = comms[1];

        size = -42;
        EXPECT_STATUS(rtm_comm_size(freed, &size), RTM_ERR_COMM);
        CHECK(size == -42, "comm_size on a freed communicator wrote its output");
        EXPECT_STATUS(rtm_send(NULL, 0, 0, 1, freed), RTM_ERR_COMM);
    }
    CHECK_RTM(rtm_comm_free(&half));
    CHECK_RTM(rtm_comm_free(&whole));
    CHECK_RTM(rtm_comm_free(&shared));
    return itest_finish();
}
