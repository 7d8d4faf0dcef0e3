#include "config.h"

#include "launcher/spawn.h"
#include "launcher/cli.h"
#include "common/error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

/* Append `entry` (taken) to the NULL-terminated *env of *n entries. */
static int env_append(char ***env, size_t *n, size_t *cap, char *entry)
{
    if (*n + 2 > *cap) {
        size_t grown_cap = *cap ? *cap * 2 : 64;
        char **grown = realloc(*env, grown_cap * sizeof(*grown));

        if (grown == NULL)
            return -1;
        *env = grown;
        *cap = grown_cap;
    }
    (*env)[(*n)++] = entry;
    (*env)[*n] = NULL;
    return 0;
}

rtm_status_t rtrun_env_build(char **user_vars, size_t nuser_vars, char ***env_p)
{
    char **env = NULL;
    size_t n = 0, cap = 0;

    if (env_p == NULL || (nuser_vars > 0 && user_vars == NULL))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_env_build: bad argument");
    /* Plain malloc'd strings in a malloc'd NULL-terminated array, as PMIx's
     * argv helpers (PMIx_server_setup_fork grows it) expect; no length
     * limit of our own: execve's is checked before the fork (rtrun_spawn). */
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        char *copy = strdup(*e);

        if (copy == NULL || env_append(&env, &n, &cap, copy) != 0) {
            free(copy);
            goto err_no_memory;
        }
    }
    for (size_t i = 0; i < nuser_vars; i++) {
        const char *var = user_vars[i], *eq = strchr(var, '=');
        size_t name_len = eq ? (size_t)(eq - var) : strlen(var);
        const char *value;
        char *entry;
        size_t k;

        /* -x VAR forwards rtrun's own value: the user named the variable,
         * so this is not a tunable read behind their back. */
        if (eq != NULL) {
            value = eq + 1;
        } else {
            value = getenv(var);
            if (value == NULL)
                continue; /* nothing to forward; rtrun warned at startup */
        }
        entry = malloc(name_len + strlen(value) + 2);
        if (entry == NULL)
            goto err_no_memory;
        sprintf(entry, "%.*s=%s", (int)name_len, var, value);
        for (k = 0; k < n; k++)
            if (strncmp(env[k], entry, name_len + 1) == 0)
                break;
        if (k < n) {
            free(env[k]);
            env[k] = entry;
        } else if (env_append(&env, &n, &cap, entry) != 0) {
            free(entry);
            goto err_no_memory;
        }
    }
    if (env == NULL && env_append(&env, &n, &cap, NULL) != 0)
        goto err_no_memory; /* an empty environment: still an array */
    *env_p = env;
    return RTM_OK;

err_no_memory:
    rtrun_env_free(env);
    return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory building a rank's environment");
}

void rtrun_env_free(char **env)
{
    if (env == NULL)
        return;
    for (char **e = env; *e != NULL; e++)
        free(*e);
    free(env);
}

static int is_executable_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Why `path`, which exists, cannot be executed. */
static const char *not_exec_reason(const char *path)
{
    struct stat st;

    if (stat(path, &st) != 0)
        return "cannot be examined";
    if (S_ISDIR(st.st_mode))
        return "is a directory";
    if (!S_ISREG(st.st_mode))
        return "is not a regular file";
    return "not an executable file (no execute permission)";
}

