/*
 * Hangs made on purpose, for the job-state report tests (diag_*.sh). Each
 * mode prints "ready" on every rank just before the call that hangs, so a
 * test can ask for the report once the job is stuck.
 *
 *   probe N  rank 0: N blocking 8 B sends with tag 1 to rank 1 (never a
 *            tag 99); rank 1: MPI_Probe(0, 99), never matched, and nothing
 *            received. Past the eager credits (RTM_EAGER_CREDITS) and the
 *            detached sends (RTM_DETACHED_SENDS: run with a few, e.g. 16,
 *            and N = 100), rank 0's next send waits for rank 1 to match it:
 *            both wait, rank 0 behind exhausted flow control
 *   recv     rank 1: MPI_Recv(0, tag 5) that no rank sends; the others
 *            wait in MPI_Barrier
 *   coll     every rank but the last: MPI_Barrier; the last waits in
 *            MPI_Recv(ANY_SOURCE, tag 7) and never joins
 *   icoll    4 ranks: an intercommunicator of the even and the odd world
 *            ranks; every rank but the last: MPI_Barrier on it; the last
 *            waits in MPI_Recv(ANY_SOURCE, tag 7) and never joins
 *   rndv     rank 1 stops itself (SIGSTOP) before it receives; rank 0
 *            sends it 1 MiB (rendezvous) and waits for it
 */
#include "mpi.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void ready(int rank)
{
    printf("ready %d\n", rank);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int rank, size;
    const char *mode = argc > 1 ? argv[1] : "probe";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "diag_hang: needs 2 ranks or more\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (strcmp(mode, "probe") == 0) {
        int n = argc > 2 ? atoi(argv[2]) : 80;
        char buf[8] = {0};
        MPI_Status st;

        if (rank == 0) {
            ready(rank);
            for (int i = 0; i < n; i++)
                MPI_Send(buf, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        } else if (rank == 1) {
            ready(rank);
            MPI_Probe(0, 99, MPI_COMM_WORLD, &st);
        }
    } else if (strcmp(mode, "recv") == 0) {
        int v;

        ready(rank);
        if (rank == 1)
            MPI_Recv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "coll") == 0) {
        int v;

        ready(rank);
        if (rank == size - 1)
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "icoll") == 0) {
        MPI_Comm half, inter;
        int v;

        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 9, &inter);
        MPI_Comm_set_name(inter, "evens-odds");
        ready(rank);
        if (rank == size - 1)
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Barrier(inter);
    } else if (strcmp(mode, "rndv") == 0) {
        size_t len = 1u << 20;
        char *buf = calloc(1, len);

        MPI_Barrier(MPI_COMM_WORLD);
        ready(rank);
        if (rank == 1) {
            raise(SIGSTOP);
            MPI_Recv(buf, (int)len, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 0) {
            MPI_Send(buf, (int)len, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
        }
        free(buf);
    } else {
        fprintf(stderr, "diag_hang: unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return 0;
}
