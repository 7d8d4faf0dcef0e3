/*
 * rtrun: start a job's ranks on this host, serve them PMIx, forward their
 * stdio and signals, and end the whole job when one rank fails.
 *
 * One thread owns the job: the main loop below polls a signalfd (SIGCHLD,
 * SIGINT, SIGTERM, SIGHUP), the event pipe PMIx callbacks write to, and the
 * ranks' stdio pipes. PMIx's own thread never touches the job.
 */
#include "config.h"

#include "launcher/bind.h"
#include "launcher/cleanup.h"
#include "launcher/cli.h"
#include "launcher/iof.h"
#include "launcher/job.h"
#include "launcher/pmix_server.h"
#include "launcher/spawn.h"
#include "common/error.h"
#include "common/log.h"
#include "common/rtconfig.h"
#include "common/timer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* Seconds between SIGTERM and SIGKILL when the job ends: long enough for a
 * rank to flush and exit, short enough that a failure ends the job within
 * a few seconds. */
#define KILL_GRACE_SEC 2.0
/* After the last rank exits, how long output still held by processes the
 * ranks left behind may take to drain. */
#define DRAIN_SEC 1.0
/* How long failures are gathered before rtrun names the rank that failed
 * first (see reap_children). */
#define FAILURE_SETTLE_SEC 0.25

/* A rank that failed, waiting to be judged with the others that failed at
 * about the same time. */
typedef struct reaped_rank {
    struct rtrun_rank *rk;
    int                wstatus;
    double             last_ran;
} reaped_rank_t;

typedef struct rtrun_ctx {
    rtrun_opts_t        opts;
    rtrun_job_t        *job;
    rtrun_topo_t       *topo;
    char               *prog_path;
    char                tmpdir[PATH_MAX];
    int                 signal_fd;
    int                 event_pipe[2];
    int                 pmix_started;
    int                 job_registered;
    rtrun_iof_stream_t *out;         /* per rank */
    rtrun_iof_stream_t *err;         /* per rank */
    rtrun_iof_stdin_t   in;
    reaped_rank_t      *failed;      /* failed ranks not yet judged (nprocs entries) */
    int                 nfailed;
    double              judge_at;    /* when to name the failed rank; 0: none pending */
    int                 ending;      /* the job is being torn down */
    int                 exit_code;
    double              kill_at;     /* SIGKILL the ranks still running; 0: not armed */
    double              timeout_at;  /* --timeout; 0: none */
} rtrun_ctx_t;

/* One line to rtrun's stderr in one write, so it never splits a rank's line. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    int n;

    memcpy(line, "rtrun: ", 7);
    va_start(ap, fmt);
    n = vsnprintf(line + 7, sizeof(line) - 9, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    n = (n > (int)sizeof(line) - 9) ? (int)sizeof(line) - 9 : n;
    n += 7;
    line[n++] = '\n';
    rtrun_iof_write_all(STDERR_FILENO, line, (size_t)n);
}

static int running_ranks(const rtrun_ctx_t *ctx)
{
    int n = 0;

    for (int r = 0; r < ctx->job->nprocs; r++)
        n += ctx->job->ranks[r].state == RTRUN_RANK_RUNNING;
    return n;
}

static void signal_ranks(rtrun_ctx_t *ctx, int sig)
{
    for (int r = 0; r < ctx->job->nprocs; r++) {
        rtrun_rank_t *rk = &ctx->job->ranks[r];

        /* The whole process group: the rank and whatever it started. */
        if (rk->state == RTRUN_RANK_RUNNING && killpg(rk->pid, sig) != 0 && errno == ESRCH)
            kill(rk->pid, sig);
    }
}

/* Start ending the job: SIGTERM now, SIGKILL after the grace period. The
 * first reason to end sets the exit code. */
static void end_job(rtrun_ctx_t *ctx, int exit_code, int sig)
{
    if (ctx->ending)
        return;
    ctx->ending = 1;
    ctx->exit_code = exit_code;
    rtrun_iof_stdin_close(&ctx->in);
    signal_ranks(ctx, sig);
    ctx->kill_at = rtm_time_now() + KILL_GRACE_SEC;
}

