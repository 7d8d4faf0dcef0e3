/*
 * Wildcards: RTM_ANY_SOURCE and RTM_ANY_TAG, alone and together, with eager
 * and rendezvous sizes. Every rank (rank 0 included, through a self-send)
 * sends NMSG messages to rank 0; rank 0 receives them with wildcards and
 * checks that the status names the real source, tag and byte count, that
 * the data is the one that source sent with that tag, that each message
 * arrives exactly once, and that messages from one source arrive in the
 * order they were sent (non-overtaking holds across tags for ANY_TAG).
 */
#include "config.h"

#include "itest.h"

#define NMSG 6
#define MAXLEN (300u * 1024 + 5)

static const size_t msg_len[NMSG] = { 0, 17, 4000, 5000, 70000, MAXLEN };

static int tag_of(int src, int i) { return 1000 + src * 10 + i; }
static uint32_t seed_of(int src, int tag) { return (uint32_t)(src * 7919 + tag); }

/* Phase 1: all NMSG messages of every rank, received with (ANY, ANY). */
static void phase_any_any(uint8_t **bufs, uint8_t *rbuf)
{
    rtm_request_t reqs[NMSG];

    for (int i = 0; i < NMSG; i++) {
        int tag = tag_of(th_rank, i);

        bufs[i] = itest_malloc(msg_len[i]);
        itest_fill(bufs[i], msg_len[i], seed_of(th_rank, tag));
        CHECK_RTM(rtm_isend(bufs[i], msg_len[i], 0, tag, RTM_COMM_WORLD, &reqs[i]));
    }
    if (th_rank == 0) {
        int next[64] = { 0 };

        for (int k = 0; k < NMSG * th_size; k++) {
            rtm_msg_status_t st;
            char what[128];
            int i;

            itest_set_canary(rbuf, MAXLEN);
            CHECK_RTM(rtm_recv(rbuf, MAXLEN, RTM_ANY_SOURCE, RTM_ANY_TAG, RTM_COMM_WORLD, &st));
            CHECK(st.source >= 0 && st.source < th_size,
                   "ANY_SOURCE receive %d: status.source %d out of range", k, st.source);
            i = st.tag - tag_of(st.source, 0);
            CHECK(i >= 0 && i < NMSG, "ANY_TAG receive %d: status.tag %d is no tag rank %d "
                   "sent", k, st.tag, st.source);
            CHECK(i == next[st.source], "ANY_SOURCE/ANY_TAG receive %d: from rank %d got "
                   "message %d (tag %d) but expected message %d first (non-overtaking)", k,
                   st.source, i, st.tag, next[st.source]);
            next[st.source]++;
            CHECK(st.count == msg_len[i] && st.error == RTM_OK,
                   "receive %d from rank %d tag %d: count %zu error %d, expected %zu/0", k,
                   st.source, st.tag, st.count, (int)st.error, msg_len[i]);
            snprintf(what, sizeof(what), "ANY/ANY message from rank %d tag %d", st.source,
                     st.tag);
            itest_check(rbuf, st.count, seed_of(st.source, st.tag), what);
            itest_check_canary(rbuf, MAXLEN, what);
        }
        for (int s = 0; s < th_size; s++)
            CHECK(next[s] == NMSG, "got %d of %d messages from rank %d", next[s], NMSG, s);
    }
    CHECK_RTM(rtm_waitall(NMSG, reqs, RTM_STATUSES_IGNORE));
    for (int i = 0; i < NMSG; i++)
        free(bufs[i]);
}

/* Phase 2: every rank sends tag 7 (small) then tag 8 (large). Rank 0
 * receives all tag-8 messages first with ANY_SOURCE (overtaking tag 7 is
 * allowed: different tags), then each source's tag-7 one with ANY_TAG. */
static void phase_one_wildcard(uint8_t *rbuf)
{
    size_t len7 = 100, len8 = 280000;
    uint8_t *b7 = itest_malloc(len7), *b8 = itest_malloc(len8);
    rtm_request_t reqs[2];

    itest_fill(b7, len7, seed_of(th_rank, 7));
    itest_fill(b8, len8, seed_of(th_rank, 8));
    CHECK_RTM(rtm_isend(b7, len7, 0, 7, RTM_COMM_WORLD, &reqs[0]));
    CHECK_RTM(rtm_isend(b8, len8, 0, 8, RTM_COMM_WORLD, &reqs[1]));
    if (th_rank == 0) {
        int seen[64] = { 0 };

        for (int k = 0; k < th_size; k++) {
            rtm_msg_status_t st;

            CHECK_RTM(rtm_recv(rbuf, MAXLEN, RTM_ANY_SOURCE, 8, RTM_COMM_WORLD, &st));
            CHECK(st.source >= 0 && st.source < th_size && !seen[st.source]++,
                   "ANY_SOURCE tag 8 receive %d: bad or repeated source %d", k, st.source);
            CHECK(st.tag == 8 && st.count == len8, "ANY_SOURCE tag 8 from rank %d: tag %d "
                   "count %zu, expected 8/%zu", st.source, st.tag, st.count, len8);
            itest_check(rbuf, len8, seed_of(st.source, 8), "ANY_SOURCE tag 8 message");
        }
        for (int s = th_size - 1; s >= 0; s--) {
            rtm_msg_status_t st;

            CHECK_RTM(rtm_recv(rbuf, MAXLEN, s, RTM_ANY_TAG, RTM_COMM_WORLD, &st));
            CHECK(st.source == s && st.tag == 7 && st.count == len7,
                   "rank %d ANY_TAG receive: source %d tag %d count %zu, expected %d/7/%zu",
                   s, st.source, st.tag, st.count, s, len7);
            itest_check(rbuf, len7, seed_of(s, 7), "ANY_TAG tag 7 message");
        }
    }
    CHECK_RTM(rtm_waitall(2, reqs, RTM_STATUSES_IGNORE));
    free(b7);
    free(b8);
}

int main(void)
{
    uint8_t *bufs[NMSG];
    uint8_t *rbuf;

    itest_init("wildcard");
    CHECK(th_size <= 64, "test supports at most 64 ranks");
    rbuf = itest_malloc(MAXLEN + ITEST_CANARY_LEN);
    phase_any_any(bufs, rbuf);
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    phase_one_wildcard(rbuf);
    free(rbuf);
    return itest_finish();
}
