/*
 * An MPI program for other MPI implementations on softib (Open MPI, MPICH;
 * peer_mpi.sh builds it with their own mpicc at test time). Every byte is
 * checked; the first difference is printed with its place and the program
 * aborts the job.
 *   pingpong   ranks 2k and 2k+1, sizes 0 B to 4 MiB (and 4 MiB + 1),
 *              each message a pattern of (size, iteration, sender)
 *   alltoall   64 ints to every rank, 20 rounds
 *   onesided   (argument "rma") MPI_Win_allocate; MPI_Put and MPI_Get of
 *              4 KiB to the next rank under MPI_Win_fence; MPI_Fetch_and_op
 *              (sum) of every rank into rank 0 under a passive lock
 * Prints "peer_mpi: ok (<what>)" on rank 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static unsigned char pat(size_t i, int a, int b, int c)
{
    return (unsigned char)(i * 31 + (size_t)a * 7 + (size_t)b * 13 + (size_t)c * 101 + 1);
}

static void check(const unsigned char *buf, size_t n, int a, int b, int c,
                  const char *what)
{
    for (size_t i = 0; i < n; i++) {
        if (buf[i] != pat(i, a, b, c)) {
            fprintf(stderr, "peer_mpi: rank %d: %s (size %zu, %d/%d/%d): byte %zu "
                    "is 0x%02x, expected 0x%02x\n", rank, what, n, a, b, c, i,
                    buf[i], pat(i, a, b, c));
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
}

static void fill(unsigned char *buf, size_t n, int a, int b, int c)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = pat(i, a, b, c);
}

static void pingpong(void)
{
    size_t max = (4u << 20) + 1;
    unsigned char *buf = malloc(max);
    int peer = rank ^ 1;

    if (peer >= size) {
        free(buf);
        return;
    }
    for (size_t n = 0; n <= max; n = n ? (n == (4u << 20) ? n + 1 : n * 4) : 1) {
        for (int it = 0; it < 3; it++) {
            if (rank % 2 == 0) {
                fill(buf, n, (int)n, it, rank);
                MPI_Send(buf, (int)n, MPI_BYTE, peer, it, MPI_COMM_WORLD);
                memset(buf, 0, n);
                MPI_Recv(buf, (int)n, MPI_BYTE, peer, it, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                check(buf, n, (int)n, it, peer, "pong");
            } else {
                memset(buf, 0, n);
                MPI_Recv(buf, (int)n, MPI_BYTE, peer, it, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                check(buf, n, (int)n, it, peer, "ping");
                fill(buf, n, (int)n, it, rank);
                MPI_Send(buf, (int)n, MPI_BYTE, peer, it, MPI_COMM_WORLD);
            }
        }
        if (n == max)
            break;
    }
    free(buf);
}

static void alltoall(void)
{
    int *s = malloc(sizeof(int) * 64 * (size_t)size);
    int *r = malloc(sizeof(int) * 64 * (size_t)size);

    for (int round = 0; round < 20; round++) {
        for (int p = 0; p < size; p++)
            for (int i = 0; i < 64; i++)
                s[p * 64 + i] = ((rank * 1000 + p) * 64 + i) * 31 + round;
        memset(r, 0, sizeof(int) * 64 * (size_t)size);
        MPI_Alltoall(s, 64, MPI_INT, r, 64, MPI_INT, MPI_COMM_WORLD);
        for (int p = 0; p < size; p++)
            for (int i = 0; i < 64; i++)
                if (r[p * 64 + i] != ((p * 1000 + rank) * 64 + i) * 31 + round) {
                    fprintf(stderr, "peer_mpi: rank %d: alltoall round %d: from rank "
                            "%d int %d is %d\n", rank, round, p, i, r[p * 64 + i]);
                    MPI_Abort(MPI_COMM_WORLD, 3);
                }
    }
    free(s);
    free(r);
}

static void onesided(void)
{
    const size_t n = 4096;
    unsigned char *base, *got = malloc(n), *mine = malloc(n);
    int64_t *counter, one, old, total = 0;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Win win;

    MPI_Win_allocate((MPI_Aint)(n + 8), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    counter = (int64_t *)(base + n);
    memset(base, 0, n + 8);
    MPI_Win_fence(0, win);
    fill(mine, n, 5, rank, 0);
    MPI_Put(mine, (int)n, MPI_BYTE, next, 0, (int)n, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    check(base, n, 5, prev, 0, "put");
    memset(got, 0, n);
    MPI_Get(got, (int)n, MPI_BYTE, next, 0, (int)n, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    check(got, n, 5, rank, 0, "get");
    MPI_Barrier(MPI_COMM_WORLD);
    one = rank + 1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, (MPI_Aint)n, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    if (old < 0 || old > (int64_t)size * (size + 1) / 2) {
        fprintf(stderr, "peer_mpi: rank %d: fetch-and-op returned %lld\n", rank,
                (long long)old);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        total = *counter;
        MPI_Win_unlock(0, win);
        if (total != (int64_t)size * (size + 1) / 2) {
            fprintf(stderr, "peer_mpi: fetch-and-op sum is %lld, expected %d\n",
                    (long long)total, size * (size + 1) / 2);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
    MPI_Win_free(&win);
    free(got);
    free(mine);
}

int main(int argc, char **argv)
{
    int rma = argc > 1 && !strcmp(argv[1], "rma");

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pingpong();
    alltoall();
    if (rma)
        onesided();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("peer_mpi: ok (pingpong, alltoall%s on %d ranks)\n",
               rma ? ", put/get/fetch-and-op" : "", size);
    MPI_Finalize();
    return 0;
}