static void drain_rank_output(rtrun_ctx_t *ctx, int r)
{
    int multi = ctx->job->nprocs > 1 || ctx->opts.tag_output;

    if (ctx->out[r].fd >= 0)
        rtrun_iof_stream_read(&ctx->out[r], multi);
    if (ctx->err[r].fd >= 0)
        rtrun_iof_stream_read(&ctx->err[r], multi);
}

/* "(3 other ranks killed)" for the failure line. */
static void others_killed(const rtrun_ctx_t *ctx, const rtrun_rank_t *self, int also_failed,
                          char *buf, size_t len)
{
    int others = running_ranks(ctx) - (self->state == RTRUN_RANK_RUNNING) + also_failed;

    if (others == 0)
        snprintf(buf, len, "no other rank was running");
    else
        snprintf(buf, len, "%d other rank%s killed", others, others == 1 ? "" : "s");
}

static void on_pmix_event(rtrun_ctx_t *ctx, const rtrun_pmix_event_t *ev)
{
    rtrun_rank_t *rk;
    char others[64];
    int code;

    if (ev->rank < 0 || ev->rank >= ctx->job->nprocs)
        return;
    rk = &ctx->job->ranks[ev->rank];
    switch (ev->type) {
    case RTRUN_PMIX_EV_CONNECTED:
        rk->connected = 1;
        rtm_debug("rank %d connected", ev->rank);
        break;
    case RTRUN_PMIX_EV_FINALIZED:
        rk->finalized = 1;
        rtm_debug("rank %d finalized", ev->rank);
        break;
    case RTRUN_PMIX_EV_ABORT:
        if (ctx->ending)
            break;
        /* An exit code that is 0 modulo 256 would read as success. */
        code = ev->status & 0xff;
        if (code == 0)
            code = RTRUN_EXIT_FAILURE;
        drain_rank_output(ctx, ev->rank);
        others_killed(ctx, rk, 0, others, sizeof(others));
        say("rank %d (%s, pid %d) called abort with code %d: %s; ending the job (%s)", ev->rank,
            ctx->job->hostname, (int)rk->pid, ev->status, ev->msg[0] ? ev->msg : "(no message)",
            others);
        end_job(ctx, code, SIGTERM);
        break;
    }
}

static void drain_events(rtrun_ctx_t *ctx)
{
    rtrun_pmix_event_t ev;

    for (;;) {
        ssize_t n = read(ctx->event_pipe[0], &ev, sizeof(ev));

        if (n == (ssize_t)sizeof(ev)) {
            on_pmix_event(ctx, &ev);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        break; /* EAGAIN: empty (events are written whole, never in parts) */
    }
}

/* How bad an exit is, for choosing which rank to blame when several are
 * reaped at once: a rank that died first often makes its peers fail (their
 * fence returns an error), so "killed by a signal" outranks "exited with a
 * code", which outranks "exited 0 without finalizing". */
static int exit_severity(const rtrun_rank_t *rk, int wstatus)
{
    if (WIFSIGNALED(wstatus))
        return 3;
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) != 0)
        return 2;
    if (rk->connected && !rk->finalized)
        return 1;
    return 0;
}

/* When a dead child last ran, from /proc/<pid>/sched (readable while it is
 * a zombie, where the kernel provides it); -1 if unknown. Among ranks
 * reaped together, the one that stopped running first died first. */
static double last_ran(pid_t pid)
{
    char path[64], line[256];
    double t = -1;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/sched", (int)pid);
    f = fopen(path, "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, "se.exec_start", 13) == 0) {
            char *colon = strchr(line, ':');

            if (colon != NULL)
                t = strtod(colon + 1, NULL);
            break;
        }
    }
    fclose(f);
    return t;
}

/* also_failed: other ranks that failed on their own right after rk (their
 * fence broke when rk died); they count with the ranks rtrun kills. */
