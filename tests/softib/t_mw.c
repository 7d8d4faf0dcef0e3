/*
 * softib memory windows (IBTA 10.6.7; ibv_alloc_mw(3), ibv_bind_mw(3),
 * ibv_post_send(3) BIND_MW / LOCAL_INV / SEND_WITH_INV), one process, RC
 * pairs A -> B where B owns the memory and binds the windows:
 *   alloc      type 1 and 2, keys, an unknown type (EINVAL), the device's
 *              capability flags
 *   type 2     bound by IBV_WR_BIND_MW on B (IBV_WC_BIND_MW): A writes and
 *              reads through it byte for byte; outside the window, an
 *              atomic without REMOTE_ATOMIC, and through another QP of the
 *              same PD: IBV_WC_REM_ACCESS_ERR
 *   bind       IBV_WC_MW_BIND_ERR for: an MR without MW_BIND, remote write
 *              on an MR without LOCAL_WRITE, a range outside the MR, a key
 *              of another index, a type 2 window already bound; EINVAL for
 *              a type 1 window by post_send and a type 2 one by ibv_bind_mw;
 *              EPERM for an MR of another PD (ibv_bind_mw)
 *   invalidate LOCAL_INV (IBV_WC_LOCAL_INV), then the key opens nothing;
 *              LOCAL_INV of an MR's key or a type 1 window's:
 *              IBV_WC_LOC_QP_OP_ERR; SEND_WITH_INV: B's receive has
 *              IBV_WC_WITH_INV and the key, which then opens nothing; with
 *              a key that names no window: IBV_WC_REM_INV_REQ_ERR both sides
 *   type 1     ibv_bind_mw gives the window the next key; any QP of the PD
 *              may use it; bound with no range it opens nothing
 *   busy       ibv_dereg_mr of an MR with a bound window, ibv_dealloc_pd
 *              with a window: EBUSY
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "t_common.h"

#define NPAIRS 32

struct pair {
    struct ibv_cq *acq, *bcq;
    struct ibv_qp *a, *b;
};

static struct t_dev d;
static struct pair pairs[NPAIRS];
static int npairs;
static char lbuf[4096];       /* A's memory */
static char rbuf[4096];       /* B's memory */
static struct ibv_mr *lmr, *rmr;

static struct pair *pair_new(void)
{
    struct pair *p = &pairs[npairs++];
    struct t_conn c = t_conn_default();

    CHECK(npairs <= NPAIRS, "too many pairs");
    c.retry_cnt = 1;
    c.timeout = 18;
    p->acq = t_cq(&d, 32);
    p->bcq = t_cq(&d, 32);
    p->a = t_rc_qp(&d, p->acq, p->acq, 8, 8);
    p->b = t_rc_qp(&d, p->bcq, p->bcq, 8, 8);
    CHECK(t_connect(p->a, d.lid, p->b->qp_num, &c) == 0 &&
              t_connect(p->b, d.lid, p->a->qp_num, &c) == 0, "connect");
    return p;
}

static int post_bind(struct ibv_qp *qp, struct ibv_mw *mw, uint32_t rkey,
                     struct ibv_mr *mr, void *addr, uint64_t len,
                     unsigned int access, uint64_t id)
{
    struct ibv_send_wr wr, *bad;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = id;
    wr.opcode = IBV_WR_BIND_MW;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.bind_mw.mw = mw;
    wr.bind_mw.rkey = rkey;
    wr.bind_mw.bind_info.mr = mr;
    wr.bind_mw.bind_info.addr = (uintptr_t)addr;
    wr.bind_mw.bind_info.length = len;
    wr.bind_mw.bind_info.mw_access_flags = access;
    return ibv_post_send(qp, &wr, &bad);
}

