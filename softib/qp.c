/*
 * softib queue pairs: create/modify/query/destroy with the IBTA state machine
 * and attribute-mask validation, receive posting, receive completions, and
 * moving a QP to the error state (which flushes its work requests).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "softib.h"

/* ------------------------------------------------------------ timers */

uint64_t sib_timeout_ns(uint8_t timeout)
{
    if (timeout == 0)
        return 0; /* infinite */
    if (timeout > 31)
        timeout = 31;
    return 4096ull << timeout; /* 4.096 us * 2^timeout */
}

/* IBTA table of RNR NAK timer values, in microseconds */
static const uint32_t sib_rnr_us[32] = {
    655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
    1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
    40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520};

uint64_t sib_rnr_ns(uint8_t timer)
{
    return (uint64_t)sib_rnr_us[timer & 31] * 1000;
}

/* ------------------------------------------------------------ state table */

struct sib_trans {
    bool valid;
    int req[4]; /* RC, UD, XRC_SEND, XRC_RECV */
    int opt[4];
};

enum { T_RC, T_UD, T_XINI, T_XTGT };

#define PKP (IBV_QP_PKEY_INDEX | IBV_QP_PORT)

/* [cur][next], following the kernel's transition table for these types */
static const struct sib_trans sib_qp_table[IBV_QPS_ERR + 1][IBV_QPS_ERR + 1] = {
    [IBV_QPS_RESET] = {
        [IBV_QPS_RESET] = {.valid = true},
        [IBV_QPS_ERR] = {.valid = true},
        [IBV_QPS_INIT] = {.valid = true,
            .req = {PKP | IBV_QP_ACCESS_FLAGS, PKP | IBV_QP_QKEY,
                    PKP | IBV_QP_ACCESS_FLAGS, PKP | IBV_QP_ACCESS_FLAGS}},
    },
    [IBV_QPS_INIT] = {
        [IBV_QPS_RESET] = {.valid = true},
        [IBV_QPS_ERR] = {.valid = true},
        [IBV_QPS_INIT] = {.valid = true,
            .opt = {PKP | IBV_QP_ACCESS_FLAGS, PKP | IBV_QP_QKEY,
                    PKP | IBV_QP_ACCESS_FLAGS, PKP | IBV_QP_ACCESS_FLAGS}},
        [IBV_QPS_RTR] = {.valid = true,
            .req = {IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                        IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                        IBV_QP_MIN_RNR_TIMER,
                    0,
                    IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                        IBV_QP_RQ_PSN,
                    IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                        IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                        IBV_QP_MIN_RNR_TIMER},
            .opt = {IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX,
                    IBV_QP_PKEY_INDEX | IBV_QP_QKEY,
                    IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX,
                    IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX}},
    },
    [IBV_QPS_RTR] = {
        [IBV_QPS_RESET] = {.valid = true},
        [IBV_QPS_ERR] = {.valid = true},
        [IBV_QPS_RTS] = {.valid = true,
            .req = {IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                        IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
                    IBV_QP_SQ_PSN,
                    IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                        IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
                    IBV_QP_TIMEOUT | IBV_QP_SQ_PSN},
            .opt = {IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
                        IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE,
                    IBV_QP_CUR_STATE | IBV_QP_QKEY,
                    IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
                        IBV_QP_PATH_MIG_STATE,
                    IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
                        IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE}},
    },
    [IBV_QPS_RTS] = {
        [IBV_QPS_RESET] = {.valid = true},
        [IBV_QPS_ERR] = {.valid = true},
        [IBV_QPS_RTS] = {.valid = true,
            .opt = {IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH |
                        IBV_QP_PATH_MIG_STATE | IBV_QP_MIN_RNR_TIMER,
                    IBV_QP_CUR_STATE | IBV_QP_QKEY,
                    IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH |
                        IBV_QP_PATH_MIG_STATE,
                    IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH |
                        IBV_QP_PATH_MIG_STATE | IBV_QP_MIN_RNR_TIMER}},
        [IBV_QPS_SQD] = {.valid = true,
            .opt = {IBV_QP_EN_SQD_ASYNC_NOTIFY, IBV_QP_EN_SQD_ASYNC_NOTIFY,
                    IBV_QP_EN_SQD_ASYNC_NOTIFY, IBV_QP_EN_SQD_ASYNC_NOTIFY}},
    },
    [IBV_QPS_SQD] = {
        [IBV_QPS_RESET] = {.valid = true},
        [IBV_QPS_ERR] = {.valid = true},
        [IBV_QPS_RTS] = {.valid = true,
            .opt = {IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH |
                        IBV_QP_PATH_MIG_STATE | IBV_QP_MIN_RNR_TIMER,
                    IBV_QP_CUR_STATE | IBV_QP_QKEY,
                    IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH |
                        IBV_QP_PATH_MIG_STATE,
                    IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH |
                        IBV_QP_PATH_MIG_STATE | IBV_QP_MIN_RNR_TIMER}},
        [IBV_QPS_SQD] = {.valid = true,
            .opt = {IBV_QP_PKEY_INDEX | IBV_QP_QKEY | IBV_QP_AV |
                        IBV_QP_ACCESS_FLAGS | IBV_QP_TIMEOUT |
                        IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                        IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC |
                        IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MTU,
                    IBV_QP_PKEY_INDEX | IBV_QP_QKEY,
                    IBV_QP_PKEY_INDEX | IBV_QP_AV | IBV_QP_TIMEOUT |
                        IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                        IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_PATH_MTU,
                    IBV_QP_PKEY_INDEX | IBV_QP_AV | IBV_QP_TIMEOUT |
                        IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER |
                        IBV_QP_PATH_MTU}},
    },
    [IBV_QPS_SQE] = {
        [IBV_QPS_RESET] = {.valid = true},
        [IBV_QPS_ERR] = {.valid = true},
        [IBV_QPS_RTS] = {.valid = true,
            .opt = {0, IBV_QP_CUR_STATE | IBV_QP_QKEY, 0, 0}},
    },
    [IBV_QPS_ERR] = {
        [IBV_QPS_RESET] = {.valid = true},
        [IBV_QPS_ERR] = {.valid = true},
    },
};

