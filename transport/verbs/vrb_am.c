/*
 * verbs: eager active messages (Send into buffers pre-posted on the SRQ),
 * transport credits, the progress loop and work-completion errors.
 *
 * Flow control: each peer owns `credits` receive buffers of our SRQ (plus
 * VRB_CTRL_SLACK for credit-only messages); a Send consumes one of the
 * sender's credits, and the receiver hands credits back in the header of
 * whatever it sends next, or in a credit-only message once it owes half of
 * them. A credit-only message is sent only for credits/2 reposted buffers,
 * so at most 2 of them can wait unpolled in the SRQ per peer: the SRQ never
 * runs dry and RNR retries never carry normal traffic.
 */
#include "config.h"

#include "transport/verbs/vrb.h"
#include "common/error.h"
#include "common/log.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rtm_status_t vrb_post_recv_all(vrb_iface_t *iface)
{
    struct ibv_recv_wr wrs[64], *bad;
    struct ibv_sge sges[64];

    for (int i = 0; i < iface->srq_depth; i += 64) {
        int n = iface->srq_depth - i < 64 ? iface->srq_depth - i : 64;

        for (int j = 0; j < n; j++) {
            sges[j].addr = (uintptr_t)(iface->rx_bufs + (size_t)(i + j) * iface->buf_size);
            sges[j].length = (uint32_t)iface->buf_size;
            sges[j].lkey = iface->rx_mr->lkey;
            wrs[j].wr_id = VRB_WR_RECV_BIT | (uint64_t)(i + j);
            wrs[j].sg_list = &sges[j];
            wrs[j].num_sge = 1;
            wrs[j].next = j + 1 < n ? &wrs[j + 1] : NULL;
        }
        if (ibv_post_srq_recv(iface->srq, wrs, &bad) != 0)
            return rtm_error_set(RTM_ERR_TRANSPORT, "verbs: ibv_post_srq_recv: %s",
                                 strerror(errno));
    }
    return RTM_OK;
}

/* Signal, post and account one send-queue WR: sends, ring writes.
 * Hot path: no allocation, lock or log. */
rtm_status_t vrb_post_wr(vrb_ep_t *ep, struct ibv_send_wr *wr, void *bounce)
{
    vrb_iface_t *iface = vrb_ep_iface(ep);
    vrb_sq_slot_t *slot = &ep->slots[ep->sq_head % VRB_SQ_DEPTH];
    struct ibv_send_wr *bad;

    slot->bounce = bounce;
    slot->get = NULL;
    slot->kind = VRB_SLOT_SEND;
    /* Signal every Nth WR; also the one that fills the send queue or takes
     * a bounce buffer when few are left, so resources always come back. */
    if (++ep->sq_unsignaled >= VRB_SIGNAL_EVERY ||
        ep->sq_head - ep->sq_tail + 1 >= VRB_SQ_DEPTH ||
        (bounce != NULL && iface->tx_nfree < VRB_BOUNCE_COUNT / 4)) {
        wr->send_flags |= IBV_SEND_SIGNALED;
        ep->sq_unsignaled = 0;
    }
    wr->wr_id = vrb_wr_id(ep, ep->sq_head);
    wr->qp_type.xrc.remote_srqn = ep->r_srqn;   /* XRC: the peer's SRQ; RC ignores it */
    if (ibv_post_send(ep->qp, wr, &bad) != 0) {
        int err = errno;

        if (bounce != NULL)
            iface->tx_free[iface->tx_nfree++] = bounce;
        slot->bounce = NULL;
        return rtm_error_set(RTM_ERR_TRANSPORT,
                             "verbs: ibv_post_send to rank %d (%s, QP 0x%x): %s", ep->super.peer,
                             ep->host, ep->qp->qp_num, strerror(err));
    }
    ep->sq_head++;
    return RTM_OK;
}

/* Post one Send: our header, then hdr and payload. Inline when it fits
 * (no copy to wait for), else through a registered bounce buffer. To a
 * peer whose ring we write into, the immediate data tells the receiver how
 * many ring writes precede this Send (vrb_erdma.c keeps the order).
 * Hot path: no allocation, lock or log. */