static int post_inv(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t rkey,
                    uint64_t id)
{
    struct ibv_sge sge = {(uintptr_t)lbuf, 16, lmr->lkey};
    struct ibv_send_wr wr, *bad;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = id;
    wr.opcode = op;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.invalidate_rkey = rkey;
    if (op == IBV_WR_SEND_WITH_INV) {
        wr.sg_list = &sge;
        wr.num_sge = 1;
    }
    return ibv_post_send(qp, &wr, &bad);
}

/* the status of the next completion on cq, -1 when none comes */
static int status_of(struct ibv_cq *cq, struct ibv_wc *wc)
{
    if (!t_poll(cq, wc, 20000))
        return -1;
    return wc->status;
}

static const char *st(int s)
{
    return s < 0 ? "no completion" : ibv_wc_status_str((enum ibv_wc_status)s);
}

static struct ibv_mw *mw_new(enum ibv_mw_type type)
{
    struct ibv_mw *mw = ibv_alloc_mw(d.pd, type);

    CHECK(mw, "ibv_alloc_mw(%d): %s", type, strerror(errno));
    return mw;
}

/* B binds a type 2 window onto rbuf[off, off + len): its completion */
static int bind2(struct pair *p, struct ibv_mw *mw, struct ibv_mr *mr,
                 size_t off, uint64_t len, unsigned int access)
{
    struct ibv_wc wc;
    int s;

    EXPECT(post_bind(p->b, mw, ibv_inc_rkey(mw->rkey), mr, rbuf + off, len,
                     access, 7) == 0, "post BIND_MW");
    s = status_of(p->bcq, &wc);
    if (s == IBV_WC_SUCCESS)
        EXPECT(wc.opcode == IBV_WC_BIND_MW && wc.wr_id == 7,
               "bind completion: opcode %d wr_id %llu", wc.opcode,
               (unsigned long long)wc.wr_id);
    return s;
}

/* A's RDMA op through rkey at rbuf + off: its completion status */
static int rdma(struct pair *p, enum ibv_wr_opcode op, size_t off, uint32_t len,
                uint32_t rkey)
{
    struct ibv_wc wc;

    EXPECT(t_post_send(p->a, op, lmr, lbuf, len, (uintptr_t)(rbuf + off), rkey,
                       3) == 0, "post");
    return status_of(p->acq, &wc);
}

static void fill(char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (char)(seed + i * 7);
}