static void report_failure(rtrun_ctx_t *ctx, const rtrun_rank_t *rk, int wstatus,
                           int also_failed)
{
    char others[64];
    int code;

    others_killed(ctx, rk, also_failed, others, sizeof(others));
    if (WIFSIGNALED(wstatus)) {
        int sig = WTERMSIG(wstatus);

        say("rank %d (%s, pid %d) was killed by signal %d (%s); ending the job (%s)", rk->rank,
            ctx->job->hostname, (int)rk->pid, sig, strsignal(sig), others);
        code = 128 + sig;
    } else if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) != 0) {
        say("rank %d (%s, pid %d) exited with code %d; ending the job (%s)", rk->rank,
            ctx->job->hostname, (int)rk->pid, WEXITSTATUS(wstatus), others);
        code = WEXITSTATUS(wstatus);
    } else {
        say("rank %d (%s, pid %d) exited with code 0 without calling PMIx_Finalize after it called PMIx_Init (the other ranks may wait for it forever); ending the job (%s)",
            rk->rank, ctx->job->hostname, (int)rk->pid, others);
        code = RTRUN_EXIT_FAILURE;
    }
    end_job(ctx, code, SIGTERM);
}

/* Blame the worst of the failed ranks reaped so far, and end the job. */
static void judge_failures(rtrun_ctx_t *ctx)
{
    reaped_rank_t *worst = NULL;
    int worst_severity = 0;

    ctx->judge_at = 0;
    for (int i = 0; i < ctx->nfailed; i++) {
        reaped_rank_t *f = &ctx->failed[i];
        int sev = exit_severity(f->rk, f->wstatus);

        if (worst == NULL || sev > worst_severity ||
            (sev == worst_severity && f->last_ran >= 0 && worst->last_ran >= 0 &&
             f->last_ran < worst->last_ran)) {
            worst = f;
            worst_severity = sev;
        }
    }
    if (worst != NULL && !ctx->ending)
        report_failure(ctx, worst->rk, worst->wstatus, ctx->nfailed - 1);
    ctx->nfailed = 0;
}

static void reap_children(rtrun_ctx_t *ctx)
{
    int nreaped = 0;

    for (;;) {
        siginfo_t si;
        int wstatus;
        double ran;
        rtrun_rank_t *rk;

        /* Peek first: /proc/<pid>/sched is gone once the child is reaped. */
        memset(&si, 0, sizeof(si));
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (si.si_pid == 0)
            break;
        ran = last_ran(si.si_pid);
        if (waitpid(si.si_pid, &wstatus, 0) != si.si_pid)
            continue;
        rk = rtrun_job_find_pid(ctx->job, si.si_pid);
        if (rk == NULL)
            continue;
        if (nreaped++ == 0) {
            /* Every PMIx event a rank caused was written before it could
             * exit: read them first (a finalize or an abort explains it). */
            drain_events(ctx);
        }
        rk->wait_status = wstatus;
        rk->state = RTRUN_RANK_EXITED;
        drain_rank_output(ctx, rk->rank);
        if (ctx->ending || exit_severity(rk, wstatus) == 0 || ctx->nfailed >= ctx->job->nprocs)
            continue;
        ctx->failed[ctx->nfailed].rk = rk;
        ctx->failed[ctx->nfailed].wstatus = wstatus;
        ctx->failed[ctx->nfailed].last_ran = ran;
        ctx->nfailed++;
        /* A rank's death makes its peers fail soon after (a fence returns
         * an error), and they may even be reaped first: let the failures
         * settle briefly before naming the one that started it. */
        if (ctx->judge_at == 0)
            ctx->judge_at = rtm_time_now() + FAILURE_SETTLE_SEC;
    }
    if (ctx->judge_at > 0 && running_ranks(ctx) == 0)
        judge_failures(ctx);
}

static void on_signal(rtrun_ctx_t *ctx, int sig)
{
    if (sig == SIGCHLD) {
        reap_children(ctx);
        return;
    }
    if (!ctx->ending) {
        say("received SIG%s; forwarding it to the ranks and ending the job%s", sigabbrev_np(sig),
            sig == SIGINT ? " (press Ctrl-C again to kill the ranks at once)" : "");
        end_job(ctx, 128 + sig, sig);
        return;
    }
    if (running_ranks(ctx) > 0) {
        say("received SIG%s again; killing the ranks", sigabbrev_np(sig));
        signal_ranks(ctx, SIGKILL);
    }
}