rtm_status_t vrb_post_am(vrb_ep_t *ep, uint8_t am_id, const void *hdr, size_t hdr_len,
                         const void *payload, size_t len)
{
    vrb_iface_t *iface = vrb_ep_iface(ep);
    size_t total = sizeof(vrb_am_hdr_t) + hdr_len + len;
    char inline_buf[VRB_MAX_INLINE];
    struct ibv_send_wr wr;
    struct ibv_sge sge;
    vrb_am_hdr_t *h;
    char *buf, *bounce;
    int owed = ep->credits_owed > 0xffff ? 0xffff : ep->credits_owed;
    uint32_t ring_owed = 0;
    rtm_status_t status;

    memset(&wr, 0, sizeof(wr));
    if (total <= iface->max_inline) {
        buf = inline_buf;
        bounce = NULL;
        sge.lkey = 0;
        wr.send_flags = IBV_SEND_INLINE;
    } else {
        if (iface->tx_nfree == 0) {
            iface->cq_due = 1;          /* bounce buffers come back by completions */
            return RTM_ERR_AGAIN;
        }
        buf = bounce = iface->tx_free[--iface->tx_nfree];
        sge.lkey = iface->tx_mr->lkey;
    }
    if (ep->erx != NULL)
        ring_owed = vrb_erdma_owed(ep->erx, 0xff);
    h = (vrb_am_hdr_t *)(void *)buf;
    h->am_id = am_id;
    h->ring_credits = (uint8_t)ring_owed;
    h->credits = (uint16_t)owed;
    h->src = iface->world_rank;
    if (hdr_len > 0)
        memcpy(buf + sizeof(*h), hdr, hdr_len);
    if (len > 0)
        memcpy(buf + sizeof(*h) + hdr_len, payload, len);
    sge.addr = (uintptr_t)buf;
    sge.length = (uint32_t)total;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    if (ep->etx_nslots != 0) {
        wr.opcode = IBV_WR_SEND_WITH_IMM;
        wr.imm_data = htobe32(ep->etx_seq);
    } else {
        wr.opcode = IBV_WR_SEND;
    }
    status = vrb_post_wr(ep, &wr, bounce);
    if (status != RTM_OK)
        return status;
    ep->tx_sends++;
    ep->credits_owed -= owed;
    if (ring_owed != 0)
        vrb_erdma_owed_sent(ep->erx, ring_owed);
    return RTM_OK;
}

/* Hot path: no allocation, lock or log. */
rtm_status_t vrb_am_send(rtm_tl_ep_t *tl_ep, unsigned am_id, const void *hdr, size_t hdr_len,
                         const void *payload, size_t len)
{
    vrb_ep_t *ep = vrb_ep_of(tl_ep);
    rtm_status_t status;

    /* Eager RDMA: the message fits a write and the cells it needs are free
     * in the peer's ring (never without a ring). */
    if (vrb_erdma_fits(ep, hdr_len + len) &&
        ep->sq_head - ep->sq_tail < VRB_SQ_DEPTH && am_id < RTM_TL_AM_ID_MAX)
        return vrb_erdma_send(ep, (uint8_t)am_id, hdr, hdr_len, payload, len);
    /* An endpoint not connected yet has no credits: one test covers both. */
    if (__builtin_expect(ep->tx_credits <= 0 || ep->sq_head - ep->sq_tail >= VRB_SQ_DEPTH, 0)) {
        if (!ep->connected)
            return vrb_conn_start(ep);
        vrb_ep_iface(ep)->cq_due = 1;   /* send-queue slots and credits may be there */
        return RTM_ERR_AGAIN;
    }
    if (__builtin_expect(hdr_len + len > vrb_ep_iface(ep)->am_max || am_id >= RTM_TL_AM_ID_MAX, 0))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs am_send: %zu bytes exceed am_max %zu",
                             hdr_len + len, vrb_ep_iface(ep)->am_max);
    status = vrb_post_am(ep, (uint8_t)am_id, hdr, hdr_len, payload, len);
    if (status == RTM_OK)
        ep->tx_credits--;
    return status;
}

/* On demand, the requester's first message on a new connection: tells the
 * peer our QP is in RTS, so it may send too (vrb_conn_established). It
 * takes one of the VRB_CTRL_SLACK receive slots, not a credit. */
rtm_status_t vrb_post_hello(vrb_ep_t *ep)
{
    return vrb_post_am(ep, VRB_AM_CREDIT, NULL, 0, NULL, 0);
}

vrb_ep_t *vrb_ep_of_qpn(vrb_iface_t *iface, uint32_t qpn)
{
    for (int i = 0; i < iface->world_size; i++)
        if (iface->eps[i].rx_qpn == qpn)   /* RC: our QP; XRC: the peer's TGT QP */
            return &iface->eps[i];
    return NULL;
}

