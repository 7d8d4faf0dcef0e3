/*
 * softib asynchronous events, per context and acknowledged:
 *   contexts   two ibv_open_device() calls get two async fds; the
 *              IBV_EVENT_QP_LAST_WQE_REACHED of a QP made on context A
 *              (moved to ERR while attached to an SRQ) is read through A
 *              only: B's fd is not readable and B's ibv_get_async_event
 *              says EAGAIN
 *   ack        ibv_destroy_qp / ibv_destroy_cq / ibv_destroy_srq of an
 *              object whose event was read but not acknowledged returns
 *              only after ibv_ack_async_event (ibv_get_async_event(3)); the
 *              destroy runs in a thread that reports on a pipe when it
 *              returned: nothing comes while the event is unacknowledged,
 *              the report comes once it is
 *   unread     an event never read is dropped with its object: destroy
 *              returns at once and the context's queue is empty afterwards
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t_common.h"

enum kind { K_QP, K_CQ, K_SRQ };

struct destroyer {
    enum kind kind;
    void *obj;
    int fd;        /* a byte is written here once the destroy returned */
    int rc;
};

static void *destroy_main(void *arg)
{
    struct destroyer *d = arg;
    char c = 'D';

    if (d->kind == K_QP)
        d->rc = ibv_destroy_qp(d->obj);
    else if (d->kind == K_CQ)
        d->rc = ibv_destroy_cq(d->obj);
    else
        d->rc = ibv_destroy_srq(d->obj);
    if (write(d->fd, &c, 1) != 1)
        d->rc = -1;
    return NULL;
}

static bool readable(int fd, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};

    return poll(&p, 1, ms) == 1;
}

static void nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* destroy obj in a thread while ev is held unacknowledged: the destroy must
 * not return before the ack (the 200 ms only give a destroy that does not
 * wait the time to show it; a correct one never returns in them) */
static void destroy_waits_for_ack(enum kind kind, void *obj,
                                  struct ibv_async_event *ev)
{
    struct destroyer d = {.kind = kind, .obj = obj};
    int p[2];
    pthread_t t;
    char c;

    CHECK(pipe(p) == 0, "pipe");
    d.fd = p[1];
    CHECK(pthread_create(&t, NULL, destroy_main, &d) == 0, "pthread_create");
    EXPECT(!readable(p[0], 200), "destroy returned before the event was acknowledged");
    ibv_ack_async_event(ev);
    EXPECT(readable(p[0], 20000) && read(p[0], &c, 1) == 1,
           "destroy did not return after the acknowledgement");
    pthread_join(t, NULL);
    EXPECT(d.rc == 0, "destroy failed: %d", d.rc);
    close(p[0]);
    close(p[1]);
}

static struct ibv_qp *srq_qp(struct t_dev *d, struct ibv_cq *cq, struct ibv_srq *srq)
{
    struct ibv_qp_init_attr a = {
        .send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = IBV_QPT_RC,
        .cap = {.max_send_wr = 4, .max_send_sge = 1}};
    struct ibv_qp *qp = ibv_create_qp(d->pd, &a);

    CHECK(qp, "ibv_create_qp: %s", strerror(errno));
    return qp;
}

static void to_err(struct ibv_qp *qp)
{
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_ERR};

    CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE) == 0, "modify to ERR");
}

