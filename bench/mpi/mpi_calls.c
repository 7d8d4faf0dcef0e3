/*
 * mpi_calls.c: the instructions one MPI call costs, for valgrind callgrind
 * (bench/callgrind-calls.sh runs it under ours, Open MPI and MPICH alike).
 * MPI API only, so any MPI's mpicc builds it.
 *
 * Each measured call sits alone in a loop inside a noinline wrapper
 * (bench_isend, ...); callgrind gives the wrapper's inclusive and self
 * cost, and (inclusive - self) / calls is what one call costs, loop
 * overhead excluded. The script collects only inside measure_rounds and
 * bench_init/bench_finalize (--toggle-collect), so warm-up rounds (the
 * libraries' tables growing, first-touch connections) do not count.
 *
 * Two ranks, 8-byte messages, WINDOW messages per round:
 *   rank 1 posts WINDOW receives       bench_irecv_posted  (before arrival)
 *   rank 1 -> rank 0: "posted"
 *   rank 0 sends WINDOW messages       bench_isend         (receiver active)
 *   rank 0 -> rank 1: a token after them (same channel, so once the token
 *     is received every earlier message has been matched: the Waitall below
 *     finds its requests complete)
 *   rank 0 completes its sends         bench_waitall_send
 *   rank 1 completes its receives      bench_waitall_recv
 *   rank 0 sends WINDOW more, and a token (nonblocking: a library may take
 *     the rendezvous path, which needs the receiver); rank 1 receives the token first,
 *     so the WINDOW messages are stored as unexpected, then
 *   rank 1 receives them               bench_irecv_unexp   (already arrived)
 *   rank 1 completes them              bench_waitall_unexp
 * The WINDOW (16; 2 x 16 + 2 messages a round) stays within every library's
 * eager flow control (ours: 64 credits, returned in batches of 32).
 *
 * Output (rank 0 and 1): one line per wrapper this rank ran,
 *   calls wrapper=NAME calls=N
 * for the script to divide by.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 16
#define MSG_BYTES 8
#define TAG_DATA 1
#define TAG_TOKEN 2
#define TAG_READY 3
#define TAG_UNEXP 4

#define NOINLINE __attribute__((noinline))

static char sbuf[WINDOW][MSG_BYTES];
static char rbuf[WINDOW][MSG_BYTES];
static MPI_Request reqs[WINDOW + 1];

/* ---- the measured wrappers: one MPI call in a loop, nothing else ---- */

NOINLINE void bench_isend(int peer)
{
    for (int i = 0; i < WINDOW; i++)
        MPI_Isend(sbuf[i], MSG_BYTES, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &reqs[i]);
}

NOINLINE void bench_irecv_posted(int peer)
{
    for (int i = 0; i < WINDOW; i++)
        MPI_Irecv(rbuf[i], MSG_BYTES, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &reqs[i]);
}

NOINLINE void bench_irecv_unexp(int peer)
{
    for (int i = 0; i < WINDOW; i++)
        MPI_Irecv(rbuf[i], MSG_BYTES, MPI_BYTE, peer, TAG_UNEXP, MPI_COMM_WORLD, &reqs[i]);
}

NOINLINE void bench_waitall_send(void)
{
    MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
}

NOINLINE void bench_waitall_recv(void)
{
    MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
}

NOINLINE void bench_waitall_unexp(void)
{
    MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
}

NOINLINE void bench_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
}

NOINLINE void bench_finalize(void)
{
    MPI_Finalize();
}

/* ---- one round (unmeasured glue around the wrappers) ---- */

static char token;

static void round_sender(int peer)
{
    MPI_Recv(&token, 1, MPI_BYTE, peer, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    bench_isend(peer);
    MPI_Send(&token, 1, MPI_BYTE, peer, TAG_TOKEN, MPI_COMM_WORLD);
    bench_waitall_send();
    for (int i = 0; i < WINDOW; i++)
        MPI_Isend(sbuf[i], MSG_BYTES, MPI_BYTE, peer, TAG_UNEXP, MPI_COMM_WORLD, &reqs[i]);
    MPI_Isend(&token, 1, MPI_BYTE, peer, TAG_TOKEN, MPI_COMM_WORLD, &reqs[WINDOW]);
    MPI_Waitall(WINDOW + 1, reqs, MPI_STATUSES_IGNORE);
}

static void round_receiver(int peer)
{
    bench_irecv_posted(peer);
    MPI_Send(&token, 1, MPI_BYTE, peer, TAG_READY, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_BYTE, peer, TAG_TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    bench_waitall_recv();
    MPI_Recv(&token, 1, MPI_BYTE, peer, TAG_TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    bench_irecv_unexp(peer);
    bench_waitall_unexp();
}

static void rounds(int rank, int n)
{
    for (int r = 0; r < n; r++) {
        if (rank == 0)
            round_sender(1);
        else
            round_receiver(0);
    }
}

NOINLINE void warmup_rounds(int rank, int n)
{
    rounds(rank, n);
}

NOINLINE void measure_rounds(int rank, int n)
{
    rounds(rank, n);
}

int main(int argc, char **argv)
{
    int rank, size, n = 100, warm = 10;

    bench_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        n = atoi(argv[1]);
    if (size != 2 || n < 1) {
        if (rank == 0)
            fprintf(stderr, "mpi_calls: run with 2 ranks; optional argument: rounds >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(sbuf, 'x', sizeof(sbuf));
    warmup_rounds(rank, warm);
    MPI_Barrier(MPI_COMM_WORLD);
    measure_rounds(rank, n);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("calls rank=0 wrapper=bench_isend calls=%d\n", n * WINDOW);
        printf("calls rank=0 wrapper=bench_waitall_send calls=%d\n", n * WINDOW);
    } else {
        if (memcmp(rbuf, sbuf, sizeof(rbuf)) != 0) {
            fprintf(stderr, "mpi_calls: received data differ from what was sent\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        printf("calls rank=1 wrapper=bench_irecv_posted calls=%d\n", n * WINDOW);
        printf("calls rank=1 wrapper=bench_irecv_unexp calls=%d\n", n * WINDOW);
        printf("calls rank=1 wrapper=bench_waitall_recv calls=%d\n", n * WINDOW);
        printf("calls rank=1 wrapper=bench_waitall_unexp calls=%d\n", n * WINDOW);
    }
    printf("calls rank=%d wrapper=bench_init+bench_finalize calls=1\n", rank);
    fflush(stdout);
    bench_finalize();
    return 0;
}
