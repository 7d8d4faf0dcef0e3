/*
 * Helpers of the MPI tests, on the checks of tests/harness.h: EXPECT records
 * a failure (file:line, rank) and the test goes on; mt_finish then makes
 * every rank exit non-zero if any rank failed a check. CHECK_RC is a call
 * that must return MPI_SUCCESS, counted like EXPECT. A fatal check (CHECK,
 * TH_FAIL) ends the whole job through MPI_Abort, so no peer hangs waiting.
 */
#ifndef MPITEST_H
#define MPITEST_H

#include <mpi.h>
#include "tests/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_RC(_call) \
    do { \
        int rc_ = (_call); \
        EXPECT(rc_ == MPI_SUCCESS, "%s returned %d", #_call, rc_); \
    } while (0)

static inline void mt_abort_job(void)
{
    int up = 0, down = 0;

    fflush(stdout);
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (up && !down)
        MPI_Abort(MPI_COMM_WORLD, 1);
}

static inline void mt_init(int *argc, char ***argv)
{
    const char *slash;

    if (*argc > 0 && (*argv)[0] != NULL) {
        slash = strrchr((*argv)[0], '/');
        th_name = slash != NULL ? slash + 1 : (*argv)[0];
    }
    th_fatal_hook = mt_abort_job;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &th_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &th_size);
}

/* Every rank learns whether any rank failed; rank 0 reports. */
static inline int mt_finish(const char *name)
{
    int total = 0, size;

    MPI_Allreduce(&th_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (th_rank == 0)
        printf("%s (%d ranks): %s (%d failed checks)\n", name, size, total ? "FAIL" : "PASS", total);
    MPI_Finalize();
    return th_failures ? 1 : 0;
}

#endif
