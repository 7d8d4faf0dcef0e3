/*
 * The host-side job engine (see engine.h).
 */
#include "config.h"

#include "launcher/engine.h"
#include "launcher/cleanup.h"
#include "launcher/iof.h"
#include "launcher/pmix_gate.h"
#include "launcher/spawn.h"
#include "common/error.h"
#include "common/log.h"
#include "common/timer.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a poll entry is for. */
enum {
    ENGINE_FD_SIGNALS,
    ENGINE_FD_EVENTS,
    ENGINE_FD_OUTPUT,
    ENGINE_FD_PROGRAM,
};

/* Bytes read from a rank's pipe per read(). */
#define ENGINE_READ_CHUNK 65536

void rtrun_engine_init(rtrun_engine_t *eng, const rtrun_engine_ops_t *ops, void *ctx)
{
    memset(eng, 0, sizeof(*eng));
    eng->ops = ops;
    eng->ctx = ctx;
    eng->signal_fd = -1;
    eng->event_pipe[0] = eng->event_pipe[1] = -1;
}

rtm_status_t rtrun_engine_attach_job(rtrun_engine_t *eng, rtrun_job_t *job, int all_local,
                                     int self_host)
{
    int *out_fd = malloc((size_t)job->nprocs * sizeof(int));
    int *err_fd = malloc((size_t)job->nprocs * sizeof(int));

    if (out_fd == NULL || err_fd == NULL) {
        free(out_fd);
        free(err_fd);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for %d ranks", job->nprocs);
    }
    for (int r = 0; r < job->nprocs; r++)
        out_fd[r] = err_fd[r] = -1;
    eng->job = job;
    eng->all_local = all_local;
    eng->self_host = self_host;
    eng->out_fd = out_fd;
    eng->err_fd = err_fd;
    return RTM_OK;
}

/* Ranks the engine knows: none until a job is attached. */
static int nranks(const rtrun_engine_t *eng)
{
    return eng->job != NULL ? eng->job->nprocs : 0;
}

void rtrun_engine_fini(rtrun_engine_t *eng)
{
    for (int i = 0; i < 2; i++)
        if (eng->event_pipe[i] >= 0)
            close(eng->event_pipe[i]);
    eng->event_pipe[0] = eng->event_pipe[1] = -1;
    if (eng->signal_fd >= 0)
        close(eng->signal_fd);
    eng->signal_fd = -1;
    rtrun_engine_close_output(eng);
    free(eng->out_fd);
    free(eng->err_fd);
    eng->out_fd = eng->err_fd = NULL;
}

/* ---- set-up: signals, events, the PMIx server ----------------------------- */

rtm_status_t rtrun_engine_open_signals(rtrun_engine_t *eng)
{
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGUSR1);   /* a job-state report (launcher/report.h) */
    /* Under nohup SIGHUP is ignored: leave it so, for us and the ranks. */
    if (signal(SIGHUP, SIG_IGN) != SIG_IGN) {
        signal(SIGHUP, SIG_DFL);
        sigaddset(&set, SIGHUP);
    }
    signal(SIGPIPE, SIG_IGN);
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0 ||
        (eng->signal_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0)
        return rtm_error_set(RTM_ERR_PMIX, "cannot set up signal handling: %s", strerror(errno));
    return RTM_OK;
}

rtm_status_t rtrun_engine_open_events(rtrun_engine_t *eng)
{
    if (pipe2(eng->event_pipe, O_CLOEXEC) != 0)
        return rtm_error_set(RTM_ERR_PMIX, "cannot create the event pipe: %s", strerror(errno));
    fcntl(eng->event_pipe[0], F_SETFL, O_NONBLOCK);
    return RTM_OK;
}

rtm_status_t rtrun_engine_start_pmix(rtrun_engine_t *eng, void *hwloc_topology,
                                     const char *host_name, int self_host, int prog_argc,
                                     char **prog_argv)
{
    rtm_status_t status;

    /* Short path: PMIx puts unix socket names in it (108-byte limit). */
    snprintf(eng->tmpdir, sizeof(eng->tmpdir), "%s/%s%d.XXXXXX", RTRUN_TMPDIR_PARENT,
             RTRUN_TMPDIR_PREFIX, (int)getpid());
    if (mkdtemp(eng->tmpdir) == NULL) {
        status = rtm_error_set(RTM_ERR_PMIX, "cannot create the job's temp directory %s: %s",
                               eng->tmpdir, strerror(errno));
        eng->tmpdir[0] = '\0';
        return status;
    }
    status = rtrun_pmix_server_start(eng->tmpdir, eng->job->nspace, eng->event_pipe[1],
                                     hwloc_topology, host_name, self_host);
    if (status != RTM_OK)
        return status;
    eng->pmix_started = 1;
    status = rtrun_pmix_register_job(eng->job, eng->tmpdir, prog_argc, prog_argv);
    if (status != RTM_OK)
        return status;
    eng->job_registered = 1;
    return RTM_OK;
}

