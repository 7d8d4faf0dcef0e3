/*
 * softib wire: slots in the shared directory, the Unix datagram socket and
 * TCP connections that carry packets (format in softib.h), peers' shared
 * pages, and fault injection.
 *
 * Files in SOFTIB_DIR (default /tmp/softib-<uid>), per device:
 *   <slot>.stream Unix stream listener: peers on this machine connect here
 *                 (socket files work across network namespaces).
 *   <slot>.sock   Unix datagram socket: owns the slot (a slot whose socket
 *                 refuses connections belongs to a dead process and is
 *                 reused) and takes packets when a stream cannot be opened.
 *   <slot>.dev    struct sib_shared, mapped by peers (MR/QP tables, pid,
 *                 network namespace, TCP port and addresses, doorbell).
 *   lock          flock()ed while a slot is allocated.
 *
 * Links: one connection per direction and peer carries the packets back to
 * back (the header's len frames them). It is a Unix stream, or TCP when
 * SOFTIB_TRANSPORT=tcp, or when SOFTIB_TRANSPORT=auto (default) and the peer
 * lives in another network namespace and one of its addresses answers on its
 * TCP port (SOFTIB_TRANSPORT=unix never uses TCP). Streams buffer megabytes
 * where datagram queues hold ten packets. A sender rings the receiver's
 * doorbell (in its shared page) after each packet, so an idle poll costs no
 * system call; TCP peers ring none and are read on every poll.
 *
 * SOFTIB_FAULT: comma-separated
 *   cut=<lid>[@<n>]   after n packets to it (default 0), drop every packet
 *                     to and from that peer; <lid> "all" cuts every peer
 *   delay=<usec>[@<lid>]  hold every packet (to lid, or to all) that long;
 *                     also turns off one-sided process_vm access
 *   rnr=<n>|always    NAK the first n incoming sends (or all) with RNR
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "softib.h"

#define SIB_RX_SIZE (sizeof(struct sib_pkt_hdr) + SIB_FRAG + 256)

static const char *sib_transport(void)
{
    const char *s = getenv("SOFTIB_TRANSPORT");

    return s ? s : "auto";
}

void sib_fault_parse(struct sib_fault *f, const char *spec)
{
    char buf[256], *save = NULL;

    memset(f, 0, sizeof(*f));
    f->cut_slot = -1;
    if (!spec || !*spec)
        return;
    snprintf(buf, sizeof(buf), "%s", spec);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *at = strchr(t, '@');

        if (!strncmp(t, "cut=", 4)) {
            f->cut_slot = !strncmp(t + 4, "all", 3) || t[4] == '*'
                              ? 0 : atoi(t + 4);
            f->cut_after = at ? strtoull(at + 1, NULL, 0) : 0;
        } else if (!strncmp(t, "delay=", 6)) {
            f->delay_ns = strtoull(t + 6, NULL, 0) * 1000;
            f->delay_slot = at ? atoi(at + 1) : 0;
        } else if (!strncmp(t, "rnr=", 4)) {
            f->rnr_count = !strcmp(t + 4, "always") ? -1 : atol(t + 4);
        } else {
            fprintf(stderr, "softib: SOFTIB_FAULT: ignoring '%s'\n", t);
        }
    }
}

bool sib_fault_cut(struct sib_dev *dev, uint16_t slot)
{
    struct sib_peer *p;

    if (dev->fault.cut_slot < 0 ||
        (dev->fault.cut_slot && dev->fault.cut_slot != slot))
        return false;
    p = dev->peers[slot];
    return !p || p->sent >= dev->fault.cut_after;
}

static bool sib_fault_delayed(struct sib_dev *dev, uint16_t slot)
{
    return dev->fault.delay_ns &&
           (!dev->fault.delay_slot || dev->fault.delay_slot == slot);
}

/* ------------------------------------------------------------ our slot */

static void sib_path(const struct sib_dev *dev, char *buf, size_t len,
                     unsigned slot, const char *ext)
{
    if (!strcmp(ext, "sock"))
        snprintf(buf, len, "%.80s/%u.sock", dev->dir, slot % 10000);
    else if (!strcmp(ext, "stream"))
        snprintf(buf, len, "%.80s/%u.stream", dev->dir, slot % 10000);
    else
        snprintf(buf, len, "%.80s/%u.dev", dev->dir, slot % 10000);
}

static void sib_bufsize(int fd)
{
    int sz = 4 << 20;

    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)))
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
}

