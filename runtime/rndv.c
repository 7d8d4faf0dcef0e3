/*
 * Rendezvous, receiver side: once an RTS has matched a receive, either read
 * the sender's buffer directly (transport get, then FIN) or ask the sender to
 * stream it (CTS, then DATA fragments). See proto.h for the exchange.
 */
#include "config.h"

#include "runtime/runtime.h"
#include "common/error.h"
#include "common/log.h"
#include "runtime/rt_config.h"

static void rndv_get_done(rtm_tl_comp_t *comp, rtm_status_t status)
{
    rtm_request_impl_t *req = rtm_container_of(comp, rtm_request_impl_t, comp);

    if (status != RTM_OK) {
        /* The sender's buffer is still there: have it copied instead. */
        rtm_debug("rank %d: reading %zu bytes from rank %d failed (%s); asking for a copy",
                  rtm_rt.world_rank, req->xfer_len, req->peer, rtm_strerror(status));
        proto_send_ctrl(req, RTM_OP_CTS);
        return;
    }
    req->xfer_done = req->xfer_len;
    req->status.count = req->xfer_len;
    /* completes once the FIN is out, so the sender may reuse its buffer */
    proto_send_ctrl(req, RTM_OP_FIN);
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

void proto_rndv_start(rtm_request_impl_t *req, int peer, const rtm_rts_hdr_t *rts)
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
    if (rts->rkey_len > 0 && n > 0 && (p->tl->caps.flags & RTM_TL_CAP_GET) &&
        rts->size >= rndv_get_threshold(p)) {
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
    proto_send_ctrl(req, RTM_OP_CTS);
}
