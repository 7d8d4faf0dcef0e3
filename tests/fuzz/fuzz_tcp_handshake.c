/*
 * Fuzz target: the tcp transport's handshake as today's tcp_conn.c checks
 * it (hs_valid, in tcp_accept_ready and tcp_conn_hs_reply), through the
 * sockets of tests/fuzz/fuzz_tcp.h, and the frames behind it. The input:
 * u8 mode, then the harness's records:
 *   mode even  a stranger connects to the listening socket: its first 88
 *              bytes must be a HELLO of this job from another rank; then
 *              the connection is adopted and the rest is frames
 *   mode odd   rank 1 connected to rank (mode / 2) % 3 mapped to 0, 2, 3
 *              and waits for the ACK or NACK, then frames
 * Once the handshake becomes a pure parse-and-verify function (the tcp
 * authentication work, tcp_hs_check), that function is what this target
 * calls on the input, with the expected ranks, job and nonces, and these
 * socket paths stay for the frames behind it.
 */
#include "config.h"

#include "tests/fuzz/fuzz_tcp.h"

static int listen_fd = -1;
static struct sockaddr_un listen_addr;
static socklen_t listen_addr_len;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* abstract name: nothing on the file system, nobody else's */
    memset(&listen_addr, 0, sizeof(listen_addr));
    listen_addr.sun_family = AF_UNIX;
    snprintf(listen_addr.sun_path + 1, sizeof(listen_addr.sun_path) - 1, "rtm-fuzz-tcp-%d",
             (int)getpid());
    listen_addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
                                  strlen(listen_addr.sun_path + 1));
    listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&listen_addr, listen_addr_len) != 0 ||
        listen(listen_fd, 16) != 0) {
        perror("fuzz_tcp_handshake: listening socket");
        exit(1);
    }
    return 0;
}

/* A stranger's connection to the listening port. */
static void accepted(tcp_iface_t *iface, fz_in_t *in)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = TCP_EV(TCP_EV_LISTEN, 0)};
    int fd, left;

    if (epoll_ctl(iface->epfd, EPOLL_CTL_ADD, listen_fd, &ev) != 0)
        return;
    iface->listen_fd = listen_fd;
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    if (connect(fd, (struct sockaddr *)&listen_addr, listen_addr_len) == 0)
        fz_feed(iface, fd, in);
    close(fd);
    fz_progress(iface, -1);
    /* nothing stays queued for the next input */
    while ((left = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC)) >= 0)
        close(left);
    for (int i = 0; i < FZ_WORLD; i++) {
        tcp_ep_t *ep = iface->peers[i];

        if (ep != NULL)
            FZ_CHECK(i != FZ_RANK && ep->state != TCP_CONN_CONNECTING);
    }
    FZ_CHECK(iface->num_accepts >= 0 && iface->num_accepts <= TCP_ACCEPT_SLOTS);
    FZ_CHECK(fz_failed_peers <= 1);
}

/* Our connection to a peer, waiting for its answer to our HELLO. */
static void connected(tcp_iface_t *iface, int peer, fz_in_t *in)
{
    tcp_ep_t *ep = tcp_peer_get(iface, peer);
    int fds[2];

    if (ep == NULL || fz_socketpair(fds) != 0)
        return;
    if (fz_ep_attach(iface, ep, fds[0]) != 0) {
        close(fds[0]);
        close(fds[1]);
        return;
    }
    /* as tcp_conn_connected leaves it: the lower rank's connection wins */
    ep->state = FZ_RANK < peer ? TCP_CONN_UP : TCP_CONN_WAIT_ACK;
    ep->rx_need_hs = 1;
    fz_feed(iface, fds[1], in);
    close(fds[1]);
    fz_progress(iface, -1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int peers[3] = {0, 2, 3};
    fz_in_t in = fz_in(data, size);
    tcp_iface_t *iface = fz_iface_new();
    unsigned mode = fz_u8(&in);

    if (iface == NULL)
        return 0;
    if (mode % 2 == 0)
        accepted(iface, &in);
    else
        connected(iface, peers[(mode / 2) % 3], &in);
    fz_iface_free(iface);
    return 0;
}
