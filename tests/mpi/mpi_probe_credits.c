/*
 * A probe (or a receive) for a message sent behind a flood the receiver has
 * not received yet (issue 14): rank s sends N blocking 8 B messages with
 * tag 1, then one with tag 99, to rank r, which first probes for (s, 99),
 * then receives everything. MPI 3.1 3.8.1: a probe returns once a matching
 * send has started, so the sends ahead of it must not wait for their
 * receives although they outrun the eager credits (64 by default): they
 * complete as detached sends (docs/mpi.md, "Flow control").
 *
 * Every round: N in 63, 64, 65, 1000 (or argv[1]: one N) and each way of
 * looking for tag 99 first: MPI_Probe, an MPI_Iprobe loop, MPI_Mprobe +
 * MPI_Mrecv, an MPI_Improbe loop + MPI_Imrecv, and MPI_Recv posted first.
 * Then the N tag-1 messages arrive complete and in order.
 *
 * The order round: 600 messages of 8 B to 70000 B (blocking up to 4 KiB,
 * which is eager-sized on every transport; MPI_Isend above, so the sender
 * never waits for a receive it cannot get) on tags 1-3, then tag 99; the
 * receiver probes for 99 first, then receives tag 3 alone, then the rest
 * with MPI_ANY_TAG: each in the order sent (non-overtaking), byte-exact.
 *
 * Ranks pair up (0->1, 2->3, ...); an odd rank out, and a singleton, send
 * to themselves (the self transport).
 */
#include "tests/mpi/mpitest.h"

#include <stdint.h>

#define TAG_FLOOD 1
#define TAG_LAST  99
#define ORDER_MSGS 600
#define ORDER_BIG  70000

enum { WAY_PROBE, WAY_IPROBE, WAY_MPROBE, WAY_IMPROBE, WAY_RECV, WAY_COUNT };
static const char *const way_name[WAY_COUNT] = {"MPI_Probe", "MPI_Iprobe", "MPI_Mprobe",
                                                "MPI_Improbe", "MPI_Recv first"};

static int peer_to, peer_from;   /* whom this rank sends to / receives from */

static uint64_t flood_word(int round, int i)
{
    return (uint64_t)(uint32_t)round << 32 | (uint32_t)i;
}

static void check_last(const MPI_Status *st, uint64_t got, uint64_t want, const char *what)
{
    int count = -1;

    MPI_Get_count(st, MPI_BYTE, &count);
    EXPECT(st->MPI_SOURCE == peer_from && st->MPI_TAG == TAG_LAST && count == 8,
           "%s: status source %d tag %d count %d, expected %d, %d, 8", what, st->MPI_SOURCE,
           st->MPI_TAG, count, peer_from, TAG_LAST);
    EXPECT(got == want, "%s: tag %d message holds %#llx, expected %#llx", what, TAG_LAST,
           (unsigned long long)got, (unsigned long long)want);
}

