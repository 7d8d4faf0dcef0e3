/*
 * softib XRC across three processes sharing one XRC domain through a file:
 *   A (this process)  XRC_SEND (initiator) QP
 *   B (child)         opens the domain, XRC SRQ, XRC_RECV (target) QP
 *   C (child)         opens the domain, ibv_open_qp on B's target QP, and an
 *                     XRC SRQ of its own; also an SRQ in a private domain
 * A sends through B's target QP into B's SRQ and into C's SRQ (data checked
 * by the receivers); a send into the SRQ of another domain fails with
 * IBV_WC_REM_INV_REQ_ERR; ibv_open_qp of an unknown number fails (ENOENT).
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
    uint32_t qpn, srqn, srqn_other;
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

static struct ibv_xrcd *open_domain(struct t_dev *d, int *fd_p)
{
    struct ibv_xrcd_init_attr xa = {
        .comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
        .oflags = O_CREAT};
    struct ibv_xrcd *x;

    xa.fd = open(xrc_path, O_RDONLY | O_CREAT, 0600);
    CHECK(xa.fd >= 0, "open %s", xrc_path);
    x = ibv_open_xrcd(d->ctx, &xa);
    CHECK(x, "ibv_open_xrcd: %s", strerror(errno));
    *fd_p = xa.fd;
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

static void post_srq(struct ibv_srq *srq, struct ibv_mr *mr, char *buf)
{
    struct ibv_sge sge = {(uintptr_t)buf, 64, mr->lkey};
    struct ibv_recv_wr wr = {.wr_id = 77, .sg_list = &sge, .num_sge = 1}, *bad;

    CHECK(ibv_post_srq_recv(srq, &wr, &bad) == 0, "post_srq_recv");
}

/* wait for one receive carrying `text`; report 'K' or 'F' on fd */
static void expect_message(struct ibv_cq *cq, const char *buf, const char *text,
                           int fd)
{
    struct ibv_wc wc;
    char r = 'F';

    if (t_poll(cq, &wc, 10000) && wc.status == IBV_WC_SUCCESS &&
        wc.wr_id == 77 && wc.byte_len == strlen(text) + 1 &&
        !strcmp(buf, text))
        r = 'K';
    else
        fprintf(stderr, "%s: receive failed\n", th_case);
    xwrite(fd, &r, 1);
}

