/*
 * The daemon tree of a multi-host job (see daemon.h): wire format, job
 * description, tree shape, launching children, routing.
 */
#include "config.h"

#include "launcher/daemon.h"
#include "launcher/iof.h"
#include "common/error.h"
#include "common/log.h"
#include "launcher/launcher_config.h"
#include "common/timer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pmix_common.h>
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

/* ---- packing ---------------------------------------------------------- */

typedef struct pack_buf {
    char  *data;
    size_t len, cap;
    int    failed;
} pack_buf_t;

static void pack_bytes(pack_buf_t *b, const void *p, size_t len)
{
    if (b->failed)
        return;
    if (b->cap - b->len < len) {
        size_t cap = b->cap ? b->cap : 1024;
        char *grown;

        while (cap - b->len < len)
            cap *= 2;
        grown = realloc(b->data, cap);
        if (grown == NULL) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, len);
    b->len += len;
}

static void pack_int(pack_buf_t *b, int v)
{
    uint32_t n = htonl((uint32_t)v);

    pack_bytes(b, &n, 4);
}

static void pack_str(pack_buf_t *b, const char *s)
{
    size_t len = s ? strlen(s) : 0;

    pack_int(b, s ? (int)len : -1);
    if (s)
        pack_bytes(b, s, len);
}

typedef struct unpack_buf {
    const char *data;
    size_t      len, off;
    int         failed;
} unpack_buf_t;

static int unpack_int(unpack_buf_t *b)
{
    uint32_t n;

    if (b->failed || b->len - b->off < 4) {
        b->failed = 1;
        return 0;
    }
    memcpy(&n, b->data + b->off, 4);
    b->off += 4;
    return (int)ntohl(n);
}

/* malloc'd string, NULL for a NULL one or on failure (then b->failed) */
static char *unpack_str(unpack_buf_t *b)
{
    int len = unpack_int(b);
    char *s;

    if (b->failed || len < 0)
        return NULL;
    if ((size_t)len > b->len - b->off) {
        b->failed = 1;
        return NULL;
    }
    s = malloc((size_t)len + 1);
    if (s == NULL) {
        b->failed = 1;
        return NULL;
    }
    memcpy(s, b->data + b->off, (size_t)len);
    s[len] = '\0';
    b->off += (size_t)len;
    return s;
}

#define JOBDESC_MAGIC 0x72746431 /* "rtd1" */

