/*
 * rtm_pingpong: native latency and bandwidth between ranks 0 and 1.
 *
 *   latency    half round trip of an 8 B ping-pong (rtm_send/rtm_recv),
 *              after a warmup, median of several repetitions of many
 *              round trips each
 *   bandwidth  streaming: rank 0 keeps a window of 64 rtm_isend in flight
 *              (64 KiB and 1 MiB messages), rank 1 pre-posts 64 rtm_irecv
 *              and answers each window with a 1-byte ack; median of the
 *              repetitions
 *   rate       8 B message rate: the same stream with 8 B messages
 *              (millions of messages per second)
 *
 * bench/mpi_pingpong.c is the same program written against MPI, so the
 * RESULT lines of both can be compared (bench/compare.sh).
 *
 * Usage: rtrun -n 2 bench/rtm_pingpong [-r REPS] [-i LAT_ITERS] [-w WINDOW]
 *                                       [-t lat|bw|rate|all]
 *
 * `-t rate -r 1` is the run to count instructions per message under
 * callgrind (docs/benchmarks.md).
 */
#include "config.h"

#include "rtmsg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_REPS 64

static int rank;

static void die(const char *what, rtm_status_t st)
{
    fprintf(stderr, "rtm_pingpong: %s: %s (%s)\n", what, rtm_strerror(st), rtm_last_error());
    rtm_abort(1, "rtm_pingpong failed");
}

#define TRY(_c) do { rtm_status_t st_ = (_c); if (st_ != RTM_OK) die(#_c, st_); } while (0)

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Seconds for iters round trips of len bytes. */
static double pingpong(char *buf, size_t len, int iters)
{
    double t0 = rtm_wtime();

    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            TRY(rtm_send(buf, len, 1, 1, RTM_COMM_WORLD));
            TRY(rtm_recv(buf, len, 1, 1, RTM_COMM_WORLD, RTM_STATUS_IGNORE));
        } else {
            TRY(rtm_recv(buf, len, 0, 1, RTM_COMM_WORLD, RTM_STATUS_IGNORE));
            TRY(rtm_send(buf, len, 0, 1, RTM_COMM_WORLD));
        }
    }
    return rtm_wtime() - t0;
}

/* Seconds for iters windows of `window` messages of len bytes. */
static double stream(char *buf, size_t len, int window, int iters, rtm_request_t *reqs)
{
    char ack = 0;
    double t0 = rtm_wtime();

    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            for (int k = 0; k < window; k++)
                TRY(rtm_isend(buf, len, 1, 2, RTM_COMM_WORLD, &reqs[k]));
            TRY(rtm_waitall(window, reqs, RTM_STATUSES_IGNORE));
            TRY(rtm_recv(&ack, 1, 1, 3, RTM_COMM_WORLD, RTM_STATUS_IGNORE));
        } else {
            for (int k = 0; k < window; k++)
                TRY(rtm_irecv(buf, len, 0, 2, RTM_COMM_WORLD, &reqs[k]));
            TRY(rtm_waitall(window, reqs, RTM_STATUSES_IGNORE));
            TRY(rtm_send(&ack, 1, 0, 3, RTM_COMM_WORLD));
        }
    }
    return rtm_wtime() - t0;
}

int main(int argc, char **argv)
{
    int size, reps = 9, lat_iters = 20000, window = 64, opt;
    const char *which = "all";
    static const size_t bw_sizes[] = { 65536, 1u << 20 };
    double samples[MAX_REPS];
    rtm_request_t *reqs;
    char *buf;

    while ((opt = getopt(argc, argv, "r:i:w:t:")) != -1) {
        switch (opt) {
        case 'r': reps = atoi(optarg); break;
        case 'i': lat_iters = atoi(optarg); break;
        case 'w': window = atoi(optarg); break;
        case 't': which = optarg; break;
        default:
            fprintf(stderr, "usage: rtm_pingpong [-r REPS] [-i LAT_ITERS] [-w WINDOW] "
                    "[-t lat|bw|rate|all]\n");
            return 2;
        }
    }
    if (strcmp(which, "all") != 0 && strcmp(which, "lat") != 0 && strcmp(which, "bw") != 0 &&
        strcmp(which, "rate") != 0) {
        fprintf(stderr, "rtm_pingpong: -t takes lat, bw, rate or all, not \"%s\"\n", which);
        return 2;
    }
    if (reps < 1 || reps > MAX_REPS || lat_iters < 1 || window < 1) {
        fprintf(stderr, "rtm_pingpong: REPS must be 1-%d, LAT_ITERS and WINDOW >= 1\n", MAX_REPS);
        return 2;
    }
    TRY(rtm_init());
    TRY(rtm_comm_rank(RTM_COMM_WORLD, &rank));
    TRY(rtm_comm_size(RTM_COMM_WORLD, &size));
    if (size < 2) {
        fprintf(stderr, "rtm_pingpong: needs 2 ranks (rtrun -n 2)\n");
        rtm_abort(2, "rtm_pingpong needs 2 ranks");
    }
    buf = malloc(1u << 20);
    reqs = malloc((size_t)window * sizeof(*reqs));
    if (buf == NULL || reqs == NULL)
        die("malloc", RTM_ERR_NO_MEMORY);
    memset(buf, 1, 1u << 20);

    if (rank < 2 && (strcmp(which, "all") == 0 || strcmp(which, "lat") == 0)) {
        pingpong(buf, 8, lat_iters / 4 + 1);   /* warmup */
        for (int r = 0; r < reps; r++)
            samples[r] = pingpong(buf, 8, lat_iters) / (2.0 * lat_iters) * 1e6;
        if (rank == 0) {
            double med = median(samples, reps);   /* sorts: min is samples[0] */

            printf("RESULT impl=rtmsg metric=lat_8B_us median=%.3f min=%.3f reps=%d iters=%d\n",
                   med, samples[0], reps, lat_iters);
        }
    }
    if (rank < 2 && (strcmp(which, "all") == 0 || strcmp(which, "rate") == 0)) {
        int iters = 2000;

        stream(buf, 8, window, iters / 10, reqs);   /* warmup */
        for (int r = 0; r < reps; r++)
            samples[r] = (double)window * iters / stream(buf, 8, window, iters, reqs) / 1e6;
        if (rank == 0) {
            double med = median(samples, reps);

            printf("RESULT impl=rtmsg metric=rate_8B_Mps median=%.2f max=%.2f reps=%d window=%d\n",
                   med, samples[reps - 1], reps, window);
        }
    }
    if (rank < 2 && (strcmp(which, "all") == 0 || strcmp(which, "bw") == 0)) {

        for (size_t s = 0; s < sizeof(bw_sizes) / sizeof(bw_sizes[0]); s++) {
            size_t len = bw_sizes[s];
            int iters = len >= (1u << 20) ? 10 : 100;

            stream(buf, len, window, 2, reqs);   /* warmup */
            for (int r = 0; r < reps; r++)
                samples[r] = (double)len * window * iters / stream(buf, len, window, iters, reqs) / 1e9;
            if (rank == 0) {
                double med = median(samples, reps);   /* sorts: max is last */

                printf("RESULT impl=rtmsg metric=bw_%zuK_GBps median=%.2f max=%.2f reps=%d window=%d\n",
                       len / 1024, med, samples[reps - 1], reps, window);
            }
        }
    }
    free(buf);
    free(reqs);
    TRY(rtm_finalize());
    return 0;
}
