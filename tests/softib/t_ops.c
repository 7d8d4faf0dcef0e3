/*
 * softib: every operation moves the right bytes and reports the right
 * completion: SEND (scatter/gather, inline, with immediate, large), RDMA
 * WRITE (with immediate), RDMA READ, both atomics, unsignaled requests and
 * sq_sig_all, in-order delivery, completion channels, the SRQ limit event,
 * UD with its 40-byte GRH area, and the ibv_qp_ex work-request API.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "t_common.h"

#define BIG (3 * 1024 * 1024 + 123)

static struct t_dev d;
static uint8_t *src, *dst;
static struct ibv_mr *smr, *dmr;

static void fill(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 31 + seed);
}

static void pair(struct ibv_cq *acq, struct ibv_cq *bcq, struct ibv_qp **a,
                 struct ibv_qp **b, int sig_all)
{
    struct ibv_qp_init_attr ia = {
        .send_cq = acq, .recv_cq = acq, .qp_type = IBV_QPT_RC,
        .sq_sig_all = sig_all,
        .cap = {.max_send_wr = 128, .max_recv_wr = 128, .max_send_sge = 4,
                .max_recv_sge = 4, .max_inline_data = 128}};
    struct t_conn c = t_conn_default();

    *a = ibv_create_qp(d.pd, &ia);
    ia.send_cq = ia.recv_cq = bcq;
    ia.sq_sig_all = 0;
    *b = ibv_create_qp(d.pd, &ia);
    CHECK(*a && *b, "create qps");
    CHECK(t_connect(*a, d.lid, (*b)->qp_num, &c) == 0, "connect a");
    CHECK(t_connect(*b, d.lid, (*a)->qp_num, &c) == 0, "connect b");
}

static void expect(struct ibv_cq *cq, enum ibv_wc_opcode op, uint64_t wr_id,
                   uint32_t len, const char *what)
{
    struct ibv_wc wc;

    EXPECT(t_poll(cq, &wc, 3000), "%s: no completion", what);
    EXPECT(wc.status == IBV_WC_SUCCESS, "%s: %s", what,
            ibv_wc_status_str(wc.status));
    EXPECT(wc.opcode == op && wc.wr_id == wr_id, "%s: opcode %d wr_id %llu",
            what, wc.opcode, (unsigned long long)wc.wr_id);
    if (len != (uint32_t)-1)
        EXPECT(wc.byte_len == len, "%s: byte_len %u want %u", what,
                wc.byte_len, len);
}

static void test_rc_ops(void)
{
    struct ibv_cq *acq = t_cq(&d, 256), *bcq = t_cq(&d, 256);
    struct ibv_qp *a, *b;
    struct ibv_send_wr wr, *bad;
    struct ibv_recv_wr rwr, *rbad;
    struct ibv_sge s3[3], r3[3];
    struct ibv_wc wc;
    uint64_t *atom = (uint64_t *)(dst + 8192);

    pair(acq, bcq, &a, &b, 0);

    th_case = "send with sg lists";
    fill(src, 300, 1);
    memset(dst, 0, 600);
    s3[0] = (struct ibv_sge){(uintptr_t)src, 100, smr->lkey};
    s3[1] = (struct ibv_sge){(uintptr_t)src + 100, 50, smr->lkey};
    s3[2] = (struct ibv_sge){(uintptr_t)src + 150, 150, smr->lkey};
    r3[0] = (struct ibv_sge){(uintptr_t)dst, 10, dmr->lkey};
    r3[1] = (struct ibv_sge){(uintptr_t)dst + 100, 90, dmr->lkey};
    r3[2] = (struct ibv_sge){(uintptr_t)dst + 300, 300, dmr->lkey};
    memset(&rwr, 0, sizeof(rwr));
    rwr.wr_id = 11;
    rwr.sg_list = r3;
    rwr.num_sge = 3;
    EXPECT(ibv_post_recv(b, &rwr, &rbad) == 0, "post_recv");
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = 1;
    wr.sg_list = s3;
    wr.num_sge = 3;
    wr.opcode = IBV_WR_SEND_WITH_IMM;
    wr.imm_data = htobe32(0xabcdef);
    wr.send_flags = IBV_SEND_SIGNALED;
    EXPECT(ibv_post_send(a, &wr, &bad) == 0, "post_send");
    expect(acq, IBV_WC_SEND, 1, (uint32_t)-1, "send completion");
    EXPECT(t_poll(bcq, &wc, 3000), "no receive");
    EXPECT(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV &&
                wc.byte_len == 300 && wc.wr_id == 11 &&
                (wc.wc_flags & IBV_WC_WITH_IMM) &&
                wc.imm_data == htobe32(0xabcdef) && wc.qp_num == b->qp_num &&
                wc.src_qp == a->qp_num,
            "receive completion fields (len %u)", wc.byte_len);
    EXPECT(!memcmp(dst, src, 10) && !memcmp(dst + 100, src + 10, 90) &&
                !memcmp(dst + 300, src + 100, 200),
            "scattered bytes differ");

    th_case = "inline send";
    fill(src, 100, 2);
    EXPECT(t_post_recv(b, dmr, dst, 128, 12) == 0, "post_recv");
    memset(&wr, 0, sizeof(wr));
    s3[0] = (struct ibv_sge){(uintptr_t)src, 100, 0 /* lkey ignored */};
    wr.wr_id = 2;
    wr.sg_list = s3;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
    EXPECT(ibv_post_send(a, &wr, &bad) == 0, "post inline");
    memset(src, 0xee, 100); /* inline data was copied at post time */
    expect(acq, IBV_WC_SEND, 2, (uint32_t)-1, "inline send");
    expect(bcq, IBV_WC_RECV, 12, 100, "inline receive");
    fill(src, 100, 2);
    EXPECT(!memcmp(dst, src, 100), "inline bytes differ");
    /* an empty sge with address 0 among them, as UCX posts (UBSan saw
     * softib memcpy from NULL) */
    EXPECT(t_post_recv(b, dmr, dst, 128, 13) == 0, "post_recv");
    s3[0] = (struct ibv_sge){(uintptr_t)src, 60, 0};
    s3[1] = (struct ibv_sge){0, 0, 0};
    s3[2] = (struct ibv_sge){(uintptr_t)src + 60, 40, 0};
    wr.wr_id = 3;
    wr.num_sge = 3;
    EXPECT(ibv_post_send(a, &wr, &bad) == 0, "post inline with an empty sge");
    expect(acq, IBV_WC_SEND, 3, (uint32_t)-1, "inline send, empty sge");
    expect(bcq, IBV_WC_RECV, 13, 100, "inline receive, empty sge");
    EXPECT(!memcmp(dst, src, 100), "inline bytes differ (empty sge)");

    th_case = "rdma write, write with imm, read";
    fill(src, 4096, 3);
    memset(dst, 0, 8192);
    EXPECT(t_post_send(a, IBV_WR_RDMA_WRITE, smr, src, 4096,
                        (uintptr_t)dst + 100, dmr->rkey, 3) == 0, "write");
    expect(acq, IBV_WC_RDMA_WRITE, 3, (uint32_t)-1, "write");
    EXPECT(!memcmp(dst + 100, src, 4096), "written bytes differ");
    EXPECT(t_quiet(bcq, 5), "plain write consumed a receive");
    EXPECT(t_post_recv(b, dmr, dst + 6000, 16, 13) == 0, "post_recv");
    memset(&wr, 0, sizeof(wr));
    s3[0] = (struct ibv_sge){(uintptr_t)src, 64, smr->lkey};
    wr.wr_id = 4;
    wr.sg_list = s3;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
    wr.imm_data = htobe32(77);
    wr.wr.rdma.remote_addr = (uintptr_t)dst + 5000;
    wr.wr.rdma.rkey = dmr->rkey;
    wr.send_flags = IBV_SEND_SIGNALED;
    EXPECT(ibv_post_send(a, &wr, &bad) == 0, "write imm");
    expect(acq, IBV_WC_RDMA_WRITE, 4, (uint32_t)-1, "write imm");
    EXPECT(t_poll(bcq, &wc, 3000) && wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
                wc.wr_id == 13 && wc.imm_data == htobe32(77) && wc.byte_len == 64,
            "write-with-imm receive");
    EXPECT(!memcmp(dst + 5000, src, 64), "write-imm bytes differ");
    memset(src + 8192, 0, 4096);
    EXPECT(t_post_send(a, IBV_WR_RDMA_READ, smr, src + 8192, 4096,
                        (uintptr_t)dst + 100, dmr->rkey, 5) == 0, "read");
    expect(acq, IBV_WC_RDMA_READ, 5, 4096, "read");
    EXPECT(!memcmp(src + 8192, src, 4096), "read bytes differ");

    th_case = "atomics";
    *atom = 40;
    EXPECT(t_post_send(a, IBV_WR_ATOMIC_FETCH_AND_ADD, smr, src, 8,
                        (uintptr_t)atom, dmr->rkey, 6) == 0, "post");
    /* compare_add is 0 from t_post_send: fetch-add 0 returns the value */
    expect(acq, IBV_WC_FETCH_ADD, 6, 8, "fetch_add");
    EXPECT(*(uint64_t *)src == 40, "fetch_add returned %llu",
            (unsigned long long)*(uint64_t *)src);
    memset(&wr, 0, sizeof(wr));
    s3[0] = (struct ibv_sge){(uintptr_t)src, 8, smr->lkey};
    wr.sg_list = s3;
    wr.num_sge = 1;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
    wr.wr.atomic.remote_addr = (uintptr_t)atom;
    wr.wr.atomic.rkey = dmr->rkey;
    wr.wr.atomic.compare_add = 2;
    wr.wr_id = 7;
    EXPECT(ibv_post_send(a, &wr, &bad) == 0, "post");
    expect(acq, IBV_WC_FETCH_ADD, 7, 8, "fetch_add 2");
    EXPECT(*atom == 42 && *(uint64_t *)src == 40, "fetch_add: %llu",
            (unsigned long long)*atom);
    wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
    wr.wr.atomic.compare_add = 41; /* mismatch: no swap */
    wr.wr.atomic.swap = 99;
    wr.wr_id = 8;
    EXPECT(ibv_post_send(a, &wr, &bad) == 0, "post");
    expect(acq, IBV_WC_COMP_SWAP, 8, 8, "cmp_swp miss");
    EXPECT(*atom == 42 && *(uint64_t *)src == 42, "cmp_swp miss swapped");
    wr.wr.atomic.compare_add = 42;
    wr.wr_id = 9;
    EXPECT(ibv_post_send(a, &wr, &bad) == 0, "post");
    expect(acq, IBV_WC_COMP_SWAP, 9, 8, "cmp_swp hit");
    EXPECT(*atom == 99 && *(uint64_t *)src == 42, "cmp_swp hit: %llu",
            (unsigned long long)*atom);

    th_case = "unsignaled and in order";
    for (int i = 0; i < 100; i++)
        EXPECT(t_post_recv(b, dmr, dst + 16 * i, 16, (uint64_t)(1000 + i)) == 0,
                "post_recv");
    for (int i = 0; i < 100; i++) {
        memset(&wr, 0, sizeof(wr));
        s3[0] = (struct ibv_sge){(uintptr_t)src + 8 * i, 8, smr->lkey};
        *(uint64_t *)(src + 8 * i) = (uint64_t)i;
        wr.wr_id = (uint64_t)(2000 + i);
        wr.sg_list = s3;
        wr.num_sge = 1;
        wr.opcode = IBV_WR_SEND;
        wr.send_flags = i == 99 ? IBV_SEND_SIGNALED : 0;
        EXPECT(ibv_post_send(a, &wr, &bad) == 0, "post %d", i);
    }
    expect(acq, IBV_WC_SEND, 2099, (uint32_t)-1, "only the signaled send");
    EXPECT(t_quiet(acq, 5), "unsignaled sends completed");
    for (int i = 0; i < 100; i++) {
        EXPECT(t_poll(bcq, &wc, 3000) && wc.wr_id == (uint64_t)(1000 + i) &&
                    wc.byte_len == 8 &&
                    *(uint64_t *)(dst + 16 * i) == (uint64_t)i,
                "message %d out of order or wrong", i);
    }

    th_case = "large messages";
    fill(src, BIG, 9);
    memset(dst, 0, BIG);
    EXPECT(t_post_recv(b, dmr, dst, BIG, 21) == 0, "post_recv");
    EXPECT(t_post_send(a, IBV_WR_SEND, smr, src, BIG, 0, 0, 22) == 0, "send");
    expect(acq, IBV_WC_SEND, 22, (uint32_t)-1, "large send");
    expect(bcq, IBV_WC_RECV, 21, BIG, "large receive");
    EXPECT(!memcmp(dst, src, BIG), "large send bytes differ");
    fill(src, BIG, 10);
    EXPECT(t_post_send(a, IBV_WR_RDMA_WRITE, smr, src, BIG, (uintptr_t)dst,
                        dmr->rkey, 23) == 0, "write");
    expect(acq, IBV_WC_RDMA_WRITE, 23, (uint32_t)-1, "large write");
    EXPECT(!memcmp(dst, src, BIG), "large write bytes differ");
    fill(dst, BIG, 11);
    EXPECT(t_post_send(a, IBV_WR_RDMA_READ, smr, src, BIG, (uintptr_t)dst,
                        dmr->rkey, 24) == 0, "read");
    expect(acq, IBV_WC_RDMA_READ, 24, BIG, "large read");
    EXPECT(!memcmp(dst, src, BIG), "large read bytes differ");

    ibv_destroy_qp(a);
    ibv_destroy_qp(b);

    th_case = "sq_sig_all";
    pair(acq, bcq, &a, &b, 1);
    EXPECT(t_post_recv(b, dmr, dst, 64, 31) == 0, "post_recv");
    memset(&wr, 0, sizeof(wr));
    s3[0] = (struct ibv_sge){(uintptr_t)src, 8, smr->lkey};
    wr.wr_id = 32;
    wr.sg_list = s3;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    EXPECT(ibv_post_send(a, &wr, &bad) == 0, "post");
    expect(acq, IBV_WC_SEND, 32, (uint32_t)-1, "sq_sig_all send");
    expect(bcq, IBV_WC_RECV, 31, 8, "receive");
    ibv_destroy_qp(a);
    ibv_destroy_qp(b);
    ibv_destroy_cq(acq);
    ibv_destroy_cq(bcq);
}

