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
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* Start one child: agent + rtd, the job secret on its stdin, its stderr to us. */
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
    /* The secret is small: one write into an empty pipe never blocks. */
    {
        char line[RTM_SECRET_HEX_LEN + 2];

        if (rtm_secret_to_hex(n->secret, line, sizeof(line)) == RTM_OK) {
            line[RTM_SECRET_HEX_LEN] = '\n';
            (void)!write(in_pipe[1], line, RTM_SECRET_HEX_LEN + 1);
        }
        rtm_secret_wipe(line, sizeof(line));
    }
    c->agent_stdin = in_pipe[1];
    c->deadline = rtm_time_now() + (double)(launcher_config.launch_timeout > 0 ? launcher_config.launch_timeout : 60);
    rtm_debug("started rtd for host %s (pid %d) through \"%s\"", host, (int)pid, d->agent);
    return RTM_OK;
}

/* One listening socket on ip (port chosen by the kernel), polled through
 * the node's epoll fd; its "ip:port" appended to n->addrs. */
static rtm_status_t listen_on(rtd_node_t *n, const char *ip, size_t *used)
{
    struct sockaddr_in sa;
    socklen_t slen = sizeof(sa);
    struct epoll_event ev;
    int one = 1, fd;

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1)
        return RTM_OK;
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return rtm_error_set(RTM_ERR_PMIX, "socket: %s", strerror(errno));
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    ev.events = EPOLLIN;
    ev.data.u64 = (uint64_t)RTD_PENDING_MAX + (uint64_t)n->nlisten;
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 128) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &slen) != 0 ||
        epoll_ctl(n->listen_fd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        rtm_status_t status = rtm_error_set(RTM_ERR_PMIX, "cannot listen for rtd connections "
                                            "on %s: %s", ip, strerror(errno));

        close(fd);
        return status;
    }
    n->listen_socks[n->nlisten++] = fd;
    *used += (size_t)snprintf(n->addrs + *used, sizeof(n->addrs) - *used, "%s%s:%u",
                              *used ? "," : "", ip, (unsigned)ntohs(sa.sin_port));
    return RTM_OK;
}

/* The local address the kernel routes to host `name` from (connecting a
 * UDP socket sends nothing): the address that host's rtd reaches us by.
 * 0 and ip filled, or -1: the name does not resolve to IPv4 or no route. */
static int route_source(const char *name, char *ip, size_t len)
{
    struct addrinfo hints, *res = NULL;
    struct sockaddr_in sa;
    socklen_t slen = sizeof(sa);
    int fd, rc = -1;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_DGRAM;
    if (getaddrinfo(name, "9", &hints, &res) != 0 || res == NULL)
        return -1;
    fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0 &&
        getsockname(fd, (struct sockaddr *)&sa, &slen) == 0 && sa.sin_addr.s_addr != 0 &&
        inet_ntop(AF_INET, &sa.sin_addr, ip, (socklen_t)len) != NULL)
        rc = 0;
    if (fd >= 0)
        close(fd);
    freeaddrinfo(res);
    return rc;
}

/* The addresses our children reach us by, comma-separated in ips: for each
 * child host, the local address the kernel routes to it from. When a
 * child's name does not resolve (a name only its launch agent knows, such
 * as a network namespace), every up non-loopback IPv4 address of this
 * host (rtd_local_addrs), as that child may come from any of them. */
static void listen_addrs(rtd_node_t *n, char *ips, size_t len)
{
    size_t used = 0;

    ips[0] = '\0';
    for (int i = 0; i < n->nchildren; i++) {
        const char *host = n->desc->job->hosts[n->children[i].host].name;
        char ip[INET_ADDRSTRLEN], item[INET_ADDRSTRLEN + 2];

        if (route_source(host, ip, sizeof(ip)) != 0) {
            rtm_debug("host %s does not resolve to a routed IPv4 address: listening for its rtd "
                      "on every address of this host", host);
            rtd_local_addrs(ips, len);
            return;
        }
        snprintf(item, sizeof(item), ",%s,", ip);
        if (used > 0) {
            char have[1024];

            snprintf(have, sizeof(have), ",%s,", ips);
            if (strstr(have, item) != NULL)
                continue;
        }
        if (used + strlen(ip) + 2 >= len)
            break;
        used += (size_t)snprintf(ips + used, len - used, "%s%s", used ? "," : "", ip);
    }
}

