/*
 * SRQ exhaustion under a flood (vrb_flood.sh): every rank but 0 posts
 * MSGS eager messages to rank 0 at once, of varying sizes, while rank 0
 * sleeps, so its receive side runs out of room (tiny credits, and softib
 * NAKs the first sends with RNR as an empty SRQ does). Then rank 0 receives
 * them all with wildcards and checks each one byte for byte and that each
 * sender's messages arrive in the order sent: nothing lost, duplicated,
 * reordered or corrupted.
 */
#include "config.h"

#include "rtmsg.h"
#include "../integration/itest.h"

#include <unistd.h>

#define MAXLEN 4000

static size_t msg_len(int src, int i)
{
    return 1 + ((size_t)i * 37 + (size_t)src * 101) % MAXLEN;
}

int main(int argc, char **argv)
{
    int rank, size, msgs = argc > 1 ? atoi(argv[1]) : 2000;

    itest_begin("vrb_flood");
    CHECK_RTM(rtm_init());
    CHECK_RTM(rtm_comm_rank(RTM_COMM_WORLD, &rank));
    CHECK_RTM(rtm_comm_size(RTM_COMM_WORLD, &size));
    th_rank = rank;
    th_size = size;
    if (size < 2 || msgs < 1)
        TH_FAIL("run with 2 or more ranks and a positive message count");
    if (rank == 0) {
        int *next = calloc((size_t)size, sizeof(int));
        char *buf = malloc(MAXLEN);
        long total = (long)msgs * (size - 1);

        if (next == NULL || buf == NULL)
            TH_FAIL("no memory");
        sleep(2);   /* let the senders run into every limit */
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
        printf("vrb_flood: %ld messages from %d senders received intact and in order\n",
               total, size - 1);
        free(next);
        free(buf);
    } else {
        rtm_request_t *reqs = calloc((size_t)msgs, sizeof(*reqs));
        char *data = malloc((size_t)msgs * MAXLEN);

        if (reqs == NULL || data == NULL)
            TH_FAIL("no memory");
        for (int i = 0; i < msgs; i++) {
            char *b = data + (size_t)i * MAXLEN;

            itest_fill(b, msg_len(rank, i), (uint32_t)(rank * 100000 + i));
            CHECK_RTM(rtm_isend(b, msg_len(rank, i), 0, i, RTM_COMM_WORLD, &reqs[i]));
        }
        CHECK_RTM(rtm_waitall(msgs, reqs, NULL));
        free(reqs);
        free(data);
    }
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    CHECK_RTM(rtm_finalize());
    return 0;
}