rtm_status_t rtd_jobdesc_pack(const rtd_jobdesc_t *d, char **buf_p, size_t *len_p)
{
    pack_buf_t b = {0};
    const rtrun_job_t *job;

    if (d == NULL || d->job == NULL || d->job->hosts == NULL || buf_p == NULL || len_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtd_jobdesc_pack: bad argument");
    job = d->job;
    pack_int(&b, JOBDESC_MAGIC);
    pack_str(&b, job->nspace);
    pack_int(&b, job->nprocs);
    pack_int(&b, job->nhosts);
    pack_int(&b, d->root_host);
    pack_int(&b, d->fanout);
    pack_int(&b, d->bind);
    pack_int(&b, d->map_by);
    pack_int(&b, d->report_bindings);
    pack_int(&b, job->oversubscribed);
    pack_str(&b, d->agent);
    pack_str(&b, d->rtd_path);
    pack_str(&b, d->cwd);
    for (int h = 0; h < job->nhosts; h++) {
        pack_str(&b, job->hosts[h].name);
        pack_int(&b, job->hosts[h].slots);
        pack_int(&b, job->hosts[h].nranks);
    }
    for (int r = 0; r < job->nprocs; r++) {
        pack_int(&b, job->ranks[r].node_id);
        pack_int(&b, job->ranks[r].local_rank);
        pack_int(&b, job->ranks[r].node_rank);
    }
    pack_int(&b, d->prog_argc);
    for (int i = 0; i < d->prog_argc; i++)
        pack_str(&b, d->prog_argv[i]);
    pack_int(&b, (int)d->nenv);
    for (size_t i = 0; i < d->nenv; i++)
        pack_str(&b, d->env[i]);
    if (b.failed) {
        free(b.data);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory packing the job description");
    }
    *buf_p = b.data;
    *len_p = b.len;
    return RTM_OK;
}

rtrun_job_t *rtd_job_alloc(int nprocs, int nhosts)
{
    rtrun_job_t *job = calloc(1, sizeof(*job));

    if (job == NULL)
        return NULL;
    job->ranks = calloc((size_t)(nprocs > 0 ? nprocs : 1), sizeof(*job->ranks));
    job->hosts = calloc((size_t)(nhosts > 0 ? nhosts : 1), sizeof(*job->hosts));
    if (job->ranks == NULL || job->hosts == NULL) {
        rtd_job_free(job);
        return NULL;
    }
    job->nprocs = nprocs;
    job->nhosts = nhosts;
    for (int r = 0; r < nprocs; r++) {
        job->ranks[r].rank = r;
        job->ranks[r].pid = -1;
        job->ranks[r].core = -1;
        job->ranks[r].state = RTRUN_RANK_NOT_STARTED;
    }
    return job;
}

void rtd_job_free(rtrun_job_t *job)
{
    if (job == NULL)
        return;
    free(job->ranks);
    free(job->hosts);
    free(job);
}

rtm_status_t rtd_jobdesc_unpack(const char *buf, size_t len, rtd_jobdesc_t *d_p)
{
    unpack_buf_t b = {.data = buf, .len = len};
    rtd_jobdesc_t d;
    char *nspace;
    int nprocs, nhosts;

    if (buf == NULL || d_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtd_jobdesc_unpack: bad argument");
    memset(&d, 0, sizeof(d));
    if (unpack_int(&b) != JOBDESC_MAGIC)
        return rtm_error_set(RTM_ERR_PMIX, "the job description is not from this rtrun version");
    nspace = unpack_str(&b);
    nprocs = unpack_int(&b);
    nhosts = unpack_int(&b);
    if (b.failed || nspace == NULL || nprocs < 1 || nprocs > RTRUN_MAX_PROCS || nhosts < 1 ||
        nhosts > RTRUN_MAX_PROCS) {
        free(nspace);
        return rtm_error_set(RTM_ERR_PMIX, "malformed job description");
    }
    d.job = rtd_job_alloc(nprocs, nhosts);
    if (d.job == NULL) {
        free(nspace);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for the job description");
    }
    snprintf(d.job->nspace, sizeof(d.job->nspace), "%s", nspace);
    free(nspace);
    d.root_host = unpack_int(&b);
    d.fanout = unpack_int(&b);
    d.bind = unpack_int(&b);
    d.map_by = unpack_int(&b);
    d.report_bindings = unpack_int(&b);
    d.job->oversubscribed = unpack_int(&b);
    d.agent = unpack_str(&b);
    d.rtd_path = unpack_str(&b);
    d.cwd = unpack_str(&b);
    for (int h = 0; h < nhosts && !b.failed; h++) {
        char *name = unpack_str(&b);

        snprintf(d.job->hosts[h].name, sizeof(d.job->hosts[h].name), "%s", name ? name : "?");
        free(name);
        d.job->hosts[h].slots = unpack_int(&b);
        d.job->hosts[h].nranks = unpack_int(&b);
    }
    for (int r = 0; r < nprocs && !b.failed; r++) {
        d.job->ranks[r].node_id = unpack_int(&b);
        d.job->ranks[r].local_rank = unpack_int(&b);
        d.job->ranks[r].node_rank = unpack_int(&b);
        if (d.job->ranks[r].node_id < 0 || d.job->ranks[r].node_id >= nhosts)
            b.failed = 1;
    }
    d.prog_argc = unpack_int(&b);
    if (!b.failed && d.prog_argc >= 1 && (size_t)d.prog_argc < len) {
        d.prog_argv = calloc((size_t)d.prog_argc + 1, sizeof(char *));
        if (d.prog_argv == NULL)
            b.failed = 1;
        for (int i = 0; i < d.prog_argc && !b.failed; i++)
            d.prog_argv[i] = unpack_str(&b);
    } else {
        b.failed = 1;
    }
    d.nenv = (size_t)unpack_int(&b);
    if (!b.failed && d.nenv < len) {
        d.env = calloc(d.nenv + 1, sizeof(char *));
        if (d.env == NULL)
            b.failed = 1;
        for (size_t i = 0; i < d.nenv && !b.failed; i++)
            d.env[i] = unpack_str(&b);
    } else {
        d.nenv = 0;
        b.failed = 1;
    }
    if (b.failed || d.fanout < 1 || d.prog_argv == NULL || d.prog_argv[0] == NULL) {
        rtd_jobdesc_free(&d);
        return rtm_error_set(RTM_ERR_PMIX, "malformed job description");
    }
    *d_p = d;
    return RTM_OK;
}

void rtd_jobdesc_free(rtd_jobdesc_t *d)
{
    if (d == NULL)
        return;
    rtd_job_free(d->job);
    free(d->agent);
    free(d->rtd_path);
    free(d->cwd);
    for (int i = 0; d->prog_argv != NULL && i < d->prog_argc; i++)
        free(d->prog_argv[i]);
    free(d->prog_argv);
    for (size_t i = 0; d->env != NULL && i < d->nenv; i++)
        free(d->env[i]);
    free(d->env);
    memset(d, 0, sizeof(*d));
}

/* ---- tree -------------------------------------------------------------- */

rtm_status_t rtd_tree_build(const rtrun_job_t *job, int root_host, int fanout, rtd_tree_t *t)
{
    int n = 1;

    if (job == NULL || job->hosts == NULL || t == NULL || fanout < 1)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtd_tree_build: bad argument");
    memset(t, 0, sizeof(*t));
    t->fanout = fanout;
    t->host_of_pos = calloc((size_t)job->nhosts + 1, sizeof(int));
    t->pos_of_host = calloc((size_t)job->nhosts, sizeof(int));
    if (t->host_of_pos == NULL || t->pos_of_host == NULL) {
        rtd_tree_free(t);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for the launch tree");
    }
    t->host_of_pos[0] = root_host;
    for (int h = 0; h < job->nhosts; h++) {
        t->pos_of_host[h] = -1;
        if (h == root_host) {
            t->pos_of_host[h] = 0;
            continue;
        }
        if (job->hosts[h].nranks == 0)
            continue;
        t->pos_of_host[h] = n;
        t->host_of_pos[n++] = h;
    }
    t->ndaemons = n;
    return RTM_OK;
}

void rtd_tree_free(rtd_tree_t *t)
{
    free(t->host_of_pos);
    free(t->pos_of_host);
    t->host_of_pos = t->pos_of_host = NULL;
}

int rtd_tree_in_subtree(const rtd_tree_t *t, int p, int q)
{
    while (q > p)
        q = (q - 1) / t->fanout;
    return q == p;
}

/* ---- connections ------------------------------------------------------- */

void rtd_conn_send(rtd_conn_t *c, uint32_t type, int dst, int a, int b, int cc,
                   const void *payload, size_t len)
{
    uint32_t hdr[6];
    size_t need;

    /* A child not connected yet gets its messages queued (a direct-modex
     * request may come before it said hello); a closed one gets nothing. */
    if (c->lost || (c->fd < 0 && c->agent_pid <= 0 && !c->hello && c->deadline == 0))
        return;
    hdr[0] = htonl(type);
    hdr[1] = htonl((uint32_t)len);
    hdr[2] = htonl((uint32_t)dst);
    hdr[3] = htonl((uint32_t)a);
    hdr[4] = htonl((uint32_t)b);
    hdr[5] = htonl((uint32_t)cc);
    if (c->out_off > 0 && c->out_off == c->out_len)
        c->out_off = c->out_len = 0;
    need = c->out_len + RTD_HDR_SIZE + len;
    if (need > c->out_cap) {
        size_t cap = c->out_cap ? c->out_cap : 65536;
        char *grown;

        if (c->out_off > 0) {
            memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
            c->out_len -= c->out_off;
            c->out_off = 0;
            need = c->out_len + RTD_HDR_SIZE + len;
        }
        while (cap < need)
            cap *= 2;
        if (cap > c->out_cap) {
            grown = realloc(c->out, cap);
            if (grown == NULL) {
                rtm_error("out of memory queueing %zu bytes for host %d; closing the connection",
                          len, c->host);
                rtd_conn_close(c);
                return;
            }
            c->out = grown;
            c->out_cap = cap;
        }
    }
    memcpy(c->out + c->out_len, hdr, RTD_HDR_SIZE);
    if (len > 0)
        memcpy(c->out + c->out_len + RTD_HDR_SIZE, payload, len);
    c->out_len += RTD_HDR_SIZE + len;
    if (c->fd >= 0)
        rtd_conn_flush(c);
}

int rtd_conn_flush(rtd_conn_t *c)
{
    if (c->fd < 0)
        return -1;
    while (c->out_off < c->out_len) {
        ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n < 0)
            return -1;
        c->out_off += (size_t)n;
    }
    c->out_off = c->out_len = 0;
    return 0;
}

int rtd_conn_fill(rtd_conn_t *c)
{
    if (c->fd < 0)
        return -1;
    for (;;) {
        ssize_t n;

        if (c->in_cap - c->in_len < 65536) {
            size_t cap = c->in_cap ? c->in_cap * 2 : 131072;
            char *grown = realloc(c->in, cap);

            if (grown == NULL)
                return 0; /* read the rest once messages are consumed */
            c->in = grown;
            c->in_cap = cap;
        }
        n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
        if (n > 0) {
            c->in_len += (size_t)n;
            /* one read per poll round keeps one busy peer from starving others */
            return 0;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        return -1;
    }
}

int rtd_conn_next(rtd_conn_t *c, rtd_hdr_t *h, const char **payload_p)
{
    uint32_t hdr[6];

    if (c->in_len < RTD_HDR_SIZE)
        return 0;
    memcpy(hdr, c->in, RTD_HDR_SIZE);
    h->type = ntohl(hdr[0]);
    h->len = ntohl(hdr[1]);
    h->dst = (int32_t)ntohl(hdr[2]);
    h->a = (int32_t)ntohl(hdr[3]);
    h->b = (int32_t)ntohl(hdr[4]);
    h->c = (int32_t)ntohl(hdr[5]);
    if (h->len > RTD_MAX_PAYLOAD)
        return -1;
    if (c->in_len < RTD_HDR_SIZE + h->len)
        return 0;
    *payload_p = c->in + RTD_HDR_SIZE;
    return 1;
}

void rtd_conn_consume(rtd_conn_t *c, const rtd_hdr_t *h)
{
    size_t used = RTD_HDR_SIZE + h->len;

    memmove(c->in, c->in + used, c->in_len - used);
    c->in_len -= used;
}

void rtd_conn_close(rtd_conn_t *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->lost = 1; /* nothing is queued for it any more */
    free(c->in);
    free(c->out);
    c->in = c->out = NULL;
    c->in_len = c->in_cap = c->out_off = c->out_len = c->out_cap = 0;
}

/* ---- addresses ---------------------------------------------------------- */

void rtd_local_addrs(char *buf, size_t len)
{
    struct ifaddrs *ifa_list, *ifa;
    size_t used = 0;

    buf[0] = '\0';
    if (getifaddrs(&ifa_list) == 0) {
        for (ifa = ifa_list; ifa != NULL; ifa = ifa->ifa_next) {
            char ip[INET_ADDRSTRLEN];

            if (ifa->ifa_addr == NULL || ifa->ifa_addr->sa_family != AF_INET ||
                !(ifa->ifa_flags & IFF_UP) || (ifa->ifa_flags & IFF_LOOPBACK))
                continue;
            inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)ifa->ifa_addr)->sin_addr, ip,
                      sizeof(ip));
            if (used + strlen(ip) + 2 >= len)
                break;
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "", ip);
        }
        freeifaddrs(ifa_list);
    }
    if (used == 0)
        snprintf(buf, len, "127.0.0.1");
}

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

