/*
 * rtrun: start a job's ranks on this host, serve them PMIx, forward their
 * stdio and signals, and end the whole job when one rank fails.
 *
 * One thread owns the job: the main loop below polls a signalfd (SIGCHLD,
 * SIGINT, SIGTERM, SIGHUP), the event pipe PMIx callbacks write to, and the
 * ranks' stdio pipes. PMIx's own thread never touches the job.
 */
#include "config.h"

#include "launcher/alloc.h"
#include "launcher/bind.h"
#include "launcher/cleanup.h"
#include "launcher/cli.h"
#include "launcher/daemon.h"
#include "launcher/iof.h"
#include "launcher/job.h"
#include "launcher/pmix_server.h"
#include "launcher/spawn.h"
#include "common/error.h"
#include "common/log.h"
#include "launcher/launcher_config.h"
#include "runtime/rt_config.h"
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
/* After the SIGKILL went down the tree, how long remote ranks may take to
 * be reported gone before rtrun stops waiting for them. */
#define REMOTE_LOST_SEC 5.0
/* Bound on the wait for the launch agents to exit at the end. */
#define AGENT_EXIT_SEC 10.0
/* The launch agent when neither --launch-agent nor RTM_LAUNCH_AGENT says. */
#define DEFAULT_LAUNCH_AGENT "ssh -o BatchMode=yes -T {host}"
/* Children of each daemon in the launch tree when --fanout is not given. */
#define DEFAULT_FANOUT 32

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
    /* multi-host jobs (some rank runs on another host): */
    int                 multi;
    rtd_jobdesc_t       desc;        /* what every rtd gets (desc.job = job, not owned) */
    char               *blob;        /* desc, packed */
    size_t              blob_len;
    rtd_node_t          node;        /* the root of the daemon tree */
    int                 node_ready;
    double              lost_at;     /* give up on remote ranks not reported gone */
    /* rank 0 on another host: rtrun's stdin goes to its rtd (RTD_MSG_STDIN),
     * at most RTD_STDIN_WINDOW bytes ahead of its acks */
    int                 stdin_host;  /* rank 0's host; -1: rank 0 is here (ctx->in) */
    int                 stdin_fd;    /* rtrun's stdin until EOF, else -1 */
    size_t              stdin_inflight;
} rtrun_ctx_t;

/* Whether the rank runs on this host (rtrun spawned it). */
static int rank_is_local(const rtrun_ctx_t *ctx, const rtrun_rank_t *rk)
{
    return !ctx->multi || rk->node_id == ctx->job->local_host;
}

static const char *rank_host(const rtrun_ctx_t *ctx, const rtrun_rank_t *rk)
{
    if (ctx->multi && ctx->job->hosts != NULL && rk->node_id >= 0 &&
        rk->node_id < ctx->job->nhosts)
        return ctx->job->hosts[rk->node_id].name;
    return ctx->job->hostname;
}

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

        /* The whole process group: the rank and whatever it started.
         * A remote rank's pid means nothing here: its rtd signals it. */
        if (rank_is_local(ctx, rk) && rk->state == RTRUN_RANK_RUNNING &&
            killpg(rk->pid, sig) != 0 && errno == ESRCH)
            kill(rk->pid, sig);
    }
    if (ctx->node_ready)
        rtd_node_down(&ctx->node, RTD_MSG_KILL, sig, 0, 0, NULL, 0);
}

/* Ranks the loop still waits for: running ones, and, until the job ends,
 * remote ones whose rtd has not reported them started yet. */
