/*
 * softib receive queues: the receive ring shared by QP receive queues and
 * SRQs, and the SRQ verbs (basic and XRC). SRQ numbers are
 * (slot << 12 | index), so a number names the process that owns it.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "softib.h"

int sib_rq_post(struct sib_rq *rq, struct ibv_recv_wr *wr,
                struct ibv_recv_wr **bad, uint64_t *posted_p)
{
    for (; wr; wr = wr->next) {
        struct sib_rwqe *w;

        if (wr->num_sge < 0 || wr->num_sge > rq->max_sge) {
            *bad = wr;
            return EINVAL;
        }
        if (rq->count == rq->cap) {
            *bad = wr;
            return ENOMEM;
        }
        w = &rq->ring[(rq->head + rq->count) % rq->cap];
        w->wr_id = wr->wr_id;
        w->num_sge = wr->num_sge;
        memcpy(w->sge, wr->sg_list, (size_t)wr->num_sge * sizeof(struct ibv_sge));
        rq->count++;
        (*posted_p)++;
    }
    return 0;
}

bool sib_rq_pop(struct sib_rq *rq, struct sib_rwqe *out)
{
    if (!rq->count)
        return false;
    *out = rq->ring[rq->head];
    rq->head = (rq->head + 1) % rq->cap;
    rq->count--;
    return true;
}

static int sib_rq_init(struct sib_rq *rq, uint32_t cap, uint32_t max_sge)
{
    if (cap < 1)
        cap = 1;
    rq->ring = calloc(cap, sizeof(*rq->ring));
    if (!rq->ring)
        return ENOMEM;
    rq->cap = cap;
    rq->max_sge = (int)max_sge;
    return 0;
}

void sib_srq_after_pop(struct sib_dev *dev, struct sib_srq *srq)
{
    if (srq->limit && srq->rq.count < srq->limit) {
        struct ibv_async_event ev = {.event_type = IBV_EVENT_SRQ_LIMIT_REACHED};

        srq->limit = 0; /* one event per arming */
        ev.element.srq = &srq->ibv;
        sib_async_push(dev, &ev);
    }
}

struct sib_srq *sib_srq_lookup(struct sib_dev *dev, uint32_t srqn)
{
    struct sib_srq *srq;

    if (SIB_SLOT_OF(srqn) != dev->slot)
        return NULL;
    srq = dev->srqs[SIB_IDX_OF(srqn)];
    return srq && srq->srqn == srqn ? srq : NULL;
}

struct ibv_srq *sib_create_srq_ex(struct ibv_context *ctx,
                                  struct ibv_srq_init_attr_ex *attr)
{
    struct sib_dev *dev;
    struct sib_srq *srq;
    uint32_t idx = 0;
    int rc = sib_check_dev(ctx);

    if (!rc && (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
                attr->attr.max_wr < 1 || attr->attr.max_wr > SIB_MAX_WR ||
                attr->attr.max_sge > SIB_MAX_SGE ||
                attr->attr.srq_limit > attr->attr.max_wr))
        rc = EINVAL;
    if (!rc && (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
        attr->srq_type == IBV_SRQT_XRC &&
        (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) ||
         !(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->xrcd || !attr->cq))
        rc = EINVAL;
    if (!rc && (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
        attr->srq_type != IBV_SRQT_BASIC && attr->srq_type != IBV_SRQT_XRC)
        rc = EOPNOTSUPP;
    if (rc) {
        errno = rc;
        return NULL;
    }
    dev = sib_dev_of(ctx);
    srq = calloc(1, sizeof(*srq));
    if (!srq || sib_rq_init(&srq->rq, attr->attr.max_wr,
                            attr->attr.max_sge ? attr->attr.max_sge : 1)) {
        free(srq);
        errno = ENOMEM;
        return NULL;
    }
    pthread_mutex_lock(&dev->lock);
    for (uint32_t i = 0; i < SIB_MAX_IDX - 1; i++) {
        uint32_t c = (dev->next_srq_idx + i - 1) % (SIB_MAX_IDX - 1) + 1;

        if (!dev->srqs[c]) {
            idx = c;
            break;
        }
    }
    if (!idx) {
        pthread_mutex_unlock(&dev->lock);
        free(srq->rq.ring);
        free(srq);
        errno = ENOMEM;
        return NULL;
    }
    dev->next_srq_idx = idx + 1;
    srq->srqn = (uint32_t)dev->slot << SIB_IDX_BITS | idx;
    srq->ibv.context = ctx;
    srq->ibv.srq_context = attr->srq_context;
    srq->ibv.pd = attr->pd;
    srq->ibv.handle = idx;
    pthread_mutex_init(&srq->ibv.mutex, NULL);
    pthread_cond_init(&srq->ibv.cond, NULL);
    srq->limit = attr->attr.srq_limit;
    if ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
        attr->srq_type == IBV_SRQT_XRC) {
        srq->is_xrc = true;
        srq->xrcd_id = sib_xrcd_id(attr->xrcd);
        srq->cq = (struct sib_cq *)attr->cq;
        srq->cq->nqp++;
    }
    dev->srqs[idx] = srq;
    pthread_mutex_unlock(&dev->lock);
    attr->attr.max_sge = (uint32_t)srq->rq.max_sge;
    return &srq->ibv;
}

SIB_EXPORT struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
                                          struct ibv_srq_init_attr *attr)
{
    struct ibv_srq_init_attr_ex ex;
    struct ibv_srq *srq;

