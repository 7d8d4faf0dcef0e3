/*
 * softib: every work-completion error of issue 3, with its exact status on
 * both sides where the IBTA defines one. Each case uses a fresh pair of RC
 * QPs (an error moves the QP to ERR), connected within this process.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "t_common.h"

static struct t_dev d;
static char *mem;            /* 64 KiB, registered three ways below */
static struct ibv_mr *mr_all, *mr_ro, *mr_local;

struct pair {
    struct ibv_cq *acq, *bcq;
    struct ibv_qp *a, *b;     /* a requests, b responds */
};

static void pair_make(struct pair *p, const struct t_conn *ca,
                      const struct t_conn *cb)
{
    p->acq = t_cq(&d, 64);
    p->bcq = t_cq(&d, 64);
    p->a = t_rc_qp(&d, p->acq, p->acq, 16, 16);
    p->b = t_rc_qp(&d, p->bcq, p->bcq, 16, 16);
    CHECK(t_connect(p->a, d.lid, p->b->qp_num, ca) == 0, "connect a");
    CHECK(t_connect(p->b, d.lid, p->a->qp_num, cb) == 0, "connect b");
}

static void pair_free(struct pair *p)
{
    ibv_destroy_qp(p->a);
    ibv_destroy_qp(p->b);
    ibv_destroy_cq(p->acq);
    ibv_destroy_cq(p->bcq);
}

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* one requester op, expecting status st on a's CQ */
static void expect_status(const char *name, enum ibv_wr_opcode op,
                          struct ibv_mr *lmr, void *lbuf, uint32_t len,
                          uint64_t raddr, uint32_t rkey, int b_access,
                          enum ibv_wc_status st)
{
    struct t_conn c = t_conn_default();
    struct pair p;
    struct ibv_wc wc;

    th_case = name;
    c.access = b_access;
    pair_make(&p, &c, &c);
    EXPECT(t_post_send(p.a, op, lmr, lbuf, len, raddr, rkey, 7) == 0, "post");
    EXPECT(t_poll(p.acq, &wc, 2000), "no completion");
    EXPECT(wc.status == st && wc.wr_id == 7, "got %s, want %s",
            ibv_wc_status_str(wc.status), ibv_wc_status_str(st));
    /* the QP is in ERR now: the next request is flushed */
    EXPECT(t_post_send(p.a, IBV_WR_SEND, mr_all, mem, 8, 0, 0, 8) == 0,
            "post after error");
    EXPECT(t_poll(p.acq, &wc, 2000) && wc.status == IBV_WC_WR_FLUSH_ERR,
            "request after error not flushed: %s", ibv_wc_status_str(wc.status));
    pair_free(&p);
}

static void test_local_and_remote(void)
{
    const int all = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
                    IBV_ACCESS_REMOTE_ATOMIC;
    uint64_t base = (uintptr_t)mem;
    uint64_t ro = (uintptr_t)mr_ro->addr;
    struct ibv_mr fake;

    /* local protection: wrong lkey; sge beyond the region; read into a
     * region without LOCAL_WRITE */
    fake = *mr_all;
    fake.lkey ^= 0x5a;
    expect_status("lkey wrong", IBV_WR_RDMA_WRITE, &fake, mem, 8, base + 1024,
                  mr_all->rkey, all, IBV_WC_LOC_PROT_ERR);
    expect_status("sge out of bounds", IBV_WR_RDMA_WRITE, mr_all,
                  mem + 65536 - 4, 8, base + 1024, mr_all->rkey, all,
                  IBV_WC_LOC_PROT_ERR);
    expect_status("read into read-only", IBV_WR_RDMA_READ, mr_local,
                  mr_local->addr, 8, base, mr_all->rkey, all, IBV_WC_LOC_PROT_ERR);

    /* remote access: wrong rkey, out of bounds, missing access rights */
    expect_status("rkey wrong", IBV_WR_RDMA_WRITE, mr_all, mem, 8, base + 1024,
                  mr_all->rkey ^ 0x33, all, IBV_WC_REM_ACCESS_ERR);
    expect_status("write out of bounds", IBV_WR_RDMA_WRITE, mr_all, mem, 64,
                  base + 65536 - 32, mr_all->rkey, all, IBV_WC_REM_ACCESS_ERR);
    expect_status("read out of bounds", IBV_WR_RDMA_READ, mr_all, mem, 64,
                  base - 8, mr_all->rkey, all, IBV_WC_REM_ACCESS_ERR);
    expect_status("write to read-only MR", IBV_WR_RDMA_WRITE, mr_all, mem, 8,
                  ro, mr_ro->rkey, all, IBV_WC_REM_ACCESS_ERR);
    expect_status("read without REMOTE_READ", IBV_WR_RDMA_READ, mr_all, mem, 8,
                  (uintptr_t)mr_local->addr, mr_local->rkey, all,
                  IBV_WC_REM_ACCESS_ERR);
    expect_status("atomic without REMOTE_ATOMIC", IBV_WR_ATOMIC_FETCH_AND_ADD,
                  mr_all, mem, 8, ro, mr_ro->rkey, all, IBV_WC_REM_ACCESS_ERR);
    expect_status("QP without REMOTE_WRITE", IBV_WR_RDMA_WRITE, mr_all, mem, 8,
                  base + 1024, mr_all->rkey, IBV_ACCESS_REMOTE_READ,
                  IBV_WC_REM_ACCESS_ERR);
    expect_status("QP without REMOTE_READ", IBV_WR_RDMA_READ, mr_all, mem, 8,
                  base + 1024, mr_all->rkey, IBV_ACCESS_REMOTE_WRITE,
                  IBV_WC_REM_ACCESS_ERR);
    expect_status("atomic misaligned", IBV_WR_ATOMIC_CMP_AND_SWP, mr_all, mem, 8,
                  base + 1028, mr_all->rkey, all, IBV_WC_REM_INV_REQ_ERR);
}