static int sib_type_col(enum ibv_qp_type t)
{
    switch (t) {
    case IBV_QPT_RC: return T_RC;
    case IBV_QPT_UD: return T_UD;
    case IBV_QPT_XRC_SEND: return T_XINI;
    case IBV_QPT_XRC_RECV: return T_XTGT;
    default: return -1;
    }
}

/* ------------------------------------------------------------ lookup */

struct sib_qp *sib_qp_lookup(struct sib_dev *dev, uint32_t qpn)
{
    struct sib_qp *qp;

    if (SIB_SLOT_OF(qpn) != dev->slot)
        return NULL;
    qp = dev->qps[SIB_IDX_OF(qpn)];
    return qp && qp->ex.qp_base.qp_num == qpn ? qp : NULL;
}

void sib_qp_publish(struct sib_qp *qp)
{
    struct sib_shared_qp *s = &qp->dev->shared->qp[qp->idx];
    struct ibv_qp *q = &qp->ex.qp_base;

    atomic_store_explicit(&s->state, q->state, memory_order_relaxed);
    s->type = q->qp_type;
    s->pd_id = q->pd ? ((struct sib_pd *)q->pd)->id : 0;
    s->access = qp->attr.qp_access_flags;
    s->remote_qpn = qp->attr.dest_qp_num;
    s->xrcd_id = qp->xrcd_id;
    s->min_rnr_timer = qp->attr.min_rnr_timer;
    atomic_store_explicit(&s->qpn, q->qp_num, memory_order_release);
}

static uint16_t sib_ah_slot(const struct ibv_ah_attr *ah)
{
    if (ah->is_global)
        return (uint16_t)(ah->grh.dgid.raw[14] << 8 | ah->grh.dgid.raw[15]);
    return ah->dlid;
}

/* ------------------------------------------------------------ create */

struct ibv_qp *sib_create_qp_ex(struct ibv_context *ctx,
                                struct ibv_qp_init_attr_ex *a)
{
    struct sib_dev *dev;
    struct sib_qp *qp;
    struct ibv_qp *q;
    uint32_t idx = 0, sq_cap;
    int col, rc = sib_check_dev(ctx);