static int sib_unix_listen(struct sib_dev *dev)
{
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return -1;
    sib_path(dev, sun.sun_path, sizeof(sun.sun_path), dev->slot, "stream");
    unlink(sun.sun_path); /* a dead owner's; we own the slot now */
    if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) || listen(fd, 128)) {
        close(fd);
        return -1;
    }
    snprintf(dev->stream_path, sizeof(dev->stream_path), "%s", sun.sun_path);
    dev->unix_listen = fd;
    return 0;
}

static int sib_bind_slot(struct sib_dev *dev, int sock, unsigned slot)
{
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    int probe, rc;

    sib_path(dev, sun.sun_path, sizeof(sun.sun_path), slot, "sock");
    if (bind(sock, (struct sockaddr *)&sun, sizeof(sun)) == 0)
        return 0;
    if (errno != EADDRINUSE)
        return -errno;
    /* stale? a live owner's socket accepts a connect() */
    probe = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (probe < 0)
        return -errno;
    rc = connect(probe, (struct sockaddr *)&sun, sizeof(sun));
    close(probe);
    if (rc == 0 || errno != ECONNREFUSED)
        return -EADDRINUSE;
    unlink(sun.sun_path);
    if (bind(sock, (struct sockaddr *)&sun, sizeof(sun)) == 0)
        return 0;
    return -errno;
}

static void sib_fill_addrs(struct sib_dev *dev, struct sib_shared *sh)
{
    struct ifaddrs *ifa, *i;
    struct stat st;

    if (stat("/proc/self/ns/net", &st) == 0)
        sh->netns = st.st_ino;
    if (dev->tcp_listen < 0 || getifaddrs(&ifa))
        return;
    for (i = ifa; i && sh->n_ipv4 < 8; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
            continue;
        sh->ipv4[sh->n_ipv4++] =
            ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
    }
    freeifaddrs(ifa);
}

static int sib_tcp_listen(struct sib_dev *dev)
{
    struct sockaddr_in sin = {.sin_family = AF_INET};
    socklen_t len = sizeof(sin);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return -1;
    if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 64) ||
        getsockname(fd, (struct sockaddr *)&sin, &len)) {
        close(fd);
        return -1;
    }
    dev->tcp_listen = fd;
    return sin.sin_port;
}

int sib_wire_open(struct sib_dev *dev)
{
    const char *dir = getenv("SOFTIB_DIR");
    char path[300];
    int lockfd, fd, port = 0;
    unsigned start, slot = 0;
    uint64_t nonce;

    if (dir && strlen(dir) >= 80) {
        fprintf(stderr, "softib: SOFTIB_DIR must be shorter than 80 bytes "
                "(Unix socket paths are limited): %s\n", dir);
        return -1;
    }
    if (dir && *dir)
        snprintf(dev->dir, sizeof(dev->dir), "%s", dir);
    else
        snprintf(dev->dir, sizeof(dev->dir), "/tmp/softib-%u",
                 (unsigned)getuid());
    if (mkdir(dev->dir, 0700) && errno != EEXIST) {
        fprintf(stderr, "softib: cannot create %s: %s\n", dev->dir,
                strerror(errno));
        return -1;
    }
    dev->rx_buf = malloc(SIB_RX_SIZE);
    dev->sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (!dev->rx_buf || dev->sock < 0)
        goto err;
    sib_bufsize(dev->sock);

    snprintf(path, sizeof(path), "%s/lock", dev->dir);
    lockfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lockfd < 0 || flock(lockfd, LOCK_EX)) {
        fprintf(stderr, "softib: cannot lock %s: %s\n", path, strerror(errno));
        goto err;
    }
    start = (unsigned)getpid() % SIB_MAX_SLOT;
    for (unsigned i = 0; i < SIB_MAX_SLOT; i++) {
        unsigned s = (start + i) % SIB_MAX_SLOT + 1;

        if (sib_bind_slot(dev, dev->sock, s) == 0) {
            slot = s;
            break;
        }
    }
    if (!slot) {
        fprintf(stderr, "softib: no free slot in %s\n", dev->dir);
        close(lockfd);
        goto err;
    }
    dev->slot = (uint16_t)slot;
    sib_path(dev, dev->sock_path, sizeof(dev->sock_path), slot, "sock");
    sib_path(dev, dev->shm_path, sizeof(dev->shm_path), slot, "dev");
    /* a new inode, so peers still mapping a dead owner's page notice */
    unlink(dev->shm_path);
    fd = open(dev->shm_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (sib_unix_listen(dev))
        fprintf(stderr, "softib: no stream listener: %s\n", strerror(errno));
    close(lockfd);
    if (fd < 0 || ftruncate(fd, sizeof(struct sib_shared))) {
        fprintf(stderr, "softib: cannot create %s: %s\n", dev->shm_path,
                strerror(errno));
        if (fd >= 0)
            close(fd);
        goto err_unlink;
    }
    dev->shared = mmap(NULL, sizeof(struct sib_shared), PROT_READ | PROT_WRITE,
                       MAP_SHARED, fd, 0);
    close(fd);
    if (dev->shared == MAP_FAILED) {
        dev->shared = NULL;
        goto err_unlink;
    }
    if (strcmp(sib_transport(), "unix"))
        port = sib_tcp_listen(dev);
    nonce = sib_now_ns() ^ ((uint64_t)getpid() << 32);
    dev->shared->magic = SIB_MAGIC;
    dev->shared->slot = slot;
    dev->shared->pid = getpid();
    dev->shared->incarnation = nonce;
    dev->shared->tcp_port = port > 0 ? (uint16_t)port : 0;
    sib_fill_addrs(dev, dev->shared);
    atomic_store(&dev->shared->alive, 1);
    return 0;

err_unlink:
    unlink(dev->sock_path);
    unlink(dev->shm_path);
    if (dev->unix_listen >= 0) {
        close(dev->unix_listen);
        dev->unix_listen = -1;
        unlink(dev->stream_path);
    }
err:
    if (dev->sock >= 0)
        close(dev->sock);
    dev->sock = -1;
    free(dev->rx_buf);
    dev->rx_buf = NULL;
    return -1;
}

