/*
 * The receiving side: every active message from a transport enters here.
 * A matched eager message is copied straight into the user's buffer; an
 * unexpected one is kept (its memory bounded by the sender's credits) until
 * a receive takes it.
 */
#include "config.h"

#include "runtime/runtime.h"
#include "common/error.h"
#include "common/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void protocol_fatal(int src, const char *what) __attribute__((noreturn));

static void protocol_fatal(int src, const char *what)
{
    char msg[768];

    snprintf(msg, sizeof(msg), "rank %d (%s): corrupt message from rank %d (%s): %s",
             rtm_rt.world_rank, rtm_rt.hostname, src, job_peer_hostname(src), what);
    rtm_error("%s", msg);
    job_abort(70, msg);
}

/* A transport lost a peer for good: whatever it owed us will never come,
 * so the job ends now, with the transport's own words, instead of hanging. */
void proto_peer_failed(void *arg, int peer, rtm_status_t status, const char *msg)
{
    (void)arg;
    (void)peer;
    (void)status;
    job_abort(71, msg);
}

static rtm_match_ctx_t *match_ctx_or_die(uint32_t ctx, int src)
{
    rtm_match_ctx_t *mctx = match_ctx_find(ctx);

    if (mctx == NULL)
        protocol_fatal(src, "out of memory for a new communicator context");
    return mctx;
}

/* Deliver a complete message into a matched receive: copy and truncate. */
static inline void recv_deliver(rtm_request_impl_t *req, int src_rank, int tag,
                                const void *data, size_t len)
{
    size_t n = len;

    if (n > req->len) {
        n = req->len;
        req->status.error = RTM_ERR_TRUNCATE;
    }
    if (n > 0)
        memcpy(req->buf, data, n);
    req->status.source = src_rank;
    req->status.tag = tag;
    req->status.count = n;
    req_complete(req);
}

void unexp_free(rtm_unexp_t *ue)
{
    if (ue->data != NULL && ue->data != ue->inline_data)
        free(ue->data);
    rtm_mpool_put(&rtm_rt.unexp_pool, ue);
}

static rtm_unexp_t *unexp_alloc(int src, uint8_t am_id, const rtm_match_hdr_t *m)
{
    rtm_unexp_t *ue = rtm_mpool_get(&rtm_rt.unexp_pool);

    if (ue == NULL)
        protocol_fatal(src, "out of memory for an unexpected message");
    ue->am_id = am_id;
    ue->peer = src;
    ue->src = m->src;
    ue->tag = m->tag;
    ue->data = NULL;
    return ue;
}

static inline void rx_check_seq(rtm_peer_t *p, int src, const rtm_match_hdr_t *m)
{
    /* Transports deliver in order per peer; a gap means a transport bug, and
     * matching out of order would silently break MPI semantics. */
    if (__builtin_expect(m->seq != p->rx_seq, 0))
        protocol_fatal(src, "sequence number out of order");
    p->rx_seq++;
    if (m->credits != 0) {
        p->tx_credits += m->credits;
        if (!rtm_list_is_empty(&p->pending_sends))
            peer_pending_add(p);
    }
}

/* Hot path: a matched eager message costs no allocation, lock or log. */
static void recv_eager(int src, const void *data, size_t len)
{
    const rtm_match_hdr_t *m = data;
    size_t plen = len - sizeof(*m);
    rtm_peer_t *p = &rtm_rt.peers[src];
    rtm_match_ctx_t *mctx;
    rtm_request_impl_t *req;
    rtm_unexp_t *ue;

    rx_check_seq(p, src, m);
    mctx = match_ctx_or_die(m->ctx, src);
    req = match_posted_take(mctx, m->src, m->tag);
    if (req != NULL) {
        recv_deliver(req, m->src, m->tag, m + 1, plen);
        proto_release_credit(src);
        return;
    }
    ue = unexp_alloc(src, RTM_AM_EAGER, m);
    ue->len = plen;
    if (plen <= sizeof(ue->inline_data)) {
        ue->data = ue->inline_data;
    } else {
        /* Bounded: the sender holds at most RTM_EAGER_CREDITS of these. */
        ue->data = malloc(plen);
        if (ue->data == NULL)
            protocol_fatal(src, "out of memory for an unexpected message");
    }
    memcpy(ue->data, m + 1, plen);
    rtm_list_push_tail(&mctx->unexpected, &ue->link);
}

static void recv_rts(int src, const void *data, size_t len)
{
    const rtm_rts_hdr_t *rts = data;
    rtm_peer_t *p = &rtm_rt.peers[src];
    rtm_match_ctx_t *mctx;
    rtm_request_impl_t *req;
    rtm_unexp_t *ue;

    if (len < RTM_RTS_HDR_BASE || rts->rkey_len > RTM_TL_RKEY_MAX ||
        len < RTM_RTS_HDR_BASE + rts->rkey_len)
        protocol_fatal(src, "truncated RTS");
    rx_check_seq(p, src, &rts->m);
    mctx = match_ctx_or_die(rts->m.ctx, src);
    req = match_posted_take(mctx, rts->m.src, rts->m.tag);
    if (req != NULL) {
        proto_rndv_start(req, src, rts);
        return;
    }
    ue = unexp_alloc(src, RTM_AM_RTS, &rts->m);
    ue->len = rts->size;
    memcpy(&ue->rts, rts, RTM_RTS_HDR_BASE + rts->rkey_len);
    rtm_list_push_tail(&mctx->unexpected, &ue->link);
}

