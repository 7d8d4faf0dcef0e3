/*
 * tcp transport, the message path: framing (tcp.h), the bounded per-peer
 * send ring, reassembly in the per-connection receive buffer, and progress.
 *
 * am_send writes straight from the caller's buffers when nothing is queued
 * ahead (one sendmsg, no copy); what the socket does not take is copied
 * into the ring and written by progress. A full ring is RTM_ERR_AGAIN.
 * Receiving, one recv takes as many frames as the socket holds; each whole
 * frame is delivered in place (8-byte aligned) to the runtime.
 */
#include "config.h"

#include "transport/tcp/tcp.h"
#include "common/error.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>

static const unsigned char zero_pad[8];

static inline size_t tx_used(const tcp_ep_t *ep)
{
    return (size_t)(ep->tx_tail - ep->tx_head);
}

/* Append the bytes of iov[] from offset skip on to the ring (which has room). */
static void tx_put_iov(tcp_ep_t *ep, const struct iovec *iov, int cnt, size_t skip)
{
    size_t size = ep->tx_mask + 1;

    for (int i = 0; i < cnt; i++) {
        const unsigned char *src = iov[i].iov_base;
        size_t n = iov[i].iov_len;

        if (skip >= n) {
            skip -= n;
            continue;
        }
        src += skip;
        n -= skip;
        skip = 0;
        while (n > 0) {
            size_t off = (size_t)(ep->tx_tail & ep->tx_mask);
            size_t chunk = size - off < n ? size - off : n;

            memcpy(ep->tx + off, src, chunk);
            ep->tx_tail += chunk;
            src += chunk;
            n -= chunk;
        }
    }
}

/* Write what the ring holds. Returns -1 once the peer is lost.
 * Hot path under back-pressure: no allocation, lock or log (but a failure). */
