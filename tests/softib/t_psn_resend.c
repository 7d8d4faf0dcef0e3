/*
 * softib: a request sent again after an RNR NAK keeps its PSN (the fix of
 * db413ce, which the XRC flood found 1 run in 5), made deterministic.
 *
 * One XRC INI QP (this process, I) sends into the SRQs of two processes of
 * one XRC domain: X (owns the TGT QP; SOFTIB_FAULT=rnr=1, so it NAKs the
 * first send it sees with RNR) and Y. Each process answers for its own SRQ,
 * so PSNs seen by each have gaps.
 *   1. X is stopped (SIGSTOP); I posts A (to X) then B (to Y); Y receives B
 *      and acknowledges it: B is done while A is still outstanding.
 *   2. X runs again and NAKs A (RNR); I goes back and sends A again, which
 *      X now takes.
 *   3. I posts D to Y. D must get a PSN after B's. When going back handed
 *      PSNs out again, A took its own and D took B's: Y saw a duplicate of
 *      B, acknowledged it, and D was never delivered.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t_common.h"

struct msg {
    uint16_t lid;
    uint32_t qpn, srqn;
};

static char xrc_path[256];

static void xwrite(int fd, const void *p, size_t n)
{
    CHECK(write(fd, p, n) == (ssize_t)n, "pipe write");
}

static void xread(int fd, void *p, size_t n)
{
    CHECK(read(fd, p, n) == (ssize_t)n, "pipe read");
}

static struct ibv_xrcd *open_domain(struct t_dev *d)
{
    struct ibv_xrcd_init_attr xa = {
        .comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
        .oflags = O_CREAT};
    struct ibv_xrcd *x;

    xa.fd = open(xrc_path, O_RDONLY | O_CREAT, 0600);
    CHECK(xa.fd >= 0, "open %s", xrc_path);
    x = ibv_open_xrcd(d->ctx, &xa);
    CHECK(x, "ibv_open_xrcd: %s", strerror(errno));
    return x;
}

static struct ibv_srq *xrc_srq(struct t_dev *d, struct ibv_xrcd *x,
                               struct ibv_cq *cq, uint32_t *srqn_p)
{
    struct ibv_srq_init_attr_ex sa = {
        .attr = {.max_wr = 8, .max_sge = 1},
        .comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_XRCD |
                     IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_PD,
        .srq_type = IBV_SRQT_XRC, .pd = d->pd, .xrcd = x, .cq = cq};
    struct ibv_srq *srq = ibv_create_srq_ex(d->ctx, &sa);

    CHECK(srq, "create XRC SRQ: %s", strerror(errno));
    CHECK(ibv_get_srq_num(srq, srqn_p) == 0, "get_srq_num");
    return srq;
}

static void post_srq(struct ibv_srq *srq, struct ibv_mr *mr, char *buf,
                     uint64_t id)
{
    struct ibv_sge sge = {(uintptr_t)buf, 64, mr->lkey};
    struct ibv_recv_wr wr = {.wr_id = id, .sg_list = &sge, .num_sge = 1}, *bad;

    CHECK(ibv_post_srq_recv(srq, &wr, &bad) == 0, "post_srq_recv");
}

/* one receive of `text` into buf: 'K' on fd, else 'F' */
static void expect_message(struct ibv_cq *cq, const char *buf, uint64_t id,
                           const char *text, int fd)
{
    struct ibv_wc wc;
    char r = 'F';

    if (t_poll(cq, &wc, 60000) && wc.status == IBV_WC_SUCCESS &&
        wc.wr_id == id && !strcmp(buf, text))
        r = 'K';
    else
        fprintf(stderr, "%s: message \"%s\" not received\n", th_case, text);
    /* an ACK of ours that was deferred leaves on this pass */
    ibv_poll_cq(cq, 0, &wc);
    xwrite(fd, &r, 1);
}

