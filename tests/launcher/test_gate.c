/* Unit test of the PMIx gate's verdict (launcher/pmix_gate.c) on real
 * sockets and processes: which process holding a TCP connection's client
 * end it admits, and as which rank. Each case runs in a process of its own
 * (the gate's rank table is set once per process, as in rtrun), which
 * plays rtrun: it listens on 127.0.0.1, forks the "ranks" that connect,
 * records their pids, and asks rtrun_pmix_gate_admit about the connection
 * it accepted. Every step is ordered by pipes and by the gate's test hook
 * (called after each look at the process table), never by time.
 *
 * The race it was written for: the last rank's pid was recorded while
 * the gate was reading /proc; the look saw a process of rtrun's that was
 * no rank, the check after it saw every rank recorded, and the gate
 * refused the job's own rank (seen once in CI under load). */
#include "config.h"

#include "launcher/pmix_gate.h"
#include "launcher/pmix_gate_accept.h"
#include "tests/harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the case process's helpers ------------------------------------------ */

static int listen_fd = -1;
static struct sockaddr_in listen_addr;

/* The hook: looks counted; rank record_rank gets record_pid after look
 * number record_on_look. */
static int   looks;
static int   record_on_look;
static int   record_rank;
static pid_t record_pid;

static void after_look(void)
{
    looks++;
    if (looks == record_on_look)
        rtrun_pmix_gate_rank_pid(record_rank, record_pid);
}

static void listen_local(void)
{
    socklen_t len = sizeof(listen_addr);

    listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(listen_fd >= 0, "socket: %s", strerror(errno));
    memset(&listen_addr, 0, sizeof(listen_addr));
    listen_addr.sin_family = AF_INET;
    listen_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(bind(listen_fd, (struct sockaddr *)&listen_addr, sizeof(listen_addr)) == 0, "bind: %s",
          strerror(errno));
    CHECK(listen(listen_fd, 8) == 0, "listen: %s", strerror(errno));
    CHECK(getsockname(listen_fd, (struct sockaddr *)&listen_addr, &len) == 0, "getsockname");
}

/* In a child: connect, say so on ready_w, hold the socket until hold_r
 * reaches end of file (the case process closes its end), exit. */
static void connect_and_hold(int ready_w, int hold_r)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    char c = 'c';

    if (fd < 0 || connect(fd, (struct sockaddr *)&listen_addr, sizeof(listen_addr)) != 0)
        _exit(3);
    if (write(ready_w, &c, 1) != 1)
        _exit(4);
    while (read(hold_r, &c, 1) > 0)
        ;
    _exit(0);
}

typedef enum {
    CLIENT_CHILD,      /* the case process's child connects */
    CLIENT_GRANDCHILD, /* its child's child connects; the child waits */
    CLIENT_ORPHAN,     /* a grandchild whose parent exits first connects */
    CLIENT_IDLE,       /* a child that connects nowhere (a rank's pid) */
} client_kind_t;

typedef struct client {
    pid_t pid;    /* the case process's child */
    int   hold_w; /* closed: every process of the client exits */
} client_t;

static client_t start_client(client_kind_t kind)
{
    int ready[2], hold[2];
    client_t cl;
    char c;

    CHECK(pipe(ready) == 0 && pipe(hold) == 0, "pipe: %s", strerror(errno));
    cl.pid = fork();
    CHECK(cl.pid >= 0, "fork: %s", strerror(errno));
    if (cl.pid == 0) {
        close(ready[0]);
        close(hold[1]);
        if (kind == CLIENT_CHILD)
            connect_and_hold(ready[1], hold[0]);
        if (kind == CLIENT_IDLE) {
            if (write(ready[1], "i", 1) != 1)
                _exit(4);
            while (read(hold[0], &c, 1) > 0)
                ;
            _exit(0);
        }
        pid_t g = fork();

        if (g < 0)
            _exit(5);
        if (g == 0)
            connect_and_hold(ready[1], hold[0]);
        if (kind == CLIENT_ORPHAN)
            _exit(0); /* the grandchild goes to init (or a subreaper above us) */
        close(ready[1]);
        while (read(hold[0], &c, 1) > 0)
            ;
        waitpid(g, NULL, 0);
        _exit(0);
    }
    close(ready[1]);
    close(hold[0]);
    if (kind == CLIENT_ORPHAN) {
        CHECK(waitpid(cl.pid, NULL, 0) == cl.pid, "waitpid");
        cl.pid = 0; /* reaped: only the grandchild is left */
    }
    CHECK(read(ready[0], &c, 1) == 1, "the client did not connect");
    close(ready[0]);
    cl.hold_w = hold[1];
    return cl;
}

static void stop_client(client_t *cl)
{
    close(cl->hold_w);
    if (cl->pid > 0)
        waitpid(cl->pid, NULL, 0); /* 0: an orphan's parent, reaped already */
}

static int accept_one(void)
{
    int fd = accept(listen_fd, NULL, NULL);

    CHECK(fd >= 0, "accept: %s", strerror(errno));
    return fd;
}

