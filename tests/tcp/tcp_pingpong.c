/*
 * A real rtmsg job over the tcp transport (run with RTM_TRANSPORTS=self,tcp,
 * see tcp_pingpong.sh). Uses only rtmsg.h.
 *   check (default)  rank 0 ping-pongs with every other rank, sizes 0 B to
 *                    16 MiB (powers of two and their neighbours), every byte
 *                    checked both ways; then every rank streams 600 messages
 *                    of mixed sizes (eager and rendezvous) to the next rank
 *                    in a ring, non-blocking, and the receiver checks they
 *                    arrive in order and intact.
 *   bench [SIZE...]  ranks 0 and 1: ping-pong half round trip at 8 B and
 *                    1 MiB, or at the sizes given (median of repetitions),
 *                    printed as RESULT lines.
 */
#include "config.h"

#include "rtmsg.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZE (16u << 20)
#define NSTREAM  600
#define WINDOW   50
#define TAG_PP   1
#define TAG_ORD  2

static int rank, size;

#define TRY(call) \
    do { \
        rtm_status_t st_ = (call); \
        if (st_ != RTM_OK) { \
            fprintf(stderr, "rank %d: %s failed: %s (%s)\n", rank, #call, rtm_strerror(st_), \
                    rtm_last_error()); \
            rtm_abort(1, "tcp_pingpong failed"); \
        } \
    } while (0)

static void fail(const char *fmt, size_t a, size_t b, size_t c)
{
    fprintf(stderr, "rank %d: FAIL: ", rank);
    fprintf(stderr, fmt, a, b, c);
    fprintf(stderr, "\n");
    rtm_abort(1, "tcp_pingpong: data check failed");
}

static unsigned char byte_of(uint32_t seed, size_t i)
{
    uint32_t x = seed * 2654435761u + (uint32_t)i * 40503u;

    return (unsigned char)(x ^ (x >> 13) ^ (i >> 8));
}

static void fill(unsigned char *buf, size_t len, uint32_t seed)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = byte_of(seed, i);
}

static void check_from(const unsigned char *buf, size_t from, size_t len, uint32_t seed,
                       size_t what)
{
    for (size_t i = from; i < len; i++)
        if (buf[i] != byte_of(seed, i))
            fail("message of %zu B (case %zu): byte %zu differs", len, what, i);
}

static void check(const unsigned char *buf, size_t len, uint32_t seed, size_t what)
{
    check_from(buf, 0, len, seed, what);
}

static void pingpong_check(unsigned char *sbuf, unsigned char *rbuf)
{
    size_t sizes[96];
    int n = 0;

    sizes[n++] = 0;
    for (size_t s = 1; s <= MAX_SIZE; s *= 2) {
        if (s > 2)
            sizes[n++] = s - 1;
        sizes[n++] = s;
        if (s < MAX_SIZE)
            sizes[n++] = s + 1;
    }
    for (int peer = 1; peer < size; peer++) {
        for (int i = 0; i < n; i++) {
            size_t len = sizes[i];
            rtm_msg_status_t st;

            if (rank == 0) {
                fill(sbuf, len, (uint32_t)(peer * 1000 + i));
                TRY(rtm_send(sbuf, len, peer, TAG_PP, RTM_COMM_WORLD));
                memset(rbuf, 0, len + 1);
                TRY(rtm_recv(rbuf, MAX_SIZE, peer, TAG_PP, RTM_COMM_WORLD, &st));
                if (st.count != len)
                    fail("reply to %zu B has %zu B (case %zu)", len, st.count, (size_t)i);
                check(rbuf, len, (uint32_t)(peer * 1000 + i + 500), (size_t)i);
            } else if (rank == peer) {
                TRY(rtm_recv(rbuf, MAX_SIZE, 0, TAG_PP, RTM_COMM_WORLD, &st));
                if (st.count != len)
                    fail("ping of %zu B arrived with %zu B (case %zu)", len, st.count, (size_t)i);
                check(rbuf, len, (uint32_t)(peer * 1000 + i), (size_t)i);
                fill(sbuf, len, (uint32_t)(peer * 1000 + i + 500));
                TRY(rtm_send(sbuf, len, 0, TAG_PP, RTM_COMM_WORLD));
            }
        }
    }
    if (rank == 0)
        printf("tcp_pingpong: ping-pong 0..%u B with %d peer(s): %d sizes checked both ways\n",
               MAX_SIZE, size - 1, n);
}

/* Mixed sizes: mostly small (eager), some around the eager limit, some
 * rendezvous (several 64 KiB fragments). */
static size_t stream_len(int seq)
{
    if (seq % 40 == 39)
        return 300000 + (size_t)seq;
    if (seq % 10 == 5)
        return 32768 + (size_t)(seq % 3) - 1;
    return 8 + (size_t)(seq * 37 % 500);
}