static void test_channel_and_srq(void)
{
    struct ibv_comp_channel *ch = ibv_create_comp_channel(d.ctx);
    struct ibv_cq *acq = t_cq(&d, 64);
    struct ibv_cq *bcq = ibv_create_cq(d.ctx, 64, (void *)0x1234, ch, 0);
    struct ibv_srq_init_attr sa = {.attr = {.max_wr = 16, .max_sge = 1,
                                            .srq_limit = 0}};
    struct ibv_srq *srq = ibv_create_srq(d.pd, &sa);
    struct ibv_qp_init_attr ia = {.send_cq = acq, .recv_cq = acq,
                                  .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = 16, .max_recv_wr = 16,
                                          .max_send_sge = 1, .max_recv_sge = 1}};
    struct t_conn c = t_conn_default();
    struct ibv_qp *a, *b;
    struct ibv_cq *ev_cq = NULL;
    void *ev_ctx = NULL;
    struct ibv_srq_attr attr = {.srq_limit = 3};
    struct ibv_async_event ev;
    struct ibv_recv_wr rwr, *rbad;
    struct ibv_sge sge;
    struct ibv_wc wc;
    uint32_t srqn;

    th_case = "channel and srq";
    CHECK(ch && bcq && srq, "create channel/cq/srq");
    EXPECT(ibv_get_srq_num(srq, &srqn) == EINVAL, "basic SRQ has an XRC number");
    a = ibv_create_qp(d.pd, &ia);
    ia.send_cq = ia.recv_cq = bcq;
    ia.srq = srq;
    b = ibv_create_qp(d.pd, &ia);
    CHECK(a && b, "create qps");
    CHECK(t_connect(a, d.lid, b->qp_num, &c) == 0 &&
                  t_connect(b, d.lid, a->qp_num, &c) == 0, "connect");
    EXPECT(t_post_recv(b, dmr, dst, 64, 1) == EINVAL, "post_recv on SRQ QP");
    for (int i = 0; i < 5; i++) {
        sge = (struct ibv_sge){(uintptr_t)dst + 64 * i, 64, dmr->lkey};
        memset(&rwr, 0, sizeof(rwr));
        rwr.wr_id = (uint64_t)(50 + i);
        rwr.sg_list = &sge;
        rwr.num_sge = 1;
        EXPECT(ibv_post_srq_recv(srq, &rwr, &rbad) == 0, "post_srq_recv");
    }
    EXPECT(ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT) == 0, "arm limit 3");
    EXPECT(ibv_req_notify_cq(bcq, 0) == 0, "req_notify");
    fill(src, 64, 5);
    EXPECT(t_post_send(a, IBV_WR_SEND, smr, src, 64, 0, 0, 60) == 0, "send");
    EXPECT(ibv_get_cq_event(ch, &ev_cq, &ev_ctx) == 0, "get_cq_event");
    EXPECT(ev_cq == bcq && ev_ctx == (void *)0x1234, "event for the wrong CQ");
    ibv_ack_cq_events(ev_cq, 1);
    EXPECT(t_poll(bcq, &wc, 1000) && wc.wr_id == 50 && wc.status == IBV_WC_SUCCESS,
            "srq receive");
    /* a second send without re-arming raises no event */
    EXPECT(t_post_send(a, IBV_WR_SEND, smr, src, 64, 0, 0, 61) == 0, "send");
    EXPECT(t_poll(bcq, &wc, 1000) && wc.wr_id == 51, "second srq receive");
    fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK);
    EXPECT(ibv_get_cq_event(ch, &ev_cq, &ev_ctx) == -1 && errno == EAGAIN,
            "event without req_notify");
    /* 3 WQEs left: the next one takes the SRQ below its limit of 3 */
    EXPECT(t_post_send(a, IBV_WR_SEND, smr, src, 64, 0, 0, 62) == 0, "send");
    EXPECT(t_poll(bcq, &wc, 1000) && wc.wr_id == 52, "third srq receive");
    fcntl(d.ctx->async_fd, F_SETFL, fcntl(d.ctx->async_fd, F_GETFL) | O_NONBLOCK);
    EXPECT(ibv_get_async_event(d.ctx, &ev) == 0 &&
                ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED &&
                ev.element.srq == srq,
            "no SRQ limit event");
    ibv_ack_async_event(&ev);
    EXPECT(ibv_query_srq(srq, &attr) == 0 && attr.srq_limit == 0,
            "limit not disarmed after the event");
    for (int i = 0; i < 3; i++)
        EXPECT(t_poll(acq, &wc, 1000) && wc.status == IBV_WC_SUCCESS, "send wc");
    EXPECT(ibv_destroy_srq(srq) == EBUSY, "destroy SRQ in use");
    EXPECT(ibv_destroy_cq(bcq) == EBUSY, "destroy CQ in use");
    ibv_destroy_qp(a);
    ibv_destroy_qp(b);
    EXPECT(ibv_destroy_srq(srq) == 0, "destroy srq");
    EXPECT(ibv_destroy_comp_channel(ch) == EBUSY, "destroy channel in use");
    ibv_destroy_cq(bcq);
    ibv_destroy_cq(acq);
    EXPECT(ibv_destroy_comp_channel(ch) == 0, "destroy channel");
}