static void drain_signals(rtrun_ctx_t *ctx)
{
    struct signalfd_siginfo si;

    while (read(ctx->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM || si.ssi_signo == SIGHUP)
            on_signal(ctx, (int)si.ssi_signo);
        else if (si.ssi_signo == SIGCHLD)
            on_signal(ctx, SIGCHLD);
    }
}

static void on_deadlines(rtrun_ctx_t *ctx, double now)
{
    if (ctx->judge_at > 0 && now >= ctx->judge_at)
        judge_failures(ctx);
    if (ctx->timeout_at > 0 && now >= ctx->timeout_at && !ctx->ending) {
        char list[512];
        int n = rtrun_job_running_list(ctx->job, list, sizeof(list));

        say("timeout of %ld s expired with %d rank%s still running (rank%s %s); ending the job",
            ctx->opts.timeout_sec, n, n == 1 ? "" : "s", n == 1 ? "" : "s", list);
        end_job(ctx, RTRUN_EXIT_TIMEOUT, SIGTERM);
    }
    if (ctx->kill_at > 0 && now >= ctx->kill_at) {
        char list[512];

        if (rtrun_job_running_list(ctx->job, list, sizeof(list)) > 0) {
            rtm_info("ranks %s still running %.0f s after SIGTERM; sending SIGKILL", list,
                     KILL_GRACE_SEC);
            signal_ranks(ctx, SIGKILL);
        }
        ctx->kill_at = 0;
    }
}

static int streams_open(const rtrun_ctx_t *ctx)
{
    for (int r = 0; r < ctx->job->nprocs; r++) {
        if (ctx->out[r].fd >= 0 || ctx->err[r].fd >= 0)
            return 1;
    }
    return 0;
}

/* The main loop: runs until every rank is reaped and its output drained. */
static void run_loop(rtrun_ctx_t *ctx)
{
    int nfds_max = 4 + 2 * ctx->job->nprocs;
    struct pollfd *pfds = calloc((size_t)nfds_max, sizeof(*pfds));
    int *pfd_rank = calloc((size_t)nfds_max, sizeof(*pfd_rank));
    double drain_until = 0;
    int leftovers_killed = 0;

    if (pfds == NULL || pfd_rank == NULL) {
        say("out of memory for the event loop; ending the job");
        end_job(ctx, RTRUN_EXIT_FAILURE, SIGKILL);
        ctx->kill_at = 0;
    }
    for (;;) {
        double now = rtm_time_now(), wake = 0;
        int timeout_ms = -1, n = 0, rc;

        if (running_ranks(ctx) == 0) {
            if (!leftovers_killed) {
                /* Anything the ranks left in their process groups goes
                 * with them; it may hold their stdout open. */
                for (int r = 0; r < ctx->job->nprocs; r++) {
                    if (ctx->job->ranks[r].pid > 0)
                        killpg(ctx->job->ranks[r].pid, SIGKILL);
                }
                leftovers_killed = 1;
                drain_until = now + DRAIN_SEC;
            }
            if (!streams_open(ctx) || now >= drain_until || pfds == NULL)
                break;
        }
        if (pfds == NULL)
            break;

        pfds[n].fd = ctx->signal_fd;
        pfds[n].events = POLLIN;
        pfd_rank[n++] = -1;
        pfds[n].fd = ctx->event_pipe[0];
        pfds[n].events = POLLIN;
        pfd_rank[n++] = -2;
        if (rtrun_iof_stdin_wants_read(&ctx->in)) {
            pfds[n].fd = ctx->in.src_fd;
            pfds[n].events = POLLIN;
            pfd_rank[n++] = -3;
        }
        if (rtrun_iof_stdin_wants_write(&ctx->in)) {
            pfds[n].fd = ctx->in.dst_fd;
            pfds[n].events = POLLOUT;
            pfd_rank[n++] = -4;
        }
        for (int r = 0; r < ctx->job->nprocs; r++) {
            if (ctx->out[r].fd >= 0) {
                pfds[n].fd = ctx->out[r].fd;
                pfds[n].events = POLLIN;
                pfd_rank[n++] = 2 * r;
            }
            if (ctx->err[r].fd >= 0) {
                pfds[n].fd = ctx->err[r].fd;
                pfds[n].events = POLLIN;
                pfd_rank[n++] = 2 * r + 1;
            }
        }

        if (ctx->timeout_at > 0 && !ctx->ending)
            wake = ctx->timeout_at;
        if (ctx->judge_at > 0 && (wake == 0 || ctx->judge_at < wake))
            wake = ctx->judge_at;
        if (ctx->kill_at > 0 && (wake == 0 || ctx->kill_at < wake))
            wake = ctx->kill_at;
        if (drain_until > 0 && (wake == 0 || drain_until < wake))
            wake = drain_until;
        if (wake > 0)
            timeout_ms = wake <= now ? 0 : (int)((wake - now) * 1000.0) + 1;

        rc = poll(pfds, (nfds_t)n, timeout_ms);
        if (rc < 0 && errno != EINTR) {
            say("poll failed: %s; ending the job", strerror(errno));
            end_job(ctx, RTRUN_EXIT_FAILURE, SIGKILL);
            ctx->kill_at = 0;
        }
        if (rc > 0) {
            /* PMIx events before exits, so an exit is judged knowing
             * whether the rank finalized or aborted. */
            for (int i = 0; i < n; i++) {
                if (pfd_rank[i] == -2 && pfds[i].revents)
                    drain_events(ctx);
            }
            for (int i = 0; i < n; i++) {
                if (pfd_rank[i] == -1 && pfds[i].revents)
                    drain_signals(ctx);
            }
            for (int i = 0; i < n; i++) {
                int who = pfd_rank[i];

                if (pfds[i].revents == 0 || who < -2)
                    continue;
                if (who >= 0) {
                    rtrun_iof_stream_t *s = (who & 1) ? &ctx->err[who / 2] : &ctx->out[who / 2];

                    if (s->fd == pfds[i].fd)
                        rtrun_iof_stream_read(s, ctx->job->nprocs > 1 || ctx->opts.tag_output);
                }
            }
            for (int i = 0; i < n; i++) {
                if (pfd_rank[i] == -3 && pfds[i].revents && ctx->in.src_fd == pfds[i].fd)
                    rtrun_iof_stdin_on_readable(&ctx->in);
                else if (pfd_rank[i] == -4 && pfds[i].revents && ctx->in.dst_fd == pfds[i].fd)
                    rtrun_iof_stdin_on_writable(&ctx->in);
            }
        }
        on_deadlines(ctx, rtm_time_now());
    }
    /* Past the drain time: whatever is still open is dropped. */
    for (int r = 0; r < ctx->job->nprocs; r++) {
        rtrun_iof_stream_close(&ctx->out[r]);
        rtrun_iof_stream_close(&ctx->err[r]);
    }
    free(pfds);
    free(pfd_rank);
}