    if (rc)
        goto err;
    rc = EINVAL;
    col = sib_type_col(a->qp_type);
    if (col < 0) {
        rc = EOPNOTSUPP;
        goto err;
    }
    if (a->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |
                                   IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
        goto err;
    if (col == T_XTGT) {
        if (!(a->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !a->xrcd)
            goto err;
    } else {
        if (!(a->comp_mask & IBV_QP_INIT_ATTR_PD) || !a->pd || !a->send_cq)
            goto err;
        if (col != T_XINI && !a->recv_cq && !a->srq)
            goto err;
    }
    if (col != T_XTGT &&
        (a->cap.max_send_wr > SIB_MAX_WR || a->cap.max_send_sge > SIB_MAX_SGE ||
         a->cap.max_inline_data > SIB_MAX_INLINE))
        goto err;
    if (!a->srq && (col == T_RC || col == T_UD) &&
        (a->cap.max_recv_wr > SIB_MAX_WR || a->cap.max_recv_sge > SIB_MAX_SGE))
        goto err;
    if (a->srq && ((struct sib_srq *)a->srq)->is_xrc)
        goto err;

    dev = sib_dev_of(ctx);
    rc = ENOMEM;
    qp = calloc(1, sizeof(*qp));
    if (!qp)
        goto err;
    qp->dev = dev;
    q = &qp->ex.qp_base;
    q->context = ctx;
    q->qp_context = a->qp_context;
    q->qp_type = a->qp_type;
    q->state = IBV_QPS_RESET;
    pthread_mutex_init(&q->mutex, NULL);
    pthread_cond_init(&q->cond, NULL);
    if (col == T_XTGT) {
        qp->xrcd_id = sib_xrcd_id(a->xrcd);
        memset(&a->cap, 0, sizeof(a->cap));
    } else {
        q->pd = a->pd;
        q->send_cq = a->send_cq;
        q->recv_cq = col == T_XINI ? NULL : a->recv_cq;
        q->srq = col == T_XINI ? NULL : a->srq;
        qp->send_cq = (struct sib_cq *)q->send_cq;
        qp->recv_cq = (struct sib_cq *)q->recv_cq;
        qp->srq = (struct sib_srq *)q->srq;
        qp->sq_sig_all = a->sq_sig_all;
        if (a->cap.max_send_sge == 0)
            a->cap.max_send_sge = 1;
        sq_cap = a->cap.max_send_wr ? a->cap.max_send_wr : 1;
        qp->sq = calloc(sq_cap, sizeof(*qp->sq));
        if (a->cap.max_inline_data)
            qp->inline_area = malloc((size_t)sq_cap * a->cap.max_inline_data);
        if (!qp->sq || (a->cap.max_inline_data && !qp->inline_area))
            goto err_free;
        qp->sq_cap = sq_cap;
        if (col == T_XINI || qp->srq) {
            a->cap.max_recv_wr = 0;
            a->cap.max_recv_sge = 0;
        } else {
            uint32_t rcap = a->cap.max_recv_wr ? a->cap.max_recv_wr : 1;

            if (a->cap.max_recv_sge == 0)
                a->cap.max_recv_sge = 1;
            qp->rq.ring = calloc(rcap, sizeof(*qp->rq.ring));
            if (!qp->rq.ring)
                goto err_free;
            qp->rq.cap = rcap;
            qp->rq.max_sge = (int)a->cap.max_recv_sge;
        }
        qp->cap = a->cap;
    }
    if ((a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) && col != T_XTGT) {
        qp->has_ex = true;
        sib_qp_ex_init(qp);
    }

    pthread_mutex_lock(&dev->lock);
    for (uint32_t i = 0; i < SIB_MAX_IDX - 1; i++) {
        uint32_t c = (dev->next_qp_idx + i - 1) % (SIB_MAX_IDX - 1) + 1;

        if (!dev->qps[c] && !atomic_load(&dev->shared->qp[c].openers)) {
            idx = c;
            break;
        }
    }
    if (!idx) {
        pthread_mutex_unlock(&dev->lock);
        goto err_free;
    }
    dev->next_qp_idx = idx + 1;
    qp->idx = idx;
    q->qp_num = (uint32_t)dev->slot << SIB_IDX_BITS | idx;
    q->handle = idx;
    qp->attr.qp_state = IBV_QPS_RESET;
    qp->attr.port_num = 1;
    qp->attr.cap = qp->cap;
    dev->qps[idx] = qp;
    if (qp->send_cq)
        qp->send_cq->nqp++;
    if (qp->recv_cq)
        qp->recv_cq->nqp++;
    if (qp->srq)
        qp->srq->nqp++;
    sib_qp_publish(qp);
    pthread_mutex_unlock(&dev->lock);
    return q;

err_free:
    free(qp->sq);
    free(qp->inline_area);
    free(qp->rq.ring);
    free(qp);
err:
    errno = rc;
    return NULL;
}

SIB_EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
                                        struct ibv_qp_init_attr *attr)
{
    struct ibv_qp_init_attr_ex ex;
    struct ibv_qp *qp;