static void test_ud(void)
{
    struct ibv_cq *cq = t_cq(&d, 64);
    struct ibv_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq,
                                  .qp_type = IBV_QPT_UD,
                                  .cap = {.max_send_wr = 8, .max_recv_wr = 8,
                                          .max_send_sge = 1, .max_recv_sge = 1}};
    struct ibv_qp *a = ibv_create_qp(d.pd, &ia), *b = ibv_create_qp(d.pd, &ia);
    struct ibv_qp_attr qa;
    struct ibv_ah_attr aa = {.dlid = d.lid, .port_num = 1};
    struct ibv_ah *ah;
    struct ibv_send_wr wr, *bad;
    struct ibv_sge sge;
    struct ibv_wc wc;
    int got_send = 0, got_recv = 0;

    th_case = "ud";
    CHECK(a && b, "create UD QPs");
    for (int i = 0; i < 2; i++) {
        struct ibv_qp *q = i ? b : a;

        memset(&qa, 0, sizeof(qa));
        qa.qp_state = IBV_QPS_INIT;
        qa.port_num = 1;
        qa.qkey = 0x1111;
        CHECK(ibv_modify_qp(q, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
                                            IBV_QP_PORT | IBV_QP_QKEY) == 0, "init");
        qa.qp_state = IBV_QPS_RTR;
        CHECK(ibv_modify_qp(q, &qa, IBV_QP_STATE) == 0, "rtr");
        qa.qp_state = IBV_QPS_RTS;
        CHECK(ibv_modify_qp(q, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN) == 0, "rts");
    }
    ah = ibv_create_ah(d.pd, &aa);
    CHECK(ah, "create_ah");
    EXPECT(t_post_recv(b, dmr, dst, 40 + 100, 70) == 0, "post_recv");
    fill(src, 100, 7);
    memset(&wr, 0, sizeof(wr));
    sge = (struct ibv_sge){(uintptr_t)src, 100, smr->lkey};
    wr.wr_id = 71;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.ud.ah = ah;
    wr.wr.ud.remote_qpn = b->qp_num;
    wr.wr.ud.remote_qkey = 0x2222; /* wrong qkey: dropped */
    EXPECT(ibv_post_send(a, &wr, &bad) == 0, "post");
    wr.wr.ud.remote_qkey = 0x1111;
    wr.wr_id = 72;
    EXPECT(ibv_post_send(a, &wr, &bad) == 0, "post");
    for (int i = 0; i < 3 && t_poll(cq, &wc, 1000); i++) {
        if (wc.opcode == IBV_WC_SEND)
            got_send++;
        else if (wc.opcode == IBV_WC_RECV) {
            got_recv++;
            EXPECT(wc.wr_id == 70 && wc.byte_len == 140 &&
                        wc.src_qp == a->qp_num && wc.slid == d.lid,
                    "UD receive fields: len %u", wc.byte_len);
            EXPECT(!memcmp(dst + 40, src, 100), "UD bytes differ");
        }
    }
    EXPECT(got_send == 2 && got_recv == 1, "sends %d receives %d", got_send,
            got_recv);

    /* A receive posted into memory the process then unmapped (UCX's ud
     * transport at finalize): an HCA writes the pinned pages the process
     * no longer sees; softib must not crash in its helper thread. */
    {
        long pg = sysconf(_SC_PAGESIZE);
        uint8_t *gone = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        struct ibv_mr *gmr;

        th_case = "ud into unmapped memory";
        CHECK(gone != MAP_FAILED, "mmap");
        gmr = ibv_reg_mr(d.pd, gone, (size_t)pg, IBV_ACCESS_LOCAL_WRITE);
        CHECK(gmr, "reg_mr");
        EXPECT(t_post_recv(b, gmr, gone, 40 + 100, 73) == 0, "post_recv");
        CHECK(munmap(gone, (size_t)pg) == 0, "munmap");
        wr.wr_id = 74;
        EXPECT(ibv_post_send(a, &wr, &bad) == 0, "post");
        got_send = got_recv = 0;
        for (int i = 0; i < 2 && t_poll(cq, &wc, 1000); i++) {
            if (wc.opcode == IBV_WC_SEND)
                got_send++;
            else if (wc.opcode == IBV_WC_RECV && wc.wr_id == 73)
                got_recv++;
        }
        EXPECT(got_send == 1 && got_recv == 1, "sends %d receives %d", got_send, got_recv);
        /* the QP still works */
        EXPECT(t_post_recv(b, dmr, dst, 40 + 100, 75) == 0, "post_recv");
        memset(dst, 0, 140);
        wr.wr_id = 76;
        EXPECT(ibv_post_send(a, &wr, &bad) == 0, "post");
        got_send = got_recv = 0;
        for (int i = 0; i < 2 && t_poll(cq, &wc, 1000); i++) {
            if (wc.opcode == IBV_WC_SEND)
                got_send++;
            else if (wc.opcode == IBV_WC_RECV && wc.wr_id == 75) {
                got_recv++;
                EXPECT(!memcmp(dst + 40, src, 100), "UD bytes differ after the unmapped one");
            }
        }
        EXPECT(got_send == 1 && got_recv == 1, "after: sends %d receives %d", got_send, got_recv);
        ibv_dereg_mr(gmr);
    }
    ibv_destroy_ah(ah);
    ibv_destroy_qp(a);
    ibv_destroy_qp(b);
    ibv_destroy_cq(cq);
}

