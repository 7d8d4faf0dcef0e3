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

/* A handshake message of ours to peer_rank (nonce and MAC zero). */
static void hs_make(const tcp_iface_t *iface, tcp_hs_t *hs, unsigned type, int peer_rank)
{
    tcp_hs_fill(hs, type, iface->world_rank, iface->world_size, peer_rank, iface->hostname);
}

/* Handshakes are the first bytes each way on a fresh socket, one at a
 * time: they always fit its send buffer, so a short write is an error. */
static int hs_send(int fd, const tcp_hs_t *hs)
{
    ssize_t n;

    do {
        n = send(fd, hs, sizeof(*hs), MSG_NOSIGNAL | MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (n == (ssize_t)sizeof(*hs))
        return 0;
    return n < 0 ? errno : EAGAIN;
}

static int hs_send_type(const tcp_iface_t *iface, int fd, unsigned type, int peer_rank)
{
    tcp_hs_t hs;

    hs_make(iface, &hs, type, peer_rank);
    return hs_send(fd, &hs);
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
    if (err == 0) {
        tcp_hs_t hello;

        hs_make(tcp_ep_iface(ep), &hello, TCP_HS_HELLO, ep->super.peer);
        if (rtm_auth_nonce(ep->hs_nonce) != 0) {
            conn_fail_msg(ep, "no random source for the tcp handshake with rank %d (%s)",
                          ep->super.peer, peer_host(ep));
            return;
        }
        memcpy(hello.nonce, ep->hs_nonce, sizeof(hello.nonce));
        err = hs_send(ep->fd, &hello);
    }
    if (err != 0) {
        rtm_debug("tcp: connect to rank %d at %s:%u: %s", ep->super.peer,
                  inet_ntoa(ep->addrs[ep->next_addr - 1].sin_addr),
                  ntohs(ep->addrs[ep->next_addr - 1].sin_port), strerror(err));
        conn_drop_fd(ep);
        conn_set_state(ep, TCP_CONN_IDLE);
        tcp_conn_start(ep);   /* the next address, or the peer's failure */
        return;
    }
    /* nothing but the handshake until the peer proved the secret */
    ep->rx_head = ep->rx_tail = 0;
    ep->rx_need_hs = TCP_HS_CHALLENGE;
    conn_set_state(ep, TCP_CONN_WAIT_CHALLENGE);
    tcp_set_pollout(ep, 0);
}

/* The peer's CHALLENGE: check its proof, send ours. */
static void conn_challenge(tcp_ep_t *ep, const void *buf)
{
    tcp_iface_t *iface = tcp_ep_iface(ep);
    tcp_hs_expect_t want = {&iface->secret, iface->world_rank, iface->world_size,
                            TCP_HS_CHALLENGE, ep->super.peer, ep->hs_nonce, NULL};
    tcp_hs_t hs, proof;
    tcp_hs_verdict_t verdict = tcp_hs_check(&want, buf, sizeof(tcp_hs_t), &hs);
    int err;

    if (verdict != TCP_HS_OK) {
        const struct sockaddr_in *sa = &ep->addrs[ep->next_addr > 0 ? ep->next_addr - 1 : 0];

        conn_fail_msg(ep, "rank %d (%s) at %s:%u answered our connection with %s (another "
                      "job's process on that address?)", ep->super.peer, peer_host(ep),
                      inet_ntoa(sa->sin_addr), ntohs(sa->sin_port), tcp_hs_verdict_str(verdict));
        return;
    }
    if (ep->hostname[0] == '\0')
        snprintf(ep->hostname, sizeof(ep->hostname), "%s", hs.hostname);
    hs_make(iface, &proof, TCP_HS_PROOF, ep->super.peer);
    tcp_hs_mac(&iface->secret, TCP_HS_ROLE_CONNECTOR, iface->world_rank, ep->super.peer,
               iface->world_size, ep->hs_nonce, hs.nonce, proof.mac);
    err = hs_send(ep->fd, &proof);
    if (err != 0) {
        tcp_conn_fail(ep, NULL, err);
        return;
    }
    ep->rx_need_hs = TCP_HS_ACK;
    if (iface->world_rank < ep->super.peer) {
        /* ours wins: data may follow the PROOF at once */
        conn_up(ep);
        if (ep->state == TCP_CONN_UP && ep->tx_tail == ep->tx_head)
            tcp_set_pollout(ep, 0);
    } else {
        conn_set_state(ep, TCP_CONN_WAIT_ACK);
    }
}

/* The ACK or NACK to our PROOF. */
static void conn_verdict(tcp_ep_t *ep, const void *buf)
{
    tcp_iface_t *iface = tcp_ep_iface(ep);
    tcp_hs_expect_t want = {&iface->secret, iface->world_rank, iface->world_size, TCP_HS_ACK,
                            ep->super.peer, NULL, NULL};
    tcp_hs_t hs;
    tcp_hs_verdict_t verdict = tcp_hs_check(&want, buf, sizeof(tcp_hs_t), &hs);

    if (verdict != TCP_HS_OK) {
        conn_fail_msg(ep, "rank %d (%s) answered our connection with %s", ep->super.peer,
                      peer_host(ep), tcp_hs_verdict_str(verdict));
        return;
    }
    ep->rx_need_hs = 0;
    if (hs.type == TCP_HS_ACK) {
        if (ep->state == TCP_CONN_WAIT_ACK)
            conn_up(ep);
        return;
    }
    /* NACK: the lower rank connects to us; keep the queue for its connection */
    conn_drop_fd(ep);
    ep->wait_since_ms = tcp_now_ms();
    conn_set_state(ep, TCP_CONN_WAIT_PEER);
}

void tcp_conn_hs_reply(tcp_ep_t *ep, const void *buf)
{
    if (ep->rx_need_hs == TCP_HS_CHALLENGE)
        conn_challenge(ep, buf);
    else
        conn_verdict(ep, buf);
}

/* Close an accepted socket still in its handshake. why != NULL: a
 * refusal, said once with the peer's address (claim: the rank its HELLO
 * claimed, -1 if none); NULL: an ordinary end (a peer that dropped its
 * attempt for ours), in the debug log only. */
static void accept_refuse(tcp_iface_t *iface, int slot, const char *why, int claim)
{
    tcp_accept_slot_t *a = &iface->accepts[slot];
    char claimed[48] = "";

    if (claim >= 0)
        snprintf(claimed, sizeof(claimed), " (its HELLO claimed rank %d)", claim);
    if (why != NULL)
        rtm_warn("tcp: rank %d (%s): refused a connection from %s:%u: %s%s", iface->world_rank,
                 iface->hostname, inet_ntoa(a->from.sin_addr), ntohs(a->from.sin_port), why,
                 claimed);
    else
        rtm_debug("tcp: rank %d: a connection from %s:%u closed in its handshake",
                  iface->world_rank, inet_ntoa(a->from.sin_addr), ntohs(a->from.sin_port));
    epoll_ctl(iface->epfd, EPOLL_CTL_DEL, a->fd, NULL);
    close(a->fd);
    a->fd = -1;
    iface->num_accepts--;
}

/* New connections. All slots taken (a flood of strangers, each costing
 * us nothing but a slot): the oldest handshake goes, so a legitimate peer,
 * which answers at once, always gets in. */
void tcp_listen_ready(tcp_iface_t *iface)
{
    for (int round = 0; round < TCP_ACCEPT_SLOTS; round++) {
        struct sockaddr_in from;
        socklen_t from_len = sizeof(from);
        struct epoll_event ev;
        int one = 1;
        int slot = 0;
        int fd;

        memset(&from, 0, sizeof(from));
        fd = accept4(iface->listen_fd, (struct sockaddr *)&from, &from_len,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;   /* EAGAIN, or an aborted connection: nothing to do */
        if (iface->num_accepts == TCP_ACCEPT_SLOTS) {
            int oldest = 0;

            for (int i = 1; i < TCP_ACCEPT_SLOTS; i++)
                if (iface->accepts[i].since_ms < iface->accepts[oldest].since_ms)
                    oldest = i;
            accept_refuse(iface, oldest, "the oldest of too many connections in their "
                          "handshake", -1);
        }
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
        iface->accepts[slot].stage = 0;
        iface->accepts[slot].got = 0;
        iface->accepts[slot].since_ms = tcp_now_ms();
        iface->accepts[slot].from = from;
        iface->num_accepts++;
    }
}

/* Handshakes past their deadline are refused (checked about once a second
 * while any is pending). */
void tcp_check_accepts(tcp_iface_t *iface, uint64_t now)
{
    if (now < iface->accepts_check_ms)
        return;
    iface->accepts_check_ms = now + 1000;
    for (int i = 0; i < TCP_ACCEPT_SLOTS; i++)
        if (iface->accepts[i].fd >= 0 && now - iface->accepts[i].since_ms > TCP_HS_DEADLINE_MS)
            accept_refuse(iface, i, "no complete handshake within the deadline", -1);
}

/* A whole HELLO: answer with our CHALLENGE. 0: go on. */
static int accept_hello(tcp_iface_t *iface, int slot)
{
    tcp_accept_slot_t *a = &iface->accepts[slot];
    tcp_hs_expect_t want = {&iface->secret, iface->world_rank, iface->world_size, TCP_HS_HELLO,
                            -1, NULL, NULL};
    tcp_hs_verdict_t verdict = tcp_hs_check(&want, &a->in, sizeof(a->in), &a->hello);
    tcp_hs_t challenge;

    if (verdict != TCP_HS_OK) {
        accept_refuse(iface, slot, tcp_hs_verdict_str(verdict), -1);
        return -1;
    }
    if (rtm_auth_nonce(a->nonce_a) != 0) {
        accept_refuse(iface, slot, "no random source for a challenge", a->hello.world_rank);
        return -1;
    }
    hs_make(iface, &challenge, TCP_HS_CHALLENGE, a->hello.world_rank);
    memcpy(challenge.nonce, a->nonce_a, sizeof(challenge.nonce));
    tcp_hs_mac(&iface->secret, TCP_HS_ROLE_ACCEPTOR, a->hello.world_rank, iface->world_rank,
               iface->world_size, a->hello.nonce, a->nonce_a, challenge.mac);
    if (hs_send(a->fd, &challenge) != 0) {
        accept_refuse(iface, slot, NULL, -1);
        return -1;
    }
    a->stage = 1;
    return 0;
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

/* Bytes of a handshake on an accepted socket: HELLO, then PROOF; once the
 * peer proved the secret, apply the connection rule. */
void tcp_accept_ready(tcp_iface_t *iface, int slot)
{
    tcp_accept_slot_t *a = &iface->accepts[slot];
    tcp_hs_expect_t want;
    tcp_hs_verdict_t verdict;
    tcp_ep_t *ep;
    struct epoll_event ev;
    ssize_t n;
    int peer, err;

    if (slot < 0 || slot >= TCP_ACCEPT_SLOTS || a->fd < 0)
        return;
    /* one message at a time: data the peer sent behind its PROOF stays in
     * the socket for the connection's receive buffer */
    n = recv(a->fd, (char *)&a->in + a->got, sizeof(a->in) - a->got, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        /* between messages: a peer that dropped its attempt for ours */
        accept_refuse(iface, slot, a->got > 0 ? "closed in the middle of a handshake message"
                                              : NULL,
                      a->stage ? a->hello.world_rank : -1);
        return;
    }
    a->got += (size_t)n;
    if (a->got < sizeof(a->in))
        return;
    a->got = 0;
    if (a->stage == 0) {
        accept_hello(iface, slot);
        return;
    }
    peer = a->hello.world_rank;
    want = (tcp_hs_expect_t){&iface->secret, iface->world_rank, iface->world_size,
                             TCP_HS_PROOF, peer, a->hello.nonce, a->nonce_a};
    verdict = tcp_hs_check(&want, &a->in, sizeof(a->in), NULL);
    if (verdict != TCP_HS_OK) {
        accept_refuse(iface, slot, tcp_hs_verdict_str(verdict), peer);
        return;
    }
    ep = tcp_peer_get(iface, peer);
    if (ep == NULL) {
        accept_slot_free(iface, slot, 1);
        return;
    }
    if (ep->hostname[0] == '\0')
        snprintf(ep->hostname, sizeof(ep->hostname), "%.*s", TCP_HOST_MAX - 1, a->hello.hostname);
    if (ep->state == TCP_CONN_FAILED || ep->state == TCP_CONN_CLOSED ||
        (peer < iface->world_rank && ep->state == TCP_CONN_UP)) {
        /* impossible under the rule unless the peer restarted: keep ours */
        accept_slot_free(iface, slot, 1);
        return;
    }
    if (peer > iface->world_rank && ep->state != TCP_CONN_IDLE) {
        /* we are the lower rank and have our own connection: it wins */
        hs_send_type(iface, a->fd, TCP_HS_NACK, peer);
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
    err = hs_send_type(iface, ep->fd, TCP_HS_ACK, peer);
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
    case TCP_CONN_WAIT_CHALLENGE:
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