/* A request id echoed by a peer: check it before trusting it. */
static rtm_request_impl_t *req_from_wire(int src, uint64_t id, rtm_req_kind_t kind)
{
    rtm_request_impl_t *req = (rtm_request_impl_t *)(uintptr_t)id;

    if (req == NULL || req->magic != RTM_REQ_MAGIC || req->kind != kind ||
        req->peer != src || (req->flags & RTM_REQ_F_COMPLETE))
        protocol_fatal(src, "reference to an unknown request");
    return req;
}

static void recv_data(int src, const void *data, size_t len)
{
    const rtm_data_hdr_t *hdr = data;
    size_t n = len - sizeof(*hdr);
    rtm_request_impl_t *req;

    if (len < sizeof(*hdr))
        protocol_fatal(src, "truncated DATA");
    req = req_from_wire(src, hdr->rreq, RTM_REQ_RECV);
    if (hdr->offset > req->xfer_len || n > req->xfer_len - hdr->offset)
        protocol_fatal(src, "DATA beyond the receive buffer");
    memcpy((char *)req->buf + hdr->offset, hdr + 1, n);
    req->xfer_done += n;
    if (req->xfer_done == req->xfer_len) {
        req->status.count = req->xfer_len;
        req_complete(req);
    }
}

void proto_am_handler(void *arg, int src, unsigned am_id, const void *data, size_t len)
{
    (void)arg;
    if (__builtin_expect(src < 0 || src >= rtm_rt.world_size, 0))
        protocol_fatal(src, "sender rank out of range");
    switch (am_id) {
    case RTM_AM_EAGER:
        if (len < sizeof(rtm_match_hdr_t))
            protocol_fatal(src, "truncated EAGER");
        recv_eager(src, data, len);
        return;
    case RTM_AM_RTS:
        recv_rts(src, data, len);
        return;
    case RTM_AM_CTS: {
        const rtm_cts_hdr_t *cts = data;
        rtm_request_impl_t *req;

        if (len < sizeof(*cts))
            protocol_fatal(src, "truncated CTS");
        req = req_from_wire(src, cts->sreq, RTM_REQ_SEND);
        if (cts->len > req->len)
            protocol_fatal(src, "CTS asks for more than the message");
        if (req->memh != NULL) {
            /* the receiver copies instead of reading: end the exposure now */
            rtm_peer_t *p = &rtm_rt.peers[src];

            p->tl->ops->mem_dereg(p->tl->iface, req->memh);
            req->memh = NULL;
        }
        req->remote_req = cts->rreq;
        req->xfer_len = cts->len;
        req->xfer_done = 0;
        proto_send_ctrl(req, RTM_OP_DATA);
        return;
    }
    case RTM_AM_DATA:
        recv_data(src, data, len);
        return;
    case RTM_AM_FIN: {
        const rtm_fin_hdr_t *fin = data;
        rtm_request_impl_t *req;
        rtm_peer_t *p = &rtm_rt.peers[src];

        if (len < sizeof(*fin))
            protocol_fatal(src, "truncated FIN");
        req = req_from_wire(src, fin->sreq, RTM_REQ_SEND);
        if (req->memh != NULL) {
            p->tl->ops->mem_dereg(p->tl->iface, req->memh);
            req->memh = NULL;
        }
        req->status.count = req->len;
        proto_send_done(req);
        return;
    }
    case RTM_AM_CREDIT: {
        const rtm_credit_hdr_t *c = data;
        rtm_peer_t *p = &rtm_rt.peers[src];

        if (len < sizeof(*c))
            protocol_fatal(src, "truncated CREDIT");
        p->tx_credits += (int)c->credits;
        if (!rtm_list_is_empty(&p->pending_sends))
            peer_pending_add(p);
        return;
    }
    default:
        protocol_fatal(src, "unknown message type");
    }
}

void proto_recv_unexp(rtm_request_impl_t *req, rtm_unexp_t *ue)
{
    if (ue->am_id == RTM_AM_EAGER) {
        recv_deliver(req, ue->src, ue->tag, ue->data, ue->len);
        proto_release_credit(ue->peer);
    } else {
        proto_rndv_start(req, ue->peer, &ue->rts);
    }
    unexp_free(ue);
}

rtm_status_t proto_irecv(rtm_comm_obj_t *comm, uint32_t ctx, void *buf, size_t len,
                         int src, int tag, rtm_request_impl_t **req_p)
{
    rtm_match_ctx_t *mctx = match_ctx_find(ctx);
    rtm_request_impl_t *req;
    rtm_unexp_t *ue;

    if (mctx == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a matching context");
    req = req_alloc(RTM_REQ_RECV);
    if (req == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a receive request");
    req->peer = (src == RTM_ANY_SOURCE) ? -1 : comm_world_rank_of(comm, src);
    req->ctx = ctx;
    req->rank = src;
    req->tag = tag;
    req->buf = buf;
    req->len = len;
    ue = match_unexp_find(mctx, src, tag);
    if (ue != NULL) {
        rtm_list_del(&ue->link);
        proto_recv_unexp(req, ue);
    } else {
        req->flags |= RTM_REQ_F_POSTED;
        rtm_list_push_tail(&mctx->posted, &req->link);
    }
    *req_p = req;
    return RTM_OK;
}
