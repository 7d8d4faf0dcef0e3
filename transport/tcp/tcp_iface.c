/*
 * tcp transport: the interface (listening socket, chosen addresses), what it
 * publishes, endpoints, and the ops table. Connections: tcp_conn.c; the
 * message path: tcp_am.c.
 */
#include "config.h"

#include "transport/tcp/tcp.h"
#include "common/error.h"
#include "common/log.h"
#include "transport/tcp/tcp_config.h"
#include "common/secret.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

static uint32_t job_tag_of(const char *nspace)
{
    uint32_t h = 2166136261u;   /* FNV-1a */

    for (const char *p = nspace ? nspace : ""; *p != '\0'; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h;
}

static size_t tcp_eager_limit(void)
{
    size_t limit = tcp_config.eager_limit;

    /* room for the runtime's match header in one message */
    if (limit > TCP_AM_MAX - 64)
        limit = TCP_AM_MAX - 64;
    return limit;
}

static rtm_status_t tcp_listen(tcp_iface_t *iface)
{
    struct sockaddr_in sa;
    socklen_t sa_len = sizeof(sa);
    struct epoll_event ev;
    int one = 1;

    iface->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (iface->listen_fd < 0)
        return rtm_error_set(RTM_ERR_TRANSPORT, "tcp: socket: %s", strerror(errno));
    setsockopt(iface->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    /* one address: listen there only; several: on all, publish the chosen ones */
    sa.sin_addr.s_addr = iface->num_ifaddrs == 1 ? iface->ifaddrs[0].addr.s_addr
                                                 : htonl(INADDR_ANY);
    sa.sin_port = 0;
    if (bind(iface->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        listen(iface->listen_fd, SOMAXCONN) != 0 ||
        getsockname(iface->listen_fd, (struct sockaddr *)&sa, &sa_len) != 0)
        return rtm_error_set(RTM_ERR_TRANSPORT, "tcp: cannot listen on %s: %s",
                             inet_ntoa(sa.sin_addr), strerror(errno));
    iface->port = sa.sin_port;
    ev.events = EPOLLIN;
    ev.data.u64 = TCP_EV(TCP_EV_LISTEN, 0);
    if (epoll_ctl(iface->epfd, EPOLL_CTL_ADD, iface->listen_fd, &ev) != 0)
        return rtm_error_set(RTM_ERR_TRANSPORT, "tcp: epoll_ctl: %s", strerror(errno));
    return RTM_OK;
}

static void tcp_close(rtm_tl_iface_t *tl_iface);

/* The key of the handshakes: the job secret the launcher handed over;
 * without one (a foreign PMIx server, a singleton) a key derived from the
 * namespace, which keeps out other jobs but not a stranger who reads it
 * (docs/security.md, "What is not authenticated"). */
static rtm_status_t tcp_secret_init(tcp_iface_t *iface, const rtm_tl_params_t *params)
{
    static const rtm_secret_t public_key;   /* all zero */
    const char *nspace = params->nspace ? params->nspace : "";

    if (params->job_secret != NULL)
        return rtm_secret_from_bytes(params->job_secret, params->job_secret_len,
                                     &iface->secret);
    rtm_auth_mac(&public_key, nspace, strlen(nspace), iface->secret.key);
    iface->secret.set = 1;
    if (params->world_size > 1)
        rtm_debug("tcp: rank %d: no job secret from the launcher: connections are checked "
                  "against the namespace only", params->world_rank);
    return RTM_OK;
}

static rtm_status_t tcp_open(const rtm_tl_params_t *params, rtm_tl_iface_t **iface_p)
{
    tcp_iface_t *iface;
    rtm_status_t status;

    if (!rtm_tl_params_valid(params) || iface_p == NULL || params->world_size < 1 ||
        params->world_rank < 0 || params->world_rank >= params->world_size)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "tcp open: params, am_cb, peer_failed or iface_p is NULL, or rank "
                             "out of range");
    iface = calloc(1, sizeof(*iface));
    if (iface == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "tcp open: no memory");
    iface->super.ops = &rtm_tl_tcp;
    iface->epfd = -1;
    iface->listen_fd = -1;
    for (int i = 0; i < TCP_ACCEPT_SLOTS; i++)
        iface->accepts[i].fd = -1;
    iface->am_cb = params->am_cb;
    iface->am_arg = params->am_arg;
    iface->peer_failed = params->peer_failed;
    iface->world_rank = params->world_rank;
    iface->world_size = params->world_size;
    iface->single_host = params->local_size >= params->world_size;
    iface->job_tag = job_tag_of(params->nspace);
    status = tcp_secret_init(iface, params);
    if (status != RTM_OK) {
        free(iface);
        return status;
    }
    iface->eager_limit = tcp_eager_limit();
    snprintf(iface->hostname, sizeof(iface->hostname), "%s",
             params->hostname ? params->hostname : "?");
    iface->peers = calloc((size_t)params->world_size, sizeof(*iface->peers));
    if (iface->peers == NULL) {
        free(iface);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "tcp open: no memory for %d peers",
                             params->world_size);
    }
    if (params->world_size == 1) {
        *iface_p = &iface->super;
        return RTM_OK;   /* nobody to talk to: publish nothing, listen nowhere */
    }

    status = tcp_ifsel(tcp_config.interfaces, iface->single_host, iface->ifaddrs, TCP_MAX_ADDRS,
                       &iface->num_ifaddrs);
    if (status != RTM_OK)
        goto err_close;
    iface->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (iface->epfd < 0) {
        status = rtm_error_set(RTM_ERR_TRANSPORT, "tcp: epoll_create1: %s", strerror(errno));
        goto err_close;
    }
    status = tcp_listen(iface);
    if (status != RTM_OK)
        goto err_close;
    *iface_p = &iface->super;
    return RTM_OK;

err_close:
    tcp_close(&iface->super);
    return status;
}

static void tcp_close(rtm_tl_iface_t *tl_iface)
{
    tcp_iface_t *iface = tcp_iface_of(tl_iface);

    if (iface == NULL)
        return;
    tcp_close_all(iface);
    for (int i = 0; i < iface->world_size; i++) {
        tcp_ep_t *ep = iface->peers[i];

        if (ep == NULL)
            continue;
        if (ep->fd >= 0)
            close(ep->fd);
        free(ep->tx);
        free(ep->rx);
        free(ep);
    }
    for (int i = 0; i < TCP_ACCEPT_SLOTS; i++)
        if (iface->accepts[i].fd >= 0)
            close(iface->accepts[i].fd);
    if (iface->listen_fd >= 0)
        close(iface->listen_fd);
    if (iface->epfd >= 0)
        close(iface->epfd);
    free(iface->peers);
    rtm_secret_wipe(&iface->secret, sizeof(iface->secret));
    free(iface);
}

static void tcp_query(rtm_tl_iface_t *tl_iface, rtm_tl_caps_t *caps)
{
    memset(caps, 0, sizeof(*caps));
    /* any host; no get: rendezvous by CTS + DATA; each poll is a syscall */
    caps->flags = RTM_TL_CAP_SLOW_POLL;
    caps->am_max = TCP_AM_MAX;
    caps->eager_limit = tl_iface ? tcp_iface_of(tl_iface)->eager_limit : tcp_eager_limit();
    caps->get_threshold = 0;
    /* hints only (the runtime prefers transports by RTM_TRANSPORTS order):
     * a socket round trip costs syscalls and wake-ups on both sides, some
     * 10 us on loopback on a quiet 2-vCPU machine, more across a network */
    caps->latency_us = 10.0;
    caps->bandwidth_gbs = 3.0;
}

static void tcp_describe(rtm_tl_iface_t *tl_iface, char *buf, size_t len)
{
    tcp_iface_t *iface = tcp_iface_of(tl_iface);
    tcp_ifaddr_t found[TCP_MAX_ADDRS];
    const tcp_ifaddr_t *addrs;
    int n = 0;
    size_t off;

    if (iface == NULL) {
        /* what a multi-host job would use on this host */
        if (tcp_ifsel(tcp_config.interfaces, 0, found, TCP_MAX_ADDRS, &n) != RTM_OK)
            n = 0;
        addrs = found;
        off = (size_t)snprintf(buf, len, "tcp: sockets over IPv4; between hosts: ");
        if (n == 0 && off < len)
            off += (size_t)snprintf(buf + off, len - off, "no interface (%s)", rtm_last_error());
    } else {
        addrs = iface->ifaddrs;
        n = iface->num_ifaddrs;
        off = (size_t)snprintf(buf, len, "tcp: rank %d listens on ", iface->world_rank);
        if (n == 0 && off < len)
            off += (size_t)snprintf(buf + off, len - off, "nothing (job of one rank)");
    }
    for (int i = 0; i < n && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%s %s/%u", i ? ", " : "",
                                addrs[i].name, inet_ntoa(addrs[i].addr), addrs[i].prefix_len);
    if (iface != NULL && n > 0 && off < len)
        off += (size_t)snprintf(buf + off, len - off, " port %u%s", ntohs(iface->port),
                                iface->single_host ? " (all ranks on this host)" : "");
    if (off < len)
        snprintf(buf + off, len - off, "; messages <= %u B, eager <= %zu B, no get (CTS/DATA)",
                 TCP_AM_MAX, iface ? iface->eager_limit : tcp_eager_limit());
}

static rtm_status_t tcp_addr_pack(rtm_tl_iface_t *tl_iface, void *buf, size_t *len_p)
{
    tcp_iface_t *iface = tcp_iface_of(tl_iface);
    tcp_addr_hdr_t hdr;
    size_t need;

    if (iface == NULL || len_p == NULL || (buf == NULL && *len_p > 0))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "tcp addr_pack: NULL argument");
    if (iface->num_ifaddrs == 0) {
        *len_p = 0;
        return RTM_OK;
    }
    need = sizeof(hdr) + (size_t)iface->num_ifaddrs * sizeof(tcp_addr_entry_t);
    if (*len_p < need)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "tcp addr_pack: buffer of %zu B, need %zu",
                             *len_p, need);
    memset(&hdr, 0, sizeof(hdr));
    hdr.magic = TCP_ADDR_MAGIC;
    hdr.version = TCP_ADDR_VERSION;
    hdr.naddrs = (uint16_t)iface->num_ifaddrs;
    hdr.port = iface->port;
    hdr.world_rank = iface->world_rank;
    hdr.job_tag = iface->job_tag;
    snprintf(hdr.hostname, sizeof(hdr.hostname), "%s", iface->hostname);
    memcpy(buf, &hdr, sizeof(hdr));
    for (int i = 0; i < iface->num_ifaddrs; i++) {
        tcp_addr_entry_t e;

        memset(&e, 0, sizeof(e));
        e.ipv4 = iface->ifaddrs[i].addr.s_addr;
        e.prefix_len = iface->ifaddrs[i].prefix_len;
        memcpy((char *)buf + sizeof(hdr) + (size_t)i * sizeof(e), &e, sizeof(e));
    }
    *len_p = need;
    return RTM_OK;
}

