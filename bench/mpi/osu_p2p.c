/*
 * osu_p2p: point-to-point benchmarks between ranks 0 and 1, in the manner of
 * the OSU Micro-Benchmarks (written from their published descriptions, not
 * their code). MPI API only: builds with any mpicc.
 *
 *   lat   half round trip of a blocking MPI_Send/MPI_Recv ping-pong, 0 B and
 *         1 B .. MAX by powers of two, in microseconds
 *   bw    rank 0 posts a window of W MPI_Isend, rank 1 W MPI_Irecv; after
 *         each window rank 1 sends a 4-byte ack; 1 B .. MAX, GB/s (1e9 B/s)
 *   bibw  both ranks post W MPI_Irecv and W MPI_Isend per window, counting
 *         the bytes of both directions; 1 B .. MAX, GB/s
 *   mr    message rate: as bw with 8 B messages, millions of messages/s
 *
 * Before each size is timed one message of that size goes 0 -> 1 and rank 1
 * checks its first, middle and last byte, so a transport that drops data
 * fails here instead of posting a fast figure.
 *
 * -T MS: every timed sample of lat, bw and bibw lasts at least MS
 * milliseconds: the warm-up run of each size is timed and the iterations
 * scaled up from it (rank 0 decides, both use its count). Without it the
 * small sizes of bw/bibw are 200 windows, well under a millisecond: on a
 * loaded host one descheduling then decides the figure.
 *
 * Usage: mpirun -n 2 osu_p2p [-t lat,bw,bibw,mr] [-r REPS] [-x MAX_BYTES]
 *                             [-w WINDOW] [-i LAT_ITERS] [-m MR_WINDOWS] [-T MS]
 * Output: one line per measurement, see bench_common.h.
 */
#define _GNU_SOURCE
#include "bench_common.h"

#include <unistd.h>

#define MAX_WINDOW 1024

static int rank;
static double min_sample;   /* -T, in seconds; 0: fixed iteration counts */
static char *sbuf, *rbuf;
static MPI_Request reqs[2 * MAX_WINDOW];

static char pattern(long size, long i)
{
    return (char)((size * 7 + i * 13 + 1) & 0x7f);
}