rtm_status_t rtrun_resolve_program(const char *prog, char **path_p, int *exit_code_p)
{
    const char *search, *p;
    char candidate[PATH_MAX];
    int found_not_exec = 0;

    if (path_p == NULL || exit_code_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_resolve_program: bad argument");
    if (prog == NULL || prog[0] == '\0') {
        *exit_code_p = RTRUN_EXIT_USAGE;
        return rtm_error_set(RTM_ERR_INVALID_ARG, "the program name is empty (\"\")");
    }
    if (strchr(prog, '/') != NULL) {
        if (is_executable_file(prog)) {
            *path_p = strdup(prog);
            if (*path_p != NULL)
                return RTM_OK;
            *exit_code_p = RTRUN_EXIT_FAILURE;
            return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory");
        }
        *exit_code_p = access(prog, F_OK) == 0 ? RTRUN_EXIT_NOEXEC : RTRUN_EXIT_NOTFOUND;
        return rtm_error_set(RTM_ERR_INVALID_ARG, "cannot run \"%s\": %s", prog,
                             *exit_code_p == RTRUN_EXIT_NOEXEC ? not_exec_reason(prog)
                                                               : "no such file");
    }
    /* The same search exec does; PATH is the user's, not a tunable. */
    search = getenv("PATH");
    if (search == NULL)
        search = "/usr/local/bin:/usr/bin:/bin";
    for (p = search;; ) {
        size_t len = strcspn(p, ":");

        snprintf(candidate, sizeof(candidate), "%.*s/%s", len ? (int)len : 1, len ? p : ".",
                 prog);
        if (is_executable_file(candidate)) {
            *path_p = strdup(candidate);
            if (*path_p != NULL)
                return RTM_OK;
            *exit_code_p = RTRUN_EXIT_FAILURE;
            return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory");
        }
        if (access(candidate, F_OK) == 0)
            found_not_exec = 1;
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    *exit_code_p = found_not_exec ? RTRUN_EXIT_NOEXEC : RTRUN_EXIT_NOTFOUND;
    return rtm_error_set(RTM_ERR_INVALID_ARG, "cannot run \"%s\": %s", prog,
                         found_not_exec ? "found in PATH but not executable"
                                        : "command not found in PATH");
}

static int make_pipe(int fds[2])
{
    return pipe2(fds, O_CLOEXEC);
}

static void child_fail(const char *what, const char *path, int code)
{
    /* Only async-signal-safe calls here: write, _exit. */
    const char *err = strerror(errno);

    (void)!write(STDERR_FILENO, "rtrun: ", 7);
    (void)!write(STDERR_FILENO, what, strlen(what));
    if (path != NULL) {
        (void)!write(STDERR_FILENO, " ", 1);
        (void)!write(STDERR_FILENO, path, strlen(path));
    }
    (void)!write(STDERR_FILENO, ": ", 2);
    (void)!write(STDERR_FILENO, err, strlen(err));
    (void)!write(STDERR_FILENO, "\n", 1);
    _exit(code);
}

/* Linux refuses (E2BIG) any one argument or environment string longer than
 * this, whatever ARG_MAX says (MAX_ARG_STRLEN, 32 pages). */
#define EXEC_STRING_MAX ((size_t)32 * 4096)

/* What execve would refuse with E2BIG, said before the fork: the total of
 * the strings and their pointers above sysconf(_SC_ARG_MAX) (a quarter of
 * the stack limit), or one string above EXEC_STRING_MAX. */
static rtm_status_t check_exec_size(const rtrun_spawn_req_t *req)
{
    long arg_max = sysconf(_SC_ARG_MAX);
    size_t total = 0, longest = 0;
    const char *longest_str = "";
    char *const *lists[2] = {req->argv, req->envp};

    for (int l = 0; l < 2; l++) {
        for (char *const *p = lists[l]; *p != NULL; p++) {
            size_t len = strlen(*p) + 1;

            total += len + sizeof(char *);
            if (len > longest) {
                longest = len;
                longest_str = *p;
            }
        }
    }
    if (longest > EXEC_STRING_MAX)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "cannot start rank %d: %s \"%.*s...\" is %zu bytes long, and the kernel takes at most %zu bytes for one argument or environment variable (execve: E2BIG); pass the data in a file instead",
                             req->rank, strchr(longest_str, '=') ? "the variable" : "the argument",
                             (int)strcspn(longest_str, "="), longest_str, longest - 1,
                             EXEC_STRING_MAX - 1);
    if (arg_max > 0 && total > (size_t)arg_max)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "cannot start rank %d: its arguments and environment take %zu bytes, more than the %ld bytes execve accepts (sysconf ARG_MAX, a quarter of the stack limit: raise it with ulimit -s, or pass fewer or shorter -x variables)",
                             req->rank, total, arg_max);
    return RTM_OK;
}

int rtrun_spawn_own_session(int local_ranks)
{
    cpu_set_t set;
    long cpus = 0;

    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        cpus = CPU_COUNT(&set);
    if (cpus <= 0)
        cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus <= 0 || local_ranks <= cpus;
}

