#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "t_common.h"

static char t_dir[64];
static pid_t t_dir_owner;

/* every test runs in a directory of its own, removed at exit, so sockets of
 * peers it killed are never left behind */
static void t_dir_remove(void)
{
    DIR *dir;
    struct dirent *e;
    char path[400];

    if (!t_dir[0] || getpid() != t_dir_owner)
        return;
    dir = opendir(t_dir);
    while (dir && (e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", t_dir, e->d_name);
        unlink(path);
    }
    if (dir)
        closedir(dir);
    rmdir(t_dir);
}

static void t_dir_setup(void)
{
    if (t_dir[0] || getenv("SOFTIB_DIR"))
        return;
    snprintf(t_dir, sizeof(t_dir), "/tmp/softib-test.XXXXXX");
    CHECK(mkdtemp(t_dir), "mkdtemp: %s", strerror(errno));
    setenv("SOFTIB_DIR", t_dir, 1);
    t_dir_owner = getpid();
    atexit(t_dir_remove);
}

static uint64_t t_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void t_dev_open(struct t_dev *d)
{
    struct ibv_device **list;
    struct ibv_port_attr pa;
    int n = 0;

    memset(d, 0, sizeof(*d));
    t_dir_setup();
    list = ibv_get_device_list(&n);
    CHECK(list && n >= 1, "no verbs device (n=%d)", n);
    d->ctx = ibv_open_device(list[0]);
    ibv_free_device_list(list);
    CHECK(d->ctx, "ibv_open_device: %s", strerror(errno));
    CHECK(ibv_query_port(d->ctx, 1, &pa) == 0, "query_port");
    d->lid = pa.lid;
    d->pd = ibv_alloc_pd(d->ctx);
    CHECK(d->pd, "ibv_alloc_pd: %s", strerror(errno));
}

void t_dev_close(struct t_dev *d)
{
    ibv_dealloc_pd(d->pd);
    ibv_close_device(d->ctx);
}

struct ibv_cq *t_cq(struct t_dev *d, int cqe)
{
    struct ibv_cq *cq = ibv_create_cq(d->ctx, cqe, NULL, NULL, 0);

    CHECK(cq, "ibv_create_cq: %s", strerror(errno));
    return cq;
}

struct ibv_qp *t_rc_qp(struct t_dev *d, struct ibv_cq *scq, struct ibv_cq *rcq,
                       uint32_t max_send_wr, uint32_t max_recv_wr)
{
    struct ibv_qp_init_attr a = {
        .send_cq = scq, .recv_cq = rcq, .qp_type = IBV_QPT_RC,
        .cap = {.max_send_wr = max_send_wr, .max_recv_wr = max_recv_wr,
                .max_send_sge = 4, .max_recv_sge = 4, .max_inline_data = 64}};
    struct ibv_qp *qp = ibv_create_qp(d->pd, &a);

    CHECK(qp, "ibv_create_qp: %s", strerror(errno));
    return qp;
}

struct t_conn t_conn_default(void)
{
    struct t_conn c = {.timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
                       .min_rnr_timer = 1,
                       .access = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
                                 IBV_ACCESS_REMOTE_ATOMIC};
    return c;
}

int t_connect(struct ibv_qp *qp, uint16_t dlid, uint32_t dqpn,
              const struct t_conn *c)
{
    struct ibv_qp_attr a;
    int rc;

    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.qp_access_flags = c->access;
    rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                                   IBV_QP_ACCESS_FLAGS);
    if (rc)
        return rc;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = dqpn;
    a.rq_psn = 100;
    a.max_dest_rd_atomic = 4;
    a.min_rnr_timer = c->min_rnr_timer;
    a.ah_attr.dlid = dlid;
    a.ah_attr.port_num = 1;
    rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                                   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                   IBV_QP_MAX_DEST_RD_ATOMIC |
                                   IBV_QP_MIN_RNR_TIMER);
    if (rc)
        return rc;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = c->timeout;
    a.retry_cnt = c->retry_cnt;
    a.rnr_retry = c->rnr_retry;
    a.sq_psn = 100;
    a.max_rd_atomic = 4;
    return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
                                     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

int t_poll(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
    uint64_t end = t_now_ms() + (uint64_t)ms;

    do {
        int n = ibv_poll_cq(cq, 1, wc);

        if (n < 0)
            return 0;
        if (n == 1)
            return 1;
    } while (t_now_ms() < end);
    return 0;
}

bool t_quiet(struct ibv_cq *cq, int ms)
{
    struct ibv_wc wc;

    return !t_poll(cq, &wc, ms);
}

int t_post_send(struct ibv_qp *qp, enum ibv_wr_opcode op, struct ibv_mr *mr,
                void *buf, uint32_t len, uint64_t raddr, uint32_t rkey,
                uint64_t wr_id)
{
    struct ibv_sge sge = {.addr = (uintptr_t)buf, .length = len,
                          .lkey = mr ? mr->lkey : 0};
    struct ibv_send_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
                             .opcode = op, .send_flags = IBV_SEND_SIGNALED};
    struct ibv_send_wr *bad;

    if (op == IBV_WR_ATOMIC_CMP_AND_SWP || op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
        wr.wr.atomic.remote_addr = raddr;
        wr.wr.atomic.rkey = rkey;
    } else {
        wr.wr.rdma.remote_addr = raddr;
        wr.wr.rdma.rkey = rkey;
    }
    return ibv_post_send(qp, &wr, &bad);
}

int t_post_recv(struct ibv_qp *qp, struct ibv_mr *mr, void *buf, uint32_t len,
                uint64_t wr_id)
{
    struct ibv_sge sge = {.addr = (uintptr_t)buf, .length = len,
                          .lkey = mr ? mr->lkey : 0};
    struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1};
    struct ibv_recv_wr *bad;

    return ibv_post_recv(qp, &wr, &bad);
}

int t_finish(void)
{
    if (th_exit_code() != 0)
        return 1;
    printf("all checks passed\n");
    return 0;
}
