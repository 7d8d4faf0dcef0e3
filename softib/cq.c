/*
 * softib completion queues and completion channels.
 *
 * A CQ is a ring of struct ibv_wc of exactly the size the application got
 * back in cq->cqe. A completion that finds the ring full is lost, the CQ is
 * marked overflowed and IBV_EVENT_CQ_ERR is raised once, as an HCA would.
 * A channel is an eventfd (semaphore mode) with one count per queued event,
 * so applications may poll() channel->fd themselves.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "softib.h"

SIB_EXPORT struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *ctx)
{
    struct sib_channel *ch;
    int rc = sib_check_dev(ctx);

    if (rc) {
        errno = rc;
        return NULL;
    }
    ch = calloc(1, sizeof(*ch));
    if (!ch) {
        errno = ENOMEM;
        return NULL;
    }
    ch->ibv.fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
    if (ch->ibv.fd < 0) {
        free(ch);
        return NULL;
    }
    ch->ibv.context = ctx;
    ch->dev = sib_dev_of(ctx);
    return &ch->ibv;
}

SIB_EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *ibch)
{
    struct sib_channel *ch = (struct sib_channel *)ibch;

    if (ibch->refcnt)
        return EBUSY;
    close(ibch->fd);
    free(ch->events);
    free(ch);
    return 0;
}

static void sib_channel_event(struct sib_channel *ch, struct sib_cq *cq)
{
    uint64_t one = 1;

    if (ch->nevents == ch->cap) {
        int cap = ch->cap ? ch->cap * 2 : 8;
        struct sib_cq **e = realloc(ch->events, (size_t)cap * sizeof(*e));

        if (!e)
            return;
        ch->events = e;
        ch->cap = cap;
    }
    ch->events[ch->nevents++] = cq;
    if (write(ch->ibv.fd, &one, sizeof(one)) < 0)
        ch->nevents--;
}

SIB_EXPORT struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe,
                                        void *cq_context,
                                        struct ibv_comp_channel *channel,
                                        int comp_vector)
{
    struct sib_cq *cq;
    int rc = sib_check_dev(ctx);

    if (!rc && (cqe < 1 || cqe > SIB_MAX_CQE || comp_vector < 0 ||
                comp_vector >= ctx->num_comp_vectors))
        rc = EINVAL;
    if (rc) {
        errno = rc;
        return NULL;
    }
    cq = calloc(1, sizeof(*cq));
    if (!cq || !(cq->ring = calloc((size_t)cqe, sizeof(struct ibv_wc)))) {
        free(cq);
        errno = ENOMEM;
        return NULL;
    }
    cq->cap = cqe;
    cq->ibv.context = ctx;
    cq->ibv.channel = channel;
    cq->ibv.cq_context = cq_context;
    cq->ibv.cqe = cqe;
    pthread_mutex_init(&cq->ibv.mutex, NULL);
    pthread_cond_init(&cq->ibv.cond, NULL);
    if (channel)
        channel->refcnt++;
    return &cq->ibv;
}

SIB_EXPORT int ibv_resize_cq(struct ibv_cq *ibcq, int cqe)
{
    struct sib_cq *cq = (struct sib_cq *)ibcq;
    struct sib_dev *dev = sib_dev_of(ibcq->context);
    struct ibv_wc *ring;

    if (cqe < 1 || cqe > SIB_MAX_CQE)
        return EINVAL;
    pthread_mutex_lock(&dev->lock);
    if (cqe < cq->count) {
        pthread_mutex_unlock(&dev->lock);
        return EINVAL;
    }
    ring = calloc((size_t)cqe, sizeof(*ring));
    if (!ring) {
        pthread_mutex_unlock(&dev->lock);
        return ENOMEM;
    }
    for (int i = 0; i < cq->count; i++)
        ring[i] = cq->ring[(cq->head + i) % cq->cap];
    free(cq->ring);
    cq->ring = ring;
    cq->head = 0;
    cq->cap = cq->ibv.cqe = cqe;
    pthread_mutex_unlock(&dev->lock);
    return 0;
}

SIB_EXPORT int ibv_destroy_cq(struct ibv_cq *ibcq)
{
    struct sib_cq *cq = (struct sib_cq *)ibcq;
    struct sib_dev *dev = sib_dev_of(ibcq->context);
    struct sib_channel *ch = (struct sib_channel *)ibcq->channel;

    pthread_mutex_lock(&dev->lock);
    if (cq->nqp) {
        pthread_mutex_unlock(&dev->lock);
        return EBUSY;
    }
    if (ch) {
        for (int i = 0; i < ch->nevents; i++) {
            if (ch->events[i] == cq) {
                uint64_t v;

                memmove(&ch->events[i], &ch->events[i + 1],
                        (size_t)(ch->nevents - i - 1) * sizeof(cq));
                ch->nevents--;
                i--;
                if (read(ch->ibv.fd, &v, sizeof(v)) < 0)
                    break;
            }
        }
        ch->ibv.refcnt--;
    }
    sib_async_forget(dev, ibcq->context, ibcq);
    pthread_mutex_unlock(&dev->lock);
    sib_async_wait_acked(&ibcq->mutex, &ibcq->cond, &ibcq->async_events_completed,
                         cq->async_reported);
    free(cq->ring);
    free(cq);
    return 0;
}

/* under dev->lock. Returns 0, or -1 when the CQ overflowed. */
int sib_cq_push(struct sib_cq *cq, const struct ibv_wc *wc, bool solicited)
{
    if (cq->count == cq->cap) {
        if (!cq->overflowed) {
            struct ibv_async_event ev = {.event_type = IBV_EVENT_CQ_ERR};

            cq->overflowed = true;
            ev.element.cq = &cq->ibv;
            sib_async_push(sib_dev_of(cq->ibv.context), &ev);
        }
        return -1;
    }
    cq->ring[(cq->head + cq->count) % cq->cap] = *wc;
    cq->count++;
    if (cq->armed && cq->ibv.channel &&
        (cq->armed == 1 || solicited || wc->status != IBV_WC_SUCCESS)) {
        cq->armed = 0;
        sib_channel_event((struct sib_channel *)cq->ibv.channel, cq);
    }
    return 0;
}

