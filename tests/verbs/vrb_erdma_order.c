/*
 * Eager RDMA order and content (vrb_erdma.sh). Every rank but 0 floods rank
 * 0 with messages that are mostly small (written into rank 0's ring by RDMA
 * Write) with larger ones interleaved: eager ones too large for the ring
 * writes verbs_erdma.sh allows (Send/Recv) and rendezvous ones (RDMA Read). Rank 0 sleeps first so the
 * rings fill and senders fall back to Send/Recv mid-stream; then it
 * receives everything with wildcards and checks each message's tag (the
 * sender's order), length and every byte. A ping-pong of small messages
 * follows, so both directions write into rings and hand slots back in
 * ring headers.
 */
#include "config.h"

#include "rtmsg.h"
#include "../integration/itest.h"

#include <unistd.h>

#define MAXLEN (20 * 1000)   /* above the 8K eager limit: rendezvous */

static size_t msg_len(int src, int i)
{
    if (i % 97 == 50)
        return MAXLEN;                                    /* rendezvous */
    if (i % 7 == 3)
        return 300 + ((size_t)i * 53 + (size_t)src) % 3000; /* eager, larger */
    return 1 + ((size_t)i * 13 + (size_t)src * 7) % 200;  /* a ring slot */
}

int main(int argc, char **argv)
{
    int rank, size, msgs = argc > 1 ? atoi(argv[1]) : 3000, rounds = 200;
    char *buf;

    itest_begin("vrb_erdma_order");
    CHECK_RTM(rtm_init());
    CHECK_RTM(rtm_comm_rank(RTM_COMM_WORLD, &rank));
    CHECK_RTM(rtm_comm_size(RTM_COMM_WORLD, &size));
    th_rank = rank;
    th_size = size;
    if (size < 2 || msgs < 1)
        TH_FAIL("run with 2 or more ranks and a positive message count");
    buf = malloc(MAXLEN);
    if (buf == NULL)
        TH_FAIL("no memory");
    /* a few small messages first: the receiver crosses the threshold and
     * offers rings before the flood */
    for (int i = 0; i < 8; i++) {
        if (rank == 0) {
            for (int src = 1; src < size; src++)
                CHECK_RTM(rtm_recv(buf, MAXLEN, src, 1000, RTM_COMM_WORLD, NULL));
        } else {
            CHECK_RTM(rtm_send(buf, 8, 0, 1000, RTM_COMM_WORLD));
        }
    }
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    if (rank == 0) {
        int *next = calloc((size_t)size, sizeof(int));
        long total = (long)msgs * (size - 1);

        if (next == NULL)
            TH_FAIL("no memory");
        usleep(500 * 1000);   /* the rings fill: senders fall back to Send/Recv */
        for (long n = 0; n < total; n++) {
            rtm_msg_status_t st;
            char what[96];
            int src, i;

            CHECK_RTM(rtm_recv(buf, MAXLEN, RTM_ANY_SOURCE, RTM_ANY_TAG, RTM_COMM_WORLD, &st));
            src = st.source;
            i = st.tag;
            CHECK(src > 0 && src < size, "message from rank %d", src);
            CHECK(i == next[src], "from rank %d: message %d arrived, expected %d (lost or "
                   "reordered)", src, i, next[src]);
            CHECK(st.count == msg_len(src, i), "from rank %d message %d: %zu bytes, "
                   "expected %zu", src, i, (size_t)st.count, msg_len(src, i));
            snprintf(what, sizeof(what), "message %d from rank %d", i, src);
            itest_check(buf, st.count, (uint32_t)(src * 100000 + i), what);
            next[src]++;
        }
        printf("vrb_erdma_order: %ld messages from %d senders received intact and in order\n",
               total, size - 1);
        free(next);
    } else {
        rtm_request_t *reqs = calloc((size_t)msgs, sizeof(*reqs));
        size_t bytes = 0, off = 0;
        char *data;

        for (int i = 0; i < msgs; i++)
            bytes += msg_len(rank, i);
        data = malloc(bytes);
        if (reqs == NULL || data == NULL)
            TH_FAIL("no memory");
        for (int i = 0; i < msgs; i++) {
            char *b = data + off;

            off += msg_len(rank, i);
            itest_fill(b, msg_len(rank, i), (uint32_t)(rank * 100000 + i));
            CHECK_RTM(rtm_isend(b, msg_len(rank, i), 0, i, RTM_COMM_WORLD, &reqs[i]));
        }
        CHECK_RTM(rtm_waitall(msgs, reqs, NULL));
        free(reqs);
        free(data);
    }
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    /* small ping-pongs between rank 0 and each other rank, content checked */
    for (int peer = 1; peer < size; peer++) {
        if (rank != 0 && rank != peer)
            continue;
        for (int i = 0; i < rounds; i++) {
            size_t len = 1 + (size_t)(i * 11) % 200;
            char what[64];

            snprintf(what, sizeof(what), "ping-pong %d with rank %d", i, peer);
            if ((i % 2 == 0) == (rank == 0)) {
                itest_fill(buf, len, (uint32_t)(rank * 7919 + i));
                CHECK_RTM(rtm_send(buf, len, rank == 0 ? peer : 0, i, RTM_COMM_WORLD));
            } else {
                rtm_msg_status_t st;
                int from = rank == 0 ? peer : 0;

                CHECK_RTM(rtm_recv(buf, MAXLEN, from, i, RTM_COMM_WORLD, &st));
                CHECK(st.count == len, "%s: %zu bytes, expected %zu", what, (size_t)st.count,
                       len);
                itest_check(buf, len, (uint32_t)(from * 7919 + i), what);
            }
        }
    }
    if (rank == 0)
        printf("vrb_erdma_order: %d small ping-pongs with each of %d ranks intact\n", rounds,
               size - 1);
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    free(buf);
    CHECK_RTM(rtm_finalize());
    return 0;
}