    memset(&ex, 0, sizeof(ex));
    memcpy(&ex, attr, sizeof(*attr));
    ex.comp_mask = IBV_QP_INIT_ATTR_PD;
    ex.pd = pd;
    qp = sib_create_qp_ex(pd->context, &ex);
    if (qp)
        attr->cap = ex.cap;
    return qp;
}

SIB_EXPORT struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *ibqp)
{
    struct sib_qp *qp = (struct sib_qp *)ibqp;

    return qp->has_ex ? &qp->ex : NULL;
}

/* ------------------------------------------------------------ error state */

void sib_qp_to_error(struct sib_qp *qp)
{
    struct ibv_qp *q = &qp->ex.qp_base;
    struct sib_rwqe w;

    if (q->state == IBV_QPS_ERR)
        return;
    if (qp->ack_pending) /* what was received is acknowledged first */
        sib_ack_flush(qp->dev);
    q->state = IBV_QPS_ERR;
    qp->attr.qp_state = IBV_QPS_ERR;
    sib_qp_publish(qp);
    qp->resp.active = false;
    sib_sq_flush(qp);
    while (sib_rq_pop(&qp->rq, &w)) {
        struct ibv_wc wc = {.wr_id = w.wr_id, .status = IBV_WC_WR_FLUSH_ERR,
                            .opcode = IBV_WC_RECV, .qp_num = q->qp_num};

        sib_cq_push(qp->recv_cq, &wc, false);
    }
    if (qp->srq) {
        struct ibv_async_event ev = {.event_type = IBV_EVENT_QP_LAST_WQE_REACHED};

        ev.element.qp = q;
        sib_async_push(qp->dev, &ev);
    }
}

/* ------------------------------------------------------------ modify */