void rtrun_engine_stop_pmix(rtrun_engine_t *eng)
{
    int all_finalized = eng->job != NULL && rtrun_job_local_finalized(eng->job);

    /* After an abort or a killed rank, OpenPMIx 4.2's progress thread may
     * still be tearing down the lost clients (and reporting their loss)
     * when the job would be deregistered: it then used the job's freed
     * objects and died on a garbage mutex ("pthread_mutex_lock.c:450:
     * Assertion `e != ESRCH || !robust' failed", 1 in ~180 aborted jobs
     * under load, core seen). The process exits right after this and the
     * library's files are in the job's temp dir, which the caller
     * removes: the job is deregistered only when every rank finalized. */
    if (eng->job_registered && all_finalized)
        rtrun_pmix_deregister_job(eng->job);
    eng->job_registered = 0;
    if (eng->pmix_started)
        rtrun_pmix_server_stop(all_finalized);
    eng->pmix_started = 0;
}

void rtrun_engine_remove_tmpdir(rtrun_engine_t *eng)
{
    if (eng->tmpdir[0] != '\0')
        rtrun_cleanup_tree(eng->tmpdir);
}

/* ---- the local ranks ------------------------------------------------------ */

int rtrun_engine_rank_is_local(const rtrun_engine_t *eng, const rtrun_rank_t *rk)
{
    return eng->all_local || rk->node_id == eng->self_host;
}

static void report_binding(const rtrun_job_t *job, int r, const char *where)
{
    if (job->bound)
        rtrun_say("rank %d (%s) bound to %s", r, job->hostname, where);
    else
        rtrun_say("rank %d (%s) not bound (may run on any of the %d cores)", r, job->hostname,
                  job->ncores);
}

rtm_status_t rtrun_engine_start_rank(rtrun_engine_t *eng, rtrun_rank_t *rk)
{
    rtrun_job_t *job = eng->job;
    int r = rk->rank;
    rtrun_spawn_req_t req;
    rtrun_spawn_fds_t fds;
    cpu_set_t cpuset;
    char where[300];
    char **env = NULL;
    rtm_status_t status;

    /* Everything that allocates happens before the fork (spawn.h). */
    status = rtrun_env_build(eng->env_vars, eng->nenv_vars, &env);
    if (status == RTM_OK)
        status = rtrun_pmix_setup_fork(job, r, &env);
    if (status == RTM_OK && job->bound)
        status = rtrun_topo_rank_cpuset(eng->topo, job->bind, job->map_by, rk->local_rank,
                                        &cpuset, where, sizeof(where));
    if (status != RTM_OK) {
        rtrun_env_free(env);
        return status;
    }
    if (eng->report_bindings)
        report_binding(job, r, where);
    req.rank = r;
    req.path = eng->prog_path;
    req.argv = eng->prog_argv;
    req.envp = env;
    req.want_stdin = (r == 0); /* the job's stdin goes to rank 0 */
    req.cpuset = job->bound ? &cpuset : NULL;
    req.own_session = rtrun_spawn_own_session(
        job->local_host >= 0 ? job->hosts[job->local_host].nranks : job->nprocs);
    status = rtrun_spawn(&req, &rk->pid, &fds);
    rtrun_env_free(env);
    if (status != RTM_OK)
        return status;
    /* The PMIx gate admits this process and its descendants as rank r. */
    rtrun_pmix_gate_rank_pid(r, rk->pid);
    rk->state = RTRUN_RANK_RUNNING;
    eng->out_fd[r] = fds.stdout_r;
    eng->err_fd[r] = fds.stderr_r;
    eng->ops->on_rank_started(eng->ctx, rk, fds.stdin_w);
    return RTM_OK;
}

void rtrun_engine_signal_ranks(rtrun_engine_t *eng, int sig)
{
    for (int r = 0; r < nranks(eng); r++) {
        rtrun_rank_t *rk = &eng->job->ranks[r];

        /* The whole process group: the rank and whatever it started. */
        if (rtrun_engine_rank_is_local(eng, rk) && rk->state == RTRUN_RANK_RUNNING &&
            killpg(rk->pid, sig) != 0 && errno == ESRCH)
            kill(rk->pid, sig);
    }
}

void rtrun_engine_kill_leftovers(rtrun_engine_t *eng)
{
    for (int r = 0; r < nranks(eng); r++) {
        rtrun_rank_t *rk = &eng->job->ranks[r];

        if (rk->pid > 0 && rtrun_engine_rank_is_local(eng, rk) &&
            killpg(rk->pid, SIGKILL) != 0 && errno == ESRCH)
            kill(rk->pid, SIGKILL);   /* not in its own session yet */
    }
}

