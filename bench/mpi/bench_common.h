/*
 * bench_common.h: helpers shared by the MPI benchmarks in bench/mpi/.
 * MPI API only (no librtmsg header), so any MPI's mpicc builds them.
 *
 * Every measurement is printed by rank 0 as one line:
 *   bench=NAME size=BYTES value=V unit=U min=MIN max=MAX reps=R iters=I
 * value is the median of R repetitions of I iterations each; min and max are
 * the extremes of those repetitions. bench/compare-mpi.sh parses these lines.
 */
#ifndef BENCH_MPI_COMMON_H
#define BENCH_MPI_COMMON_H

#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_MAX_REPS 32

static int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* Sorts v: afterwards v[0] is the minimum and v[n - 1] the maximum. */
static double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void bench_report(const char *bench, long size, double *samples, int reps,
                         long iters, const char *unit)
{
    double med = bench_median(samples, reps);

    printf("bench=%s size=%ld value=%.4g unit=%s min=%.4g max=%.4g reps=%d iters=%ld\n",
           bench, size, med, unit, samples[0], samples[reps - 1], reps, iters);
    fflush(stdout);
}

/* iters scaled so one repetition moves about `budget` bytes, within [lo, hi]. */
static inline long bench_iters(long size, long budget, long lo, long hi)
{
    long n = size > 0 ? budget / size : hi;

    return n < lo ? lo : n > hi ? hi : n;
}

static void *bench_alloc(size_t len)
{
    void *p = NULL;

    /* page-aligned like OSU's buffers; touched so first use doesn't fault */
    if (posix_memalign(&p, 4096, len > 0 ? len : 1) != 0) {
        fprintf(stderr, "bench: cannot allocate %zu bytes\n", len);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(p, 0, len > 0 ? len : 1);
    return p;
}

static int bench_atoi_arg(const char *prog, const char *opt, const char *s, int lo, int hi)
{
    char *end;
    long v = strtol(s, &end, 10);

    if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "%s: %s wants an integer in [%d, %d], got '%s'\n", prog, opt, lo, hi, s);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return (int)v;
}

#endif