static void test_qp_ex(void)
{
    struct ibv_cq *acq = t_cq(&d, 16), *bcq = t_cq(&d, 16);
    struct ibv_qp_init_attr_ex ia = {
        .send_cq = acq, .recv_cq = acq, .qp_type = IBV_QPT_RC,
        .cap = {.max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
                .max_recv_sge = 1, .max_inline_data = 64},
        .comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
        .pd = d.pd,
        .send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE};
    struct t_conn c = t_conn_default();
    struct ibv_qp *a, *b;
    struct ibv_qp_ex *x;

    th_case = "ibv_qp_ex";
    a = ibv_create_qp_ex(d.ctx, &ia);
    ia.send_cq = ia.recv_cq = bcq;
    ia.comp_mask = IBV_QP_INIT_ATTR_PD;
    b = ibv_create_qp_ex(d.ctx, &ia);
    CHECK(a && b, "create_qp_ex");
    EXPECT(ibv_qp_to_qp_ex(b) == NULL, "qp_ex without send_ops_flags");
    x = ibv_qp_to_qp_ex(a);
    CHECK(x, "qp_to_qp_ex");
    CHECK(t_connect(a, d.lid, b->qp_num, &c) == 0 &&
                  t_connect(b, d.lid, a->qp_num, &c) == 0, "connect");
    EXPECT(t_post_recv(b, dmr, dst, 64, 80) == 0, "post_recv");
    fill(src, 64, 8);
    ibv_wr_start(x);
    x->wr_id = 81;
    x->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_rdma_write(x, dmr->rkey, (uintptr_t)dst + 1000);
    ibv_wr_set_sge(x, smr->lkey, (uintptr_t)src, 64);
    x->wr_id = 82;
    ibv_wr_send(x);
    ibv_wr_set_inline_data(x, src, 32);
    EXPECT(ibv_wr_complete(x) == 0, "wr_complete");
    expect(acq, IBV_WC_RDMA_WRITE, 81, (uint32_t)-1, "qp_ex write");
    expect(acq, IBV_WC_SEND, 82, (uint32_t)-1, "qp_ex send");
    expect(bcq, IBV_WC_RECV, 80, 32, "qp_ex receive");
    EXPECT(!memcmp(dst + 1000, src, 64) && !memcmp(dst, src, 32),
            "qp_ex bytes differ");
    ibv_destroy_qp(a);
    ibv_destroy_qp(b);
    ibv_destroy_cq(acq);
    ibv_destroy_cq(bcq);
}

