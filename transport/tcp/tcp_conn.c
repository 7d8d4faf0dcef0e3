/*
 * tcp transport: setting connections up (lazily, on the first am_send to a
 * peer, or when the peer connects first), the rule that leaves one
 * connection per pair when both connect at once (tcp.h), a lost peer, and
 * the orderly close. All of this is the slow path: it may allocate (once per
 * peer) and log (once per failure).
 */
#include "config.h"

#include "transport/tcp/tcp.h"
#include "common/error.h"
#include "common/log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

uint64_t tcp_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static size_t pow2_at_least(size_t n)
{
    size_t p = 1;

    while (p < n)
        p <<= 1;
    return p;
}

tcp_ep_t *tcp_peer_get(tcp_iface_t *iface, int peer)
{
    tcp_ep_t *ep = iface->peers[peer];

    if (ep != NULL)
        return ep;
    ep = calloc(1, sizeof(*ep));
    if (ep == NULL)
        return NULL;
    /* send ring: two of the largest frames, so one always fits behind a
     * partly written one; receive buffer: two, so a frame can be completed
     * behind a batch of small ones before compaction */
    ep->tx_mask = pow2_at_least(2 * TCP_FRAME_MAX) - 1;
    ep->tx = malloc(ep->tx_mask + 1);
    /* aligned_alloc wants a size that is a multiple of the alignment (C11) */
    ep->rx_size = (2 * TCP_FRAME_MAX + 63) & ~(size_t)63;
    ep->rx = aligned_alloc(64, ep->rx_size);
    if (ep->tx == NULL || ep->rx == NULL) {
        free(ep->tx);
        free(ep->rx);
        free(ep);
        return NULL;
    }
    ep->super.iface = &iface->super;
    ep->fd = -1;
    ep->super.peer = peer;
    ep->state = TCP_CONN_IDLE;
    iface->peers[peer] = ep;
    return ep;
}

void tcp_set_pollout(tcp_ep_t *ep, int on)
{
    struct epoll_event ev;

    if (ep->tx_polling == on || ep->fd < 0)
        return;
    ev.events = EPOLLIN | (on ? EPOLLOUT : 0);
    ev.data.u64 = TCP_EV(TCP_EV_PEER, ep->super.peer);
    if (epoll_ctl(tcp_ep_iface(ep)->epfd, EPOLL_CTL_MOD, ep->fd, &ev) == 0)
        ep->tx_polling = on;
}

/* Stop using ep's socket (epoll forgets it with the close). */
static void conn_drop_fd(tcp_ep_t *ep)
{
    if (ep->fd >= 0) {
        epoll_ctl(tcp_ep_iface(ep)->epfd, EPOLL_CTL_DEL, ep->fd, NULL);
        close(ep->fd);
    }
    ep->fd = -1;
    ep->tx_polling = 0;
    ep->rx_head = ep->rx_tail = 0;
    ep->rx_need_hs = 0;
}

static void conn_set_state(tcp_ep_t *ep, tcp_conn_state_t state)
{
    if (ep->state == TCP_CONN_WAIT_PEER && state != TCP_CONN_WAIT_PEER)
        tcp_ep_iface(ep)->num_wait_peer--;
    else if (ep->state != TCP_CONN_WAIT_PEER && state == TCP_CONN_WAIT_PEER)
        tcp_ep_iface(ep)->num_wait_peer++;
    ep->state = state;
}