int rtrun_engine_running_ranks(const rtrun_engine_t *eng)
{
    int n = 0;

    for (int r = 0; r < nranks(eng); r++)
        n += rtrun_engine_rank_is_local(eng, &eng->job->ranks[r]) &&
             eng->job->ranks[r].state == RTRUN_RANK_RUNNING;
    return n;
}

static rtrun_rank_t *find_local_pid(rtrun_engine_t *eng, pid_t pid)
{
    for (int r = 0; r < nranks(eng); r++) {
        rtrun_rank_t *rk = &eng->job->ranks[r];

        if (rk->pid == pid && rk->state == RTRUN_RANK_RUNNING &&
            rtrun_engine_rank_is_local(eng, rk))
            return rk;
    }
    return NULL;
}

void rtrun_engine_reap(rtrun_engine_t *eng)
{
    for (;;) {
        int wstatus;
        pid_t pid = waitpid(-1, &wstatus, WNOHANG);
        rtrun_rank_t *rk;

        if (pid < 0 && errno == EINTR)
            continue;
        if (pid <= 0)
            break;
        rk = find_local_pid(eng, pid);
        if (rk == NULL) {
            eng->ops->on_other_exit(eng->ctx, pid, wstatus);
            continue;
        }
        /* Every PMIx event a rank caused was written before it could exit:
         * read them first (a finalize or an abort explains it). Again for
         * each rank: one that exited after the previous read may have
         * written its finalize after it. */
        rtrun_engine_drain_events(eng);
        rk->wait_status = wstatus;
        rk->state = RTRUN_RANK_EXITED;
        /* Reaped: the kernel may give the pid to anyone now. */
        rtrun_pmix_gate_rank_pid(rk->rank, 0);
        rtrun_engine_drain_output(eng, rk->rank);
        eng->ops->on_rank_exit(eng->ctx, rk, wstatus);
    }
}

