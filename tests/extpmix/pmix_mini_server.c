/*
 * A minimal PMIx server (OpenPMIx server API) that starts N local ranks of a
 * program and describes the job to them the way a foreign server might:
 * with keys left out, integers in other types, the local peer list
 * unsorted or as ranges. (Fences of an all-local job complete inside the
 * PMIx library; the fence callback here is called only if it decides
 * otherwise.) The tests
 * use it to check that librtmsg still finds the job's shape
 * (runtime/job.c) under servers that are not rtrun's.
 *
 * Usage: pmix_mini_server -n N [options] PROGRAM [ARGS...]
 *   --omit KEYS     comma-separated: maps (PMIX_NODE_MAP and PMIX_PROC_MAP),
 *                   local_peers, nodeid, hostname, job_size
 *   --peers STRING  PMIX_LOCAL_PEERS exactly as given (e.g. "3, 0-2")
 *   --int-types     PMIX_NODEID as int, PMIX_JOB_SIZE as uint64,
 *                   PMIX_LOCAL_RANK as uint32 (OpenPMIx: uint32/uint32/uint16)
 * Exits with the first failing rank's status (128 + signal for a signal),
 * after killing the other ranks; 0 when every rank exits 0. A rank calling
 * PMIx_Abort ends the job with its code. The whole job is bounded by 120 s.
 */
#include "config.h"

#include <pmix.h>
#include <pmix_server.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static atomic_int abort_code = -1;

