/*
 * Shared by the one-sided suite (tests/mpi/rmas_*.c). The programs are plain
 * MPI 3.1: the same source builds with mpicc.openmpi and mpicc.mpich, which
 * is how the checks themselves are proven right before they judge librtmsg.
 *
 * Every MPI call goes through OK(), which records a failure with the error
 * string and goes on; a section whose window could not be created on some
 * rank is skipped on all ranks (rs_all), so a missing feature shows as a
 * list of failed checks rather than a hang.
 */
#ifndef RMAS_COMMON_H
#define RMAS_COMMON_H

#include "tests/mpi/mpitest.h"

#include <stdint.h>

/* The values Open MPI and MPICH give these (MPICH as an enum), for an
 * mpi.h that lacks them: the attributes are still checked against them. */
#if !defined(MPI_WIN_FLAVOR_CREATE) && !defined(MPICH) && !defined(OPEN_MPI)
#define MPI_WIN_FLAVOR_CREATE   1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC  3
#define MPI_WIN_FLAVOR_SHARED   4
#define MPI_WIN_SEPARATE        1
#define MPI_WIN_UNIFIED         2
#endif

static inline int rs_ok(int rc, const char *what, const char *file, int line)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;

    if (rc == MPI_SUCCESS)
        return 1;
    MPI_Error_string(rc, msg, &len);
    th_expect_failed(file, line, what, "returned %d (%s)", rc, msg);
    return 0;
}
#define OK(_call) rs_ok((_call), #_call, __FILE__, __LINE__)

/* 1 on every rank when ok is non-zero on every rank of comm. */
static inline int rs_all_in(int ok, MPI_Comm comm)
{
    int all = 0;

    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    return all != 0;
}
static inline int rs_all(int ok)
{
    return rs_all_in(ok, MPI_COMM_WORLD);
}

/* th_case as "<window flavor>/<section>", so a failure names both. */
static const char *rs_flavor_now = "";
static char rs_case_buf[96];
static inline void rs_case(const char *section)
{
    snprintf(rs_case_buf, sizeof(rs_case_buf), "%s%s%s", rs_flavor_now, *rs_flavor_now ? "/" : "",
             section);
    th_case = rs_case_buf;
    /* RMAS_TRACE=1: each rank names the section it enters (finds a hang) */
    if (getenv("RMAS_TRACE") != NULL)
        fprintf(stderr, "rank %d: %s\n", th_rank, rs_case_buf);
}

/* RMAS_LAX=word,word: skips the checks of behaviour MPI 3.1 asks for that a
 * peer used to validate the suite does not have (the driver never sets it
 * for librtmsg): "name" (Open MPI names new windows), "range" (MPICH does
 * not detect a Put past the end of the target window). */
static inline int rs_lax(const char *what)
{
    const char *l = getenv("RMAS_LAX");

    return l != NULL && strstr(l, what) != NULL;
}

/* Errors come back as codes (checked by OK) instead of ending the job. */
static inline void rs_init(int *argc, char ***argv)
{
    mt_init(argc, argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
}

/* A window made by rs_win: MPI_Win_create on malloc'd memory or
 * MPI_Win_allocate. base is the local memory either way. */
enum rs_flavor { RS_CREATE, RS_ALLOCATE };
static const char *const rs_flavor_name[] = { "create", "allocate" };

static inline int rs_win(enum rs_flavor f, MPI_Aint bytes, int disp_unit, MPI_Comm comm,
                         void **base, MPI_Win *win)
{
    int ok;

    *win = MPI_WIN_NULL;
    *base = NULL;
    if (f == RS_CREATE) {
        *base = calloc(1, bytes > 0 ? (size_t)bytes : 1);
        ok = OK(MPI_Win_create(*base, bytes, disp_unit, MPI_INFO_NULL, comm, win));
    } else {
        ok = OK(MPI_Win_allocate(bytes, disp_unit, MPI_INFO_NULL, comm, base, win));
    }
    if (ok && *win != MPI_WIN_NULL)
        ok = OK(MPI_Win_set_errhandler(*win, MPI_ERRORS_RETURN));
    else
        ok = 0;
    if (!rs_all_in(ok, comm)) {
        EXPECT(0, "window (%s) not created on every rank: section skipped", rs_flavor_name[f]);
        if (*win != MPI_WIN_NULL)
            MPI_Win_free(win);
        if (f == RS_CREATE)
            free(*base);
        *base = NULL;
        return 0;
    }
    return 1;
}

static inline void rs_win_free(enum rs_flavor f, void *base, MPI_Win *win)
{
    OK(MPI_Win_free(win));
    EXPECT(*win == MPI_WIN_NULL, "MPI_Win_free did not set the handle to MPI_WIN_NULL");
    if (f == RS_CREATE)
        free(base);
}

#endif
