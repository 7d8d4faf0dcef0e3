/*
 * softib: the QP state machine and the errnos of the verbs calls.
 * Illegal transitions and missing or extra attributes give EINVAL;
 * post_send outside RTS gives EINVAL; a full send queue gives ENOMEM with
 * bad_wr on the first refused request; moving to ERR flushes every
 * outstanding request with IBV_WC_WR_FLUSH_ERR, in order.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "t_common.h"

#define INIT_MASK (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)
#define RTR_MASK  (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | \
                   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define RTS_MASK  (IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
                   IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
    struct ibv_qp_attr a;
    struct ibv_qp_init_attr i;

    if (ibv_query_qp(qp, &a, IBV_QP_STATE, &i))
        return (enum ibv_qp_state)-1;
    return a.qp_state;
}

static void fill_attr(struct ibv_qp_attr *a, enum ibv_qp_state s, uint16_t lid,
                      uint32_t dqpn)
{
    memset(a, 0, sizeof(*a));
    a->qp_state = s;
    a->port_num = 1;
    a->path_mtu = IBV_MTU_1024;
    a->dest_qp_num = dqpn;
    a->ah_attr.dlid = lid;
    a->ah_attr.port_num = 1;
    a->max_dest_rd_atomic = 1;
    a->max_rd_atomic = 1;
    a->min_rnr_timer = 1;
    a->timeout = 14;
    a->retry_cnt = 7;
    a->rnr_retry = 7;
}

static void test_transitions(struct t_dev *d, struct ibv_cq *cq)
{
    struct ibv_qp *qp = t_rc_qp(d, cq, cq, 4, 4);
    struct ibv_qp_attr a;
    char buf[8];
    struct ibv_mr *mr = ibv_reg_mr(d->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);

    th_case = "transitions";
    CHECK(mr, "reg_mr");
    EXPECT(qp_state(qp) == IBV_QPS_RESET, "new QP not in RESET");
    fill_attr(&a, IBV_QPS_RTR, d->lid, qp->qp_num);
    EXPECT(ibv_modify_qp(qp, &a, RTR_MASK) == EINVAL, "RESET->RTR allowed");
    fill_attr(&a, IBV_QPS_RTS, d->lid, qp->qp_num);
    EXPECT(ibv_modify_qp(qp, &a, RTS_MASK) == EINVAL, "RESET->RTS allowed");
    fill_attr(&a, IBV_QPS_INIT, d->lid, qp->qp_num);
    EXPECT(ibv_modify_qp(qp, &a, INIT_MASK & ~IBV_QP_ACCESS_FLAGS) == EINVAL,
            "RESET->INIT without ACCESS_FLAGS allowed");
    EXPECT(ibv_modify_qp(qp, &a, INIT_MASK | IBV_QP_SQ_PSN) == EINVAL,
            "RESET->INIT with SQ_PSN (not allowed) accepted");
    a.port_num = 2;
    EXPECT(ibv_modify_qp(qp, &a, INIT_MASK) == EINVAL, "port 2 accepted");
    a.port_num = 1;
    EXPECT(qp_state(qp) == IBV_QPS_RESET, "failed modify changed the state");
    EXPECT(t_post_recv(qp, mr, buf, 8, 1) == EINVAL, "post_recv in RESET");
    EXPECT(ibv_modify_qp(qp, &a, INIT_MASK) == 0, "RESET->INIT");
    EXPECT(qp_state(qp) == IBV_QPS_INIT, "not INIT");
    EXPECT(t_post_send(qp, IBV_WR_SEND, mr, buf, 8, 0, 0, 1) == EINVAL,
            "post_send in INIT");
    EXPECT(t_post_recv(qp, mr, buf, 8, 1) == 0, "post_recv in INIT");
    fill_attr(&a, IBV_QPS_RTR, d->lid, qp->qp_num);
    EXPECT(ibv_modify_qp(qp, &a, RTR_MASK & ~IBV_QP_MIN_RNR_TIMER) == EINVAL,
            "INIT->RTR without MIN_RNR_TIMER");
    EXPECT(ibv_modify_qp(qp, &a, RTR_MASK & ~IBV_QP_AV) == EINVAL,
            "INIT->RTR without AV");
    EXPECT(ibv_modify_qp(qp, &a, RTR_MASK | IBV_QP_SQ_PSN) == EINVAL,
            "INIT->RTR with SQ_PSN");
    EXPECT(ibv_modify_qp(qp, &a, RTR_MASK) == 0, "INIT->RTR");
    EXPECT(t_post_send(qp, IBV_WR_SEND, mr, buf, 8, 0, 0, 1) == EINVAL,
            "post_send in RTR");
    fill_attr(&a, IBV_QPS_RTS, d->lid, qp->qp_num);
    EXPECT(ibv_modify_qp(qp, &a, RTS_MASK & ~IBV_QP_RETRY_CNT) == EINVAL,
            "RTR->RTS without RETRY_CNT");
    a.retry_cnt = 8;
    EXPECT(ibv_modify_qp(qp, &a, RTS_MASK) == EINVAL, "retry_cnt 8 accepted");
    a.retry_cnt = 7;
    EXPECT(ibv_modify_qp(qp, &a, RTS_MASK) == 0, "RTR->RTS");
    EXPECT(qp_state(qp) == IBV_QPS_RTS, "not RTS");
    fill_attr(&a, IBV_QPS_INIT, d->lid, qp->qp_num);
    EXPECT(ibv_modify_qp(qp, &a, INIT_MASK) == EINVAL, "RTS->INIT allowed");
    fill_attr(&a, IBV_QPS_RESET, d->lid, qp->qp_num);
    EXPECT(ibv_modify_qp(qp, &a, IBV_QP_STATE) == 0, "RTS->RESET");
    fill_attr(&a, IBV_QPS_ERR, d->lid, qp->qp_num);
    EXPECT(ibv_modify_qp(qp, &a, IBV_QP_STATE) == 0, "RESET->ERR");
    EXPECT(qp_state(qp) == IBV_QPS_ERR, "not ERR");
    fill_attr(&a, IBV_QPS_RTS, d->lid, qp->qp_num);
    EXPECT(ibv_modify_qp(qp, &a, RTS_MASK) == EINVAL, "ERR->RTS allowed");
    EXPECT(ibv_destroy_qp(qp) == 0, "destroy");
    ibv_dereg_mr(mr);
}

static void test_ud_transitions(struct t_dev *d, struct ibv_cq *cq)
{
    struct ibv_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq,
                                  .qp_type = IBV_QPT_UD,
                                  .cap = {.max_send_wr = 2, .max_recv_wr = 2,
                                          .max_send_sge = 1, .max_recv_sge = 1}};
    struct ibv_qp *qp = ibv_create_qp(d->pd, &ia);
    struct ibv_qp_attr a;

    th_case = "ud transitions";
    CHECK(qp, "create UD QP");
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.qkey = 0x11111111;
    EXPECT(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
                                      IBV_QP_PORT) == EINVAL,
            "UD RESET->INIT without QKEY");
    EXPECT(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
                                      IBV_QP_PORT | IBV_QP_ACCESS_FLAGS |
                                      IBV_QP_QKEY) == EINVAL,
            "UD RESET->INIT with ACCESS_FLAGS");
    EXPECT(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
                                      IBV_QP_PORT | IBV_QP_QKEY) == 0,
            "UD RESET->INIT");
    a.qp_state = IBV_QPS_RTR;
    EXPECT(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_DEST_QPN) == EINVAL,
            "UD INIT->RTR with DEST_QPN");
    EXPECT(ibv_modify_qp(qp, &a, IBV_QP_STATE) == 0, "UD INIT->RTR");
    a.qp_state = IBV_QPS_RTS;
    EXPECT(ibv_modify_qp(qp, &a, IBV_QP_STATE) == EINVAL,
            "UD RTR->RTS without SQ_PSN");
    EXPECT(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) == 0,
            "UD RTR->RTS");
    ibv_destroy_qp(qp);
}

static void test_mr_errnos(struct t_dev *d)
{
    static char buf[4096];
    struct ibv_mr *mr;

    th_case = "mr errnos";
    errno = 0;
    mr = ibv_reg_mr(d->pd, buf, sizeof(buf), IBV_ACCESS_REMOTE_WRITE);
    EXPECT(!mr && errno == EINVAL, "REMOTE_WRITE without LOCAL_WRITE: %p %d",
            (void *)mr, errno);
    errno = 0;
    mr = ibv_reg_mr(d->pd, buf, sizeof(buf), IBV_ACCESS_REMOTE_ATOMIC);
    EXPECT(!mr && errno == EINVAL, "REMOTE_ATOMIC without LOCAL_WRITE");
    errno = 0;
    mr = ibv_reg_mr(d->pd, (void *)(uintptr_t)0x10000, 4096, IBV_ACCESS_LOCAL_WRITE);
    EXPECT(!mr && errno == EFAULT, "unmapped memory: errno %d", errno);
    {
        /* read-only pages: writable rights fail as the kernel's FOLL_WRITE
         * pinning does (EFAULT); none, or remote read, are fine */
        long pg = sysconf(_SC_PAGESIZE);
        char *ro = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        static const int rights[] = {IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_MW_BIND,
                                     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
                                     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC};

        CHECK(ro != MAP_FAILED, "mmap");
        CHECK(mprotect(ro + pg, (size_t)pg, PROT_READ) == 0, "mprotect");
        for (size_t i = 0; i < sizeof(rights) / sizeof(rights[0]); i++) {
            errno = 0;
            mr = ibv_reg_mr(d->pd, ro + pg, 100, rights[i]);
            EXPECT(!mr && errno == EFAULT, "read-only page, access 0x%x: %p errno %d",
                   rights[i], (void *)mr, errno);
            errno = 0;
            mr = ibv_reg_mr(d->pd, ro + pg - 8, 16, rights[i]);   /* straddles */
            EXPECT(!mr && errno == EFAULT, "half read-only, access 0x%x: errno %d",
                   rights[i], errno);
        }
        mr = ibv_reg_mr(d->pd, ro + pg, 100, 0);
        EXPECT(mr != NULL, "read-only page, access 0: errno %d", errno);
        if (mr) {
            EXPECT(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
                                IBV_ACCESS_LOCAL_WRITE) == IBV_REREG_MR_ERR_INPUT &&
                   errno == EFAULT, "rereg of a read-only page to LOCAL_WRITE");
            EXPECT(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
                                IBV_ACCESS_REMOTE_READ) == 0, "rereg to REMOTE_READ");
            ibv_dereg_mr(mr);
        }
        mr = ibv_reg_mr(d->pd, ro, 100, IBV_ACCESS_LOCAL_WRITE);
        EXPECT(mr != NULL, "the writable page, LOCAL_WRITE: errno %d", errno);
        if (mr)
            ibv_dereg_mr(mr);
        munmap(ro, (size_t)pg * 2);
    }
    mr = ibv_reg_mr(d->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
                                                 IBV_ACCESS_REMOTE_READ);
    EXPECT(mr && mr->lkey && mr->rkey, "valid registration");
    if (mr) {
        uint32_t old = mr->rkey;

        EXPECT(ibv_dealloc_pd(d->pd) == EBUSY, "dealloc_pd with an MR");
        EXPECT(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
                             IBV_ACCESS_LOCAL_WRITE) == 0, "rereg access");
        EXPECT(mr->rkey != old, "rereg kept the old key");
        EXPECT(ibv_dereg_mr(mr) == 0, "dereg");
    }
}

