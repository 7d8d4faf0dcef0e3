/*
 * 1,000 outstanding isend/irecv pairs: every rank posts NREQ receives from
 * the previous rank in the ring (distinct tags, posted in reverse tag order
 * so matching has to search a long posted queue) and NREQ sends to the next
 * rank, all before waiting on any of them; then waits on everything at once.
 * Sizes are mostly eager with some rendezvous ones among them.
 */
#include "config.h"

#include "itest.h"

#define NREQ 1000

static size_t len_of(int i)
{
    if (i % 100 == 50)
        return 100000 + (size_t)i;
    if (i % 25 == 7)
        return 8191;
    return (size_t)(i * 37 % 3000);
}

static uint32_t seed_of(int src, int i) { return (uint32_t)(src * 65537 + i * 3 + 11); }

int main(void)
{
    int next, prev;
    uint8_t **sbuf, **rbuf;
    rtm_request_t *sreq, *rreq;
    rtm_msg_status_t *st;

    itest_init("outstanding");
    next = (th_rank + 1) % th_size;
    prev = (th_rank + th_size - 1) % th_size;
    sbuf = itest_malloc(NREQ * sizeof(*sbuf));
    rbuf = itest_malloc(NREQ * sizeof(*rbuf));
    sreq = itest_malloc(NREQ * sizeof(*sreq));
    rreq = itest_malloc(NREQ * sizeof(*rreq));
    st = itest_malloc(NREQ * sizeof(*st));

    for (int i = NREQ - 1; i >= 0; i--) {
        rbuf[i] = itest_malloc(len_of(i) + ITEST_CANARY_LEN);
        itest_set_canary(rbuf[i], len_of(i));
        CHECK_RTM(rtm_irecv(rbuf[i], len_of(i), prev, 5000 + i, RTM_COMM_WORLD, &rreq[i]));
    }
    for (int i = 0; i < NREQ; i++) {
        sbuf[i] = itest_malloc(len_of(i));
        itest_fill(sbuf[i], len_of(i), seed_of(th_rank, i));
        CHECK_RTM(rtm_isend(sbuf[i], len_of(i), next, 5000 + i, RTM_COMM_WORLD, &sreq[i]));
    }
    CHECK_RTM(rtm_waitall(NREQ, rreq, st));
    CHECK_RTM(rtm_waitall(NREQ, sreq, RTM_STATUSES_IGNORE));
    for (int i = 0; i < NREQ; i++) {
        char what[96];

        CHECK(rreq[i] == RTM_REQUEST_NULL && sreq[i] == RTM_REQUEST_NULL,
               "waitall left request %d non-null", i);
        CHECK(st[i].source == prev && st[i].tag == 5000 + i && st[i].count == len_of(i) &&
               st[i].error == RTM_OK, "receive %d: status source %d tag %d count %zu error "
               "%d, expected %d/%d/%zu/0", i, st[i].source, st[i].tag, st[i].count,
               (int)st[i].error, prev, 5000 + i, len_of(i));
        snprintf(what, sizeof(what), "receive %d (tag %d) from rank %d", i, 5000 + i, prev);
        itest_check(rbuf[i], len_of(i), seed_of(prev, i), what);
        itest_check_canary(rbuf[i], len_of(i), what);
        free(rbuf[i]);
        free(sbuf[i]);
    }
    printf("outstanding: rank %d completed %d isend/irecv pairs\n", th_rank, NREQ);
    free(sbuf); free(rbuf); free(sreq); free(rreq); free(st);
    return itest_finish();
}