static int pending_ranks(const rtrun_ctx_t *ctx)
{
    int n = 0;

    for (int r = 0; r < ctx->job->nprocs; r++) {
        const rtrun_rank_t *rk = &ctx->job->ranks[r];

        n += rk->state == RTRUN_RANK_RUNNING ||
             (!ctx->ending && rk->state == RTRUN_RANK_NOT_STARTED && !rank_is_local(ctx, rk));
    }
    return n;
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
    if (ctx->multi)
        ctx->lost_at = ctx->kill_at + REMOTE_LOST_SEC;
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

    if (rtd_node_pmix_request(&ctx->node, ev))
        return;
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
            rank_host(ctx, rk), (int)rk->pid, ev->status, ev->msg[0] ? ev->msg : "(no message)",
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
            rank_host(ctx, rk), (int)rk->pid, sig, strsignal(sig), others);
        code = 128 + sig;
    } else if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) != 0) {
        say("rank %d (%s, pid %d) exited with code %d; ending the job (%s)", rk->rank,
            rank_host(ctx, rk), (int)rk->pid, WEXITSTATUS(wstatus), others);
        code = WEXITSTATUS(wstatus);
    } else {
        say("rank %d (%s, pid %d) exited with code 0 without calling PMIx_Finalize after it called PMIx_Init (the other ranks may wait for it forever); ending the job (%s)",
            rk->rank, rank_host(ctx, rk), (int)rk->pid, others);
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

/* A rank is gone (reaped here, or reported by its rtd): keep its failure
 * for judging. */
static void rank_exited(rtrun_ctx_t *ctx, rtrun_rank_t *rk, int wstatus, double ran)
{
    rk->wait_status = wstatus;
    rk->state = RTRUN_RANK_EXITED;
    drain_rank_output(ctx, rk->rank);
    if (ctx->ending || exit_severity(rk, wstatus) == 0 || ctx->nfailed >= ctx->job->nprocs)
        return;
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

static rtrun_rank_t *find_local_pid(rtrun_ctx_t *ctx, pid_t pid)
{
    for (int r = 0; r < ctx->job->nprocs; r++) {
        rtrun_rank_t *rk = &ctx->job->ranks[r];

        if (rk->pid == pid && rk->state == RTRUN_RANK_RUNNING && rank_is_local(ctx, rk))
            return rk;
    }
    return NULL;
}

/* The ranks below a lost rtd are gone with it: stop waiting for them. */
static void subtree_lost(rtrun_ctx_t *ctx, int host)
{
    int p = host >= 0 && host < ctx->job->nhosts ? ctx->node.tree.pos_of_host[host] : -1;

    if (p <= 0)
        return;
    for (int r = 0; r < ctx->job->nprocs; r++) {
        rtrun_rank_t *rk = &ctx->job->ranks[r];
        int q = ctx->node.tree.pos_of_host[rk->node_id];

        if (q > 0 && rtd_tree_in_subtree(&ctx->node.tree, p, q) &&
            rk->state != RTRUN_RANK_EXITED) {
            rk->state = RTRUN_RANK_EXITED;
            rk->wait_status = 0;
            rtrun_iof_stream_feed(&ctx->out[r], NULL, 0, 1, 1);
            rtrun_iof_stream_feed(&ctx->err[r], NULL, 0, 1, 1);
        }
    }
}

/* A daemon reported an error, or one of ours is lost: the job ends. */
static void on_daemon_error(rtrun_ctx_t *ctx, int lost_host, int code, const char *text)
{
    if (!ctx->ending) {
        say("%s; ending the job", text);
        end_job(ctx, code > 0 ? code : RTRUN_EXIT_FAILURE, SIGTERM);
    } else {
        rtm_debug("while ending: %s", text);
    }
    subtree_lost(ctx, lost_host);
}

static void child_lost(rtrun_ctx_t *ctx, rtd_conn_t *c, const char *what)
{
    char text[3072];

    if (c->lost)
        return;
    c->lost = 1;
    rtd_node_child_error(&ctx->node, c, what, text, sizeof(text));
    rtd_conn_close(c);
    on_daemon_error(ctx, c->host, RTRUN_EXIT_FAILURE, text);
}

static void reap_children(rtrun_ctx_t *ctx)
{
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
        if (ctx->node_ready) {
            rtd_conn_t *c = rtd_node_agent_exited(&ctx->node, si.si_pid, wstatus);

            if (c != NULL) {
                char what[128];

                if (WIFSIGNALED(wstatus))
                    snprintf(what, sizeof(what),
                             "its launch agent (pid %d) was killed by signal %d", (int)si.si_pid,
                             WTERMSIG(wstatus));
                else
                    snprintf(what, sizeof(what), "its launch agent (pid %d) exited with code %d",
                             (int)si.si_pid, WEXITSTATUS(wstatus));
                child_lost(ctx, c, what);
                continue;
            }
        }
        rk = find_local_pid(ctx, si.si_pid);
        if (rk == NULL)
            continue;
        /* Every PMIx event a rank caused was written before it could exit:
         * read them first (a finalize or an abort explains it). Again for
         * each rank: one that exited after the previous read may have
         * written its finalize after it. */
        drain_events(ctx);
        rank_exited(ctx, rk, wstatus, ran);
    }
    if (ctx->judge_at > 0 && running_ranks(ctx) == 0)
        judge_failures(ctx);
}

/* A message from the tree for rtrun itself. */
static void on_remote(rtrun_ctx_t *ctx, const rtd_hdr_t *h, const char *payload)
{
    rtrun_rank_t *rk = h->a >= 0 && h->a < ctx->job->nprocs ? &ctx->job->ranks[h->a] : NULL;
    int multi_out = ctx->job->nprocs > 1 || ctx->opts.tag_output;

    switch (h->type) {
    case RTD_MSG_STARTED:
        if (rk != NULL && rk->state == RTRUN_RANK_NOT_STARTED) {
            rk->pid = h->b;
            rk->state = RTRUN_RANK_RUNNING;
            if (ctx->ending) /* KILL went down before it started */
                rtd_node_down(&ctx->node, RTD_MSG_KILL, SIGKILL, 0, 0, NULL, 0);
        }
        break;
    case RTD_MSG_IOF:
        if (rk != NULL)
            rtrun_iof_stream_feed(h->b == 2 ? &ctx->err[h->a] : &ctx->out[h->a], payload, h->len,
                                  h->c, multi_out);
        break;
    case RTD_MSG_EXIT:
        if (rk != NULL && rk->state == RTRUN_RANK_RUNNING) {
            rk->connected |= h->c & 1;
            rk->finalized |= (h->c >> 1) & 1;
            rank_exited(ctx, rk, h->b, -1);
            if (ctx->judge_at > 0 && running_ranks(ctx) == 0)
                judge_failures(ctx);
        }
        break;
    case RTD_MSG_PMIXEV:
        if (rk != NULL) {
            rtrun_pmix_event_t ev;

            memset(&ev, 0, sizeof(ev));
            ev.type = h->b;
            ev.rank = h->a;
            ev.status = h->c;
            snprintf(ev.msg, sizeof(ev.msg), "%.*s", (int)h->len, payload);
            if (ev.type >= RTRUN_PMIX_EV_CONNECTED && ev.type <= RTRUN_PMIX_EV_ABORT)
                on_pmix_event(ctx, &ev);
        }
        break;
    case RTD_MSG_ERROR: {
        char text[3072];

        snprintf(text, sizeof(text), "%.*s", (int)h->len, payload);
        on_daemon_error(ctx, h->a, h->b, text);
        break;
    }
    case RTD_MSG_STDIN_ACK:
        ctx->stdin_inflight -= h->a > 0 && (size_t)h->a <= ctx->stdin_inflight ? (size_t)h->a
                                                                               : ctx->stdin_inflight;
        break;
    default:
        break;
    }
}

static void on_child_conn(rtrun_ctx_t *ctx, rtd_conn_t *c, short revents)
{
    rtd_hdr_t h;
    const char *payload;
    int got;

    if (revents & POLLOUT)
        rtd_conn_flush(c);
    if (!(revents & (POLLIN | POLLHUP | POLLERR)))
        return;
    if (rtd_conn_fill(c) < 0) {
        /* what it sent before closing still counts (its ranks' exits) */
        while (c->fd >= 0 && (got = rtd_conn_next(c, &h, &payload)) > 0) {
            if (rtd_node_handle(&ctx->node, c, &h, payload) == 1) {
                on_remote(ctx, &h, payload);
                rtd_conn_consume(c, &h);
            }
        }
        child_lost(ctx, c, "its connection closed");
        return;
    }
    while (c->fd >= 0 && (got = rtd_conn_next(c, &h, &payload)) != 0) {
        int mine = got < 0 ? -1 : rtd_node_handle(&ctx->node, c, &h, payload);

        if (mine < 0) {
            child_lost(ctx, c, "it sent a malformed message");
            return;
        }
        if (mine == 1) {
            on_remote(ctx, &h, payload);
            rtd_conn_consume(c, &h);
        }
    }
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
    if (ctx->lost_at > 0 && now >= ctx->lost_at && ctx->kill_at == 0) {
        char list[512];
        size_t used = 0;

        /* An rtd that neither reports its ranks gone nor drops its
         * connection: never wait forever for it. */
        list[0] = '\0';
        for (int r = 0; r < ctx->job->nprocs; r++) {
            rtrun_rank_t *rk = &ctx->job->ranks[r];

            if (rank_is_local(ctx, rk) || rk->state != RTRUN_RANK_RUNNING)
                continue;
            rk->state = RTRUN_RANK_EXITED;
            if (used + 16 < sizeof(list))
                used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%d (%s)",
                                         used ? ", " : "", r, rank_host(ctx, rk));
        }
        if (used > 0)
            say("remote ranks %s were not reported gone %.0f s after SIGKILL; giving up on them",
                list, REMOTE_LOST_SEC);
        ctx->lost_at = 0;
    }
    for (int i = 0; ctx->node_ready && i < ctx->node.nchildren; i++) {
        rtd_conn_t *c = &ctx->node.children[i];

        if (!c->hello && !c->lost && now >= c->deadline) {
            char text[96];

            snprintf(text, sizeof(text), "it did not connect back within %ld s",
                     (long)launcher_config.launch_timeout);
            if (c->agent_pid > 0)
                killpg(c->agent_pid, SIGKILL);
            rtd_node_read_agent_err(&ctx->node, c);
            child_lost(ctx, c, text);
        }
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

/* rtrun's stdin towards rank 0's rtd, within the window; EOF (or a read
 * error) is passed on so rank 0 sees its stdin end. */
static void forward_stdin(rtrun_ctx_t *ctx)
{
    char buf[RTD_STDIN_WINDOW];
    ssize_t got = read(ctx->stdin_fd, buf, RTD_STDIN_WINDOW - ctx->stdin_inflight);

    if (got < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (got > 0) {
        rtd_node_route(&ctx->node, RTD_MSG_STDIN, ctx->stdin_host, 0, 0, 0, buf, (size_t)got);
        ctx->stdin_inflight += (size_t)got;
        return;
    }
    ctx->stdin_fd = -1; /* rtrun's stdin is not ours to close */
    rtd_node_route(&ctx->node, RTD_MSG_STDIN, ctx->stdin_host, 0, 0, 1, NULL, 0);
}

/* The main loop: runs until every rank is reaped and its output drained. */
static void run_loop(rtrun_ctx_t *ctx)
{
    int nfds_max = 6 + 2 * ctx->job->nprocs + 2 * (ctx->node_ready ? ctx->node.nchildren : 0);
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

        if (pending_ranks(ctx) == 0) {
            if (!leftovers_killed) {
                /* Anything the ranks left in their process groups goes
                 * with them; it may hold their stdout open. */
                for (int r = 0; r < ctx->job->nprocs; r++) {
                    if (ctx->job->ranks[r].pid > 0 && rank_is_local(ctx, &ctx->job->ranks[r]))
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
        if (ctx->stdin_fd >= 0 && !ctx->ending && ctx->stdin_inflight < RTD_STDIN_WINDOW) {
            pfds[n].fd = ctx->stdin_fd;
            pfds[n].events = POLLIN;
            pfd_rank[n++] = -6;
        }
        for (int i = 0; ctx->node_ready && i < ctx->node.nchildren; i++) {
            rtd_conn_t *c = &ctx->node.children[i];

            if (c->fd >= 0) {
                pfds[n].fd = c->fd;
                pfds[n].events = POLLIN | (c->out_len > c->out_off ? POLLOUT : 0);
                pfd_rank[n++] = -1000 - i;
            }
            if (c->agent_err >= 0) {
                pfds[n].fd = c->agent_err;
                pfds[n].events = POLLIN;
                pfd_rank[n++] = -2000 - i;
            }
            if (!c->hello && !c->lost && (wake == 0 || c->deadline < wake))
                wake = c->deadline;
        }
        if (ctx->node_ready && ctx->node.listen_fd >= 0) {
            pfds[n].fd = ctx->node.listen_fd;
            pfds[n].events = POLLIN;
            pfd_rank[n++] = -5;
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

        if (ctx->timeout_at > 0 && !ctx->ending && (wake == 0 || ctx->timeout_at < wake))
            wake = ctx->timeout_at;
        if (ctx->judge_at > 0 && (wake == 0 || ctx->judge_at < wake))
            wake = ctx->judge_at;
        if (ctx->kill_at > 0 && (wake == 0 || ctx->kill_at < wake))
            wake = ctx->kill_at;
        if (drain_until > 0 && (wake == 0 || drain_until < wake))
            wake = drain_until;
        if (ctx->lost_at > 0 && (wake == 0 || ctx->lost_at < wake))
            wake = ctx->lost_at;
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
                int who = pfd_rank[i];

                if (pfds[i].revents == 0)
                    continue;
                if (who == -5)
                    rtd_node_accept(&ctx->node);
                else if (who <= -2000)
                    rtd_node_read_agent_err(&ctx->node, &ctx->node.children[-2000 - who]);
                else if (who <= -1000 && ctx->node.children[-1000 - who].fd == pfds[i].fd)
                    on_child_conn(ctx, &ctx->node.children[-1000 - who], pfds[i].revents);
            }
            for (int i = 0; i < n; i++) {
                if (pfd_rank[i] == -3 && pfds[i].revents && ctx->in.src_fd == pfds[i].fd)
                    rtrun_iof_stdin_on_readable(&ctx->in);
                else if (pfd_rank[i] == -4 && pfds[i].revents && ctx->in.dst_fd == pfds[i].fd)
                    rtrun_iof_stdin_on_writable(&ctx->in);
                else if (pfd_rank[i] == -6 && pfds[i].revents && ctx->stdin_fd == pfds[i].fd)
                    forward_stdin(ctx);
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

        if (!rank_is_local(ctx, rk))
            continue; /* its rtd starts it */
        status = rtrun_env_build(ctx->opts.env_vars, ctx->opts.nenv_vars, &env);
        if (status == RTM_OK)
            status = rtrun_pmix_setup_fork(job, r, &env);
        if (status == RTM_OK && job->bound)
            status = rtrun_topo_rank_cpuset(ctx->topo, job->bind, job->map_by, rk->local_rank,
                                            &cpuset, where, sizeof(where));
        if (status != RTM_OK) {
            rtrun_env_free(env);
            return status;
        }
        if (ctx->opts.report_bindings) {
            if (job->bound)
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
        req.cpuset = job->bound ? &cpuset : NULL;
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

/* A host the hostname did not match is rtrun's own all the same:
 * - test hosts are network namespaces that share this machine's hostname:
 *   rtrun started inside one of them (ip netns exec NAME rtrun ...) treats
 *   the host called NAME as its own;
 * - in a Slurm batch script the node's Slurm name (SLURMD_NODENAME) is
 *   this host, whatever the hostname says.
 * No rtd is started for that host. */
static void adopt_own_host(rtrun_ctx_t *ctx)
{
    rtrun_job_t *job = ctx->job;
    const char *slurm_node = rtrun_alloc_slurm_node();

    if (job->hosts == NULL || job->local_host >= 0)
        return;
    for (int h = 0; h < job->nhosts; h++) {
        if (!rtd_is_own_netns(job->hosts[h].name) &&
            (slurm_node == NULL || strcmp(job->hosts[h].name, slurm_node) != 0))
            continue;
        job->hosts[h].is_local = 1;
        job->local_host = h;
        job->bind = rtrun_bind_resolve(ctx->opts.bind, ctx->opts.map_by, job->hosts[h].nranks,
                                       job->ncores);
        job->bound = job->bind != RTRUN_BIND_NONE;
        for (int r = 0; r < job->nprocs; r++) {
            rtrun_rank_t *rk = &job->ranks[r];

            if (rk->node_id == h)
                rk->core = job->bound ? rk->local_rank % job->ncores : -1;
        }
        return;
    }
}

/* The absolute path of the rtd installed next to this rtrun. */
static char *rtd_path(void)
{
    char self[PATH_MAX], *slash, *path;
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

    if (n <= 0)
        return NULL;
    self[n] = '\0';
    slash = strrchr(self, '/');
    if (slash == NULL)
        return NULL;
    *slash = '\0';
    path = malloc(strlen(self) + 5);
    if (path != NULL)
        sprintf(path, "%s/rtd", self);
    return path;
}

/* The environment every remote rank gets on top of its rtd's: the -x
 * variables (resolved here, as for local ranks) and rtrun's RTM_* ones,
 * so the runtime is configured the same on every host. */
static int build_remote_env(rtrun_ctx_t *ctx)
{
    extern char **environ;
    size_t max = ctx->opts.nenv_vars, n = 0;

    for (char **e = environ; e != NULL && *e != NULL; e++)
        max += strncmp(*e, "RTM_", 4) == 0;
    ctx->desc.env = calloc(max + 1, sizeof(char *));
    if (ctx->desc.env == NULL)
        return -1;
    for (char **e = environ; e != NULL && *e != NULL; e++)
        if (strncmp(*e, "RTM_", 4) == 0 && (ctx->desc.env[n] = strdup(*e)) != NULL)
            n++;
    for (size_t i = 0; i < ctx->opts.nenv_vars; i++) {
        const char *var = ctx->opts.env_vars[i];
        char *entry;

        if (strchr(var, '=') != NULL) {
            entry = strdup(var);
        } else {
            const char *val = getenv(var); /* the user's variable, not a tunable */

            if (val == NULL)
                continue;
            entry = malloc(strlen(var) + strlen(val) + 2);
            if (entry != NULL)
                sprintf(entry, "%s=%s", var, val);
        }
        if (entry == NULL)
            return -1;
        ctx->desc.env[n++] = entry;
    }
    ctx->desc.nenv = n;
    return 0;
}

/* Describe the job for the rtds and start the first level of the tree. */
static int start_tree(rtrun_ctx_t *ctx)
{
    rtd_jobdesc_t *d = &ctx->desc;
    char token[RTD_TOKEN_LEN + 1], cwd[PATH_MAX];
    rtm_status_t status;

    d->job = ctx->job;
    d->root_host = ctx->job->local_host;
    d->fanout = ctx->opts.fanout > 0 ? ctx->opts.fanout : DEFAULT_FANOUT;
    d->bind = ctx->opts.bind;
    d->map_by = ctx->opts.map_by;
    d->report_bindings = ctx->opts.report_bindings;
    /* Inside a Slurm allocation the rtds start as job steps, so Slurm
     * accounts for them, cleans them up and needs no ssh between nodes. */
    d->agent = strdup(ctx->opts.launch_agent != NULL ? ctx->opts.launch_agent
                      : rtrun_alloc_in_slurm()     ? RTRUN_SRUN_AGENT
                                                   : DEFAULT_LAUNCH_AGENT);
    d->rtd_path = rtd_path();
    d->cwd = strdup(getcwd(cwd, sizeof(cwd)) != NULL ? cwd : "/");
    d->prog_argc = ctx->opts.prog_argc;
    d->prog_argv = ctx->opts.prog_argv;
    if (d->agent == NULL || d->rtd_path == NULL || d->cwd == NULL || build_remote_env(ctx) != 0) {
        say("out of memory (or no /proc/self/exe) preparing the remote hosts");
        return RTRUN_EXIT_FAILURE;
    }
    if (access(d->rtd_path, X_OK) != 0) {
        say("cannot start ranks on other hosts: no rtd next to rtrun (%s: %s)", d->rtd_path,
            strerror(errno));
        return RTRUN_EXIT_FAILURE;
    }
    status = rtd_make_token(token, sizeof(token));
    if (status == RTM_OK)
        status = rtd_jobdesc_pack(d, &ctx->blob, &ctx->blob_len);
    if (status == RTM_OK)
        status = rtd_node_init(&ctx->node, d, ctx->job->local_host, ctx->blob, ctx->blob_len,
                               token);
    if (status != RTM_OK) {
        say("%s", rtm_last_error());
        return RTRUN_EXIT_FAILURE;
    }
    ctx->node_ready = 1;
    status = rtd_node_launch_children(&ctx->node);
    if (status != RTM_OK) {
        say("%s", rtm_last_error());
        return RTRUN_EXIT_FAILURE;
    }
    rtm_debug("job %s: %d daemons, fanout %d, rtrun's addresses %s", ctx->job->nspace,
              ctx->node.tree.ndaemons, d->fanout, ctx->node.addrs);
    return RTRUN_EXIT_OK;
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
    adopt_own_host(ctx);
    for (int r = 0; r < ctx->job->nprocs; r++)
        ctx->multi |= ctx->job->hosts != NULL && ctx->job->local_host >= 0 ?
                      ctx->job->ranks[r].node_id != ctx->job->local_host :
                      ctx->job->hosts != NULL;
    if (ctx->multi && ctx->job->local_host >= 0)
        snprintf(ctx->job->hostname, sizeof(ctx->job->hostname), "%s",
                 ctx->job->hosts[ctx->job->local_host].name);
    /* Only ranks started here need the program here. */
    if (!ctx->multi || ctx->job->local_host >= 0) {
        status = rtrun_resolve_program(ctx->opts.prog_argv[0], &ctx->prog_path, &code);
        if (status != RTM_OK) {
            say("%s", rtm_last_error());
            return code;
        }
    }
    ctx->out = calloc((size_t)ctx->job->nprocs, sizeof(*ctx->out));
    ctx->err = calloc((size_t)ctx->job->nprocs, sizeof(*ctx->err));
    ctx->failed = calloc((size_t)ctx->job->nprocs, sizeof(*ctx->failed));
    if (ctx->out == NULL || ctx->err == NULL || ctx->failed == NULL) {
        say("out of memory for %d ranks", ctx->job->nprocs);
        return RTRUN_EXIT_FAILURE;
    }
    for (int r = 0; r < ctx->job->nprocs; r++) {
        /* fd -1: a remote rank's output arrives in messages (feed) */
        rtrun_iof_stream_init(&ctx->out[r], -1, STDOUT_FILENO, r, ctx->opts.tag_output);
        rtrun_iof_stream_init(&ctx->err[r], -1, STDERR_FILENO, r, ctx->opts.tag_output);
    }
    rtrun_iof_stdin_init(&ctx->in, -1, -1);
    ctx->stdin_host = -1;
    ctx->stdin_fd = -1;
    rtrun_job_make_nspace(rtm_log_hostname(), getpid(), ctx->job->nspace,
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

    if (ctx->multi) {
        code = start_tree(ctx);
        if (code != RTRUN_EXIT_OK)
            return code;
        if (ctx->job->ranks[0].node_id != ctx->job->local_host) {
            ctx->stdin_host = ctx->job->ranks[0].node_id;
            ctx->stdin_fd = fcntl(STDIN_FILENO, F_GETFD) >= 0 ? STDIN_FILENO : -1;
            if (ctx->stdin_fd < 0) /* no stdin at all: rank 0 sees EOF */
                rtd_node_route(&ctx->node, RTD_MSG_STDIN, ctx->stdin_host, 0, 0, 1, NULL, 0);
        }
        if (ctx->job->local_host < 0)
            return RTRUN_EXIT_OK; /* no rank here: no PMIx server either */
    }
    /* What SIGKILLed rtruns before us could not remove. */
    rtrun_cleanup_stale(rtm_log_hostname());
    /* Short path: PMIx puts unix socket names in it (108-byte limit). */
    snprintf(ctx->tmpdir, sizeof(ctx->tmpdir), "%s/%s%d.XXXXXX", RTRUN_TMPDIR_PARENT,
             RTRUN_TMPDIR_PREFIX, (int)getpid());
    if (mkdtemp(ctx->tmpdir) == NULL) {
        say("cannot create the job's temp directory %s: %s", ctx->tmpdir, strerror(errno));
        ctx->tmpdir[0] = '\0';
        return RTRUN_EXIT_FAILURE;
    }
    status = rtrun_pmix_server_start(ctx->tmpdir, ctx->job->nspace, ctx->event_pipe[1],
                                     rtrun_topo_hwloc(ctx->topo),
                                     ctx->multi ? ctx->job->hostname : NULL,
                                     ctx->multi ? ctx->job->local_host : -1);
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

/* The rtds exit when their connection closes; wait for their agents
 * (bounded), then kill what is left. */
static void stop_tree(rtrun_ctx_t *ctx)
{
    double until = rtm_time_now() + AGENT_EXIT_SEC;
    int killed = 0;

    for (int i = 0; i < ctx->node.nchildren; i++)
        rtd_conn_close(&ctx->node.children[i]);
    for (;;) {
        int left = 0;

        for (int i = 0; i < ctx->node.nchildren; i++) {
            rtd_conn_t *c = &ctx->node.children[i];
            int wstatus;

            if (c->agent_pid > 0 && waitpid(c->agent_pid, &wstatus, WNOHANG) == c->agent_pid)
                c->agent_pid = 0;
            left += c->agent_pid > 0;
        }
        if (left == 0)
            break;
        if (rtm_time_now() >= until) {
            if (killed)
                break;
            for (int i = 0; i < ctx->node.nchildren; i++)
                if (ctx->node.children[i].agent_pid > 0)
                    killpg(ctx->node.children[i].agent_pid, SIGKILL);
            killed = 1;
            until = rtm_time_now() + 1.0;
        }
        poll(NULL, 0, 10);
    }
    for (int i = 0; i < ctx->node.nchildren; i++)
        rtd_node_read_agent_err(&ctx->node, &ctx->node.children[i]);
}

static void teardown(rtrun_ctx_t *ctx)
{
    if (ctx->node_ready) {
        stop_tree(ctx);
        rtd_node_fini(&ctx->node);
    }
    if (ctx->job != NULL && ctx->job->nspace[0] != '\0')
        rtrun_cleanup_shm(ctx->job->nspace);
    if (ctx->job_registered)
        rtrun_pmix_deregister_job(ctx->job);
    if (ctx->pmix_started)
        rtrun_pmix_server_stop(rtrun_job_local_finalized(ctx->job));
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
    free(ctx->blob);
    ctx->desc.job = NULL;        /* ctx->job, freed below */
    ctx->desc.prog_argv = NULL;  /* points into opts */
    ctx->desc.prog_argc = 0;
    rtd_jobdesc_free(&ctx->desc);
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
    /* A closed stdin (rtrun <&-) would be taken by the first file rtrun
     * opens and read as rank 0's input: /dev/null there reads as EOF. */
    if (fcntl(STDIN_FILENO, F_GETFD) < 0) {
        int fd = open("/dev/null", O_RDONLY);

        if (fd > STDIN_FILENO)
            close(fd);
    }
    rtm_log_set_identity("rtrun", -1);
    /* rtrun's own rows (RTM_LAUNCH_*) must be right; a bad value of
     * another component's row is the ranks' business (they report it when
     * they register the same table), so rtrun only warns about it. */
    if (rtm_config_register(NULL) != RTM_OK)
        say("warning: %s", rtm_last_error());
    if (rtm_config_register(&launcher_config_table) != RTM_OK)
        return RTRUN_EXIT_USAGE;
    if (rtm_lib_config_register() != RTM_OK)
        say("warning: %s", rtm_last_error());
    rtm_config_warn_unknown();

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