rtm_status_t rtrun_spawn(const rtrun_spawn_req_t *req, pid_t *pid_p, rtrun_spawn_fds_t *fds_p)
{
    int in_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
    int devnull = -1;
    pid_t parent = getpid();
    pid_t pid;
    rtm_status_t status;

    if (req == NULL || req->path == NULL || req->argv == NULL || req->envp == NULL ||
        pid_p == NULL || fds_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_spawn: bad argument");
    status = check_exec_size(req);
    if (status != RTM_OK)
        return status;

    if (req->want_stdin) {
        if (make_pipe(in_pipe) != 0)
            goto err_syscall;
    } else {
        devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (devnull < 0)
            goto err_syscall;
    }
    if (make_pipe(out_pipe) != 0 || make_pipe(err_pipe) != 0)
        goto err_syscall;

    pid = fork();
    if (pid < 0)
        goto err_syscall;
    if (pid == 0) {
        sigset_t none;
        int in_fd = req->want_stdin ? in_pipe[0] : devnull;

        /* Its own process group: rtrun signals the rank and anything it
         * starts as one, and a terminal's ^C reaches rtrun only, which
         * forwards it. Its own session too when the ranks have a CPU each
         * (rtrun_spawn_own_session: a CPU share of its own under autogroup
         * scheduling; docs/launcher.md, "Sessions"). */
        if (req->own_session)
            setsid();
        else
            setpgid(0, 0);
        /* The rank dies with rtrun, even when rtrun is SIGKILLed. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(RTRUN_EXIT_FAILURE);
        if (dup2(in_fd, STDIN_FILENO) < 0 || dup2(out_pipe[1], STDOUT_FILENO) < 0 ||
            dup2(err_pipe[1], STDERR_FILENO) < 0)
            _exit(RTRUN_EXIT_FAILURE);
        /* Drop every other descriptor (PMIx sockets, other ranks' pipes). */
        syscall(SYS_close_range, 3U, ~0U, 0U);
        if (req->cpuset != NULL && sched_setaffinity(0, sizeof(*req->cpuset), req->cpuset) != 0)
            child_fail("cannot bind rank to its core", NULL, RTRUN_EXIT_FAILURE);
        /* rtrun blocks the signals it reads through signalfd and ignores
         * SIGPIPE; both would be inherited through exec. SIGINT and SIGTERM
         * may have been ignored when rtrun started (a background job of a
         * script): the ranks get them in their default state, or the ones
         * rtrun forwards would do nothing. SIGHUP stays as rtrun found it,
         * so nohup keeps working. */
        signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execve(req->path, req->argv, req->envp);
        if (errno == E2BIG)
            child_fail("arguments and environment too large for execve of", req->path,
                       RTRUN_EXIT_NOEXEC);
        child_fail("cannot execute", req->path,
                   errno == ENOENT ? RTRUN_EXIT_NOTFOUND : RTRUN_EXIT_NOEXEC);
    }

    /* A rank of its own session is not made a group leader here as well:
     * it could no longer setsid. Until the child has, its group does not
     * exist, and the signalling falls back to the pid alone. */
    if (!req->own_session)
        setpgid(pid, pid);
    if (req->want_stdin)
        close(in_pipe[0]);
    else
        close(devnull);
    close(out_pipe[1]);
    close(err_pipe[1]);
    fcntl(out_pipe[0], F_SETFL, O_NONBLOCK);
    fcntl(err_pipe[0], F_SETFL, O_NONBLOCK);
    if (req->want_stdin)
        fcntl(in_pipe[1], F_SETFL, O_NONBLOCK);
    fds_p->stdin_w = req->want_stdin ? in_pipe[1] : -1;
    fds_p->stdout_r = out_pipe[0];
    fds_p->stderr_r = err_pipe[0];
    *pid_p = pid;
    return RTM_OK;

err_syscall:
    status = rtm_error_set(RTM_ERR_INTERNAL, "cannot start rank %d: %s", req->rank,
                           strerror(errno));
    for (int i = 0; i < 2; i++) {
        if (in_pipe[i] >= 0)
            close(in_pipe[i]);
        if (out_pipe[i] >= 0)
            close(out_pipe[i]);
        if (err_pipe[i] >= 0)
            close(err_pipe[i]);
    }
    if (devnull >= 0)
        close(devnull);
    return status;
}
