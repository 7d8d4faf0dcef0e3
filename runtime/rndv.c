/*
 * Rendezvous, both sides (see rndv.h and the exchange in wire.h).
 *   sender:   rndv_send_rts (expose + RTS) ... rndv_recv_cts -> DATA stream,
 *             or rndv_recv_fin -> done
 *   receiver: rndv_recv_rts (match or keep unexpected) -> rndv_start:
 *             get -> rndv_get_done -> FIN, or CTS -> rndv_recv_data
 * Request ids a peer echoes are checked against the request table
 * (req_from_wire) before any field is read.
 */
#include "config.h"

#include "runtime/rndv.h"
#include "runtime/job.h"
#include "runtime/credit.h"
#include "runtime/eager.h"
#include "runtime/match.h"
#include "runtime/peer.h"
#include "runtime/request.h"
#include "runtime/rt.h"
#include "common/error.h"
#include "common/log.h"
#include "runtime/rt_config.h"

#include <stdlib.h>
#include <string.h>

/* ---- sender ---- */

/* A send request is done (FIN, last DATA, or failure): no longer counts as
 * rendezvous traffic to its peer, nor, detached (proto.c), in the peer's
 * detached sends; completing a detached one recycles it and its copy. */
static void rndv_send_done(rtm_request_impl_t *req)
{
    if (req->flags & RTM_REQ_F_RNDV_TX) {
        req->flags &= (uint16_t)~RTM_REQ_F_RNDV_TX;
        rtm_rt.peers[req->peer].rndv_tx_active--;
    }
    if (req->flags & RTM_REQ_F_DETACHED)
        rtm_rt.peers[req->peer].detached_tx--;
    req_complete(req);
}

void rndv_req_fail(rtm_request_impl_t *req, rtm_status_t status)
{
    rtm_error("rank %d (%s): message to rank %d (%s) failed: %s%s", rtm_rt.world_rank,
              rtm_rt.hostname, req->peer, job_peer_hostname(req->peer),
              rtm_strerror(status),
              (req->flags & RTM_REQ_F_DETACHED)
                  ? " (a detached send: the send had completed for its caller already)" : "");
    req->op = RTM_OP_NONE;
    req->status.error = status;
    if (req->kind == RTM_REQ_SEND)
        rndv_send_done(req);
    else
        req_complete(req);
}

/* Expose the send buffer for a get, when the transport can get at all. */
static void rndv_expose(rtm_peer_t *p, rtm_request_impl_t *req, rtm_rts_hdr_t *rts)
{
    size_t rkey_len = RTM_TL_RKEY_MAX;
    size_t threshold = p->tl->caps.get_threshold;

    /* the receiver may read it from RTM_RNDV_GET_BIDIR (rndv_get_threshold) */
    if (rt_config.rndv_get_bidir > 0 && rt_config.rndv_get_bidir < threshold)
        threshold = rt_config.rndv_get_bidir;
    rts->rkey_len = 0;
    if (!(p->tl->caps.flags & RTM_TL_CAP_GET) || req->len == 0 || req->len < threshold)
        return;
    if (p->tl->ops->mem_reg(p->tl->iface, req->buf, req->len, &req->memh, rts->rkey,
                            &rkey_len) != RTM_OK) {
        /* Not fatal: the receiver will ask for a copy (CTS). */
        rtm_debug("exposing %zu bytes for rank %d failed: %s; using copy", req->len,
                  req->peer, rtm_last_error());
        req->memh = NULL;
        return;
    }
    rts->rkey_len = (uint32_t)rkey_len;
}

/* The exposure of req's buffer ends (the receiver read it or copies it). */
static void rndv_unexpose(rtm_peer_t *p, rtm_request_impl_t *req)
{
    if (req->memh != NULL) {
        p->tl->ops->mem_dereg(p->tl->iface, req->memh);
        req->memh = NULL;
    }
}