static void test_recv_errors(void)
{
    struct t_conn c = t_conn_default();
    struct pair p;
    struct ibv_wc wc;
    struct ibv_mr fake;

    th_case = "receive buffer too small";
    pair_make(&p, &c, &c);
    EXPECT(t_post_recv(p.b, mr_all, mem + 4096, 16, 55) == 0, "post_recv");
    EXPECT(t_post_send(p.a, IBV_WR_SEND, mr_all, mem, 64, 0, 0, 1) == 0, "post");
    EXPECT(t_poll(p.bcq, &wc, 2000), "no receive completion");
    EXPECT(wc.status == IBV_WC_LOC_LEN_ERR && wc.wr_id == 55,
            "responder got %s", ibv_wc_status_str(wc.status));
    EXPECT(t_poll(p.acq, &wc, 2000), "no send completion");
    EXPECT(wc.status == IBV_WC_REM_INV_REQ_ERR, "requester got %s",
            ibv_wc_status_str(wc.status));
    pair_free(&p);

    th_case = "receive with a bad lkey";
    pair_make(&p, &c, &c);
    fake = *mr_all;
    fake.lkey ^= 0x77;
    EXPECT(t_post_recv(p.b, &fake, mem + 4096, 64, 56) == 0, "post_recv");
    EXPECT(t_post_send(p.a, IBV_WR_SEND, mr_all, mem, 8, 0, 0, 1) == 0, "post");
    EXPECT(t_poll(p.bcq, &wc, 2000) && wc.status == IBV_WC_LOC_PROT_ERR,
            "responder got %s", ibv_wc_status_str(wc.status));
    EXPECT(t_poll(p.acq, &wc, 2000) && wc.status == IBV_WC_REM_OP_ERR,
            "requester got %s", ibv_wc_status_str(wc.status));
    pair_free(&p);
}

static void test_rnr(void)
{
    struct t_conn ca = t_conn_default(), cb = t_conn_default();
    struct pair p;
    struct ibv_wc wc;
    double t0, el;

    th_case = "RNR retry exceeded";
    ca.rnr_retry = 2;
    cb.min_rnr_timer = 14; /* 1.28 ms between tries */
    pair_make(&p, &ca, &cb);
    t0 = now_ms();
    EXPECT(t_post_send(p.a, IBV_WR_SEND, mr_all, mem, 8, 0, 0, 1) == 0, "post");
    EXPECT(t_poll(p.acq, &wc, 3000), "no completion");
    el = now_ms() - t0;
    EXPECT(wc.status == IBV_WC_RNR_RETRY_EXC_ERR, "got %s",
            ibv_wc_status_str(wc.status));
    EXPECT(el >= 2 * 1.28, "gave up after %.2f ms, before 2 RNR waits", el);
    pair_free(&p);

    th_case = "RNR retry forever (7)";
    ca.rnr_retry = 7;
    cb.min_rnr_timer = 1;
    pair_make(&p, &ca, &cb);
    EXPECT(t_post_send(p.a, IBV_WR_SEND_WITH_IMM, mr_all, mem, 8, 0, 0, 1) == 0,
            "post");
    EXPECT(t_quiet(p.acq, 100), "send completed without a receive");
    EXPECT(t_post_recv(p.b, mr_all, mem + 4096, 64, 9) == 0, "post_recv");
    EXPECT(t_poll(p.acq, &wc, 2000) && wc.status == IBV_WC_SUCCESS,
            "send after late receive: %s", ibv_wc_status_str(wc.status));
    EXPECT(t_poll(p.bcq, &wc, 2000) && wc.status == IBV_WC_SUCCESS &&
                wc.wr_id == 9 && (wc.wc_flags & IBV_WC_WITH_IMM),
            "receive: %s", ibv_wc_status_str(wc.status));
    pair_free(&p);
}

