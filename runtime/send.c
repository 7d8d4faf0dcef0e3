/*
 * The sending side: choosing eager or rendezvous, putting messages on the
 * transport, and the per-peer queues of what the transport could not take
 * yet (RTM_ERR_AGAIN). Matched messages (EAGER, RTS) to a peer leave in the
 * order they were posted; control messages (CTS, DATA, FIN, CREDIT) carry no
 * matching information and go first.
 */
#include "config.h"

#include "runtime/runtime.h"
#include "common/error.h"
#include "common/log.h"
#include "runtime/rt_config.h"

#include <string.h>

static inline uint16_t take_owed_credits(rtm_peer_t *p)
{
    int c = p->credits_owed > 0xffff ? 0xffff : p->credits_owed;

    p->credits_owed -= c;
    return (uint16_t)c;
}

static inline void fill_match_hdr(rtm_match_hdr_t *hdr, rtm_peer_t *p,
                                  const rtm_request_impl_t *req)
{
    hdr->ctx = req->ctx;
    hdr->src = req->status.source;   /* sends keep their own comm rank here */
    hdr->tag = req->tag;
    hdr->seq = p->tx_seq;
    hdr->credits = take_owed_credits(p);
}

/* Expose the send buffer for a get, when the transport can get at all. */
static void send_expose(rtm_peer_t *p, rtm_request_impl_t *req, rtm_rts_hdr_t *rts)
{
    size_t rkey_len = RTM_TL_RKEY_MAX;
    size_t threshold = p->tl->caps.get_threshold;

    /* the receiver may read it from RTM_RNDV_GET_BIDIR (rndv.c) */
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

/* Put one matched message (EAGER or RTS) on the wire.
 * Hot path for EAGER: no allocation, lock or log. */
static rtm_status_t send_match_msg(rtm_peer_t *p, rtm_request_impl_t *req)
{
    rtm_status_t status;

    if (req->op == RTM_OP_EAGER && p->tx_credits > 0) {
        rtm_match_hdr_t hdr;

        fill_match_hdr(&hdr, p, req);
        status = p->tl->ops->am_send(p->ep, RTM_AM_EAGER, &hdr, sizeof(hdr), req->buf,
                                     req->len);
        if (status != RTM_OK) {
            p->credits_owed += hdr.credits;
            return status;
        }
        p->tx_seq++;
        p->tx_credits--;
        req->op = RTM_OP_NONE;
        req->status.count = req->len;
        req_complete(req);
        return RTM_OK;
    } else {
        rtm_rts_hdr_t rts;

        /* Out of credits: the data waits in the sender's buffer instead of
         * the receiver's memory, so a flood cannot grow memory there. */
        req->op = RTM_OP_RTS;
        send_expose(p, req, &rts);
        fill_match_hdr(&rts.m, p, req);
        rts.size = req->len;
        rts.sreq = (uint64_t)(uintptr_t)req;
        rts.addr = (uint64_t)(uintptr_t)req->buf;
        rts.reserved = 0;
        status = p->tl->ops->am_send(p->ep, RTM_AM_RTS, &rts, RTM_RTS_HDR_BASE + rts.rkey_len,
                                     NULL, 0);
        if (status != RTM_OK) {
            p->credits_owed += rts.m.credits;
            if (req->memh != NULL) {
                /* exposed again, with a fresh rkey, on the next try */
                p->tl->ops->mem_dereg(p->tl->iface, req->memh);
                req->memh = NULL;
            }
            return status;
        }
        p->tx_seq++;
        req->op = RTM_OP_NONE;   /* now waits for CTS or FIN */
        req->flags |= RTM_REQ_F_RNDV_TX;
        p->rndv_tx_active++;
        return RTM_OK;
    }
}

/* Stream the DATA fragments a CTS asked for. */
static rtm_status_t send_data(rtm_peer_t *p, rtm_request_impl_t *req)
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
    proto_send_done(req);
    return RTM_OK;
}