void rtrun_engine_drain_events(rtrun_engine_t *eng)
{
    rtrun_pmix_event_t ev;

    if (eng->event_pipe[0] < 0)
        return;
    for (;;) {
        ssize_t n = read(eng->event_pipe[0], &ev, sizeof(ev));

        if (n == (ssize_t)sizeof(ev)) {
            eng->ops->on_pmix_event(eng->ctx, &ev);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        break; /* EAGAIN: empty (events are written whole, never in parts) */
    }
}

/* ---- the ranks' output ---------------------------------------------------- */

/* Hand what one pipe holds to on_output; at EOF the pipe closes. */
static void read_output(rtrun_engine_t *eng, int r, int stream)
{
    int *fdp = stream == 1 ? &eng->out_fd[r] : &eng->err_fd[r];
    char buf[ENGINE_READ_CHUNK];

    while (*fdp >= 0) {
        ssize_t n = read(*fdp, buf, sizeof(buf));

        if (n > 0) {
            if (eng->ops->on_output(eng->ctx, r, stream, buf, (size_t)n, 0) != 0)
                return;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        /* EOF (or a read error, handled the same way) */
        close(*fdp);
        *fdp = -1;
        eng->ops->on_output(eng->ctx, r, stream, NULL, 0, 1);
    }
}

void rtrun_engine_drain_output(rtrun_engine_t *eng, int rank)
{
    read_output(eng, rank, 1);
    read_output(eng, rank, 2);
}

int rtrun_engine_output_open(const rtrun_engine_t *eng)
{
    for (int r = 0; r < nranks(eng); r++) {
        if (eng->out_fd[r] >= 0 || eng->err_fd[r] >= 0)
            return 1;
    }
    return 0;
}

void rtrun_engine_close_output(rtrun_engine_t *eng)
{
    for (int r = 0; r < nranks(eng); r++) {
        if (eng->out_fd[r] >= 0)
            close(eng->out_fd[r]);
        if (eng->err_fd[r] >= 0)
            close(eng->err_fd[r]);
        eng->out_fd[r] = eng->err_fd[r] = -1;
    }
}

/* ---- the loop ------------------------------------------------------------- */

static void poll_add(rtrun_engine_t *eng, int fd, short events, int kind, int arg)
{
    if (fd < 0)
        return;
    if (eng->npfds >= eng->cap_pfds) {
        /* max_program_fds was too small: a bug, not a runtime condition */
        rtm_error("event loop: no room to poll fd %d", fd);
        return;
    }
    eng->pfds[eng->npfds].fd = fd;
    eng->pfds[eng->npfds].events = events;
    eng->pfds[eng->npfds].revents = 0;
    eng->ents[eng->npfds].kind = kind;
    eng->ents[eng->npfds].arg = arg;
    eng->npfds++;
}

void rtrun_engine_poll_add(rtrun_engine_t *eng, int fd, short events, int tag)
{
    poll_add(eng, fd, events, ENGINE_FD_PROGRAM, tag);
}

void rtrun_engine_wake_at(rtrun_engine_t *eng, double t)
{
    if (t > 0 && (eng->wake == 0 || t < eng->wake))
        eng->wake = t;
}

void rtrun_engine_stop(rtrun_engine_t *eng)
{
    eng->stopping = 1;
}

/* The poll set of one round; 0 when the program ends the loop. */
static int build_poll_set(rtrun_engine_t *eng, double now)
{
    eng->npfds = 0;
    eng->wake = 0;
    eng->output_paused = 0;
    if (!eng->ops->prepare(eng->ctx, eng, now))
        return 0;
    poll_add(eng, eng->signal_fd, POLLIN, ENGINE_FD_SIGNALS, 0);
    poll_add(eng, eng->event_pipe[0], POLLIN, ENGINE_FD_EVENTS, 0);
    for (int r = 0; r < nranks(eng) && !eng->output_paused; r++) {
        poll_add(eng, eng->out_fd[r], POLLIN, ENGINE_FD_OUTPUT, 2 * r);
        poll_add(eng, eng->err_fd[r], POLLIN, ENGINE_FD_OUTPUT, 2 * r + 1);
    }
    return 1;
}

static void read_signals(rtrun_engine_t *eng)
{
    struct signalfd_siginfo si;

    while (read(eng->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
        eng->ops->on_signal(eng->ctx, (int)si.ssi_signo);
}

/* Whether entry i polled ready for kind (its fd still the one polled:
 * an earlier handler may have closed it). */
static int ready(const rtrun_engine_t *eng, int i, int kind)
{
    return eng->pfds[i].revents != 0 && eng->ents[i].kind == kind && !eng->stopping;
}

static void dispatch(rtrun_engine_t *eng)
{
    /* PMIx events before exits, so an exit is judged knowing whether the
     * rank finalized or aborted. */
    for (int i = 0; i < eng->npfds; i++)
        if (eng->pfds[i].revents != 0 && eng->ents[i].kind == ENGINE_FD_EVENTS)
            rtrun_engine_drain_events(eng);
    for (int i = 0; i < eng->npfds; i++)
        if (ready(eng, i, ENGINE_FD_SIGNALS))
            read_signals(eng);
    for (int i = 0; i < eng->npfds; i++) {
        int r = eng->ents[i].arg / 2, stream = (eng->ents[i].arg & 1) ? 2 : 1;

        if (ready(eng, i, ENGINE_FD_OUTPUT) &&
            (stream == 1 ? eng->out_fd[r] : eng->err_fd[r]) == eng->pfds[i].fd)
            read_output(eng, r, stream);
    }
    for (int i = 0; i < eng->npfds; i++)
        if (ready(eng, i, ENGINE_FD_PROGRAM))
            eng->ops->on_fd(eng->ctx, eng->ents[i].arg, eng->pfds[i].fd, eng->pfds[i].revents);
}

rtm_status_t rtrun_engine_run(rtrun_engine_t *eng, int max_program_fds)
{
    int cap = 2 + 2 * nranks(eng) + (max_program_fds > 0 ? max_program_fds : 0);

    eng->pfds = calloc((size_t)cap, sizeof(*eng->pfds));
    eng->ents = calloc((size_t)cap, sizeof(*eng->ents));
    if (eng->pfds == NULL || eng->ents == NULL) {
        free(eng->pfds);
        free(eng->ents);
        eng->pfds = NULL;
        eng->ents = NULL;
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for the event loop");
    }
    eng->cap_pfds = cap;
    eng->stopping = 0;
    while (!eng->stopping && build_poll_set(eng, rtm_time_now())) {
        double now = rtm_time_now();
        int timeout_ms = -1, rc;

        if (eng->wake > 0)
            timeout_ms = eng->wake <= now ? 0 : (int)((eng->wake - now) * 1000.0) + 1;
        rc = poll(eng->pfds, (nfds_t)eng->npfds, timeout_ms);
        if (rc < 0 && errno != EINTR && eng->ops->on_poll_error(eng->ctx, errno))
            break;
        if (rc > 0)
            dispatch(eng);
        eng->ops->after_poll(eng->ctx, rtm_time_now());
    }
    free(eng->pfds);
    free(eng->ents);
    eng->pfds = NULL;
    eng->ents = NULL;
    eng->npfds = eng->cap_pfds = 0;
    return RTM_OK;
}