int sib_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
    struct sib_cq *cq = (struct sib_cq *)ibcq;
    struct sib_dev *dev = sib_dev_of(ibcq->context);
    int got = 0;

    if (dev->forked_away)
        return -1;
    pthread_mutex_lock(&dev->lock);
    sib_touch(dev);
    sib_progress(dev);
    while (got < n && cq->count > 0) {
        wc[got++] = cq->ring[cq->head];
        cq->head = (cq->head + 1) % cq->cap;
        cq->count--;
    }
    dev->stats.poll_calls++;
    dev->stats.cqe += (uint64_t)got;
    pthread_mutex_unlock(&dev->lock);
    return got;
}

int sib_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
    struct sib_cq *cq = (struct sib_cq *)ibcq;
    struct sib_dev *dev = sib_dev_of(ibcq->context);

    if (dev->forked_away)
        return EPERM;
    if (!ibcq->channel)
        return EINVAL;
    pthread_mutex_lock(&dev->lock);
    cq->armed = solicited_only ? 2 : 1;
    pthread_mutex_unlock(&dev->lock);
    return 0;
}

SIB_EXPORT int ibv_get_cq_event(struct ibv_comp_channel *ibch,
                                struct ibv_cq **cq_p, void **cq_context_p)
{
    struct sib_channel *ch = (struct sib_channel *)ibch;
    struct sib_dev *dev = ch->dev;
    uint64_t v;

    if (dev->forked_away) {
        errno = EPERM;
        return -1;
    }
    for (;;) {
        pthread_mutex_lock(&dev->lock);
        sib_touch(dev);
        sib_progress(dev);
        if (ch->nevents > 0) {
            struct sib_cq *cq = ch->events[0];

            memmove(ch->events, ch->events + 1,
                    (size_t)(ch->nevents - 1) * sizeof(cq));
            ch->nevents--;
            pthread_mutex_unlock(&dev->lock);
            if (read(ibch->fd, &v, sizeof(v)) < 0)
                v = 0;
            *cq_p = &cq->ibv;
            *cq_context_p = cq->ibv.cq_context;
            return 0;
        }
        pthread_mutex_unlock(&dev->lock);
        if (fcntl(ibch->fd, F_GETFL) & O_NONBLOCK) {
            errno = EAGAIN;
            return -1;
        }
        sib_wait(dev, ibch->fd, 100);
    }
}

SIB_EXPORT void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
    struct sib_dev *dev = sib_dev_of(cq->context);

    pthread_mutex_lock(&dev->lock);
    cq->comp_events_completed += nevents;
    pthread_mutex_unlock(&dev->lock);
}
