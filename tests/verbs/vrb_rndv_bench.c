/*
 * vrb_rndv_bench: rendezvous figures for the registration cache (not a
 * test: it prints figures; docs/transports/verbs-rcache.md has them).
 *
 *   latency    1 MiB ping-pong between ranks 0 and 1 (each way a
 *              rendezvous: RTS, RDMA Read, FIN) from and into the same
 *              buffers every time; half round trip, median of REPS runs
 *              of ITERS round trips
 *   bandwidth  rank 0 keeps WINDOW 1 MiB rtm_isend in flight from WINDOW
 *              buffers (the same ones every window), rank 1 pre-posts as
 *              many rtm_irecv and acks each window; median of REPS runs
 *
 * Run it as: RTM_TRANSPORTS=self,verbs RTM_VERBS_RCACHE=0|1 rtrun -n 2
 * tests/verbs/vrb_rndv_bench [REPS [ITERS]] (on softib: LD_PRELOAD it).
 */
#include "config.h"

#include "rtmsg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LEN    ((size_t)1 << 20)
#define WINDOW 8
#define MAXREP 64

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

#define TRY(_c) do { if ((_c) != RTM_OK) { fprintf(stderr, "%s: %s\n", #_c, \
    rtm_last_error()); rtm_abort(1, "vrb_rndv_bench failed"); } } while (0)

int main(int argc, char **argv)
{
    int rank, reps = argc > 1 ? atoi(argv[1]) : 7, iters = argc > 2 ? atoi(argv[2]) : 50;
    double lat[MAXREP], bw[MAXREP];
    char *buf[WINDOW];
    rtm_request_t req[WINDOW];
    char ack = 0;

    if (reps < 1 || reps > MAXREP || iters < 1)
        return 2;
    TRY(rtm_init());
    TRY(rtm_comm_rank(RTM_COMM_WORLD, &rank));
    for (int i = 0; i < WINDOW; i++) {
        buf[i] = malloc(LEN);
        if (buf[i] == NULL)
            return 1;
        memset(buf[i], i, LEN);
    }
    for (int r = -1; r < reps; r++) {     /* r = -1: warm-up */
        double t;

        TRY(rtm_barrier(RTM_COMM_WORLD));
        t = now();
        for (int i = 0; i < iters; i++) {
            if (rank == 0) {
                TRY(rtm_send(buf[0], LEN, 1, 1, RTM_COMM_WORLD));
                TRY(rtm_recv(buf[1], LEN, 1, 1, RTM_COMM_WORLD, NULL));
            } else if (rank == 1) {
                TRY(rtm_recv(buf[1], LEN, 0, 1, RTM_COMM_WORLD, NULL));
                TRY(rtm_send(buf[0], LEN, 0, 1, RTM_COMM_WORLD));
            }
        }
        if (r >= 0)
            lat[r] = (now() - t) / iters / 2 * 1e6;
        TRY(rtm_barrier(RTM_COMM_WORLD));
        t = now();
        for (int i = 0; i < iters / 4 + 1; i++) {
            if (rank == 0) {
                for (int w = 0; w < WINDOW; w++)
                    TRY(rtm_isend(buf[w], LEN, 1, 2, RTM_COMM_WORLD, &req[w]));
                TRY(rtm_waitall(WINDOW, req, NULL));
                TRY(rtm_recv(&ack, 1, 1, 3, RTM_COMM_WORLD, NULL));
            } else if (rank == 1) {
                for (int w = 0; w < WINDOW; w++)
                    TRY(rtm_irecv(buf[w], LEN, 0, 2, RTM_COMM_WORLD, &req[w]));
                TRY(rtm_waitall(WINDOW, req, NULL));
                TRY(rtm_send(&ack, 1, 0, 3, RTM_COMM_WORLD));
            }
        }
        if (r >= 0)
            bw[r] = (double)LEN * WINDOW * (iters / 4 + 1) / (now() - t) / 1e9;
    }
    if (rank == 0) {
        qsort(lat, (size_t)reps, sizeof(double), cmp);
        qsort(bw, (size_t)reps, sizeof(double), cmp);
        printf("RESULT rndv_lat_1MiB_us median %.1f min %.1f max %.1f\n", lat[reps / 2], lat[0],
               lat[reps - 1]);
        printf("RESULT rndv_bw_1MiB_GBs median %.2f min %.2f max %.2f\n", bw[reps / 2], bw[0],
               bw[reps - 1]);
    }
    for (int i = 0; i < WINDOW; i++)
        free(buf[i]);
    TRY(rtm_finalize());
    return 0;
}