int rtd_connect_any(const char *addrs, double timeout_sec, char *err, size_t errlen)
{
    char list[1024];
    char *save = NULL, *item;

    snprintf(list, sizeof(list), "%s", addrs);
    snprintf(err, errlen, "no address to connect to");
    for (item = strtok_r(list, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
        char *colon = strrchr(item, ':');
        struct sockaddr_in sa;
        struct pollfd pfd;
        int fd, one = 1, soerr = 0;
        socklen_t slen = sizeof(soerr);

        if (colon == NULL)
            continue;
        *colon = '\0';
        memset(&sa, 0, sizeof(sa));
        sa.sin_family = AF_INET;
        sa.sin_port = htons((uint16_t)atoi(colon + 1));
        if (inet_pton(AF_INET, item, &sa.sin_addr) != 1)
            continue;
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
            continue;
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 && errno != EINPROGRESS) {
            snprintf(err, errlen, "connect to %s:%s: %s", item, colon + 1, strerror(errno));
            close(fd);
            continue;
        }
        pfd.fd = fd;
        pfd.events = POLLOUT;
        if (poll(&pfd, 1, (int)(timeout_sec * 1000)) != 1 ||
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &slen) != 0 || soerr != 0) {
            snprintf(err, errlen, "connect to %s:%s: %s", item, colon + 1,
                     soerr ? strerror(soerr) : "timed out");
            close(fd);
            continue;
        }
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        return fd;
    }
    return -1;
}