static pmix_status_t cb_connected(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cbfunc,
                                  void *cbdata)
{
    (void)proc;
    (void)obj;
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t cb_finalized(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cbfunc,
                                  void *cbdata)
{
    (void)proc;
    (void)obj;
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t cb_abort(const pmix_proc_t *proc, void *obj, int status, const char msg[],
                              pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cbfunc,
                              void *cbdata)
{
    (void)obj;
    (void)procs;
    (void)nprocs;
    fprintf(stderr, "pmix_mini_server: rank %u aborted with %d: %s\n", proc->rank, status,
            msg ? msg : "");
    atomic_store(&abort_code, status != 0 ? status : 1);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static void fence_release(void *cbdata)
{
    free(cbdata);
}

static pmix_status_t cb_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata,
                              pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    char *copy = NULL;

    (void)procs;
    (void)nprocs;
    (void)info;
    (void)ninfo;
    /* Every rank is local: this server's contribution is the whole fence.
     * The library owns `data`; it gets a copy back. */
    if (ndata > 0) {
        copy = malloc(ndata);
        if (copy == NULL)
            return PMIX_ERR_NOMEM;
        memcpy(copy, data, ndata);
    }
    cbfunc(PMIX_SUCCESS, copy, ndata, cbdata, fence_release, copy);
    return PMIX_SUCCESS;
}

static pmix_server_module_t module = {
    .client_connected = cb_connected,
    .client_finalized = cb_finalized,
    .abort = cb_abort,
    .fence_nb = cb_fence,
};

typedef struct {
    atomic_int done;
    pmix_status_t status;
} op_wait_t;

static void op_done(pmix_status_t status, void *cbdata)
{
    op_wait_t *w = cbdata;

    w->status = status;
    atomic_store(&w->done, 1);
}

static pmix_status_t op_wait(op_wait_t *w, pmix_status_t rc)
{
    struct timespec ts = { 0, 1000000 };

    if (rc == PMIX_OPERATION_SUCCEEDED)
        return PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS)
        return rc;
    for (int i = 0; i < 30000 && !atomic_load(&w->done); i++)
        nanosleep(&ts, NULL);
    return atomic_load(&w->done) ? w->status : PMIX_ERR_TIMEOUT;
}

static int omitted(const char *list, const char *key)
{
    size_t n = strlen(key);

    for (const char *p = list; p != NULL && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        if (strncmp(p, key, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return 1;
    }
    return 0;
}

#define ADD(_key, _val, _type) \
    do { \
        if (rc == PMIX_SUCCESS) \
            rc = PMIx_Info_list_add(list, _key, _val, _type); \
    } while (0)

static pmix_status_t register_job(const char *nspace, int n, const char *omit, const char *peers,
                                  int int_types, const char *host)
{
    pmix_status_t rc = PMIX_SUCCESS;
    pmix_data_array_t darray;
    op_wait_t w = { 0 };
    char all_peers[4096] = "";
    uint32_t size = (uint32_t)n, one = 1, zero = 0;
    uint64_t size64 = (uint64_t)n;
    char ppn[4096], *node_regex = NULL, *proc_regex = NULL;
    void *list = PMIx_Info_list_start();

    for (int r = 0; r < n; r++)
        snprintf(all_peers + strlen(all_peers), sizeof(all_peers) - strlen(all_peers), "%s%d",
                 r ? "," : "", r);
    if (!omitted(omit, "job_size")) {
        if (int_types)
            ADD(PMIX_JOB_SIZE, &size64, PMIX_UINT64);
        else
            ADD(PMIX_JOB_SIZE, &size, PMIX_UINT32);
    }
    /* The node and process maps, as real servers send them. From these
     * OpenPMIx derives PMIX_LOCAL_PEERS and others by itself, so a test
     * of a missing key leaves them out too. */
    if (!omitted(omit, "maps")) {
        snprintf(ppn, sizeof(ppn), "%s", all_peers);
        if (PMIx_generate_regex(host, &node_regex) != PMIX_SUCCESS ||
            PMIx_generate_ppn(ppn, &proc_regex) != PMIX_SUCCESS)
            rc = PMIX_ERR_NOMEM;
        ADD(PMIX_NODE_MAP, node_regex, PMIX_REGEX);
        ADD(PMIX_PROC_MAP, proc_regex, PMIX_REGEX);
    }
    ADD(PMIX_UNIV_SIZE, &size, PMIX_UINT32);
    ADD(PMIX_MAX_PROCS, &size, PMIX_UINT32);
    ADD(PMIX_NUM_NODES, &one, PMIX_UINT32);
    ADD(PMIX_LOCAL_SIZE, &size, PMIX_UINT32);
    if (!omitted(omit, "local_peers"))
        ADD(PMIX_LOCAL_PEERS, peers ? peers : all_peers, PMIX_STRING);
    for (int r = 0; r < n && rc == PMIX_SUCCESS; r++) {
        void *sub = PMIx_Info_list_start();
        pmix_data_array_t sarray;
        pmix_rank_t prank = (pmix_rank_t)r;
        uint16_t lrank16 = (uint16_t)r;
        uint32_t lrank32 = (uint32_t)r;
        int zero_int = 0;

        rc = PMIx_Info_list_add(sub, PMIX_RANK, &prank, PMIX_PROC_RANK);
        if (rc == PMIX_SUCCESS)
            rc = PMIx_Info_list_add(sub, PMIX_APPNUM, &zero, PMIX_UINT32);
        if (rc == PMIX_SUCCESS)
            rc = int_types ? PMIx_Info_list_add(sub, PMIX_LOCAL_RANK, &lrank32, PMIX_UINT32)
                           : PMIx_Info_list_add(sub, PMIX_LOCAL_RANK, &lrank16, PMIX_UINT16);
        if (rc == PMIX_SUCCESS)
            rc = PMIx_Info_list_add(sub, PMIX_NODE_RANK, &lrank16, PMIX_UINT16);
        if (rc == PMIX_SUCCESS && !omitted(omit, "nodeid"))
            rc = int_types ? PMIx_Info_list_add(sub, PMIX_NODEID, &zero_int, PMIX_INT)
                           : PMIx_Info_list_add(sub, PMIX_NODEID, &zero, PMIX_UINT32);
        if (rc == PMIX_SUCCESS && !omitted(omit, "hostname"))
            rc = PMIx_Info_list_add(sub, PMIX_HOSTNAME, host, PMIX_STRING);
        if (rc == PMIX_SUCCESS)
            rc = PMIx_Info_list_convert(sub, &sarray);
        PMIx_Info_list_release(sub);
        if (rc == PMIX_SUCCESS) {
            rc = PMIx_Info_list_add(list, PMIX_PROC_DATA, &sarray, PMIX_DATA_ARRAY);
            PMIX_DATA_ARRAY_DESTRUCT(&sarray);
        }
    }
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Info_list_convert(list, &darray);
    PMIx_Info_list_release(list);
    free(node_regex);
    free(proc_regex);
    if (rc != PMIX_SUCCESS)
        return rc;
    rc = PMIx_server_register_nspace(nspace, n, (pmix_info_t *)darray.array, darray.size,
                                     op_done, &w);
    rc = op_wait(&w, rc);
    PMIX_DATA_ARRAY_DESTRUCT(&darray);
    for (int r = 0; r < n && rc == PMIX_SUCCESS; r++) {
        op_wait_t wc = { 0 };
        pmix_proc_t proc;

        PMIX_LOAD_PROCID(&proc, nspace, (pmix_rank_t)r);
        rc = PMIx_server_register_client(&proc, geteuid(), getegid(), NULL, op_done, &wc);
        rc = op_wait(&wc, rc);
    }
    return rc;
}

static void kill_all(pid_t *pids, int n)
{
    for (int r = 0; r < n; r++) {
        if (pids[r] > 0)
            kill(pids[r], SIGKILL);
    }
}

int main(int argc, char **argv)
{
    const char *omit = "", *peers = NULL;
    char nspace[PMIX_MAX_NSLEN + 1], tmpdir[] = "/tmp/pmix-mini.XXXXXX", host[256];
    int n = 0, int_types = 0, argi = 1, exit_code = 0, left, had_hwloc_env;
    pmix_info_t info[2];
    pmix_status_t rc;
    pid_t *pids;
    time_t deadline;

    for (; argi < argc && argv[argi][0] == '-'; argi++) {
        if (strcmp(argv[argi], "-n") == 0 && argi + 1 < argc)
            n = atoi(argv[++argi]);
        else if (strcmp(argv[argi], "--omit") == 0 && argi + 1 < argc)
            omit = argv[++argi];
        else if (strcmp(argv[argi], "--peers") == 0 && argi + 1 < argc)
            peers = argv[++argi];
        else if (strcmp(argv[argi], "--int-types") == 0)
            int_types = 1;
        else
            break;
    }
    if (n < 1 || n > 64 || argi >= argc) {
        fprintf(stderr, "usage: pmix_mini_server -n N [--omit KEYS] [--peers STRING] "
                        "[--int-types] PROGRAM [ARGS...]\n");
        return 2;
    }
    if (mkdtemp(tmpdir) == NULL) {
        perror("pmix_mini_server: mkdtemp");
        return 1;
    }
    gethostname(host, sizeof(host));
    host[sizeof(host) - 1] = '\0';
    snprintf(nspace, sizeof(nspace), "mini.%d", (int)getpid());
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, tmpdir, PMIX_STRING);
    /* The server loads the machine's topology with hwloc, whose PCI
     * discovery parses pci.ids: ~30 s under ASan here. The ranks never
     * need PCI devices from this server, so it is skipped (only while the
     * server starts: the ranks inherit the environment). */
    had_hwloc_env = getenv("HWLOC_COMPONENTS") != NULL;
    if (!had_hwloc_env)
        setenv("HWLOC_COMPONENTS", "-pci", 1);
    rc = PMIx_server_init(&module, info, 2);
    if (!had_hwloc_env)
        unsetenv("HWLOC_COMPONENTS");
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "pmix_mini_server: PMIx_server_init: %s\n", PMIx_Error_string(rc));
        rmdir(tmpdir);
        return 1;
    }
    rc = register_job(nspace, n, omit, peers, int_types, host);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "pmix_mini_server: registering the job: %s\n", PMIx_Error_string(rc));
        exit_code = 1;
        goto out_finalize;
    }
    pids = calloc((size_t)n, sizeof(pid_t));
    if (pids == NULL) {
        exit_code = 1;
        goto out_finalize;
    }
    for (int r = 0; r < n; r++) {
        char **env = NULL;
        pmix_proc_t proc;
        size_t k = 0;

        /* PMIx_server_setup_fork adds to an argv-style array it grows. */
        while (environ[k] != NULL)
            k++;
        env = calloc(k + 1, sizeof(char *));
        for (size_t i = 0; env != NULL && i < k; i++)
            env[i] = strdup(environ[i]);
        PMIX_LOAD_PROCID(&proc, nspace, (pmix_rank_t)r);
        if (env == NULL || PMIx_server_setup_fork(&proc, &env) != PMIX_SUCCESS) {
            fprintf(stderr, "pmix_mini_server: cannot set up rank %d\n", r);
            kill_all(pids, n);
            exit_code = 1;
            break;
        }
        pids[r] = fork();
        if (pids[r] == 0) {
            execve(argv[argi], argv + argi, env);
            fprintf(stderr, "pmix_mini_server: exec %s: %s\n", argv[argi], strerror(errno));
            _exit(127);
        }
        for (size_t i = 0; env[i] != NULL; i++)
            free(env[i]);
        free(env);
    }
    left = n;
    deadline = time(NULL) + 120;
    while (left > 0) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);

        if (pid > 0) {
            int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

            for (int r = 0; r < n; r++) {
                if (pids[r] == pid) {
                    pids[r] = 0;
                    left--;
                    if (code != 0 && exit_code == 0) {
                        fprintf(stderr, "pmix_mini_server: rank %d exited with %d\n", r, code);
                        exit_code = code;
                        kill_all(pids, n);
                    }
                }
            }
            continue;
        }
        if (pid < 0 && errno != EINTR)
            break;
        if (atomic_load(&abort_code) >= 0 && exit_code == 0) {
            exit_code = atomic_load(&abort_code);
            kill_all(pids, n);
        }
        if (time(NULL) > deadline && exit_code == 0) {
            fprintf(stderr, "pmix_mini_server: the job did not end within 120 s\n");
            exit_code = 124;
            kill_all(pids, n);
        }
        usleep(2000);
    }
    free(pids);
out_finalize:
    PMIx_server_finalize();
    {
        char cmd[64];

        /* the server's rendezvous files; the directory is ours alone */
        snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "pmix_mini_server: could not remove %s\n", tmpdir);
    }
    return exit_code;
}