static void check_size(long size)
{
    long pos[3] = { 0, size / 2, size - 1 };

    if (size == 0)
        return;
    if (rank == 0) {
        for (int k = 0; k < 3; k++)
            sbuf[pos[k]] = pattern(size, pos[k]);
        MPI_Send(sbuf, (int)size, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
    } else {
        memset(rbuf, 0xff, (size_t)size);
        MPI_Recv(rbuf, (int)size, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int k = 0; k < 3; k++) {
            if (rbuf[pos[k]] != pattern(size, pos[k])) {
                fprintf(stderr, "osu_p2p: %ld-byte message arrived corrupted at byte %ld\n",
                        size, pos[k]);
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
        }
    }
}

static double pingpong(long size, long iters)
{
    double t0 = MPI_Wtime();

    for (long i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(sbuf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

/* Unidirectional windows with an ack (bw, mr). */
static double stream(long size, int window, long iters)
{
    int ack = 0;
    double t0 = MPI_Wtime();

    for (long i = 0; i < iters; i++) {
        if (rank == 0) {
            for (int k = 0; k < window; k++)
                MPI_Isend(sbuf, (int)size, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &reqs[k]);
            MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int k = 0; k < window; k++)
                MPI_Irecv(rbuf, (int)size, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &reqs[k]);
            MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
            MPI_Send(&ack, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

static double bistream(long size, int window, long iters)
{
    int peer = 1 - rank;
    double t0 = MPI_Wtime();

    for (long i = 0; i < iters; i++) {
        for (int k = 0; k < window; k++)
            MPI_Irecv(rbuf, (int)size, MPI_CHAR, peer, 4, MPI_COMM_WORLD, &reqs[k]);
        for (int k = 0; k < window; k++)
            MPI_Isend(sbuf, (int)size, MPI_CHAR, peer, 4, MPI_COMM_WORLD, &reqs[window + k]);
        MPI_Waitall(2 * window, reqs, MPI_STATUSES_IGNORE);
    }
    return MPI_Wtime() - t0;
}

static int wanted(const char *list, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return 1;
    return 0;
}

/* The iterations of a timed sample: iters, or more if the warm-up (warm
 * iterations in t seconds) says a sample would last less than -T. */
static long sample_iters(double t, long warm, long iters)
{
    long n = iters;

    if (min_sample <= 0)
        return n;
    if (rank == 0 && t > 0) {
        double want = min_sample / (t / (double)warm);

        if (want > (double)n)
            n = want >= 1e8 ? 100000000L : (long)want + 1;
    }
    MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    return n;
}

int main(int argc, char **argv)
{
    const char *tests = "lat,bw,bibw,mr";
    int reps = 5, window = 64, lat_iters = 10000, mr_windows = 2000, nranks, opt;
    long max_size = 4L << 20;
    double samples[BENCH_MAX_REPS];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    while ((opt = getopt(argc, argv, "t:r:x:w:i:m:T:")) != -1) {
        switch (opt) {
        case 't': tests = optarg; break;
        case 'r': reps = bench_atoi_arg("osu_p2p", "-r", optarg, 1, BENCH_MAX_REPS); break;
        case 'x': max_size = bench_atoi_arg("osu_p2p", "-x", optarg, 1, 1 << 30); break;
        case 'w': window = bench_atoi_arg("osu_p2p", "-w", optarg, 1, MAX_WINDOW); break;
        case 'i': lat_iters = bench_atoi_arg("osu_p2p", "-i", optarg, 1, 100000000); break;
        case 'm': mr_windows = bench_atoi_arg("osu_p2p", "-m", optarg, 1, 100000000); break;
        case 'T': min_sample = bench_atoi_arg("osu_p2p", "-T", optarg, 0, 600000) / 1e3; break;
        default:
            if (rank == 0)
                fprintf(stderr, "usage: osu_p2p [-t lat,bw,bibw,mr] [-r REPS] [-x MAX_BYTES] "
                        "[-w WINDOW] [-i LAT_ITERS] [-m MR_WINDOWS] [-T MIN_SAMPLE_MS]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (nranks != 2) {
        if (rank == 0)
            fprintf(stderr, "osu_p2p: needs exactly 2 ranks, got %d\n", nranks);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    sbuf = bench_alloc((size_t)max_size);
    rbuf = bench_alloc((size_t)max_size);
    memset(sbuf, 'a', (size_t)max_size);

    if (wanted(tests, "lat")) {
        for (long size = 0; size <= max_size; size = size ? size * 2 : 1) {
            /* small messages: lat_iters round trips; large: ~256 MiB each way */
            long iters = size <= 8192 ? lat_iters : bench_iters(size, 256L << 20, 50, lat_iters);

            check_size(size);
            iters = sample_iters(pingpong(size, iters / 10 + 1), iters / 10 + 1, iters);
            for (int r = 0; r < reps; r++)
                samples[r] = pingpong(size, iters) / (2.0 * (double)iters) * 1e6;
            if (rank == 0)
                bench_report("lat", size, samples, reps, iters, "us");
        }
    }
    if (wanted(tests, "bw")) {
        for (long size = 1; size <= max_size; size *= 2) {
            long iters = bench_iters(size * window, 1L << 30, 5, 200);

            check_size(size);
            iters = sample_iters(stream(size, window, iters / 10 + 1), iters / 10 + 1, iters);
            for (int r = 0; r < reps; r++)
                samples[r] = (double)size * window * (double)iters
                             / stream(size, window, iters) / 1e9;
            if (rank == 0)
                bench_report("bw", size, samples, reps, iters, "GB/s");
        }
    }
    if (wanted(tests, "bibw")) {
        for (long size = 1; size <= max_size; size *= 2) {
            long iters = bench_iters(size * window, 1L << 30, 5, 200);

            check_size(size);
            iters = sample_iters(bistream(size, window, iters / 10 + 1), iters / 10 + 1, iters);
            for (int r = 0; r < reps; r++)
                samples[r] = 2.0 * (double)size * window * (double)iters
                             / bistream(size, window, iters) / 1e9;
            if (rank == 0)
                bench_report("bibw", size, samples, reps, iters, "GB/s");
        }
    }
    if (wanted(tests, "mr")) {
        long size = 8;

        check_size(size);
        stream(size, window, mr_windows / 10 + 1);
        for (int r = 0; r < reps; r++)
            samples[r] = (double)window * mr_windows / stream(size, window, mr_windows) / 1e6;
        if (rank == 0)
            bench_report("mr", size, samples, reps, mr_windows, "Mmsg/s");
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
