/*
 * The gate in front of the PMIx server (see pmix_gate.h). Facts it relies
 * on, all checked with OpenPMIx 4.2.2 (Debian's libpmix2):
 * - The server listens on TCP (127.0.0.1 by default; there is no unix
 *   socket transport any more) and psec "native" takes the uid and gid a
 *   client puts in its connect message: an LD_PRELOAD that makes
 *   geteuid() return 0 passes it. psec "munge" would need munged.
 * - Any connection the library refuses after it read the connect message
 *   (psec's uid check, or the host's client_connected returning an
 *   error) leaves the library's state broken: the next client's
 *   connection handler then waits on a mutex for good (so no rank that
 *   connects later ever finishes PMIx_Init) and PMIx_server_finalize
 *   hangs. So refusing there is no refusal; the gate must refuse before
 *   the library reads anything, at accept().
 * - Its connection handler reads the connect message with blocking
 *   recv()s on the progress thread: a peer that connects and sends
 *   nothing holds every other client until it closes. The gate closes a
 *   stranger's connection at accept(), so it never gets there.
 * - The listener thread calls accept() (a PLT call this program
 *   interposes, pmix_gate_accept.c) and goes on listening after
 *   ECONNABORTED.
 * - client_connected runs on the progress thread after the server wrote
 *   its reply and the client's index to the socket, and before it reads
 *   the client's first request: of the connections the gate admitted and
 *   no rank claimed yet, the one the server has written to is the one
 *   being completed (rtrun_pmix_gate_bind).
 * What the kernel says and a process cannot fake in its own memory: the
 * owner uid and inode of its TCP socket (sock_diag), the fd tables and
 * parents of processes (/proc).
 */
#include "config.h"

#include "launcher/pmix_gate.h"
#include "launcher/pmix_gate_accept.h"
#include "launcher/iof.h"
#include "common/error.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define GATE_MAX_LISTENERS 8
#define GATE_MAX_BEFORE    64
/* A rank forked but not yet in the table (the fork returned a moment
 * ago): how long the gate waits for it before it refuses, in sleeps of
 * GATE_PENDING_STEP_MS (a loaded host stretches it; only a process rtrun
 * itself started waits, and only while some rank is unrecorded). */
#define GATE_PENDING_WAIT_MS 10000
#define GATE_PENDING_STEP_MS 5

static _Atomic int gate_listener[GATE_MAX_LISTENERS] = {-1, -1, -1, -1, -1, -1, -1, -1};
static int         gate_nlisteners;
static unsigned short gate_port[GATE_MAX_LISTENERS]; /* host order */
static ino_t       before_ino[GATE_MAX_BEFORE];
static int         nbefore;
static char        gate_nspace[256];
static char        gate_who[128] = "this host"; /* the host, in messages */
static _Atomic int gate_refused;

void (*rtrun_pmix_gate_test_after_look)(void);

/* Per local rank: its pid; 0 not started yet, -1 reaped. */
#define GATE_PID_UNSTARTED 0
#define GATE_PID_REAPED    (-1)
static _Atomic(pid_t) *gate_pids;
static _Atomic int     gate_nprocs;

/* Connections admitted: the server's socket, the rank whose process made
 * it, whether a rank claimed it at PMIx_Init. */
typedef struct gate_conn {
    int   fd;
    ino_t ino;
    int   owner;
    int   bound;
} gate_conn_t;

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static gate_conn_t    *gate_conns;
static size_t          gate_nconns, gate_cap_conns;

/* ---- sockets ------------------------------------------------------------- */

static int fd_inode(int fd, ino_t *ino_p)
{
    struct stat st;

    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
        return -1;
    *ino_p = st.st_ino;
    return 0;
}

static int is_tcp_listener(int fd)
{
    int on = 0, type = 0;
    socklen_t len = sizeof(on);

    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) != 0 || !on)
        return 0;
    len = sizeof(type);
    return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM;
}