static const char *wc_hint(enum ibv_wc_status st)
{
    switch (st) {
    case IBV_WC_RETRY_EXC_ERR:
        return "the peer stopped answering: its process, host, HCA or link is gone";
    case IBV_WC_RNR_RETRY_EXC_ERR:
        return "the peer posted no receive buffer for too long";
    case IBV_WC_REM_ACCESS_ERR:
        return "the peer refused the access: its buffer was freed, deregistered or revoked "
               "before the transfer finished, the access went beyond what it exposed or lacks "
               "the right for this operation, or this rank was never given that key";
    case IBV_WC_REM_INV_REQ_ERR:
    case IBV_WC_LOC_LEN_ERR:
        return "a message was larger than the receive buffer: do all ranks use the same "
               "RTM_VERBS_EAGER_LIMIT?";
    case IBV_WC_WR_FLUSH_ERR:
        return "the queue pair had already failed (its first error, here or at the peer, says why)";
    case IBV_WC_LOC_PROT_ERR:
        return "a local buffer was not registered for this access";
    default:
        return "see the HCA's documentation for this status";
    }
}

void vrb_wc_fatal(vrb_iface_t *iface, const struct ibv_wc *wc, const char *what)
{
    char msg[768];
    vrb_ep_t *ep = NULL;
    const char *op = "operation with";

    if (wc->wr_id & VRB_WR_RECV_BIT) {
        ep = vrb_ep_of_qpn(iface, wc->qp_num);
        op = "receive from";
    } else {
        uint64_t peer = wc->wr_id >> 40;

        if (peer < (uint64_t)iface->world_size) {
            static const char *const ops[] = {
                [VRB_SLOT_SEND] = "send to", [VRB_SLOT_READ] = "RDMA read from",
                [VRB_SLOT_PUT] = "RDMA write (put) to", [VRB_SLOT_ATOMIC] = "atomic on",
                [VRB_SLOT_BIND] = "memory window bind for", [VRB_SLOT_INV] =
                "memory window invalidate for"};
            unsigned kind;

            ep = &iface->eps[peer];
            kind = ep->slots != NULL ?
                   ep->slots[(wc->wr_id & ((1ull << 40) - 1)) % VRB_SQ_DEPTH].kind : 0;
            op = kind < sizeof(ops) / sizeof(ops[0]) ? ops[kind] : "send to";
        }
    }
    snprintf(msg, sizeof(msg),
             "rank %d (%s): verbs %s rank %d (%s) failed: %s%s (QP 0x%x -> 0x%x on %s port %u, "
             "vendor error 0x%x); %s",
             iface->world_rank, iface->host, op, ep ? ep->super.peer : -1, ep ? ep->host : "?",
             what ? what : ibv_wc_status_str(wc->status), "",
             wc->qp_num, ep ? ep->remote_qpn : 0, iface->dev.name, iface->dev.port,
             wc->vendor_err, what ? "protocol violation" : wc_hint(wc->status));
    vrb_fatal(iface, ep, msg);
}

/* Every fatal path of the transport ends here: log once, then hand the
 * failure to the runtime, which ends the job (peer_failed does not return;
 * vrb_open made sure there is one). The peer is ep's, or none for a
 * failure of the device or of a QP no endpoint owns. Should a handler
 * return all the same, a QP in error cannot be resumed: abort(). */
void vrb_fatal(vrb_iface_t *iface, const vrb_ep_t *ep, const char *msg)
{
    rtm_error("%s", msg);
    iface->peer_failed(iface->am_arg, ep != NULL ? ep->super.peer : RTM_TL_PEER_NONE,
                       RTM_ERR_TRANSPORT, msg);
    abort();
}

/* Retire send-queue entries up to and including WR `wr_id`. */
static void send_done(vrb_iface_t *iface, const struct ibv_wc *wc)
{
    uint64_t peer = wc->wr_id >> 40;
    vrb_ep_t *ep;
    uint64_t seq;

    if (peer >= (uint64_t)iface->world_size)
        vrb_wc_fatal(iface, wc, "completion for an unknown send");
    ep = &iface->eps[peer];
    /* 40 bits of the WR number travel in wr_id; rebuild the rest */
    seq = ep->sq_tail + (((wc->wr_id & ((1ull << 40) - 1)) - ep->sq_tail) & ((1ull << 40) - 1));
    while (ep->sq_tail <= seq && ep->sq_tail < ep->sq_head) {
        vrb_sq_slot_t *slot = &ep->slots[ep->sq_tail % VRB_SQ_DEPTH];
        vrb_get_t *g = slot->get;

        if (slot->kind == VRB_SLOT_PUT || slot->kind == VRB_SLOT_ATOMIC)
            vrb_rma_slot_done(ep, slot, ep->sq_tail);
        if (slot->kind == VRB_SLOT_PUT || slot->kind == VRB_SLOT_ATOMIC ||
            slot->kind == VRB_SLOT_READ)
            iface->rma_done++;          /* the ones rma_wrs counts */
        ep->sq_tail++;
        if (slot->bounce != NULL) {
            iface->tx_free[iface->tx_nfree++] = slot->bounce;
            slot->bounce = NULL;
        }
        if (g != NULL) {
            slot->get = NULL;
            vrb_get_chunk_done(g, slot->bytes);
        }
    }
    while (!rtm_list_is_empty(&ep->pending_gets) && ep->sq_head - ep->sq_tail < VRB_SQ_DEPTH) {
        vrb_get_t *g = rtm_container_of(ep->pending_gets.next, vrb_get_t, link);
        size_t before = g->posted;

        vrb_get_post(g);
        if (g->posted == before)
            break;
    }
}