rtm_status_t rndv_send_rts(rtm_peer_t *p, rtm_request_impl_t *req)
{
    rtm_rts_hdr_t rts;
    rtm_status_t status;

    /* A detached send is eager-sized and its copy is the runtime's: a small
     * one goes inside the RTS (flood of small sends past the credits: the
     * receiver needs no CTS/DATA round trip per message). */
    int inline_ok = (req->flags & RTM_REQ_F_DETACHED) && req->len <= RTM_RTS_INLINE_MAX &&
                    RTM_RTS_HDR_BASE + req->len <= p->tl->caps.am_max;

    req->op = RTM_OP_RTS;
    if (inline_ok)
        rts.rkey_len = 0;
    else
        rndv_expose(p, req, &rts);
    rts.m.ctx = req->ctx;
    rts.m.src = req->status.source;   /* sends keep their own comm rank here */
    rts.m.tag = req->tag;
    rts.m.seq = p->tx_seq;
    rts.m.credits = credit_take_owed(p);
    rts.size = req->len;
    rts.sreq = req_id(req);
    rts.addr = (uint64_t)(uintptr_t)req->buf;
    rts.flags = inline_ok ? RTM_RTS_F_INLINE : 0;   /* the copy travels in the RTS */
    status = p->tl->ops->am_send(p->ep, RTM_AM_RTS, &rts, RTM_RTS_HDR_BASE + rts.rkey_len,
                                 inline_ok ? req->buf : NULL, inline_ok ? req->len : 0);
    if (status != RTM_OK) {
        credit_untake(p, rts.m.credits);
        rndv_unexpose(p, req);   /* exposed again, with a fresh rkey, on the next try */
        return status;
    }
    p->tx_seq++;
    p->tl->counters.msgs_sent++;
    p->tl->counters.bytes_sent += req->len;
    p->tl->counters.rndv_sent++;
    req->op = RTM_OP_NONE;   /* now waits for CTS or FIN */
    req->flags |= RTM_REQ_F_RNDV_TX;
    p->rndv_tx_active++;
    return RTM_OK;
}

/* Stream the DATA fragments a CTS asked for. */
static rtm_status_t rndv_send_data(rtm_peer_t *p, rtm_request_impl_t *req)
{
    size_t frag = p->tl->caps.am_max - sizeof(rtm_data_hdr_t);

    while (req->xfer_done < req->xfer_len) {
        size_t n = req->xfer_len - req->xfer_done;
        rtm_data_hdr_t hdr = {req->remote_req, req->xfer_done};
        rtm_status_t status;

        if (n > frag)
            n = frag;
        status = p->tl->ops->am_send(p->ep, RTM_AM_DATA, &hdr, sizeof(hdr),
                                     (const char *)req->buf + req->xfer_done, n);
        if (status != RTM_OK)
            return status;
        req->xfer_done += n;
    }
    req->op = RTM_OP_NONE;
    req->status.count = req->len;
    rndv_send_done(req);
    return RTM_OK;
}

rtm_status_t rndv_send_ctrl(rtm_peer_t *p, rtm_request_impl_t *req)
{
    rtm_status_t status;

    switch (req->op) {
    case RTM_OP_DATA:
        return rndv_send_data(p, req);
    case RTM_OP_CTS: {
        rtm_cts_hdr_t cts = {req->remote_req, req_id(req), req->xfer_len};

        status = p->tl->ops->am_send(p->ep, RTM_AM_CTS, &cts, sizeof(cts), NULL, 0);
        if (status != RTM_OK)
            return status;
        rtm_rt.rndv_copies++;
        req->op = RTM_OP_NONE;
        if (req->xfer_len == 0)   /* nothing to stream: done */
            req_complete(req);
        return RTM_OK;
    }
    case RTM_OP_CANCEL: {
        rtm_cancel_hdr_t c = {req_id(req), req->ctx, 0};

        status = p->tl->ops->am_send(p->ep, RTM_AM_CANCEL, &c, sizeof(c), NULL, 0);
        if (status != RTM_OK)
            return status;
        req->op = RTM_OP_NONE;   /* waits for CANCEL_ACK, CTS or FIN */
        return RTM_OK;
    }
    case RTM_OP_CANCEL_ACK: {
        rtm_cancel_ack_hdr_t a = {req->remote_req, (uint32_t)req->xfer_len, 0};

        status = p->tl->ops->am_send(p->ep, RTM_AM_CANCEL_ACK, &a, sizeof(a), NULL, 0);
        if (status != RTM_OK)
            return status;
        req->op = RTM_OP_NONE;
        req_complete(req);   /* the runtime's own, released: recycled */
        return RTM_OK;
    }
    case RTM_OP_FIN: {
        rtm_fin_hdr_t fin = {req->remote_req};

        status = p->tl->ops->am_send(p->ep, RTM_AM_FIN, &fin, sizeof(fin), NULL, 0);
        if (status != RTM_OK)
            return status;
        req->op = RTM_OP_NONE;
        req_complete(req);
        return RTM_OK;
    }
    default:
        return RTM_ERR_INTERNAL;
    }
}

/* Queue a control step of req (CTS, FIN, DATA) to its peer, sending it at
 * once when nothing waits ahead of it. */