/* An IPv4-mapped IPv6 address as the IPv4 one: the peer's socket is then
 * an AF_INET one. */
static void addr_normalize(struct sockaddr_storage *ss)
{
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
    struct sockaddr_in s4;

    if (ss->ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
        return;
    memset(&s4, 0, sizeof(s4));
    s4.sin_family = AF_INET;
    s4.sin_port = s6->sin6_port;
    memcpy(&s4.sin_addr, &s6->sin6_addr.s6_addr[12], 4);
    memcpy(ss, &s4, sizeof(s4));
}

static unsigned short addr_port(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET)
        return ntohs(((const struct sockaddr_in *)ss)->sin_port);
    if (ss->ss_family == AF_INET6)
        return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
    return 0;
}

static void addr_string(const struct sockaddr_storage *ss, char *buf, size_t len)
{
    char host[INET6_ADDRSTRLEN] = "?";

    if (ss->ss_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, host, sizeof(host));
    else if (ss->ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, host, sizeof(host));
    snprintf(buf, len, ss->ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", host, addr_port(ss));
}

/* The kernel's record of the TCP socket whose local address is `src` and
 * remote address `dst` (sock_diag, one exact lookup): its owner and its
 * inode. -1 when no such socket is on this host. */
static int diag_lookup(const struct sockaddr_storage *src, const struct sockaddr_storage *dst,
                       uid_t *uid_p, ino_t *ino_p)
{
    struct {
        struct nlmsghdr         nlh;
        struct inet_diag_req_v2 req;
    } msg;
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    struct timeval tv = {.tv_sec = 2};
    union {
        struct nlmsghdr align;
        char            bytes[8192];
    } reply;
    int fd, rc = -1;
    ssize_t n;

    if (src->ss_family != dst->ss_family ||
        (src->ss_family != AF_INET && src->ss_family != AF_INET6))
        return -1;
    memset(&msg, 0, sizeof(msg));
    msg.nlh.nlmsg_len = sizeof(msg);
    msg.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    msg.nlh.nlmsg_flags = NLM_F_REQUEST;
    msg.req.sdiag_family = (__u8)src->ss_family;
    msg.req.sdiag_protocol = IPPROTO_TCP;
    msg.req.idiag_states = ~0U;
    msg.req.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
    msg.req.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
    if (src->ss_family == AF_INET) {
        const struct sockaddr_in *s = (const struct sockaddr_in *)src;
        const struct sockaddr_in *d = (const struct sockaddr_in *)dst;

        msg.req.id.idiag_sport = s->sin_port;
        msg.req.id.idiag_dport = d->sin_port;
        memcpy(msg.req.id.idiag_src, &s->sin_addr, 4);
        memcpy(msg.req.id.idiag_dst, &d->sin_addr, 4);
    } else {
        const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)src;
        const struct sockaddr_in6 *d = (const struct sockaddr_in6 *)dst;

        msg.req.id.idiag_sport = s->sin6_port;
        msg.req.id.idiag_dport = d->sin6_port;
        memcpy(msg.req.id.idiag_src, &s->sin6_addr, 16);
        memcpy(msg.req.id.idiag_dst, &d->sin6_addr, 16);
    }
    fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0)
        return -1;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    if (sendto(fd, &msg, sizeof(msg), 0, (struct sockaddr *)&kernel, sizeof(kernel)) !=
        (ssize_t)sizeof(msg))
        goto out_close;
    do {
        n = recv(fd, &reply, sizeof(reply), 0);
    } while (n < 0 && errno == EINTR);
    if (n > 0) {
        struct nlmsghdr *h = &reply.align;
        int left = (int)n;

        for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
            const struct inet_diag_msg *m = NLMSG_DATA(h);

            if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
                h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
                break; /* NLMSG_ERROR: no such socket */
            if (m->idiag_inode == 0)
                break; /* orphaned: no process holds it any more */
            *uid_p = (uid_t)m->idiag_uid;
            *ino_p = (ino_t)m->idiag_inode;
            rc = 0;
            break;
        }
    }
