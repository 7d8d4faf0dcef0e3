/*
 * softib memory windows between two processes, where the initiator reads
 * and writes the peer's memory itself (process_vm_*) after checking the
 * window in the peer's shared page:
 *   - the child binds a type 2 window onto 8 KiB of its memory through its
 *     QP b1 and is then stopped (SIGSTOP): the parent's RDMA write and read
 *     through a1 (connected to b1) still complete, byte for byte, so the
 *     window was checked one-sided
 *   - the child runs again: a read through a2 (connected to the child's b2,
 *     the same PD) with the window's key, and a read through a1 outside the
 *     window, fail with IBV_WC_REM_ACCESS_ERR
 *   - the child finds the parent's bytes in its memory
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t_common.h"

#define MEM (64 << 10)
#define WOFF 4096
#define WLEN 8192

struct info {
    uint16_t lid;
    uint32_t qpn1, qpn2;
    uint64_t addr;
    uint32_t rkey;
};

static void xwrite(int fd, const void *p, size_t n)
{
    CHECK(write(fd, p, n) == (ssize_t)n, "pipe write");
}

static void xread(int fd, void *p, size_t n)
{
    CHECK(read(fd, p, n) == (ssize_t)n, "pipe read");
}

static char pattern(size_t i)
{
    return (char)(i * 13 + 5);
}

static void child_main(int rfd, int wfd)
{
    struct t_dev d;
    struct ibv_cq *cq;
    struct ibv_qp *b1, *b2;
    struct ibv_mr *mr;
    struct ibv_mw *mw;
    struct t_conn c = t_conn_default();
    struct info me, peer;
    struct ibv_send_wr wr, *bad;
    struct ibv_wc wc;
    char *mem = calloc(1, MEM);
    char q;

    th_case = "child";
    th_failures = 0;
    t_dev_open(&d);
    cq = t_cq(&d, 64);
    b1 = t_rc_qp(&d, cq, cq, 8, 8);
    b2 = t_rc_qp(&d, cq, cq, 8, 8);
    mr = ibv_reg_mr(d.pd, mem, MEM,
                    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
                        IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_MW_BIND);
    mw = ibv_alloc_mw(d.pd, IBV_MW_TYPE_2);
    CHECK(mem && mr && mw, "child resources: %s", strerror(errno));
    me = (struct info){d.lid, b1->qp_num, b2->qp_num, (uintptr_t)mem, 0};
    xwrite(wfd, &me, sizeof(me));
    xread(rfd, &peer, sizeof(peer));
    CHECK(t_connect(b1, peer.lid, peer.qpn1, &c) == 0 &&
              t_connect(b2, peer.lid, peer.qpn2, &c) == 0, "child connect");
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = 1;
    wr.opcode = IBV_WR_BIND_MW;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.bind_mw.mw = mw;
    wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
    wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
        mr, (uintptr_t)(mem + WOFF), WLEN,
        IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE};
    CHECK(ibv_post_send(b1, &wr, &bad) == 0, "post BIND_MW");
    CHECK(t_poll(cq, &wc, 20000) && wc.status == IBV_WC_SUCCESS &&
              wc.opcode == IBV_WC_BIND_MW, "bind: %s", ibv_wc_status_str(wc.status));
    me.rkey = wr.bind_mw.rkey;
    xwrite(wfd, &me, sizeof(me));
    xread(rfd, &q, 1); /* meanwhile the helper thread answers the parent */
    for (size_t i = 0; i < WLEN; i++)
        if (mem[WOFF + i] != pattern(i)) {
            EXPECT(0, "byte %zu of the window: 0x%02x, not 0x%02x", i,
                   (unsigned char)mem[WOFF + i], (unsigned char)pattern(i));
            break;
        }
    ibv_dealloc_mw(mw);
    ibv_destroy_qp(b1);
    ibv_destroy_qp(b2);
    ibv_destroy_cq(cq);
    ibv_dereg_mr(mr);
    t_dev_close(&d);
    free(mem);
    exit(th_failures ? 1 : 0);
}