static void rndv_queue_ctrl(rtm_request_impl_t *req, rtm_req_op_t op)
{
    rtm_peer_t *p = &rtm_rt.peers[req->peer];
    rtm_status_t status;

    req->op = (uint8_t)op;
    if (p->ep == NULL) {
        status = peer_connect(req->peer);
        if (status != RTM_OK) {
            rndv_req_fail(req, status);
            return;
        }
    }
    if (rtm_list_is_empty(&p->pending_ctrl)) {
        status = rndv_send_ctrl(p, req);
        if (status == RTM_OK)
            return;
        if (status != RTM_ERR_AGAIN) {
            rndv_req_fail(req, status);
            return;
        }
    }
    rtm_list_push_tail(&p->pending_ctrl, &req->link);
    peer_pending_add(p);
}

/* A request id echoed by a peer: looked up in the request table (never
 * dereferenced as a pointer), then checked against what src may name. */
static rtm_request_impl_t *req_from_wire(int src, uint64_t id, rtm_req_kind_t kind)
{
    rtm_request_impl_t *req = req_from_id(id);

    if (req == NULL || req->kind != kind || req->peer != src ||
        (req->flags & RTM_REQ_F_COMPLETE))
        peer_protocol_error(src, "reference to an unknown request");
    if (req->op == RTM_OP_CANCEL) {
        /* matched before our CANCEL could leave: it would be refused */
        rtm_list_del(&req->link);
        req->op = RTM_OP_NONE;
    }
    /* only a request waiting for src's answer: a send whose RTS is out, a
     * receive matched and whose CTS is out; any other is in a queue (posted,
     * pending), which its link would no longer hold */
    if (req->op != RTM_OP_NONE || (req->flags & RTM_REQ_F_POSTED))
        peer_protocol_error(src, "reference to a request not waiting for it");
    return req;
}

void rndv_recv_cts(int src, const void *data, size_t len)
{
    const rtm_cts_hdr_t *cts = data;
    rtm_request_impl_t *req;

    if (len < sizeof(*cts))
        peer_protocol_error(src, "truncated CTS");
    req = req_from_wire(src, cts->sreq, RTM_REQ_SEND);
    if (cts->len > req->len)
        peer_protocol_error(src, "CTS asks for more than the message");
    /* the receiver copies instead of reading: end the exposure now */
    rndv_unexpose(&rtm_rt.peers[src], req);
    req->remote_req = cts->rreq;
    req->xfer_len = cts->len;
    req->xfer_done = 0;
    rndv_queue_ctrl(req, RTM_OP_DATA);
}

void rndv_recv_fin(int src, const void *data, size_t len)
{
    const rtm_fin_hdr_t *fin = data;
    rtm_request_impl_t *req;

    if (len < sizeof(*fin))
        peer_protocol_error(src, "truncated FIN");
    req = req_from_wire(src, fin->sreq, RTM_REQ_SEND);
    rndv_unexpose(&rtm_rt.peers[src], req);
    req->status.count = req->len;
    rndv_send_done(req);
}

void rndv_cancel_send(rtm_request_impl_t *req)
{
    if (req->kind != RTM_REQ_SEND ||
        (req->flags & (RTM_REQ_F_COMPLETE | RTM_REQ_F_CANCEL | RTM_REQ_F_DETACHED)))
        return;
    if (req->op == RTM_OP_EAGER || req->op == RTM_OP_RTS) {
        /* still on the peer's pending_sends: nothing of it has left */
        rtm_list_del(&req->link);
        req->op = RTM_OP_NONE;
        req->status.count = 0;
        req->status.cancelled = 1;
        req_complete(req);
        return;
    }
    /* only an RTS waiting for its answer; DATA streaming after a CTS, or
     * a FIN on its way, mean a receive matched it */
    if (req->op != RTM_OP_NONE || !(req->flags & RTM_REQ_F_RNDV_TX))
        return;
    req->flags |= RTM_REQ_F_CANCEL;
    rndv_queue_ctrl(req, RTM_OP_CANCEL);
}

/* The sender's answer to our CANCEL. A refusal may cross the FIN or CTS it
 * refers to, so one for a request that has moved on is dropped. */
