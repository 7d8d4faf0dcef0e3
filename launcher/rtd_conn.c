/*
 * Connections of the daemon tree (see rtd_conn.h): output queues, input
 * buffers cut into messages, and connecting to a parent.
 */
#include "config.h"

#include "launcher/rtd_conn.h"
#include "common/log.h"
#include "common/secret.h"
#include "common/timer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void rtd_conn_init(rtd_conn_t *c)
{
    memset(c, 0, sizeof(*c));
    c->fd = -1;
    c->host = -1;
    c->agent_stdin = -1;
    c->agent_err = -1;
}

void rtd_conn_send(rtd_conn_t *c, uint32_t type, int dst, int a, int b, int cc,
                   const void *payload, size_t len)
{
    rtd_hdr_t h = {.type = type, .len = (uint32_t)len, .dst = dst, .a = a, .b = b, .c = cc};
    size_t need;

    /* A child not connected yet gets its messages queued (a direct-modex
     * request may come before it said hello); a closed one gets nothing. */
    if (c->lost || (c->fd < 0 && c->agent_pid <= 0 && !c->hello && c->deadline == 0))
        return;
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
    rtd_hdr_pack(&h, c->out + c->out_len);
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
    if (c->in_len < RTD_HDR_SIZE)
        return 0;
    if (rtd_hdr_unpack(c->in, h) != 0)
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

int rtd_conn_join(rtd_conn_t *p, const rtm_secret_t *secret, int host, double until, char *err,
                  size_t errlen)
{
    unsigned char nonce_c[RTM_AUTH_NONCE_LEN], nonce_p[RTM_AUTH_NONCE_LEN];
    unsigned char mac[RTM_AUTH_MAC_LEN];

    snprintf(err, errlen, "the parent sent no challenge");
    if (p == NULL || secret == NULL || !secret->set || rtm_auth_nonce(nonce_c) != 0) {
        snprintf(err, errlen, "no job secret or no random source");
        return -1;
    }
    rtd_conn_send(p, RTD_MSG_HELLO, -1, host, 0, 0, nonce_c, sizeof(nonce_c));
    while (rtm_time_now() < until) {
        struct pollfd pfd = {.fd = p->fd,
                             .events = POLLIN | (rtd_conn_wants_write(p) ? POLLOUT : 0)};
        rtd_hs_expect_t want = {secret, RTD_MSG_CHALLENGE, host, host + 1, nonce_c, NULL};
        rtd_hs_verdict_t verdict;
        const char *payload;
        rtd_hdr_t h;
        int got;

        if (poll(&pfd, 1, 500) < 0 && errno != EINTR)
            break;
        if ((pfd.revents & POLLOUT) && rtd_conn_flush(p) < 0)
            break;
        if ((pfd.revents & (POLLIN | POLLHUP | POLLERR)) && rtd_conn_fill(p) < 0) {
            snprintf(err, errlen, "the parent closed the connection in the handshake");
            break;
        }
        got = rtd_conn_next(p, &h, &payload);
        if (got == 0)
            continue;
        verdict = got < 0 ? RTD_HS_WRONG_LEN
                          : rtd_hs_check(&want, p->in, RTD_HDR_SIZE + h.len, NULL, nonce_p);
        if (verdict != RTD_HS_OK) {
            snprintf(err, errlen, "the parent answered with %s", rtd_hs_verdict_str(verdict));
            return -1;
        }
        rtd_conn_consume(p, &h);
        rtd_hs_mac(secret, RTD_HS_ROLE_CHILD, host, nonce_c, nonce_p, mac);
        rtd_conn_send(p, RTD_MSG_PROOF, -1, host, 0, 0, mac, sizeof(mac));
        return 0;
    }
    return -1;
}