static int sib_check_values(struct sib_qp *qp, const struct ibv_qp_attr *a,
                            int mask)
{
    if ((mask & IBV_QP_PORT) && a->port_num != 1)
        return EINVAL;
    if ((mask & IBV_QP_PKEY_INDEX) && a->pkey_index != 0)
        return EINVAL;
    if ((mask & IBV_QP_PATH_MTU) &&
        (a->path_mtu < IBV_MTU_256 || a->path_mtu > IBV_MTU_4096))
        return EINVAL;
    if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) && a->max_rd_atomic > SIB_MAX_RD_ATOMIC)
        return EINVAL;
    if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) &&
        a->max_dest_rd_atomic > SIB_MAX_RD_ATOMIC)
        return EINVAL;
    if ((mask & IBV_QP_TIMEOUT) && a->timeout > 31)
        return EINVAL;
    if ((mask & IBV_QP_RETRY_CNT) && a->retry_cnt > 7)
        return EINVAL;
    if ((mask & IBV_QP_RNR_RETRY) && a->rnr_retry > 7)
        return EINVAL;
    if ((mask & IBV_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
        return EINVAL;
    if ((mask & IBV_QP_DEST_QPN) && a->dest_qp_num > 0xffffff)
        return EINVAL;
    if ((mask & IBV_QP_ACCESS_FLAGS) &&
        (a->qp_access_flags & ~(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)))
        return EINVAL;
    if (mask & IBV_QP_AV) {
        if (a->ah_attr.port_num > 1)
            return EINVAL;
        if (sib_link_is_eth() && !a->ah_attr.is_global)
            return EINVAL; /* RoCE needs a GRH */
        if (a->ah_attr.is_global && a->ah_attr.grh.sgid_index >=
                                        (sib_link_is_eth() ? 2 : 1))
            return EINVAL;
    }
    (void)qp;
    return 0;
}

SIB_EXPORT int ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
                             int mask)
{
    struct sib_qp *qp = (struct sib_qp *)ibqp;
    struct sib_dev *dev = sib_dev_of(ibqp->context);
    enum ibv_qp_state cur, next;
    const struct sib_trans *t;
    int col, rc;

    if ((rc = sib_check_dev(ibqp->context)))
        return rc;
    if (qp->is_open_handle)
        return EOPNOTSUPP; /* only the creating process modifies a TGT QP */
    col = sib_type_col(ibqp->qp_type);
    pthread_mutex_lock(&dev->lock);
    sib_touch(dev);
    if (qp->ack_pending) /* an HCA would have sent it long ago */
        sib_ack_flush(dev);
    cur = ibqp->state;
    if ((mask & IBV_QP_CUR_STATE) && attr->cur_qp_state != cur) {
        rc = EINVAL;
        goto out;
    }
    next = (mask & IBV_QP_STATE) ? attr->qp_state : cur;
    if ((unsigned)next > IBV_QPS_ERR || (unsigned)cur > IBV_QPS_ERR) {
        rc = EINVAL;
        goto out;
    }
    t = &sib_qp_table[cur][next];
    if (!t->valid || (mask & t->req[col]) != t->req[col] ||
        (mask & ~(t->req[col] | t->opt[col] | IBV_QP_STATE))) {
        rc = EINVAL;
        goto out;
    }
    if ((rc = sib_check_values(qp, attr, mask)))
        goto out;

    if (mask & IBV_QP_ACCESS_FLAGS)
        qp->attr.qp_access_flags = attr->qp_access_flags;
    if (mask & IBV_QP_PKEY_INDEX)
        qp->attr.pkey_index = attr->pkey_index;
    if (mask & IBV_QP_PORT)
        qp->attr.port_num = attr->port_num;
    if (mask & IBV_QP_QKEY)
        qp->attr.qkey = attr->qkey;
    if (mask & IBV_QP_AV)
        qp->attr.ah_attr = attr->ah_attr;
    if (mask & IBV_QP_PATH_MTU)
        qp->attr.path_mtu = attr->path_mtu;
    if (mask & IBV_QP_DEST_QPN)
        qp->attr.dest_qp_num = attr->dest_qp_num;
    if (mask & IBV_QP_RQ_PSN)
        qp->attr.rq_psn = attr->rq_psn & 0xffffff;
    if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
        qp->attr.max_dest_rd_atomic = attr->max_dest_rd_atomic;
    if (mask & IBV_QP_MIN_RNR_TIMER)
        qp->attr.min_rnr_timer = attr->min_rnr_timer;
    if (mask & IBV_QP_TIMEOUT)
        qp->attr.timeout = attr->timeout;
    if (mask & IBV_QP_RETRY_CNT)
        qp->attr.retry_cnt = attr->retry_cnt;
    if (mask & IBV_QP_RNR_RETRY)
        qp->attr.rnr_retry = attr->rnr_retry;
    if (mask & IBV_QP_SQ_PSN)
        qp->attr.sq_psn = attr->sq_psn & 0xffffff;
    if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
        qp->attr.max_rd_atomic = attr->max_rd_atomic;

    if (next == IBV_QPS_ERR) {
        sib_qp_to_error(qp);
        goto out;
    }
    if (next == IBV_QPS_RESET) {
        /* discard everything without completions */
        qp->sq_head = qp->sq_count = qp->sq_next = 0;
        qp->inflight = 0;
        qp->rq.head = qp->rq.count = 0;
        qp->resp.active = false;
        qp->nak_sent = false;
        qp->ack_pending = false;
    }
    if (next == IBV_QPS_RTR && cur == IBV_QPS_INIT) {
        qp->epsn = qp->attr.rq_psn;
        qp->nak_sent = false;
    }
    if (next == IBV_QPS_RTS && cur == IBV_QPS_RTR) {
        qp->next_psn = qp->attr.sq_psn;
        qp->retry_left = qp->attr.retry_cnt;
        qp->rnr_left = qp->attr.rnr_retry;
    }
    ibqp->state = next;
    qp->attr.qp_state = next;
    qp->attr.cur_qp_state = next;
    sib_qp_publish(qp);
    {
        /* remote_slot goes with the published entry */
        struct sib_shared_qp *s = &dev->shared->qp[qp->idx];

        s->remote_slot = sib_ah_slot(&qp->attr.ah_attr);
    }
out:
    pthread_mutex_unlock(&dev->lock);
    return rc;
}

