/*
 * op_local: the cost of a predefined reduction op on local data, by
 * MPI_Reduce_local: what every reduction collective spends on its
 * arithmetic, without any communication. MPI API only: builds with any
 * mpicc. Each rank measures on its own buffers; rank 0 reports.
 *
 *   float_sum   MPI_FLOAT, MPI_SUM       double_sum  MPI_DOUBLE, MPI_SUM
 *   double_max  MPI_DOUBLE, MPI_MAX      int_bxor    MPI_INT, MPI_BXOR
 *
 * Usage: mpirun -n N op_local [-s 4096,65536,...] [-r REPS]
 * Each repetition runs enough calls to process about 64 MiB of input; the
 * value is the median time per call in microseconds. Output: one line per
 * measurement, see bench_common.h (bench=op_float_sum size=BYTES ...).
 */
#include "bench_common.h"

#define MAX_SIZES 32

static const struct {
    const char  *name;
    MPI_Datatype type;
    MPI_Op       op;
} kinds[] = {
    { "op_float_sum", MPI_FLOAT, MPI_SUM },
    { "op_double_sum", MPI_DOUBLE, MPI_SUM },
    { "op_double_max", MPI_DOUBLE, MPI_MAX },
    { "op_int_bxor", MPI_INT, MPI_BXOR },
};

int main(int argc, char **argv)
{
    long sizes[MAX_SIZES] = { 4096, 65536, 1048576 };
    int nsizes = 3, reps = 5, rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-r") && i + 1 < argc) {
            reps = bench_atoi_arg("op_local", "-r", argv[++i], 1, BENCH_MAX_REPS);
        } else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
            char *list = argv[++i], *tok, *save = NULL;

            nsizes = 0;
            for (tok = strtok_r(list, ",", &save); tok && nsizes < MAX_SIZES;
                 tok = strtok_r(NULL, ",", &save))
                sizes[nsizes++] = bench_atoi_arg("op_local", "-s", tok, 8, 1 << 28);
        } else {
            if (rank == 0)
                fprintf(stderr, "usage: op_local [-s BYTES,...] [-r REPS]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    long maxsize = 0;
    for (int s = 0; s < nsizes; s++)
        maxsize = sizes[s] > maxsize ? sizes[s] : maxsize;
    char *in = bench_alloc((size_t)maxsize), *inout = bench_alloc((size_t)maxsize);

    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        int tsize;

        MPI_Type_size(kinds[k].type, &tsize);
        for (int s = 0; s < nsizes; s++) {
            int count = (int)(sizes[s] / tsize);
            long iters = bench_iters(sizes[s], 64L << 20, 10, 200000);
            double samples[BENCH_MAX_REPS];

            /* inputs that keep sums finite: zeros (the buffers' fill) */
            MPI_Reduce_local(in, inout, count, kinds[k].type, kinds[k].op);   /* warm-up */
            for (int r = 0; r < reps; r++) {
                double t0 = MPI_Wtime();

                for (long it = 0; it < iters; it++)
                    MPI_Reduce_local(in, inout, count, kinds[k].type, kinds[k].op);
                samples[r] = (MPI_Wtime() - t0) / (double)iters * 1e6;
            }
            if (rank == 0)
                bench_report(kinds[k].name, sizes[s], samples, reps, iters, "us");
        }
    }
    free(in);
    free(inout);
    MPI_Finalize();
    return 0;
}