out_close:
    close(fd);
    return rc;
}

/* ---- processes ----------------------------------------------------------- */

/* Whether process pid holds socket inode ino open. */
static int pid_holds(pid_t pid, ino_t ino)
{
    char path[64], want[48], link[64];
    struct dirent *de;
    DIR *d;
    int found = 0;

    snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
    snprintf(want, sizeof(want), "socket:[%lu]", (unsigned long)ino);
    d = opendir(path);
    if (d == NULL)
        return 0;
    while (!found && (de = readdir(d)) != NULL) {
        ssize_t n;

        if (!isdigit((unsigned char)de->d_name[0]))
            continue;
        n = readlinkat(dirfd(d), de->d_name, link, sizeof(link) - 1);
        if (n <= 0)
            continue;
        link[n] = '\0';
        found = strcmp(link, want) == 0;
    }
    closedir(d);
    return found;
}

static pid_t read_ppid(pid_t pid)
{
    char path[64], buf[512], *p;
    ssize_t n;
    int fd, ppid = -1;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* "pid (comm) state ppid ...": comm may hold anything, ')' too */
    p = strrchr(buf, ')');
    if (p == NULL || sscanf(p + 1, " %*c %d", &ppid) != 1)
        return -1;
    return (pid_t)ppid;
}

static int rank_of_pid(pid_t pid)
{
    int n = atomic_load(&gate_nprocs);
    _Atomic(pid_t) *pids = gate_pids;

    for (int r = 0; r < n && pids != NULL; r++)
        if (pid > 0 && atomic_load(&pids[r]) == pid)
            return r;
    return -1;
}

/* Who holds socket ino among this process's descendants: >= 0 the rank
 * whose process (or a descendant of it) does; -2 a descendant that is no
 * rank (yet); -1 nobody of ours. */
#define OWNER_NONE     (-1)
#define OWNER_NOT_RANK (-2)

typedef struct proc_ent {
    pid_t pid, ppid;
} proc_ent_t;

static int find_owner(ino_t ino)
{
    int n = atomic_load(&gate_nprocs);
    pid_t self = getpid();
    proc_ent_t *ents = NULL;
    size_t nents = 0, cap = 0;
    struct dirent *de;
    DIR *d;
    int owner = OWNER_NONE;

    /* The common case: the rank itself. */
    for (int r = 0; r < n && gate_pids != NULL; r++) {
        pid_t pid = atomic_load(&gate_pids[r]);

        if (pid > 0 && pid_holds(pid, ino))
            return r;
    }
    /* Else a descendant: every process and its parent. */
    d = opendir("/proc");
    if (d == NULL)
        return OWNER_NONE;
    while ((de = readdir(d)) != NULL) {
        pid_t pid;

        if (!isdigit((unsigned char)de->d_name[0]))
            continue;
        pid = (pid_t)atoi(de->d_name);
        if (nents == cap) {
            size_t ncap = cap ? 2 * cap : 512;
            proc_ent_t *ne = realloc(ents, ncap * sizeof(*ents));

            if (ne == NULL)
                break;
            ents = ne;
            cap = ncap;
        }
        ents[nents].pid = pid;
        ents[nents].ppid = read_ppid(pid);
        nents++;
    }
    closedir(d);
    for (size_t i = 0; i < nents && owner == OWNER_NONE; i++) {
        pid_t p = ents[i].ppid;
        int verdict = rank_of_pid(ents[i].pid);

        if (ents[i].pid == self)
            continue; /* we hold the server's side */
        /* A rank itself (again: its pid may have been recorded since the
         * first look), else up the parents, a bounded number of steps, to
         * a rank or to us. */
        for (int depth = 0; verdict == OWNER_NONE && depth < 64 && p > 1; depth++) {
            int r = rank_of_pid(p);
            size_t j;

            if (r >= 0) {
                verdict = r;
                break;
            }
            if (p == self) {
                verdict = OWNER_NOT_RANK;
                break;
            }
            for (j = 0; j < nents && ents[j].pid != p; j++)
                ;
            if (j == nents)
                break;
            p = ents[j].ppid;
        }
        if (verdict != OWNER_NONE && pid_holds(ents[i].pid, ino))
            owner = verdict;
    }
    free(ents);
    return owner;
}