/* 0 and the header when blob is a well-formed address of peer. */
static int blob_parse(tcp_iface_t *iface, int peer, const void *blob, size_t blob_len,
                      tcp_addr_hdr_t *hdr)
{
    if (blob == NULL || blob_len < sizeof(*hdr))
        return -1;
    memcpy(hdr, blob, sizeof(*hdr));
    if (hdr->magic != TCP_ADDR_MAGIC || hdr->version != TCP_ADDR_VERSION ||
        hdr->naddrs == 0 || hdr->naddrs > TCP_MAX_ADDRS || hdr->world_rank != peer ||
        hdr->job_tag != iface->job_tag ||
        blob_len < sizeof(*hdr) + hdr->naddrs * sizeof(tcp_addr_entry_t))
        return -1;
    hdr->hostname[TCP_HOST_MAX - 1] = '\0';
    return 0;
}

static int tcp_reachable(rtm_tl_iface_t *tl_iface, int peer, const void *blob, size_t blob_len)
{
    tcp_iface_t *iface = tcp_iface_of(tl_iface);
    tcp_addr_hdr_t hdr;

    return iface != NULL && iface->num_ifaddrs > 0 && peer >= 0 && peer < iface->world_size &&
           peer != iface->world_rank && blob_parse(iface, peer, blob, blob_len, &hdr) == 0;
}

