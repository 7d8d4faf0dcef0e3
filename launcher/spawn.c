#include "config.h"

#include "launcher/spawn.h"
#include "launcher/cli.h"
#include "common/error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pmix_common.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

rtm_status_t rtrun_env_build(char **user_vars, size_t nuser_vars, char ***env_p)
{
    char **env = NULL;
    pmix_status_t rc = PMIX_SUCCESS;

    if (env_p == NULL || (nuser_vars > 0 && user_vars == NULL))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_env_build: bad argument");
    for (char **e = environ; e != NULL && *e != NULL && rc == PMIX_SUCCESS; e++)
        PMIX_ARGV_APPEND(rc, env, *e);
    for (size_t i = 0; i < nuser_vars && rc == PMIX_SUCCESS; i++) {
        const char *eq = strchr(user_vars[i], '=');
        char name[256];
        const char *value;

        snprintf(name, sizeof(name), "%.*s",
                 (int)(eq ? (size_t)(eq - user_vars[i]) : strlen(user_vars[i])), user_vars[i]);
        /* -x VAR forwards rtrun's own value: the user named the variable,
         * so this is not a tunable read behind their back. */
        value = eq ? eq + 1 : getenv(name);
        if (value == NULL)
            continue; /* nothing to forward; rtrun warned at startup */
        PMIX_SETENV(rc, name, value, &env);
    }
    if (rc != PMIX_SUCCESS || env == NULL) {
        rtrun_env_free(env);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory building a rank's environment");
    }
    *env_p = env;
    return RTM_OK;
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

rtm_status_t rtrun_resolve_program(const char *prog, char **path_p, int *exit_code_p)
{
    const char *search, *p;
    char candidate[PATH_MAX];
    int found_not_exec = 0;

    if (prog == NULL || path_p == NULL || exit_code_p == NULL || prog[0] == '\0')
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_resolve_program: bad argument");
    if (strchr(prog, '/') != NULL) {
        if (is_executable_file(prog)) {
            *path_p = strdup(prog);
            return *path_p ? RTM_OK : rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory");
        }
        *exit_code_p = access(prog, F_OK) == 0 ? RTRUN_EXIT_NOEXEC : RTRUN_EXIT_NOTFOUND;
        return rtm_error_set(RTM_ERR_INVALID_ARG, "cannot run \"%s\": %s", prog,
                             *exit_code_p == RTRUN_EXIT_NOEXEC ? "not an executable file"
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
            return *path_p ? RTM_OK : rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory");
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

        /* Own process group: rtrun signals the rank and anything it
         * starts as one, and a terminal's ^C reaches rtrun only, which
         * forwards it. */
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
        child_fail("cannot execute", req->path,
                   errno == ENOENT ? RTRUN_EXIT_NOTFOUND : RTRUN_EXIT_NOEXEC);
    }

    /* Also here, so the group exists before rtrun ever signals it. */
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
