/*
 * Completion calls: waitany, testany, testall, test, request_get_status,
 * and their handling of RTM_REQUEST_NULL. Every rank exchanges NREQ
 * messages with the next/previous rank in the ring.
 */
#include "config.h"

#include "itest.h"

#define NREQ 64
#define LEN(i) ((size_t)((i) % 8 == 5 ? 70000 : 64 * (i) + 1))

static uint32_t seed_of(int src, int i) { return (uint32_t)(src * 31 + i + 7); }

static void post(int next, int prev, uint8_t **sbuf, uint8_t **rbuf, rtm_request_t *sreq,
                 rtm_request_t *rreq, int round)
{
    for (int i = 0; i < NREQ; i++)
        CHECK_RTM(rtm_irecv(rbuf[i], LEN(i), prev, round * 1000 + i, RTM_COMM_WORLD, &rreq[i]));
    for (int i = 0; i < NREQ; i++) {
        itest_fill(sbuf[i], LEN(i), seed_of(th_rank, i + round));
        CHECK_RTM(rtm_isend(sbuf[i], LEN(i), next, round * 1000 + i, RTM_COMM_WORLD, &sreq[i]));
    }
}

static void check_one(uint8_t **rbuf, int i, const rtm_msg_status_t *st, int prev, int round,
                      const char *how)
{
    char what[96];

    CHECK(st->source == prev && st->tag == round * 1000 + i && st->count == LEN(i) &&
           st->error == RTM_OK, "%s index %d: status source %d tag %d count %zu error %d, "
           "expected %d/%d/%zu/0", how, i, st->source, st->tag, st->count, (int)st->error,
           prev, round * 1000 + i, LEN(i));
    snprintf(what, sizeof(what), "%s receive %d", how, i);
    itest_check(rbuf[i], LEN(i), seed_of(prev, i + round), what);
}

int main(void)
{
    int next, prev, idx, flag;
    uint8_t *sbuf[NREQ], *rbuf[NREQ];
    rtm_request_t sreq[NREQ], rreq[NREQ], nullreq = RTM_REQUEST_NULL;
    rtm_msg_status_t st, sts[NREQ];
    int done[NREQ];

    itest_init("completion");
    next = (th_rank + 1) % th_size;
    prev = (th_rank + th_size - 1) % th_size;
    for (int i = 0; i < NREQ; i++) {
        sbuf[i] = itest_malloc(LEN(i));
        rbuf[i] = itest_malloc(LEN(i));
    }

    /* Null handles complete at once; waitany over only nulls gives -1. */
    CHECK_RTM(rtm_wait(&nullreq, &st));
    flag = 0;
    CHECK_RTM(rtm_test(&nullreq, &flag, &st));
    CHECK(flag == 1, "rtm_test on RTM_REQUEST_NULL: flag %d, expected 1", flag);
    for (int i = 0; i < NREQ; i++)
        rreq[i] = RTM_REQUEST_NULL;
    idx = 12345;
    CHECK_RTM(rtm_waitany(NREQ, rreq, &idx, &st));
    CHECK(idx == -1, "waitany over null requests: index %d, expected -1", idx);

    /* Round 1: waitany until every receive is in, each exactly once. */
    post(next, prev, sbuf, rbuf, sreq, rreq, 1);
    memset(done, 0, sizeof(done));
    for (int k = 0; k < NREQ; k++) {
        CHECK_RTM(rtm_waitany(NREQ, rreq, &idx, &st));
        CHECK(idx >= 0 && idx < NREQ && !done[idx], "waitany %d: index %d (already "
               "completed or out of range)", k, idx);
        CHECK(rreq[idx] == RTM_REQUEST_NULL, "waitany did not reset handle %d", idx);
        done[idx] = 1;
        check_one(rbuf, idx, &st, prev, 1, "waitany");
    }
    CHECK_RTM(rtm_waitany(NREQ, rreq, &idx, &st));
    CHECK(idx == -1, "waitany after all completed: index %d, expected -1", idx);
    CHECK_RTM(rtm_waitall(NREQ, sreq, RTM_STATUSES_IGNORE));

    /* Round 2: testall polling; the receives stay valid until all are done. */
    post(next, prev, sbuf, rbuf, sreq, rreq, 2);
    flag = 0;
    for (long spins = 0; !flag; spins++) {
        CHECK_RTM(rtm_testall(NREQ, rreq, &flag, sts));
        CHECK(spins < 100000000L, "testall never reported completion");
        if (!flag)
            for (int i = 0; i < NREQ; i++)
                CHECK(rreq[i] != RTM_REQUEST_NULL, "testall returned flag 0 but freed "
                       "request %d", i);
    }
    for (int i = 0; i < NREQ; i++) {
        CHECK(rreq[i] == RTM_REQUEST_NULL, "testall completed but left request %d", i);
        check_one(rbuf, i, &sts[i], prev, 2, "testall");
    }
    CHECK_RTM(rtm_waitall(NREQ, sreq, RTM_STATUSES_IGNORE));

    /* Round 3: testany and test, with request_get_status not freeing. */
    post(next, prev, sbuf, rbuf, sreq, rreq, 3);
    flag = 0;
    while (!flag)
        CHECK_RTM(rtm_request_get_status(rreq[0], &flag, &st));
    CHECK(rreq[0] != RTM_REQUEST_NULL, "request_get_status freed the request");
    check_one(rbuf, 0, &st, prev, 3, "request_get_status");
    flag = 0;
    CHECK_RTM(rtm_test(&rreq[0], &flag, &st));
    CHECK(flag == 1 && rreq[0] == RTM_REQUEST_NULL, "test after get_status reported "
           "completion: flag %d handle %p", flag, (void *)rreq[0]);
    check_one(rbuf, 0, &st, prev, 3, "test");
    memset(done, 0, sizeof(done));
    done[0] = 1;
    for (int k = 1; k < NREQ;) {
        CHECK_RTM(rtm_testany(NREQ, rreq, &idx, &flag, &st));
        if (!flag)
            continue;
        CHECK(idx > 0 && idx < NREQ && !done[idx], "testany: index %d", idx);
        done[idx] = 1;
        check_one(rbuf, idx, &st, prev, 3, "testany");
        k++;
    }
    CHECK_RTM(rtm_waitall(NREQ, sreq, RTM_STATUSES_IGNORE));

    for (int i = 0; i < NREQ; i++) {
        free(sbuf[i]);
        free(rbuf[i]);
    }
    return itest_finish();
}