static rtm_status_t send_ctrl_msg(rtm_peer_t *p, rtm_request_impl_t *req)
{
    rtm_status_t status;

    switch (req->op) {
    case RTM_OP_DATA:
        return send_data(p, req);
    case RTM_OP_CTS: {
        rtm_cts_hdr_t cts = {req->remote_req, (uint64_t)(uintptr_t)req, req->xfer_len};

        status = p->tl->ops->am_send(p->ep, RTM_AM_CTS, &cts, sizeof(cts), NULL, 0);
        if (status != RTM_OK)
            return status;
        req->op = RTM_OP_NONE;
        if (req->xfer_len == 0)   /* nothing to stream: done */
            req_complete(req);
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

/* A request whose transmission failed for good ends with that error. */
static void send_fail(rtm_request_impl_t *req, rtm_status_t status)
{
    rtm_error("rank %d (%s): message to rank %d (%s) failed: %s", rtm_rt.world_rank,
              rtm_rt.hostname, req->peer, job_peer_hostname(req->peer),
              rtm_strerror(status));
    req->op = RTM_OP_NONE;
    req->status.error = status;
    if (req->kind == RTM_REQ_SEND)
        proto_send_done(req);
    else
        req_complete(req);
}

/* Drain what waits for one peer, in order; returns messages sent. */
int proto_flush_peer(rtm_peer_t *p)
{
    int n = 0;
    rtm_status_t status;

    while (!rtm_list_is_empty(&p->pending_ctrl)) {
        rtm_request_impl_t *req = rtm_container_of(p->pending_ctrl.next,
                                                   rtm_request_impl_t, link);

        rtm_list_del(&req->link);
        status = send_ctrl_msg(p, req);
        if (status == RTM_ERR_AGAIN) {
            rtm_list_push_head(&p->pending_ctrl, &req->link);
            return n;
        }
        if (status != RTM_OK)
            send_fail(req, status);
        n++;
    }
    while (!rtm_list_is_empty(&p->pending_sends)) {
        rtm_request_impl_t *req = rtm_container_of(p->pending_sends.next,
                                                   rtm_request_impl_t, link);

        rtm_list_del(&req->link);
        status = send_match_msg(p, req);
        if (status == RTM_ERR_AGAIN) {
            rtm_list_push_head(&p->pending_sends, &req->link);
            return n;
        }
        if (status != RTM_OK)
            send_fail(req, status);
        n++;
    }
    if (p->credits_owed >= proto_credit_threshold()) {
        rtm_credit_hdr_t hdr = {(uint32_t)p->credits_owed};

        if (p->tl->ops->am_send(p->ep, RTM_AM_CREDIT, &hdr, sizeof(hdr), NULL, 0) != RTM_OK)
            return n;
        p->credits_owed = 0;
        n++;
    }
    rtm_list_del(&p->pending_link);
    return n;
}

/* Queue a control message of req (CTS, FIN, DATA) to its peer, sending it at
 * once when nothing waits ahead of it. */
void proto_send_ctrl(rtm_request_impl_t *req, rtm_req_op_t op)
{
    rtm_peer_t *p = &rtm_rt.peers[req->peer];
    rtm_status_t status;

    req->op = (uint8_t)op;
    if (p->ep == NULL) {
        status = peer_connect(req->peer);
        if (status != RTM_OK) {
            send_fail(req, status);
            return;
        }
    }
    if (rtm_list_is_empty(&p->pending_ctrl)) {
        status = send_ctrl_msg(p, req);
        if (status == RTM_OK)
            return;
        if (status != RTM_ERR_AGAIN) {
            send_fail(req, status);
            return;
        }
    }
    rtm_list_push_tail(&p->pending_ctrl, &req->link);
    peer_pending_add(p);
}

/* Enough credits are owed to a peer: queue their return (proto_flush_peer
 * piggy-backs them or sends a CREDIT). */
void proto_credit_return(int peer)
{
    rtm_peer_t *p = &rtm_rt.peers[peer];

    /* a peer that only ever sent to us gets its credits back all the same */
    if (p->ep == NULL && peer_connect(peer) != RTM_OK)
        return;
    peer_pending_add(p);
}

/* A blocking standard send that fits eagerly and has nothing queued ahead
 * of it needs no request: the transport copies it out before returning.
 * RTM_ERR_AGAIN: take the request path instead.
 * Hot path: no allocation, lock or log. */
rtm_status_t proto_send_eager_now(rtm_comm_obj_t *comm, uint32_t ctx, const void *buf,
                                  size_t len, int dest, int tag)
{
    rtm_peer_t *p = &rtm_rt.peers[comm_world_rank_of(comm, dest)];
    rtm_match_hdr_t hdr;
    rtm_status_t status;

    if (p->ep == NULL || p->tx_credits <= 0 || len > p->tl->caps.eager_limit ||
        len + sizeof(hdr) > p->tl->caps.am_max || !rtm_list_is_empty(&p->pending_sends))
        return RTM_ERR_AGAIN;
    hdr.ctx = ctx;
    hdr.src = comm->rank;
    hdr.tag = tag;
    hdr.seq = p->tx_seq;
    hdr.credits = take_owed_credits(p);
    status = p->tl->ops->am_send(p->ep, RTM_AM_EAGER, &hdr, sizeof(hdr), buf, len);
    if (status != RTM_OK) {
        p->credits_owed += hdr.credits;
        return status;
    }
    p->tx_seq++;
    p->tx_credits--;
    return RTM_OK;
}

rtm_status_t proto_isend(rtm_comm_obj_t *comm, uint32_t ctx, const void *buf, size_t len,
                         int dest, int tag, int sync, rtm_request_impl_t **req_p)
{
    int world = comm_world_rank_of(comm, dest);
    rtm_peer_t *p = &rtm_rt.peers[world];
    rtm_request_impl_t *req;
    rtm_status_t status;

    if (p->ep == NULL) {
        status = peer_connect(world);
        if (status != RTM_OK)
            return status;
    }
    req = req_alloc(RTM_REQ_SEND);
    if (req == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a send request");
    req->peer = world;
    req->ctx = ctx;
    req->rank = dest;
    req->tag = tag;
    req->buf = (void *)(uintptr_t)buf;
    req->len = len;
    req->status.source = comm->rank;
    req->status.tag = tag;
    if (sync)
        req->flags |= RTM_REQ_F_SYNC;
    req->op = (!sync && len <= p->tl->caps.eager_limit &&
               len + sizeof(rtm_match_hdr_t) <= p->tl->caps.am_max)
                  ? RTM_OP_EAGER : RTM_OP_RTS;

    if (__builtin_expect(req->op == RTM_OP_EAGER && p->tx_credits > 0 &&
                         rtm_list_is_empty(&p->pending_sends), 1)) {
        /* The eager fast path, send_match_msg's first case inlined: the
         * transport copies the message out, the request completes now. */
        rtm_match_hdr_t hdr;

        hdr.ctx = ctx;
        hdr.src = comm->rank;
        hdr.tag = tag;
        hdr.seq = p->tx_seq;
        hdr.credits = take_owed_credits(p);
        status = p->tl->ops->am_send(p->ep, RTM_AM_EAGER, &hdr, sizeof(hdr), buf, len);
        if (__builtin_expect(status == RTM_OK, 1)) {
            p->tx_seq++;
            p->tx_credits--;
            req->op = RTM_OP_NONE;
            req->status.count = len;
            req->flags |= RTM_REQ_F_COMPLETE;   /* req_complete: not released yet */
            *req_p = req;
            return RTM_OK;
        }
        p->credits_owed += hdr.credits;
        if (status != RTM_ERR_AGAIN) {
            req_release(req);
            return rtm_error_set(status, "sending to rank %d (%s) failed", world,
                                 job_peer_hostname(world));
        }
    } else if (rtm_list_is_empty(&p->pending_sends)) {
        status = send_match_msg(p, req);
        if (status == RTM_OK) {
            *req_p = req;
            return RTM_OK;
        }
        if (status != RTM_ERR_AGAIN) {
            if (req->memh != NULL)
                p->tl->ops->mem_dereg(p->tl->iface, req->memh);
            req_release(req);
            return rtm_error_set(status, "sending to rank %d (%s) failed", world,
                                 job_peer_hostname(world));
        }
    }
    rtm_list_push_tail(&p->pending_sends, &req->link);
    peer_pending_add(p);
    *req_p = req;
    return RTM_OK;
}
