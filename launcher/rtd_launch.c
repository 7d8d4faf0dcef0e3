/*
 * Starting the children of a node and admitting them (see rtd_launch.h).
 */
#include "config.h"

#include "launcher/rtd_launch.h"
#include "launcher/iof.h"
#include "launcher/job.h"
#include "common/error.h"
#include "common/log.h"
#include "launcher/launcher_config.h"
#include "common/timer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

rtm_status_t rtd_make_token(char *buf, size_t len)
{
    unsigned char raw[RTD_TOKEN_LEN / 2];

    if (buf == NULL || len < RTD_TOKEN_LEN + 1)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtd_make_token: bad argument");
    if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
        return rtm_error_set(RTM_ERR_PMIX, "getrandom failed: %s", strerror(errno));
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(buf + 2 * i, 3, "%02x", raw[i]);
    return RTM_OK;
}

int rtd_is_own_netns(const char *name)
{
    char path[512];
    struct stat mine, theirs;

    if (name == NULL || strchr(name, '/') != NULL || name[0] == '.')
        return 0;
    snprintf(path, sizeof(path), "/run/netns/%s", name);
    if (stat(path, &theirs) != 0 || stat("/proc/self/ns/net", &mine) != 0)
        return 0;
    return mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino;
}

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);

    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Split the agent command on blanks, substitute {host} (or append it),
 * then the rtd command line. */
static char **agent_argv(const char *agent, const char *host, char **tail)
{
    size_t cap = 8, n = 0;
    char **argv = calloc(cap, sizeof(char *));
    char *copy = strdup(agent), *save = NULL, *word;
    int substituted = 0;

    if (argv == NULL || copy == NULL)
        goto err_free;
    for (word = strtok_r(copy, " \t", &save);; word = strtok_r(NULL, " \t", &save)) {
        char *arg;

        if (word == NULL && tail == NULL)
            break;
        if (word == NULL) {
            if (!substituted) {
                arg = strdup(host);
                substituted = 1;
            } else if (*tail != NULL) {
                arg = strdup(*tail++);
            } else {
                break;
            }
        } else {
            char *at = strstr(word, "{host}");

            if (at != NULL) {
                size_t len = strlen(word) - 6 + strlen(host) + 1;

                arg = malloc(len);
                if (arg != NULL)
                    snprintf(arg, len, "%.*s%s%s", (int)(at - word), word, host, at + 6);
                substituted = 1;
            } else {
                arg = strdup(word);
            }
        }
        if (arg == NULL)
            goto err_free;
        if (n + 2 > cap) {
            char **grown = realloc(argv, cap * 2 * sizeof(char *));

            if (grown == NULL) {
                free(arg);
                goto err_free;
            }
            argv = grown;
            cap *= 2;
        }
        argv[n++] = arg;
        argv[n] = NULL;
    }
    free(copy);
    return argv;

err_free:
    for (size_t i = 0; argv != NULL && i < n; i++)
        free(argv[i]);
    free(argv);
    free(copy);
    return NULL;
}

static void free_argv(char **argv)
{
    for (size_t i = 0; argv != NULL && argv[i] != NULL; i++)
        free(argv[i]);
    free(argv);
}

