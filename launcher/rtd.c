/*
 * rtd: the per-host daemon of a multi-host job. Started by its parent
 * (rtrun or another rtd) through the launch agent as
 *     rtd --parent ADDR:PORT[,ADDR:PORT...] --host-index H --job NSPACE
 * with the job token on stdin. It connects back, presents the token, gets
 * the job description, starts its own children in the launch tree, hosts
 * the PMIx server of this host's ranks, spawns and binds them, and sends
 * their output, PMIx events and exit statuses up the tree. It never
 * judges a failure (rtrun does): it reports and obeys KILL. When its
 * parent's connection closes, it kills its ranks and exits.
 *
 * One thread owns everything, as in rtrun: a poll loop over a signalfd,
 * the PMIx event pipe, the tree connections and the ranks' pipes.
 */
#include "config.h"

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
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* As rtrun's: SIGTERM, then SIGKILL after this long. */
#define RTD_KILL_GRACE_SEC 2.0
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
    rtrun_job_t   *job;         /* = desc.job */
    rtrun_topo_t  *topo;
    char          *prog_path;
    char           tmpdir[PATH_MAX];
    int            signal_fd;
    int            event_pipe[2];
    int            pmix_started;
    int            job_registered;
    int           *out_fd;      /* per rank (local ones only, else -1) */
    int           *err_fd;
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
} rtd_ctx_t;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    int n;

    n = snprintf(line, sizeof(line), "rtd: ");
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof(line) - (size_t)n - 2, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    rtrun_iof_write_all(STDERR_FILENO, line, (size_t)n);
}

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
        say("%s", text);
}

static void signal_ranks(rtd_ctx_t *ctx, int sig)
{
    for (int r = 0; r < ctx->job->nprocs; r++) {
        rtrun_rank_t *rk = &ctx->job->ranks[r];

        if (rk->node_id == ctx->self && rk->state == RTRUN_RANK_RUNNING &&
            killpg(rk->pid, sig) != 0 && errno == ESRCH)
            kill(rk->pid, sig);
    }
}

static int running_ranks(const rtd_ctx_t *ctx)
{
    int n = 0;

    for (int r = 0; r < ctx->job->nprocs; r++)
        n += ctx->job->ranks[r].node_id == ctx->self &&
             ctx->job->ranks[r].state == RTRUN_RANK_RUNNING;
    return n;
}

/* Send what a rank's pipe holds up the tree; at EOF the pipe closes. */
static void forward_output(rtd_ctx_t *ctx, int r, int stream)
{
    int *fdp = stream == 1 ? &ctx->out_fd[r] : &ctx->err_fd[r];
    char buf[65536];

    while (*fdp >= 0) {
        ssize_t n = read(*fdp, buf, sizeof(buf));

        if (n > 0) {
            rtd_node_up(&ctx->node, RTD_MSG_IOF, r, stream, 0, buf, (size_t)n);
            if (ctx->node.parent.out_len > RTD_OUT_HIGH_WATER)
                return;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        close(*fdp);
        *fdp = -1;
        rtd_node_up(&ctx->node, RTD_MSG_IOF, r, stream, 1, NULL, 0);
    }
}

static void on_pmix_event(rtd_ctx_t *ctx, const rtrun_pmix_event_t *ev)
{
    if (rtd_node_pmix_request(&ctx->node, ev))
        return;
    if (ev->rank < 0 || ev->rank >= ctx->job->nprocs)
        return;
    if (ev->type == RTRUN_PMIX_EV_CONNECTED)
        ctx->job->ranks[ev->rank].connected = 1;
    else if (ev->type == RTRUN_PMIX_EV_FINALIZED)
        ctx->job->ranks[ev->rank].finalized = 1;
    rtd_node_up(&ctx->node, RTD_MSG_PMIXEV, ev->rank, ev->type, ev->status, ev->msg,
                strnlen(ev->msg, sizeof(ev->msg)));
}

static void drain_events(rtd_ctx_t *ctx)
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
        break;
    }
}

