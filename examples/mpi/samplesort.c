/*
 * samplesort: parallel sample sort of random 64-bit keys.
 *
 * Every rank generates its keys (a different count on each rank, about one in
 * eight drawn from a small set so there are many duplicates), sorts them, and
 * contributes regular samples; MPI_Allgather collects the samples and every
 * rank picks the same P-1 splitters. Each rank cuts its sorted keys at the
 * splitters, MPI_Alltoall exchanges the bucket sizes and MPI_Alltoallv the
 * keys, and each rank sorts what it received.
 *
 * Checks: every rank's keys are sorted and no key on rank r is larger than a
 * key on any later rank (MPI_Allgather of each rank's count, min and max), and
 * the multiset of keys is unchanged: count, sum and sum of a hash of every key,
 * before and after, via MPI_Allreduce. Rank 0 prints PASS or FAIL.
 *
 *   samplesort [KEYS_PER_RANK] [--corrupt]
 *
 * --corrupt changes one received key on the last rank, so the check must fail.
 *
 * Plain MPI: builds with any MPI's mpicc. The exit code is 0 only on PASS.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLES_PER_RANK 16 /* oversampling: splitters from P*16 samples */

/* splitmix64: a small, portable generator (no rand() state differences). */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static uint64_t next_rand(uint64_t *state)
{
    *state += UINT64_C(0x9e3779b97f4a7c15);
    return mix64(*state);
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The first index in sorted keys[0..n) whose key is greater than v. */
static size_t upper_bound(const uint64_t *keys, size_t n, uint64_t v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (keys[mid] <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Order-independent fingerprint of a multiset: count, sum, sum of hashes
 * (unsigned arithmetic wraps, so the sums are exact modulo 2^64). */
static void fingerprint(const uint64_t *keys, size_t n, uint64_t fp[3])
{
    fp[0] = n;
    fp[1] = 0;
    fp[2] = 0;
    for (size_t i = 0; i < n; i++) {
        fp[1] += keys[i];
        fp[2] += mix64(keys[i] ^ UINT64_C(0x5851f42d4c957f2d));
    }
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "samplesort: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

int main(int argc, char **argv)
{
    int rank, size, corrupt = 0;
    long per_rank = 20000;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--corrupt") == 0)
            corrupt = 1;
        else
            per_rank = strtol(argv[i], NULL, 10);
    }
    if (per_rank < SAMPLES_PER_RANK) {
        if (rank == 0)
            fprintf(stderr, "samplesort: at least %d keys per rank\n", SAMPLES_PER_RANK);
        MPI_Finalize();
        return 2;
    }

    /* Uneven counts, so the Alltoallv displacements differ on every rank. */
    const size_t n = (size_t)per_rank + (size_t)(rank * 37 % 101);
    uint64_t *keys = xmalloc(n * sizeof *keys);
    uint64_t state = UINT64_C(0x2545f4914f6cdd1d) * (uint64_t)(rank + 1);
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = next_rand(&state);
        keys[i] = (r & 7) == 0 ? (r >> 3) % 64 : r;
    }
    uint64_t fp_before[3], fp_after[3], fp[3];
    fingerprint(keys, n, fp);
    MPI_Allreduce(fp, fp_before, 3, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);

    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    qsort(keys, n, sizeof *keys, cmp_u64);

    /* Regular samples of the local keys; the same splitters on every rank. */
    uint64_t samples[SAMPLES_PER_RANK];
    for (int i = 0; i < SAMPLES_PER_RANK; i++)
        samples[i] = keys[(size_t)i * n / SAMPLES_PER_RANK];
    uint64_t *all_samples = xmalloc((size_t)size * SAMPLES_PER_RANK * sizeof *all_samples);
    MPI_Allgather(samples, SAMPLES_PER_RANK, MPI_UINT64_T, all_samples, SAMPLES_PER_RANK,
                  MPI_UINT64_T, MPI_COMM_WORLD);
    qsort(all_samples, (size_t)size * SAMPLES_PER_RANK, sizeof *all_samples, cmp_u64);

    /* Bucket b holds the keys in (splitter[b-1], splitter[b]]; the last one
     * everything above splitter[P-2]. */
    int *sendcounts = xmalloc(4 * (size_t)size * sizeof(int));
    int *sdispls = sendcounts + size, *recvcounts = sdispls + size, *rdispls = recvcounts + size;
    size_t start = 0;
    for (int b = 0; b < size; b++) {
        size_t end = n;
        if (b < size - 1)
            end = upper_bound(keys, n, all_samples[(size_t)(b + 1) * SAMPLES_PER_RANK]);
        if (end < start)
            end = start;
        sendcounts[b] = (int)(end - start);
        sdispls[b] = (int)start;
        start = end;
    }
    MPI_Alltoall(sendcounts, 1, MPI_INT, recvcounts, 1, MPI_INT, MPI_COMM_WORLD);
    size_t m = 0;
    for (int b = 0; b < size; b++) {
        rdispls[b] = (int)m;
        m += (size_t)recvcounts[b];
    }
    uint64_t *sorted = xmalloc(m * sizeof *sorted);
    MPI_Alltoallv(keys, sendcounts, sdispls, MPI_UINT64_T, sorted, recvcounts, rdispls,
                  MPI_UINT64_T, MPI_COMM_WORLD);
    /* The buckets arrive as P sorted runs; a sort of the whole is simplest. */
    qsort(sorted, m, sizeof *sorted, cmp_u64);
    const double t = MPI_Wtime() - t0;

    if (corrupt && rank == size - 1 && m > 0)
        sorted[m / 2] ^= 1;

    /* Local order, then the order across ranks from each rank's range. */
    int local_ok = 1;
    for (size_t i = 1; i < m; i++)
        if (sorted[i - 1] > sorted[i])
            local_ok = 0;
    uint64_t range[3] = {m, m ? sorted[0] : 0, m ? sorted[m - 1] : 0};
    uint64_t *ranges = xmalloc(3 * (size_t)size * sizeof *ranges);
    MPI_Allgather(range, 3, MPI_UINT64_T, ranges, 3, MPI_UINT64_T, MPI_COMM_WORLD);
    int order_ok = 1, have_prev = 0;
    uint64_t prev_max = 0, max_bucket = 0;
    for (int r = 0; r < size; r++) {
        if (ranges[3 * r] > max_bucket)
            max_bucket = ranges[3 * r];
        if (ranges[3 * r] == 0)
            continue;
        if (have_prev && prev_max > ranges[3 * r + 1])
            order_ok = 0;
        prev_max = ranges[3 * r + 2];
        have_prev = 1;
    }
    int all_local_ok;
    MPI_Allreduce(&local_ok, &all_local_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    fingerprint(sorted, m, fp);
    MPI_Allreduce(fp, fp_after, 3, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    const int same_keys = memcmp(fp_before, fp_after, sizeof fp_before) == 0;
    const int ok = all_local_ok && order_ok && same_keys;

    if (rank == 0) {
        printf("samplesort: %llu keys on %d ranks, largest bucket %llu, %.3f s: "
               "%s locally, %s across ranks, keys %s\n",
               (unsigned long long)fp_after[0], size, (unsigned long long)max_bucket, t,
               all_local_ok ? "sorted" : "NOT sorted", order_ok ? "ordered" : "NOT ordered",
               same_keys ? "preserved" : "NOT preserved");
        printf("%s\n", ok ? "PASS" : "FAIL");
    }
    free(ranges);
    free(sorted);
    free(sendcounts);
    free(all_samples);
    free(keys);
    MPI_Finalize();
    return ok ? 0 : 1;
}