static int rdma(struct ibv_qp *qp, struct ibv_cq *cq, enum ibv_wr_opcode op,
                struct ibv_mr *mr, char *buf, uint32_t len, uint64_t raddr,
                uint32_t rkey)
{
    struct ibv_wc wc;

    if (t_post_send(qp, op, mr, buf, len, raddr, rkey, 1))
        return -2;
    return t_poll(cq, &wc, 20000) ? (int)wc.status : -1;
}

int main(void)
{
    struct t_dev d;
    struct ibv_cq *cq1, *cq2;
    struct ibv_qp *a1, *a2;
    struct ibv_mr *mr;
    struct t_conn c = t_conn_default();
    struct info peer, me;
    char *mem;
    int p2c[2], c2p[2], st, s;
    pid_t pid;
    char q = 'q';

    th_name = "t_mw_two_proc";
    th_case = "parent";
    t_dev_open(&d);
    CHECK(pipe(p2c) == 0 && pipe(c2p) == 0, "pipe");
    pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        close(p2c[1]);
        close(c2p[0]);
        child_main(p2c[0], c2p[1]);
    }
    close(p2c[0]);
    close(c2p[1]);
    mem = malloc(2 * WLEN); /* after fork: the child would leak its copy */
    c.retry_cnt = 1;
    c.timeout = 18;
    cq1 = t_cq(&d, 16);
    cq2 = t_cq(&d, 16);
    a1 = t_rc_qp(&d, cq1, cq1, 8, 8);
    a2 = t_rc_qp(&d, cq2, cq2, 8, 8);
    mr = ibv_reg_mr(d.pd, mem, 2 * WLEN, IBV_ACCESS_LOCAL_WRITE);
    CHECK(mem && mr, "parent mr");
    xread(c2p[0], &peer, sizeof(peer));
    me = (struct info){d.lid, a1->qp_num, a2->qp_num, 0, 0};
    xwrite(p2c[1], &me, sizeof(me));
    CHECK(t_connect(a1, peer.lid, peer.qpn1, &c) == 0 &&
              t_connect(a2, peer.lid, peer.qpn2, &c) == 0, "connect");
    xread(c2p[0], &peer, sizeof(peer));

    th_case = "one-sided through the window, peer stopped";
    CHECK(kill(pid, SIGSTOP) == 0 && waitpid(pid, &st, WUNTRACED) == pid &&
              WIFSTOPPED(st), "stop the child");
    for (size_t i = 0; i < WLEN; i++)
        mem[i] = pattern(i);
    s = rdma(a1, cq1, IBV_WR_RDMA_WRITE, mr, mem, WLEN, peer.addr + WOFF, peer.rkey);
    EXPECT(s == IBV_WC_SUCCESS, "write: %d (%s)", s,
           s >= 0 ? ibv_wc_status_str((enum ibv_wc_status)s) : "no completion");
    memset(mem + WLEN, 0, WLEN);
    s = rdma(a1, cq1, IBV_WR_RDMA_READ, mr, mem + WLEN, WLEN, peer.addr + WOFF,
             peer.rkey);
    EXPECT(s == IBV_WC_SUCCESS && !memcmp(mem, mem + WLEN, WLEN), "read back: %d", s);
    CHECK(kill(pid, SIGCONT) == 0, "continue the child");

    th_case = "another QP, outside the window";
    s = rdma(a2, cq2, IBV_WR_RDMA_READ, mr, mem + WLEN, 64, peer.addr + WOFF,
             peer.rkey);
    EXPECT(s == IBV_WC_REM_ACCESS_ERR, "a type 2 window through a QP it is not "
           "bound to: %d", s);
    s = rdma(a1, cq1, IBV_WR_RDMA_READ, mr, mem + WLEN, 64, peer.addr, peer.rkey);
    EXPECT(s == IBV_WC_REM_ACCESS_ERR, "a read before the window: %d", s);

    xwrite(p2c[1], &q, 1);
    EXPECT(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
           "child failed: %#x", st);
    ibv_destroy_qp(a1);
    ibv_destroy_qp(a2);
    ibv_destroy_cq(cq1);
    ibv_destroy_cq(cq2);
    ibv_dereg_mr(mr);
    t_dev_close(&d);
    free(mem);
    return t_finish();
}
