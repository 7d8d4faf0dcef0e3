/*
 * rtrun: start a job's ranks on this host, serve them PMIx, forward their
 * stdio and signals, and end the whole job when one rank fails.
 *
 * One thread owns the job: the host-side engine (engine.h) runs the loop
 * over a signalfd (SIGCHLD, SIGINT, SIGTERM, SIGHUP), the event pipe PMIx
 * callbacks write to and the ranks' stdio pipes; rtrun adds the daemon
 * tree and stdin, and judges which rank failed. PMIx's own thread never
 * touches the job.
 */
#include "config.h"

#include "launcher/alloc.h"
#include "launcher/bind.h"
#include "launcher/cleanup.h"
#include "launcher/cli.h"
#include "launcher/daemon.h"
#include "launcher/engine.h"
#include "launcher/iof.h"
#include "launcher/job.h"
#include "launcher/pmix_server.h"
#include "launcher/check.h"
#include "launcher/report.h"
#include "launcher/rtd_msg.h"
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Seconds between SIGTERM and SIGKILL when the job ends: long enough for a
 * rank to flush and exit, short enough that a failure ends the job within
 * a few seconds. */
/* After the last rank exits, how long output still held by processes the
 * ranks left behind may take to drain. */
#define DRAIN_SEC 1.0
/* Bound on the wait for the cause of a failure to be known (see
 * cause_known): the PMIx server reports a lost rank within milliseconds;
 * the bound only matters if a report never comes (a rank whose connection
 * outlives it, in a child it forked). */
#define FAILURE_CAUSE_SEC 3.0
/* After the SIGKILL went down the tree, how long remote ranks may take to
 * be reported gone before rtrun stops waiting for them. */
#define REMOTE_LOST_SEC 5.0
/* Bound on the wait for the launch agents to exit at the end. */
#define AGENT_EXIT_SEC 10.0
/* The launch agent when neither --launch-agent nor RTM_LAUNCH_AGENT says. */
#define DEFAULT_LAUNCH_AGENT "ssh -o BatchMode=yes -T {host}"
/* Children of each daemon in the launch tree when --fanout is not given. */
#define DEFAULT_FANOUT 32

/* A rank that failed, waiting to be judged with the others that failed
 * before the cause was known: reaped (wstatus), or an abort held because
 * it says a peer was lost (aborted: abort_msg is its message, malloc'd). */
typedef struct reaped_rank {
    struct rtrun_rank *rk;
    int                wstatus;
    int                aborted;
    char              *abort_msg;
} reaped_rank_t;

typedef struct rtrun_ctx {
    rtrun_opts_t        opts;
    rtrun_job_t        *job;
    rtrun_topo_t       *topo;
    char               *prog_path;
    rtrun_engine_t      eng;         /* this host's ranks, the PMIx server, the loop */
    rtrun_iof_stream_t *out;         /* per rank */
    rtrun_iof_stream_t *err;         /* per rank */
    rtrun_iof_stdin_t   in;
    reaped_rank_t      *failed;      /* failed ranks not yet judged (nprocs entries) */
    int                 nfailed;
    int                 nlost;       /* ranks the PMIx servers lost so far (lost_order) */
    double              judge_at;    /* name a failed rank by then at the latest; 0: none pending */
    int                 ending;      /* the job is being torn down */
    int                 exit_code;
    double              kill_at;     /* SIGKILL the ranks still running; 0: not armed */
    double              timeout_at;  /* --timeout; 0: none */
    int                 leftovers_killed; /* every rank is gone: their groups killed */
    double              drain_until; /* then: stop waiting for their output */
    /* multi-host jobs (some rank runs on another host): */
    int                 multi;
    rtd_jobdesc_t       desc;        /* what every rtd gets (desc.job = job, not owned) */
    char               *blob;        /* desc, packed */
    size_t              blob_len;
    rtd_node_t          node;        /* the root of the daemon tree */
    rtm_secret_t        secret;      /* the job's (common/secret.h); wiped at the end */
    int                 node_ready;
    double              lost_at;     /* give up on remote ranks not reported gone */
    /* rank 0 on another host: rtrun's stdin goes to its rtd (RTD_MSG_STDIN),
     * at most RTD_STDIN_WINDOW bytes ahead of its acks */
    int                 stdin_host;  /* rank 0's host; -1: rank 0 is here (ctx->in) */
    int                 stdin_fd;    /* rtrun's stdin until EOF, else -1 */
    size_t              stdin_inflight;
    /* job-state reports (report.h): on --timeout, SIGUSR1, --report-state */
    rtrun_report_t      report;
    unsigned            report_seq;
    int                 report_then_timeout; /* the report is --timeout's: end the job after */
    int                 timeout_reported;
} rtrun_ctx_t;

/* What rtrun polls besides the engine's own fds (tags of poll_add). */
enum {
    POLL_STDIN_SRC,      /* rtrun's stdin, for a local rank 0 */
    POLL_STDIN_DST,      /* a local rank 0's stdin pipe */
    POLL_STDIN_REMOTE,   /* rtrun's stdin, for rank 0 on another host */
    POLL_LISTEN,         /* rtds connecting back */
    POLL_CHILD = 1000,   /* + i: child i's connection */
    POLL_AGENT = 2000,   /* + i: child i's launch agent's stderr */
};

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

/* Ranks running anywhere in the job. */
static int running_ranks(const rtrun_ctx_t *ctx)
{
    return rtrun_job_running_list(ctx->job, NULL, 0);
}

/* This host's ranks through the engine, the others through their rtds. */
static void signal_ranks(rtrun_ctx_t *ctx, int sig)
{
    rtrun_engine_signal_ranks(&ctx->eng, sig);
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
    ctx->kill_at = rtm_time_now() + (double)launcher_config.kill_grace;
    if (ctx->multi)
        ctx->lost_at = ctx->kill_at + REMOTE_LOST_SEC;
}

