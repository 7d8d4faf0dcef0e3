/*
 * pi: computes pi as the integral of 4/(1+x^2) over [0,1] with the midpoint
 * rule. Rank 0 chooses the number of intervals and broadcasts it; every rank
 * sums its cyclic share of the intervals and MPI_Reduce adds the shares on
 * rank 0, which checks the result against M_PI and prints PASS or FAIL.
 *
 *   pi [INTERVALS] [--corrupt]
 *
 * --corrupt makes the last rank skip one interval, so the check must fail
 * (the tests use it to show the check can catch a wrong result).
 *
 * Plain MPI: builds with any MPI's mpicc. The exit code is 0 only on PASS.
 */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI /* not in strict ISO C */
#define M_PI 3.14159265358979323846
#endif

int main(int argc, char **argv)
{
    int rank, size, corrupt = 0;
    long n = 1000000;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--corrupt") == 0)
            corrupt = 1;
        else if (rank == 0)
            n = strtol(argv[i], NULL, 10); /* only the root's value counts */
    }
    if (rank != 0)
        n = -1; /* must be overwritten by the broadcast */
    MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (n < 1) {
        if (rank == 0)
            fprintf(stderr, "pi: the number of intervals must be positive\n");
        MPI_Finalize();
        return 2;
    }

    double t0 = MPI_Wtime();
    const double h = 1.0 / (double)n;
    double local = 0.0;
    long done = 0; /* intervals this rank summed: their total must be n */
    for (long i = rank; i < n; i += size) {
        if (corrupt && rank == size - 1 && i == rank)
            continue;
        const double x = h * ((double)i + 0.5);
        local += 4.0 / (1.0 + x * x);
        done++;
    }
    local *= h;

    double pi = 0.0;
    long total = 0;
    MPI_Reduce(&local, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&done, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    const double t = MPI_Wtime() - t0;

    int ok = 1;
    if (rank == 0) {
        /* The midpoint rule's error here is h^2/12 (f'(1) - f'(0) = -2);
         * allow twice that plus 1e-10 for rounding in the sums (observed:
         * about 1e-13 at n = 10^6). One missing interval costs at least 2h,
         * far above this bound for every n up to 10^9. */
        const double err = fabs(pi - M_PI);
        const double bound = h * h / 6.0 + 1e-10;
        ok = err <= bound && total == n;
        printf("pi: %ld intervals on %d ranks: pi = %.15f, error %.3e (bound %.3e), "
               "%ld intervals summed, %.3f s\n", n, size, pi, err, bound, total, t);
        printf("%s\n", ok ? "PASS" : "FAIL");
    }
    /* every rank exits with the verdict, so the launcher reports it too */
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return ok ? 0 : 1;
}