SIB_EXPORT int ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
                            int mask, struct ibv_qp_init_attr *init)
{
    struct sib_qp *qp = (struct sib_qp *)ibqp;
    struct sib_dev *dev = sib_dev_of(ibqp->context);
    int rc;

    (void)mask;
    if ((rc = sib_check_dev(ibqp->context)))
        return rc;
    pthread_mutex_lock(&dev->lock);
    if (qp->is_open_handle) {
        struct sib_peer *p = sib_peer_get(dev, (uint16_t)SIB_SLOT_OF(ibqp->qp_num));

        if (p && p->shared)
            ibqp->state = atomic_load(&p->shared->qp[SIB_IDX_OF(ibqp->qp_num)].state);
        qp->attr.qp_state = ibqp->state;
    }
    *attr = qp->attr;
    attr->qp_state = ibqp->state;
    attr->cur_qp_state = ibqp->state;
    attr->sq_psn = qp->attr.sq_psn;
    attr->cap = qp->cap;
    if (init) {
        memset(init, 0, sizeof(*init));
        init->qp_context = ibqp->qp_context;
        init->send_cq = ibqp->send_cq;
        init->recv_cq = ibqp->recv_cq;
        init->srq = ibqp->srq;
        init->cap = qp->cap;
        init->qp_type = ibqp->qp_type;
        init->sq_sig_all = qp->sq_sig_all;
    }
    pthread_mutex_unlock(&dev->lock);
    return 0;
}

SIB_EXPORT int ibv_destroy_qp(struct ibv_qp *ibqp)
{
    struct sib_qp *qp = (struct sib_qp *)ibqp;
    struct sib_dev *dev = sib_dev_of(ibqp->context);

    pthread_mutex_lock(&dev->lock);
    if (qp->is_open_handle) {
        struct sib_peer *p = sib_peer_get(dev, (uint16_t)SIB_SLOT_OF(ibqp->qp_num));

        if (p && p->shared)
            atomic_fetch_sub(&p->shared->qp[SIB_IDX_OF(ibqp->qp_num)].openers, 1);
    } else if (!dev->forked_away) {
        struct sib_shared_qp *s = &dev->shared->qp[qp->idx];

        if (qp->ack_pending)
            sib_ack_flush(dev);
        if (!atomic_load(&s->openers))
            atomic_store(&s->qpn, 0);
        else /* still open elsewhere: stays a live TGT QP in the table */
            atomic_store(&s->state, IBV_QPS_RTR);
        dev->qps[qp->idx] = NULL;
        if (qp->send_cq)
            qp->send_cq->nqp--;
        if (qp->recv_cq)
            qp->recv_cq->nqp--;
        if (qp->srq)
            qp->srq->nqp--;
        dev->inflight_total -= qp->inflight;
        sib_async_forget(dev, ibqp->context, ibqp);
    }
    pthread_mutex_unlock(&dev->lock);
    if (!qp->is_open_handle)
        sib_async_wait_acked(&ibqp->mutex, &ibqp->cond, &ibqp->events_completed,
                             qp->async_reported);
    free(qp->sq);
    free(qp->inline_area);
    free(qp->rq.ring);
    free(qp->ex_list);
    free(qp->ex_inline);
    free(qp);
    return 0;
}

/* ------------------------------------------------------------ receive */

int sib_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
                  struct ibv_recv_wr **bad)
{
    struct sib_qp *qp = (struct sib_qp *)ibqp;
    struct sib_dev *dev = qp->dev;
    int rc;

