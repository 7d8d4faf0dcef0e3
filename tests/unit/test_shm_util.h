/*
 * Helpers for the transport unit tests: a fake "job" of forked processes
 * that drive a transport through its ops table with hand-made parameters.
 * A MAP_SHARED anonymous page stands in for PMIx: each process puts its
 * address blob there, and a counter barrier stands in for the fence.
 */
#ifndef RTM_TEST_SHM_UTIL_H
#define RTM_TEST_SHM_UTIL_H

#include "transport/transport.h"
#include "tests/harness.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TJOB_MAX 8

typedef struct tjob_shared {
    _Atomic int barrier_count;
    _Atomic int barrier_gen;
    size_t      blob_len[TJOB_MAX];
    unsigned char blob[TJOB_MAX][RTM_TL_ADDR_MAX];
} tjob_shared_t;

typedef struct tjob {
    int            nprocs;
    int            rank;
    char           nspace[64];
    int            peers[TJOB_MAX];
    tjob_shared_t *shared;
} tjob_t;


/* The transport contract requires a peer_failed callback; no test here
 * loses a peer, so being called is a failure. */
static inline void tjob_peer_failed(void *arg, int peer, rtm_status_t status, const char *msg)
{
    (void)arg;
    CHECK(0, "peer_failed(%d, %d): %s", peer, (int)status, msg);
}

static inline void tjob_barrier(tjob_t *job)
{
    int gen = atomic_load(&job->shared->barrier_gen);

    if (atomic_fetch_add(&job->shared->barrier_count, 1) == job->nprocs - 1) {
        atomic_store(&job->shared->barrier_count, 0);
        atomic_fetch_add(&job->shared->barrier_gen, 1);
    } else {
        while (atomic_load(&job->shared->barrier_gen) == gen)
            sched_yield();
    }
}

/* Barrier that keeps a transport progressing while it waits. */
static inline void tjob_barrier_progress(tjob_t *job, const rtm_tl_ops_t *ops,
                                         rtm_tl_iface_t *iface)
{
    int gen = atomic_load(&job->shared->barrier_gen);

    if (atomic_fetch_add(&job->shared->barrier_count, 1) == job->nprocs - 1) {
        atomic_store(&job->shared->barrier_count, 0);
        atomic_fetch_add(&job->shared->barrier_gen, 1);
    } else {
        while (atomic_load(&job->shared->barrier_gen) == gen)
            ops->progress(iface);
    }
}

static inline int shm_name_exists(const char *nspace)
{
    char path[256];
    struct stat st;

    snprintf(path, sizeof(path), "/dev/shm/rtm-%s-0", nspace);
    return stat(path, &st) == 0;
}

static inline void shm_name_remove(const char *nspace)
{
    char path[256];

    snprintf(path, sizeof(path), "/dev/shm/rtm-%s-0", nspace);
    unlink(path);
}

/*
 * Runs body(job) in nprocs forked processes. Returns 0 when every process
 * exited 0; *killed_ok lets a test expect some ranks to die by SIGKILL.
 */
static inline int tjob_run(const char *name, int nprocs, void (*body)(tjob_t *job),
                           unsigned expect_killed_mask)
{
    static int serial;
    tjob_t job;
    pid_t pids[TJOB_MAX];
    int failed = 0;

    memset(&job, 0, sizeof(job));
    job.nprocs = nprocs;
    snprintf(job.nspace, sizeof(job.nspace), "test.%d.%d", (int)getpid(), serial++);
    for (int i = 0; i < nprocs; i++)
        job.peers[i] = i;
    job.shared = mmap(NULL, sizeof(tjob_shared_t), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (job.shared == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    memset(job.shared, 0, sizeof(tjob_shared_t));
    fflush(NULL);
    for (int i = 0; i < nprocs; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            job.rank = i;
            th_rank = i;
            /* only against a hang: the every-size job needs ~10 s of CPU,
             * and 60 s were too few at load 20 on 2 CPUs */
            alarm(300);
            body(&job);
            exit(0);
        }
    }
    for (int i = 0; i < nprocs; i++) {
        int st;

        waitpid(pids[i], &st, 0);
        if ((expect_killed_mask >> i) & 1) {
            if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) {
                fprintf(stderr, "FAIL %s: rank %d was expected to die by SIGKILL\n", name, i);
                failed = 1;
            }
        } else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "FAIL %s: rank %d %s %d\n", name, i,
                    WIFSIGNALED(st) ? "died by signal" : "exited with",
                    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            failed = 1;
        }
    }
    if (shm_name_exists(job.nspace)) {
        fprintf(stderr, "FAIL %s: /dev/shm/rtm-%s-0 left behind\n", name, job.nspace);
        shm_name_remove(job.nspace);
        failed = 1;
    }
    munmap(job.shared, sizeof(tjob_shared_t));
    printf("%s %s\n", failed ? "FAIL" : "ok  ", name);
    fflush(stdout);
    return failed;
}

#endif