static void drain_rank_output(rtrun_ctx_t *ctx, int r)
{
    rtrun_engine_drain_output(&ctx->eng, r); /* nothing for a remote rank */
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

static void rank_lost(rtrun_ctx_t *ctx, rtrun_rank_t *rk);
static void note_peer_lost_abort(rtrun_ctx_t *ctx, rtrun_rank_t *rk, const char *msg);

/* A rank called abort: say so and end the job with its code. */
static void report_abort(rtrun_ctx_t *ctx, const rtrun_rank_t *rk, int status, const char *msg,
                         const char *others)
{
    /* An exit code that is 0 modulo 256 would read as success. */
    int code = status & 0xff;

    if (code == 0)
        code = RTRUN_EXIT_FAILURE;
    rtrun_say("rank %d (%s, pid %d) called abort with code %d: %s; ending the job (%s)", rk->rank,
              rank_host(ctx, rk), (int)rk->pid, status, msg[0] ? msg : "(no message)", others);
    end_job(ctx, code, SIGTERM);
}

static void on_pmix_event(rtrun_ctx_t *ctx, const rtrun_pmix_event_t *ev)
{
    rtrun_rank_t *rk;
    char others[64];

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
    case RTRUN_PMIX_EV_LOST:
        rank_lost(ctx, rk);
        rtm_debug("rank %d lost (%d)", ev->rank, rk->lost_order);
        break;
    case RTRUN_PMIX_EV_ABORT:
        if (ctx->ending)
            break;
        if (ev->status == RTRUN_EXIT_PEER_LOST) {
            /* A consequence: the peer it lost died first (see judge_failures) */
            note_peer_lost_abort(ctx, rk, ev->msg);
            break;
        }
        drain_rank_output(ctx, ev->rank);
        others_killed(ctx, rk, 0, others, sizeof(others));
        report_abort(ctx, rk, ev->status, ev->msg, others);
        break;
    }
}

/* How bad an exit is, for choosing which rank to blame among failures
 * that no loss order relates (see judge_failures): "killed by a signal"
 * outranks "exited with a code", which outranks "exited 0 without
 * finalizing". 0: not a failure. */
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

/* also_failed: other ranks that failed on their own after rk (their
 * fence broke when rk died); they count with the ranks rtrun kills. */
static void report_failure(rtrun_ctx_t *ctx, const rtrun_rank_t *rk, int wstatus,
                           int also_failed)
{
    char others[64];
    int code;

    others_killed(ctx, rk, also_failed, others, sizeof(others));
    if (WIFSIGNALED(wstatus)) {
        int sig = WTERMSIG(wstatus);

        rtrun_say("rank %d (%s, pid %d) was killed by signal %d (%s); ending the job (%s)", rk->rank,
                  rank_host(ctx, rk), (int)rk->pid, sig, strsignal(sig), others);
        code = 128 + sig;
    } else if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) != 0) {
        rtrun_say("rank %d (%s, pid %d) exited with code %d; ending the job (%s)", rk->rank,
                  rank_host(ctx, rk), (int)rk->pid, WEXITSTATUS(wstatus), others);
        code = WEXITSTATUS(wstatus);
    } else {
        rtrun_say("rank %d (%s, pid %d) exited with code 0 without calling PMIx_Finalize after it called PMIx_Init (the other ranks may wait for it forever); ending the job (%s)",
                  rk->rank, rank_host(ctx, rk), (int)rk->pid, others);
        code = RTRUN_EXIT_FAILURE;
    }
    end_job(ctx, code, SIGTERM);
}

/* The rank the PMIx servers lost first, NULL if none yet. */
static const rtrun_rank_t *first_lost(const rtrun_ctx_t *ctx)
{
    for (int r = 0; r < ctx->job->nprocs; r++)
        if (ctx->job->ranks[r].lost_order == 1)
            return &ctx->job->ranks[r];
    return NULL;
}

/* Whether a failure is a rank's report that a transport lost a peer (an
 * abort or exit with RTRUN_EXIT_PEER_LOST): the consequence of that
 * peer's failure, which happened before it, never a cause while another
 * failure is known. */
static int peer_lost_consequence(const reaped_rank_t *f)
{
    return f->aborted || (WIFEXITED(f->wstatus) && WEXITSTATUS(f->wstatus) == RTRUN_EXIT_PEER_LOST);
}

/* Whether the failures noted so far can be judged: every failed rank
 * that was still connected to its PMIx server when it died has been
 * reported lost (the report comes after its exit, it is never missing
 * for a rank that was due to finalize), and the rank lost first, which
 * may be reaped last, has been reaped. */
static int cause_known(const rtrun_ctx_t *ctx)
{
    const rtrun_rank_t *first = first_lost(ctx);
    int causes = 0;

    for (int i = 0; i < ctx->nfailed; i++)
        causes += !peer_lost_consequence(&ctx->failed[i]);
    /* Only ranks that lost a peer so far: the peer died first, and its
     * death (reaped here, reported by its rtd, or lost by a PMIx server)
     * is on its way; judge_at bounds the wait for a peer that is alive
     * (a cut link: then the rank that lost it is the cause). */
    if (causes == 0)
        return 0;
    for (int i = 0; i < ctx->nfailed; i++) {
        const rtrun_rank_t *rk = ctx->failed[i].rk;

        if (rk->connected && !rk->finalized && rk->lost_order == 0)
            return 0;
        /* It failed after PMIx_Finalize (e.g. a program that found its
         * own result wrong returns 1 after MPI_Finalize): the others are
         * finishing too, and killing them now would cut their last output.
         * Let them exit; judge_at bounds the wait for one that hangs. */
        if (rk->finalized && running_ranks(ctx) > 0)
            return 0;
    }
    return first == NULL || first->state == RTRUN_RANK_EXITED;
}

/* Name the rank whose failure started it, and end the job.
 * A rank's death makes its peers fail (a fence returns an error when the
 * server loses it), and they may even be reaped first. The PMIx server of
 * a host loses the connections in causal order: the dead rank's before
 * it fails anyone's fence (pmix_server.c). So of the failed ranks it lost,
 * only the one lost first is a cause; the others are its consequences.
 * Failures no loss order relates (ranks that never used PMIx, or that
 * finalized first) compete with it by exit_severity, then in the order
 * they were reaped. */