static void sib_peer_free(struct sib_peer *p)
{
    struct sib_outpkt *o, *n;

    for (o = p->outq_head; o; o = n) {
        n = o->next;
        free(o);
    }
    if (p->shared)
        munmap(p->shared, sizeof(struct sib_shared));
    if (p->stream_fd >= 0)
        close(p->stream_fd);
    free(p);
}

void sib_wire_close(struct sib_dev *dev)
{
    if (dev->shared) {
        atomic_store(&dev->shared->alive, 0);
        munmap(dev->shared, sizeof(struct sib_shared));
        dev->shared = NULL;
        unlink(dev->shm_path);
    }
    if (dev->sock >= 0) {
        close(dev->sock);
        dev->sock = -1;
        unlink(dev->sock_path);
    }
    if (dev->unix_listen >= 0) {
        close(dev->unix_listen);
        unlink(dev->stream_path);
    }
    dev->unix_listen = -1;
    if (dev->tcp_listen >= 0)
        close(dev->tcp_listen);
    dev->tcp_listen = -1;
    for (int i = 0; i < dev->n_conn; i++) {
        close(dev->conn_in[i].fd);
        free(dev->conn_in[i].buf);
    }
    free(dev->conn_in);
    dev->conn_in = NULL;
    dev->n_conn = 0;
    for (int i = 0; i <= SIB_MAX_SLOT; i++) {
        if (dev->peers[i])
            sib_peer_free(dev->peers[i]);
        dev->peers[i] = NULL;
    }
    free(dev->rx_buf);
    dev->rx_buf = NULL;
}

/* ------------------------------------------------------------ peers */

static void sib_peer_map(struct sib_dev *dev, struct sib_peer *p)
{
    char path[300];
    struct sib_shared *sh;
    int fd;

    if (p->shared) {
        munmap(p->shared, sizeof(struct sib_shared));
        p->shared = NULL;
    }
    sib_path(dev, path, sizeof(path), p->slot, "dev");
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return;
    sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (sh == MAP_FAILED)
        return;
    if (sh->magic != SIB_MAGIC || sh->slot != p->slot) {
        munmap(sh, sizeof(*sh));
        return;
    }
    p->shared = sh;
    p->pid = sh->pid;
    p->incarnation = sh->incarnation;
}