static rtm_status_t start_ranks(rtrun_ctx_t *ctx)
{
    rtrun_job_t *job = ctx->job;

    for (int r = 0; r < job->nprocs; r++) {
        rtrun_rank_t *rk = &job->ranks[r];
        rtrun_spawn_req_t req;
        rtrun_spawn_fds_t fds;
        cpu_set_t cpuset;
        char where[300];
        char **env = NULL;
        rtm_status_t status;

        status = rtrun_env_build(ctx->opts.env_vars, ctx->opts.nenv_vars, &env);
        if (status == RTM_OK)
            status = rtrun_pmix_setup_fork(job, r, &env);
        if (status == RTM_OK && rk->core >= 0)
            status = rtrun_topo_core_cpuset(ctx->topo, rk->core, &cpuset, where, sizeof(where));
        if (status != RTM_OK) {
            rtrun_env_free(env);
            return status;
        }
        if (ctx->opts.report_bindings) {
            if (rk->core >= 0)
                say("rank %d (%s) bound to %s", r, job->hostname, where);
            else
                say("rank %d (%s) not bound (may run on any of the %d cores)", r, job->hostname,
                    job->ncores);
        }
        req.rank = r;
        req.path = ctx->prog_path;
        req.argv = ctx->opts.prog_argv;
        req.envp = env;
        req.want_stdin = (r == 0);
        req.cpuset = rk->core >= 0 ? &cpuset : NULL;
        status = rtrun_spawn(&req, &rk->pid, &fds);
        rtrun_env_free(env);
        if (status != RTM_OK)
            return status;
        rk->state = RTRUN_RANK_RUNNING;
        rtrun_iof_stream_init(&ctx->out[r], fds.stdout_r, STDOUT_FILENO, r, ctx->opts.tag_output);
        rtrun_iof_stream_init(&ctx->err[r], fds.stderr_r, STDERR_FILENO, r, ctx->opts.tag_output);
        if (r == 0)
            rtrun_iof_stdin_init(&ctx->in, fcntl(STDIN_FILENO, F_GETFD) >= 0 ? STDIN_FILENO : -1,
                                 fds.stdin_w);
        rtm_debug("rank %d started: pid %d", r, (int)rk->pid);
    }
    return RTM_OK;
}