int tcp_tx_flush(tcp_ep_t *ep)
{
    while (tx_used(ep) > 0) {
        size_t off = (size_t)(ep->tx_head & ep->tx_mask);
        size_t used = tx_used(ep);
        size_t first = ep->tx_mask + 1 - off;
        struct iovec iov[2];
        struct msghdr msg;
        ssize_t n;

        memset(&msg, 0, sizeof(msg));
        msg.msg_iov = iov;
        iov[0].iov_base = ep->tx + off;
        if (first >= used) {
            iov[0].iov_len = used;
            msg.msg_iovlen = 1;
        } else {
            iov[0].iov_len = first;
            iov[1].iov_base = ep->tx;
            iov[1].iov_len = used - first;
            msg.msg_iovlen = 2;
        }
        n = sendmsg(ep->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            ep->tx_head += (uint64_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            tcp_set_pollout(ep, 1);
            return 0;
        }
        tcp_conn_fail(ep, NULL, n < 0 ? errno : EPIPE);
        return -1;
    }
    tcp_set_pollout(ep, 0);
    return 0;
}

/* Not connected yet, failed, closed, or output queued ahead. */
static rtm_status_t am_send_slow(tcp_ep_t *ep, struct iovec *iov, int cnt, size_t frame)
{
    switch (ep->state) {
    case TCP_CONN_FAILED:
        return rtm_error_set(RTM_ERR_TRANSPORT, "%s", ep->err);
    case TCP_CONN_CLOSED:
        /* the peer finalized (BYE): it needs nothing more from us */
        return RTM_OK;
    case TCP_CONN_IDLE:
        if (tcp_conn_start(ep) != RTM_OK)
            return rtm_error_set(RTM_ERR_TRANSPORT, "%s", ep->err);
        break;
    case TCP_CONN_UP:
        if (tx_used(ep) > 0 && tcp_tx_flush(ep) != 0)
            return rtm_error_set(RTM_ERR_TRANSPORT, "%s", ep->err);
        break;
    default:
        break;
    }
    if (ep->tx_mask + 1 - tx_used(ep) < frame)
        return RTM_ERR_AGAIN;
    tx_put_iov(ep, iov, cnt, 0);
    if (ep->state == TCP_CONN_UP && tx_used(ep) == frame)
        tcp_tx_flush(ep);   /* the ring was empty: the socket may take it now */
    return RTM_OK;
}

/* Hot path: no allocation, lock or log. */
rtm_status_t tcp_am_send(rtm_tl_ep_t *tl_ep, unsigned am_id, const void *hdr, size_t hdr_len,
                         const void *payload, size_t len)
{
    tcp_ep_t *ep = tcp_ep_of(tl_ep);
    size_t msg_len = hdr_len + len;
    tcp_frame_hdr_t fh;
    struct iovec iov[4];
    struct msghdr msg;
    size_t frame;
    ssize_t n;

    if (__builtin_expect(ep == NULL || msg_len > TCP_AM_MAX || am_id >= RTM_TL_AM_ID_MAX ||
                             (hdr == NULL && hdr_len > 0) || (payload == NULL && len > 0), 0))
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "tcp am_send: am_id %u, %zu B of header + %zu B of payload; the "
                             "limits are am_id < %d and %u B in all",
                             am_id, hdr_len, len, RTM_TL_AM_ID_MAX, TCP_AM_MAX);
    fh.len = (uint32_t)msg_len;
    fh.am_id = (uint8_t)am_id;
    fh.type = TCP_FRAME_AM;
    fh.check = TCP_FRAME_CHECK;
    iov[0].iov_base = &fh;
    iov[0].iov_len = sizeof(fh);
    iov[1].iov_base = (void *)(uintptr_t)hdr;
    iov[1].iov_len = hdr_len;
    iov[2].iov_base = (void *)(uintptr_t)payload;
    iov[2].iov_len = len;
    iov[3].iov_base = (void *)(uintptr_t)zero_pad;
    iov[3].iov_len = TCP_PAD8(msg_len) - msg_len;
    frame = sizeof(fh) + TCP_PAD8(msg_len);

    if (__builtin_expect(ep->state != TCP_CONN_UP || ep->tx_tail != ep->tx_head, 0))
        return am_send_slow(ep, iov, 4, frame);

    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = iov;
    msg.msg_iovlen = 4;
    do {
        n = sendmsg(ep->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (__builtin_expect(n == (ssize_t)frame, 1))
        return RTM_OK;
    if (n < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            tcp_conn_fail(ep, NULL, errno);
            return rtm_error_set(RTM_ERR_TRANSPORT, "%s", ep->err);
        }
        n = 0;
    }
    /* the rest waits in the ring, which was empty and holds two frames */
    tx_put_iov(ep, iov, 4, (size_t)n);
    tcp_set_pollout(ep, 1);
    return RTM_OK;
}

/* A BYE (or other bodiless frame) through the ring; close() only. */
rtm_status_t tcp_send_frame_raw(tcp_ep_t *ep, unsigned type)
{
    tcp_frame_hdr_t fh = {0, 0, (uint8_t)type, TCP_FRAME_CHECK};
    struct iovec iov = {&fh, sizeof(fh)};

    if (ep->tx_mask + 1 - tx_used(ep) < sizeof(fh))
        return RTM_ERR_AGAIN;
    tx_put_iov(ep, &iov, 1, 0);
    if (ep->state == TCP_CONN_UP)
        tcp_tx_flush(ep);
    return RTM_OK;
}

/* Deliver every whole frame in the receive buffer; returns messages.
 * Hot path: no allocation, lock or log (but a corrupt stream). */
static int rx_parse(tcp_ep_t *ep)
{
    tcp_iface_t *iface = tcp_ep_iface(ep);
    int events = 0;

    while (__builtin_expect(ep->rx_need_hs != 0, 0)) {
        /* CHALLENGE, then ACK or NACK: nothing is a frame before them */
        if (ep->rx_tail - ep->rx_head < sizeof(tcp_hs_t))
            return 0;
        ep->rx_head += sizeof(tcp_hs_t);
        tcp_conn_hs_reply(ep, ep->rx + ep->rx_head - sizeof(tcp_hs_t));
        if (ep->fd < 0)
            return 0;   /* NACK, or a bad handshake */
    }
    while (ep->rx_tail - ep->rx_head >= sizeof(tcp_frame_hdr_t)) {
        const tcp_frame_hdr_t *fh = (const tcp_frame_hdr_t *)(const void *)(ep->rx + ep->rx_head);
        size_t frame;

        if (__builtin_expect(fh->check != TCP_FRAME_CHECK || fh->len > TCP_AM_MAX ||
                                 fh->am_id >= RTM_TL_AM_ID_MAX || fh->type > TCP_FRAME_BYE, 0)) {
            tcp_conn_fail(ep, "corrupt stream (bad frame header)", 0);
            return events;
        }
        frame = sizeof(*fh) + TCP_PAD8((size_t)fh->len);
        if (ep->rx_tail - ep->rx_head < frame)
            break;
        ep->rx_head += frame;
        if (fh->type == TCP_FRAME_BYE) {
            ep->bye_rcvd = 1;
            continue;
        }
        if (!iface->closing)
            iface->am_cb(iface->am_arg, ep->super.peer, fh->am_id, fh + 1, fh->len);
        events++;
        if (ep->fd < 0)
            return events;   /* the handler's send found the peer lost */
    }
    if (ep->rx_head == ep->rx_tail) {
        ep->rx_head = ep->rx_tail = 0;
    } else if (ep->rx_size - ep->rx_head < TCP_FRAME_MAX) {
        /* not enough room behind the partial frame: move it to the front */
        memmove(ep->rx, ep->rx + ep->rx_head, ep->rx_tail - ep->rx_head);
        ep->rx_tail -= ep->rx_head;
        ep->rx_head = 0;
    }
    return events;
}

/* Read what the socket holds and deliver whole frames. */
static int rx_read(tcp_ep_t *ep)
{
    int events = 0;

    for (int round = 0; round < 4 && ep->fd >= 0; round++) {
        size_t room = ep->rx_size - ep->rx_tail;
        ssize_t n = recv(ep->fd, ep->rx + ep->rx_tail, room, MSG_DONTWAIT);

        if (n == 0) {
            tcp_conn_eof(ep);
            break;
        }
        if (n < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                tcp_conn_fail(ep, NULL, errno);
            break;
        }
        ep->rx_tail += (size_t)n;
        events += rx_parse(ep);
        if ((size_t)n < room)
            break;   /* drained the socket */
    }
    return events;
}

int tcp_dispatch(tcp_iface_t *iface, const struct epoll_event *ev)
{
    unsigned kind = (unsigned)(ev->data.u64 >> 56);
    int index = (int)(uint32_t)ev->data.u64;
    tcp_ep_t *ep;
    int events = 0;

    switch (kind) {
    case TCP_EV_LISTEN:
        tcp_listen_ready(iface);
        return 1;
    case TCP_EV_ACCEPT:
        tcp_accept_ready(iface, index);
        return 1;
    case TCP_EV_PEER:
        ep = iface->peers[index];
        if (ep == NULL || ep->fd < 0)
            return 0;
        if (ep->state == TCP_CONN_CONNECTING) {
            if (ev->events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
                tcp_conn_connected(ep);
            return 1;
        }
        if (ev->events & (EPOLLIN | EPOLLERR | EPOLLHUP))
            events += rx_read(ep);
        if (ep->fd >= 0 && (ev->events & EPOLLOUT) && ep->state == TCP_CONN_UP)
            tcp_tx_flush(ep);
        return events > 0 ? events : 1;
    default:
        return 0;
    }
}

/* Hot path: no allocation, lock or log. One epoll_wait with a zero
 * timeout; a peer's failure is logged once where it is found. */
int tcp_progress(rtm_tl_iface_t *tl_iface)
{
    tcp_iface_t *iface = tcp_iface_of(tl_iface);
    struct epoll_event evs[32];
    int n, events = 0;

    if (iface->in_progress || iface->epfd < 0)
        return 0;
    if (__builtin_expect(iface->num_wait_peer > 0, 0))
        tcp_check_wait_peer(iface);
    if (__builtin_expect(iface->num_accepts > 0, 0))
        tcp_check_accepts(iface, tcp_now_ms());
    n = epoll_wait(iface->epfd, evs, 32, 0);
    if (n <= 0)
        return 0;
    iface->in_progress = 1;
    for (int i = 0; i < n; i++)
        events += tcp_dispatch(iface, &evs[i]);
    iface->in_progress = 0;
    return events;
}