static void child_lost(rtd_ctx_t *ctx, rtd_conn_t *c, const char *what)
{
    char text[3072];

    if (c->lost)
        return;
    c->lost = 1;
    rtd_node_child_error(&ctx->node, c, what, text, sizeof(text));
    report_error(ctx, c->host, RTRUN_EXIT_FAILURE, "%s", text);
    rtd_conn_close(c);
}

static void reap(rtd_ctx_t *ctx)
{
    for (;;) {
        int wstatus;
        pid_t pid = waitpid(-1, &wstatus, WNOHANG);
        rtd_conn_t *c;
        rtrun_rank_t *rk;

        if (pid < 0 && errno == EINTR)
            continue;
        if (pid <= 0)
            break;
        c = rtd_node_agent_exited(&ctx->node, pid, wstatus);
        if (c != NULL) {
            char what[128];

            if (WIFSIGNALED(wstatus))
                snprintf(what, sizeof(what), "its launch agent (pid %d) was killed by signal %d",
                         (int)pid, WTERMSIG(wstatus));
            else
                snprintf(what, sizeof(what), "its launch agent (pid %d) exited with code %d",
                         (int)pid, WEXITSTATUS(wstatus));
            if (!ctx->parent_gone)
                child_lost(ctx, c, what);
            continue;
        }
        rk = rtrun_job_find_pid(ctx->job, pid);
        if (rk == NULL)
            continue;
        /* A finalize or abort explains the exit; read for each rank, as one
         * that exited after the previous read wrote its events after it. */
        drain_events(ctx);
        rk->state = RTRUN_RANK_EXITED;
        rk->wait_status = wstatus;
        forward_output(ctx, rk->rank, 1);
        forward_output(ctx, rk->rank, 2);
        rtd_node_up(&ctx->node, RTD_MSG_EXIT, rk->rank, wstatus,
                    rk->connected | (rk->finalized << 1), NULL, 0);
    }
}

