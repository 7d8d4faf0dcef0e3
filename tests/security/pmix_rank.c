/*
 * A rank of the jobs the PMIx attack tests run (tests/security/pmix_*.sh).
 * Usage: pmix_rank DIR [CHILD_RANK CMD...]
 *   1. touches DIR/spawned.R (R: PMIX_RANK as the launcher set it) and
 *      waits for DIR/start, so a test can attack before any rank connects;
 *   2. PMIx_Init, touches DIR/ready.R;
 *   3. waits for DIR/go, so a test can attack while every rank is
 *      connected;
 *   4. puts rank*7+1 under "sec.val", commits, fences with data and reads
 *      every rank's value back;
 *   5. rank CHILD_RANK runs CMD (with the rank's environment) and waits
 *      for it, writing its exit code to DIR/child.status; when DIR/cut
 *      appears first (the test saw the gate cut the child's connection),
 *      it kills the child and writes "cut";
 *   6. finalizes, prints "rank R: data ok".
 * Waits are bounded (120 s); a failed step exits 99.
 */
#include "config.h"

#include <errno.h>
#include <pmix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WAIT_SEC 120

static const char *dir;
static char rank_str[32] = "?";

static void fail(const char *what, pmix_status_t rc)
{
    printf("rank %s: %s failed: %s\n", rank_str, what, PMIx_Error_string(rc));
    exit(99);
}

static void touch(const char *name)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    if (f == NULL) {
        printf("rank %s: cannot create %s\n", rank_str, path);
        exit(99);
    }
    fclose(f);
}

static void wait_for(const char *name)
{
    char path[4096];
    struct stat st;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    for (int i = 0; i < WAIT_SEC * 100; i++) {
        if (stat(path, &st) == 0)
            return;
        nanosleep(&(struct timespec){.tv_nsec = 10000000L}, NULL);
    }
    printf("rank %s: %s never appeared\n", rank_str, path);
    exit(99);
}

static void run_child(char **cmd)
{
    char path[4096];
    int status = 0;
    pid_t pid = fork();
    FILE *f;

    if (pid < 0)
        exit(99);
    if (pid == 0) {
        execvp(cmd[0], cmd);
        _exit(127);
    }
    /* OpenPMIx 4.2's client does not always notice a connection cut
     * between the server's connect reply and its first request: PMIx_Init
     * then waits for good. A child still there once the gate cut it off
     * got nothing and can do nothing; it is ended here. */
    snprintf(path, sizeof(path), "%s/cut", dir);
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);

        if (w == pid || (w < 0 && errno != EINTR))
            break;
        if (w == 0 && access(path, F_OK) == 0) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            status = -1;
            break;
        }
        nanosleep(&(struct timespec){.tv_nsec = 10000000L}, NULL);
    }
    snprintf(path, sizeof(path), "%s/child.status", dir);
    f = fopen(path, "w");
    if (f != NULL) {
        if (status == -1)
            fprintf(f, "cut\n");
        else
            fprintf(f, "%d\n",
                    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    pmix_proc_t me, peer, job;
    pmix_value_t value, *val = NULL;
    pmix_info_t info;
    bool collect = true;
    pmix_status_t rc;
    uint32_t size;
    char name[64];

    if (argc < 2) {
        fprintf(stderr, "usage: pmix_rank DIR [CHILD_RANK CMD...]\n");
        return 2;
    }
    dir = argv[1];
    if (getenv("PMIX_RANK") != NULL)
        snprintf(rank_str, sizeof(rank_str), "%s", getenv("PMIX_RANK"));
    snprintf(name, sizeof(name), "spawned.%s", rank_str);
    touch(name);
    wait_for("start");
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS)
        fail("PMIx_Init", rc);
    snprintf(name, sizeof(name), "ready.%u", me.rank);
    touch(name);
    wait_for("go");

    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val);
    if (rc != PMIX_SUCCESS)
        fail("PMIx_Get(PMIX_JOB_SIZE)", rc);
    size = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    PMIX_VALUE_LOAD(&value, &(uint32_t){me.rank * 7 + 1}, PMIX_UINT32);
    rc = PMIx_Put(PMIX_GLOBAL, "sec.val", &value);
    PMIX_VALUE_DESTRUCT(&value);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        fail("PMIx_Put/Commit", rc);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS)
        fail("PMIx_Fence", rc);
    for (uint32_t r = 0; r < size; r++) {
        PMIX_LOAD_PROCID(&peer, me.nspace, r);
        rc = PMIx_Get(&peer, "sec.val", NULL, 0, &val);
        if (rc != PMIX_SUCCESS)
            fail("PMIx_Get(sec.val)", rc);
        if (val->type != PMIX_UINT32 || val->data.uint32 != r * 7 + 1) {
            printf("rank %u: rank %u's value is wrong\n", me.rank, r);
            return 99;
        }
        PMIX_VALUE_RELEASE(val);
    }
    if (argc > 3 && (pmix_rank_t)atoi(argv[2]) == me.rank)
        run_child(&argv[3]);
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS)
        fail("PMIx_Finalize", rc);
    printf("rank %u: data ok (job size %u)\n", me.rank, size);
    return 0;
}