static int sib_tcp_connect(struct sib_dev *dev, struct sib_peer *p)
{
    struct sib_shared *sh = p->shared;
    int one = 1;

    if (!sh || !sh->tcp_port)
        return -1;
    for (int i = 0; i < sh->n_ipv4 && i < 8; i++) {
        struct sockaddr_in sin = {.sin_family = AF_INET,
                                  .sin_port = sh->tcp_port};
        struct timeval tv = {.tv_sec = 1};
        int fd;

        sin.sin_addr.s_addr = sh->ipv4[i];
        /* loopback only reaches the peer in our own namespace */
        if ((ntohl(sh->ipv4[i]) >> 24) == 127 &&
            dev->shared->netns != sh->netns)
            continue;
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            continue;
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0) {
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
            return fd;
        }
        close(fd);
    }
    return -1;
}

static int sib_unix_connect(struct sib_dev *dev, struct sib_peer *p)
{
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return -1;
    sib_path(dev, sun.sun_path, sizeof(sun.sun_path), p->slot, "stream");
    sib_bufsize(fd);
    if (connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    if (p->shared) {
        atomic_fetch_add(&p->shared->conn_bell, 1);
        atomic_fetch_add(&p->shared->doorbell, 1);
    }
    return fd;
}

/* open the stream to a peer; without one, packets go as datagrams */
static void sib_peer_connect(struct sib_dev *dev, struct sib_peer *p)
{
    const char *tr = sib_transport();
    uint64_t now = sib_now_ns();

    if (p->stream_fd >= 0 || now < p->next_connect_ns)
        return;
    p->next_connect_ns = now + 10000000; /* 10 ms */
    p->is_tcp = false;
    if (p->shared && strcmp(tr, "unix") &&
        (!strcmp(tr, "tcp") || p->shared->netns != dev->shared->netns)) {
        p->stream_fd = sib_tcp_connect(dev, p);
        p->is_tcp = p->stream_fd >= 0;
    }
    if (p->stream_fd < 0)
        p->stream_fd = sib_unix_connect(dev, p);
}

static void sib_peer_broken(struct sib_peer *p)
{
    struct sib_outpkt *o, *n;

    if (p->stream_fd >= 0)
        close(p->stream_fd);
    p->stream_fd = -1;
    p->is_tcp = false;
    /* what was queued for the dead connection is lost on the wire */
    for (o = p->outq_head; o; o = n) {
        n = o->next;
        free(o);
    }
    p->outq_head = p->outq_tail = NULL;
}

struct sib_peer *sib_peer_get(struct sib_dev *dev, uint16_t slot)
{
    struct sib_peer *p;

    if (slot == 0 || slot > SIB_MAX_SLOT)
        return NULL;
    p = dev->peers[slot];
    if (p) {
        /* its owner closed the device: the slot may have a new owner */
        if (p->shared && !atomic_load_explicit(&p->shared->alive,
                                               memory_order_relaxed)) {
            sib_peer_map(dev, p);
            sib_peer_broken(p);
        }
        if (p->stream_fd < 0)
            sib_peer_connect(dev, p);
        return p;
    }
    p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->slot = slot;
    p->stream_fd = -1;
    p->sun.sun_family = AF_UNIX;
    sib_path(dev, p->sun.sun_path, sizeof(p->sun.sun_path), slot, "sock");
    p->sun_len = sizeof(p->sun);
    sib_peer_map(dev, p);
    sib_peer_connect(dev, p);
    dev->peers[slot] = p;
    return p;
}

/* ------------------------------------------------------------ sending */

static void sib_ring(struct sib_peer *p)
{
    if (p->shared && !p->is_tcp)
        atomic_fetch_add_explicit(&p->shared->doorbell, 1,
                                  memory_order_release);
}

/* 1 sent, 0 would block, -1 lost (peer gone), -2 stream broken */
static int sib_raw_send(struct sib_dev *dev, struct sib_peer *p,
                        const struct iovec *iov, int iovcnt, size_t *written)
{
    struct msghdr m = {.msg_iov = (struct iovec *)iov,
                       .msg_iovlen = (size_t)iovcnt};
    ssize_t n;

    if (p->stream_fd >= 0) {
        n = sendmsg(p->stream_fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0)
            return errno == EAGAIN ? 0 : -2;
        *written = (size_t)n;
        sib_ring(p);
        return 1;
    }
    m.msg_name = &p->sun;
    m.msg_namelen = p->sun_len;
    n = sendmsg(dev->sock, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0)
        return errno == EAGAIN || errno == ENOBUFS ? 0 : -1;
    *written = (size_t)n;
    if (p->shared)
        atomic_fetch_add_explicit(&p->shared->dgram_bell, 1,
                                  memory_order_relaxed);
    sib_ring(p);
    return 1;
}

static int sib_queue(struct sib_dev *dev, struct sib_peer *p,
                     const struct iovec *iov, int iovcnt, size_t skip,
                     uint64_t due)
{
    size_t len = 0, off = 0;
    struct sib_outpkt *o;

    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    o = malloc(sizeof(*o) + len);
    if (!o)
        return -ENOMEM;
    for (int i = 0; i < iovcnt; i++) {
        memcpy(o->data + off, iov[i].iov_base, iov[i].iov_len);
        off += iov[i].iov_len;
    }
    o->next = NULL;
    o->len = len;
    o->off = skip;
    o->due_ns = due;
    dev->have_outq = true;
    if (p->outq_tail)
        p->outq_tail->next = o;
    else
        p->outq_head = o;
    p->outq_tail = o;
    return 0;
}

static void sib_peer_flush(struct sib_dev *dev, struct sib_peer *p,
                           uint64_t now)
{
    struct sib_outpkt *o;

    while ((o = p->outq_head)) {
        struct iovec iov = {o->data + o->off, o->len - o->off};
        size_t w = 0;
        int rc;

        if (o->due_ns && o->due_ns > now)
            return;
        rc = sib_raw_send(dev, p, &iov, 1, &w);
        if (rc == 0)
            return;
        if (rc == -2) {
            sib_peer_broken(p); /* the queue goes with the connection */
            return;
        }
        if (rc > 0 && p->stream_fd >= 0 && o->off + w < o->len) {
            o->off += w;
            continue;
        }
        p->outq_head = o->next;
        if (!p->outq_head)
            p->outq_tail = NULL;
        free(o);
    }
}

void sib_wire_flush(struct sib_dev *dev)
{
    uint64_t now = sib_now_ns();
    bool left = false;

    for (int i = 1; i <= SIB_MAX_SLOT; i++) {
        struct sib_peer *p = dev->peers[i];

        if (p && p->outq_head) {
            sib_peer_flush(dev, p, now);
            left |= p->outq_head != NULL;
        }
    }
    dev->have_outq = left;
}

int sib_wire_send(struct sib_dev *dev, uint16_t slot, struct sib_pkt_hdr *hdr,
                  const struct iovec *iov, int iovcnt)
{
    struct iovec v[SIB_MAX_SGE + 2];
    struct sib_peer *p = sib_peer_get(dev, slot);
    size_t total = sizeof(*hdr), w = 0;

    dev->stats.pkts++;
    int rc;

    if (!p)
        return -EINVAL;
    hdr->src_slot = dev->slot;
    hdr->pkey = SIB_PKEY_DEFAULT;
    if (dev->trace)
        fprintf(stderr, "softib[%u] %llu tx op %u to %u qpn %#x psn %u len %u\n",
                dev->slot, (unsigned long long)(sib_now_ns() / 1000 % 100000000),
                hdr->op, slot, hdr->dst_qpn, hdr->psn, hdr->len);
    if (sib_fault_cut(dev, slot))
        return 0; /* lost on the wire */
    p->sent++;
    v[0].iov_base = hdr;
    v[0].iov_len = sizeof(*hdr);
    for (int i = 0; i < iovcnt; i++) {
        v[i + 1] = iov[i];
        total += iov[i].iov_len;
    }
    if (sib_fault_delayed(dev, slot))
        return sib_queue(dev, p, v, iovcnt + 1, 0, sib_now_ns() + dev->fault.delay_ns);
    if (p->outq_head) {
        sib_peer_flush(dev, p, sib_now_ns());
        if (p->outq_head)
            return sib_queue(dev, p, v, iovcnt + 1, 0, 0);
    }
    rc = sib_raw_send(dev, p, v, iovcnt + 1, &w);
    if (rc == -2)
        sib_peer_broken(p);
    if (rc == 0)
        return sib_queue(dev, p, v, iovcnt + 1, 0, 0);
    if (rc > 0 && p->stream_fd >= 0 && w < total)
        return sib_queue(dev, p, v, iovcnt + 1, w, 0);
    return 0; /* sent, or lost because the peer is gone */
}

/* ------------------------------------------------------------ receiving */

static bool sib_pkt_ok(const struct sib_pkt_hdr *h, size_t n)
{
    return n >= sizeof(*h) && h->len == n - sizeof(*h) && h->len <= SIB_FRAG;
}

static void sib_deliver(struct sib_dev *dev, const uint8_t *buf, size_t n)
{
    struct sib_pkt_hdr h;

    memcpy(&h, buf, sizeof(h));
    if (!sib_pkt_ok(&h, n) || h.src_slot == 0 || h.src_slot > SIB_MAX_SLOT)
        return;
    if (sib_fault_cut(dev, h.src_slot))
        return;
    if (dev->trace)
        fprintf(stderr, "softib[%u] %llu rx op %u from %u qpn %#x psn %u len %u\n",
                dev->slot, (unsigned long long)(sib_now_ns() / 1000 % 100000000),
                h.op, h.src_slot, h.dst_qpn, h.psn, h.len);
    sib_dispatch(dev, &h, buf + sizeof(h));
}

static void sib_accept(struct sib_dev *dev, int lfd, bool tcp)
{
    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        struct sib_conn_in *t;

        if (fd < 0)
            return;
        t = realloc(dev->conn_in, (size_t)(dev->n_conn + 1) * sizeof(*t));
        if (!t) {
            close(fd);
            return;
        }
        dev->conn_in = t;
        memset(&t[dev->n_conn], 0, sizeof(*t));
        t[dev->n_conn].fd = fd;
        dev->n_conn++;
        if (tcp)
            dev->have_tcp = true;
    }
}

