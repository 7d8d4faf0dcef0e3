/*
 * rtd: the per-host daemon of a multi-host job. Started by its parent
 * (rtrun or another rtd) through the launch agent as
 *     rtd --parent ADDR:PORT[,ADDR:PORT...] --host-index H --job NSPACE
 * with the job secret on stdin. It connects back, proves the secret (and
 * has the parent prove it, rtd_wire.h), gets
 * the job description, starts its own children in the launch tree, hosts
 * the PMIx server of this host's ranks, spawns and binds them, and sends
 * their output, PMIx events and exit statuses up the tree. It never
 * judges a failure (rtrun does): it reports and obeys KILL. When its
 * parent's connection closes, it kills its ranks and exits.
 *
 * One thread owns everything, as in rtrun: the host-side engine
 * (engine.h) runs the loop over a signalfd, the PMIx event pipe and the
 * ranks' pipes; rtd adds the tree connections and rank 0's stdin.
 */
#include "config.h"

#include "launcher/bind.h"
#include "launcher/cleanup.h"
#include "launcher/cli.h"
#include "launcher/daemon.h"
#include "launcher/engine.h"
#include "launcher/iof.h"
#include "launcher/job.h"
#include "launcher/pmix_server.h"
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
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* As rtrun's: SIGTERM, then SIGKILL after this long. */
/* Bound on the wait for ranks and children once the parent is gone. */
#define RTD_EXIT_WAIT_SEC 5.0
/* Stop reading the ranks' output while this much waits for the parent. */
#define RTD_OUT_HIGH_WATER (4u * 1024 * 1024)

typedef struct rtd_ctx {
    rtd_jobdesc_t  desc;
    rtd_node_t     node;
    char          *blob;        /* the packed description, for our children */
    size_t         blob_len;
    int            self;        /* host index */
    rtm_secret_t   secret;      /* the job's, from stdin; wiped at the end */
    rtrun_job_t   *job;         /* = desc.job */
    rtrun_topo_t  *topo;
    char          *prog_path;
    rtrun_engine_t eng;         /* this host's ranks, the PMIx server, the loop */
    double         kill_at;
    int            parent_gone;
    /* rtrun's stdin for rank 0 when it runs here (RTD_MSG_STDIN): bytes
     * not yet written to its pipe, at most RTD_STDIN_WINDOW (rtrun waits
     * for our acks); kept until rank 0 has started. */
    int            stdin_fd;      /* rank 0's stdin pipe; -1: not (or no longer) open */
    int            stdin_started; /* rank 0 was started here */
    int            stdin_eof;     /* rtrun's stdin ended: close the pipe once drained */
    char          *stdin_buf;
    size_t         stdin_len, stdin_cap;
    rtrun_report_t report;        /* a job-state report of this host's ranks (report.h) */
    unsigned char *report_sent;   /* per rank: its answer went up */
} rtd_ctx_t;

/* What rtd polls besides the engine's own fds (tags of poll_add). */
enum {
    POLL_PARENT,
    POLL_STDIN,          /* rank 0's stdin pipe, when bytes wait for it */
    POLL_LISTEN,         /* children connecting back */
    POLL_CHILD = 1000,   /* + i: child i's connection */
    POLL_AGENT = 2000,   /* + i: child i's launch agent's stderr */
};