static void judge_failures(rtrun_ctx_t *ctx)
{
    reaped_rank_t *lost_first = NULL, *blame = NULL;
    int blame_severity = 0, causes = 0;

    ctx->judge_at = 0;
    for (int i = 0; i < ctx->nfailed; i++)
        causes += !peer_lost_consequence(&ctx->failed[i]);
    for (int i = 0; i < ctx->nfailed; i++) {
        reaped_rank_t *f = &ctx->failed[i];

        if (causes > 0 && peer_lost_consequence(f))
            continue;
        if (f->rk->lost_order > 0 &&
            (lost_first == NULL || f->rk->lost_order < lost_first->rk->lost_order))
            lost_first = f;
    }
    for (int i = 0; i < ctx->nfailed; i++) {
        reaped_rank_t *f = &ctx->failed[i];
        int sev = exit_severity(f->rk, f->wstatus);

        if (causes > 0 && peer_lost_consequence(f))
            continue; /* the peer's failure is the cause */
        if (causes == 0) {
            /* only ranks that lost a peer, and no peer failed within the
             * bound: the first report is the cause (a link, not a rank) */
            blame = f;
            break;
        }
        if (f->rk->lost_order > 0 && f != lost_first)
            continue;
        if (blame == NULL || sev > blame_severity) {
            blame = f;
            blame_severity = sev;
        }
    }
    if (blame != NULL && !ctx->ending) {
        int also_failed = 0;

        /* the other failed ranks already gone (a held abort's rank may
         * still run: it counts with the ranks killed) */
        for (int i = 0; i < ctx->nfailed; i++)
            also_failed += &ctx->failed[i] != blame &&
                           ctx->failed[i].rk->state != RTRUN_RANK_RUNNING;
        if (blame->aborted) {
            char others[64];

            others_killed(ctx, blame->rk, also_failed, others, sizeof(others));
            report_abort(ctx, blame->rk, RTRUN_EXIT_PEER_LOST, blame->abort_msg, others);
        } else {
            report_failure(ctx, blame->rk, blame->wstatus, also_failed);
        }
    }
    for (int i = 0; i < ctx->nfailed; i++) {
        free(ctx->failed[i].abort_msg);
        ctx->failed[i].abort_msg = NULL;
    }
    ctx->nfailed = 0;
}

/* Judge the pending failures if their cause is known. */
static void maybe_judge(rtrun_ctx_t *ctx)
{
    if (ctx->judge_at > 0 && cause_known(ctx))
        judge_failures(ctx);
}

/* Keep a failed rank for judging with the others that fail before the
 * cause is known. */
static void note_failure(rtrun_ctx_t *ctx, rtrun_rank_t *rk, int wstatus)
{
    if (ctx->ending || exit_severity(rk, wstatus) == 0 || ctx->nfailed >= ctx->job->nprocs)
        return;
    for (int i = 0; i < ctx->nfailed; i++)
        if (ctx->failed[i].rk == rk)
            return; /* its abort is noted: this is the exit that follows it */
    ctx->failed[ctx->nfailed].rk = rk;
    ctx->failed[ctx->nfailed].wstatus = wstatus;
    ctx->failed[ctx->nfailed].aborted = 0;
    ctx->failed[ctx->nfailed].abort_msg = NULL;
    ctx->nfailed++;
    if (ctx->judge_at == 0)
        ctx->judge_at = rtm_time_now() + FAILURE_CAUSE_SEC;
    maybe_judge(ctx);
}

/* A rank aborted because its transport lost a peer: held for judging
 * with the peer's own failure, which comes (causally it came first). */
static void note_peer_lost_abort(rtrun_ctx_t *ctx, rtrun_rank_t *rk, const char *msg)
{
    reaped_rank_t *f;

    if (ctx->nfailed >= ctx->job->nprocs)
        return;
    for (int i = 0; i < ctx->nfailed; i++)
        if (ctx->failed[i].rk == rk)
            return;
    f = &ctx->failed[ctx->nfailed];
    f->rk = rk;
    f->wstatus = 0;
    f->aborted = 1;
    f->abort_msg = strdup(msg);
    if (f->abort_msg == NULL) {
        /* no memory to hold it: judge it now, as before */
        char others[64];

        others_killed(ctx, rk, 0, others, sizeof(others));
        report_abort(ctx, rk, RTRUN_EXIT_PEER_LOST, msg, others);
        return;
    }
    ctx->nfailed++;
    if (ctx->judge_at == 0)
        ctx->judge_at = rtm_time_now() + FAILURE_CAUSE_SEC;
    maybe_judge(ctx);
}

/* A PMIx server lost a rank's connection (RTRUN_PMIX_EV_LOST): its place in
 * the order of losses. A finalized rank's connection just closes. */
static void rank_lost(rtrun_ctx_t *ctx, rtrun_rank_t *rk)
{
    if (rk->finalized || rk->lost_order > 0)
        return;
    rk->connected = 1;
    rk->lost_order = ++ctx->nlost;
    if (ctx->node_ready)
        rtd_node_fence_recheck(&ctx->node, rtm_time_now());
    maybe_judge(ctx);
}

/* A remote rank is gone (its rtd reported it). */
static void remote_rank_exited(rtrun_ctx_t *ctx, rtrun_rank_t *rk, int wstatus)
{
    rk->wait_status = wstatus;
    rk->state = RTRUN_RANK_EXITED;
    note_failure(ctx, rk, wstatus);
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
        rtrun_say("%s; ending the job", text);
        end_job(ctx, code > 0 ? code : RTRUN_EXIT_FAILURE, SIGTERM);
    } else {
        rtm_debug("while ending: %s", text);
    }
    subtree_lost(ctx, lost_host);
}