static int some_rank_unstarted(void)
{
    int n = atomic_load(&gate_nprocs);

    for (int r = 0; r < n && gate_pids != NULL; r++)
        if (atomic_load(&gate_pids[r]) == GATE_PID_UNSTARTED)
            return 1;
    return 0;
}

/* ---- the verdict ---------------------------------------------------------- */

static void refuse_log(const struct sockaddr_storage *peer, const char *why)
{
    char where[INET6_ADDRSTRLEN + 16];

    addr_string(peer, where, sizeof(where));
    atomic_fetch_add(&gate_refused, 1);
    rtrun_say("refused a PMIx connection from %s to job %s on %s: %s; closed before the PMIx "
              "server read from it",
              where, gate_nspace, gate_who, why);
}

static int conn_add(int fd, int owner)
{
    ino_t ino;
    int rc = -1;

    if (fd_inode(fd, &ino) != 0)
        return -1;
    pthread_mutex_lock(&gate_lock);
    /* Entries of sockets since closed go first. */
    for (size_t i = 0; i < gate_nconns;) {
        ino_t now;

        if (fd_inode(gate_conns[i].fd, &now) != 0 || now != gate_conns[i].ino)
            gate_conns[i] = gate_conns[--gate_nconns];
        else
            i++;
    }
    if (gate_nconns == gate_cap_conns) {
        size_t ncap = gate_cap_conns ? 2 * gate_cap_conns : 16;
        gate_conn_t *nc = realloc(gate_conns, ncap * sizeof(*nc));

        if (nc == NULL)
            goto out_unlock;
        gate_conns = nc;
        gate_cap_conns = ncap;
    }
    gate_conns[gate_nconns++] = (gate_conn_t){.fd = fd, .ino = ino, .owner = owner};
    rc = 0;
out_unlock:
    pthread_mutex_unlock(&gate_lock);
    return rc;
}

int rtrun_pmix_gate_admit(int fd)
{
    struct sockaddr_storage local, peer;
    socklen_t llen = sizeof(local), plen = sizeof(peer);
    char why[256];
    uid_t uid = 0;
    ino_t ino = 0;
    int owner, waited_ms = 0;

    memset(&peer, 0, sizeof(peer));
    if (getsockname(fd, (struct sockaddr *)&local, &llen) != 0 ||
        getpeername(fd, (struct sockaddr *)&peer, &plen) != 0) {
        refuse_log(&peer, "its address is unknown (it closed already)");
        return -1;
    }
    addr_normalize(&local);
    addr_normalize(&peer);
    if (diag_lookup(&peer, &local, &uid, &ino) != 0) {
        refuse_log(&peer, "its socket is on no process of this host");
        return -1;
    }
    if (uid != geteuid()) {
        snprintf(why, sizeof(why), "its socket belongs to uid %u, the job's user is uid %u",
                 (unsigned)uid, (unsigned)geteuid());
        refuse_log(&peer, why);
        return -1;
    }
    for (;;) {
        /* Whether a rank was still unrecorded is taken before the look:
         * a rank recorded while find_owner reads /proc may have been seen
         * there as a process of ours that is no rank, and only a look
         * begun after every rank was recorded is final. (Taken after the
         * look, that rank was refused when it was the last to start.) */
        int pending = some_rank_unstarted();

        owner = find_owner(ino);
        if (rtrun_pmix_gate_test_after_look != NULL)
            rtrun_pmix_gate_test_after_look();
        if (owner >= 0 || waited_ms >= GATE_PENDING_WAIT_MS)
            break;
        /* A process of ours that no rank is known to be the ancestor of:
         * a rank whose fork has not been recorded yet, while ranks are
         * still being started. */
        if (owner != OWNER_NOT_RANK || !pending)
            break;
        nanosleep(&(struct timespec){.tv_nsec = GATE_PENDING_STEP_MS * 1000000L}, NULL);
        waited_ms += GATE_PENDING_STEP_MS;
    }
    if (owner < 0) {
        uid_t uid_now;
        ino_t ino_now;
        int held = diag_lookup(&peer, &local, &uid_now, &ino_now) == 0 && ino_now == ino;

        snprintf(why, sizeof(why),
                 "uid %u, but no rank started for this job (nor a descendant of one) holds it "
                 "(%s; %s; waited %d ms)",
                 (unsigned)uid,
                 owner == OWNER_NOT_RANK ? "a process rtrun started that is no rank"
                                         : "no process rtrun started",
                 held ? "still held" : "its holder has closed it since", waited_ms);
        refuse_log(&peer, why);
        return -1;
    }
    if (conn_add(fd, owner) != 0) {
        refuse_log(&peer, "out of memory recording it");
        return -1;
    }
    /* The server's replies and notifications go out at once: OpenPMIx
     * sets no TCP_NODELAY, and a second small message would wait for the
     * client's delayed ACK of the first (40 ms; runtime/pmix_sock.h). */
    {
        int one = 1;

        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    }
    return 0;
}

