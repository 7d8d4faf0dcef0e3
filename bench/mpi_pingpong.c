/*
 * mpi_pingpong: bench/rtm_pingpong.c written against MPI only, so the same
 * measurement runs on Open MPI, MPICH or librtmsg's MPI binding. Build with
 * any mpicc (bench/compare.sh uses mpicc.openmpi and mpicc.mpich).
 *
 *   latency    half round trip of an 8 B ping-pong (MPI_Send/MPI_Recv),
 *              warmup, median of several repetitions of many round trips
 *   bandwidth  window of 64 MPI_Isend (64 KiB, 1 MiB) against 64
 *              pre-posted MPI_Irecv, a 1-byte ack per window; median
 *
 * Usage: mpirun -n 2 mpi_pingpong [-r REPS] [-i LAT_ITERS] [-w WINDOW] [-n NAME]
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_REPS 64

static int rank;

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

static double pingpong(char *buf, int len, int iters)
{
    double t0 = MPI_Wtime();

    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(buf, len, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, len, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, len, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, len, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

static double stream(char *buf, int len, int window, int iters, MPI_Request *reqs)
{
    char ack = 0;
    double t0 = MPI_Wtime();

    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            for (int k = 0; k < window; k++)
                MPI_Isend(buf, len, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &reqs[k]);
            MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int k = 0; k < window; k++)
                MPI_Irecv(buf, len, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &reqs[k]);
            MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
            MPI_Send(&ack, 1, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
    int size, reps = 9, lat_iters = 20000, window = 64, opt;
    const char *name = "mpi";
    static const int bw_sizes[] = { 65536, 1 << 20 };
    double samples[MAX_REPS];
    MPI_Request *reqs;
    char *buf;

    MPI_Init(&argc, &argv);
    while ((opt = getopt(argc, argv, "r:i:w:n:")) != -1) {
        switch (opt) {
        case 'r': reps = atoi(optarg); break;
        case 'i': lat_iters = atoi(optarg); break;
        case 'w': window = atoi(optarg); break;
        case 'n': name = optarg; break;
        default:
            fprintf(stderr, "usage: mpi_pingpong [-r REPS] [-i LAT_ITERS] [-w WINDOW] [-n NAME]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (reps < 1 || reps > MAX_REPS || lat_iters < 1 || window < 1) {
        fprintf(stderr, "mpi_pingpong: REPS must be 1-%d, LAT_ITERS and WINDOW >= 1\n", MAX_REPS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "mpi_pingpong: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    buf = malloc(1u << 20);
    reqs = malloc((size_t)window * sizeof(*reqs));
    if (buf == NULL || reqs == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(buf, 1, 1u << 20);

    if (rank < 2) {
        pingpong(buf, 8, lat_iters / 4 + 1);
        for (int r = 0; r < reps; r++)
            samples[r] = pingpong(buf, 8, lat_iters) / (2.0 * lat_iters) * 1e6;
        if (rank == 0) {
            double med = median(samples, reps);   /* sorts: min is samples[0] */

            printf("RESULT impl=%s metric=lat_8B_us median=%.3f min=%.3f reps=%d iters=%d\n",
                   name, med, samples[0], reps, lat_iters);
        }
        for (size_t s = 0; s < sizeof(bw_sizes) / sizeof(bw_sizes[0]); s++) {
            int len = bw_sizes[s];
            int iters = len >= (1 << 20) ? 10 : 100;

            stream(buf, len, window, 2, reqs);
            for (int r = 0; r < reps; r++)
                samples[r] = (double)len * window * iters / stream(buf, len, window, iters, reqs) / 1e9;
            if (rank == 0) {
                double med = median(samples, reps);   /* sorts: max is last */

                printf("RESULT impl=%s metric=bw_%dK_GBps median=%.2f max=%.2f reps=%d window=%d\n",
                       name, len / 1024, med, samples[reps - 1], reps, window);
            }
        }
    }
    free(buf);
    free(reqs);
    MPI_Finalize();
    return 0;
}