static void test_retry_exceeded(void)
{
    struct t_conn c = t_conn_default();
    struct ibv_cq *cq = t_cq(&d, 8);
    struct ibv_qp *qp = t_rc_qp(&d, cq, cq, 4, 4);
    struct ibv_wc wc;
    double t0, el;

    /* a QP number nobody owns: packets vanish, as towards a dead peer */
    th_case = "transport retry exceeded";
    c.timeout = 12;   /* 16.8 ms */
    c.retry_cnt = 2;  /* 3 tries in all */
    CHECK(t_connect(qp, d.lid, qp->qp_num + 1000, &c) == 0, "connect");
    t0 = now_ms();
    EXPECT(t_post_send(qp, IBV_WR_SEND, mr_all, mem, 8, 0, 0, 3) == 0, "post");
    EXPECT(t_poll(cq, &wc, 5000), "no completion");
    el = now_ms() - t0;
    EXPECT(wc.status == IBV_WC_RETRY_EXC_ERR && wc.wr_id == 3, "got %s",
            ibv_wc_status_str(wc.status));
    EXPECT(el >= 3 * 16.7 && el < 2000, "took %.1f ms, want about 3 x 16.8", el);
    ibv_destroy_qp(qp);
    ibv_destroy_cq(cq);
}

static void test_cq_overflow(void)
{
    struct t_conn c = t_conn_default();
    struct ibv_cq *small = t_cq(&d, 2), *bcq = t_cq(&d, 8);
    struct ibv_qp *a = t_rc_qp(&d, small, small, 8, 8);
    struct ibv_qp *b = t_rc_qp(&d, bcq, bcq, 8, 8);
    struct ibv_async_event ev;
    struct pollfd pfd = {.fd = d.ctx->async_fd, .events = POLLIN};
    int got = -1;

    th_case = "CQ overflow";
    CHECK(t_connect(a, d.lid, b->qp_num, &c) == 0 &&
                  t_connect(b, d.lid, a->qp_num, &c) == 0, "connect");
    fcntl(d.ctx->async_fd, F_SETFL, fcntl(d.ctx->async_fd, F_GETFL) | O_NONBLOCK);
    for (int i = 0; i < 3; i++)
        EXPECT(t_post_send(a, IBV_WR_RDMA_WRITE, mr_all, mem, 8,
                            (uintptr_t)mem + 2048, mr_all->rkey, (uint64_t)i) == 0,
                "post %d", i);
    for (int i = 0; i < 200 && got != 0; i++) {
        struct ibv_wc wc;

        ibv_poll_cq(bcq, 1, &wc); /* drives progress, reads nothing from small */
        if (poll(&pfd, 1, 10) == 1)
            got = ibv_get_async_event(d.ctx, &ev);
    }
    EXPECT(got == 0, "no async event");
    if (got == 0) {
        EXPECT(ev.event_type == IBV_EVENT_CQ_ERR && ev.element.cq == small,
                "event %s", ibv_event_type_str(ev.event_type));
        ibv_ack_async_event(&ev);
    }
    ibv_destroy_qp(a);
    ibv_destroy_qp(b);
    ibv_destroy_cq(small);
    ibv_destroy_cq(bcq);
}

int main(void)
{
    t_dev_open(&d);
    mem = aligned_alloc(4096, 3 * 65536);
    CHECK(mem, "alloc");
    memset(mem, 0, 3 * 65536);
    mr_all = ibv_reg_mr(d.pd, mem, 65536,
                        IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
                            IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
    mr_ro = ibv_reg_mr(d.pd, mem + 65536, 65536, IBV_ACCESS_REMOTE_READ);
    mr_local = ibv_reg_mr(d.pd, mem + 2 * 65536, 65536, 0);
    CHECK(mr_all && mr_ro && mr_local, "reg_mr");
    test_local_and_remote();
    test_recv_errors();
    test_rnr();
    test_retry_exceeded();
    test_cq_overflow();
    ibv_dereg_mr(mr_all);
    ibv_dereg_mr(mr_ro);
    ibv_dereg_mr(mr_local);
    t_dev_close(&d);
    free(mem);
    return t_finish();
}