static void child_lost(rtrun_ctx_t *ctx, rtd_conn_t *c, const char *what)
{
    char text[3072];

    if (rtd_node_child_lost(&ctx->node, c, what, text, sizeof(text)))
        on_daemon_error(ctx, c->host, RTRUN_EXIT_FAILURE, text);
}

/* ---- engine callbacks: this host's ranks -------------------------------- */

static void eng_on_pmix_event(void *arg, const rtrun_pmix_event_t *ev)
{
    on_pmix_event(arg, ev);
}

static void eng_on_rank_exit(void *arg, rtrun_rank_t *rk, int wstatus)
{
    note_failure(arg, rk, wstatus);
}

/* A child that is not a rank: a launch agent of the tree. */
static void eng_on_other_exit(void *arg, pid_t pid, int wstatus)
{
    rtrun_ctx_t *ctx = arg;
    rtd_conn_t *c;
    char what[128];

    if (!ctx->node_ready || (c = rtd_node_agent_exited(&ctx->node, pid, wstatus)) == NULL)
        return;
    rtd_describe_agent_exit(pid, wstatus, what, sizeof(what));
    child_lost(ctx, c, what);
}

static int eng_on_output(void *arg, int rank, int stream, const char *data, size_t len, int eof)
{
    rtrun_ctx_t *ctx = arg;
    int multi = ctx->job->nprocs > 1 || ctx->opts.tag_output;

    rtrun_iof_stream_feed(stream == 2 ? &ctx->err[rank] : &ctx->out[rank], data, len, eof,
                          multi);
    return 0; /* writes block: rtrun never reads ahead of its own output */
}

static void eng_on_rank_started(void *arg, rtrun_rank_t *rk, int stdin_fd)
{
    rtrun_ctx_t *ctx = arg;

    if (rk->rank == 0)
        rtrun_iof_stdin_init(&ctx->in, fcntl(STDIN_FILENO, F_GETFD) >= 0 ? STDIN_FILENO : -1,
                             stdin_fd);
    rtm_debug("rank %d started: pid %d", rk->rank, (int)rk->pid);
}

/* A message from the tree for rtrun itself, checked by rtd_msg_decode
 * (launcher/rtd_msg.c): one it refuses is ignored. */