static void test_post_errnos_and_flush(struct t_dev *d)
{
    struct ibv_cq *scq = t_cq(d, 16), *rcq = t_cq(d, 16);
    struct ibv_cq *pcq = t_cq(d, 16);
    struct ibv_qp *qp = t_rc_qp(d, scq, rcq, 4, 4);
    struct ibv_qp *peer = t_rc_qp(d, pcq, pcq, 4, 4);
    struct t_conn c = t_conn_default();
    static char buf[256];
    struct ibv_mr *mr = ibv_reg_mr(d->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
    struct ibv_send_wr wr[2], *bad = NULL;
    struct ibv_sge sge = {.addr = (uintptr_t)buf, .length = 8, .lkey = mr->lkey};
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_ERR};
    struct ibv_wc wc;

    th_case = "post errnos and flush";
    /* the peer posts no receives and retries RNR forever: sends stay queued */
    CHECK(t_connect(qp, d->lid, peer->qp_num, &c) == 0, "connect qp");
    CHECK(t_connect(peer, d->lid, qp->qp_num, &c) == 0, "connect peer");
    for (int i = 0; i < 4; i++)
        EXPECT(t_post_send(qp, IBV_WR_SEND, mr, buf, 8, 0, 0, (uint64_t)i) == 0,
                "send %d", i);
    memset(wr, 0, sizeof(wr));
    wr[0].wr_id = 4;
    wr[0].sg_list = &sge;
    wr[0].num_sge = 1;
    wr[0].opcode = IBV_WR_SEND;
    wr[0].next = &wr[1];
    wr[1] = wr[0];
    wr[1].next = NULL;
    EXPECT(ibv_post_send(qp, &wr[0], &bad) == ENOMEM && bad == &wr[0],
            "full send queue: not ENOMEM/bad_wr");
    wr[0].num_sge = 5; /* max_send_sge is 4 */
    EXPECT(ibv_post_send(qp, &wr[0], &bad) == EINVAL, "too many sges");
    wr[0].num_sge = 1;
    wr[0].send_flags = IBV_SEND_INLINE;
    sge.length = 200; /* max_inline_data is 64 */
    EXPECT(ibv_post_send(qp, &wr[0], &bad) == EINVAL, "inline too long");
    for (int i = 0; i < 2; i++)
        EXPECT(t_post_recv(qp, mr, buf + 128, 64, (uint64_t)(100 + i)) == 0,
                "post_recv");
    EXPECT(t_quiet(scq, 30), "a send completed with no receive at the peer");
    EXPECT(ibv_modify_qp(qp, &a, IBV_QP_STATE) == 0, "RTS->ERR");
    for (int i = 0; i < 4; i++) {
        EXPECT(t_poll(scq, &wc, 1000), "flush completion %d missing", i);
        EXPECT(wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id == (uint64_t)i,
                "send %d: status %s wr_id %llu", i, ibv_wc_status_str(wc.status),
                (unsigned long long)wc.wr_id);
    }
    for (int i = 0; i < 2; i++) {
        EXPECT(t_poll(rcq, &wc, 1000), "recv flush %d missing", i);
        EXPECT(wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id == (uint64_t)(100 + i),
                "recv %d: %s", i, ibv_wc_status_str(wc.status));
    }
    EXPECT(t_quiet(scq, 10), "extra send completion");
    ibv_destroy_qp(qp);
    ibv_destroy_qp(peer);
    EXPECT(ibv_destroy_cq(scq) == 0, "destroy cq");
    ibv_destroy_cq(rcq);
    ibv_destroy_cq(pcq);
    ibv_dereg_mr(mr);
}

int main(void)
{
    struct t_dev d;
    struct ibv_cq *cq;

    t_dev_open(&d);
    cq = t_cq(&d, 64);
    test_transitions(&d, cq);
    test_ud_transitions(&d, cq);
    test_mr_errnos(&d);
    test_post_errnos_and_flush(&d);
    th_case = "teardown";
    EXPECT(ibv_destroy_cq(cq) == 0, "destroy cq");
    t_dev_close(&d);
    return t_finish();
}