int rtrun_pmix_gate_is_listener(int fd)
{
    for (int i = 0; i < GATE_MAX_LISTENERS; i++)
        if (atomic_load(&gate_listener[i]) == fd && fd >= 0)
            return 1;
    return 0;
}

/* ---- arming --------------------------------------------------------------- */

/* Calls fn(fd) for every fd of this process that is a socket. */
static void each_socket_fd(void (*fn)(int fd))
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *de;

    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        int fd;
        ino_t ino;

        if (!isdigit((unsigned char)de->d_name[0]))
            continue;
        fd = atoi(de->d_name);
        if (fd != dirfd(d) && fd_inode(fd, &ino) == 0)
            fn(fd);
    }
    closedir(d);
}

static void note_before(int fd)
{
    ino_t ino;

    if (nbefore < GATE_MAX_BEFORE && is_tcp_listener(fd) && fd_inode(fd, &ino) == 0)
        before_ino[nbefore++] = ino;
}

void rtrun_pmix_gate_before_listen(void)
{
    nbefore = 0;
    each_socket_fd(note_before);
}

static void note_listener(int fd)
{
    struct sockaddr_storage local;
    socklen_t len = sizeof(local);
    ino_t ino;

    if (gate_nlisteners >= GATE_MAX_LISTENERS || !is_tcp_listener(fd) ||
        fd_inode(fd, &ino) != 0 || getsockname(fd, (struct sockaddr *)&local, &len) != 0 ||
        (local.ss_family != AF_INET && local.ss_family != AF_INET6))
        return;
    for (int i = 0; i < nbefore; i++)
        if (before_ino[i] == ino)
            return;
    gate_port[gate_nlisteners] = addr_port(&local);
    atomic_store(&gate_listener[gate_nlisteners], fd);
    gate_nlisteners++;
}

/* A connection the library accepted before the gate knew its listener
 * (only strangers: no rank runs yet): shut down, the library closes it. */
static void check_accepted(int fd)
{
    struct sockaddr_storage local, peer;
    socklen_t llen = sizeof(local), plen = sizeof(peer);
    int ours = 0;

    if (rtrun_pmix_gate_is_listener(fd) || is_tcp_listener(fd) ||
        getsockname(fd, (struct sockaddr *)&local, &llen) != 0 ||
        getpeername(fd, (struct sockaddr *)&peer, &plen) != 0)
        return;
    for (int i = 0; i < gate_nlisteners; i++)
        ours |= addr_port(&local) == gate_port[i];
    if (ours && rtrun_pmix_gate_admit(fd) != 0)
        shutdown(fd, SHUT_RDWR);
}

