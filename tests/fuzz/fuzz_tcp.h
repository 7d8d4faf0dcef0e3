/*
 * The harness the tcp transport's fuzz targets share: an interface of rank
 * 1 of 4 built by hand (no tcp_open: no interface selection, no TCP port),
 * whose connections are sockets of this process, so the bytes of an input
 * reach the transport's own receive path (epoll, recv, reassembly,
 * handshake checks, framing) exactly as a peer's would, in chunks the input
 * chooses. Nothing is kept from one input to the next but the listening
 * socket (an abstract AF_UNIX one, drained after every input).
 *
 * The input after the target's own header is records:
 *   len16 bytes   bytes the peer writes (then the transport makes progress)
 *   0xffff        the peer closes its end (EOF), and nothing more is read
 */
#ifndef RTM_TESTS_FUZZ_TCP_H
#define RTM_TESTS_FUZZ_TCP_H

#include "transport/tcp/tcp.h"
#include "tests/fuzz/fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define FZ_RANK    1
#define FZ_WORLD   4
#define FZ_JOB_TAG 0x6a6f6221u   /* the seeds' HELLOs carry it */

static int fz_failed_peers;

/* Every message the transport delivers: whole, in bounds, aligned. A
 * message whose first byte is 0xa5 is answered at once from inside the
 * callback (the runtime may send from am_cb). */
static inline void fz_am_cb(void *arg, int src, unsigned am_id, const void *data, size_t len)
{
    tcp_iface_t *iface = arg;
    const uint8_t *p = data;
    unsigned sum = 0;

    FZ_CHECK(src >= 0 && src < FZ_WORLD && src != FZ_RANK);
    FZ_CHECK(am_id < RTM_TL_AM_ID_MAX && len <= TCP_AM_MAX);
    FZ_CHECK(len == 0 || ((uintptr_t)data & 7) == 0);
    for (size_t i = 0; i < len; i++)
        sum += p[i];
    if (len > 0 && p[0] == 0xa5 && iface->peers[src] != NULL)
        tcp_am_send(&iface->peers[src]->super, am_id, data, len < 64 ? len : 64, NULL, 0);
    (void)sum;
}

static inline void fz_peer_failed(void *arg, int peer, rtm_status_t status, const char *msg)
{
    (void)arg;
    (void)status;
    FZ_CHECK(peer >= 0 && peer < FZ_WORLD && msg != NULL);
    fz_failed_peers++;
}

static inline tcp_iface_t *fz_iface_new(void)
{
    tcp_iface_t *iface = calloc(1, sizeof(*iface));

    if (iface == NULL)
        return NULL;
    iface->super.ops = NULL;   /* only am_send and progress are called */
    iface->listen_fd = -1;
    for (int i = 0; i < TCP_ACCEPT_SLOTS; i++)
        iface->accepts[i].fd = -1;
    iface->am_cb = fz_am_cb;
    iface->am_arg = iface;
    iface->peer_failed = fz_peer_failed;
    iface->world_rank = FZ_RANK;
    iface->world_size = FZ_WORLD;
    iface->job_tag = FZ_JOB_TAG;
    snprintf(iface->hostname, sizeof(iface->hostname), "fuzzhost");
    iface->peers = calloc(FZ_WORLD, sizeof(*iface->peers));
    iface->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (iface->peers == NULL || iface->epfd < 0) {
        free(iface->peers);
        if (iface->epfd >= 0)
            close(iface->epfd);
        free(iface);
        return NULL;
    }
    fz_failed_peers = 0;
    return iface;
}

/* What tcp_close frees, without its orderly close (which waits for BYEs). */
static inline void fz_iface_free(tcp_iface_t *iface)
{
    for (int i = 0; i < FZ_WORLD; i++) {
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
    close(iface->epfd);
    free(iface->peers);
    free(iface);
}

/* A connected pair of non-blocking stream sockets: [0] the transport's. */
static inline int fz_socketpair(int fds[2])
{
    return socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds);
}

/* Progress until nothing happens (bounded), reading and dropping what the
 * transport wrote to the peer, so its sends never stall. */
static inline void fz_progress(tcp_iface_t *iface, int peer_fd)
{
    char sink[4096];

    for (int i = 0; i < 64; i++) {
        while (peer_fd >= 0 && recv(peer_fd, sink, sizeof(sink), MSG_DONTWAIT) > 0)
            ;
        if (tcp_progress(&iface->super) == 0)
            break;
    }
}

/* The records of the input, written by the peer on peer_fd. */
static inline void fz_feed(tcp_iface_t *iface, int peer_fd, fz_in_t *in)
{
    while (in->left > 0) {
        size_t len = fz_u8(in);
        const uint8_t *p;
        size_t off = 0;

        len |= (size_t)fz_u8(in) << 8;
        if (len == 0xffff) {
            shutdown(peer_fd, SHUT_WR);
            fz_progress(iface, peer_fd);
            return;
        }
        len = fz_bytes(in, len, &p);
        while (off < len) {
            ssize_t n = send(peer_fd, p + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);

            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
                return;   /* the transport closed its end */
            if (n > 0)
                off += (size_t)n;
            else if (tcp_progress(&iface->super) == 0)
                return;   /* full, and nobody reads: the transport stopped */
        }
        fz_progress(iface, peer_fd);
    }
}

/* Register fd as the connection of ep (as tcp_conn.c does). */
static inline int fz_ep_attach(tcp_iface_t *iface, tcp_ep_t *ep, int fd)
{
    struct epoll_event ev;

    ev.events = EPOLLIN;
    ev.data.u64 = TCP_EV(TCP_EV_PEER, ep->super.peer);
    if (epoll_ctl(iface->epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
        return -1;
    ep->fd = fd;
    return 0;
}

#endif