/* Does addr lie on a subnet one of our addresses is on? */
static int on_our_subnet(const tcp_iface_t *iface, uint32_t addr)
{
    for (int i = 0; i < iface->num_ifaddrs; i++) {
        unsigned p = iface->ifaddrs[i].prefix_len;
        uint32_t mask = p == 0 ? 0 : htonl(~0u << (32 - p));

        if ((addr & mask) == (iface->ifaddrs[i].addr.s_addr & mask))
            return 1;
    }
    return 0;
}

static rtm_status_t tcp_ep_create(rtm_tl_iface_t *tl_iface, int peer, const void *blob,
                                  size_t blob_len, rtm_tl_ep_t **ep_p)
{
    tcp_iface_t *iface = tcp_iface_of(tl_iface);
    tcp_ep_t *ep;
    tcp_addr_hdr_t hdr;
    int n = 0;

    if (iface == NULL || ep_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "tcp ep_create: NULL argument");
    if (!tcp_reachable(tl_iface, peer, blob, blob_len) ||
        blob_parse(iface, peer, blob, blob_len, &hdr) != 0)
        return rtm_error_set(RTM_ERR_UNREACHABLE,
                             "tcp: rank %d published no usable TCP address (%zu B blob)", peer,
                             blob_len);
    ep = tcp_peer_get(iface, peer);
    if (ep == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "tcp: no memory for rank %d's connection", peer);
    if (!ep->have_addr) {
        /* addresses on a subnet we share first, the others (routed) after */
        for (int pass = 0; pass < 2; pass++) {
            for (unsigned i = 0; i < hdr.naddrs; i++) {
                tcp_addr_entry_t e;

                memcpy(&e, (const char *)blob + sizeof(hdr) + i * sizeof(e), sizeof(e));
                if (on_our_subnet(iface, e.ipv4) != (pass == 0))
                    continue;
                memset(&ep->addrs[n], 0, sizeof(ep->addrs[n]));
                ep->addrs[n].sin_family = AF_INET;
                ep->addrs[n].sin_addr.s_addr = e.ipv4;
                ep->addrs[n].sin_port = hdr.port;
                n++;
            }
        }
        ep->naddrs = n;
        ep->have_addr = 1;
        if (ep->hostname[0] == '\0')
            snprintf(ep->hostname, sizeof(ep->hostname), "%s", hdr.hostname);
    }
    *ep_p = &ep->super;
    return RTM_OK;
}

/* The connection stays until close(): it carries the orderly BYE there,
 * together with every other peer's, and may still deliver to this rank. */
static void tcp_ep_destroy(rtm_tl_ep_t *ep)
{
    (void)ep;
}

const rtm_tl_ops_t rtm_tl_tcp = {
    RTM_TL_OPS_VERSION,
    .name       = "tcp",
    .open       = tcp_open,
    .close      = tcp_close,
    .query      = tcp_query,
    .describe   = tcp_describe,
    .addr_pack  = tcp_addr_pack,
    .wireup     = NULL,
    .reachable  = tcp_reachable,
    .ep_create  = tcp_ep_create,
    .ep_destroy = tcp_ep_destroy,
    .am_send    = tcp_am_send,
    .mem_reg    = NULL,
    .mem_dereg  = NULL,
    .get        = NULL,
    .progress   = tcp_progress,
    .ep_state   = tcp_ep_state,
};
