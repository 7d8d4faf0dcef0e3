/*
 * nbc_many [N] [REPS]: N outstanding nonblocking collectives per repetition
 * (N/2 MPI_Iallreduce of one int, N/2 MPI_Ibcast of one int, interleaved),
 * then one MPI_Waitall; the data are checked. Prints the median wall time
 * of REPS repetitions per collective. Builds with any MPI's mpicc
 * (bench/nbc-many.sh runs it with ours, Open MPI and MPICH side by side,
 * or under callgrind: the function measure_rounds holds the measured part).
 *
 * This is the shape of the conformance runs that took minutes with
 * librtmsg: the cost of progressing many schedules at once, not of one.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* Kept out of line: callgrind collects this function alone. */
__attribute__((noinline)) static int measure_rounds(int n, int reps, double *t, int *in,
                                                    int *out, int *bc, MPI_Request *rq)
{
    int rank, size, bad = 0;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int rep = 0; rep < reps; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();

        for (int i = 0; i < n; i += 2) {
            in[i] = rank + i;
            MPI_Iallreduce(&in[i], &out[i], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[i]);
            bc[i] = rank == i % size ? i * 7 + rep : -1;
            MPI_Ibcast(&bc[i], 1, MPI_INT, i % size, MPI_COMM_WORLD, &rq[i + 1]);
        }
        MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
        t[rep] = MPI_Wtime() - t0;
        for (int i = 0; i < n; i += 2) {
            int want = size * (size - 1) / 2 + size * i;

            if (out[i] != want || bc[i] != i * 7 + rep)
                bad++;
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    int rank, size, bad, total_bad = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (n < 2)
        n = 2;
    n &= ~1;
    if (reps < 1)
        reps = 1;
    double *t = malloc((size_t)reps * sizeof(*t));
    int *in = malloc((size_t)n * sizeof(int)), *out = malloc((size_t)n * sizeof(int));
    int *bc = malloc((size_t)n * sizeof(int));
    MPI_Request *rq = malloc((size_t)n * sizeof(*rq));
    if (!t || !in || !out || !bc || !rq) {
        fprintf(stderr, "nbc_many: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    bad = measure_rounds(n, reps, t, in, out, bc, rq);
    MPI_Allreduce(&bad, &total_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    qsort(t, (size_t)reps, sizeof(*t), cmp_double);
    if (rank == 0)
        printf("nbc_many ranks=%d outstanding=%d reps=%d median_ms=%.3f us_per_coll=%.3f %s\n",
               size, n, reps, t[reps / 2] * 1e3, t[reps / 2] * 1e6 / n,
               total_bad ? "WRONG-DATA" : "data-ok");
    free(t);
    free(in);
    free(out);
    free(bc);
    free(rq);
    MPI_Finalize();
    return total_bad != 0;
}
