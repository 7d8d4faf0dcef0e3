/*
 * Helpers of the MPI tests: CHECK records a failure with the rank and the
 * line, and the test exits non-zero at the end if any check failed.
 */
#ifndef MPITEST_H
#define MPITEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mt_failures;
static int mt_rank;

#define CHECK(_cond, ...) \
    do { \
        if (!(_cond)) { \
            mt_failures++; \
            fprintf(stderr, "FAIL rank %d %s:%d: %s: ", mt_rank, __FILE__, __LINE__, #_cond); \
            fprintf(stderr, __VA_ARGS__); \
            fputc('\n', stderr); \
        } \
    } while (0)

#define CHECK_RC(_call) \
    do { \
        int rc_ = (_call); \
        CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #_call, rc_); \
    } while (0)

static inline void mt_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
}

/* Every rank learns whether any rank failed; rank 0 reports. */
static inline int mt_finish(const char *name)
{
    int total = 0, size;

    MPI_Allreduce(&mt_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (mt_rank == 0)
        printf("%s (%d ranks): %s (%d failed checks)\n", name, size, total ? "FAIL" : "PASS", total);
    MPI_Finalize();
    return mt_failures ? 1 : 0;
}

#endif
