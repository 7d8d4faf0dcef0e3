/*
 * sendrecv: every rank shifts a buffer to the right in the ring while
 * receiving from the left, with eager and rendezvous sizes (all ranks send
 * large messages at once: sendrecv must not deadlock), plus RTM_PROC_NULL
 * on either side (a non-periodic shift).
 */
#include "config.h"

#include "itest.h"

static const size_t lens[] = { 0, 8, 4096, 4097, 65536, 300000, (4u << 20) + 7 };

int main(void)
{
    size_t max = (4u << 20) + 7;
    uint8_t *sbuf, *rbuf;
    int next, prev;

    itest_init("sendrecv");
    next = (th_rank + 1) % th_size;
    prev = (th_rank + th_size - 1) % th_size;
    sbuf = itest_malloc(max);
    rbuf = itest_malloc(max + ITEST_CANARY_LEN);
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        rtm_msg_status_t st;
        char what[96];

        itest_fill(sbuf, lens[i], (uint32_t)(th_rank * 100 + (int)i));
        itest_set_canary(rbuf, lens[i]);
        CHECK_RTM(rtm_sendrecv(sbuf, lens[i], next, 70 + (int)i, rbuf, lens[i], prev,
                           RTM_ANY_TAG, RTM_COMM_WORLD, &st));
        CHECK(st.source == prev && st.tag == 70 + (int)i && st.count == lens[i] &&
               st.error == RTM_OK, "sendrecv %zu B: status source %d tag %d count %zu error "
               "%d, expected %d/%d/%zu/0", lens[i], st.source, st.tag, st.count,
               (int)st.error, prev, 70 + (int)i, lens[i]);
        snprintf(what, sizeof(what), "sendrecv from rank %d", prev);
        itest_check(rbuf, lens[i], (uint32_t)(prev * 100 + (int)i), what);
        itest_check_canary(rbuf, lens[i], what);
    }

    /* Non-periodic shift: rank 0 receives from PROC_NULL, the last rank
     * sends to PROC_NULL. */
    {
        int to = th_rank == th_size - 1 ? RTM_PROC_NULL : th_rank + 1;
        int from = th_rank == 0 ? RTM_PROC_NULL : th_rank - 1;
        rtm_msg_status_t st;

        itest_fill(sbuf, 5000, (uint32_t)th_rank + 4242);
        CHECK_RTM(rtm_sendrecv(sbuf, 5000, to, 5, rbuf, 5000, from, 5, RTM_COMM_WORLD, &st));
        if (from == RTM_PROC_NULL) {
            CHECK(st.source == RTM_PROC_NULL && st.count == 0, "sendrecv from PROC_NULL: "
                   "source %d count %zu", st.source, st.count);
        } else {
            CHECK(st.source == from && st.count == 5000, "shift: source %d count %zu",
                   st.source, st.count);
            itest_check(rbuf, 5000, (uint32_t)from + 4242, "non-periodic shift");
        }
    }
    free(sbuf);
    free(rbuf);
    return itest_finish();
}