static void on_remote(rtrun_ctx_t *ctx, const rtd_hdr_t *h, const char *payload)
{
    int multi_out = ctx->job->nprocs > 1 || ctx->opts.tag_output;
    rtrun_rank_t *rk;
    rtd_msg_t m;

    if (!rtd_msg_decode(h, payload, ctx->job->nprocs, &m))
        return;
    rk = &ctx->job->ranks[m.rank];   /* rank 0 for the messages of no rank */
    switch (m.type) {
    case RTD_MSG_STARTED:
        if (rk->state == RTRUN_RANK_NOT_STARTED) {
            rk->pid = m.pid;
            rk->state = RTRUN_RANK_RUNNING;
            if (ctx->ending) /* KILL went down before it started */
                rtd_node_down(&ctx->node, RTD_MSG_KILL, SIGKILL, 0, 0, NULL, 0);
        }
        break;
    case RTD_MSG_IOF:
        rtrun_iof_stream_feed(m.stream == 2 ? &ctx->err[m.rank] : &ctx->out[m.rank], m.data,
                              m.len, m.eof, multi_out);
        break;
    case RTD_MSG_STATE:   /* a remote rank's job-state answer */
        if (ctx->report.active && m.seq == ctx->report.seq)
            rtrun_report_set_answer(&ctx->report, m.rank, m.data, m.len);
        break;
    case RTD_MSG_EXIT:
        if (rk->state == RTRUN_RANK_RUNNING) {
            rk->connected |= m.connected;
            rk->finalized |= m.finalized;
            remote_rank_exited(ctx, rk, m.wstatus);
        }
        break;
    case RTD_MSG_PMIXEV: {
        rtrun_pmix_event_t ev;

        memset(&ev, 0, sizeof(ev));
        ev.type = m.ev_type;
        ev.rank = m.rank;
        ev.status = m.ev_status;
        snprintf(ev.msg, sizeof(ev.msg), "%.*s", (int)m.len, m.data);
        on_pmix_event(ctx, &ev);
        break;
    }
    case RTD_MSG_ERROR: {
        char text[3072];

        snprintf(text, sizeof(text), "%.*s", (int)m.len, m.data);
        on_daemon_error(ctx, m.lost_host, m.code, text);
        break;
    }
    case RTD_MSG_STDIN_ACK:
        ctx->stdin_inflight -= m.acked <= ctx->stdin_inflight ? m.acked : ctx->stdin_inflight;
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

static int report_start(rtrun_ctx_t *ctx, const char *why, double now);

static void eng_on_signal(void *arg, int sig)
{
    rtrun_ctx_t *ctx = arg;

    if (sig == SIGCHLD) {
        rtrun_engine_reap(&ctx->eng);
        return;
    }
    if (sig == SIGUSR1) {   /* a job-state report; the job goes on */
        if (!ctx->ending && !report_start(ctx, "asked by SIGUSR1", rtm_time_now()))
            rtrun_say("received SIGUSR1: no rank is running in the library to report");
        return;
    }
    if (!ctx->ending) {
        rtrun_say("received SIG%s; forwarding it to the ranks and ending the job%s",
                  sigabbrev_np(sig),
                  sig == SIGINT ? " (press Ctrl-C again to kill the ranks at once)" : "");
        end_job(ctx, 128 + sig, sig);
        return;
    }
    if (running_ranks(ctx) > 0) {
        rtrun_say("received SIG%s again; killing the ranks", sigabbrev_np(sig));
        signal_ranks(ctx, SIGKILL);
    }
}

/* ---- job-state reports (report.h) ---- */

static const char *report_host_of(void *arg, int r)
{
    rtrun_ctx_t *ctx = arg;

    return rank_host(ctx, &ctx->job->ranks[r]);
}

static int report_pid_of(void *arg, int r)
{
    rtrun_ctx_t *ctx = arg;
    rtrun_rank_t *rk = &ctx->job->ranks[r];

    return rank_is_local(ctx, rk) ? (int)rk->pid : 0;
}

/* Ask every rank that can answer (running, connected to PMIx, not
 * finalized); 0 when none can (a job of programs without librtmsg). */
static int report_start(rtrun_ctx_t *ctx, const char *why, double now)
{
    int n = 0;

    if (ctx->report.active || ctx->eng.tmpdir[0] == '\0')
        return ctx->report.active;
    for (int r = 0; r < ctx->job->nprocs; r++) {
        const rtrun_rank_t *rk = &ctx->job->ranks[r];

        n += rk->state == RTRUN_RANK_RUNNING && rk->connected && !rk->finalized;
    }
    if (n == 0)
        return 0;
    if (rtrun_report_ask(&ctx->report, ctx->eng.tmpdir, ctx->job->nspace, ++ctx->report_seq,
                         ctx->job->nprocs, now) != RTM_OK) {
        rtrun_say("no job-state report: %s", rtm_last_error());
        if (!ctx->report.active)
            return 0;
    }
    snprintf(ctx->report.why, sizeof(ctx->report.why), "%s", why);
    for (int r = 0; r < ctx->job->nprocs; r++) {
        const rtrun_rank_t *rk = &ctx->job->ranks[r];

        ctx->report.asked[r] = rk->state == RTRUN_RANK_RUNNING && rk->connected &&
                               !rk->finalized;
    }
    if (ctx->multi && ctx->node_ready)
        rtd_node_down(&ctx->node, RTD_MSG_STATE_ASK, (int)ctx->report_seq, 0, 0, NULL, 0);
    return 1;
}

static void timeout_end(rtrun_ctx_t *ctx)
{
    char list[512];
    int n = rtrun_job_running_list(ctx->job, list, sizeof(list));

    if (n > 0)
        rtrun_say("ending the job after the timeout (rank%s %s still running)",
                  n == 1 ? "" : "s", list);
    end_job(ctx, RTRUN_EXIT_TIMEOUT, SIGTERM);
}

/* Answers in, or the wait is over: the summary; then what the report was
 * for (the timeout's end of the job). */
static void check_report(rtrun_ctx_t *ctx, double now)
{
    if (!ctx->report.active)
        return;
    rtrun_report_collect(&ctx->report);
    for (int r = 0; r < ctx->job->nprocs; r++) {
        if (ctx->report.asked[r] && ctx->job->ranks[r].state != RTRUN_RANK_RUNNING &&
            ctx->report.answers[r] == NULL)
            ctx->report.asked[r] = 0;   /* gone meanwhile: its exit says the rest */
    }
    if (rtrun_report_missing(&ctx->report) > 0 && now < ctx->report.deadline)
        return;
    rtrun_report_print(&ctx->report, ctx->job, report_host_of, report_pid_of, ctx, NULL, 0);
    rtrun_report_end(&ctx->report);
    if (ctx->report_then_timeout) {
        ctx->report_then_timeout = 0;
        if (!ctx->ending)
            timeout_end(ctx);
    }
}

/* --timeout: the job ends as a failure, once its ranks said what they
 * wait for (nothing is killed before). */
static void check_timeout(rtrun_ctx_t *ctx, double now)
{
    char list[512], why[96];
    int n;

    if (ctx->timeout_at == 0 || now < ctx->timeout_at || ctx->ending || ctx->timeout_reported)
        return;
    ctx->timeout_reported = 1;
    n = rtrun_job_running_list(ctx->job, list, sizeof(list));
    rtrun_say("timeout of %ld s expired with %d rank%s still running (rank%s %s); ending the job",
              ctx->opts.timeout_sec, n, n == 1 ? "" : "s", n == 1 ? "" : "s", list);
    snprintf(why, sizeof(why), "timeout of %ld s expired", ctx->opts.timeout_sec);
    if (report_start(ctx, why, now)) {
        ctx->report_then_timeout = 1;
        return;
    }
    end_job(ctx, RTRUN_EXIT_TIMEOUT, SIGTERM);
}

/* The grace after SIGTERM is over: SIGKILL what still runs. */
static void check_kill(rtrun_ctx_t *ctx, double now)
{
    char list[512];

    if (ctx->kill_at == 0 || now < ctx->kill_at)
        return;
    if (rtrun_job_running_list(ctx->job, list, sizeof(list)) > 0) {
        rtrun_say("ranks %s still running %ld s after SIGTERM; sending SIGKILL (RTM_KILL_GRACE)",
                  list, launcher_config.kill_grace);
        signal_ranks(ctx, SIGKILL);
    }
    ctx->kill_at = 0;
}

/* An rtd that neither reports its ranks gone nor drops its connection:
 * never wait forever for it. */
static void check_remote_lost(rtrun_ctx_t *ctx, double now)
{
    char list[512];
    size_t used = 0;

    if (ctx->lost_at == 0 || now < ctx->lost_at || ctx->kill_at != 0)
        return;
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
        rtrun_say("remote ranks %s were not reported gone %.0f s after SIGKILL; giving up on them",
                  list, REMOTE_LOST_SEC);
    ctx->lost_at = 0;
}

/* Children of the tree that did not connect back in time. */
static void check_late_children(rtrun_ctx_t *ctx, double now)
{
    if (ctx->node_ready)
        rtd_node_expire_pending(&ctx->node, now);
    for (int i = 0; ctx->node_ready && i < ctx->node.nchildren; i++) {
        rtd_conn_t *c = &ctx->node.children[i];

        if (rtd_node_child_late(&ctx->node, c, now)) {
            char text[96];

            snprintf(text, sizeof(text), "it did not connect back within %ld s",
                     (long)launcher_config.launch_timeout);
            child_lost(ctx, c, text);
        }
    }
}

static void eng_after_poll(void *arg, double now)
{
    rtrun_ctx_t *ctx = arg;

    if (ctx->judge_at > 0 && now >= ctx->judge_at)
        judge_failures(ctx);
    check_report(ctx, now);
    check_timeout(ctx, now);
    check_kill(ctx, now);
    check_remote_lost(ctx, now);
    check_late_children(ctx, now);
    if (ctx->node_ready)
        rtd_node_fence_recheck(&ctx->node, now);
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

/* The tree's fds: every child's connection and agent stderr, the
 * listening socket. */
static void poll_tree(rtrun_ctx_t *ctx, rtrun_engine_t *eng)
{
    if (!ctx->node_ready)
        return;
    for (int i = 0; i < ctx->node.nchildren; i++) {
        rtd_conn_t *c = &ctx->node.children[i];

        rtrun_engine_poll_add(eng, c->fd, POLLIN | (rtd_conn_wants_write(c) ? POLLOUT : 0),
                              POLL_CHILD + i);
        rtrun_engine_poll_add(eng, c->agent_err, POLLIN, POLL_AGENT + i);
    }
    rtrun_engine_poll_add(eng, ctx->node.listen_fd, POLLIN, POLL_LISTEN);
    rtrun_engine_wake_at(eng, rtd_node_next_deadline(&ctx->node));
}

static void poll_stdin(rtrun_ctx_t *ctx, rtrun_engine_t *eng)
{
    if (rtrun_iof_stdin_wants_read(&ctx->in))
        rtrun_engine_poll_add(eng, ctx->in.src_fd, POLLIN, POLL_STDIN_SRC);
    if (rtrun_iof_stdin_wants_write(&ctx->in))
        rtrun_engine_poll_add(eng, ctx->in.dst_fd, POLLOUT, POLL_STDIN_DST);
    if (ctx->stdin_fd >= 0 && !ctx->ending && ctx->stdin_inflight < RTD_STDIN_WINDOW)
        rtrun_engine_poll_add(eng, ctx->stdin_fd, POLLIN, POLL_STDIN_REMOTE);
}

/* Each round: the loop runs until every rank is gone, its output drained
 * (bounded by DRAIN_SEC) and its failure judged. */
static int eng_prepare(void *arg, rtrun_engine_t *eng, double now)
{
    rtrun_ctx_t *ctx = arg;

    if (pending_ranks(ctx) == 0) {
        if (!ctx->leftovers_killed) {
            /* Anything the ranks left in their process groups goes
             * with them; it may hold their stdout open. */
            rtrun_engine_kill_leftovers(eng);
            ctx->leftovers_killed = 1;
            ctx->drain_until = now + DRAIN_SEC;
        }
        /* A failure still to be judged waits for its cause (bounded). */
        if (ctx->judge_at == 0 && (!rtrun_engine_output_open(eng) || now >= ctx->drain_until))
            return 0;
    }
    /* The tree before stdin: its fds are handled first. */
    poll_tree(ctx, eng);
    poll_stdin(ctx, eng);
    if (!ctx->ending && !ctx->timeout_reported)
        rtrun_engine_wake_at(eng, ctx->timeout_at);
    if (ctx->report.active)   /* look for answers every 50 ms, until the deadline */
        rtrun_engine_wake_at(eng, rtm_time_now() + 0.05 < ctx->report.deadline
                                      ? rtm_time_now() + 0.05 : ctx->report.deadline);
    rtrun_engine_wake_at(eng, ctx->judge_at);
    rtrun_engine_wake_at(eng, ctx->kill_at);
    rtrun_engine_wake_at(eng, ctx->drain_until);
    rtrun_engine_wake_at(eng, ctx->lost_at);
    return 1;
}

static void eng_on_fd(void *arg, int tag, int fd, short revents)
{
    rtrun_ctx_t *ctx = arg;

    if (tag >= POLL_AGENT) {
        rtd_node_read_agent_err(&ctx->node, &ctx->node.children[tag - POLL_AGENT]);
    } else if (tag >= POLL_CHILD) {
        rtd_conn_t *c = &ctx->node.children[tag - POLL_CHILD];

        if (c->fd == fd)
            on_child_conn(ctx, c, revents);
    } else if (tag == POLL_LISTEN) {
        rtd_node_accept(&ctx->node);
    } else if (tag == POLL_STDIN_SRC && ctx->in.src_fd == fd) {
        rtrun_iof_stdin_on_readable(&ctx->in);
    } else if (tag == POLL_STDIN_DST && ctx->in.dst_fd == fd) {
        rtrun_iof_stdin_on_writable(&ctx->in);
    } else if (tag == POLL_STDIN_REMOTE && ctx->stdin_fd == fd) {
        forward_stdin(ctx);
    }
}

static int eng_on_poll_error(void *arg, int err)
{
    rtrun_ctx_t *ctx = arg;

    rtrun_say("poll failed: %s; ending the job", strerror(err));
    end_job(ctx, RTRUN_EXIT_FAILURE, SIGKILL);
    ctx->kill_at = 0;
    return 0; /* the loop goes on until the ranks are reaped */
}

static const rtrun_engine_ops_t rtrun_engine_ops = {
    .on_pmix_event = eng_on_pmix_event,
    .on_signal = eng_on_signal,
    .on_rank_exit = eng_on_rank_exit,
    .on_other_exit = eng_on_other_exit,
    .on_output = eng_on_output,
    .on_rank_started = eng_on_rank_started,
    .prepare = eng_prepare,
    .on_fd = eng_on_fd,
    .after_poll = eng_after_poll,
    .on_poll_error = eng_on_poll_error,
};

/* The main loop: runs until every rank is reaped and its output drained. */
static void run_loop(rtrun_ctx_t *ctx)
{
    int tree_fds = 1 + 2 * (ctx->node_ready ? ctx->node.nchildren : 0);

    if (rtrun_engine_run(&ctx->eng, 3 + tree_fds) != RTM_OK) {
        rtrun_say("%s; ending the job", rtm_last_error());
        end_job(ctx, RTRUN_EXIT_FAILURE, SIGKILL);
        ctx->kill_at = 0;
    }
    /* Past the drain time: whatever is still open is dropped. */
    rtrun_engine_close_output(&ctx->eng);
    for (int r = 0; r < ctx->job->nprocs; r++) {
        rtrun_iof_stream_close(&ctx->out[r]);
        rtrun_iof_stream_close(&ctx->err[r]);
    }
}

static rtm_status_t start_ranks(rtrun_ctx_t *ctx)
{
    for (int r = 0; r < ctx->job->nprocs; r++) {
        rtrun_rank_t *rk = &ctx->job->ranks[r];
        rtm_status_t status;

        if (!rank_is_local(ctx, rk))
            continue; /* its rtd starts it */
        status = rtrun_engine_start_rank(&ctx->eng, rk);
        if (status != RTM_OK)
            return status;
    }
    return RTM_OK;
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
    char cwd[PATH_MAX];
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
        rtrun_say("out of memory (or no /proc/self/exe) preparing the remote hosts");
        return RTRUN_EXIT_FAILURE;
    }
    if (access(d->rtd_path, X_OK) != 0) {
        rtrun_say("cannot start ranks on other hosts: no rtd next to rtrun (%s: %s)", d->rtd_path,
                  strerror(errno));
        return RTRUN_EXIT_FAILURE;
    }
    status = rtd_jobdesc_pack(d, &ctx->blob, &ctx->blob_len);
    if (status == RTM_OK)
        status = rtd_node_init(&ctx->node, d, ctx->job->local_host, ctx->blob, ctx->blob_len,
                               &ctx->secret);
    if (status != RTM_OK) {
        rtrun_say("%s", rtm_last_error());
        return RTRUN_EXIT_FAILURE;
    }
    ctx->node_ready = 1;
    status = rtd_node_launch_children(&ctx->node);
    if (status != RTM_OK) {
        rtrun_say("%s", rtm_last_error());
        return RTRUN_EXIT_FAILURE;
    }
    rtm_debug("job %s: %d daemons, fanout %d, rtrun's addresses %s", ctx->job->nspace,
              ctx->node.tree.ndaemons, d->fanout, ctx->node.addrs);
    return RTRUN_EXIT_OK;
}

/* The job map, and which host is rtrun's own. */
static int map_job(rtrun_ctx_t *ctx)
{
    rtm_status_t status;
    int code = RTRUN_EXIT_FAILURE;

    status = rtrun_topo_load(&ctx->topo);
    if (status != RTM_OK) {
        rtrun_say("%s", rtm_last_error());
        return RTRUN_EXIT_FAILURE;
    }
    status = rtrun_job_map(&ctx->opts, rtm_log_hostname(), rtrun_topo_ncores(ctx->topo),
                           &ctx->job);
    if (status != RTM_OK) {
        rtrun_say("%s", rtm_last_error());
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
            rtrun_say("%s", rtm_last_error());
            return code;
        }
    }
    return RTRUN_EXIT_OK;
}

/* Per-rank state: output streams (every rank's output arrives fed: from
 * the engine for local ranks, in messages for remote ones), failures,
 * and the engine for this host's ranks. */
static int init_ranks(rtrun_ctx_t *ctx)
{
    rtrun_engine_t *eng = &ctx->eng;

    ctx->out = calloc((size_t)ctx->job->nprocs, sizeof(*ctx->out));
    ctx->err = calloc((size_t)ctx->job->nprocs, sizeof(*ctx->err));
    ctx->failed = calloc((size_t)ctx->job->nprocs, sizeof(*ctx->failed));
    if (ctx->out == NULL || ctx->err == NULL || ctx->failed == NULL ||
        rtrun_engine_attach_job(eng, ctx->job, !ctx->multi, ctx->job->local_host) != RTM_OK) {
        rtrun_say("out of memory for %d ranks", ctx->job->nprocs);
        return RTRUN_EXIT_FAILURE;
    }
    eng->topo = ctx->topo;
    eng->prog_path = ctx->prog_path;
    eng->prog_argv = ctx->opts.prog_argv;
    eng->env_vars = ctx->opts.env_vars;
    eng->nenv_vars = ctx->opts.nenv_vars;
    eng->report_bindings = ctx->opts.report_bindings;
    for (int r = 0; r < ctx->job->nprocs; r++) {
        rtrun_iof_stream_init(&ctx->out[r], STDOUT_FILENO, r, ctx->opts.tag_output);
        rtrun_iof_stream_init(&ctx->err[r], STDERR_FILENO, r, ctx->opts.tag_output);
    }
    rtrun_iof_stdin_init(&ctx->in, -1, -1);
    ctx->stdin_host = -1;
    ctx->stdin_fd = -1;
    rtrun_job_make_nspace(rtm_log_hostname(), getpid(), ctx->job->nspace,
                          sizeof(ctx->job->nspace));
    return RTRUN_EXIT_OK;
}

/* The remote hosts: the tree, and rtrun's stdin when rank 0 is remote. */
static int start_remote(rtrun_ctx_t *ctx)
{
    int code = start_tree(ctx);

    if (code != RTRUN_EXIT_OK)
        return code;
    if (ctx->job->ranks[0].node_id != ctx->job->local_host) {
        ctx->stdin_host = ctx->job->ranks[0].node_id;
        ctx->stdin_fd = fcntl(STDIN_FILENO, F_GETFD) >= 0 ? STDIN_FILENO : -1;
        if (ctx->stdin_fd < 0) /* no stdin at all: rank 0 sees EOF */
            rtd_node_route(&ctx->node, RTD_MSG_STDIN, ctx->stdin_host, 0, 0, 1, NULL, 0);
    }
    return RTRUN_EXIT_OK;
}

static int setup(rtrun_ctx_t *ctx)
{
    int code;

    code = map_job(ctx);
    if (code == RTRUN_EXIT_OK)
        code = init_ranks(ctx);
    if (code != RTRUN_EXIT_OK)
        return code;
    /* The job secret: to every rtd on its stdin, to the ranks as PMIx job
     * data; what every tcp connection and the daemon tree prove. */
    if (rtm_secret_make(&ctx->secret) != RTM_OK) {
        rtrun_say("%s", rtm_last_error());
        return RTRUN_EXIT_FAILURE;
    }
    rtrun_pmix_set_job_secret(&ctx->secret);
    /* Signals blocked before PMIx starts its threads, so they inherit the
     * mask and these signals reach only the signalfd. */
    if (rtrun_engine_open_signals(&ctx->eng) != RTM_OK ||
        rtrun_engine_open_events(&ctx->eng) != RTM_OK) {
        rtrun_say("%s", rtm_last_error());
        return RTRUN_EXIT_FAILURE;
    }
    if (ctx->multi) {
        code = start_remote(ctx);
        if (code != RTRUN_EXIT_OK)
            return code;
        if (ctx->job->local_host < 0)
            return RTRUN_EXIT_OK; /* no rank here: no PMIx server either */
    }
    /* What SIGKILLed rtruns before us could not remove. */
    rtrun_cleanup_stale(rtm_log_hostname());
    if (rtrun_engine_start_pmix(&ctx->eng, rtrun_topo_hwloc(ctx->topo),
                                ctx->multi ? ctx->job->hostname : NULL,
                                ctx->multi ? ctx->job->local_host : -1, ctx->opts.prog_argc,
                                ctx->opts.prog_argv) != RTM_OK) {
        rtrun_say("%s", rtm_last_error());
        return RTRUN_EXIT_FAILURE;
    }
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
            rtd_node_kill_agents(&ctx->node);
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
    rtrun_report_end(&ctx->report);
    if (ctx->node_ready) {
        stop_tree(ctx);
        rtd_node_fini(&ctx->node);
    }
    if (ctx->job != NULL && ctx->job->nspace[0] != '\0')
        rtrun_cleanup_shm(ctx->job->nspace);
    rtrun_engine_stop_pmix(&ctx->eng);
    rtm_secret_wipe(&ctx->secret, sizeof(ctx->secret));
    rtrun_engine_remove_tmpdir(&ctx->eng);
    rtrun_engine_fini(&ctx->eng);
    rtrun_iof_stdin_close(&ctx->in);
    free(ctx->out);
    free(ctx->err);
    for (int i = 0; ctx->failed != NULL && i < ctx->nfailed; i++)
        free(ctx->failed[i].abort_msg);
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

/* The command line; returns -1 to go on with the job, else the exit code
 * (usage errors, --help, --version). */
static int parse_cli(rtrun_ctx_t *ctx, int argc, char **argv)
{
    if (rtrun_cli_parse(argc, argv, &ctx->opts) != RTM_OK) {
        rtrun_say("%s", rtm_last_error());
        rtrun_cli_print_usage(stderr);
        return RTRUN_EXIT_USAGE;
    }
    if (ctx->opts.action == RTRUN_ACTION_HELP) {
        rtrun_cli_print_help(stdout);
        rtrun_cli_free(&ctx->opts);
        return RTRUN_EXIT_OK;
    }
    if (ctx->opts.action == RTRUN_ACTION_REPORT_STATE) {
        long pid = ctx->opts.report_pid;

        rtrun_cli_free(&ctx->opts);
        return rtrun_report_request(pid);
    }
    if (ctx->opts.action == RTRUN_ACTION_CHECK) {
        int code = rtrun_check_main(&ctx->opts);

        rtrun_cli_free(&ctx->opts);
        return code;
    }
    if (ctx->opts.action == RTRUN_ACTION_VERSION) {
        printf("rtrun (librtmsg) %s\n", PACKAGE_VERSION);
        rtrun_cli_free(&ctx->opts);
        return RTRUN_EXIT_OK;
    }
    for (size_t i = 0; i < ctx->opts.nenv_vars; i++) {
        const char *var = ctx->opts.env_vars[i];

        if (strchr(var, '=') == NULL && getenv(var) == NULL)
            rtrun_say("warning: -x %s: %s is not set in rtrun's environment; nothing to forward",
                      var, var);
    }
    return -1;
}

int main(int argc, char **argv)
{
    rtrun_ctx_t ctx;
    int code;

    memset(&ctx, 0, sizeof(ctx));
    rtrun_engine_init(&ctx.eng, &rtrun_engine_ops, &ctx);
    /* A closed stdin (rtrun <&-) would be taken by the first file rtrun
     * opens and read as rank 0's input: /dev/null there reads as EOF. */
    if (fcntl(STDIN_FILENO, F_GETFD) < 0) {
        int fd = open("/dev/null", O_RDONLY);

        if (fd > STDIN_FILENO)
            close(fd);
    }
    rtrun_say_init("rtrun");
    rtm_log_set_identity("rtrun", -1);
    /* rtrun's own rows (RTM_LAUNCH_*) must be right; a bad value of
     * another component's row is the ranks' business (they report it when
     * they register the same table), so rtrun only warns about it. */
    if (rtm_config_register(NULL) != RTM_OK)
        rtrun_say("warning: %s", rtm_last_error());
    if (rtm_config_register(&launcher_config_table) != RTM_OK)
        return RTRUN_EXIT_USAGE;
    if (rtm_lib_config_register() != RTM_OK)
        rtrun_say("warning: %s", rtm_last_error());
    rtm_config_warn_unknown();
    code = parse_cli(&ctx, argc, argv);
    if (code >= 0)
        return code;

    code = setup(&ctx);
    if (code == RTRUN_EXIT_OK) {
        if (ctx.opts.timeout_sec > 0)
            ctx.timeout_at = rtm_time_now() + (double)ctx.opts.timeout_sec;
        if (start_ranks(&ctx) != RTM_OK) {
            rtrun_say("%s; ending the job", rtm_last_error());
            end_job(&ctx, RTRUN_EXIT_FAILURE, SIGTERM);
        }
        run_loop(&ctx);
        code = ctx.exit_code;
    }
    teardown(&ctx);
    if (rtrun_pmix_server_abandoned()) {
        /* The library's threads are stuck on its own locks: exit handlers
         * must not meet them. Everything of ours is cleaned up already. */
        fflush(NULL);
        _exit(code);
    }
    return code;
}