static void child_b(int rfd, int wfd)
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
    struct msg me, peer;
    int fd;
    char c;

    th_case = "B";
    t_dev_open(&d);
    cq = t_cq(&d, 16);
    x = open_domain(&d, &fd);
    srq = xrc_srq(&d, x, cq, &me.srqn);
    memset(&qa, 0, sizeof(qa));
    qa.qp_type = IBV_QPT_XRC_RECV;
    qa.comp_mask = IBV_QP_INIT_ATTR_XRCD;
    qa.xrcd = x;
    tgt = ibv_create_qp_ex(d.ctx, &qa);
    CHECK(tgt, "create TGT QP: %s", strerror(errno));
    mr = ibv_reg_mr(d.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
    me.lid = d.lid;
    me.qpn = tgt->qp_num;
    xwrite(wfd, &me, sizeof(me));
    xread(rfd, &peer, sizeof(peer));
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    CHECK(ibv_modify_qp(tgt, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
                                         IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == 0,
              "TGT INIT");
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = peer.qpn;
    a.rq_psn = 1;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 1;
    a.ah_attr.dlid = peer.lid;
    a.ah_attr.port_num = 1;
    CHECK(ibv_modify_qp(tgt, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                                         IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                         IBV_QP_MAX_DEST_RD_ATOMIC |
                                         IBV_QP_MIN_RNR_TIMER) == 0, "TGT RTR");
    post_srq(srq, mr, buf);
    xwrite(wfd, &me, 1); /* ready */
    expect_message(cq, buf, "to B", wfd);
    xread(rfd, &c, 1); /* A is done: C's handle may go */
    EXPECT(ibv_destroy_qp(tgt) == 0, "destroy TGT");
    ibv_destroy_srq(srq);
    ibv_destroy_cq(cq);
    EXPECT(ibv_close_xrcd(x) == 0, "close xrcd");
    close(fd);
    ibv_dereg_mr(mr);
    t_dev_close(&d);
    exit(th_failures ? 1 : 0);
}

static void child_c(int rfd, int wfd)
{
    struct t_dev d;
    struct ibv_cq *cq;
    struct ibv_xrcd *x, *priv;
    struct ibv_srq *srq, *other;
    struct ibv_qp *opened, *bogus;
    struct ibv_qp_open_attr oa;
    struct ibv_xrcd_init_attr pa = {
        .comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
        .fd = -1, .oflags = O_CREAT};
    struct ibv_mr *mr, *mr2;
    static char buf[64], buf2[64];
    struct msg tgt, me;
    int fd;
    char c;

    th_case = "C";
    xread(rfd, &tgt, sizeof(tgt));
    t_dev_open(&d);
    cq = t_cq(&d, 16);
    x = open_domain(&d, &fd);
    memset(&oa, 0, sizeof(oa));
    oa.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
                   IBV_QP_OPEN_ATTR_TYPE;
    oa.qp_num = tgt.qpn;
    oa.xrcd = x;
    oa.qp_type = IBV_QPT_XRC_RECV;
    opened = ibv_open_qp(d.ctx, &oa);
    EXPECT(opened && opened->qp_num == tgt.qpn, "ibv_open_qp: %s",
            strerror(errno));
    oa.qp_num = tgt.qpn + 7;
    errno = 0;
    bogus = ibv_open_qp(d.ctx, &oa);
    EXPECT(!bogus && errno == ENOENT, "open_qp of an unknown QP: errno %d",
            errno);
    srq = xrc_srq(&d, x, cq, &me.srqn);
    priv = ibv_open_xrcd(d.ctx, &pa);
    CHECK(priv, "private xrcd");
    other = xrc_srq(&d, priv, cq, &me.srqn_other);
    mr = ibv_reg_mr(d.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
    mr2 = ibv_reg_mr(d.pd, buf2, sizeof(buf2), IBV_ACCESS_LOCAL_WRITE);
    post_srq(srq, mr, buf);
    post_srq(other, mr2, buf2);
    xwrite(wfd, &me, sizeof(me));
    expect_message(cq, buf, "to C", wfd);
    xread(rfd, &c, 1);
    EXPECT(t_quiet(cq, 20), "the private domain's SRQ received something");
    if (opened)
        EXPECT(ibv_destroy_qp(opened) == 0, "close opened QP");
    ibv_destroy_srq(srq);
    ibv_destroy_srq(other);
    ibv_destroy_cq(cq);
    ibv_close_xrcd(x);
    ibv_close_xrcd(priv);
    close(fd);
    ibv_dereg_mr(mr);
    ibv_dereg_mr(mr2);
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
    EXPECT(ibv_post_send(qp, &wr, &bad) == 0, "post to %s", text);
}

int main(void)
{
    struct t_dev d;
    struct ibv_cq *cq;
    struct ibv_qp *ini;
    struct ibv_qp_init_attr_ex qa;
    struct ibv_qp_attr a;
    struct ibv_mr *mr;
    static char buf[64];
    int ab[2], ba[2], ac[2], ca[2], st;
    pid_t pb, pc;
    struct msg b, c, me;
    struct ibv_wc wc;
    char r;

    signal(SIGPIPE, SIG_IGN);
    th_case = "A";
    t_dev_open(&d); /* also makes this test's SOFTIB_DIR */
    snprintf(xrc_path, sizeof(xrc_path), "%s/xrc_domain", getenv("SOFTIB_DIR"));
    CHECK(!pipe(ab) && !pipe(ba) && !pipe(ac) && !pipe(ca), "pipes");
    pb = fork();
    if (pb == 0) {
        close(ab[1]), close(ba[0]), close(ac[0]), close(ac[1]), close(ca[0]),
            close(ca[1]);
        child_b(ab[0], ba[1]);
    }
    pc = fork();
    if (pc == 0) {
        close(ab[0]), close(ab[1]), close(ba[0]), close(ba[1]), close(ac[1]),
            close(ca[0]);
        child_c(ac[0], ca[1]);
    }
    CHECK(pb > 0 && pc > 0, "fork");
    close(ab[0]), close(ba[1]), close(ac[0]), close(ca[1]);

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

    xread(ba[0], &b, sizeof(b));
    me = (struct msg){d.lid, ini->qp_num, 0, 0};
    xwrite(ab[1], &me, sizeof(me));
    xread(ba[0], &r, 1); /* B ready */
    xwrite(ac[1], &b, sizeof(b));
    xread(ca[0], &c, sizeof(c));

    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    CHECK(ibv_modify_qp(ini, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
                                         IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == 0,
              "INI INIT");
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = b.qpn;
    a.rq_psn = 1;
    a.ah_attr.dlid = b.lid;
    a.ah_attr.port_num = 1;
    CHECK(ibv_modify_qp(ini, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                                         IBV_QP_DEST_QPN | IBV_QP_RQ_PSN) == 0,
              "INI RTR");
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.sq_psn = 1;
    a.max_rd_atomic = 1;
    CHECK(ibv_modify_qp(ini, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
                                         IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                         IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) == 0,
              "INI RTS");

    th_case = "A to B";
    send_to(ini, mr, buf, b.srqn, "to B", 1);
    EXPECT(t_poll(cq, &wc, 10000) && wc.status == IBV_WC_SUCCESS && wc.wr_id == 1,
            "send to B's SRQ: %s", ibv_wc_status_str(wc.status));
    xread(ba[0], &r, 1);
    EXPECT(r == 'K', "B did not receive the message");

    th_case = "A to C through B's target QP";
    send_to(ini, mr, buf, c.srqn, "to C", 2);
    EXPECT(t_poll(cq, &wc, 10000) && wc.status == IBV_WC_SUCCESS && wc.wr_id == 2,
            "send to C's SRQ: %s", ibv_wc_status_str(wc.status));
    xread(ca[0], &r, 1);
    EXPECT(r == 'K', "C did not receive the message");

    th_case = "SRQ of another domain";
    send_to(ini, mr, buf, c.srqn_other, "elsewhere", 3);
    EXPECT(t_poll(cq, &wc, 10000) && wc.status == IBV_WC_REM_INV_REQ_ERR &&
                wc.wr_id == 3,
            "send to a foreign domain's SRQ: %s", ibv_wc_status_str(wc.status));

    r = 'q';
    xwrite(ab[1], &r, 1);
    xwrite(ac[1], &r, 1);
    EXPECT(waitpid(pb, &st, 0) == pb && WIFEXITED(st) && !WEXITSTATUS(st),
            "B failed");
    EXPECT(waitpid(pc, &st, 0) == pc && WIFEXITED(st) && !WEXITSTATUS(st),
            "C failed");
    ibv_destroy_qp(ini);
    ibv_destroy_cq(cq);
    ibv_dereg_mr(mr);
    t_dev_close(&d);
    return t_finish();
}