/* read what a TCP connection has; false when it closed */
static bool sib_stream_read(struct sib_dev *dev, struct sib_conn_in *t,
                            int *count)
{
    for (;;) {
        ssize_t n;
        size_t used = 0;

        if (t->cap - t->len < SIB_RX_SIZE) {
            uint8_t *b = realloc(t->buf, t->len + 2 * SIB_RX_SIZE);

            if (!b)
                return true;
            t->buf = b;
            t->cap = t->len + 2 * SIB_RX_SIZE;
        }
        size_t room = t->cap - t->len;

        n = recv(t->fd, t->buf + t->len, room, MSG_DONTWAIT);
        if (n == 0)
            return false;
        if (n < 0)
            return errno == EAGAIN || errno == EINTR;
        t->len += (size_t)n;
        while (t->len - used >= sizeof(struct sib_pkt_hdr)) {
            struct sib_pkt_hdr h;
            size_t plen;

            memcpy(&h, t->buf + used, sizeof(h));
            if (h.len > SIB_FRAG)
                return false; /* garbage: drop the connection */
            plen = sizeof(h) + h.len;
            if (t->len - used < plen)
                break;
            sib_deliver(dev, t->buf + used, plen);
            (*count)++;
            used += plen;
        }
        memmove(t->buf, t->buf + used, t->len - used);
        t->len -= used;
        /* a short read emptied the socket; what comes later rings again */
        if ((size_t)n < room)
            return true;
    }
}