static void on_signals(rtd_ctx_t *ctx)
{
    struct signalfd_siginfo si;

    while (read(ctx->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        if (si.ssi_signo == SIGCHLD) {
            reap(ctx);
        } else {
            /* Someone ends rtd itself: the ranks go too, and rtrun hears
             * of it through the ranks' exits and our connection. */
            say("received SIG%s; killing the ranks of host %s", sigabbrev_np((int)si.ssi_signo),
                ctx->job->hosts[ctx->self].name);
            signal_ranks(ctx, SIGTERM);
            if (ctx->kill_at == 0)
                ctx->kill_at = rtm_time_now() + RTD_KILL_GRACE_SEC;
        }
    }
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

static void stdin_received(rtd_ctx_t *ctx, const rtd_hdr_t *h, const char *payload)
{
    if (h->len > 0 && ctx->stdin_len + h->len > ctx->stdin_cap) {
        char *grown = realloc(ctx->stdin_buf, ctx->stdin_len + h->len);

        if (grown == NULL) {
            report_error(ctx, -1, RTRUN_EXIT_FAILURE,
                         "rtd on host %s: out of memory for rank 0's stdin (%zu bytes)",
                         ctx->job->hosts[ctx->self].name, ctx->stdin_len + h->len);
            return;
        }
        ctx->stdin_buf = grown;
        ctx->stdin_cap = ctx->stdin_len + h->len;
    }
    if (h->len > 0) {
        memcpy(ctx->stdin_buf + ctx->stdin_len, payload, h->len);
        ctx->stdin_len += h->len;
    }
    if (h->c)
        ctx->stdin_eof = 1;
    stdin_flush(ctx);
}

/* Handle the whole messages the connection's buffer holds. */
static void handle_buffered(rtd_ctx_t *ctx, rtd_conn_t *c)
{
    rtd_hdr_t h;
    const char *payload;
    int got;

    while (c->fd >= 0 && (got = rtd_conn_next(c, &h, &payload)) != 0) {
        int mine = got < 0 ? -1 : rtd_node_handle(&ctx->node, c, &h, payload);

        if (mine < 0) {
            if (c == &ctx->node.parent) {
                ctx->parent_gone = 1;
                rtd_conn_close(c);
            } else {
                child_lost(ctx, c, "it sent a malformed message");
            }
            return;
        }
        if (mine == 1) {
            if (h.type == RTD_MSG_STDIN)
                stdin_received(ctx, &h, payload);
            if (h.type == RTD_MSG_KILL && h.a > 0) {
                signal_ranks(ctx, h.a);
                if (h.a != SIGKILL && ctx->kill_at == 0)
                    ctx->kill_at = rtm_time_now() + RTD_KILL_GRACE_SEC;
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
        if (c == &ctx->node.parent) {
            ctx->parent_gone = 1;
            rtd_conn_close(c);
        } else {
            child_lost(ctx, c, "its connection closed");
        }
        return;
    }
    handle_buffered(ctx, c);
}

/* Wait for our ranks and children after the parent left (bounded). */
static void wind_down(rtd_ctx_t *ctx)
{
    double until = rtm_time_now() + RTD_EXIT_WAIT_SEC;
    int killed = 0;

    signal_ranks(ctx, SIGKILL);
    for (int i = 0; i < ctx->node.nchildren; i++)
        rtd_conn_close(&ctx->node.children[i]);
    for (;;) {
        int agents = 0;

        reap(ctx);
        for (int i = 0; i < ctx->node.nchildren; i++)
            agents += ctx->node.children[i].agent_pid > 0;
        if (running_ranks(ctx) == 0 && agents == 0)
            break;
        if (rtm_time_now() >= until) {
            if (killed)
                break;
            for (int i = 0; i < ctx->node.nchildren; i++)
                if (ctx->node.children[i].agent_pid > 0)
                    killpg(ctx->node.children[i].agent_pid, SIGKILL);
            signal_ranks(ctx, SIGKILL);
            killed = 1;
            until = rtm_time_now() + 1.0;
        }
        poll(NULL, 0, 20);
    }
}

static void run_loop(rtd_ctx_t *ctx)
{
    rtd_node_t *n = &ctx->node;
    size_t cap = 8 + 2 * (size_t)n->nchildren + 2 * (size_t)ctx->job->nprocs;
    struct pollfd *pfds = calloc(cap, sizeof(*pfds));
    int *what = calloc(cap, sizeof(*what));

    if (pfds == NULL || what == NULL) {
        report_error(ctx, -1, RTRUN_EXIT_FAILURE, "rtd on host %s: out of memory",
                     ctx->job->hosts[ctx->self].name);
        free(pfds);
        free(what);
        return;
    }
    /* what[]: -1 signals, -2 events, -3 parent, -4 listen, -5 rank 0's stdin, 1000+i child
     * conn, 2000+i child agent stderr, 2r / 2r+1 rank stdout / stderr */
    while (!ctx->parent_gone) {
        double now = rtm_time_now(), wake = 0;
        int k = 0, timeout_ms = -1;

        pfds[k].fd = ctx->signal_fd;
        pfds[k].events = POLLIN;
        what[k++] = -1;
        if (ctx->event_pipe[0] >= 0) {
            pfds[k].fd = ctx->event_pipe[0];
            pfds[k].events = POLLIN;
            what[k++] = -2;
        }
        pfds[k].fd = n->parent.fd;
        pfds[k].events = POLLIN | (n->parent.out_len > n->parent.out_off ? POLLOUT : 0);
        what[k++] = -3;
        if (ctx->stdin_fd >= 0 && ctx->stdin_len > 0) {
            pfds[k].fd = ctx->stdin_fd;
            pfds[k].events = POLLOUT;
            what[k++] = -5;
        }
        if (n->listen_fd >= 0) {
            pfds[k].fd = n->listen_fd;
            pfds[k].events = POLLIN;
            what[k++] = -4;
        }
        for (int i = 0; i < n->nchildren; i++) {
            rtd_conn_t *c = &n->children[i];

            if (c->fd >= 0) {
                pfds[k].fd = c->fd;
                pfds[k].events = POLLIN | (c->out_len > c->out_off ? POLLOUT : 0);
                what[k++] = 1000 + i;
            }
            if (c->agent_err >= 0) {
                pfds[k].fd = c->agent_err;
                pfds[k].events = POLLIN;
                what[k++] = 2000 + i;
            }
            if (!c->hello && !c->lost && (wake == 0 || c->deadline < wake))
                wake = c->deadline;
        }
        if (ctx->out_fd != NULL && n->parent.out_len - n->parent.out_off < RTD_OUT_HIGH_WATER) {
            for (int r = 0; r < ctx->job->nprocs; r++) {
                if (ctx->out_fd[r] >= 0) {
                    pfds[k].fd = ctx->out_fd[r];
                    pfds[k].events = POLLIN;
                    what[k++] = 2 * r + 10000;
                }
                if (ctx->err_fd[r] >= 0) {
                    pfds[k].fd = ctx->err_fd[r];
                    pfds[k].events = POLLIN;
                    what[k++] = 2 * r + 10001;
                }
            }
        }
        if (ctx->kill_at > 0 && (wake == 0 || ctx->kill_at < wake))
            wake = ctx->kill_at;
        if (wake > 0)
            timeout_ms = wake <= now ? 0 : (int)((wake - now) * 1000.0) + 1;
        if (poll(pfds, (nfds_t)k, timeout_ms) < 0 && errno != EINTR) {
            say("poll failed: %s", strerror(errno));
            break;
        }
        /* PMIx events first, so an exit is reported after its finalize. */
        for (int i = 0; i < k; i++)
            if (what[i] == -2 && pfds[i].revents)
                drain_events(ctx);
        for (int i = 0; i < k && !ctx->parent_gone; i++) {
            int w = what[i];

            if (pfds[i].revents == 0 || w == -2)
                continue;
            if (w == -1)
                on_signals(ctx);
            else if (w == -3) {
                if (pfds[i].revents & POLLOUT)
                    rtd_conn_flush(&n->parent);
                if (pfds[i].revents & (POLLIN | POLLHUP | POLLERR))
                    handle_conn(ctx, &n->parent);
            } else if (w == -4)
                rtd_node_accept(n);
            else if (w == -5)
                stdin_flush(ctx);
            else if (w >= 10000) {
                int r = (w - 10000) / 2;

                forward_output(ctx, r, (w & 1) ? 2 : 1);
            } else if (w >= 2000)
                rtd_node_read_agent_err(n, &n->children[w - 2000]);
            else if (w >= 1000) {
                rtd_conn_t *c = &n->children[w - 1000];

                if (c->fd < 0)
                    continue;
                if (pfds[i].revents & POLLOUT)
                    rtd_conn_flush(c);
                if (pfds[i].revents & (POLLIN | POLLHUP | POLLERR))
                    handle_conn(ctx, c);
            }
        }
        now = rtm_time_now();
        if (ctx->kill_at > 0 && now >= ctx->kill_at) {
            signal_ranks(ctx, SIGKILL);
            ctx->kill_at = 0;
        }
        for (int i = 0; i < n->nchildren; i++) {
            rtd_conn_t *c = &n->children[i];

            if (!c->hello && !c->lost && now >= c->deadline) {
                char text[96];

                snprintf(text, sizeof(text), "rtd did not connect back within %ld s",
                         (long)launcher_config.launch_timeout);
                if (c->agent_pid > 0)
                    killpg(c->agent_pid, SIGKILL);
                rtd_node_read_agent_err(n, c);
                child_lost(ctx, c, text);
            }
        }
        if (n->parent.fd < 0)
            ctx->parent_gone = 1;
    }
    free(pfds);
    free(what);
}

static int start_ranks(rtd_ctx_t *ctx)
{
    rtrun_job_t *job = ctx->job;
    const char *host = job->hosts[ctx->self].name;

    for (int r = 0; r < job->nprocs; r++) {
        rtrun_rank_t *rk = &job->ranks[r];
        rtrun_spawn_req_t req;
        rtrun_spawn_fds_t fds;
        cpu_set_t cpuset;
        char where[300];
        char **env = NULL;
        rtm_status_t status;

        if (rk->node_id != ctx->self)
            continue;
        status = rtrun_env_build(ctx->desc.env, ctx->desc.nenv, &env);
        if (status == RTM_OK)
            status = rtrun_pmix_setup_fork(job, r, &env);
        if (status == RTM_OK && job->bound)
            status = rtrun_topo_rank_cpuset(ctx->topo, job->bind, job->map_by, rk->local_rank,
                                            &cpuset, where, sizeof(where));
        if (status != RTM_OK) {
            rtrun_env_free(env);
            report_error(ctx, -1, RTRUN_EXIT_FAILURE, "cannot start rank %d on host %s: %s", r,
                         host, rtm_last_error());
            return -1;
        }
        if (ctx->desc.report_bindings) {
            if (job->bound)
                say("rank %d (%s) bound to %s", r, host, where);
            else
                say("rank %d (%s) not bound (may run on any of the %d cores)", r, host,
                    job->ncores);
        }
        req.rank = r;
        req.path = ctx->prog_path;
        req.argv = ctx->desc.prog_argv;
        req.envp = env;
        req.want_stdin = (r == 0); /* rtrun's stdin comes as RTD_MSG_STDIN */
        req.cpuset = job->bound ? &cpuset : NULL;
        status = rtrun_spawn(&req, &rk->pid, &fds);
        rtrun_env_free(env);
        if (status != RTM_OK) {
            report_error(ctx, -1, RTRUN_EXIT_FAILURE, "cannot start rank %d on host %s: %s", r,
                         host, rtm_last_error());
            return -1;
        }
        rk->state = RTRUN_RANK_RUNNING;
        ctx->out_fd[r] = fds.stdout_r;
        ctx->err_fd[r] = fds.stderr_r;
        if (r == 0) {
            ctx->stdin_fd = fds.stdin_w;
            ctx->stdin_started = 1;
            if (ctx->stdin_fd >= 0)
                fcntl(ctx->stdin_fd, F_SETFL, O_NONBLOCK);
            stdin_flush(ctx); /* what came before rank 0 started */
        }
        rtd_node_up(&ctx->node, RTD_MSG_STARTED, r, (int)rk->pid, 0, NULL, 0);
    }
    return 0;
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

static int read_token(char *buf, size_t len)
{
    size_t got = 0;
    double until = rtm_time_now() + 30.0;

    while (got + 1 < len && rtm_time_now() < until) {
        struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
        ssize_t n;

        if (poll(&pfd, 1, 500) <= 0)
            continue;
        n = read(STDIN_FILENO, buf + got, 1);
        if (n <= 0)
            return -1;
        if (buf[got] == '\n')
            break;
        got++;
    }
    buf[got] = '\0';
    return got == RTD_TOKEN_LEN ? 0 : -1;
}

/* HELLO, then the JOB message (bounded). */
static int join_parent(rtd_ctx_t *ctx, const char *token)
{
    rtd_conn_t *p = &ctx->node.parent;
    double until = rtm_time_now() + 60.0;
    rtd_hdr_t h;
    const char *payload;

    rtd_conn_send(p, RTD_MSG_HELLO, -1, ctx->self, 0, 0, token, RTD_TOKEN_LEN);
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
    /* Files first: the PMIx teardown below may take seconds (bounded), and
     * the parent stops waiting for this rtd after RTRUN's AGENT_EXIT_SEC. */
    if (ctx->job != NULL && ctx->job->nspace[0] != '\0')
        rtrun_cleanup_shm(ctx->job->nspace);
    if (ctx->tmpdir[0] != '\0')
        rtrun_cleanup_tree(ctx->tmpdir);
    if (ctx->job_registered)
        rtrun_pmix_deregister_job(ctx->job);
    if (ctx->pmix_started)
        rtrun_pmix_server_stop(rtrun_job_local_finalized(ctx->job));
    /* Again: the server may have written there while it went down. */
    if (ctx->tmpdir[0] != '\0')
        rtrun_cleanup_tree(ctx->tmpdir);
    for (int i = 0; i < 2; i++)
        if (ctx->event_pipe[i] >= 0)
            close(ctx->event_pipe[i]);
    if (ctx->signal_fd >= 0)
        close(ctx->signal_fd);
    for (int r = 0; ctx->out_fd != NULL && r < ctx->job->nprocs; r++) {
        if (ctx->out_fd[r] >= 0)
            close(ctx->out_fd[r]);
        if (ctx->err_fd[r] >= 0)
            close(ctx->err_fd[r]);
    }
    free(ctx->out_fd);
    free(ctx->err_fd);
    if (ctx->stdin_fd >= 0)
        close(ctx->stdin_fd);
    free(ctx->stdin_buf);
    free(ctx->prog_path);
    free(ctx->blob);
    rtrun_topo_free(ctx->topo);
    rtd_jobdesc_free(&ctx->desc);
}

static void usage(void)
{
    fprintf(stderr, "usage: rtd --parent ADDR:PORT[,...] --host-index N --job NSPACE\n"
                    "(started by rtrun through the launch agent; the job token comes on stdin)\n");
}

int main(int argc, char **argv)
{
    rtd_ctx_t ctx;
    const char *parent = NULL, *nspace = NULL;
    char token[RTD_TOKEN_LEN + 2], err[512];
    sigset_t set;
    int fd, code = RTRUN_EXIT_FAILURE;
    rtm_status_t status;

    memset(&ctx, 0, sizeof(ctx));
    ctx.self = -1;
    ctx.signal_fd = -1;
    ctx.event_pipe[0] = ctx.event_pipe[1] = -1;
    ctx.stdin_fd = -1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--parent") == 0)
            parent = argv[i + 1];
        else if (strcmp(argv[i], "--host-index") == 0)
            ctx.self = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--job") == 0)
            nspace = argv[i + 1];
    }
    if (parent == NULL || nspace == NULL || ctx.self < 0) {
        usage();
        return RTRUN_EXIT_USAGE;
    }
    rtm_log_set_identity("rtd", -1);
    /* A launch agent that execs rtd on this kernel (ip netns exec) passes
     * on the parent-death SIGKILL rtrun gave the agent: drop it, so losing
     * the parent ends this rtd through its closed connection -- ranks
     * killed, files removed -- rather than a SIGKILL that removes nothing. */
    prctl(PR_SET_PDEATHSIG, 0);
    if (rtm_lib_config_register() != RTM_OK)
        say("warning: %s", rtm_last_error());
    rtm_config_warn_unknown();
    /* Blocked before anything starts a thread (PMIx), so only the
     * signalfd sees them. */
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    ctx.signal_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);

    if (read_token(token, sizeof(token)) != 0) {
        say("no job token on stdin (rtd is started by rtrun, not by hand)");
        return RTRUN_EXIT_USAGE;
    }
    fd = rtd_connect_any(parent, 10.0, err, sizeof(err));
    if (fd < 0) {
        say("cannot connect back to rtrun (%s): %s", parent, err);
        return RTRUN_EXIT_FAILURE;
    }
    /* A placeholder node until the description arrives. */
    ctx.node.parent.fd = fd;
    ctx.node.parent.host = -1;
    ctx.node.listen_fd = -1;
    if (join_parent(&ctx, token) != 0) {
        say("job %s: the parent at %s closed the connection or sent no job description",
            nspace, parent);
        rtd_conn_close(&ctx.node.parent);
        goto out;
    }
    status = rtd_jobdesc_unpack(ctx.blob, ctx.blob_len, &ctx.desc);
    if (status == RTM_OK && (ctx.self >= ctx.desc.job->nhosts ||
                             strcmp(ctx.desc.job->nspace, nspace) != 0))
        status = rtm_error_set(RTM_ERR_INVALID_ARG, "the job description is for another job");
    if (status != RTM_OK) {
        say("%s", rtm_last_error());
        rtd_conn_close(&ctx.node.parent);
        goto out;
    }
    ctx.job = ctx.desc.job;
    /* What rtrun or rtd processes SIGKILLed on this host could not remove. */
    rtrun_cleanup_stale(rtm_log_hostname());
    {
        rtd_conn_t parent_conn = ctx.node.parent;

        status = rtd_node_init(&ctx.node, &ctx.desc, ctx.self, ctx.blob, ctx.blob_len, token);
        if (status != RTM_OK) {
            rtd_conn_close(&parent_conn);
            say("%s", rtm_last_error());
            goto out;
        }
        ctx.node.parent = parent_conn;
    }
    snprintf(ctx.job->hostname, sizeof(ctx.job->hostname), "%s",
             ctx.job->hosts[ctx.self].name);
    ctx.out_fd = malloc((size_t)ctx.job->nprocs * sizeof(int));
    ctx.err_fd = malloc((size_t)ctx.job->nprocs * sizeof(int));
    if (ctx.out_fd == NULL || ctx.err_fd == NULL) {
        report_error(&ctx, -1, RTRUN_EXIT_FAILURE, "rtd on host %s: out of memory",
                     ctx.job->hostname);
        goto wait_parent;
    }
    for (int r = 0; r < ctx.job->nprocs; r++)
        ctx.out_fd[r] = ctx.err_fd[r] = -1;

    /* Children first: the tree grows while this host sets up. */
    status = rtd_node_launch_children(&ctx.node);
    if (status != RTM_OK) {
        report_error(&ctx, -1, RTRUN_EXIT_FAILURE, "rtd on host %s: %s", ctx.job->hostname,
                     rtm_last_error());
        goto wait_parent;
    }
    if (ctx.desc.cwd != NULL && chdir(ctx.desc.cwd) != 0)
        say("host %s: cannot change to rtrun's directory %s (%s); the ranks start in %s",
            ctx.job->hostname, ctx.desc.cwd, strerror(errno), getenv("HOME") ? getenv("HOME") : "/");
    status = rtrun_resolve_program(ctx.desc.prog_argv[0], &ctx.prog_path, &code);
    if (status != RTM_OK) {
        report_error(&ctx, -1, code, "host %s: %s", ctx.job->hostname, rtm_last_error());
        goto wait_parent;
    }
    status = rtrun_topo_load(&ctx.topo);
    if (status == RTM_OK) {
        bind_local(&ctx);
        if (pipe2(ctx.event_pipe, O_CLOEXEC) != 0)
            status = rtm_error_set(RTM_ERR_PMIX, "pipe: %s", strerror(errno));
    }
    if (status == RTM_OK) {
        fcntl(ctx.event_pipe[0], F_SETFL, O_NONBLOCK);
        snprintf(ctx.tmpdir, sizeof(ctx.tmpdir), "%s/%s%d.XXXXXX", RTRUN_TMPDIR_PARENT,
                 RTRUN_TMPDIR_PREFIX, (int)getpid());
        if (mkdtemp(ctx.tmpdir) == NULL) {
            status = rtm_error_set(RTM_ERR_PMIX, "cannot create %s: %s", ctx.tmpdir,
                                   strerror(errno));
            ctx.tmpdir[0] = '\0';
        }
    }
    if (status == RTM_OK) {
        status = rtrun_pmix_server_start(ctx.tmpdir, ctx.job->nspace, ctx.event_pipe[1],
                                         rtrun_topo_hwloc(ctx.topo), ctx.job->hostname, ctx.self);
        ctx.pmix_started = status == RTM_OK;
    }
    if (status == RTM_OK) {
        status = rtrun_pmix_register_job(ctx.job, ctx.tmpdir, ctx.desc.prog_argc,
                                         ctx.desc.prog_argv);
        ctx.job_registered = status == RTM_OK;
    }
    if (status != RTM_OK) {
        report_error(&ctx, -1, RTRUN_EXIT_FAILURE, "rtd on host %s: %s", ctx.job->hostname,
                     rtm_last_error());
        goto wait_parent;
    }
    start_ranks(&ctx);
    /* Messages that came right behind the description (a direct-modex
     * request, a KILL) are already in the buffer: poll would not tell. */
    handle_buffered(&ctx, &ctx.node.parent);

wait_parent:
    /* Even after an error: stay until the parent ends the job, so every
     * rank is killed and every file removed the one way. */
    run_loop(&ctx);
    wind_down(&ctx);
    code = 0;
out:
    teardown(&ctx);
    return code;
}