/* ---- the cases (each in a process of its own) ----------------------------- */

/* The race: the only rank is recorded right after the first look, which
 * saw it as rtrun's child and no rank. */
static void case_recorded_during_look(void)
{
    client_t rank0;
    int fd;

    CHECK(rtrun_pmix_gate_set_ranks(1) == RTM_OK, "set_ranks");
    rank0 = start_client(CLIENT_CHILD);
    fd = accept_one();
    record_rank = 0;
    record_pid = rank0.pid;
    record_on_look = 1;
    EXPECT(rtrun_pmix_gate_admit(fd) == 0,
           "the last rank, recorded while the gate looked, was refused");
    EXPECT(looks == 2, "%d looks, expected 2 (the second finds the rank)", looks);
    EXPECT(rtrun_pmix_gate_refusals() == 0, "%d refusals", rtrun_pmix_gate_refusals());
    EXPECT(rtrun_pmix_gate_bind(0) == 1, "the admitted connection is not rank 0's");
    close(fd);
    stop_client(&rank0);
}

/* A rank forked and connected before rtrun recorded it: the gate waits
 * for the record (here after the third look) and admits it. */
static void case_recorded_later(void)
{
    client_t rank0;
    int fd;

    CHECK(rtrun_pmix_gate_set_ranks(2) == RTM_OK, "set_ranks");
    rank0 = start_client(CLIENT_CHILD);
    fd = accept_one();
    record_rank = 0;
    record_pid = rank0.pid;
    record_on_look = 3;
    EXPECT(rtrun_pmix_gate_admit(fd) == 0, "a rank recorded after the third look was refused");
    EXPECT(looks == 4, "%d looks, expected 4", looks);
    EXPECT(rtrun_pmix_gate_bind(1) == 0, "rank 0's connection was bound as rank 1");
    close(fd);
    stop_client(&rank0);
}

/* Every rank recorded, and the socket is held by another child of rtrun's
 * that is no rank: refused at the first look, no waiting. */
static void case_child_not_rank(void)
{
    client_t rank0, other;
    int fd;

    CHECK(rtrun_pmix_gate_set_ranks(1) == RTM_OK, "set_ranks");
    rank0 = start_client(CLIENT_IDLE);
    rtrun_pmix_gate_rank_pid(0, rank0.pid);
    other = start_client(CLIENT_CHILD);
    fd = accept_one();
    EXPECT(rtrun_pmix_gate_admit(fd) == -1, "a child of rtrun's that is no rank was admitted");
    EXPECT(looks == 1, "%d looks, expected 1 (every rank was recorded)", looks);
    EXPECT(rtrun_pmix_gate_refusals() == 1, "%d refusals", rtrun_pmix_gate_refusals());
    close(fd);
    stop_client(&other);
    stop_client(&rank0);
}

/* A descendant of a rank is that rank. */
static void case_descendant(void)
{
    client_t rank0;
    int fd;

    CHECK(rtrun_pmix_gate_set_ranks(2) == RTM_OK, "set_ranks");
    rank0 = start_client(CLIENT_GRANDCHILD);
    rtrun_pmix_gate_rank_pid(0, rank0.pid);
    fd = accept_one();
    EXPECT(rtrun_pmix_gate_admit(fd) == 0, "a rank's child was refused");
    EXPECT(rtrun_pmix_gate_bind(0) == 1, "a rank's child was not bound as that rank");
    close(fd);
    stop_client(&rank0);
}

/* A process that is no descendant of rtrun's (same user): refused, even
 * while a rank is still unrecorded, and without waiting. */
static void case_stranger(void)
{
    client_t orphan;
    int fd;

    CHECK(rtrun_pmix_gate_set_ranks(1) == RTM_OK, "set_ranks");
    orphan = start_client(CLIENT_ORPHAN);
    fd = accept_one();
    EXPECT(rtrun_pmix_gate_admit(fd) == -1, "a process rtrun did not start was admitted");
    EXPECT(looks == 1, "%d looks, expected 1", looks);
    EXPECT(rtrun_pmix_gate_refusals() == 1, "%d refusals", rtrun_pmix_gate_refusals());
    close(fd);
    stop_client(&orphan);
}

static void run_case(const char *name, void (*fn)(void))
{
    pid_t pid;
    int st;

    fflush(NULL);
    pid = fork();
    CHECK(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        th_failures = 0; /* this case's own (the parent's were counted there) */
        th_case = name;
        rtrun_pmix_gate_test_after_look = after_look;
        listen_local();
        fn();
        fflush(NULL);
        _exit(th_exit_code());
    }
    CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
    EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "case %s failed (status %#x)", name, st);
    printf("case %s: %s\n", name, WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "ok" : "FAILED");
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    run_case("recorded during a look", case_recorded_during_look);
    run_case("recorded after three looks", case_recorded_later);
    run_case("a child that is no rank", case_child_not_rank);
    run_case("a rank's descendant", case_descendant);
    run_case("a stranger", case_stranger);
    TH_RETURN();
}
