/*
 * Starting one rank: fork, then in the child only async-signal-safe work
 * (process group, parent-death signal, stdio, binding, signal mask) before
 * exec. Everything that allocates (environment, cpu set, program path) is
 * prepared by the caller before fork.
 */
#ifndef RTM_LAUNCHER_SPAWN_H
#define RTM_LAUNCHER_SPAWN_H

#include "rtmsg.h"

#include <sched.h>
#include <sys/types.h>

typedef struct rtrun_spawn_req {
    int              rank;
    const char      *path;       /* resolved program path */
    char *const     *argv;
    char *const     *envp;
    int              want_stdin; /* give the rank a stdin pipe; else /dev/null */
    const cpu_set_t *cpuset;     /* NULL: not bound */
    int              own_session;/* 1: the rank leads a session of its own
                                  * (setsid); 0: a process group of its own
                                  * in the launcher's session (see
                                  * rtrun_spawn_own_session) */
} rtrun_spawn_req_t;

typedef struct rtrun_spawn_fds {
    int stdin_w;   /* rtrun's end of the rank's stdin, -1 if /dev/null */
    int stdout_r;
    int stderr_r;
} rtrun_spawn_fds_t;

/* Whether the ranks of a job that runs `local_ranks` ranks on this host
 * should each lead a session of their own. With the kernel's autogroup
 * scheduling (on by default) every session is one CPU share: ranks in the
 * launcher's session split one share between them against other work on the
 * host, ranks in sessions of their own get one each (as MPICH's do). But
 * sched_yield hands the CPU only to tasks of the caller's own group, so ranks
 * that share CPUs and yield to one another while they wait (RTM_IDLE_WAIT's
 * auto test: more of the job's ranks on the host than CPUs) must share a
 * session, or a yield keeps the CPU for the rest of the slice and the rank it
 * waits for does not run (4 ranks on 2 CPUs: an HPCG-like loop 1.4-2.5x
 * slower, MPI_Barrier 4-43 us -> 1.9-2.7 ms). So: a session each when the
 * job's ranks here are at most the CPUs this process may run on, the
 * launcher's session (a process group each) when they are more. */
int rtrun_spawn_own_session(int local_ranks);

/* Start the rank in its own process group (and session: req->own_session).
 * Parent-side fds are close-on-exec and non-blocking. */
rtm_status_t rtrun_spawn(const rtrun_spawn_req_t *req, pid_t *pid_p, rtrun_spawn_fds_t *fds_p);

/* Find `prog` as exec would (PATH when it has no '/'). On failure returns
 * an error and sets *exit_code_p to 127 (not found), 126 (not executable:
 * a directory, no execute permission), 2 (an empty name) or 1 (out of
 * memory). */
rtm_status_t rtrun_resolve_program(const char *prog, char **path_p, int *exit_code_p);

/* Build the environment of one rank: rtrun's own, plus the -x variables
 * ("VAR=VALUE", or "VAR" for rtrun's value of VAR). The array is malloc'd
 * the way PMIx's argv helpers expect (PMIx_server_setup_fork grows it). */
rtm_status_t rtrun_env_build(char **user_vars, size_t nuser_vars, char ***env_p);
void rtrun_env_free(char **env);

#endif