void rndv_recv_cancel_ack(int src, const void *data, size_t len)
{
    const rtm_cancel_ack_hdr_t *a = data;
    rtm_request_impl_t *req;

    if (len < sizeof(*a))
        peer_protocol_error(src, "truncated CANCEL_ACK");
    req = req_from_id(a->sreq);
    if (!a->cancelled) {
        if (req != NULL && req->kind == RTM_REQ_SEND && req->peer == src)
            req->flags &= (uint16_t)~RTM_REQ_F_CANCEL;
        return;
    }
    /* cancelled: the receiver dropped our RTS, so nothing else answered it */
    if (req == NULL || req->kind != RTM_REQ_SEND || req->peer != src ||
        (req->flags & RTM_REQ_F_COMPLETE) || !(req->flags & RTM_REQ_F_CANCEL) ||
        req->op != RTM_OP_NONE)
        peer_protocol_error(src, "CANCEL_ACK for a request that did not ask");
    rndv_unexpose(&rtm_rt.peers[src], req);
    req->flags &= (uint16_t)~RTM_REQ_F_CANCEL;
    req->status.count = 0;
    req->status.cancelled = 1;
    rndv_send_done(req);
}

/* ---- receiver ---- */

/* A sender withdraws its message: its RTS goes if no receive or matched
 * probe took it yet; either way it gets an answer. */
void rndv_recv_cancel(int src, const void *data, size_t len)
{
    const rtm_cancel_hdr_t *c = data;
    rtm_match_table_t *tbl = &rtm_rt.contexts;
    rtm_request_impl_t *ack;
    rtm_unexp_t *ue = NULL;

    if (len < sizeof(*c))
        peer_protocol_error(src, "truncated CANCEL");
    if (c->ctx < tbl->num && tbl->ctxs[c->ctx] != NULL)
        ue = match_unexp_find_rts(tbl->ctxs[c->ctx], src, c->sreq);
    if (ue != NULL) {
        match_unexp_remove(ue);
        match_unexp_free(tbl, ue);
    }
    ack = req_alloc(RTM_REQ_RECV);
    if (ack == NULL)
        peer_no_memory(src, sizeof(*ack));
    ack->flags |= RTM_REQ_F_RELEASED;
    ack->peer = src;
    ack->remote_req = c->sreq;
    ack->xfer_len = ue != NULL;
    rndv_queue_ctrl(ack, RTM_OP_CANCEL_ACK);
}

static void rndv_get_done(rtm_tl_comp_t *comp, rtm_status_t status)
{
    rtm_request_impl_t *req = rtm_container_of(comp, rtm_request_impl_t, comp);

    if (status != RTM_OK) {
        /* The sender's buffer is still there: have it copied instead. */
        rtm_debug("rank %d: reading %zu bytes from rank %d failed (%s); asking for a copy",
                  rtm_rt.world_rank, req->xfer_len, req->peer, rtm_strerror(status));
        rndv_queue_ctrl(req, RTM_OP_CTS);
        return;
    }
    req->xfer_done = req->xfer_len;
    req->status.count = req->xfer_len;
    /* completes once the FIN is out, so the sender may reuse its buffer */
    rndv_queue_ctrl(req, RTM_OP_FIN);
}

/* Smallest message read by get from peer p. The transport's own threshold
 * holds for one-way traffic; while this rank streams a rendezvous message
 * of its own to p, copying through shared buffers would have each side copy
 * every byte twice (into the queue for its send, out of it for its
 * receive), so RTM_RNDV_GET_BIDIR applies: a get copies each byte once. */
static size_t rndv_get_threshold(const rtm_peer_t *p)
{
    size_t threshold = p->tl->caps.get_threshold;

    if (p->rndv_tx_active > 0 && rt_config.rndv_get_bidir > 0 &&
        rt_config.rndv_get_bidir < threshold)
        threshold = rt_config.rndv_get_bidir;
    return threshold;
}

/* Whether the receiver reads a message of `size` bytes by get: below the
 * transport's threshold only for traffic both ways (above), above it when
 * the transport prefers a get now (its load signal, get_preferred). */
static int rndv_get_wanted(const rtm_peer_t *p, size_t size)
{
    if (size < p->tl->caps.get_threshold)
        return size >= rndv_get_threshold(p);
    return p->tl->ops->get_preferred == NULL || p->tl->ops->get_preferred(p->ep, size);
}