/* Start one child: agent + rtd, token on its stdin, its stderr to us. */
static rtm_status_t launch_child(rtd_node_t *n, rtd_conn_t *c)
{
    const rtd_jobdesc_t *d = n->desc;
    const char *host = d->job->hosts[c->host].name;
    char index[16];
    char *tail[] = {d->rtd_path, "--parent", n->addrs, "--host-index", index, "--job",
                    d->job->nspace, NULL};
    char **argv;
    int in_pipe[2], err_pipe[2];
    pid_t pid;

    snprintf(index, sizeof(index), "%d", c->host);
    argv = agent_argv(d->agent, host, tail);
    if (argv == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for the launch command");
    if (pipe2(in_pipe, O_CLOEXEC) != 0) {
        free_argv(argv);
        return rtm_error_set(RTM_ERR_PMIX, "pipe: %s", strerror(errno));
    }
    if (pipe2(err_pipe, O_CLOEXEC) != 0) {
        close(in_pipe[0]);
        close(in_pipe[1]);
        free_argv(argv);
        return rtm_error_set(RTM_ERR_PMIX, "pipe: %s", strerror(errno));
    }
    pid = fork();
    if (pid == 0) {
        sigset_t none;
        int devnull = open("/dev/null", O_WRONLY);

        /* Own process group: a terminal's ^C reaches rtrun only. */
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        dup2(in_pipe[0], STDIN_FILENO);
        dup2(devnull >= 0 ? devnull : err_pipe[1], STDOUT_FILENO);
        dup2(err_pipe[1], STDERR_FILENO);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execvp(argv[0], argv);
        dprintf(STDERR_FILENO, "cannot execute %s: %s\n", argv[0], strerror(errno));
        _exit(RTRUN_EXIT_NOTFOUND);
    }
    close(in_pipe[0]);
    close(err_pipe[1]);
    free_argv(argv);
    if (pid < 0) {
        close(in_pipe[1]);
        close(err_pipe[0]);
        return rtm_error_set(RTM_ERR_PMIX, "fork: %s", strerror(errno));
    }
    setpgid(pid, pid);
    c->agent_pid = pid;
    c->agent_err = err_pipe[0];
    set_nonblock(c->agent_err);
    /* The token is small: one write into an empty pipe never blocks. */
    {
        char line[RTD_TOKEN_LEN + 2];

        snprintf(line, sizeof(line), "%s\n", n->token);
        (void)!write(in_pipe[1], line, strlen(line));
    }
    c->agent_stdin = in_pipe[1];
    c->deadline = rtm_time_now() + (double)(launcher_config.launch_timeout > 0 ? launcher_config.launch_timeout : 60);
    rtm_debug("started rtd for host %s (pid %d) through \"%s\"", host, (int)pid, d->agent);
    return RTM_OK;
}

rtm_status_t rtd_node_launch_children(rtd_node_t *n)
{
    struct sockaddr_in sa;
    socklen_t slen = sizeof(sa);
    char ips[900];
    char *save = NULL, *ip;
    size_t used = 0;
    int one = 1;

    if (n == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtd_node_launch_children: bad argument");
    if (n->nchildren == 0)
        return RTM_OK;
    n->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (n->listen_fd < 0)
        return rtm_error_set(RTM_ERR_PMIX, "socket: %s", strerror(errno));
    setsockopt(n->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_ANY);
    if (bind(n->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        listen(n->listen_fd, 128) != 0 ||
        getsockname(n->listen_fd, (struct sockaddr *)&sa, &slen) != 0)
        return rtm_error_set(RTM_ERR_PMIX, "cannot listen for rtd connections: %s",
                             strerror(errno));
    rtd_local_addrs(ips, sizeof(ips));
    n->addrs[0] = '\0';
    for (ip = strtok_r(ips, ",", &save); ip != NULL; ip = strtok_r(NULL, ",", &save))
        used += (size_t)snprintf(n->addrs + used, sizeof(n->addrs) - used, "%s%s:%u",
                                 used ? "," : "", ip, (unsigned)ntohs(sa.sin_port));
    for (int i = 0; i < n->nchildren; i++) {
        rtm_status_t status = launch_child(n, &n->children[i]);

        if (status != RTM_OK)
            return status;
    }
    return RTM_OK;
}

/* Read the HELLO of a fresh connection; 1 once it came whole. The HELLO
 * is tiny and follows connect at once; a stranger that sends nothing
 * holds the loop up for 2 s at most. */
static int read_hello(rtd_conn_t *tmp, rtd_hdr_t *h, const char **payload_p)
{
    double until = rtm_time_now() + 2.0;
    int got = 0;

    while (!got && rtm_time_now() < until) {
        struct pollfd pfd = {.fd = tmp->fd, .events = POLLIN};

        if (poll(&pfd, 1, 200) < 0 && errno != EINTR)
            break;
        if (pfd.revents && rtd_conn_fill(tmp) < 0)
            break;
        got = rtd_conn_next(tmp, h, payload_p);
        if (got < 0)
            break;
    }
    return got == 1;
}

/* The child of host `host` still waiting for its connection, if any. */
static rtd_conn_t *waiting_child(rtd_node_t *n, int host)
{
    for (int i = 0; i < n->nchildren; i++) {
        rtd_conn_t *c = &n->children[i];

        if (c->host == host && !c->hello && !c->lost)
            return c;
    }
    return NULL;
}

/* The child takes the socket and input of tmp, which said hello; the
 * description goes first, then what was queued for it meanwhile. */
static void adopt_child(rtd_node_t *n, rtd_conn_t *c, rtd_conn_t *tmp, const rtd_hdr_t *h)
{
    char *queued = c->out;
    size_t queued_len = c->out_len - c->out_off, queued_off = c->out_off;
    int one = 1;

    rtd_conn_consume(tmp, h);
    c->fd = tmp->fd;
    c->in = tmp->in;
    c->in_len = tmp->in_len;
    c->in_cap = tmp->in_cap;
    c->hello = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    c->out = NULL;
    c->out_off = c->out_len = c->out_cap = 0;
    rtd_conn_send(c, RTD_MSG_JOB, -1, 0, 0, 0, n->job_blob, n->job_blob_len);
    if (queued_len > 0 && c->fd >= 0) {
        char *grown = realloc(c->out, c->out_len + queued_len);

        if (grown != NULL) {
            memcpy(grown + c->out_len, queued + queued_off, queued_len);
            c->out = grown;
            c->out_len += queued_len;
            c->out_cap = c->out_len;
            rtd_conn_flush(c);
        } else {
            rtm_error("out of memory passing queued messages to host %d", c->host);
        }
    }
    free(queued);
    rtm_debug("rtd of host %s connected", n->desc->job->hosts[c->host].name);
}

/* New connections: each must say HELLO with the token of a child still
 * to connect, else it is refused. */
void rtd_node_accept(rtd_node_t *n)
{
    for (;;) {
        int fd = accept4(n->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        rtd_conn_t tmp, *c = NULL;
        rtd_hdr_t h;
        const char *payload;

        if (fd < 0)
            return;
        rtd_conn_init(&tmp);
        tmp.fd = fd;
        if (read_hello(&tmp, &h, &payload) && h.type == RTD_MSG_HELLO &&
            h.len == RTD_TOKEN_LEN && memcmp(payload, n->token, RTD_TOKEN_LEN) == 0)
            c = waiting_child(n, h.a);
        if (c != NULL) {
            adopt_child(n, c, &tmp, &h);
            continue;
        }
        rtm_warn("refused a connection that did not present this job's token");
        rtd_conn_close(&tmp);
    }
}

rtd_conn_t *rtd_node_agent_exited(rtd_node_t *n, pid_t pid, int wstatus)
{
    for (int i = 0; i < n->nchildren; i++) {
        rtd_conn_t *c = &n->children[i];

        if (c->agent_pid != pid || pid <= 0)
            continue;
        c->agent_pid = 0;
        (void)wstatus;
        rtd_node_read_agent_err(n, c);
        return c;
    }
    return NULL;
}

void rtd_node_read_agent_err(rtd_node_t *n, rtd_conn_t *c)
{
    char buf[4096];

    (void)n;
    while (c->agent_err >= 0) {
        ssize_t got = read(c->agent_err, buf, sizeof(buf));

        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && errno == EAGAIN)
            return;
        if (got <= 0) {
            close(c->agent_err);
            c->agent_err = -1;
            return;
        }
        if (c->hello) {
            /* rtd is up: its diagnostics (and its children's) are ours. */
            rtrun_iof_write_all(STDERR_FILENO, buf, (size_t)got);
            continue;
        }
        /* Before it connects: keep the last words for the error. */
        if ((size_t)got >= sizeof(c->errtext)) {
            memcpy(c->errtext, buf + got - (sizeof(c->errtext) - 1), sizeof(c->errtext) - 1);
            c->errlen = sizeof(c->errtext) - 1;
        } else {
            if (c->errlen + (size_t)got >= sizeof(c->errtext)) {
                size_t drop = c->errlen + (size_t)got - (sizeof(c->errtext) - 1);

                memmove(c->errtext, c->errtext + drop, c->errlen - drop);
                c->errlen -= drop;
            }
            memcpy(c->errtext + c->errlen, buf, (size_t)got);
            c->errlen += (size_t)got;
        }
        c->errtext[c->errlen] = '\0';
    }
}

void rtd_node_child_error(rtd_node_t *n, rtd_conn_t *c, const char *what, char *buf, size_t len)
{
    const char *host = n->desc->job->hosts[c->host].name;
    char text[sizeof(c->errtext)];
    size_t tl;

    snprintf(text, sizeof(text), "%s", c->errtext);
    tl = strlen(text);
    while (tl > 0 && (text[tl - 1] == '\n' || text[tl - 1] == ' '))
        text[--tl] = '\0';
    for (size_t i = 0; i < tl; i++)
        if (text[i] == '\n')
            text[i] = ' ';
    if (!c->hello)
        snprintf(buf, len, "cannot start rtd on host %s with launch agent \"%s\": %s%s%s%s",
                 host, n->desc->agent, what, tl ? " (agent said: " : "", text, tl ? ")" : "");
    else
        snprintf(buf, len, "rtd on host %s lost: %s", host, what);
}

int rtd_node_child_lost(rtd_node_t *n, rtd_conn_t *c, const char *what, char *buf, size_t len)
{
    if (c->lost)
        return 0;
    c->lost = 1;
    rtd_node_child_error(n, c, what, buf, len);
    rtd_conn_close(c);
    return 1;
}

void rtd_describe_agent_exit(pid_t pid, int wstatus, char *buf, size_t len)
{
    if (WIFSIGNALED(wstatus))
        snprintf(buf, len, "its launch agent (pid %d) was killed by signal %d", (int)pid,
                 WTERMSIG(wstatus));
    else
        snprintf(buf, len, "its launch agent (pid %d) exited with code %d", (int)pid,
                 WEXITSTATUS(wstatus));
}

int rtd_node_child_late(rtd_node_t *n, rtd_conn_t *c, double now)
{
    if (c->hello || c->lost || now < c->deadline)
        return 0;
    if (c->agent_pid > 0)
        killpg(c->agent_pid, SIGKILL);
    rtd_node_read_agent_err(n, c);
    return 1;
}

double rtd_node_next_deadline(const rtd_node_t *n)
{
    double wake = 0;

    for (int i = 0; i < n->nchildren; i++) {
        const rtd_conn_t *c = &n->children[i];

        if (!c->hello && !c->lost && (wake == 0 || c->deadline < wake))
            wake = c->deadline;
    }
    if (n->fence_held != NULL && (wake == 0 || n->fence_held_until < wake))
        wake = n->fence_held_until;
    return wake;
}

int rtd_node_agents_left(const rtd_node_t *n)
{
    int left = 0;

    for (int i = 0; i < n->nchildren; i++)
        left += n->children[i].agent_pid > 0;
    return left;
}

void rtd_node_kill_agents(rtd_node_t *n)
{
    for (int i = 0; i < n->nchildren; i++)
        if (n->children[i].agent_pid > 0)
            killpg(n->children[i].agent_pid, SIGKILL);
}