int sib_wire_poll(struct sib_dev *dev, bool force)
{
    uint32_t dbell = atomic_load(&dev->shared->dgram_bell);
    uint32_t cbell = atomic_load(&dev->shared->conn_bell);
    int count = 0;

    while (force || dbell != dev->dgram_seen) {
        ssize_t n = recv(dev->sock, dev->rx_buf, SIB_RX_SIZE, MSG_DONTWAIT);

        if (n < 0) {
            dev->dgram_seen = dbell;
            break;
        }
        sib_deliver(dev, dev->rx_buf, (size_t)n);
        count++;
    }
    if (dev->unix_listen >= 0 && (force || cbell != dev->conn_seen)) {
        dev->conn_seen = cbell;
        sib_accept(dev, dev->unix_listen, false);
    }
    if (dev->tcp_listen >= 0 && (force || dev->have_tcp))
        sib_accept(dev, dev->tcp_listen, true);
    for (int i = 0; i < dev->n_conn; i++) {
        if (!sib_stream_read(dev, &dev->conn_in[i], &count)) {
            close(dev->conn_in[i].fd);
            free(dev->conn_in[i].buf);
            dev->conn_in[i--] = dev->conn_in[--dev->n_conn];
        }
    }
    return count;
}

int sib_wire_fds(struct sib_dev *dev, int *fds, int max)
{
    int n = 0;

    if (n < max)
        fds[n++] = dev->sock;
    if (dev->unix_listen >= 0 && n < max)
        fds[n++] = dev->unix_listen;
    if (dev->tcp_listen >= 0 && n < max)
        fds[n++] = dev->tcp_listen;
    for (int i = 0; i < dev->n_conn && n < max; i++)
        fds[n++] = dev->conn_in[i].fd;
    return n;
}