static void stream_order(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    unsigned char *sbufs = malloc((size_t)WINDOW * 310000);
    unsigned char *rbufs = malloc((size_t)WINDOW * 310000);

    if (sbufs == NULL || rbufs == NULL)
        rtm_abort(1, "tcp_pingpong: no memory");
    for (int base = 0; base < NSTREAM; base += WINDOW) {
        rtm_request_t sreq[WINDOW], rreq[WINDOW];
        rtm_msg_status_t st[WINDOW];

        for (int i = 0; i < WINDOW; i++) {
            unsigned char *rb = rbufs + (size_t)i * 310000;

            /* odd windows: receives posted late, messages arrive unexpected */
            if ((base / WINDOW) % 2 == 0)
                TRY(rtm_irecv(rb, 310000, prev, TAG_ORD, RTM_COMM_WORLD, &rreq[i]));
        }
        for (int i = 0; i < WINDOW; i++) {
            int seq = base + i;
            unsigned char *sb = sbufs + (size_t)i * 310000;
            size_t len = stream_len(seq);

            fill(sb, len, (uint32_t)(rank * 100000 + seq));
            memcpy(sb, &seq, sizeof(seq));
            TRY(rtm_isend(sb, len, next, TAG_ORD, RTM_COMM_WORLD, &sreq[i]));
        }
        if ((base / WINDOW) % 2 == 1)
            for (int i = 0; i < WINDOW; i++)
                TRY(rtm_irecv(rbufs + (size_t)i * 310000, 310000, prev, TAG_ORD, RTM_COMM_WORLD,
                              &rreq[i]));
        TRY(rtm_waitall(WINDOW, rreq, st));
        for (int i = 0; i < WINDOW; i++) {
            int seq = base + i, got;
            unsigned char *rb = rbufs + (size_t)i * 310000;
            size_t len = stream_len(seq);

            memcpy(&got, rb, sizeof(got));
            if (got != seq || st[i].count != len)
                fail("ordering: message %zu arrived as number %zu with %zu B", (size_t)seq,
                     (size_t)got, st[i].count);
            check_from(rb, sizeof(int), len, (uint32_t)(prev * 100000 + seq), (size_t)seq);
        }
        TRY(rtm_waitall(WINDOW, sreq, RTM_STATUSES_IGNORE));
    }
    free(sbufs);
    free(rbufs);
    if (rank == 0)
        printf("tcp_pingpong: ring of %d: %d messages per rank in order and intact\n", size,
               NSTREAM);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double pp_half_rtt_us(unsigned char *buf, size_t len, int iters)
{
    double t0 = 0;

    for (int i = -iters / 10 - 1; i < iters; i++) {
        if (i == 0)
            t0 = rtm_wtime();
        if (rank == 0) {
            TRY(rtm_send(buf, len, 1, TAG_PP, RTM_COMM_WORLD));
            TRY(rtm_recv(buf, len, 1, TAG_PP, RTM_COMM_WORLD, RTM_STATUS_IGNORE));
        } else {
            TRY(rtm_recv(buf, len, 0, TAG_PP, RTM_COMM_WORLD, RTM_STATUS_IGNORE));
            TRY(rtm_send(buf, len, 0, TAG_PP, RTM_COMM_WORLD));
        }
    }
    return (rtm_wtime() - t0) / iters / 2 * 1e6;
}

static void bench_size(unsigned char *buf, size_t len)
{
    enum { REPS = 7 };
    double t[REPS];

    for (int r = 0; r < REPS; r++)
        t[r] = pp_half_rtt_us(buf, len, len < 65536 ? 1000 : 100);
    qsort(t, REPS, sizeof(double), cmp_double);
    if (rank == 0)
        printf("RESULT tcp size %zu half_rtt_us %.2f GBps %.3f\n", len, t[REPS / 2],
               (double)len / t[REPS / 2] / 1e3);
}

static void bench(unsigned char *buf, int argc, char **argv)
{
    enum { REPS = 7 };
    double lat[REPS], big[REPS];

    if (rank > 1)
        return;
    if (argc > 2) {
        for (int i = 2; i < argc; i++)
            bench_size(buf, (size_t)strtoul(argv[i], NULL, 0));
        return;
    }
    for (int r = 0; r < REPS; r++) {
        lat[r] = pp_half_rtt_us(buf, 8, 5000);
        big[r] = pp_half_rtt_us(buf, 1u << 20, 100);
    }
    qsort(lat, REPS, sizeof(double), cmp_double);
    qsort(big, REPS, sizeof(double), cmp_double);
    if (rank == 0) {
        printf("RESULT tcp latency_8B_us %.2f\n", lat[REPS / 2]);
        printf("RESULT tcp pingpong_1MiB_us %.1f bandwidth_GBps %.2f\n", big[REPS / 2],
               (double)(1u << 20) / big[REPS / 2] / 1e3);
    }
}

int main(int argc, char **argv)
{
    unsigned char *sbuf, *rbuf;

    TRY(rtm_init());
    TRY(rtm_comm_rank(RTM_COMM_WORLD, &rank));
    TRY(rtm_comm_size(RTM_COMM_WORLD, &size));
    sbuf = malloc(MAX_SIZE + 1);
    rbuf = malloc(MAX_SIZE + 1);
    if (sbuf == NULL || rbuf == NULL)
        rtm_abort(1, "tcp_pingpong: no memory");
    if (argc > 1 && !strcmp(argv[1], "bench")) {
        bench(sbuf, argc, argv);
    } else {
        pingpong_check(sbuf, rbuf);
        TRY(rtm_barrier(RTM_COMM_WORLD));
        stream_order();
    }
    TRY(rtm_barrier(RTM_COMM_WORLD));
    free(sbuf);
    free(rbuf);
    TRY(rtm_finalize());
    return 0;
}
