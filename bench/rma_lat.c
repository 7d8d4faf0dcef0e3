/*
 * bench/rma_lat.c: one-sided latency and bandwidth between 2 ranks of one
 * host on an MPI_Win_allocate window, in a passive-target epoch
 * (MPI_Win_lock_all): rank 0 is the origin, rank 1 the target, which waits
 * in MPI_Barrier meanwhile (serving whatever its MPI needs served).
 *
 *   put_lat, get_lat   one MPI_Put / MPI_Get of SIZE bytes + MPI_Win_flush (us)
 *   put_bw, get_bw     64 operations of SIZE bytes, then one flush (MB/s)
 *   fop_lat            MPI_Fetch_and_op (MPI_INT64_T, MPI_SUM) + flush (us)
 *   cas_lat            MPI_Compare_and_swap (MPI_INT64_T) + flush (us)
 *   acc_lat            MPI_Accumulate of one MPI_DOUBLE (MPI_SUM) + flush (us)
 *   lock_put_unlock    MPI_Win_lock (exclusive) + 8 B MPI_Put + MPI_Win_unlock,
 *                      outside the lock_all epoch (us)
 *
 * A plain MPI program (MPI API only): any MPI's mpicc builds it;
 * bench/rma-compare.sh runs ours, Open MPI and MPICH interleaved. Lines as
 * bench/mpi/bench_common.h prints them (median of -r repetitions).
 *
 *   rma_lat [-r REPS] [-i ITERS] [-m METRIC] [-s SIZE] [-n]
 *
 * -m METRIC runs that metric only (e.g. fop_lat), -s SIZE that size only
 * (bench/rma-verbs.sh counts one operation's work requests so). -n makes the window with info
 * rtmsg_win_rdma=false: librtmsg then sends every operation as a message
 * instead of RDMA (other MPIs ignore the key).
 */
#include "mpi/bench_common.h"

#include <stdint.h>
#include <unistd.h>

#define WINDOW 64
#define MAXSZ (1L << 20)

static int rank;
static MPI_Win win;
static char *buf;
static const char *only;   /* -m */
static long only_size;     /* -s */

enum kind { PUT_LAT, GET_LAT, PUT_BW, GET_BW, FOP, CAS, ACC, LOCK_PUT };

static double run_once(enum kind k, long size, long iters)
{
    int64_t one = 1, old = 0, cmp = 0, nv = 1;
    double d = 1.0;

    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        switch (k) {
        case PUT_LAT:
            MPI_Put(buf, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
            break;
        case GET_LAT:
            MPI_Get(buf, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
            break;
        case PUT_BW:
            for (int j = 0; j < WINDOW; j++)
                MPI_Put(buf, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
            break;
        case GET_BW:
            for (int j = 0; j < WINDOW; j++)
                MPI_Get(buf, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
            break;
        case FOP:
            MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 1, 0, MPI_SUM, win);
            break;
        case CAS:
            MPI_Compare_and_swap(&nv, &cmp, &old, MPI_INT64_T, 1, 8, win);
            cmp = old;
            nv = old + 1;
            break;
        case ACC:
            MPI_Accumulate(&d, 1, MPI_DOUBLE, 1, 16, 1, MPI_DOUBLE, MPI_SUM, win);
            break;
        case LOCK_PUT:
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            MPI_Put(buf, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
            MPI_Win_unlock(1, win);
            continue;
        }
        MPI_Win_flush(1, win);
    }
    return MPI_Wtime() - t0;
}

static void measure(const char *name, enum kind k, long size, long iters, int reps)
{
    double samples[BENCH_MAX_REPS];
    int bw = k == PUT_BW || k == GET_BW;

    if ((only && strcmp(only, name)) || (only_size && only_size != size))
        return;
    if (rank == 0) {
        run_once(k, size, iters / 10 + 1);   /* warm-up */
        for (int r = 0; r < reps; r++) {
            double t = run_once(k, size, iters);

            samples[r] = bw ? (double)size * WINDOW * (double)iters / t / 1e6
                            : t * 1e6 / (double)iters;
        }
        bench_report(name, size, samples, reps, iters, bw ? "MB/s" : "us");
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int reps = 5, size, opt;
    long iters = 20000;
    void *base;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Info info;
    MPI_Info_create(&info);
    while ((opt = getopt(argc, argv, "r:i:m:s:n")) != -1) {
        if (opt == 'm')
            only = optarg;
        else if (opt == 's')
            only_size = bench_atoi_arg("rma_lat", "-s", optarg, 1, MAXSZ);
        else if (opt == 'n')
            MPI_Info_set(info, "rtmsg_win_rdma", "false");
        else if (opt == 'r')
            reps = bench_atoi_arg("rma_lat", "-r", optarg, 1, BENCH_MAX_REPS);
        else if (opt == 'i')
            iters = bench_atoi_arg("rma_lat", "-i", optarg, 10, 100000000);
    }
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "rma_lat: run with 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    buf = bench_alloc(MAXSZ);
    MPI_Win_allocate(MAXSZ, 1, info, MPI_COMM_WORLD, &base, &win);
    MPI_Info_free(&info);
    memset(base, 0, MAXSZ);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    static const long lsz[] = { 8, 1024, 65536 };
    for (int i = 0; i < 3; i++)
        measure("put_lat", PUT_LAT, lsz[i], lsz[i] > 4096 ? iters / 10 : iters, reps);
    for (int i = 0; i < 3; i++)
        measure("get_lat", GET_LAT, lsz[i], lsz[i] > 4096 ? iters / 10 : iters, reps);
    static const long bsz[] = { 4096, 65536, MAXSZ };
    for (int i = 0; i < 3; i++)
        measure("put_bw", PUT_BW, bsz[i], bench_iters(bsz[i] * WINDOW, 1L << 28, 2, 200), reps);
    for (int i = 0; i < 3; i++)
        measure("get_bw", GET_BW, bsz[i], bench_iters(bsz[i] * WINDOW, 1L << 28, 2, 200), reps);
    measure("fop_lat", FOP, 8, iters, reps);
    measure("cas_lat", CAS, 8, iters, reps);
    measure("acc_lat", ACC, 8, iters, reps);
    MPI_Win_unlock_all(win);
    measure("lock_put_unlock", LOCK_PUT, 8, iters, reps);
    MPI_Win_free(&win);
    free(buf);
    MPI_Finalize();
    return 0;
}