static void conn_fail_msg(tcp_ep_t *ep, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The peer is lost: say so once, naming both sides; am_send returns the
 * message from now on. Queued output is dropped: nobody will read it. */
static void conn_fail_msg(tcp_ep_t *ep, const char *fmt, ...)
{
    tcp_iface_t *iface = tcp_ep_iface(ep);
    size_t off;
    va_list ap;

    if (ep->state == TCP_CONN_FAILED || ep->state == TCP_CONN_CLOSED)
        return;
    off = (size_t)snprintf(ep->err, sizeof(ep->err), "rank %d (%s): ", iface->world_rank,
                           iface->hostname);
    va_start(ap, fmt);
    if (off < sizeof(ep->err))
        vsnprintf(ep->err + off, sizeof(ep->err) - off, fmt, ap);
    va_end(ap);
    conn_drop_fd(ep);
    conn_set_state(ep, TCP_CONN_FAILED);
    ep->tx_head = ep->tx_tail;
    if (iface->closing || ep->bye_rcvd) {
        rtm_debug("%s (while closing)", ep->err);
    } else {
        rtm_error("%s", ep->err);
        iface->peer_failed(iface->am_arg, ep->super.peer, RTM_ERR_TRANSPORT, ep->err);
    }
}

static const char *peer_host(const tcp_ep_t *ep)
{
    return ep->hostname[0] ? ep->hostname : "?";
}

void tcp_conn_fail(tcp_ep_t *ep, const char *what, int err)
{
    conn_fail_msg(ep, "connection to rank %d (%s) lost: %s", ep->super.peer, peer_host(ep),
                  what ? what : strerror(err));
}

void tcp_conn_eof(tcp_ep_t *ep)
{
    if (ep->bye_rcvd) {
        /* the peer finalized: orderly */
        conn_drop_fd(ep);
        conn_set_state(ep, TCP_CONN_CLOSED);
        ep->tx_head = ep->tx_tail;
        return;
    }
    tcp_conn_fail(ep, "closed by the peer without an orderly goodbye (the process exited or "
                      "was killed)", 0);
}

static void hs_fill(const tcp_iface_t *iface, tcp_hs_t *hs, uint8_t type)
{
    memset(hs, 0, sizeof(*hs));
    hs->magic = TCP_HS_MAGIC;
    hs->type = type;
    hs->version = TCP_ADDR_VERSION;
    hs->world_rank = iface->world_rank;
    hs->world_size = iface->world_size;
    hs->job_tag = iface->job_tag;
    snprintf(hs->hostname, sizeof(hs->hostname), "%s", iface->hostname);
}

/* Handshakes are the first bytes on a fresh socket: they always fit its
 * send buffer, so a short write is an error. */
static int hs_send(const tcp_iface_t *iface, int fd, uint8_t type)
{
    tcp_hs_t hs;
    ssize_t n;

    hs_fill(iface, &hs, type);
    do {
        n = send(fd, &hs, sizeof(hs), MSG_NOSIGNAL | MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (n == (ssize_t)sizeof(hs))
        return 0;
    return n < 0 ? errno : EAGAIN;
}

static int hs_valid(const tcp_iface_t *iface, const tcp_hs_t *hs)
{
    return hs->magic == TCP_HS_MAGIC && hs->version == TCP_ADDR_VERSION &&
           hs->job_tag == iface->job_tag && hs->world_size == iface->world_size &&
           hs->world_rank >= 0 && hs->world_rank < iface->world_size &&
           hs->world_rank != iface->world_rank;
}

static void conn_up(tcp_ep_t *ep)
{
    conn_set_state(ep, TCP_CONN_UP);
    if (ep->tx_tail != ep->tx_head)
        tcp_tx_flush(ep);
}

rtm_status_t tcp_conn_start(tcp_ep_t *ep)
{
    tcp_iface_t *iface = tcp_ep_iface(ep);
    int err = 0;

    if (!ep->have_addr) {
        conn_fail_msg(ep, "no address known for rank %d (%s)", ep->super.peer, peer_host(ep));
        return RTM_ERR_TRANSPORT;
    }
    while (ep->next_addr < ep->naddrs) {
        const struct sockaddr_in *sa = &ep->addrs[ep->next_addr++];
        struct epoll_event ev;
        int one = 1;
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

        if (fd < 0) {
            err = errno;
            break;
        }
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) != 0 && errno != EINPROGRESS) {
            err = errno;
            rtm_debug("tcp: connect to rank %d at %s:%u: %s", ep->super.peer, inet_ntoa(sa->sin_addr),
                      ntohs(sa->sin_port), strerror(err));
            close(fd);
            continue;
        }
        ev.events = EPOLLIN | EPOLLOUT;
        ev.data.u64 = TCP_EV(TCP_EV_PEER, ep->super.peer);
        if (epoll_ctl(iface->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
            err = errno;
            close(fd);
            break;
        }
        ep->fd = fd;
        ep->tx_polling = 1;
        conn_set_state(ep, TCP_CONN_CONNECTING);
        return RTM_OK;   /* completes in progress (EPOLLOUT) */
    }
    if (ep->naddrs > 0) {
        const struct sockaddr_in *sa = &ep->addrs[ep->naddrs - 1];

        conn_fail_msg(ep, "cannot connect to rank %d (%s) at %s:%u%s: %s", ep->super.peer,
                      peer_host(ep), inet_ntoa(sa->sin_addr), ntohs(sa->sin_port),
                      ep->naddrs > 1 ? " (nor its other addresses)" : "",
                      strerror(err ? err : ECONNREFUSED));
    } else {
        conn_fail_msg(ep, "rank %d (%s) published no address", ep->super.peer, peer_host(ep));
    }
    return RTM_ERR_TRANSPORT;
}

/* Our connect() finished (well or not). */
void tcp_conn_connected(tcp_ep_t *ep)
{
    struct pollfd pfd = {ep->fd, POLLOUT, 0};
    socklen_t len = sizeof(int);
    int err = 0;

    /* an event of a socket closed earlier in the same batch: ask this one */
    if (poll(&pfd, 1, 0) <= 0)
        return;
    if (getsockopt(ep->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
        err = errno;
    if (err == 0)
        err = hs_send(tcp_ep_iface(ep), ep->fd, TCP_HS_HELLO);
    if (err != 0) {
        rtm_debug("tcp: connect to rank %d at %s:%u: %s", ep->super.peer,
                  inet_ntoa(ep->addrs[ep->next_addr - 1].sin_addr),
                  ntohs(ep->addrs[ep->next_addr - 1].sin_port), strerror(err));
        conn_drop_fd(ep);
        conn_set_state(ep, TCP_CONN_IDLE);
        tcp_conn_start(ep);   /* the next address, or the peer's failure */
        return;
    }
    ep->rx_head = ep->rx_tail = 0;
    ep->rx_need_hs = 1;
    if (tcp_ep_iface(ep)->world_rank < ep->super.peer) {
        /* ours wins: data may follow the HELLO at once */
        conn_up(ep);
        if (ep->state == TCP_CONN_UP && ep->tx_tail == ep->tx_head)
            tcp_set_pollout(ep, 0);
    } else {
        conn_set_state(ep, TCP_CONN_WAIT_ACK);
        tcp_set_pollout(ep, 0);
    }
}

/* The ACK or NACK to our HELLO. */
void tcp_conn_hs_reply(tcp_ep_t *ep, const tcp_hs_t *hs)
{
    if (!hs_valid(tcp_ep_iface(ep), hs) || hs->world_rank != ep->super.peer ||
        (hs->type != TCP_HS_ACK && hs->type != TCP_HS_NACK)) {
        conn_fail_msg(ep, "rank %d (%s) answered our connection with a bad handshake (another "
                      "job's process on that address?)", ep->super.peer, peer_host(ep));
        return;
    }
    if (ep->hostname[0] == '\0')
        snprintf(ep->hostname, sizeof(ep->hostname), "%.*s", TCP_HOST_MAX - 1, hs->hostname);
    if (hs->type == TCP_HS_ACK) {
        if (ep->state == TCP_CONN_WAIT_ACK)
            conn_up(ep);
        return;
    }
    /* NACK: the lower rank connects to us; keep the queue for its connection */
    conn_drop_fd(ep);
    ep->wait_since_ms = tcp_now_ms();
    conn_set_state(ep, TCP_CONN_WAIT_PEER);
}

void tcp_listen_ready(tcp_iface_t *iface)
{
    while (iface->num_accepts < TCP_ACCEPT_SLOTS) {
        struct epoll_event ev;
        int one = 1;
        int slot = 0;
        int fd = accept4(iface->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

        if (fd < 0)
            return;   /* EAGAIN, or an aborted connection: nothing to do */
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        while (iface->accepts[slot].fd >= 0)
            slot++;
        ev.events = EPOLLIN;
        ev.data.u64 = TCP_EV(TCP_EV_ACCEPT, slot);
        if (epoll_ctl(iface->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
            close(fd);
            continue;
        }
        iface->accepts[slot].fd = fd;
        iface->accepts[slot].got = 0;
        iface->num_accepts++;
    }
}

static void accept_slot_free(tcp_iface_t *iface, int slot, int close_fd)
{
    if (close_fd) {
        epoll_ctl(iface->epfd, EPOLL_CTL_DEL, iface->accepts[slot].fd, NULL);
        close(iface->accepts[slot].fd);
    }
    iface->accepts[slot].fd = -1;
    iface->num_accepts--;
}

/* Bytes of a HELLO on an accepted socket; once whole, apply the rule. */
void tcp_accept_ready(tcp_iface_t *iface, int slot)
{
    tcp_accept_slot_t *a = &iface->accepts[slot];
    tcp_ep_t *ep;
    struct epoll_event ev;
    ssize_t n;
    int peer, err;

    if (a->fd < 0)
        return;
    /* read the HELLO only: data the peer sent behind it stays in the
     * socket for the connection's receive buffer */
    n = recv(a->fd, (char *)&a->hs + a->got, sizeof(a->hs) - a->got, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        /* a refused peer giving up, or a port scan: not a failure */
        accept_slot_free(iface, slot, 1);
        return;
    }
    a->got += (size_t)n;
    if (a->got < sizeof(a->hs))
        return;
    if (!hs_valid(iface, &a->hs) || a->hs.type != TCP_HS_HELLO) {
        rtm_debug("tcp: rank %d: dropped a connection with a bad handshake", iface->world_rank);
        accept_slot_free(iface, slot, 1);
        return;
    }
    peer = a->hs.world_rank;
    ep = tcp_peer_get(iface, peer);
    if (ep == NULL) {
        accept_slot_free(iface, slot, 1);
        return;
    }
    if (ep->hostname[0] == '\0')
        snprintf(ep->hostname, sizeof(ep->hostname), "%.*s", TCP_HOST_MAX - 1, a->hs.hostname);
    if (ep->state == TCP_CONN_FAILED || ep->state == TCP_CONN_CLOSED ||
        (peer < iface->world_rank && ep->state == TCP_CONN_UP)) {
        /* impossible under the rule unless the peer restarted: keep ours */
        accept_slot_free(iface, slot, 1);
        return;
    }
    if (peer > iface->world_rank && ep->state != TCP_CONN_IDLE) {
        /* we are the lower rank and have our own connection: it wins */
        hs_send(iface, a->fd, TCP_HS_NACK);
        accept_slot_free(iface, slot, 1);
        iface->stat_refused++;
        return;
    }
    /* adopt it: from a lower rank always (dropping any attempt of ours,
     * which carried no data yet), from a higher one when we had none */
    if (ep->state != TCP_CONN_IDLE)
        iface->stat_replaced++;
    conn_drop_fd(ep);
    ep->fd = a->fd;
    accept_slot_free(iface, slot, 0);
    ev.events = EPOLLIN;
    ev.data.u64 = TCP_EV(TCP_EV_PEER, peer);
    if (epoll_ctl(iface->epfd, EPOLL_CTL_MOD, ep->fd, &ev) != 0) {
        tcp_conn_fail(ep, NULL, errno);
        return;
    }
    err = hs_send(iface, ep->fd, TCP_HS_ACK);
    if (err != 0) {
        tcp_conn_fail(ep, NULL, err);
        return;
    }
    ep->rx_need_hs = 0;
    conn_up(ep);
}

void tcp_check_wait_peer(tcp_iface_t *iface)
{
    uint64_t now = tcp_now_ms();

    for (int i = 0; i < iface->world_size && iface->num_wait_peer > 0; i++) {
        tcp_ep_t *ep = iface->peers[i];

        if (ep != NULL && ep->state == TCP_CONN_WAIT_PEER &&
            now - ep->wait_since_ms > TCP_WAIT_PEER_MS)
            conn_fail_msg(ep, "rank %d (%s) refused our connection in favour of its own, which "
                          "never arrived within %d s", ep->super.peer, peer_host(ep),
                          TCP_WAIT_PEER_MS / 1000);
    }
}

/* Is ep still owed something before close: output, a handshake, or the
 * peer's BYE and EOF? */
static int conn_busy(const tcp_ep_t *ep)
{
    switch (ep->state) {
    case TCP_CONN_CONNECTING:
    case TCP_CONN_WAIT_ACK:
    case TCP_CONN_WAIT_PEER:
    case TCP_CONN_UP:
        return 1;
    default:
        return 0;
    }
}

void tcp_close_all(tcp_iface_t *iface)
{
    uint64_t deadline = tcp_now_ms() + TCP_CLOSE_WAIT_MS;
    int busy;

    if (iface->epfd < 0)
        return;
    iface->closing = 1;
    iface->in_progress = 0;
    for (;;) {
        struct epoll_event evs[32];
        int n;

        busy = 0;
        for (int i = 0; i < iface->world_size; i++) {
            tcp_ep_t *ep = iface->peers[i];

            if (ep == NULL || !conn_busy(ep))
                continue;
            busy++;
            /* all output written: BYE, then our EOF behind it */
            if (ep->state == TCP_CONN_UP && ep->bye_sent == 0 && ep->tx_tail == ep->tx_head &&
                tcp_send_frame_raw(ep, TCP_FRAME_BYE) == RTM_OK)
                ep->bye_sent = 1;
            if (ep->state == TCP_CONN_UP && ep->bye_sent == 1 && ep->tx_tail == ep->tx_head) {
                shutdown(ep->fd, SHUT_WR);
                ep->bye_sent = 2;
            }
        }
        if (busy == 0 || tcp_now_ms() > deadline)
            break;
        n = epoll_wait(iface->epfd, evs, 32, 10);
        for (int i = 0; i < n; i++)
            tcp_dispatch(iface, &evs[i]);
    }
    rtm_debug("tcp: rank %d closed; simultaneous connects resolved: %lu refused, %lu replaced",
              iface->world_rank, iface->stat_refused, iface->stat_replaced);
    if (busy > 0)
        rtm_debug("tcp: rank %d: %d connection(s) not closed in order within %d s",
                  iface->world_rank, busy, TCP_CLOSE_WAIT_MS / 1000);
}