static void credit_queue_add(vrb_iface_t *iface, vrb_ep_t *ep)
{
    if (!ep->credit_queued) {
        ep->credit_queued = 1;
        iface->credit_queue[iface->credit_nqueued++] = ep->super.peer;
    }
}

/* Hot path: no allocation, lock or log. */
static void recv_done(vrb_iface_t *iface, const struct ibv_wc *wc)
{
    uint64_t idx = wc->wr_id & ~VRB_WR_RECV_BIT;
    char *buf = iface->rx_bufs + idx * iface->buf_size;
    const vrb_am_hdr_t *h = (const vrb_am_hdr_t *)(const void *)buf;
    struct ibv_recv_wr wr, *bad;
    struct ibv_sge sge;
    vrb_ep_t *ep;

    if (__builtin_expect(wc->byte_len < sizeof(*h) || h->src < 0 ||
                         h->src >= iface->world_size ||
                         iface->eps[h->src].rx_qpn != wc->qp_num, 0))
        vrb_wc_fatal(iface, wc, "a message with a bad header");
    ep = &iface->eps[h->src];
    if (__builtin_expect(!ep->connected, 0))
        vrb_conn_established(ep);      /* on demand: the peer's QP is in RTS */
    ep->tx_credits += h->credits;
    ep->etx_credits += h->ring_credits;
    /* ring writes the peer posted before this Send go first */
    if (wc->wc_flags & IBV_WC_WITH_IMM)
        vrb_erdma_drain(ep, be32toh(wc->imm_data));
    if (__builtin_expect(ep->rx_sends++ == 0 && ep->erx == NULL, 0))
        iface->send_peers++;           /* its first Send: it sends by Send (so far) */
    if (__builtin_expect(h->am_id < RTM_TL_AM_ID_MAX, 1)) {
        size_t len = wc->byte_len - sizeof(*h);

        if (len <= iface->erdma_payload && ++ep->erdma_count == iface->erdma_threshold)
            vrb_erdma_want(ep);        /* a frequent sender of small messages */
        iface->am_cb(iface->am_arg, h->src, h->am_id, buf + sizeof(*h), len);
    } else if (h->am_id == VRB_AM_RING_OFFER) {
        vrb_erdma_offer_recv(ep, buf + sizeof(*h), wc->byte_len - sizeof(*h));
    } else if (h->am_id == VRB_AM_RING_CREDIT && wc->byte_len == sizeof(*h) + 4) {
        uint32_t cells;

        memcpy(&cells, buf + sizeof(*h), 4);
        ep->etx_credits += (int)cells;
    }
    /* the runtime copied what it keeps: the buffer goes back at once */
    sge.addr = (uintptr_t)buf;
    sge.length = (uint32_t)iface->buf_size;
    sge.lkey = iface->rx_mr->lkey;
    wr.wr_id = wc->wr_id;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.next = NULL;
    if (__builtin_expect(ibv_post_srq_recv(iface->srq, &wr, &bad) != 0, 0)) {
        struct ibv_wc fake = *wc;

        fake.status = IBV_WC_GENERAL_ERR;
        vrb_wc_fatal(iface, &fake, "reposting a receive buffer");
    }
    if (h->am_id != VRB_AM_CREDIT && ++ep->credits_owed >= ep->grant / 2)
        credit_queue_add(iface, ep);
}

/* Explicit credit messages for peers we owe many credits and have sent
 * nothing to lately. They take no credit themselves (the SRQ slack). */