int main(void)
{
    struct t_dev a, b;
    struct ibv_srq_init_attr sa = {.attr = {.max_wr = 8, .max_sge = 1}};
    struct ibv_srq *srq_a, *srq_b;
    struct ibv_cq *cq_a, *cq_b;
    struct ibv_qp *qp, *qp2;
    struct ibv_async_event ev;
    struct destroyer dq;
    pthread_t t;
    int p[2];
    char c;

    th_name = "t_async";
    th_case = "contexts";
    t_dev_open(&a);
    t_dev_open(&b);
    EXPECT(a.ctx->async_fd >= 0 && b.ctx->async_fd >= 0 &&
               a.ctx->async_fd != b.ctx->async_fd,
           "two contexts share one async fd (%d, %d)", a.ctx->async_fd,
           b.ctx->async_fd);
    nonblock(a.ctx->async_fd);
    nonblock(b.ctx->async_fd);
    cq_a = t_cq(&a, 16);
    cq_b = t_cq(&b, 16);
    srq_a = ibv_create_srq(a.pd, &sa);
    srq_b = ibv_create_srq(b.pd, &sa);
    CHECK(srq_a && srq_b, "ibv_create_srq: %s", strerror(errno));
    qp = srq_qp(&a, cq_a, srq_a);
    to_err(qp);
    EXPECT(!readable(b.ctx->async_fd, 0), "context B's fd is readable for A's event");
    EXPECT(ibv_get_async_event(b.ctx, &ev) == -1 && errno == EAGAIN,
           "context B read an event of context A's QP (type %d)", ev.event_type);
    EXPECT(readable(a.ctx->async_fd, 0), "context A's fd is not readable");
    CHECK(ibv_get_async_event(a.ctx, &ev) == 0, "context A has no event: %s",
          strerror(errno));
    EXPECT(ev.event_type == IBV_EVENT_QP_LAST_WQE_REACHED && ev.element.qp == qp,
           "event %s for %p, not last WQE reached for %p",
           ibv_event_type_str(ev.event_type), (void *)ev.element.qp, (void *)qp);
    EXPECT(ibv_get_async_event(a.ctx, &ev) == -1 && errno == EAGAIN,
           "a second event on context A");

    th_case = "ack qp";
    destroy_waits_for_ack(K_QP, qp, &ev);

    th_case = "unread";
    qp2 = srq_qp(&b, cq_b, srq_b);
    to_err(qp2);
    CHECK(readable(b.ctx->async_fd, 0), "context B's event is missing");
    CHECK(pipe(p) == 0, "pipe");
    dq = (struct destroyer){.kind = K_QP, .obj = qp2, .fd = p[1]};
    CHECK(pthread_create(&t, NULL, destroy_main, &dq) == 0, "pthread_create");
    EXPECT(readable(p[0], 20000) && read(p[0], &c, 1) == 1,
           "destroy of a QP whose event was never read did not return");
    pthread_join(t, NULL);
    close(p[0]);
    close(p[1]);
    EXPECT(!readable(b.ctx->async_fd, 0) &&
               ibv_get_async_event(b.ctx, &ev) == -1 && errno == EAGAIN,
           "the destroyed QP's unread event is still queued");

    th_case = "ack cq";
    {
        /* a CQ of one entry, two flushed receives: IBV_EVENT_CQ_ERR */
        struct ibv_cq *tiny = t_cq(&a, 1);
        struct ibv_qp *q = t_rc_qp(&a, tiny, tiny, 1, 2);
        struct ibv_qp_attr at = {.qp_state = IBV_QPS_INIT, .port_num = 1};
        static char buf[64];
        struct ibv_mr *mr = ibv_reg_mr(a.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);

        CHECK(mr, "reg_mr");
        CHECK(ibv_modify_qp(q, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                                        IBV_QP_ACCESS_FLAGS) == 0, "INIT");
        EXPECT(t_post_recv(q, mr, buf, 32, 1) == 0 && t_post_recv(q, mr, buf + 32, 32, 2) == 0,
               "post_recv");
        to_err(q);
        CHECK(ibv_get_async_event(a.ctx, &ev) == 0, "no CQ error event: %s",
              strerror(errno));
        EXPECT(ev.event_type == IBV_EVENT_CQ_ERR && ev.element.cq == tiny,
               "event %s, not CQ error", ibv_event_type_str(ev.event_type));
        EXPECT(ibv_destroy_qp(q) == 0, "destroy QP");
        destroy_waits_for_ack(K_CQ, tiny, &ev);
        ibv_dereg_mr(mr);
    }

    th_case = "ack srq";
    {
        /* two QPs of context A, one on an SRQ armed at 2 of 2 WQEs: the
         * first message takes it below: IBV_EVENT_SRQ_LIMIT_REACHED */
        struct ibv_srq_attr lim = {.srq_limit = 2};
        struct ibv_srq *s = ibv_create_srq(a.pd, &sa);
        struct ibv_qp *snd = t_rc_qp(&a, cq_a, cq_a, 4, 4);
        struct ibv_qp *rcv;
        struct t_conn cn = t_conn_default();
        static char buf[128];
        struct ibv_mr *mr = ibv_reg_mr(a.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
        struct ibv_sge sge = {(uintptr_t)buf, 64, 0};
        struct ibv_recv_wr rw = {.wr_id = 9, .sg_list = &sge, .num_sge = 1}, *bad;
        struct ibv_wc wc;

        CHECK(s && mr, "srq/mr");
        rcv = srq_qp(&a, cq_a, s);
        sge.lkey = mr->lkey;
        CHECK(ibv_post_srq_recv(s, &rw, &bad) == 0, "post_srq_recv");
        sge.addr += 64;
        CHECK(ibv_post_srq_recv(s, &rw, &bad) == 0, "post_srq_recv");
        CHECK(ibv_modify_srq(s, &lim, IBV_SRQ_LIMIT) == 0, "arm the limit");
        CHECK(t_connect(snd, a.lid, rcv->qp_num, &cn) == 0 &&
                  t_connect(rcv, a.lid, snd->qp_num, &cn) == 0, "connect");
        EXPECT(t_post_send(snd, IBV_WR_SEND, mr, buf, 8, 0, 0, 1) == 0, "send");
        EXPECT(t_poll(cq_a, &wc, 20000) && wc.status == IBV_WC_SUCCESS, "first completion");
        EXPECT(t_poll(cq_a, &wc, 20000) && wc.status == IBV_WC_SUCCESS, "second completion");
        CHECK(ibv_get_async_event(a.ctx, &ev) == 0, "no SRQ limit event: %s",
              strerror(errno));
        EXPECT(ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED && ev.element.srq == s,
               "event %s, not SRQ limit reached", ibv_event_type_str(ev.event_type));
        EXPECT(ibv_destroy_qp(snd) == 0, "destroy sender");
        to_err(rcv);
        {
            struct ibv_async_event last;

            CHECK(ibv_get_async_event(a.ctx, &last) == 0 &&
                      last.event_type == IBV_EVENT_QP_LAST_WQE_REACHED,
                  "no last WQE reached event");
            ibv_ack_async_event(&last);
        }
        EXPECT(ibv_destroy_qp(rcv) == 0, "destroy receiver");
        destroy_waits_for_ack(K_SRQ, s, &ev);
        ibv_dereg_mr(mr);
    }

    ibv_destroy_srq(srq_a);
    ibv_destroy_srq(srq_b);
    ibv_destroy_cq(cq_a);
    ibv_destroy_cq(cq_b);
    t_dev_close(&b);
    t_dev_close(&a);
    return t_finish();
}