int main(void)
{
    const unsigned int rw = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
    struct ibv_device_attr da;
    struct ibv_mw *w1, *w2, *w;
    struct ibv_mr *nobind, *noloc;
    struct pair *p, *q;
    struct ibv_wc wc;
    int s;

    th_name = "t_mw";
    t_dev_open(&d);
    lmr = ibv_reg_mr(d.pd, lbuf, sizeof(lbuf), IBV_ACCESS_LOCAL_WRITE);
    rmr = ibv_reg_mr(d.pd, rbuf, sizeof(rbuf),
                     IBV_ACCESS_LOCAL_WRITE | rw | IBV_ACCESS_REMOTE_ATOMIC |
                         IBV_ACCESS_MW_BIND);
    nobind = ibv_reg_mr(d.pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE | rw);
    noloc = ibv_reg_mr(d.pd, rbuf, sizeof(rbuf),
                       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_MW_BIND);
    CHECK(lmr && rmr && nobind && noloc, "reg_mr: %s", strerror(errno));

    th_case = "alloc";
    EXPECT(ibv_query_device(d.ctx, &da) == 0 &&
               (da.device_cap_flags & IBV_DEVICE_MEM_WINDOW) &&
               (da.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B) && da.max_mw > 0,
           "memory windows not in the device attributes");
    w1 = mw_new(IBV_MW_TYPE_1);
    w2 = mw_new(IBV_MW_TYPE_2);
    EXPECT(w1->type == IBV_MW_TYPE_1 && w2->type == IBV_MW_TYPE_2 && w1->rkey &&
               w2->rkey && w1->rkey != w2->rkey && w1->pd == d.pd,
           "window fields: types %d %d keys 0x%x 0x%x", w1->type, w2->type,
           w1->rkey, w2->rkey);
    errno = 0;
    EXPECT(ibv_alloc_mw(d.pd, (enum ibv_mw_type)7) == NULL && errno == EINVAL,
           "unknown window type: errno %d", errno);
    EXPECT(rdma(pair_new(), IBV_WR_RDMA_READ, 0, 8, w2->rkey) ==
               IBV_WC_REM_ACCESS_ERR, "an unbound window's key opened memory");

    th_case = "type 2";
    p = pair_new();
    s = bind2(p, w2, rmr, 64, 128, rw);
    EXPECT(s == IBV_WC_SUCCESS, "bind: %s", st(s));
    fill(lbuf, 128, 3);
    s = rdma(p, IBV_WR_RDMA_WRITE, 64, 128, w2->rkey);
    EXPECT(s == IBV_WC_SUCCESS && !memcmp(rbuf + 64, lbuf, 128),
           "write through the window: %s", st(s));
    fill(rbuf + 64, 128, 11);
    memset(lbuf, 0, 128);
    s = rdma(p, IBV_WR_RDMA_READ, 64, 128, w2->rkey);
    EXPECT(s == IBV_WC_SUCCESS && !memcmp(rbuf + 64, lbuf, 128),
           "read through the window: %s", st(s));
    s = rdma(p, IBV_WR_RDMA_READ, 64 + 64, 128, w2->rkey);
    EXPECT(s == IBV_WC_REM_ACCESS_ERR, "read past the window's end: %s", st(s));
    q = pair_new();
    s = rdma(q, IBV_WR_RDMA_READ, 64, 8, w2->rkey);
    EXPECT(s == IBV_WC_REM_ACCESS_ERR,
           "a type 2 window used through a QP it is not bound to: %s", st(s));
    EXPECT(ibv_dereg_mr(rmr) == EBUSY, "dereg of an MR with a bound window");
    EXPECT(ibv_dealloc_pd(d.pd) == EBUSY, "dealloc of a PD with windows");

    th_case = "atomic";
    p = pair_new();
    w = mw_new(IBV_MW_TYPE_2);
    EXPECT(bind2(p, w, rmr, 0, 64, rw) == IBV_WC_SUCCESS, "bind");
    s = rdma(p, IBV_WR_ATOMIC_FETCH_AND_ADD, 0, 8, w->rkey);
    EXPECT(s == IBV_WC_REM_ACCESS_ERR, "atomic without REMOTE_ATOMIC: %s", st(s));
    p = pair_new();
    ibv_dealloc_mw(w);
    w = mw_new(IBV_MW_TYPE_2);
    EXPECT(bind2(p, w, rmr, 0, 64, rw | IBV_ACCESS_REMOTE_ATOMIC) == IBV_WC_SUCCESS,
           "bind");
    *(uint64_t *)rbuf = 40;
    s = rdma(p, IBV_WR_ATOMIC_FETCH_AND_ADD, 0, 8, w->rkey);
    EXPECT(s == IBV_WC_SUCCESS && *(uint64_t *)rbuf == 40 &&
               *(uint64_t *)lbuf == 40, "fetch-add through the window: %s", st(s));
    ibv_dealloc_mw(w);

    th_case = "bind errors";
    w = mw_new(IBV_MW_TYPE_2);
    s = bind2(pair_new(), w, nobind, 0, 64, rw);
    EXPECT(s == IBV_WC_MW_BIND_ERR, "bind on an MR without MW_BIND: %s", st(s));
    s = bind2(pair_new(), w, noloc, 0, 64, IBV_ACCESS_REMOTE_WRITE);
    EXPECT(s == IBV_WC_MW_BIND_ERR,
           "remote write on an MR without local write: %s", st(s));
    s = bind2(pair_new(), w, rmr, 4000, 200, rw);
    EXPECT(s == IBV_WC_MW_BIND_ERR, "a range outside the MR: %s", st(s));
    p = pair_new();
    EXPECT(post_bind(p->b, w, w1->rkey, rmr, rbuf, 64, rw, 7) == 0, "post");
    s = status_of(p->bcq, &wc);
    EXPECT(s == IBV_WC_MW_BIND_ERR, "a key of another index: %s", st(s));
    p = pair_new();
    s = bind2(p, w, rmr, 0, 64, rw);
    EXPECT(s == IBV_WC_SUCCESS, "bind: %s", st(s));
    s = bind2(p, w, rmr, 0, 64, rw);
    EXPECT(s == IBV_WC_MW_BIND_ERR, "bind of a bound type 2 window: %s", st(s));
    p = pair_new();
    EXPECT(post_bind(p->b, w1, ibv_inc_rkey(w1->rkey), rmr, rbuf, 64, rw, 7) == EINVAL,
           "a type 1 window bound by post_send");
    {
        struct ibv_mw_bind b = {.wr_id = 1, .send_flags = IBV_SEND_SIGNALED,
                                .bind_info = {rmr, (uintptr_t)rbuf, 64, rw}};
        struct ibv_pd *pd2 = ibv_alloc_pd(d.ctx);
        struct ibv_mr *other = ibv_reg_mr(pd2, rbuf, 64, IBV_ACCESS_LOCAL_WRITE |
                                                             IBV_ACCESS_MW_BIND);

        EXPECT(ibv_bind_mw(p->b, w2, &b) == EINVAL, "ibv_bind_mw of a type 2 window");
        b.bind_info.mr = other;
        EXPECT(ibv_bind_mw(p->b, w1, &b) == EPERM, "ibv_bind_mw with another PD's MR");
        ibv_dereg_mr(other);
        ibv_dealloc_pd(pd2);
    }
    ibv_dealloc_mw(w);

    th_case = "local invalidate";
    p = pair_new();
    w = mw_new(IBV_MW_TYPE_2);
    EXPECT(bind2(p, w, rmr, 0, 64, rw) == IBV_WC_SUCCESS, "bind");
    EXPECT(post_inv(p->b, IBV_WR_LOCAL_INV, w->rkey, 8) == 0, "post LOCAL_INV");
    s = status_of(p->bcq, &wc);
    EXPECT(s == IBV_WC_SUCCESS && wc.opcode == IBV_WC_LOCAL_INV,
           "LOCAL_INV: %s opcode %d", st(s), wc.opcode);
    s = rdma(p, IBV_WR_RDMA_READ, 0, 8, w->rkey);
    EXPECT(s == IBV_WC_REM_ACCESS_ERR, "an invalidated window's key: %s", st(s));
    p = pair_new();
    EXPECT(post_inv(p->b, IBV_WR_LOCAL_INV, rmr->rkey, 8) == 0, "post LOCAL_INV");
    s = status_of(p->bcq, &wc);
    EXPECT(s == IBV_WC_LOC_QP_OP_ERR, "LOCAL_INV of an MR's key: %s", st(s));
    p = pair_new();
    EXPECT(post_inv(p->b, IBV_WR_LOCAL_INV, w1->rkey, 8) == 0, "post LOCAL_INV");
    s = status_of(p->bcq, &wc);
    EXPECT(s == IBV_WC_LOC_QP_OP_ERR, "LOCAL_INV of a type 1 window: %s", st(s));

    th_case = "send with invalidate";
    p = pair_new();
    EXPECT(bind2(p, w, rmr, 0, 64, rw) == IBV_WC_SUCCESS, "bind again");
    EXPECT(t_post_recv(p->b, rmr, rbuf + 1024, 64, 9) == 0, "post_recv");
    EXPECT(post_inv(p->a, IBV_WR_SEND_WITH_INV, w->rkey, 4) == 0, "post SEND_WITH_INV");
    s = status_of(p->acq, &wc);
    EXPECT(s == IBV_WC_SUCCESS && wc.opcode == IBV_WC_SEND, "sender: %s", st(s));
    s = status_of(p->bcq, &wc);
    EXPECT(s == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV &&
               (wc.wc_flags & IBV_WC_WITH_INV) && wc.invalidated_rkey == w->rkey,
           "receiver: %s flags 0x%x key 0x%x", st(s), wc.wc_flags,
           wc.invalidated_rkey);
    s = rdma(p, IBV_WR_RDMA_READ, 0, 8, w->rkey);
    EXPECT(s == IBV_WC_REM_ACCESS_ERR, "a remotely invalidated key: %s", st(s));
    p = pair_new();
    EXPECT(t_post_recv(p->b, rmr, rbuf + 1024, 64, 9) == 0, "post_recv");
    EXPECT(post_inv(p->a, IBV_WR_SEND_WITH_INV, rmr->rkey, 4) == 0, "post");
    s = status_of(p->acq, &wc);
    EXPECT(s == IBV_WC_REM_INV_REQ_ERR, "sender, key of no window: %s", st(s));
    s = status_of(p->bcq, &wc);
    EXPECT(s == IBV_WC_REM_INV_REQ_ERR, "receiver, key of no window: %s", st(s));
    ibv_dealloc_mw(w);

    th_case = "type 1";
    p = pair_new();
    {
        struct ibv_mw_bind b = {.wr_id = 5, .send_flags = IBV_SEND_SIGNALED,
                                .bind_info = {rmr, (uintptr_t)(rbuf + 256), 256, rw}};
        uint32_t before = w1->rkey;

        EXPECT(ibv_bind_mw(p->b, w1, &b) == 0, "ibv_bind_mw");
        EXPECT(w1->rkey == ibv_inc_rkey(before), "the window's key did not move on");
        s = status_of(p->bcq, &wc);
        EXPECT(s == IBV_WC_SUCCESS && wc.opcode == IBV_WC_BIND_MW && wc.wr_id == 5,
               "type 1 bind: %s", st(s));
        fill(lbuf, 256, 5);
        s = rdma(p, IBV_WR_RDMA_WRITE, 256, 256, w1->rkey);
        EXPECT(s == IBV_WC_SUCCESS && !memcmp(lbuf, rbuf + 256, 256),
               "write through a type 1 window: %s", st(s));
        q = pair_new();
        s = rdma(q, IBV_WR_RDMA_READ, 256, 64, w1->rkey);
        EXPECT(s == IBV_WC_SUCCESS, "a type 1 window through another QP: %s", st(s));
        s = rdma(q, IBV_WR_RDMA_READ, 0, 8, before);
        EXPECT(s == IBV_WC_REM_ACCESS_ERR, "the window's old key: %s", st(s));
        p = pair_new();
        b.bind_info = (struct ibv_mw_bind_info){NULL, 0, 0, 0};
        before = w1->rkey;
        EXPECT(ibv_bind_mw(p->b, w1, &b) == 0, "unbind");
        s = status_of(p->bcq, &wc);
        EXPECT(s == IBV_WC_SUCCESS, "unbind: %s", st(s));
        s = rdma(p, IBV_WR_RDMA_READ, 256, 8, w1->rkey);
        EXPECT(s == IBV_WC_REM_ACCESS_ERR, "an unbound type 1 window: %s", st(s));
        (void)before;
    }

    th_case = "teardown";
    EXPECT(ibv_dealloc_mw(w2) == 0 && ibv_dealloc_mw(w1) == 0, "dealloc_mw");
    for (int i = 0; i < npairs; i++) {
        ibv_destroy_qp(pairs[i].a);
        ibv_destroy_qp(pairs[i].b);
        ibv_destroy_cq(pairs[i].acq);
        ibv_destroy_cq(pairs[i].bcq);
    }
    EXPECT(ibv_dereg_mr(rmr) == 0, "dereg once the windows are gone");
    ibv_dereg_mr(lmr);
    ibv_dereg_mr(nobind);
    ibv_dereg_mr(noloc);
    t_dev_close(&d);
    return t_finish();
}