rtm_status_t rtrun_pmix_gate_arm(const char *nspace, const char *who)
{
    if (nspace == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_pmix_gate_arm: bad argument");
    rtrun_pmix_gate_accept_linked();
    snprintf(gate_nspace, sizeof(gate_nspace), "%s", nspace);
    if (who != NULL)
        snprintf(gate_who, sizeof(gate_who), "%s", who);
    each_socket_fd(note_listener);
    if (gate_nlisteners == 0)
        return rtm_error_set(RTM_ERR_PMIX,
                             "cannot find the PMIx server's listening socket among this "
                             "process's files: its clients cannot be checked");
    each_socket_fd(check_accepted);
    return RTM_OK;
}

rtm_status_t rtrun_pmix_gate_set_ranks(int nprocs)
{
    _Atomic(pid_t) *pids;

    if (nprocs < 1)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_pmix_gate_set_ranks: bad argument");
    if (gate_pids != NULL)
        return RTM_OK; /* one job per server */
    pids = calloc((size_t)nprocs, sizeof(*pids));
    if (pids == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for %d ranks", nprocs);
    for (int r = 0; r < nprocs; r++)
        atomic_init(&pids[r], GATE_PID_UNSTARTED);
    /* Kept for the life of the process: the listener thread may read it
     * until the very end (the server is not always finalized). */
    gate_pids = pids;
    atomic_store(&gate_nprocs, nprocs);
    return RTM_OK;
}

void rtrun_pmix_gate_rank_pid(int rank, pid_t pid)
{
    if (gate_pids == NULL || rank < 0 || rank >= atomic_load(&gate_nprocs))
        return;
    atomic_store(&gate_pids[rank], pid > 0 ? pid : GATE_PID_REAPED);
}

int rtrun_pmix_gate_refusals(void)
{
    return atomic_load(&gate_refused);
}

/* ---- the rank a connection claims ----------------------------------------- */

/* Bytes the server has sent on fd; -1 when the kernel does not say. */
static long long bytes_sent(int fd)
{
    struct tcp_info ti;
    socklen_t len = sizeof(ti);

    memset(&ti, 0, sizeof(ti));
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
        len < offsetof(struct tcp_info, tcpi_bytes_sent) + sizeof(ti.tcpi_bytes_sent))
        return -1;
    return (long long)ti.tcpi_bytes_sent;
}

int rtrun_pmix_gate_bind(int rank)
{
    gate_conn_t *pick = NULL;
    int nwritten = 0, ok;

    pthread_mutex_lock(&gate_lock);
    for (size_t i = 0; i < gate_nconns; i++) {
        gate_conn_t *c = &gate_conns[i];
        ino_t now;

        if (c->bound || fd_inode(c->fd, &now) != 0 || now != c->ino)
            continue;
        if (bytes_sent(c->fd) > 0) {
            nwritten++;
            pick = c;
        }
    }
    if (nwritten != 1) {
        /* The kernel did not single it out: any unclaimed connection of
         * that rank's processes (they are all the job's). */
        pick = NULL;
        for (size_t i = 0; i < gate_nconns && pick == NULL; i++)
            if (!gate_conns[i].bound && gate_conns[i].owner == rank)
                pick = &gate_conns[i];
    }
    ok = pick != NULL && pick->owner == rank;
    if (pick != NULL) {
        pick->bound = 1;
        if (!ok) {
            rtrun_say("a process of rank %d connected to the PMIx server of job %s on %s as rank "
                      "%d; closing its connection",
                      pick->owner, gate_nspace, gate_who, rank);
            shutdown(pick->fd, SHUT_RDWR);
        }
    } else {
        rtrun_say("rank %d of job %s connected to the PMIx server on %s through no connection "
                  "the gate admitted",
                  rank, gate_nspace, gate_who);
    }
    pthread_mutex_unlock(&gate_lock);
    return ok;
}