/* ---- the node ----------------------------------------------------------- */

static void conn_init(rtd_conn_t *c)
{
    memset(c, 0, sizeof(*c));
    c->fd = -1;
    c->host = -1;
    c->agent_stdin = -1;
    c->agent_err = -1;
}

rtm_status_t rtd_node_init(rtd_node_t *n, rtd_jobdesc_t *desc, int self_host,
                           const char *job_blob, size_t job_blob_len, const char *token)
{
    rtm_status_t status;
    int first;

    if (n == NULL || desc == NULL || desc->job == NULL || token == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtd_node_init: bad argument");
    memset(n, 0, sizeof(*n));
    n->desc = desc;
    n->self_host = self_host;
    n->listen_fd = -1;
    n->job_blob = job_blob;
    n->job_blob_len = job_blob_len;
    snprintf(n->token, sizeof(n->token), "%s", token);
    conn_init(&n->parent);
    status = rtd_tree_build(desc->job, desc->root_host, desc->fanout, &n->tree);
    if (status != RTM_OK)
        return status;
    n->pos = self_host < 0 ? 0 : n->tree.pos_of_host[self_host];
    if (n->pos < 0) {
        rtd_tree_free(&n->tree);
        return rtm_error_set(RTM_ERR_INVALID_ARG, "host %d has no place in the launch tree",
                             self_host);
    }
    n->has_local = self_host >= 0 && desc->job->hosts[self_host].nranks > 0;
    first = n->pos * n->tree.fanout + 1;
    for (int p = first; p < first + n->tree.fanout && p < n->tree.ndaemons; p++)
        n->nchildren++;
    n->children = calloc((size_t)(n->nchildren ? n->nchildren : 1), sizeof(*n->children));
    if (n->children == NULL) {
        rtd_tree_free(&n->tree);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for the launch tree");
    }
    for (int i = 0; i < n->nchildren; i++) {
        conn_init(&n->children[i]);
        n->children[i].pos = first + i;
        n->children[i].host = n->tree.host_of_pos[first + i];
    }
    return RTM_OK;
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

/* A new connection: read its HELLO (bounded) and match it to a child. */
void rtd_node_accept(rtd_node_t *n)
{
    for (;;) {
        int fd = accept4(n->listen_fd, NULL, NULL, SOCK_CLOEXEC), one = 1;
        rtd_conn_t tmp;
        rtd_hdr_t h;
        const char *payload;
        double until = rtm_time_now() + 2.0;
        int got = 0;

        if (fd < 0)
            return;
        /* The HELLO is tiny and follows connect at once; a stranger that
         * sends nothing holds the loop up for 2 s at most. */
        conn_init(&tmp);
        tmp.fd = fd;
        while (!got && rtm_time_now() < until) {
            struct pollfd pfd = {.fd = fd, .events = POLLIN};

            if (poll(&pfd, 1, 200) < 0 && errno != EINTR)
                break;
            if (pfd.revents && rtd_conn_fill(&tmp) < 0)
                break;
            got = rtd_conn_next(&tmp, &h, &payload);
            if (got < 0)
                break;
        }
        if (got == 1 && h.type == RTD_MSG_HELLO && h.len == RTD_TOKEN_LEN &&
            memcmp(payload, n->token, RTD_TOKEN_LEN) == 0) {
            for (int i = 0; i < n->nchildren; i++) {
                rtd_conn_t *c = &n->children[i];

                if (c->host != h.a || c->hello || c->lost)
                    continue;
                char *queued = c->out;
                size_t queued_len = c->out_len - c->out_off, queued_off = c->out_off;

                rtd_conn_consume(&tmp, &h);
                c->fd = fd;
                c->in = tmp.in;
                c->in_len = tmp.in_len;
                c->in_cap = tmp.in_cap;
                c->hello = 1;
                setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
                /* The description first, then what was queued meanwhile. */
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
                fd = -1;
                rtm_debug("rtd of host %s connected", n->desc->job->hosts[c->host].name);
                break;
            }
        }
        if (fd >= 0) {
            rtm_warn("refused a connection that did not present this job's token");
            rtd_conn_close(&tmp);
        }
    }
}

void rtd_node_up(rtd_node_t *n, uint32_t type, int a, int b, int c, const void *p, size_t len)
{
    rtd_conn_send(&n->parent, type, -1, a, b, c, p, len);
}

void rtd_node_down(rtd_node_t *n, uint32_t type, int a, int b, int c, const void *p, size_t len)
{
    /* children still starting get it queued, after their JOB */
    for (int i = 0; i < n->nchildren; i++)
        rtd_conn_send(&n->children[i], type, -1, a, b, c, p, len);
}

/* Towards host dst: down to the child whose subtree holds it, else up. */
static void route(rtd_node_t *n, uint32_t type, int dst, int a, int b, int c, const void *p,
                  size_t len)
{
    int q = dst >= 0 && dst < n->desc->job->nhosts ? n->tree.pos_of_host[dst] : -1;

    if (q < 0 && dst == n->desc->root_host)
        q = 0;
    for (int i = 0; q > 0 && i < n->nchildren; i++) {
        if (rtd_tree_in_subtree(&n->tree, n->children[i].pos, q)) {
            rtd_conn_send(&n->children[i], type, dst, a, b, c, p, len);
            return;
        }
    }
    rtd_conn_send(&n->parent, type, dst, a, b, c, p, len);
}

void rtd_node_route(rtd_node_t *n, uint32_t type, int dst, int a, int b, int c, const void *p,
                    size_t len)
{
    route(n, type, dst, a, b, c, p, len);
}

static void fence_add(rtd_node_t *n, const char *data, size_t len)
{
    char *grown;

    if (len == 0)
        return;
    grown = realloc(n->fence_data, n->fence_len + len);
    if (grown == NULL) {
        rtm_error("out of memory gathering fence data (%zu bytes)", n->fence_len + len);
        return;
    }
    memcpy(grown + n->fence_len, data, len);
    n->fence_data = grown;
    n->fence_len += len;
}

/* Everything below us is in: pass it up, or at the root, release all. */
static void fence_check(rtd_node_t *n)
{
    if ((n->has_local && !n->fence_local_in) || n->fence_children_in < n->nchildren)
        return;
    if (n->pos != 0) {
        rtd_node_up(n, RTD_MSG_FENCE_UP, n->fence_seq, 0, 0, n->fence_data, n->fence_len);
        return; /* the release comes down as FENCE_DOWN */
    }
    rtd_node_down(n, RTD_MSG_FENCE_DOWN, n->fence_seq, 1, 0, n->fence_data, n->fence_len);
    if (n->fence_local != NULL)
        rtrun_pmix_fence_done(n->fence_local, 1, n->fence_data, n->fence_len);
    n->fence_local = NULL;
    n->fence_local_in = 0;
    n->fence_children_in = 0;
    free(n->fence_data);
    n->fence_data = NULL;
    n->fence_len = 0;
    n->fence_seq++;
}

void rtd_node_fence_local(rtd_node_t *n, rtrun_pmix_req_t *req)
{
    if (n->fence_local != NULL) {
        rtm_error("a second fence began before the first one ended; failing it");
        rtrun_pmix_fence_done(req, 0, NULL, 0);
        return;
    }
    n->fence_local = req;
    n->fence_local_in = 1;
    fence_add(n, req->data, req->ndata);
    fence_check(n);
}

static void fence_down(rtd_node_t *n, const rtd_hdr_t *h, const char *payload)
{
    rtd_node_down(n, RTD_MSG_FENCE_DOWN, h->a, h->b, 0, payload, h->len);
    if (n->fence_local != NULL)
        rtrun_pmix_fence_done(n->fence_local, h->b, payload, h->len);
    n->fence_local = NULL;
    n->fence_local_in = 0;
    n->fence_children_in = 0;
    free(n->fence_data);
    n->fence_data = NULL;
    n->fence_len = 0;
    n->fence_seq = h->a + 1;
}

void rtd_node_dmodex_local(rtd_node_t *n, rtrun_pmix_req_t *req)
{
    const rtrun_job_t *job = n->desc->job;
    int owner = job->ranks[req->rank].node_id;

    if (owner == n->self_host) {
        /* Our own rank: the library answers those itself; nothing to fetch. */
        rtrun_pmix_dmodex_done(req, PMIX_ERR_NOT_FOUND, NULL, 0);
        return;
    }
    req->id = ++n->dmx_next_id;
    req->next = n->dmx_pending;
    n->dmx_pending = req;
    route(n, RTD_MSG_DMX_REQ, owner, n->self_host, req->id, req->rank, NULL, 0);
}

void rtd_node_dmodex_served(rtd_node_t *n, rtrun_pmix_req_t *req)
{
    route(n, RTD_MSG_DMX_RESP, req->from_host, req->from_id, req->status, 0, req->data,
          req->ndata);
    rtrun_pmix_req_free(req);
}

int rtd_node_pmix_request(rtd_node_t *n, const rtrun_pmix_event_t *ev)
{
    switch (ev->type) {
    case RTRUN_PMIX_EV_FENCE:
        rtd_node_fence_local(n, ev->req);
        return 1;
    case RTRUN_PMIX_EV_DMODEX:
        rtd_node_dmodex_local(n, ev->req);
        return 1;
    case RTRUN_PMIX_EV_SERVED:
        rtd_node_dmodex_served(n, ev->req);
        return 1;
    default:
        return 0;
    }
}

static void dmodex_answer(rtd_node_t *n, const rtd_hdr_t *h, const char *payload)
{
    for (rtrun_pmix_req_t **pp = &n->dmx_pending; *pp != NULL; pp = &(*pp)->next) {
        rtrun_pmix_req_t *req = *pp;

        if (req->id != h->a)
            continue;
        *pp = req->next;
        rtrun_pmix_dmodex_done(req, h->b, payload, h->len);
        return;
    }
}

int rtd_node_handle(rtd_node_t *n, rtd_conn_t *from, const rtd_hdr_t *h, const char *payload)
{
    int from_parent = from == &n->parent;
    int mine = 0;

    switch (h->type) {
    case RTD_MSG_STARTED:
    case RTD_MSG_IOF:
    case RTD_MSG_EXIT:
    case RTD_MSG_PMIXEV:
    case RTD_MSG_ERROR:
    case RTD_MSG_STDIN_ACK:
        if (from_parent)
            goto bad;
        if (n->pos == 0)
            mine = 1;
        else
            rtd_node_up(n, h->type, h->a, h->b, h->c, payload, h->len);
        break;
    case RTD_MSG_FENCE_UP:
        if (from_parent)
            goto bad;
        fence_add(n, payload, h->len);
        n->fence_children_in++;
        fence_check(n);
        break;
    case RTD_MSG_FENCE_DOWN:
        if (!from_parent)
            goto bad;
        fence_down(n, h, payload);
        break;
    case RTD_MSG_DMX_REQ:
        if (h->dst == n->self_host) {
            if (h->c < 0 || h->c >= n->desc->job->nprocs ||
                rtrun_pmix_dmodex_serve(n->desc->job->nspace, h->c, h->a, h->b) != RTM_OK)
                route(n, RTD_MSG_DMX_RESP, h->a, h->b, PMIX_ERR_NOT_FOUND, 0, NULL, 0);
        } else {
            route(n, h->type, h->dst, h->a, h->b, h->c, NULL, 0);
        }
        break;
    case RTD_MSG_DMX_RESP:
        if (h->dst == n->self_host)
            dmodex_answer(n, h, payload);
        else
            route(n, h->type, h->dst, h->a, h->b, h->c, payload, h->len);
        break;
    case RTD_MSG_STDIN:
        if (h->dst == n->self_host)
            mine = 1;
        else
            route(n, h->type, h->dst, h->a, h->b, h->c, payload, h->len);
        break;
    case RTD_MSG_KILL:
        if (!from_parent)
            goto bad;
        rtd_node_down(n, h->type, h->a, h->b, h->c, NULL, 0);
        mine = 1;
        break;
    default:
        goto bad;
    }
    if (!mine)
        rtd_conn_consume(from, h);
    return mine;

bad:
    rtm_error("unexpected message %u from host %d", h->type, from->host);
    return -1;
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

void rtd_node_fini(rtd_node_t *n)
{
    if (n == NULL)
        return;
    if (n->fence_local != NULL)
        rtrun_pmix_fence_done(n->fence_local, 0, NULL, 0);
    n->fence_local = NULL;
    while (n->dmx_pending != NULL) {
        rtrun_pmix_req_t *req = n->dmx_pending;

        n->dmx_pending = req->next;
        rtrun_pmix_dmodex_done(req, PMIX_ERR_UNREACH, NULL, 0);
    }
    free(n->fence_data);
    n->fence_data = NULL;
    for (int i = 0; n->children != NULL && i < n->nchildren; i++) {
        rtd_conn_t *c = &n->children[i];

        rtd_conn_close(c);
        if (c->agent_stdin >= 0)
            close(c->agent_stdin);
        if (c->agent_err >= 0)
            close(c->agent_err);
        c->agent_stdin = c->agent_err = -1;
    }
    free(n->children);
    n->children = NULL;
    rtd_conn_close(&n->parent);
    if (n->listen_fd >= 0)
        close(n->listen_fd);
    n->listen_fd = -1;
    rtd_tree_free(&n->tree);
}