/* Receiver side of a round: tag 99 found first, its way, then the flood. */
static void find_last(int way, int round, int n)
{
    uint64_t want = ~flood_word(round, n), got = 0;
    MPI_Status st;
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Request req;
    int flag = 0;
    char what[96];

    snprintf(what, sizeof(what), "%s, %d messages ahead", way_name[way], n);
    th_case = what;
    switch (way) {
    case WAY_PROBE:
        CHECK_RC(MPI_Probe(peer_from, TAG_LAST, MPI_COMM_WORLD, &st));
        check_last(&st, want, want, what);
        CHECK_RC(MPI_Recv(&got, 8, MPI_BYTE, peer_from, TAG_LAST, MPI_COMM_WORLD, &st));
        break;
    case WAY_IPROBE:
        while (!flag)
            CHECK_RC(MPI_Iprobe(peer_from, TAG_LAST, MPI_COMM_WORLD, &flag, &st));
        check_last(&st, want, want, what);
        CHECK_RC(MPI_Recv(&got, 8, MPI_BYTE, peer_from, TAG_LAST, MPI_COMM_WORLD, &st));
        break;
    case WAY_MPROBE:
        CHECK_RC(MPI_Mprobe(peer_from, TAG_LAST, MPI_COMM_WORLD, &msg, &st));
        check_last(&st, want, want, what);
        CHECK_RC(MPI_Mrecv(&got, 8, MPI_BYTE, &msg, &st));
        break;
    case WAY_IMPROBE:
        while (!flag)
            CHECK_RC(MPI_Improbe(peer_from, TAG_LAST, MPI_COMM_WORLD, &flag, &msg, &st));
        check_last(&st, want, want, what);
        CHECK_RC(MPI_Imrecv(&got, 8, MPI_BYTE, &msg, &req));
        CHECK_RC(MPI_Wait(&req, &st));
        break;
    default:
        CHECK_RC(MPI_Recv(&got, 8, MPI_BYTE, peer_from, TAG_LAST, MPI_COMM_WORLD, &st));
        break;
    }
    check_last(&st, got, want, what);
    for (int i = 0; i < n; i++) {
        uint64_t v = 0;
        int count = -1;

        CHECK_RC(MPI_Recv(&v, 8, MPI_BYTE, peer_from, TAG_FLOOD, MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_BYTE, &count);
        if (v != flood_word(round, i) || count != 8) {
            EXPECT(0, "%s: message %d of tag %d holds %#llx (%d bytes), expected %#llx "
                   "(out of order or corrupt)", what, i, TAG_FLOOD, (unsigned long long)v,
                   count, (unsigned long long)flood_word(round, i));
            break;
        }
    }
    th_case = NULL;
}

static void flood(int round, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t v = flood_word(round, i);

        CHECK_RC(MPI_Send(&v, 8, MPI_BYTE, peer_to, TAG_FLOOD, MPI_COMM_WORLD));
    }
}

/* One round, both sides (a rank sending to itself does both). */
static void round_run(int way, int round, int n)
{
    uint64_t last = ~flood_word(round, n);

    if (peer_to == th_rank) {
        /* to itself: a Recv posted first would wait for its own later send */
        if (way == WAY_RECV) {
            MPI_Request req;
            uint64_t got = 0;
            MPI_Status st;

            th_case = "MPI_Irecv first, to itself";
            CHECK_RC(MPI_Irecv(&got, 8, MPI_BYTE, peer_from, TAG_LAST, MPI_COMM_WORLD, &req));
            flood(round, n);
            CHECK_RC(MPI_Send(&last, 8, MPI_BYTE, peer_to, TAG_LAST, MPI_COMM_WORLD));
            CHECK_RC(MPI_Wait(&req, &st));
            check_last(&st, got, last, "MPI_Irecv first, to itself");
            for (int i = 0; i < n; i++) {
                uint64_t v = 0;

                CHECK_RC(MPI_Recv(&v, 8, MPI_BYTE, peer_from, TAG_FLOOD, MPI_COMM_WORLD, &st));
                EXPECT(v == flood_word(round, i), "to itself: message %d out of order", i);
            }
            th_case = NULL;
            return;
        }
        flood(round, n);
        CHECK_RC(MPI_Send(&last, 8, MPI_BYTE, peer_to, TAG_LAST, MPI_COMM_WORLD));
        find_last(way, round, n);
        return;
    }
    if (peer_to >= 0) {
        flood(round, n);
        CHECK_RC(MPI_Send(&last, 8, MPI_BYTE, peer_to, TAG_LAST, MPI_COMM_WORLD));
    } else {
        find_last(way, round, n);
    }
}

static size_t order_size(int i)
{
    static const size_t sizes[8] = {8, 8, 1000, 8, 4096, 8, ORDER_BIG, 0};

    return sizes[i % 8];
}

static int order_tag(int i)
{
    return 1 + i % 3;
}

static unsigned char order_byte(int i, size_t off)
{
    return (unsigned char)(i * 131 + off * 7 + 1);
}

static MPI_Request order_reqs[ORDER_MSGS];
static int order_nreq;

/* The big ones each from a buffer of its own (i / 8: one in 8 is big),
 * still being sent when this returns; the rest from small, reused. */