    memset(&ex, 0, sizeof(ex));
    ex.srq_context = attr->srq_context;
    ex.attr = attr->attr;
    ex.comp_mask = IBV_SRQ_INIT_ATTR_PD;
    ex.pd = pd;
    srq = sib_create_srq_ex(pd->context, &ex);
    if (srq)
        attr->attr = ex.attr;
    return srq;
}

SIB_EXPORT int ibv_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
                              int mask)
{
    struct sib_srq *srq = (struct sib_srq *)ibsrq;
    struct sib_dev *dev = sib_dev_of(ibsrq->context);
    int rc = 0;

    if (mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT))
        return EINVAL;
    pthread_mutex_lock(&dev->lock);
    if (mask & IBV_SRQ_MAX_WR) {
        if (attr->max_wr < srq->rq.count || attr->max_wr < 1 ||
            attr->max_wr > SIB_MAX_WR) {
            rc = EINVAL;
        } else {
            struct sib_rwqe *ring = calloc(attr->max_wr, sizeof(*ring));

            if (!ring) {
                rc = ENOMEM;
            } else {
                for (uint32_t i = 0; i < srq->rq.count; i++)
                    ring[i] = srq->rq.ring[(srq->rq.head + i) % srq->rq.cap];
                free(srq->rq.ring);
                srq->rq.ring = ring;
                srq->rq.head = 0;
                srq->rq.cap = attr->max_wr;
            }
        }
    }
    if (!rc && (mask & IBV_SRQ_LIMIT)) {
        if (attr->srq_limit > srq->rq.cap)
            rc = EINVAL;
        else
            srq->limit = attr->srq_limit;
    }
    pthread_mutex_unlock(&dev->lock);
    return rc;
}

SIB_EXPORT int ibv_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
    struct sib_srq *srq = (struct sib_srq *)ibsrq;
    struct sib_dev *dev = sib_dev_of(ibsrq->context);

    pthread_mutex_lock(&dev->lock);
    attr->max_wr = srq->rq.cap;
    attr->max_sge = (uint32_t)srq->rq.max_sge;
    attr->srq_limit = srq->limit;
    pthread_mutex_unlock(&dev->lock);
    return 0;
}

SIB_EXPORT int ibv_destroy_srq(struct ibv_srq *ibsrq)
{
    struct sib_srq *srq = (struct sib_srq *)ibsrq;
    struct sib_dev *dev = sib_dev_of(ibsrq->context);

    pthread_mutex_lock(&dev->lock);
    if (srq->nqp) {
        pthread_mutex_unlock(&dev->lock);
        return EBUSY;
    }
    dev->srqs[SIB_IDX_OF(srq->srqn)] = NULL;
    if (srq->cq)
        srq->cq->nqp--;
    sib_async_forget(dev, ibsrq->context, ibsrq);
    pthread_mutex_unlock(&dev->lock);
    sib_async_wait_acked(&ibsrq->mutex, &ibsrq->cond, &ibsrq->events_completed,
                         srq->async_reported);
    free(srq->rq.ring);
    free(srq);
    return 0;
}

int sib_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
                      struct ibv_recv_wr **bad)
{
    struct sib_srq *srq = (struct sib_srq *)ibsrq;
    struct sib_dev *dev = sib_dev_of(ibsrq->context);
    int rc;

    if (dev->forked_away) {
        *bad = wr;
        return EPERM;
    }
    pthread_mutex_lock(&dev->lock);
    sib_touch(dev);
    rc = sib_rq_post(&srq->rq, wr, bad, &dev->stats.recv_wr);
    pthread_mutex_unlock(&dev->lock);
    return rc;
}

int sib_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
    struct sib_srq *srq = (struct sib_srq *)ibsrq;

    if (!srq->is_xrc)
        return EINVAL;
    *srq_num = srq->srqn;
    return 0;
}
