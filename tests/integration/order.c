/*
 * Ordering: every rank sends NMSG messages with one tag to the next rank in
 * a ring (itself when alone) and receives the previous rank's. Sizes mix
 * eager (a few bytes to just under 4 KiB), pipelined (70 KiB) and
 * single-copy (300 KiB) rendezvous, so a small message sent after a large
 * one must still arrive after it. Batches alternate between receiving after
 * the sends were issued (unexpected path) and receives posted before the
 * peer sends (expected path). Each message carries its sequence number.
 */
#include "config.h"

#include "itest.h"

#define NMSG  2000
#define BATCH 100
#define TAG   42
#define MAXLEN (300u * 1024 + 1)

static size_t len_of(int seq)
{
    if (seq % 50 == 49)
        return seq % 100 == 99 ? MAXLEN : 70001;
    if (seq % 10 == 3)
        return 4095;
    return 8 + (size_t)(seq * 37 % 200);
}

static uint32_t seed_of(int src, int seq) { return (uint32_t)(src * 100003 + seq); }

static void fill_msg(uint8_t *buf, int src, int seq)
{
    size_t len = len_of(seq);

    itest_fill(buf, len, seed_of(src, seq));
    memcpy(buf, &seq, sizeof(seq));   /* every message is at least 8 bytes */
}

static void check_msg(const uint8_t *buf, const rtm_msg_status_t *st, int src, int seq)
{
    size_t len = len_of(seq);
    int got;
    char what[96];

    memcpy(&got, buf, sizeof(got));
    CHECK(st->count == len && got == seq, "message %d from rank %d: got sequence number %d "
           "and %zu bytes, expected %d and %zu bytes (messages overtook each other?)", seq,
           src, got, st->count, seq, len);
    CHECK(st->source == src && st->tag == TAG && st->error == RTM_OK,
           "message %d: status source %d tag %d error %d", seq, st->source, st->tag,
           (int)st->error);
    snprintf(what, sizeof(what), "message %d from rank %d", seq, src);
    itest_check_from(buf, sizeof(int), len, seed_of(src, seq), what);
}

int main(void)
{
    int next, prev;
    uint8_t *sbuf[BATCH], *rbuf[BATCH];
    rtm_request_t sreq[BATCH], rreq[BATCH];
    rtm_msg_status_t st[BATCH];

    itest_init("order");
    next = (th_rank + 1) % th_size;
    prev = (th_rank + th_size - 1) % th_size;
    for (int i = 0; i < BATCH; i++) {
        sbuf[i] = itest_malloc(MAXLEN);
        rbuf[i] = itest_malloc(MAXLEN);
    }

    for (int base = 0; base < NMSG; base += BATCH) {
        int posted_first = (base / BATCH) % 2;

        if (posted_first)
            for (int i = 0; i < BATCH; i++)
                CHECK_RTM(rtm_irecv(rbuf[i], MAXLEN, prev, TAG, RTM_COMM_WORLD, &rreq[i]));
        for (int i = 0; i < BATCH; i++) {
            fill_msg(sbuf[i], th_rank, base + i);
            CHECK_RTM(rtm_isend(sbuf[i], len_of(base + i), next, TAG, RTM_COMM_WORLD, &sreq[i]));
        }
        if (posted_first) {
            CHECK_RTM(rtm_waitall(BATCH, rreq, st));
        } else {
            for (int i = 0; i < BATCH; i++)
                CHECK_RTM(rtm_recv(rbuf[i], MAXLEN, prev, TAG, RTM_COMM_WORLD, &st[i]));
        }
        for (int i = 0; i < BATCH; i++)
            check_msg(rbuf[i], &st[i], prev, base + i);
        CHECK_RTM(rtm_waitall(BATCH, sreq, RTM_STATUSES_IGNORE));
    }
    for (int i = 0; i < BATCH; i++) {
        free(sbuf[i]);
        free(rbuf[i]);
    }
    printf("order: rank %d received %d messages from rank %d in order\n", th_rank, NMSG,
           prev);
    return itest_finish();
}