void rndv_start(rtm_request_impl_t *req, int peer, const rtm_rts_hdr_t *rts,
                const void *inline_data)
{
    rtm_peer_t *p = &rtm_rt.peers[peer];
    size_t n = rts->size;
    rtm_status_t status;

    req->peer = peer;
    req->remote_req = rts->sreq;
    req->status.source = rts->m.src;
    req->status.tag = rts->m.tag;
    if (n > req->len) {
        n = req->len;
        req->status.error = RTM_ERR_TRUNCATE;
    }
    req->xfer_len = n;
    req->xfer_done = 0;
    if (p->ep == NULL && peer_connect(peer) != RTM_OK) {
        req->status.error = RTM_ERR_UNREACHABLE;
        req_complete(req);
        return;
    }
    if (rts->flags & RTM_RTS_F_INLINE) {
        /* the bytes came with the RTS: deliver, then FIN frees the copy */
        if (n > 0)
            memcpy(req->buf, inline_data, n);
        req->xfer_done = n;
        req->status.count = n;
        rndv_queue_ctrl(req, RTM_OP_FIN);
        return;
    }
    if (rts->rkey_len > 0 && n > 0 && (p->tl->caps.flags & RTM_TL_CAP_GET) &&
        rndv_get_wanted(p, rts->size)) {
        rtm_trace("rank %d: %zu B from rank %d read by get%s", rtm_rt.world_rank, n, peer,
                  rts->size < p->tl->caps.get_threshold ? " (traffic both ways)" : "");
        req->comp.cb = rndv_get_done;
        status = p->tl->ops->get(p->ep, req->buf, NULL, n, rts->addr, rts->rkey,
                                 rts->rkey_len, &req->comp);
        if (status == RTM_OK)
            return;
        rtm_debug("rank %d: get of %zu bytes from rank %d refused (%s); asking for a copy",
                  rtm_rt.world_rank, n, peer, rtm_strerror(status));
    }
    rndv_queue_ctrl(req, RTM_OP_CTS);
}

void rndv_recv_rts(int src, const void *data, size_t len)
{
    const rtm_rts_hdr_t *rts = data;
    rtm_peer_t *p = &rtm_rt.peers[src];
    rtm_match_ctx_t *mctx;
    rtm_request_impl_t *req;
    rtm_unexp_t *ue;

    if (len < RTM_RTS_HDR_BASE || rts->rkey_len > RTM_TL_RKEY_MAX ||
        len < RTM_RTS_HDR_BASE + rts->rkey_len)
        peer_protocol_error(src, "truncated RTS");
    if (rts->flags & ~RTM_RTS_F_INLINE)
        peer_protocol_error(src, "RTS with unknown flags");
    if ((rts->flags & RTM_RTS_F_INLINE) &&
        (rts->rkey_len != 0 || rts->size > RTM_RTS_INLINE_MAX ||
         len != RTM_RTS_HDR_BASE + rts->size))
        peer_protocol_error(src, "RTS with inline data of the wrong length");
    peer_rx_order(p, src, rts->m.seq);
    rtm_rt.rx_counters->msgs_recv++;
    rtm_rt.rx_counters->bytes_recv += rts->size;
    rtm_rt.rx_counters->rndv_recv++;
    credit_received(p, rts->m.credits);
    mctx = peer_rx_context(src, rts->m.ctx);
    req = match_posted_take(mctx, rts->m.src, rts->m.tag);
    if (req != NULL) {
        rndv_start(req, src, rts, (const char *)data + RTM_RTS_HDR_BASE);
        return;
    }
    ue = match_unexp_alloc(&rtm_rt.contexts);
    if (ue == NULL)
        peer_no_memory(src, sizeof(*rts));
    ue->am_id = RTM_AM_RTS;
    ue->peer = src;
    ue->src = rts->m.src;
    ue->tag = rts->m.tag;
    ue->len = rts->size;
    memcpy(&ue->rts, rts, RTM_RTS_HDR_BASE + rts->rkey_len);
    /* the bytes of a detached send, bounded: RTM_DETACHED_SENDS x
     * RTM_RTS_INLINE_MAX per peer */
    if ((rts->flags & RTM_RTS_F_INLINE) && rts->size > 0)
        eager_unexp_keep(ue, src, (const char *)data + RTM_RTS_HDR_BASE, rts->size);
    match_unexp_add(mctx, ue);
}

void rndv_recv_unexp(rtm_request_impl_t *req, rtm_unexp_t *ue)
{
    rndv_start(req, ue->peer, &ue->rts, ue->data);
    match_unexp_free(&rtm_rt.contexts, ue);
}

void rndv_recv_data(int src, const void *data, size_t len)
{
    const rtm_data_hdr_t *hdr = data;
    rtm_request_impl_t *req;
    size_t n;

    if (len < sizeof(*hdr))
        peer_protocol_error(src, "truncated DATA");
    n = len - sizeof(*hdr);
    req = req_from_wire(src, hdr->rreq, RTM_REQ_RECV);
    if (hdr->offset > req->xfer_len || n > req->xfer_len - hdr->offset)
        peer_protocol_error(src, "DATA beyond the receive buffer");
    memcpy((char *)req->buf + hdr->offset, hdr + 1, n);
    req->xfer_done += n;
    if (req->xfer_done == req->xfer_len) {
        req->status.count = req->xfer_len;
        req_complete(req);
    }
}
