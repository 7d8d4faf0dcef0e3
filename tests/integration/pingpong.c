/*
 * Ping-pong of every power of two from 0 B to 16 MiB, plus sizes one byte
 * either side of every protocol switch point: the defaults (4 KiB eager,
 * 256 KiB CMA), the neighbouring powers that a tuned machine might use, and
 * the values of RTM_SHM_EAGER_LIMIT / RTM_SHM_CMA_THRESHOLD /
 * RTM_SHM_CMA_SPLIT when the driver sets them. Ranks pair up (0-1, 2-3, ...); an odd rank out ping-pongs with
 * itself. Every byte is checked, and a canary after the receive buffer
 * catches a receive that writes past the message.
 *
 * Usage: pingpong [max_bytes]   (default 16 MiB)
 */
#include "config.h"

#include "itest.h"

#define MAX_SIZES 128

static size_t sizes[MAX_SIZES];
static int nsizes;

static void add_size(size_t s, size_t max)
{
    if (s > max || nsizes == MAX_SIZES)
        return;
    for (int i = 0; i < nsizes; i++)
        if (sizes[i] == s)
            return;
    sizes[nsizes++] = s;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;

    return x < y ? -1 : x > y;
}

static void add_around(size_t s, size_t max)
{
    if (s == 0)
        return;
    add_size(s - 1, max);
    add_size(s, max);
    add_size(s + 1, max);
}

static void build_sizes(size_t max)
{
    static const size_t switches[] = { 4096, 8192, 32768, 65536, 262144, 1048576 };

    add_size(0, max);
    for (size_t s = 1; s <= max; s <<= 1)
        add_size(s, max);
    for (size_t i = 0; i < sizeof(switches) / sizeof(switches[0]); i++)
        add_around(switches[i], max);
    /* The driver runs us again with other switch points; test around them. */
    add_around(itest_parse_size(getenv("RTM_SHM_EAGER_LIMIT")), max);
    add_around(itest_parse_size(getenv("RTM_SHM_CMA_THRESHOLD")), max);
    /* around the split-read threshold (shm_split.c; 1 MiB + 1 is 5 chunks,
     * the last of one byte) */
    add_around(itest_parse_size(getenv("RTM_SHM_CMA_SPLIT")), max);
    add_size(max, max);
    qsort(sizes, (size_t)nsizes, sizeof(sizes[0]), cmp_size);
}

static uint32_t seed_of(int sender, int index, int iter)
{
    return (uint32_t)(sender * 1000003 + index * 131 + iter * 7 + 1);
}

static void recv_checked(uint8_t *rbuf, size_t size, int src, int tag, int index, int iter,
                         int use_irecv)
{
    rtm_msg_status_t st;
    char what[160];

    memset(rbuf, 0, size);
    itest_set_canary(rbuf, size);
    memset(&st, 0x5a, sizeof(st));
    if (use_irecv) {
        rtm_request_t req;

        CHECK_RTM(rtm_irecv(rbuf, size + ITEST_CANARY_LEN, src, tag, RTM_COMM_WORLD, &req));
        CHECK_RTM(rtm_wait(&req, &st));
        CHECK(req == RTM_REQUEST_NULL, "wait did not reset the request handle");
    } else {
        /* Post a buffer larger than the message: the canary region must
         * stay untouched, so a receive writing too much is caught. */
        CHECK_RTM(rtm_recv(rbuf, size + ITEST_CANARY_LEN, src, tag, RTM_COMM_WORLD, &st));
    }
    snprintf(what, sizeof(what), "message from rank %d (tag %d, iteration %d)", src, tag,
             iter);
    CHECK(st.source == src && st.tag == tag && st.count == size && st.error == RTM_OK,
           "%s: status source %d tag %d count %zu error %d, expected %d/%d/%zu/0", what,
           st.source, st.tag, st.count, (int)st.error, src, tag, size);
    itest_check(rbuf, size, seed_of(src, index, iter), what);
    itest_check_canary(rbuf, size, what);
}

int main(int argc, char **argv)
{
    size_t max = 16u << 20;
    int partner;
    uint8_t *sbuf, *rbuf;
    double t0;

    if (argc > 1)
        max = itest_parse_size(argv[1]);
    itest_init("pingpong");
    build_sizes(max);

    partner = th_rank ^ 1;
    if (partner >= th_size)
        partner = th_rank;   /* odd rank out: ping-pong with itself */

    sbuf = itest_malloc(max);
    rbuf = itest_malloc(max + ITEST_CANARY_LEN);
    t0 = itest_now();

    for (int i = 0; i < nsizes; i++) {
        size_t size = sizes[i];
        int tag = 1000 + i;

        for (int iter = 0; iter < 2; iter++) {
            if (partner == th_rank) {
                rtm_request_t sreq;

                itest_fill(sbuf, size, seed_of(th_rank, i, iter));
                CHECK_RTM(rtm_isend(sbuf, size, th_rank, tag, RTM_COMM_WORLD, &sreq));
                recv_checked(rbuf, size, th_rank, tag, i, iter, iter);
                CHECK_RTM(rtm_wait(&sreq, RTM_STATUS_IGNORE));
            } else if (th_rank < partner) {
                /* ping, then wait for the pong */
                itest_fill(sbuf, size, seed_of(th_rank, i, iter));
                CHECK_RTM(rtm_send(sbuf, size, partner, tag, RTM_COMM_WORLD));
                recv_checked(rbuf, size, partner, tag, i, iter, iter);
            } else {
                recv_checked(rbuf, size, partner, tag, i, iter, !iter);
                itest_fill(sbuf, size, seed_of(th_rank, i, iter));
                CHECK_RTM(rtm_send(sbuf, size, partner, tag, RTM_COMM_WORLD));
            }
        }
    }
    printf("pingpong: rank %d <-> rank %d: %d sizes from %zu to %zu B checked in %.2f s\n",
           th_rank, partner, nsizes, sizes[0], sizes[nsizes - 1], itest_now() - t0);
    free(sbuf);
    free(rbuf);
    return itest_finish();
}