static int credits_flush(vrb_iface_t *iface)
{
    int n = 0, keep = 0;

    for (int i = 0; i < iface->credit_nqueued; i++) {
        vrb_ep_t *ep = &iface->eps[iface->credit_queue[i]];

        if (ep->credits_owed < ep->grant / 2) {
            ep->credit_queued = 0;   /* piggy-backed meanwhile */
            continue;
        }
        if (ep->sq_head - ep->sq_tail < VRB_SQ_DEPTH &&
            vrb_post_am(ep, VRB_AM_CREDIT, NULL, 0, NULL, 0) == RTM_OK) {
            ep->credit_queued = 0;
            n++;
            continue;
        }
        iface->credit_queue[keep++] = ep->super.peer;
    }
    iface->credit_nqueued = keep;
    return n;
}

/* Whether this pass polls the CQ (see VRB_CQ_POLL_EVERY). While every peer
 * that ever sent us a Send writes its small messages into a ring of ours
 * (peers that sent nothing yet, e.g. those another transport carries, do
 * not count), what a wait is for arrives in the rings, and the CQ holds
 * send completions (one in VRB_SIGNAL_EVERY writes, to recycle send-queue
 * slots and bounce buffers) and the odd Send (ring full, a message too large
 * for it, ring credits): polling it at every pass would cost more than the
 * rings themselves (softib: the device lock and its progress engine; an
 * HCA: a CQE read and, in most providers, a lock), for nothing. So it is
 * polled every VRB_CQ_POLL_EVERY-th pass, which bounds what a Send waits (a
 * peer's first, too), and every pass whenever something is expected there:
 * a peer that sends by Send and has no ring (yet, or beyond
 * RTM_VERBS_ERDMA_PEERS, or the fast path off, or XRC), a handshake,
 * one-sided WRs in flight, a receive found lately (VRB_CQ_HOT_PASSES), a
 * ring message held for a Send, a send that found no room.
 * Hot path: no allocation, lock or log. */
static inline int cq_poll_now(vrb_iface_t *iface)
{
    if (iface->cq_hot > 0) {
        iface->cq_hot--;
        return 1;
    }
    if (iface->cq_due || iface->send_peers > 0 || iface->rma_wrs != iface->rma_done ||
        iface->nconnecting > 0)
        return 1;
    if (iface->cq_countdown > 1) {
        iface->cq_countdown--;
        return 0;
    }
    iface->cq_countdown = VRB_CQ_POLL_EVERY;
    return 1;
}

/* Hot path: no allocation, lock or log. */
static int cq_poll(vrb_iface_t *iface)
{
    struct ibv_wc wc[VRB_POLL_BATCH];
    int n = ibv_poll_cq(iface->cq, VRB_POLL_BATCH, wc);
    int recvs = 0;

    iface->cq_polls++;
    iface->cq_due = n == VRB_POLL_BATCH;    /* more may wait */
    if (__builtin_expect(n < 0, 0)) {
        struct ibv_wc fake;

        memset(&fake, 0, sizeof(fake));
        fake.status = IBV_WC_GENERAL_ERR;
        fake.wr_id = VRB_WR_RECV_BIT;
        vrb_wc_fatal(iface, &fake, "polling the completion queue (overrun?)");
    }
    for (int i = 0; i < n; i++) {
        if (__builtin_expect((wc[i].wr_id & VRB_WR_UD_BIT) != 0, 0)) {
            vrb_conn_ud_done(iface, &wc[i]);   /* connection handshake (on demand) */
            recvs++;
            continue;
        }
        if (__builtin_expect(wc[i].status != IBV_WC_SUCCESS, 0))
            vrb_wc_fatal(iface, &wc[i], NULL);
        if (wc[i].wr_id & VRB_WR_RECV_BIT) {
            recv_done(iface, &wc[i]);
            recvs++;
        } else {
            send_done(iface, &wc[i]);
        }
    }
    if (recvs > 0) {
        if (iface->cq_recv_wcs == 0)
            iface->calls_first_recv = iface->progress_calls;
        iface->cq_recv_wcs += (uint64_t)recvs;
        iface->cq_hot = VRB_CQ_HOT_PASSES;   /* a peer sends by Send: look at every pass */
    }
    return n;
}

/* Rings first (the message a wait is for is there), then the CQ when
 * cq_poll_now says so. Hot path: no allocation, lock or log. */
int vrb_progress(rtm_tl_iface_t *tl_iface)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);
    int n = 0;

    iface->progress_calls++;
    if (iface->erdma_nrx + iface->erdma_nwant > 0)
        n += vrb_erdma_progress(iface);
    if (cq_poll_now(iface))
        n += cq_poll(iface);
    if (iface->credit_nqueued > 0 && !iface->quiet)
        n += credits_flush(iface);
    if (__builtin_expect(iface->nconnecting > 0, 0))
        n += vrb_conn_timers(iface);
    n += vrb_async_poll(iface);   /* a countdown; reads the async fd every 4096th call */
    return n;
}