/* X: the TGT QP and an SRQ; NAKs the first send (RNR) */
static void child_x(int rfd, int wfd)
{
    struct t_dev d;
    struct ibv_cq *cq;
    struct ibv_xrcd *x;
    struct ibv_srq *srq;
    struct ibv_qp *tgt;
    struct ibv_qp_init_attr_ex qa;
    struct ibv_qp_attr a;
    struct ibv_mr *mr;
    static char buf[64];
    struct msg me, ini;
    char c;

    th_case = "X";
    th_failures = 0;
    setenv("SOFTIB_FAULT", "rnr=1", 1);
    t_dev_open(&d);
    cq = t_cq(&d, 16);
    x = open_domain(&d);
    srq = xrc_srq(&d, x, cq, &me.srqn);
    memset(&qa, 0, sizeof(qa));
    qa.qp_type = IBV_QPT_XRC_RECV;
    qa.comp_mask = IBV_QP_INIT_ATTR_XRCD;
    qa.xrcd = x;
    tgt = ibv_create_qp_ex(d.ctx, &qa);
    CHECK(tgt, "create TGT QP: %s", strerror(errno));
    mr = ibv_reg_mr(d.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
    CHECK(mr, "reg_mr");
    me.lid = d.lid;
    me.qpn = tgt->qp_num;
    xwrite(wfd, &me, sizeof(me));
    xread(rfd, &ini, sizeof(ini));
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    CHECK(ibv_modify_qp(tgt, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
                                     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == 0,
          "TGT INIT");
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = ini.qpn;
    a.rq_psn = 1;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 1;
    a.ah_attr.dlid = ini.lid;
    a.ah_attr.port_num = 1;
    CHECK(ibv_modify_qp(tgt, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                                     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                     IBV_QP_MAX_DEST_RD_ATOMIC |
                                     IBV_QP_MIN_RNR_TIMER) == 0, "TGT RTR");
    post_srq(srq, mr, buf, 1);
    xwrite(wfd, &me, 1); /* ready (I stops us now) */
    expect_message(cq, buf, 1, "A", wfd);
    xread(rfd, &c, 1);
    ibv_destroy_qp(tgt);
    ibv_destroy_srq(srq);
    ibv_destroy_cq(cq);
    ibv_close_xrcd(x);
    ibv_dereg_mr(mr);
    t_dev_close(&d);
    exit(th_failures ? 1 : 0);
}

/* Y: an SRQ of the same domain; receives B, then D */
static void child_y(int rfd, int wfd)
{
    struct t_dev d;
    struct ibv_cq *cq;
    struct ibv_xrcd *x;
    struct ibv_srq *srq;
    struct ibv_mr *mr;
    static char buf[128];
    struct msg me = {0};
    char c;

    th_case = "Y";
    th_failures = 0;
    t_dev_open(&d);
    cq = t_cq(&d, 16);
    x = open_domain(&d);
    srq = xrc_srq(&d, x, cq, &me.srqn);
    mr = ibv_reg_mr(d.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
    CHECK(mr, "reg_mr");
    post_srq(srq, mr, buf, 1);
    post_srq(srq, mr, buf + 64, 2);
    xwrite(wfd, &me, sizeof(me));
    expect_message(cq, buf, 1, "B", wfd);
    expect_message(cq, buf + 64, 2, "D", wfd);
    xread(rfd, &c, 1);
    ibv_destroy_srq(srq);
    ibv_destroy_cq(cq);
    ibv_close_xrcd(x);
    ibv_dereg_mr(mr);
    t_dev_close(&d);
    exit(th_failures ? 1 : 0);
}

static void send_to(struct ibv_qp *qp, struct ibv_mr *mr, char *buf,
                    uint32_t srqn, const char *text, uint64_t id)
{
    struct ibv_sge sge = {(uintptr_t)buf, (uint32_t)strlen(text) + 1, mr->lkey};
    struct ibv_send_wr wr = {.wr_id = id, .sg_list = &sge, .num_sge = 1,
                             .opcode = IBV_WR_SEND,
                             .send_flags = IBV_SEND_SIGNALED}, *bad;

    strcpy(buf, text);
    wr.qp_type.xrc.remote_srqn = srqn;
    EXPECT(ibv_post_send(qp, &wr, &bad) == 0, "post %s", text);
}

int main(void)
{
    struct t_dev d;
    struct ibv_cq *cq;
    struct ibv_qp *ini;
    struct ibv_qp_init_attr_ex qa;
    struct ibv_qp_attr a;
    struct ibv_mr *mr;
    static char buf[3][64];
    int ix[2], xi[2], iy[2], yi[2], st;
    pid_t px, py;
    struct msg xm, ym, me;
    struct ibv_wc wc;
    char r;

    signal(SIGPIPE, SIG_IGN);
    th_name = "t_psn_resend";
    th_case = "I";
    t_dev_open(&d);
    snprintf(xrc_path, sizeof(xrc_path), "%s/xrc_domain", getenv("SOFTIB_DIR"));
    CHECK(!pipe(ix) && !pipe(xi) && !pipe(iy) && !pipe(yi), "pipes");
    px = fork();
    if (px == 0) {
        close(ix[1]), close(xi[0]), close(iy[0]), close(iy[1]), close(yi[0]),
            close(yi[1]);
        child_x(ix[0], xi[1]);
    }
    py = fork();
    if (py == 0) {
        close(ix[0]), close(ix[1]), close(xi[0]), close(xi[1]), close(iy[1]),
            close(yi[0]);
        child_y(iy[0], yi[1]);
    }
    CHECK(px > 0 && py > 0, "fork");
    close(ix[0]), close(xi[1]), close(iy[0]), close(yi[1]);

    cq = t_cq(&d, 16);
    memset(&qa, 0, sizeof(qa));
    qa.qp_type = IBV_QPT_XRC_SEND;
    qa.comp_mask = IBV_QP_INIT_ATTR_PD;
    qa.pd = d.pd;
    qa.send_cq = cq;
    qa.cap.max_send_wr = 8;
    qa.cap.max_send_sge = 1;
    ini = ibv_create_qp_ex(d.ctx, &qa);
    CHECK(ini, "create XRC_SEND QP: %s", strerror(errno));
    mr = ibv_reg_mr(d.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
    CHECK(mr, "reg_mr");

    xread(xi[0], &xm, sizeof(xm));
    me = (struct msg){d.lid, ini->qp_num, 0};
    xwrite(ix[1], &me, sizeof(me));
    xread(xi[0], &r, 1); /* X ready */
    xread(yi[0], &ym, sizeof(ym));

    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    CHECK(ibv_modify_qp(ini, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
                                     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == 0,
          "INI INIT");
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = xm.qpn;
    a.rq_psn = 1;
    a.ah_attr.dlid = xm.lid;
    a.ah_attr.port_num = 1;
    CHECK(ibv_modify_qp(ini, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                                     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN) == 0,
          "INI RTR");
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 20;   /* 4.3 s: the RNR NAK, not a timeout, sends A again */
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.sq_psn = 1;
    a.max_rd_atomic = 1;
    CHECK(ibv_modify_qp(ini, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
                                     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) == 0,
          "INI RTS");

    th_case = "B done while A is outstanding";
    CHECK(kill(px, SIGSTOP) == 0 && waitpid(px, &st, WUNTRACED) == px &&
              WIFSTOPPED(st), "stop X");
    send_to(ini, mr, buf[0], xm.srqn, "A", 1);
    send_to(ini, mr, buf[1], ym.srqn, "B", 2);
    xread(yi[0], &r, 1);
    EXPECT(r == 'K', "Y did not receive B");
    /* Y's ACK of B is in our socket: take it in (A holds B's completion) */
    for (int i = 0; i < 3; i++)
        EXPECT(ibv_poll_cq(cq, 1, &wc) == 0, "a completion before A's");

    th_case = "A sent again after the RNR NAK";
    CHECK(kill(px, SIGCONT) == 0, "continue X");
    xread(xi[0], &r, 1);
    EXPECT(r == 'K', "X did not receive A");
    EXPECT(t_poll(cq, &wc, 60000) && wc.wr_id == 1 && wc.status == IBV_WC_SUCCESS,
           "A's completion: %s", ibv_wc_status_str(wc.status));
    EXPECT(t_poll(cq, &wc, 60000) && wc.wr_id == 2 && wc.status == IBV_WC_SUCCESS,
           "B's completion: %s", ibv_wc_status_str(wc.status));

    th_case = "D after B";
    send_to(ini, mr, buf[2], ym.srqn, "D", 3);
    EXPECT(t_poll(cq, &wc, 60000) && wc.wr_id == 3 && wc.status == IBV_WC_SUCCESS,
           "D's completion: %s", ibv_wc_status_str(wc.status));
    xread(yi[0], &r, 1);
    EXPECT(r == 'K', "Y did not receive D (it went out under B's PSN)");

    r = 'q';
    xwrite(ix[1], &r, 1);
    xwrite(iy[1], &r, 1);
    EXPECT(waitpid(px, &st, 0) == px && WIFEXITED(st) && !WEXITSTATUS(st),
           "X failed");
    EXPECT(waitpid(py, &st, 0) == py && WIFEXITED(st) && !WEXITSTATUS(st),
           "Y failed");
    ibv_destroy_qp(ini);
    ibv_destroy_cq(cq);
    ibv_dereg_mr(mr);
    t_dev_close(&d);
    return t_finish();
}