static int block_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGCHLD);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    /* Under nohup SIGHUP is ignored: leave it so, for rtrun and its ranks. */
    if (signal(SIGHUP, SIG_IGN) != SIG_IGN) {
        signal(SIGHUP, SIG_DFL);
        sigaddset(set, SIGHUP);
    }
    return sigprocmask(SIG_BLOCK, set, NULL);
}

static int setup(rtrun_ctx_t *ctx)
{
    sigset_t set;
    rtm_status_t status;
    int code;

    status = rtrun_topo_load(&ctx->topo);
    if (status != RTM_OK) {
        say("%s", rtm_last_error());
        return RTRUN_EXIT_FAILURE;
    }
    status = rtrun_job_map(&ctx->opts, rtm_log_hostname(), rtrun_topo_ncores(ctx->topo),
                           &ctx->job);
    if (status != RTM_OK) {
        say("%s", rtm_last_error());
        return RTRUN_EXIT_USAGE;
    }
    status = rtrun_resolve_program(ctx->opts.prog_argv[0], &ctx->prog_path, &code);
    if (status != RTM_OK) {
        say("%s", rtm_last_error());
        return code;
    }
    ctx->out = calloc((size_t)ctx->job->nprocs, sizeof(*ctx->out));
    ctx->err = calloc((size_t)ctx->job->nprocs, sizeof(*ctx->err));
    ctx->failed = calloc((size_t)ctx->job->nprocs, sizeof(*ctx->failed));
    if (ctx->out == NULL || ctx->err == NULL || ctx->failed == NULL) {
        say("out of memory for %d ranks", ctx->job->nprocs);
        return RTRUN_EXIT_FAILURE;
    }
    for (int r = 0; r < ctx->job->nprocs; r++) {
        ctx->out[r].fd = -1;
        ctx->err[r].fd = -1;
    }
    rtrun_iof_stdin_init(&ctx->in, -1, -1);
    rtrun_job_make_nspace(ctx->job->hostname, getpid(), ctx->job->nspace,
                          sizeof(ctx->job->nspace));

    /* Blocked before PMIx starts its threads, so they inherit the mask and
     * these signals reach only the signalfd. */
    if (block_signals(&set) != 0 || (ctx->signal_fd = signalfd(-1, &set,
                                                               SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
        say("cannot set up signal handling: %s", strerror(errno));
        return RTRUN_EXIT_FAILURE;
    }
    signal(SIGPIPE, SIG_IGN);
    if (pipe2(ctx->event_pipe, O_CLOEXEC) != 0) {
        say("cannot create the event pipe: %s", strerror(errno));
        return RTRUN_EXIT_FAILURE;
    }
    fcntl(ctx->event_pipe[0], F_SETFL, O_NONBLOCK);

    /* What SIGKILLed rtruns before us could not remove. */
    rtrun_cleanup_stale(ctx->job->hostname);
    /* Short path: PMIx puts unix socket names in it (108-byte limit). */
    snprintf(ctx->tmpdir, sizeof(ctx->tmpdir), "%s/%s%d.XXXXXX", RTRUN_TMPDIR_PARENT,
             RTRUN_TMPDIR_PREFIX, (int)getpid());
    if (mkdtemp(ctx->tmpdir) == NULL) {
        say("cannot create the job's temp directory %s: %s", ctx->tmpdir, strerror(errno));
        ctx->tmpdir[0] = '\0';
        return RTRUN_EXIT_FAILURE;
    }
    status = rtrun_pmix_server_start(ctx->tmpdir, ctx->job->nspace, ctx->event_pipe[1],
                                     rtrun_topo_hwloc(ctx->topo));
    if (status != RTM_OK) {
        say("%s", rtm_last_error());
        return RTRUN_EXIT_FAILURE;
    }
    ctx->pmix_started = 1;
    status = rtrun_pmix_register_job(ctx->job, ctx->tmpdir, ctx->opts.prog_argc,
                                     ctx->opts.prog_argv);
    if (status != RTM_OK) {
        say("%s", rtm_last_error());
        return RTRUN_EXIT_FAILURE;
    }
    ctx->job_registered = 1;
    rtm_debug("job %s: %d ranks on %s (%d cores, %s)", ctx->job->nspace, ctx->job->nprocs,
              ctx->job->hostname, ctx->job->ncores, ctx->job->bound ? "bound" : "not bound");
    return RTRUN_EXIT_OK;
}

static void teardown(rtrun_ctx_t *ctx)
{
    if (ctx->job != NULL && ctx->job->nspace[0] != '\0')
        rtrun_cleanup_shm(ctx->job->nspace);
    if (ctx->job_registered)
        rtrun_pmix_deregister_job(ctx->job);
    if (ctx->pmix_started)
        rtrun_pmix_server_stop();
    if (ctx->tmpdir[0] != '\0')
        rtrun_cleanup_tree(ctx->tmpdir);
    if (ctx->event_pipe[0] >= 0)
        close(ctx->event_pipe[0]);
    if (ctx->event_pipe[1] >= 0)
        close(ctx->event_pipe[1]);
    if (ctx->signal_fd >= 0)
        close(ctx->signal_fd);
    rtrun_iof_stdin_close(&ctx->in);
    free(ctx->out);
    free(ctx->err);
    free(ctx->failed);
    free(ctx->prog_path);
    rtrun_job_free(ctx->job);
    rtrun_topo_free(ctx->topo);
    rtrun_cli_free(&ctx->opts);
}

int main(int argc, char **argv)
{
    rtrun_ctx_t ctx;
    rtm_status_t status;
    int code;

    memset(&ctx, 0, sizeof(ctx));
    ctx.signal_fd = -1;
    ctx.event_pipe[0] = ctx.event_pipe[1] = -1;
    rtm_log_set_identity("rtrun", -1);
    /* rtrun itself only uses the log level; a bad RTM_* value is the
     * ranks' business (they report it when they load the same table). */
    if (rtm_config_load() != RTM_OK)
        say("warning: %s", rtm_last_error());

    status = rtrun_cli_parse(argc, argv, &ctx.opts);
    if (status != RTM_OK) {
        say("%s", rtm_last_error());
        rtrun_cli_print_usage(stderr);
        return RTRUN_EXIT_USAGE;
    }
    if (ctx.opts.action == RTRUN_ACTION_HELP) {
        rtrun_cli_print_help(stdout);
        rtrun_cli_free(&ctx.opts);
        return RTRUN_EXIT_OK;
    }
    if (ctx.opts.action == RTRUN_ACTION_VERSION) {
        printf("rtrun (librtmsg) %s\n", PACKAGE_VERSION);
        rtrun_cli_free(&ctx.opts);
        return RTRUN_EXIT_OK;
    }
    for (size_t i = 0; i < ctx.opts.nenv_vars; i++) {
        if (strchr(ctx.opts.env_vars[i], '=') == NULL && getenv(ctx.opts.env_vars[i]) == NULL)
            say("warning: -x %s: %s is not set in rtrun's environment; nothing to forward",
                ctx.opts.env_vars[i], ctx.opts.env_vars[i]);
    }

    code = setup(&ctx);
    if (code == RTRUN_EXIT_OK) {
        if (ctx.opts.timeout_sec > 0)
            ctx.timeout_at = rtm_time_now() + (double)ctx.opts.timeout_sec;
        status = start_ranks(&ctx);
        if (status != RTM_OK) {
            say("%s; ending the job", rtm_last_error());
            end_job(&ctx, RTRUN_EXIT_FAILURE, SIGTERM);
        }
        run_loop(&ctx);
        code = ctx.exit_code;
    }
    teardown(&ctx);
    return code;
}
