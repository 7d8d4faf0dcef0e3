/*
 * softib: an RDMA Write sent again after a timeout goes again by its PSN,
 * never by process_vm_writev, made deterministic.
 *
 * softib places an RDMA Write into a peer by process_vm_writev ("direct")
 * when nothing is in flight on the QP, else as packets the peer places. A
 * direct write takes no PSN, so the peer's expected PSN does not move. If a
 * write that went as a packet timed out and was then done directly, its
 * first packet, still waiting at the peer, carried the expected PSN and was
 * placed when the peer next ran: after the direct copy and after the writes
 * posted since. The verbs transport's eager-RDMA ring saw that as a message
 * read with bytes of an older one in it (tests/integration/unexpected over
 * verbs under load, ~1 run in 100).
 *
 * R (this process, SOFTIB_FAULT=rnr=1: no direct writes until it has sent
 * one RNR NAK) and S (the responder, its memory the target):
 *   1. S is stopped. R writes OLD into S: a packet, as R's fault is on.
 *   2. R sends a message to a second QP of its own, which NAKs it (RNR):
 *      R may write directly from now on. R polls until its QP to S timed
 *      out once (softib's local_ack_timeout_err counter).
 *   3. R writes NEW to the same place. S continues, takes what waits for
 *      it, and must hold NEW, the last write.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "t_common.h"

#define LEN 64

struct msg {
    uint16_t lid;
    uint32_t qpn, rkey;
    uint64_t addr;
};

/* R's QP timeout: 4.096 us * 2^18 = 1.07 s per try, 7 retries, so S has
 * ~7.5 s after R's first timeout to answer (it answers within
 * milliseconds once it runs: the margin is for a starved CI machine, the
 * test takes ~1.1 s). */
#define R_TIMEOUT 18

static void xwrite(int fd, const void *p, size_t n)
{
    CHECK(write(fd, p, n) == (ssize_t)n, "pipe write");
}

static void xread(int fd, void *p, size_t n)
{
    CHECK(read(fd, p, n) == (ssize_t)n, "pipe read");
}