static void test_iova_and_rereg(void)
{
    struct ibv_cq *acq = t_cq(&d, 16), *bcq = t_cq(&d, 16);
    struct ibv_qp *a, *b;
    struct ibv_mr *rmr, *lmr;
    const uint64_t riova = 0x70000000, liova = 0x90000000;

    th_case = "iova MRs";
    pair(acq, bcq, &a, &b, 0);
    rmr = ibv_reg_mr_iova(d.pd, dst + 65536, 8192, riova,
                          IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                              IBV_ACCESS_REMOTE_READ);
    lmr = ibv_reg_mr_iova(d.pd, src + 65536, 8192, liova, IBV_ACCESS_LOCAL_WRITE);
    CHECK(rmr && lmr, "reg_mr_iova");
    fill(src + 65536, 200, 12);
    memset(dst + 65536, 0, 8192);
    /* both the sge and the remote address are in the regions' iova space */
    EXPECT(t_post_send(a, IBV_WR_RDMA_WRITE, lmr, (void *)(uintptr_t)liova,
                        200, riova + 100, rmr->rkey, 1) == 0, "write");
    expect(acq, IBV_WC_RDMA_WRITE, 1, (uint32_t)-1, "iova write");
    EXPECT(!memcmp(dst + 65536 + 100, src + 65536, 200), "iova write bytes");
    EXPECT(t_post_send(a, IBV_WR_RDMA_READ, lmr, (void *)(uintptr_t)(liova + 4096),
                        200, riova + 100, rmr->rkey, 2) == 0, "read");
    expect(acq, IBV_WC_RDMA_READ, 2, 200, "iova read");
    EXPECT(!memcmp(src + 65536 + 4096, src + 65536, 200), "iova read bytes");

    th_case = "rereg translation";
    EXPECT(ibv_rereg_mr(rmr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL,
                         dst + 3 * 65536, 4096, 0) == 0, "rereg");
    fill(src, 64, 13);
    EXPECT(t_post_send(a, IBV_WR_RDMA_WRITE, smr, src, 64,
                        (uintptr_t)dst + 3 * 65536, rmr->rkey, 3) == 0, "write");
    expect(acq, IBV_WC_RDMA_WRITE, 3, (uint32_t)-1, "write after rereg");
    EXPECT(!memcmp(dst + 3 * 65536, src, 64), "bytes after rereg");
    ibv_dereg_mr(rmr);
    ibv_dereg_mr(lmr);
    ibv_destroy_qp(a);
    ibv_destroy_qp(b);
    ibv_destroy_cq(acq);
    ibv_destroy_cq(bcq);
}

int main(void)
{
    t_dev_open(&d);
    src = malloc(BIG + 4096);
    dst = malloc(BIG + 4096);
    CHECK(src && dst, "malloc");
    smr = ibv_reg_mr(d.pd, src, BIG + 4096, IBV_ACCESS_LOCAL_WRITE);
    dmr = ibv_reg_mr(d.pd, dst, BIG + 4096,
                     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                         IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
    CHECK(smr && dmr, "reg_mr");
    test_rc_ops();
    test_channel_and_srq();
    test_ud();
    test_qp_ex();
    test_iova_and_rereg();
    ibv_dereg_mr(smr);
    ibv_dereg_mr(dmr);
    t_dev_close(&d);
    free(src);
    free(dst);
    return t_finish();
}