/* An error rtrun reports and ends the job for (exit code `code`). */
static void report_error(rtd_ctx_t *ctx, int lost_host, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void report_error(rtd_ctx_t *ctx, int lost_host, int code, const char *fmt, ...)
{
    char text[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (ctx->node.parent.fd >= 0)
        rtd_node_up(&ctx->node, RTD_MSG_ERROR, lost_host, code, 0, text, strlen(text));
    else
        rtrun_say("%s", text);
}

/* The parent is gone (or broke the protocol): the loop ends, then the
 * ranks are killed (wind_down). */
static void parent_lost(rtd_ctx_t *ctx)
{
    ctx->parent_gone = 1;
    rtd_conn_close(&ctx->node.parent);
    rtrun_engine_stop(&ctx->eng);
}

/* SIGTERM now, SIGKILL after the grace period (armed once). */
static void kill_ranks(rtd_ctx_t *ctx, int sig)
{
    rtrun_engine_signal_ranks(&ctx->eng, sig);
    if (sig != SIGKILL && ctx->kill_at == 0)
        ctx->kill_at = rtm_time_now() + (double)launcher_config.kill_grace;
}

static void child_lost(rtd_ctx_t *ctx, rtd_conn_t *c, const char *what)
{
    char text[3072];

    if (rtd_node_child_lost(&ctx->node, c, what, text, sizeof(text)))
        report_error(ctx, c->host, RTRUN_EXIT_FAILURE, "%s", text);
}

/* ---- engine callbacks: this host's ranks, reported up the tree --------- */

static void eng_on_pmix_event(void *arg, const rtrun_pmix_event_t *ev)
{
    rtd_ctx_t *ctx = arg;

    if (rtd_node_pmix_request(&ctx->node, ev))
        return;
    if (ev->rank < 0 || ev->rank >= ctx->job->nprocs)
        return;
    if (ev->type == RTRUN_PMIX_EV_CONNECTED)
        ctx->job->ranks[ev->rank].connected = 1;
    else if (ev->type == RTRUN_PMIX_EV_FINALIZED)
        ctx->job->ranks[ev->rank].finalized = 1;
    else if (ev->type == RTRUN_PMIX_EV_LOST)
        ctx->job->ranks[ev->rank].lost_order = 1; /* rtrun numbers them */
    rtd_node_up(&ctx->node, RTD_MSG_PMIXEV, ev->rank, ev->type, ev->status, ev->msg,
                strnlen(ev->msg, sizeof(ev->msg)));
    if (ev->type == RTRUN_PMIX_EV_LOST) /* the loss went up first */
        rtd_node_fence_recheck(&ctx->node, rtm_time_now());
}

static void eng_on_rank_exit(void *arg, rtrun_rank_t *rk, int wstatus)
{
    rtd_ctx_t *ctx = arg;

    rtd_node_up(&ctx->node, RTD_MSG_EXIT, rk->rank, wstatus,
                rk->connected | (rk->finalized << 1), NULL, 0);
}

/* A child that is not a rank: a launch agent of the tree. */
static void eng_on_other_exit(void *arg, pid_t pid, int wstatus)
{
    rtd_ctx_t *ctx = arg;
    rtd_conn_t *c = rtd_node_agent_exited(&ctx->node, pid, wstatus);
    char what[128];

    if (c == NULL)
        return;
    rtd_describe_agent_exit(pid, wstatus, what, sizeof(what));
    if (!ctx->parent_gone)
        child_lost(ctx, c, what);
}

/* Output goes up the tree as it comes; above the high-water mark of the
 * parent's queue, reading waits for the queue to drain. */
static int eng_on_output(void *arg, int rank, int stream, const char *data, size_t len, int eof)
{
    rtd_ctx_t *ctx = arg;

    rtd_node_up(&ctx->node, RTD_MSG_IOF, rank, stream, eof, data, len);
    return ctx->node.parent.out_len > RTD_OUT_HIGH_WATER;
}

static void stdin_flush(rtd_ctx_t *ctx);

static void eng_on_rank_started(void *arg, rtrun_rank_t *rk, int stdin_fd)
{
    rtd_ctx_t *ctx = arg;

    if (rk->rank == 0) {
        ctx->stdin_fd = stdin_fd;
        ctx->stdin_started = 1;
        if (ctx->stdin_fd >= 0)
            fcntl(ctx->stdin_fd, F_SETFL, O_NONBLOCK);
        stdin_flush(ctx); /* what came before rank 0 started */
    }
    rtd_node_up(&ctx->node, RTD_MSG_STARTED, rk->rank, (int)rk->pid, 0, NULL, 0);
}

static void eng_on_signal(void *arg, int sig)
{
    rtd_ctx_t *ctx = arg;

    if (sig == SIGCHLD) {
        rtrun_engine_reap(&ctx->eng);
        return;
    }
    if (sig == SIGUSR1)   /* reports are asked through the tree (RTD_MSG_STATE_ASK) */
        return;
    /* Someone ends rtd itself: the ranks go too, and rtrun hears of it
     * through the ranks' exits and our connection. */
    rtrun_say("received SIG%s; killing the ranks of host %s", sigabbrev_np(sig),
              ctx->job->hosts[ctx->self].name);
    kill_ranks(ctx, SIGTERM);
}

/* Write what rank 0's stdin pipe takes and ack it to rtrun (its window).
 * Once rank 0 has closed its stdin the rest is dropped (and acked), as on
 * rtrun's own host. */
static void stdin_flush(rtd_ctx_t *ctx)
{
    size_t done = 0;

    while (ctx->stdin_fd >= 0 && done < ctx->stdin_len) {
        ssize_t n = write(ctx->stdin_fd, ctx->stdin_buf + done, ctx->stdin_len - done);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        if (n < 0) {
            close(ctx->stdin_fd);
            ctx->stdin_fd = -1;
            break;
        }
        done += (size_t)n;
    }
    if (ctx->stdin_started && ctx->stdin_fd < 0)
        done = ctx->stdin_len;
    if (done > 0) {
        memmove(ctx->stdin_buf, ctx->stdin_buf + done, ctx->stdin_len - done);
        ctx->stdin_len -= done;
        rtd_node_up(&ctx->node, RTD_MSG_STDIN_ACK, (int)done, 0, 0, NULL, 0);
    }
    if (ctx->stdin_eof && ctx->stdin_len == 0 && ctx->stdin_fd >= 0) {
        close(ctx->stdin_fd); /* rank 0 sees EOF */
        ctx->stdin_fd = -1;
    }
}

static void stdin_received(rtd_ctx_t *ctx, const rtd_msg_t *m)
{
    if (m->len > 0 && ctx->stdin_len + m->len > ctx->stdin_cap) {
        char *grown = realloc(ctx->stdin_buf, ctx->stdin_len + m->len);

        if (grown == NULL) {
            report_error(ctx, -1, RTRUN_EXIT_FAILURE,
                         "rtd on host %s: out of memory for rank 0's stdin (%zu bytes)",
                         ctx->job->hosts[ctx->self].name, ctx->stdin_len + m->len);
            return;
        }
        ctx->stdin_buf = grown;
        ctx->stdin_cap = ctx->stdin_len + m->len;
    }
    if (m->len > 0) {
        memcpy(ctx->stdin_buf + ctx->stdin_len, m->data, m->len);
        ctx->stdin_len += m->len;
    }
    if (m->eof)
        ctx->stdin_eof = 1;
    stdin_flush(ctx);
}

/* Handle the whole messages the connection's buffer holds. */
static void report_ask(rtd_ctx_t *ctx, unsigned seq);

static void handle_buffered(rtd_ctx_t *ctx, rtd_conn_t *c)
{
    rtd_hdr_t h;
    const char *payload;
    int got;

    while (c->fd >= 0 && (got = rtd_conn_next(c, &h, &payload)) != 0) {
        int mine = got < 0 ? -1 : rtd_node_handle(&ctx->node, c, &h, payload);

        if (mine < 0) {
            if (c == &ctx->node.parent)
                parent_lost(ctx);
            else
                child_lost(ctx, c, "it sent a malformed message");
            return;
        }
        if (mine == 1) {
            rtd_msg_t m;

            /* checked by rtd_msg_decode (launcher/rtd_msg.c); others are ignored */
            if (rtd_msg_decode(&h, payload, ctx->job->nprocs, &m)) {
                if (m.type == RTD_MSG_STDIN)
                    stdin_received(ctx, &m);
                if (m.type == RTD_MSG_KILL)
                    kill_ranks(ctx, m.sig);
                if (m.type == RTD_MSG_STATE_ASK)
                    report_ask(ctx, m.seq);
            }
            rtd_conn_consume(c, &h);
        }
    }
}

static void handle_conn(rtd_ctx_t *ctx, rtd_conn_t *c)
{
    if (rtd_conn_fill(c) < 0) {
        /* what it sent before closing still counts */
        handle_buffered(ctx, c);
        if (c == &ctx->node.parent)
            parent_lost(ctx);
        else
            child_lost(ctx, c, "its connection closed");
        return;
    }
    handle_buffered(ctx, c);
}

/* ---- job-state reports: ask this host's ranks, send the answers up ---- */

static void report_ask(rtd_ctx_t *ctx, unsigned seq)
{
    int n = 0;

    for (int r = 0; r < ctx->job->nprocs; r++) {
        const rtrun_rank_t *rk = &ctx->job->ranks[r];

        n += rtrun_engine_rank_is_local(&ctx->eng, rk) && rk->state == RTRUN_RANK_RUNNING &&
             rk->connected && !rk->finalized;
    }
    if (n == 0 || ctx->report.active)
        return;
    free(ctx->report_sent);
    ctx->report_sent = calloc((size_t)ctx->job->nprocs, 1);
    if (ctx->report_sent == NULL ||
        rtrun_report_ask(&ctx->report, ctx->eng.tmpdir, ctx->job->nspace, seq,
                         ctx->job->nprocs, rtm_time_now()) != RTM_OK) {
        if (ctx->report_sent != NULL)
            rtrun_say("host %s: no job-state report: %s", ctx->job->hosts[ctx->self].name,
                      rtm_last_error());
        return;
    }
    for (int r = 0; r < ctx->job->nprocs; r++) {
        const rtrun_rank_t *rk = &ctx->job->ranks[r];

        ctx->report.asked[r] = rtrun_engine_rank_is_local(&ctx->eng, rk) &&
                               rk->state == RTRUN_RANK_RUNNING && rk->connected &&
                               !rk->finalized;
    }
}

static void report_check(rtd_ctx_t *ctx, double now)
{
    if (!ctx->report.active)
        return;
    rtrun_report_collect(&ctx->report);
    for (int r = 0; r < ctx->job->nprocs; r++) {
        const char *a = ctx->report.answers[r];

        if (a != NULL && !ctx->report_sent[r]) {
            rtd_node_up(&ctx->node, RTD_MSG_STATE, r, (int)ctx->report.seq, 0, a, strlen(a));
            ctx->report_sent[r] = 1;
        }
    }
    if (rtrun_report_missing(&ctx->report) > 0 && now < ctx->report.deadline)
        return;
    rtrun_report_end(&ctx->report);   /* rtrun names the ranks that did not answer */
}

/* Wait for our ranks and children after the parent left (bounded). */
static void wind_down(rtd_ctx_t *ctx)
{
    double until = rtm_time_now() + RTD_EXIT_WAIT_SEC;
    int killed = 0;

    rtrun_engine_signal_ranks(&ctx->eng, SIGKILL);
    for (int i = 0; i < ctx->node.nchildren; i++)
        rtd_conn_close(&ctx->node.children[i]);
    for (;;) {
        rtrun_engine_reap(&ctx->eng);
        if (rtrun_engine_running_ranks(&ctx->eng) == 0 && rtd_node_agents_left(&ctx->node) == 0)
            break;
        if (rtm_time_now() >= until) {
            if (killed)
                break;
            rtd_node_kill_agents(&ctx->node);
            rtrun_engine_signal_ranks(&ctx->eng, SIGKILL);
            killed = 1;
            until = rtm_time_now() + 1.0;
        }
        poll(NULL, 0, 20);
    }
}

/* ---- the loop ------------------------------------------------------------ */

static int eng_prepare(void *arg, rtrun_engine_t *eng, double now)
{
    rtd_ctx_t *ctx = arg;
    rtd_node_t *n = &ctx->node;

    if (ctx->parent_gone)
        return 0;
    rtrun_engine_poll_add(eng, n->parent.fd,
                          POLLIN | (rtd_conn_wants_write(&n->parent) ? POLLOUT : 0), POLL_PARENT);
    if (ctx->stdin_fd >= 0 && ctx->stdin_len > 0)
        rtrun_engine_poll_add(eng, ctx->stdin_fd, POLLOUT, POLL_STDIN);
    rtrun_engine_poll_add(eng, n->listen_fd, POLLIN, POLL_LISTEN);
    for (int i = 0; i < n->nchildren; i++) {
        rtd_conn_t *c = &n->children[i];

        rtrun_engine_poll_add(eng, c->fd, POLLIN | (rtd_conn_wants_write(c) ? POLLOUT : 0),
                              POLL_CHILD + i);
        rtrun_engine_poll_add(eng, c->agent_err, POLLIN, POLL_AGENT + i);
    }
    /* The parent's queue is full: the ranks' output waits (their pipes
     * fill, and they block writing), rather than grow it without bound. */
    eng->output_paused = n->parent.out_len - n->parent.out_off >= RTD_OUT_HIGH_WATER;
    rtrun_engine_wake_at(eng, rtd_node_next_deadline(n));
    rtrun_engine_wake_at(eng, ctx->kill_at);
    if (ctx->report.active)   /* look for answers every 50 ms, until the deadline */
        rtrun_engine_wake_at(eng, now + 0.05 < ctx->report.deadline ? now + 0.05
                                                                    : ctx->report.deadline);
    return 1;
}

static void on_conn_ready(rtd_ctx_t *ctx, rtd_conn_t *c, short revents)
{
    if (c->fd < 0)
        return;
    if (revents & POLLOUT)
        rtd_conn_flush(c);
    if (revents & (POLLIN | POLLHUP | POLLERR))
        handle_conn(ctx, c);
}

static void eng_on_fd(void *arg, int tag, int fd, short revents)
{
    rtd_ctx_t *ctx = arg;
    rtd_node_t *n = &ctx->node;

    (void)fd;
    if (tag >= POLL_AGENT)
        rtd_node_read_agent_err(n, &n->children[tag - POLL_AGENT]);
    else if (tag >= POLL_CHILD)
        on_conn_ready(ctx, &n->children[tag - POLL_CHILD], revents);
    else if (tag == POLL_PARENT)
        on_conn_ready(ctx, &n->parent, revents);
    else if (tag == POLL_STDIN)
        stdin_flush(ctx);
    else if (tag == POLL_LISTEN)
        rtd_node_accept(n);
}

static void eng_after_poll(void *arg, double now)
{
    rtd_ctx_t *ctx = arg;
    rtd_node_t *n = &ctx->node;

    if (ctx->kill_at > 0 && now >= ctx->kill_at) {
        rtrun_engine_signal_ranks(&ctx->eng, SIGKILL);
        ctx->kill_at = 0;
    }
    rtd_node_fence_recheck(n, now);
    report_check(ctx, now);
    rtd_node_expire_pending(n, now);
    for (int i = 0; i < n->nchildren; i++) {
        rtd_conn_t *c = &n->children[i];

        if (rtd_node_child_late(n, c, now)) {
            char text[96];

            snprintf(text, sizeof(text), "rtd did not connect back within %ld s",
                     (long)launcher_config.launch_timeout);
            child_lost(ctx, c, text);
        }
    }
    if (n->parent.fd < 0)
        ctx->parent_gone = 1;
}

static int eng_on_poll_error(void *arg, int err)
{
    (void)arg;
    rtrun_say("poll failed: %s", strerror(err));
    return 1;
}

static const rtrun_engine_ops_t rtd_engine_ops = {
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

static void run_loop(rtd_ctx_t *ctx)
{
    if (rtrun_engine_run(&ctx->eng, 3 + 2 * ctx->node.nchildren) != RTM_OK)
        report_error(ctx, -1, RTRUN_EXIT_FAILURE, "rtd on host %s: out of memory",
                     ctx->job->hosts[ctx->self].name);
}

static void start_ranks(rtd_ctx_t *ctx)
{
    rtrun_job_t *job = ctx->job;

    for (int r = 0; r < job->nprocs; r++) {
        if (job->ranks[r].node_id != ctx->self)
            continue;
        if (rtrun_engine_start_rank(&ctx->eng, &job->ranks[r]) != RTM_OK) {
            report_error(ctx, -1, RTRUN_EXIT_FAILURE, "cannot start rank %d on host %s: %s", r,
                         job->hosts[ctx->self].name, rtm_last_error());
            return;
        }
    }
}

/* This host's binding, from its own hwloc view (rtrun_bind_resolve). */
static void bind_local(rtd_ctx_t *ctx)
{
    rtrun_job_t *job = ctx->job;

    job->ncores = rtrun_topo_ncores(ctx->topo);
    job->slots = job->hosts[ctx->self].slots;
    job->local_host = ctx->self;
    job->map_by = (rtrun_map_by_t)ctx->desc.map_by;
    job->bind = rtrun_bind_resolve((rtrun_bind_t)ctx->desc.bind, job->map_by,
                                   job->hosts[ctx->self].nranks, job->ncores);
    job->bound = job->bind != RTRUN_BIND_NONE;
}

/* The job secret: one line of hex on stdin (the parent wrote it there
 * before starting us; bounded). */
static int read_secret(rtm_secret_t *secret)
{
    char buf[RTM_SECRET_HEX_LEN + 2];
    size_t got = 0;
    double until = rtm_time_now() + 30.0;
    int rc;

    while (got + 1 < sizeof(buf) && rtm_time_now() < until) {
        struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
        ssize_t n;

        if (poll(&pfd, 1, 500) <= 0)
            continue;
        n = read(STDIN_FILENO, buf + got, 1);
        if (n <= 0)
            break;
        if (buf[got] == '\n')
            break;
        got++;
    }
    rc = rtm_secret_from_hex(buf, got, secret) == RTM_OK ? 0 : -1;
    rtm_secret_wipe(buf, sizeof(buf));
    return rc;
}

/* The handshake, then the JOB message (bounded). */
static int join_parent(rtd_ctx_t *ctx)
{
    rtd_conn_t *p = &ctx->node.parent;
    double until = rtm_time_now() + 60.0;
    rtd_hdr_t h;
    const char *payload;
    char err[256];

    if (rtd_conn_join(p, &ctx->secret, ctx->self, until, err, sizeof(err)) != 0) {
        rtrun_say("host %d: %s", ctx->self, err);
        return -1;
    }
    while (rtm_time_now() < until) {
        struct pollfd pfd = {.fd = p->fd,
                             .events = POLLIN | (p->out_len > p->out_off ? POLLOUT : 0)};
        int got;

        if (poll(&pfd, 1, 500) < 0 && errno != EINTR)
            return -1;
        if (pfd.revents & POLLOUT)
            rtd_conn_flush(p);
        if ((pfd.revents & (POLLIN | POLLHUP | POLLERR)) && rtd_conn_fill(p) < 0)
            return -1;
        got = rtd_conn_next(p, &h, &payload);
        if (got < 0)
            return -1;
        if (got == 0)
            continue;
        if (h.type != RTD_MSG_JOB)
            return -1;
        ctx->blob = malloc(h.len ? h.len : 1);
        if (ctx->blob == NULL)
            return -1;
        memcpy(ctx->blob, payload, h.len);
        ctx->blob_len = h.len;
        rtd_conn_consume(p, &h);
        return 0;
    }
    return -1;
}

static void teardown(rtd_ctx_t *ctx)
{
    rtd_node_fini(&ctx->node);
    rtrun_report_end(&ctx->report);
    free(ctx->report_sent);
    /* Files first: the PMIx teardown below may take seconds (bounded), and
     * the parent stops waiting for this rtd after RTRUN's AGENT_EXIT_SEC. */
    if (ctx->job != NULL && ctx->job->nspace[0] != '\0')
        rtrun_cleanup_shm(ctx->job->nspace);
    rtrun_engine_remove_tmpdir(&ctx->eng);
    rtrun_engine_stop_pmix(&ctx->eng);
    /* Again: the server may have written there while it went down. */
    rtrun_engine_remove_tmpdir(&ctx->eng);
    rtrun_engine_fini(&ctx->eng);
    if (ctx->stdin_fd >= 0)
        close(ctx->stdin_fd);
    free(ctx->stdin_buf);
    free(ctx->prog_path);
    free(ctx->blob);
    rtm_secret_wipe(&ctx->secret, sizeof(ctx->secret));
    rtrun_topo_free(ctx->topo);
    rtd_jobdesc_free(&ctx->desc);
}

static void usage(void)
{
    fprintf(stderr, "usage: rtd --parent ADDR:PORT[,...] --host-index N --job NSPACE\n"
                    "(started by rtrun through the launch agent; the job secret comes on stdin)\n");
}

/* --parent, --host-index, --job; -1 when one is missing. */
static int parse_args(int argc, char **argv, const char **parent_p, const char **nspace_p,
                      int *self_p)
{
    const char *parent = NULL, *nspace = NULL;
    int self = -1;

    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--parent") == 0)
            parent = argv[i + 1];
        else if (strcmp(argv[i], "--host-index") == 0)
            self = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--job") == 0)
            nspace = argv[i + 1];
    }
    if (parent == NULL || nspace == NULL || self < 0)
        return -1;
    *parent_p = parent;
    *nspace_p = nspace;
    *self_p = self;
    return 0;
}

/* The process, before anything starts a thread (PMIx). */
static void init_process(rtd_ctx_t *ctx)
{
    rtrun_say_init("rtd");
    rtm_log_set_identity("rtd", -1);
    /* A launch agent that execs rtd on this kernel (ip netns exec) passes
     * on the parent-death SIGKILL rtrun gave the agent: drop it, so losing
     * the parent ends this rtd through its closed connection -- ranks
     * killed, files removed -- rather than a SIGKILL that removes nothing. */
    prctl(PR_SET_PDEATHSIG, 0);
    if (rtm_lib_config_register() != RTM_OK)
        rtrun_say("warning: %s", rtm_last_error());
    rtm_config_warn_unknown();
    /* Blocked before any thread starts, so only the signalfd sees them.
     * Should the signalfd fail, the loop runs without it and the parent's
     * connection still ends this rtd. */
    (void)rtrun_engine_open_signals(&ctx->eng);
}

/* The grace between SIGTERM and SIGKILL is rtrun's (RTM_KILL_GRACE in its
 * environment, which the job description carries), not whatever this rtd's
 * own environment says: a remote rtd must not kill ranks before rtrun
 * would. A value rtrun accepted parses here too. */
static void adopt_kill_grace(rtd_ctx_t *ctx)
{
    static const char name[] = "RTM_KILL_GRACE=";
    const rtm_cfg_row_t *row = rtm_config_find("RTM_KILL_GRACE", NULL);

    for (size_t i = 0; row != NULL && i < ctx->desc.nenv; i++) {
        long grace;

        if (ctx->desc.env[i] != NULL && strncmp(ctx->desc.env[i], name, sizeof(name) - 1) == 0 &&
            rtm_config_parse_value(row, ctx->desc.env[i] + sizeof(name) - 1, &grace) == RTM_OK)
            launcher_config.kill_grace = grace;
    }
}

/* Prove the secret on the connection to the parent, receive the job
 * description and check it is this job's. */
static int join_job(rtd_ctx_t *ctx, int fd, const char *parent, const char *nspace)
{
    rtm_status_t status;

    /* A placeholder node until the description arrives. */
    ctx->node.parent.fd = fd;
    ctx->node.parent.host = -1;
    ctx->node.listen_fd = -1;
    if (join_parent(ctx) != 0) {
        rtrun_say("job %s: the parent at %s closed the connection or sent no job description",
                  nspace, parent);
        rtd_conn_close(&ctx->node.parent);
        return -1;
    }
    status = rtd_jobdesc_unpack(ctx->blob, ctx->blob_len, &ctx->desc);
    if (status == RTM_OK && (ctx->self >= ctx->desc.job->nhosts ||
                             strcmp(ctx->desc.job->nspace, nspace) != 0))
        status = rtm_error_set(RTM_ERR_INVALID_ARG, "the job description is for another job");
    if (status != RTM_OK) {
        rtrun_say("%s", rtm_last_error());
        rtd_conn_close(&ctx->node.parent);
        return -1;
    }
    ctx->job = ctx->desc.job;
    adopt_kill_grace(ctx);
    return 0;
}

/* The node proper, keeping the parent connection of the placeholder. */
static int init_node(rtd_ctx_t *ctx)
{
    rtd_conn_t parent_conn = ctx->node.parent;
    rtm_status_t status;

    status = rtd_node_init(&ctx->node, &ctx->desc, ctx->self, ctx->blob, ctx->blob_len,
                           &ctx->secret);
    if (status != RTM_OK) {
        rtd_conn_close(&parent_conn);
        rtrun_say("%s", rtm_last_error());
        return -1;
    }
    ctx->node.parent = parent_conn;
    snprintf(ctx->job->hostname, sizeof(ctx->job->hostname), "%s",
             ctx->job->hosts[ctx->self].name);
    return 0;
}

/* What this host's ranks need: the program, the binding, the PMIx
 * server. Errors are reported up (the caller then waits for the end). */
static int setup_ranks(rtd_ctx_t *ctx)
{
    rtrun_engine_t *eng = &ctx->eng;
    rtm_status_t status;
    int code;

    if (ctx->desc.cwd != NULL && chdir(ctx->desc.cwd) != 0)
        rtrun_say("host %s: cannot change to rtrun's directory %s (%s); the ranks start in %s",
                  ctx->job->hostname, ctx->desc.cwd, strerror(errno),
                  getenv("HOME") ? getenv("HOME") : "/");
    status = rtrun_resolve_program(ctx->desc.prog_argv[0], &ctx->prog_path, &code);
    if (status != RTM_OK) {
        report_error(ctx, -1, code, "host %s: %s", ctx->job->hostname, rtm_last_error());
        return -1;
    }
    status = rtrun_topo_load(&ctx->topo);
    if (status == RTM_OK) {
        bind_local(ctx);
        status = rtrun_engine_open_events(eng);
    }
    if (status == RTM_OK)
        status = rtrun_engine_start_pmix(eng, rtrun_topo_hwloc(ctx->topo), ctx->job->hostname,
                                         ctx->self, ctx->desc.prog_argc, ctx->desc.prog_argv);
    if (status != RTM_OK) {
        report_error(ctx, -1, RTRUN_EXIT_FAILURE, "rtd on host %s: %s", ctx->job->hostname,
                     rtm_last_error());
        return -1;
    }
    eng->topo = ctx->topo;
    eng->prog_path = ctx->prog_path;
    eng->prog_argv = ctx->desc.prog_argv;
    eng->env_vars = ctx->desc.env;
    eng->nenv_vars = ctx->desc.nenv;
    eng->report_bindings = ctx->desc.report_bindings;
    return 0;
}

/* This host's part of the job: children first (the tree grows while
 * this host sets up), then the ranks. */
static int setup_host(rtd_ctx_t *ctx)
{
    rtm_status_t status;

    status = rtrun_engine_attach_job(&ctx->eng, ctx->job, 0, ctx->self);
    if (status != RTM_OK) {
        report_error(ctx, -1, RTRUN_EXIT_FAILURE, "rtd on host %s: out of memory",
                     ctx->job->hostname);
        return -1;
    }
    status = rtd_node_launch_children(&ctx->node);
    if (status != RTM_OK) {
        report_error(ctx, -1, RTRUN_EXIT_FAILURE, "rtd on host %s: %s", ctx->job->hostname,
                     rtm_last_error());
        return -1;
    }
    return setup_ranks(ctx);
}

int main(int argc, char **argv)
{
    rtd_ctx_t ctx;
    const char *parent, *nspace;
    char err[512];
    int fd, code = RTRUN_EXIT_FAILURE;

    memset(&ctx, 0, sizeof(ctx));
    rtrun_engine_init(&ctx.eng, &rtd_engine_ops, &ctx);
    ctx.stdin_fd = -1;
    if (parse_args(argc, argv, &parent, &nspace, &ctx.self) != 0) {
        usage();
        return RTRUN_EXIT_USAGE;
    }
    init_process(&ctx);
    if (read_secret(&ctx.secret) != 0) {
        rtrun_say("no job secret on stdin (rtd is started by rtrun, not by hand)");
        return RTRUN_EXIT_USAGE;
    }
    /* the ranks of this host get it as PMIx job data */
    rtrun_pmix_set_job_secret(&ctx.secret);
    fd = rtd_connect_any(parent, 10.0, err, sizeof(err));
    if (fd < 0) {
        rtrun_say("cannot connect back to rtrun (%s): %s", parent, err);
        rtm_secret_wipe(&ctx.secret, sizeof(ctx.secret));
        return RTRUN_EXIT_FAILURE;
    }
    if (join_job(&ctx, fd, parent, nspace) != 0)
        goto out;
    /* What rtrun or rtd processes SIGKILLed on this host could not remove. */
    rtrun_cleanup_stale(rtm_log_hostname());
    if (init_node(&ctx) != 0)
        goto out;
    if (setup_host(&ctx) == 0) {
        start_ranks(&ctx);
        /* Messages that came right behind the description (a direct-modex
         * request, a KILL) are already in the buffer: poll would not tell. */
        handle_buffered(&ctx, &ctx.node.parent);
    }
    /* Even after an error: stay until the parent ends the job, so every
     * rank is killed and every file removed the one way. */
    run_loop(&ctx);
    wind_down(&ctx);
    code = 0;
out:
    teardown(&ctx);
    if (rtrun_pmix_server_abandoned()) {
        /* As rtrun: the library's threads are stuck; no exit handlers. */
        fflush(NULL);
        _exit(code);
    }
    return code;
}