static void order_sender(char *big, char *small)
{
    order_nreq = 0;
    for (int i = 0; i < ORDER_MSGS; i++) {
        size_t len = order_size(i);
        char *b = len > 4096 ? big + (size_t)(i / 8) * ORDER_BIG : small;

        for (size_t k = 0; k < len; k++)
            b[k] = (char)order_byte(i, k);
        if (len > 4096)
            CHECK_RC(MPI_Isend(b, (int)len, MPI_BYTE, peer_to, order_tag(i), MPI_COMM_WORLD,
                               &order_reqs[order_nreq++]));
        else
            CHECK_RC(MPI_Send(b, (int)len, MPI_BYTE, peer_to, order_tag(i), MPI_COMM_WORLD));
    }
    CHECK_RC(MPI_Send(small, 0, MPI_BYTE, peer_to, TAG_LAST, MPI_COMM_WORLD));
}

static void order_check_one(int i, const char *b, const MPI_Status *st)
{
    size_t len = order_size(i);
    int count = -1;

    MPI_Get_count(st, MPI_BYTE, &count);
    if (st->MPI_TAG != order_tag(i) || count != (int)len) {
        EXPECT(0, "order: message %d: tag %d, %d bytes; expected tag %d, %zu bytes "
               "(overtaken)", i, st->MPI_TAG, count, order_tag(i), len);
        return;
    }
    for (size_t k = 0; k < len; k++) {
        if ((unsigned char)b[k] != order_byte(i, k)) {
            EXPECT(0, "order: message %d (tag %d, %zu bytes): byte %zu is %#x, expected %#x",
                   i, order_tag(i), len, k, (unsigned char)b[k], order_byte(i, k));
            return;
        }
    }
}

static void order_receiver(char *buf)
{
    MPI_Status st;
    int count = -1;

    th_case = "order";
    CHECK_RC(MPI_Probe(peer_from, TAG_LAST, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_BYTE, &count);
    EXPECT(st.MPI_TAG == TAG_LAST && count == 0, "order: probe found tag %d, %d bytes",
           st.MPI_TAG, count);
    /* tag 3 alone: its messages in their order, past those of tags 1-2 */
    for (int i = 0; i < ORDER_MSGS; i++) {
        if (order_tag(i) != 3)
            continue;
        CHECK_RC(MPI_Recv(buf, ORDER_BIG, MPI_BYTE, peer_from, 3, MPI_COMM_WORLD, &st));
        order_check_one(i, buf, &st);
    }
    /* the rest, any tag: exactly in the order sent, tag 99 last */
    for (int i = 0; i < ORDER_MSGS; i++) {
        if (order_tag(i) == 3)
            continue;
        CHECK_RC(MPI_Recv(buf, ORDER_BIG, MPI_BYTE, peer_from, MPI_ANY_TAG, MPI_COMM_WORLD,
                          &st));
        order_check_one(i, buf, &st);
    }
    CHECK_RC(MPI_Recv(buf, ORDER_BIG, MPI_BYTE, peer_from, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    EXPECT(st.MPI_TAG == TAG_LAST, "order: the last message has tag %d, expected %d",
           st.MPI_TAG, TAG_LAST);
    th_case = NULL;
}

static void order_round(void)
{
    char *big = NULL, *small = NULL, *rbuf = NULL;

    if (peer_to >= 0) {
        big = malloc((size_t)(ORDER_MSGS / 8 + 1) * ORDER_BIG);
        small = malloc(4096);
        CHECK(big != NULL && small != NULL, "no memory");
        order_sender(big, small);
    }
    if (peer_from >= 0) {
        rbuf = malloc(ORDER_BIG);
        CHECK(rbuf != NULL, "no memory");
        order_receiver(rbuf);
    }
    if (peer_to >= 0)
        CHECK_RC(MPI_Waitall(order_nreq, order_reqs, MPI_STATUSES_IGNORE));
    free(big);
    free(small);
    free(rbuf);
}

int main(int argc, char **argv)
{
    static const int counts[] = {63, 64, 65, 1000};
    int one = argc > 1 ? atoi(argv[1]) : 0;
    int round = 0;

    mt_init(&argc, &argv);
    peer_to = peer_from = -1;
    if (th_rank % 2 == 0 && th_rank + 1 < th_size)
        peer_to = th_rank + 1;
    else if (th_rank % 2 == 1)
        peer_from = th_rank - 1;
    else
        peer_to = peer_from = th_rank;
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
        int n = one > 0 ? one : counts[c];

        for (int way = 0; way < WAY_COUNT; way++) {
            round_run(way, round++, n);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        if (one > 0)
            break;
    }
    order_round();
    return mt_finish("mpi_probe_credits");
}
