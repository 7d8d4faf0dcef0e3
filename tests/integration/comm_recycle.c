/*
 * Communicator context ids are recycled: CYCLES rounds of rtm_comm_dup +
 * rtm_comm_free (every 1000th round also a split where one rank opts out,
 * and a message on the new communicator, checked byte for byte), with a
 * few long-lived communicators alive throughout. comm_recycle.sh reads the
 * runtime's debug line at finalize: the handle and matching-context tables
 * must stay as large as the most communicators alive at once, not grow
 * with the number ever made.
 */
#include "config.h"

#include "itest.h"

#define KEEP 3
#define LEN  64

static void exchange(rtm_comm_t c, uint32_t seed)
{
    uint8_t out[LEN], in[LEN];
    int rank, size;

    CHECK_RTM(rtm_comm_rank(c, &rank));
    CHECK_RTM(rtm_comm_size(c, &size));
    itest_fill(out, LEN, seed + (uint32_t)rank);
    CHECK_RTM(rtm_sendrecv(out, LEN, (rank + 1) % size, 7, in, LEN, (rank - 1 + size) % size, 7, c,
                       RTM_STATUS_IGNORE));
    itest_check(in, LEN, seed + (uint32_t)((rank - 1 + size) % size), "message on a new communicator");
}

int main(int argc, char **argv)
{
    long cycles = argc > 1 ? atol(argv[1]) : 100000;
    rtm_comm_t keep[KEEP];

    itest_init("comm_recycle");
    for (int i = 0; i < KEEP; i++)
        CHECK_RTM(rtm_comm_dup(RTM_COMM_WORLD, &keep[i]));
    for (long i = 0; i < cycles; i++) {
        rtm_comm_t c;

        CHECK_RTM(rtm_comm_dup(keep[i % KEEP], &c));
        if (i % 1000 == 0) {
            rtm_comm_t s;

            exchange(c, (uint32_t)i);
            /* the last rank opts out; the others make one communicator */
            CHECK_RTM(rtm_comm_split(c, th_rank == th_size - 1 && th_size > 1
                                        ? RTM_UNDEFINED : 0, 0, &s));
            if (s != RTM_COMM_NULL) {
                exchange(s, (uint32_t)i + 1);
                CHECK_RTM(rtm_comm_free(&s));
            }
        }
        CHECK_RTM(rtm_comm_free(&c));
    }
    for (int i = 0; i < KEEP; i++) {
        exchange(keep[i], 99u + (uint32_t)i);
        CHECK_RTM(rtm_comm_free(&keep[i]));
    }
    return itest_finish();
}