/* S: the target of R's writes; reports what it holds at the end */
static void child_s(int rfd, int wfd)
{
    struct t_dev d;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    struct t_conn c = t_conn_default();
    static char buf[LEN];
    struct msg me, r;
    struct ibv_wc wc[4];
    char k;

    th_case = "S";
    th_failures = 0;
    unsetenv("SOFTIB_FAULT");
    t_dev_open(&d);
    cq = t_cq(&d, 16);
    qp = t_rc_qp(&d, cq, cq, 8, 8);
    mr = ibv_reg_mr(d.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    CHECK(mr, "reg_mr");
    me = (struct msg){d.lid, qp->qp_num, mr->rkey, (uintptr_t)buf};
    xwrite(wfd, &me, sizeof(me));
    xread(rfd, &r, sizeof(r));
    CHECK(t_connect(qp, r.lid, r.qpn, &c) == 0, "connect S");
    xwrite(wfd, "r", 1);        /* R stops us now */
    xread(rfd, &k, 1);          /* R: both writes are done, check */
    /* what waited in our socket is taken by these passes */
    for (int i = 0; i < 4; i++)
        ibv_poll_cq(cq, 4, wc);
    k = buf[0] == 'N' ? 'K' : buf[0] == 'O' ? 'O' : 'F';
    xwrite(wfd, &k, 1);
    xread(rfd, &k, 1);
    ibv_destroy_qp(qp);
    ibv_destroy_cq(cq);
    ibv_dereg_mr(mr);
    t_dev_close(&d);
    exit(th_failures ? 1 : 0);
}

static unsigned long long counter(const char *path)
{
    char b[32] = "";
    FILE *f = fopen(path, "r");

    if (f) {
        if (!fgets(b, sizeof(b), f))
            b[0] = '\0';
        fclose(f);
    }
    return strtoull(b, NULL, 10);
}

/* the completion of wr_id (0..9) on cq: its status, kept in seen[] with
 * those of the others that came first; -1 when none came */
static int seen[10];

static int wait_wr(struct ibv_cq *cq, uint64_t id)
{
    struct ibv_wc wc;

    while (!seen[id] && t_poll(cq, &wc, 60000))
        if (wc.wr_id < 10)
            seen[wc.wr_id] = 1 + (int)wc.status;
    return seen[id] - 1;
}

int main(void)
{
    struct t_dev d;
    struct ibv_cq *cq;
    struct ibv_qp *qp, *qa, *qb;
    struct ibv_mr *mr;
    struct t_conn c = t_conn_default(), lc = t_conn_default();
    static char buf[4][LEN];
    char tree[64], dirs[200], path[300], k;
    int rs[2], sr[2], st, fd;
    pid_t ps;
    struct msg sm, me;
    struct ibv_wc wc;

    signal(SIGPIPE, SIG_IGN);
    th_name = "t_direct_resend";
    th_case = "R";
    /* a counter file of our own for softib's local_ack_timeout_err */
    snprintf(tree, sizeof(tree), "/tmp/softib-resend.XXXXXX");
    CHECK(mkdtemp(tree), "mkdtemp: %s", strerror(errno));
    snprintf(dirs, sizeof(dirs), "%s/class/infiniband/softib0/ports/1/hw_counters", tree);
    for (char *p = dirs + strlen(tree) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(dirs, 0755);
        *p = '/';
    }
    CHECK(mkdir(dirs, 0755) == 0, "mkdir %s: %s", dirs, strerror(errno));
    snprintf(path, sizeof(path), "%s/local_ack_timeout_err", dirs);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0 && write(fd, "0\n", 2) == 2, "write %s", path);
    close(fd);
    setenv("SOFTIB_SYSFS", tree, 1);
    setenv("SOFTIB_FAULT", "rnr=1", 1);
    t_dev_open(&d);
    CHECK(!pipe(rs) && !pipe(sr), "pipes");
    ps = fork();
    if (ps == 0) {
        close(rs[1]), close(sr[0]);
        child_s(rs[0], sr[1]);
    }
    CHECK(ps > 0, "fork");
    close(rs[0]), close(sr[1]);

    cq = t_cq(&d, 16);
    qp = t_rc_qp(&d, cq, cq, 8, 8);
    mr = ibv_reg_mr(d.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
    CHECK(mr, "reg_mr");
    xread(sr[0], &sm, sizeof(sm));
    me = (struct msg){d.lid, qp->qp_num, 0, 0};
    xwrite(rs[1], &me, sizeof(me));
    c.timeout = R_TIMEOUT;
    CHECK(t_connect(qp, sm.lid, sm.qpn, &c) == 0, "connect R");
    /* the loopback pair that takes R's RNR NAK (qb NAKs, then takes it) */
    qa = t_rc_qp(&d, cq, cq, 8, 8);
    qb = t_rc_qp(&d, cq, cq, 8, 8);
    CHECK(t_connect(qa, d.lid, qb->qp_num, &lc) == 0 &&
              t_connect(qb, d.lid, qa->qp_num, &lc) == 0, "connect the loopback pair");
    CHECK(t_post_recv(qb, mr, buf[2], LEN, 9) == 0, "post_recv");
    xread(sr[0], &k, 1);
    CHECK(kill(ps, SIGSTOP) == 0 && waitpid(ps, &st, WUNTRACED) == ps && WIFSTOPPED(st),
          "stop S");

    th_case = "OLD, as a packet, timed out";
    memset(buf[0], 'O', LEN);
    memset(buf[1], 'N', LEN);
    CHECK(t_post_send(qp, IBV_WR_RDMA_WRITE, mr, buf[0], LEN, sm.addr, sm.rkey, 1) == 0,
          "post OLD");
    strcpy(buf[3], "rnr");
    CHECK(t_post_send(qa, IBV_WR_SEND, mr, buf[3], 4, 0, 0, 3) == 0, "post the send");
    /* progress (the RNR NAK, the timer) until the timeout; the bound only
     * keeps a broken softib from hanging the test */
    for (time_t end = time(NULL) + 60; counter(path) == 0 && time(NULL) < end;)
        ibv_poll_cq(cq, 0, &wc);
    CHECK(counter(path) > 0, "R's QP to S never timed out");

    th_case = "NEW after OLD";
    CHECK(t_post_send(qp, IBV_WR_RDMA_WRITE, mr, buf[1], LEN, sm.addr, sm.rkey, 2) == 0,
          "post NEW");
    CHECK(kill(ps, SIGCONT) == 0, "continue S");
    for (uint64_t id = 1; id <= 3; id++) {
        int status = wait_wr(cq, id);

        EXPECT(status == IBV_WC_SUCCESS, "completion of WR %d (1 OLD, 2 NEW, 3 the send): %s",
               (int)id, status < 0 ? "none" : ibv_wc_status_str((enum ibv_wc_status)status));
    }
    xwrite(rs[1], "c", 1);
    xread(sr[0], &k, 1);
    EXPECT(k == 'K', "after both writes completed S holds %s, expected NEW (the last write)",
           k == 'O' ? "OLD: the first write's packet was placed after the second write"
                    : "neither write");

    xwrite(rs[1], "q", 1);
    EXPECT(waitpid(ps, &st, 0) == ps && WIFEXITED(st) && !WEXITSTATUS(st), "S failed");
    ibv_destroy_qp(qp);
    ibv_destroy_qp(qa);
    ibv_destroy_qp(qb);
    ibv_destroy_cq(cq);
    ibv_dereg_mr(mr);
    t_dev_close(&d);
    unlink(path);
    for (char *p = strrchr(dirs, '/'); strlen(dirs) > strlen(tree); p = strrchr(dirs, '/')) {
        rmdir(dirs);
        *p = '\0';
    }
    rmdir(tree);
    return t_finish();
}
