/*
 * osu_coll: collective latency by message size, in the manner of the OSU
 * Micro-Benchmarks (from their published descriptions, not their code).
 * MPI API only: builds with any mpicc. Any number of ranks.
 *
 *   barrier    MPI_Barrier (reported as size 0)
 *   bcast      MPI_Bcast of SIZE bytes (MPI_CHAR) from rank 0
 *   reduce     MPI_Reduce of SIZE bytes (MPI_FLOAT, MPI_SUM) to rank 0
 *   allreduce  MPI_Allreduce of SIZE bytes (MPI_FLOAT, MPI_SUM)
 *   allgather  MPI_Allgather, SIZE bytes contributed by each rank
 *   alltoall   MPI_Alltoall, SIZE bytes sent to each rank
 *   sendrecv   MPI_Sendrecv of SIZE bytes to the next rank, from the
 *              previous one (a ring, as the Intel MPI Benchmarks' Sendrecv)
 *
 * Each repetition: a barrier, then ITERS back-to-back calls timed on every
 * rank; the sample is the mean over ranks of the per-call time, in
 * microseconds. The reported value is the median over the repetitions.
 * The first allreduce result of each size is checked against the expected
 * sum so a broken reduction shows up as an error, not a figure.
 *
 * Usage: mpirun -n N osu_coll [-t barrier,bcast,...] [-s 8,1024,...] [-r REPS]
 *                             [-i ITERS]
 * -i fixes the calls per repetition (default: about 32 MiB per rank per
 * repetition, 20..5000 calls); oversubscribed runs need far fewer.
 * Output: one line per measurement, see bench_common.h.
 */
#define _GNU_SOURCE
#include "bench_common.h"

#include <unistd.h>

#define MAX_SIZES 32

enum op { OP_BARRIER, OP_BCAST, OP_REDUCE, OP_ALLREDUCE, OP_ALLGATHER, OP_ALLTOALL, OP_SENDRECV,
          OP_COUNT };
static const char *const op_names[OP_COUNT] = {
    "barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall", "sendrecv",
};

static int rank, nranks;
static char *sbuf, *rbuf;

static void run_op(enum op op, long size)
{
    int count = (int)(size / (long)sizeof(float));

    switch (op) {
    case OP_BARRIER:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    case OP_BCAST:
        MPI_Bcast(sbuf, (int)size, MPI_CHAR, 0, MPI_COMM_WORLD);
        break;
    case OP_REDUCE:
        MPI_Reduce(sbuf, rbuf, count, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
    case OP_ALLREDUCE:
        MPI_Allreduce(sbuf, rbuf, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case OP_ALLGATHER:
        MPI_Allgather(sbuf, (int)size, MPI_CHAR, rbuf, (int)size, MPI_CHAR, MPI_COMM_WORLD);
        break;
    case OP_ALLTOALL:
        MPI_Alltoall(sbuf, (int)size, MPI_CHAR, rbuf, (int)size, MPI_CHAR, MPI_COMM_WORLD);
        break;
    case OP_SENDRECV:
        MPI_Sendrecv(sbuf, (int)size, MPI_CHAR, (rank + 1) % nranks, 5, rbuf, (int)size, MPI_CHAR,
                     (rank + nranks - 1) % nranks, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    case OP_COUNT:
        break;
    }
}

static double time_op(enum op op, long size, long iters)
{
    double t0, local, sum = 0;

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++)
        run_op(op, size);
    local = (MPI_Wtime() - t0) / (double)iters * 1e6;
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    return sum / nranks;
}

static void check_allreduce(long size)
{
    float *in = (float *)sbuf, *out = (float *)rbuf;
    int count = (int)(size / (long)sizeof(float));
    float want = (float)(nranks * (nranks + 1) / 2);

    for (int i = 0; i < count; i++)
        in[i] = (float)(rank + 1);
    MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < count; i++) {
        if (out[i] != want) {
            fprintf(stderr, "osu_coll: rank %d: allreduce of %ld bytes: element %d is %g, want %g\n",
                    rank, size, i, (double)out[i], (double)want);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
}

static int wanted(const char *list, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *tests = "barrier,bcast,reduce,allreduce,allgather,alltoall,sendrecv";
    char *sizes_arg = NULL;
    long sizes[MAX_SIZES] = { 8, 1024, 65536, 1048576 }, max_size = 0;
    int nsizes = 4, reps = 5, opt;
    long fixed_iters = 0;
    double samples[BENCH_MAX_REPS];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    while ((opt = getopt(argc, argv, "t:s:r:i:")) != -1) {
        switch (opt) {
        case 't': tests = optarg; break;
        case 's': sizes_arg = optarg; break;
        case 'r': reps = bench_atoi_arg("osu_coll", "-r", optarg, 1, BENCH_MAX_REPS); break;
        case 'i': fixed_iters = bench_atoi_arg("osu_coll", "-i", optarg, 1, 1000000); break;
        default:
            if (rank == 0)
                fprintf(stderr, "usage: osu_coll [-t barrier,bcast,reduce,allreduce,allgather,alltoall,sendrecv] "
                        "[-s SIZE,SIZE,...] [-r REPS] [-i ITERS]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (sizes_arg != NULL) {
        nsizes = 0;
        for (char *tok = strtok(sizes_arg, ","); tok != NULL; tok = strtok(NULL, ",")) {
            if (nsizes == MAX_SIZES) {
                if (rank == 0)
                    fprintf(stderr, "osu_coll: at most %d sizes\n", MAX_SIZES);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            /* multiples of sizeof(float) so reductions cover every byte */
            sizes[nsizes] = bench_atoi_arg("osu_coll", "-s", tok, 4, 1 << 26);
            if (sizes[nsizes] % 4 != 0) {
                if (rank == 0)
                    fprintf(stderr, "osu_coll: sizes must be multiples of 4, got %ld\n", sizes[nsizes]);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            nsizes++;
        }
    }
    for (int s = 0; s < nsizes; s++)
        if (sizes[s] > max_size)
            max_size = sizes[s];
    /* allgather/alltoall need SIZE per rank in the receive (and send) buffer */
    sbuf = bench_alloc((size_t)max_size * (size_t)nranks);
    rbuf = bench_alloc((size_t)max_size * (size_t)nranks);

    for (int o = 0; o < OP_COUNT; o++) {
        if (!wanted(tests, op_names[o]))
            continue;
        for (int s = 0; s < (o == OP_BARRIER ? 1 : nsizes); s++) {
            long size = o == OP_BARRIER ? 0 : sizes[s];
            /* about 32 MiB per rank per repetition, 20..5000 calls */
            long iters = fixed_iters > 0 ? fixed_iters : bench_iters(size, 32L << 20, 20, 5000);

            if (o == OP_ALLREDUCE)
                check_allreduce(size);
            time_op((enum op)o, size, iters / 10 + 1);
            for (int r = 0; r < reps; r++)
                samples[r] = time_op((enum op)o, size, iters);
            if (rank == 0)
                bench_report(op_names[o], size, samples, reps, iters, "us");
        }
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