rtm_status_t rtd_node_launch_children(rtd_node_t *n)
{
    char ips[900];
    char *save = NULL, *ip;
    size_t used = 0;

    if (n == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtd_node_launch_children: bad argument");
    if (n->nchildren == 0)
        return RTM_OK;
    n->listen_fd = epoll_create1(EPOLL_CLOEXEC);
    if (n->listen_fd < 0)
        return rtm_error_set(RTM_ERR_PMIX, "epoll_create1: %s", strerror(errno));
    /* The addresses our children reach us by, each its own socket: never
     * 0.0.0.0, nor an address of this host no child of the job uses. */
    listen_addrs(n, ips, sizeof(ips));
    n->addrs[0] = '\0';
    for (ip = strtok_r(ips, ",", &save); ip != NULL && n->nlisten < RTD_LISTEN_MAX;
         ip = strtok_r(NULL, ",", &save)) {
        rtm_status_t status = listen_on(n, ip, &used);

        if (status != RTM_OK)
            return status;
    }
    if (n->nlisten == 0)
        return rtm_error_set(RTM_ERR_PMIX, "no address to listen on for rtd connections");
    for (int i = 0; i < n->nchildren; i++) {
        rtm_status_t status = launch_child(n, &n->children[i]);

        if (status != RTM_OK)
            return status;
    }
    return RTM_OK;
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

/* The child takes the socket fd, which proved the secret; the
 * description goes first, then what was queued for it meanwhile. */
static void adopt_child(rtd_node_t *n, rtd_conn_t *c, int fd)
{
    char *queued = c->out;
    size_t queued_len = c->out_len - c->out_off, queued_off = c->out_off;
    int one = 1;

    c->fd = fd;
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

/* Close a handshake under way; why != NULL: a refusal, said once with the
 * peer's address. */
static void pending_drop(rtd_node_t *n, rtd_pending_t *p, const char *why)
{
    char ip[INET_ADDRSTRLEN] = "?";

    inet_ntop(AF_INET, &p->from.sin_addr, ip, sizeof(ip));
    if (why != NULL)
        rtm_warn("refused a daemon-tree connection from %s:%u: %s", ip,
                 (unsigned)ntohs(p->from.sin_port), why);
    epoll_ctl(n->listen_fd, EPOLL_CTL_DEL, p->fd, NULL);
    close(p->fd);
    p->fd = -1;
    p->in_len = 0;
    n->npending--;
}

/* The slot to give a new connection when all are taken: the oldest of
 * the source address holding the most, so a flood from one address
 * (or a few) never pushes out a daemon connecting from its own. */
static rtd_pending_t *pending_victim(rtd_node_t *n)
{
    rtd_pending_t *victim = NULL;
    int most = 0;

    for (int i = 0; i < RTD_PENDING_MAX; i++) {
        rtd_pending_t *p = &n->pending[i];
        int same = 0;

        for (int j = 0; j < RTD_PENDING_MAX; j++)
            same += n->pending[j].from.sin_addr.s_addr == p->from.sin_addr.s_addr;
        if (same > most || (same == most && victim != NULL && p->since < victim->since)) {
            most = same;
            victim = p;
        }
    }
    return victim;
}

static void accept_new(rtd_node_t *n, int lfd)
{
    for (int round = 0; round < RTD_PENDING_MAX; round++) {
        struct sockaddr_in from;
        socklen_t flen = sizeof(from);
        struct epoll_event ev;
        rtd_pending_t *p = NULL;
        int fd;

        memset(&from, 0, sizeof(from));
        fd = accept4(lfd, (struct sockaddr *)&from, &flen, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            return;
        if (n->npending == RTD_PENDING_MAX)
            pending_drop(n, pending_victim(n), "too many connections in their handshake "
                         "from its address");
        for (int i = 0; p == NULL && i < RTD_PENDING_MAX; i++)
            if (n->pending[i].fd < 0)
                p = &n->pending[i];
        ev.events = EPOLLIN;
        ev.data.u64 = (uint64_t)(p - n->pending);
        if (epoll_ctl(n->listen_fd, EPOLL_CTL_ADD, fd, &ev) != 0) {
            close(fd);
            continue;
        }
        p->fd = fd;
        p->stage = 0;
        p->in_len = 0;
        p->since = rtm_time_now();
        p->from = from;
        n->npending++;
    }
}

/* HELLO came: answer with our CHALLENGE. */
static void pending_hello(rtd_node_t *n, rtd_pending_t *p)
{
    rtd_hs_expect_t want = {n->secret, RTD_MSG_HELLO, -1, n->desc->job->nhosts, NULL, NULL};
    unsigned char msg[RTD_HDR_SIZE + RTD_CHALLENGE_LEN];
    rtd_hdr_t h;
    rtd_hs_verdict_t verdict = rtd_hs_check(&want, p->in, p->in_len, &h, p->nonce_c);
    ssize_t sent;

    if (verdict != RTD_HS_OK) {
        pending_drop(n, p, rtd_hs_verdict_str(verdict));
        return;
    }
    if (waiting_child(n, h.a) == NULL) {
        pending_drop(n, p, "names a host that has no rtd still to connect");
        return;
    }
    if (rtm_auth_nonce(p->nonce_p) != 0) {
        pending_drop(n, p, "no random source for a challenge");
        return;
    }
    h = (rtd_hdr_t){.type = RTD_MSG_CHALLENGE, .len = RTD_CHALLENGE_LEN, .dst = -1, .a = h.a};
    rtd_hdr_pack(&h, msg);
    memcpy(msg + RTD_HDR_SIZE, p->nonce_p, RTM_AUTH_NONCE_LEN);
    rtd_hs_mac(n->secret, RTD_HS_ROLE_PARENT, h.a, p->nonce_c, p->nonce_p,
               msg + RTD_HDR_SIZE + RTM_AUTH_NONCE_LEN);
    /* the first bytes on a fresh socket: they fit its buffer */
    sent = send(p->fd, msg, sizeof(msg), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent != (ssize_t)sizeof(msg)) {
        pending_drop(n, p, NULL);
        return;
    }
    p->host = h.a;
    p->stage = 1;
    p->in_len = 0;
}

/* PROOF came: the child of that host takes the connection. */
static void pending_proof(rtd_node_t *n, rtd_pending_t *p)
{
    rtd_hs_expect_t want = {n->secret, RTD_MSG_PROOF, p->host, n->desc->job->nhosts,
                            p->nonce_c, p->nonce_p};
    rtd_hs_verdict_t verdict = rtd_hs_check(&want, p->in, p->in_len, NULL, NULL);
    rtd_conn_t *c;
    int fd = p->fd;

    if (verdict != RTD_HS_OK) {
        pending_drop(n, p, rtd_hs_verdict_str(verdict));
        return;
    }
    c = waiting_child(n, p->host);
    if (c == NULL) {
        pending_drop(n, p, "its host's rtd is connected already");
        return;
    }
    epoll_ctl(n->listen_fd, EPOLL_CTL_DEL, fd, NULL);
    p->fd = -1;
    p->in_len = 0;
    n->npending--;
    adopt_child(n, c, fd);
}

/* Bytes of a handshake message: the header first, then exactly the
 * payload its step allows (never more: what follows PROOF is the
 * child's, and a stranger's length is never trusted). */
static void pending_read(rtd_node_t *n, rtd_pending_t *p)
{
    size_t want = RTD_HDR_SIZE + (p->stage == 0 ? RTD_HELLO_LEN : RTD_PROOF_LEN);
    ssize_t got;

    if (p->in_len < RTD_HDR_SIZE)
        want = RTD_HDR_SIZE;
    got = recv(p->fd, p->in + p->in_len, want - p->in_len, MSG_DONTWAIT);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (got <= 0) {
        pending_drop(n, p, p->in_len > 0 || p->stage > 0
                               ? "closed in the middle of its handshake" : NULL);
        return;
    }
    p->in_len += (size_t)got;
    if (p->in_len == RTD_HDR_SIZE) {
        /* check the header alone: a bad type or length ends it here */
        rtd_hs_expect_t hdr_only = {n->secret, p->stage == 0 ? RTD_MSG_HELLO : RTD_MSG_PROOF,
                                    p->stage == 0 ? -1 : p->host, n->desc->job->nhosts,
                                    NULL, NULL};
        rtd_hs_verdict_t verdict = rtd_hs_check(&hdr_only, p->in, p->in_len, NULL, NULL);

        if (verdict != RTD_HS_SHORT) {
            pending_drop(n, p, rtd_hs_verdict_str(verdict));
            return;
        }
    }
    if (p->in_len < RTD_HDR_SIZE + (p->stage == 0 ? RTD_HELLO_LEN : RTD_PROOF_LEN))
        return;
    if (p->stage == 0)
        pending_hello(n, p);
    else
        pending_proof(n, p);
}

/* New connections and the handshakes under way. Each handshake advances
 * as its bytes come, none waits for another: an idle stranger holds a
 * slot until its deadline, never the loop. */
void rtd_node_accept(rtd_node_t *n)
{
    struct epoll_event evs[32];
    int got;

    if (n == NULL || n->listen_fd < 0)
        return;
    got = epoll_wait(n->listen_fd, evs, 32, 0);
    for (int i = 0; i < got; i++) {
        uint64_t idx = evs[i].data.u64;

        if (idx >= RTD_PENDING_MAX) {
            if (idx - RTD_PENDING_MAX < (uint64_t)n->nlisten)
                accept_new(n, n->listen_socks[idx - RTD_PENDING_MAX]);
        } else if (n->pending[idx].fd >= 0) {
            pending_read(n, &n->pending[idx]);
        }
    }
    rtd_node_expire_pending(n, rtm_time_now());
}

void rtd_node_expire_pending(rtd_node_t *n, double now)
{
    for (int i = 0; n != NULL && n->npending > 0 && i < RTD_PENDING_MAX; i++) {
        rtd_pending_t *p = &n->pending[i];

        if (p->fd >= 0 && now - p->since >= RTD_HS_DEADLINE_SEC)
            pending_drop(n, p, "no complete handshake within the deadline");
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
    for (int i = 0; n->npending > 0 && i < RTD_PENDING_MAX; i++) {
        double until = n->pending[i].since + RTD_HS_DEADLINE_SEC;

        if (n->pending[i].fd >= 0 && (wake == 0 || until < wake))
            wake = until;
    }
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