    if (dev->forked_away) {
        *bad = wr;
        return EPERM;
    }
    pthread_mutex_lock(&dev->lock);
    sib_touch(dev);
    if (ibqp->state == IBV_QPS_RESET || qp->srq || !qp->rq.ring) {
        *bad = wr;
        rc = EINVAL;
    } else {
        rc = sib_rq_post(&qp->rq, wr, bad, &dev->stats.recv_wr);
        if (ibqp->state == IBV_QPS_ERR) {
            struct sib_rwqe w;

            while (sib_rq_pop(&qp->rq, &w)) {
                struct ibv_wc wc = {.wr_id = w.wr_id,
                                    .status = IBV_WC_WR_FLUSH_ERR,
                                    .opcode = IBV_WC_RECV,
                                    .qp_num = ibqp->qp_num};

                sib_cq_push(qp->recv_cq, &wc, false);
            }
        }
    }
    pthread_mutex_unlock(&dev->lock);
    return rc;
}

void sib_recv_complete(struct sib_qp *qp, struct sib_cq *cq, uint64_t wr_id,
                       enum ibv_wc_status st, enum ibv_wc_opcode op,
                       uint32_t len, const struct sib_pkt_hdr *h, bool srq)
{
    struct ibv_wc wc;

    memset(&wc, 0, sizeof(wc));
    wc.wr_id = wr_id;
    wc.status = st;
    wc.opcode = op;
    wc.byte_len = len;
    wc.qp_num = qp ? qp->ex.qp_base.qp_num : h->dst_qpn;
    wc.src_qp = h->src_qpn;
    wc.slid = sib_link_is_eth() ? 0 : h->src_slot;
    if (h->flags & SIB_F_IMM) {
        wc.imm_data = h->imm;
        wc.wc_flags |= IBV_WC_WITH_IMM;
    } else if ((h->flags & SIB_F_INV) && st == IBV_WC_SUCCESS) {
        wc.invalidated_rkey = h->rkey;
        wc.wc_flags |= IBV_WC_WITH_INV;
    }
    if (h->flags & SIB_F_GRH)
        wc.wc_flags |= IBV_WC_GRH;
    (void)srq;
    sib_cq_push(cq, &wc, (h->flags & SIB_F_SOLICITED) != 0);
}

/* ------------------------------------------------------------ address handles */

SIB_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd,
                                        struct ibv_ah_attr *attr)
{
    struct sib_ah *ah;

    if (sib_check_dev(pd->context) || attr->port_num > 1 ||
        (sib_link_is_eth() && !attr->is_global) ||
        (!attr->is_global && attr->dlid == 0)) {
        errno = EINVAL;
        return NULL;
    }
    ah = calloc(1, sizeof(*ah));
    if (!ah) {
        errno = ENOMEM;
        return NULL;
    }
    ah->ibv.context = pd->context;
    ah->ibv.pd = pd;
    ah->attr = *attr;
    ah->slot = sib_ah_slot(attr);
    return &ah->ibv;
}

SIB_EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
    free(ah);
    return 0;
}

SIB_EXPORT int ibv_init_ah_from_wc(struct ibv_context *ctx, uint8_t port_num,
                                   struct ibv_wc *wc, struct ibv_grh *grh,
                                   struct ibv_ah_attr *ah_attr)
{
    memset(ah_attr, 0, sizeof(*ah_attr));
    if (port_num != 1 || sib_check_dev(ctx))
        return EINVAL;
    ah_attr->port_num = 1;
    ah_attr->dlid = wc->slid;
    ah_attr->sl = wc->sl;
    if (wc->wc_flags & IBV_WC_GRH) {
        ah_attr->is_global = 1;
        ah_attr->grh.dgid = grh->sgid;
        ah_attr->grh.hop_limit = 0xff;
    } else if (sib_link_is_eth()) {
        return EINVAL;
    }
    return 0;
}

SIB_EXPORT struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd,
                                                struct ibv_wc *wc,
                                                struct ibv_grh *grh,
                                                uint8_t port_num)
{
    struct ibv_ah_attr attr;
    int rc = ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr);

    if (rc) {
        errno = rc;
        return NULL;
    }
    return ibv_create_ah(pd, &attr);
}

SIB_EXPORT int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
                                uint16_t lid)
{
    (void)qp, (void)gid, (void)lid;
    return EOPNOTSUPP;
}

SIB_EXPORT int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
                                uint16_t lid)
{
    (void)qp, (void)gid, (void)lid;
    return EOPNOTSUPP;
}

SIB_EXPORT int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
    (void)qp, (void)ece;
    return EOPNOTSUPP;
}

SIB_EXPORT int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
    (void)qp, (void)ece;
    return EOPNOTSUPP;
}
