/*
 * softib responder: what an HCA does with an incoming packet. RC and XRC
 * requests are checked (QP state and connection, PSN, receive WQE, rkey and
 * access) and answered with ACK, NAK or read/atomic responses; UD datagrams
 * land in a receive WQE behind a 40-byte GRH area.
 *
 * Error handling follows IBTA: no receive WQE -> RNR NAK (the requester
 * retries); receive buffer too small -> local length error here, remote
 * invalid request there; bad receive lkey -> local protection error here,
 * remote operational error there; bad rkey/range/access -> remote access
 * error NAK. Each of these moves the responder QP to the error state.
 * Packets for a QP that is not in RTR/RTS or not connected to the sender
 * are dropped, so the requester sees a transport retry error.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "softib.h"

/* where and how a request lands */
struct sib_target {
    struct sib_qp *qp;         /* local QP, or NULL (XRC TGT elsewhere) */
    struct sib_srq *srq;       /* receive WQEs from here ... */
    struct sib_rq *rq;         /* ... or here */
    struct sib_cq *cq;         /* receive completions */
    struct sib_pd *pd;         /* receive sges are checked in this PD */
    uint32_t pd_id;            /* rkeys are checked in this PD (0: any) */
    uint32_t access;           /* QP's remote access flags */
    uint8_t rnr_timer;
    uint32_t qpn;              /* reported in receive completions */
    struct sib_resp_msg *resp;
};

void sib_send_ctl(struct sib_dev *dev, uint16_t slot, uint8_t op,
                  uint32_t src_qpn, uint32_t dst_qpn, uint32_t psn,
                  uint8_t syndrome, uint8_t rnr_timer)
{
    struct sib_pkt_hdr h;

    memset(&h, 0, sizeof(h));
    h.op = op;
    h.src_qpn = src_qpn;
    h.dst_qpn = dst_qpn;
    h.psn = psn;
    h.syndrome = syndrome;
    h.rnr_timer = rnr_timer;
    sib_wire_send(dev, slot, &h, NULL, 0);
}

static void sib_reply(struct sib_dev *dev, const struct sib_pkt_hdr *h,
                      uint8_t op, uint8_t syndrome, uint8_t rnr_timer)
{
    sib_send_ctl(dev, h->src_slot, op, h->dst_qpn, h->src_qpn, h->psn,
                 syndrome, rnr_timer);
}

/*
 * RC ACKs are deferred: one ACK then covers everything received in a
 * progress pass, and it rides for free on the answer the application posts
 * next (SIB_F_ACK). Whatever did not ride leaves at the start of the next
 * progress pass, so an ACK is late by one poll at most.
 */
static void sib_ack_defer(struct sib_dev *dev, struct sib_target *t,
                          const struct sib_pkt_hdr *h)
{
    struct sib_qp *qp = t->qp;

    if (!qp || qp->ex.qp_base.qp_type != IBV_QPT_RC ||
        (!qp->ack_pending && dev->n_ack == 64)) {
        sib_reply(dev, h, SIB_OP_ACK, 0, 0);
        return;
    }
    if (!qp->ack_pending)
        dev->ack_qpns[dev->n_ack++] = qp->ex.qp_base.qp_num;
    qp->ack_pending = true;
    qp->ack_psn = h->psn;
}

void sib_ack_flush(struct sib_dev *dev)
{
    for (int i = 0; i < dev->n_ack; i++) {
        struct sib_qp *qp = sib_qp_lookup(dev, dev->ack_qpns[i]);
        const struct ibv_ah_attr *ah;

        if (!qp || !qp->ack_pending)
            continue;
        qp->ack_pending = false;
        if (qp->ex.qp_base.state != IBV_QPS_RTR &&
            qp->ex.qp_base.state != IBV_QPS_RTS)
            continue;
        ah = &qp->attr.ah_attr;
        sib_send_ctl(dev, ah->is_global ? (uint16_t)(ah->grh.dgid.raw[14] << 8 |
                                                     ah->grh.dgid.raw[15])
                                        : ah->dlid,
                     SIB_OP_ACK, qp->ex.qp_base.qp_num, qp->attr.dest_qp_num,
                     qp->ack_psn, 0, 0);
    }
    dev->n_ack = 0;
}

static void sib_fatal(struct sib_target *t)
{
    if (t->qp)
        sib_qp_to_error(t->qp);
}

/* receive sges -> iovecs with LOCAL_WRITE; false on a bad lkey */
static bool sib_recv_iov(struct sib_dev *dev, struct sib_target *t,
                         const struct sib_rwqe *w, struct iovec *iov, int *n_p,
                         uint64_t *cap_p)
{
    int n = 0;
    uint64_t cap = 0;

    for (int i = 0; i < w->num_sge; i++) {
        void *va;

        if (!w->sge[i].length)
            continue;
        va = sib_mr_local(dev, t->pd, w->sge[i].lkey, w->sge[i].addr,
                          w->sge[i].length, IBV_ACCESS_LOCAL_WRITE);
        if (!va)
            return false;
        iov[n].iov_base = va;
        iov[n].iov_len = w->sge[i].length;
        cap += w->sge[i].length;
        n++;
    }
    *n_p = n;
    *cap_p = cap;
    return true;
}

/* RDMA Write data placed in order, as an HCA places it: the last
 * SIB_WRITE_TAIL bytes (a footer word) after a fence, byte by byte in
 * increasing order (x86 makes plain stores visible in program order), so a
 * poller that sees them, or the last byte alone, sees the rest; memcpy may
 * copy with a string move whose stores become visible out of order. */
static void sib_place_write(char *va, const uint8_t *payload, size_t len)
{
    size_t cut = len > SIB_WRITE_TAIL ? len - SIB_WRITE_TAIL : 0;

    memcpy(va, payload, cut);
    atomic_thread_fence(memory_order_seq_cst);
    for (size_t i = cut; i < len; i++)
        ((volatile char *)va)[i] = (char)payload[i];
}

static void sib_scatter(const struct iovec *iov, int n, size_t off,
                        const uint8_t *src, size_t len)
{
    for (int i = 0; i < n && len; i++) {
        size_t c;

        if (off >= iov[i].iov_len) {
            off -= iov[i].iov_len;
            continue;
        }
        c = iov[i].iov_len - off < len ? iov[i].iov_len - off : len;
        memcpy((char *)iov[i].iov_base + off, src, c);
        src += c;
        len -= c;
        off = 0;
    }
}

/*
 * The same into memory the process may have unmapped under a posted UD
 * receive (seen with UCX's ud transport at finalize: its buffers went
 * before its QP, while the helper thread delivered a last datagram). An HCA
 * writes the pages registration pinned, which the process no longer sees;
 * here the write goes through process_vm_writev on ourselves, which fails
 * with EFAULT where memcpy would crash, and the datagram's bytes are lost
 * as they are to the process on an HCA. UD payloads are at most one MTU:
 * one system call per datagram.
 */
static void sib_scatter_unpinned(const struct iovec *iov, int n, size_t off,
                                 const uint8_t *src, size_t len)
{
    struct iovec remote[SIB_MAX_SGE];
    struct iovec local = {(void *)src, len};
    size_t off0 = off;
    int nr = 0;

    for (int i = 0; i < n && len && nr < SIB_MAX_SGE; i++) {
        size_t c;

        if (off >= iov[i].iov_len) {
            off -= iov[i].iov_len;
            continue;
        }
        c = iov[i].iov_len - off < len ? iov[i].iov_len - off : len;
        remote[nr].iov_base = (char *)iov[i].iov_base + off;
        remote[nr].iov_len = c;
        nr++;
        len -= c;
        off = 0;
    }
    local.iov_len -= len;
    if (nr > 0 && process_vm_writev(getpid(), &local, 1, remote, (unsigned long)nr, 0) < 0 &&
        errno != EFAULT)
        sib_scatter(iov, n, off0, src, local.iov_len);   /* no process_vm_writev here */
}

static bool sib_take_wqe(struct sib_dev *dev, struct sib_target *t,
                         struct sib_rwqe *w)
{
    if (dev->fault.rnr_count) {
        if (dev->fault.rnr_count > 0)
            dev->fault.rnr_count--;
        return false;
    }
    if (t->srq) {
        if (!sib_rq_pop(&t->srq->rq, w))
            return false;
        sib_srq_after_pop(dev, t->srq);
        return true;
    }
    return t->rq && sib_rq_pop(t->rq, w);
}

static void sib_read_respond(struct sib_dev *dev, struct sib_target *t,
                             const struct sib_pkt_hdr *req)
{
    struct sib_pkt_hdr h;
    char *va = sib_mr_remote(dev, t->pd_id, t->qpn, req->rkey, req->raddr,
                             req->total, IBV_ACCESS_REMOTE_READ);
    uint32_t off = 0;

    if (req->total && (!va || !(t->access & IBV_ACCESS_REMOTE_READ))) {
        sib_reply(dev, req, SIB_OP_NAK, SIB_NAK_REM_ACCESS, 0);
        sib_fatal(t);
        return;
    }
    memset(&h, 0, sizeof(h));
    h.op = SIB_OP_READ_RESP;
    h.src_qpn = req->dst_qpn;
    h.dst_qpn = req->src_qpn;
    h.psn = req->psn;
    h.total = req->total;
    do {
        uint32_t len = req->total - off < SIB_FRAG ? req->total - off : SIB_FRAG;
        struct iovec iov = {va + off, len};

        h.offset = off;
        h.len = len;
        h.flags = off + len == req->total ? SIB_F_LAST : 0;
        sib_wire_send(dev, req->src_slot, &h, &iov, len ? 1 : 0);
        off += len;
    } while (off < req->total);
}

static void sib_atomic_respond(struct sib_dev *dev, struct sib_target *t,
                               const struct sib_pkt_hdr *req)
{
    struct sib_pkt_hdr h;
    uint64_t *va;

    if (req->raddr & 7) {
        sib_reply(dev, req, SIB_OP_NAK, SIB_NAK_INV_REQ, 0);
        sib_fatal(t);
        return;
    }
    va = sib_mr_remote(dev, t->pd_id, t->qpn, req->rkey, req->raddr, 8,
                       IBV_ACCESS_REMOTE_ATOMIC);
    if (!va || !(t->access & IBV_ACCESS_REMOTE_ATOMIC)) {
        sib_reply(dev, req, SIB_OP_NAK, SIB_NAK_REM_ACCESS, 0);
        sib_fatal(t);
        return;
    }
    memset(&h, 0, sizeof(h));
    if (req->flags & SIB_F_FETCH_ADD) {
        h.compare_add = __atomic_fetch_add(va, req->compare_add, __ATOMIC_SEQ_CST);
    } else {
        uint64_t expected = req->compare_add;

        __atomic_compare_exchange_n(va, &expected, req->swap, false,
                                    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        h.compare_add = expected; /* the original value either way */
    }
    h.op = SIB_OP_ATOMIC_RESP;
    h.flags = SIB_F_LAST;
    h.src_qpn = req->dst_qpn;
    h.dst_qpn = req->src_qpn;
    h.psn = req->psn;
    h.total = 8;
    sib_wire_send(dev, req->src_slot, &h, NULL, 0);
}

/*
 * One in-sequence packet of a request. Returns true when the message is
 * complete (the PSN may advance), false when it is not, or was refused.
 * *refused tells the caller not to advance.
 */
static bool sib_execute(struct sib_dev *dev, struct sib_target *t,
                        const struct sib_pkt_hdr *h, const uint8_t *payload,
                        bool *refused)
{
    struct sib_resp_msg *r = t->resp;
    struct iovec iov[SIB_MAX_SGE];
    int n = 0;
    uint64_t cap = 0;
    bool last = h->offset + h->len == h->total;

    *refused = false;
    switch (h->op) {
    case SIB_OP_READ_REQ:
        sib_read_respond(dev, t, h);
        return true;
    case SIB_OP_ATOMIC_REQ:
        sib_atomic_respond(dev, t, h);
        return true;
    default:
        break;
    }
    if (h->offset == 0) {
        memset(r, 0, sizeof(*r));
        r->psn = h->psn;
        r->op = h->op;
        r->total = h->total;
        if (h->op == SIB_OP_WRITE) {
            if (h->total &&
                (!(t->access & IBV_ACCESS_REMOTE_WRITE) ||
                 !sib_mr_remote(dev, t->pd_id, t->qpn, h->rkey, h->raddr,
                                h->total, IBV_ACCESS_REMOTE_WRITE))) {
                sib_reply(dev, h, SIB_OP_NAK, SIB_NAK_REM_ACCESS, 0);
                sib_fatal(t);
                *refused = true;
                return false;
            }
        }
        if (h->op == SIB_OP_SEND || (h->flags & SIB_F_IMM)) {
            if (!sib_take_wqe(dev, t, &r->wqe)) {
                sib_reply(dev, h, SIB_OP_NAK, SIB_NAK_RNR, t->rnr_timer);
                *refused = true;
                return false;
            }
            r->has_wqe = true;
        }
        r->active = true;
    } else if (!r->active || r->psn != h->psn) {
        *refused = true;
        return false;
    }
    if (h->op == SIB_OP_SEND) {
        if (!sib_recv_iov(dev, t, &r->wqe, iov, &n, &cap)) {
            sib_recv_complete(t->qp, t->cq, r->wqe.wr_id, IBV_WC_LOC_PROT_ERR,
                              IBV_WC_RECV, 0, h, t->srq != NULL);
            sib_reply(dev, h, SIB_OP_NAK, SIB_NAK_REM_OP, 0);
            r->active = false;
            sib_fatal(t);
            *refused = true;
            return false;
        }
        if (cap < h->total) {
            sib_recv_complete(t->qp, t->cq, r->wqe.wr_id, IBV_WC_LOC_LEN_ERR,
                              IBV_WC_RECV, 0, h, t->srq != NULL);
            sib_reply(dev, h, SIB_OP_NAK, SIB_NAK_INV_REQ, 0);
            r->active = false;
            sib_fatal(t);
            *refused = true;
            return false;
        }
        sib_scatter(iov, n, h->offset, payload, h->len);
    } else if (h->len) {
        char *va = sib_mr_remote(dev, t->pd_id, t->qpn, h->rkey,
                                 h->raddr + h->offset, h->len,
                                 IBV_ACCESS_REMOTE_WRITE);

        if (!va) { /* deregistered meanwhile */
            sib_reply(dev, h, SIB_OP_NAK, SIB_NAK_REM_ACCESS, 0);
            r->active = false;
            sib_fatal(t);
            *refused = true;
            return false;
        }
        sib_place_write(va, payload, h->len);
    }
    if (!last)
        return false;
    r->active = false;
    /* send with invalidate: the key must name a type 2 window of the
     * receive's PD; otherwise the receive fails with a remote invalid
     * request (as rxe does) and the requester gets an invalid request NAK */
    if ((h->flags & SIB_F_INV) && sib_mw_remote_inv(dev, t->pd, h->rkey)) {
        sib_recv_complete(t->qp, t->cq, r->wqe.wr_id, IBV_WC_REM_INV_REQ_ERR,
                          IBV_WC_RECV, 0, h, t->srq != NULL);
        sib_reply(dev, h, SIB_OP_NAK, SIB_NAK_INV_REQ, 0);
        sib_fatal(t);
        *refused = true;
        return false;
    }
    if (r->has_wqe)
        sib_recv_complete(t->qp, t->cq, r->wqe.wr_id, IBV_WC_SUCCESS,
                          h->op == SIB_OP_SEND ? IBV_WC_RECV
                                               : IBV_WC_RECV_RDMA_WITH_IMM,
                          h->total, h, t->srq != NULL);
    sib_ack_defer(dev, t, h);
    return true;
}

static bool sib_is_last(const struct sib_pkt_hdr *h)
{
    return h->offset + h->len == h->total;
}

/* RC: strict PSN order against the QP's expected PSN */
static void sib_rc_request(struct sib_dev *dev, const struct sib_pkt_hdr *h,
                           const uint8_t *payload)
{
    struct sib_qp *qp = sib_qp_lookup(dev, h->dst_qpn);
    struct sib_target t;
    struct ibv_qp *q;
    uint16_t rslot;
    int32_t d;
    bool refused;

    if (!qp)
        return;
    q = &qp->ex.qp_base;
    if (q->qp_type != IBV_QPT_RC ||
        (q->state != IBV_QPS_RTR && q->state != IBV_QPS_RTS &&
         q->state != IBV_QPS_SQD))
        return;
    rslot = qp->attr.ah_attr.is_global
                ? (uint16_t)(qp->attr.ah_attr.grh.dgid.raw[14] << 8 |
                             qp->attr.ah_attr.grh.dgid.raw[15])
                : qp->attr.ah_attr.dlid;
    if (h->src_slot != rslot || h->src_qpn != qp->attr.dest_qp_num)
        return; /* not our peer: an HCA drops it */
    d = psn_diff(h->psn, qp->epsn);
    if (d < 0) { /* duplicate: answer again */
        if (h->op == SIB_OP_READ_REQ || h->op == SIB_OP_ATOMIC_REQ) {
            memset(&t, 0, sizeof(t));
            t.qp = qp;
            t.pd_id = ((struct sib_pd *)q->pd)->id;
            t.qpn = q->qp_num;
            t.access = qp->attr.qp_access_flags;
            if (h->op == SIB_OP_READ_REQ)
                sib_read_respond(dev, &t, h);
            else
                sib_reply(dev, h, SIB_OP_ACK, 0, 0);
        } else if (sib_is_last(h)) {
            sib_reply(dev, h, SIB_OP_ACK, 0, 0);
        }
        return;
    }
    if (d > 0)
        return; /* after a NAK: wait for the retransmission */
    memset(&t, 0, sizeof(t));
    t.qp = qp;
    t.srq = qp->srq;
    t.rq = &qp->rq;
    t.cq = qp->recv_cq;
    t.pd = (struct sib_pd *)q->pd;
    t.pd_id = t.pd->id;
    t.access = qp->attr.qp_access_flags;
    t.rnr_timer = qp->attr.min_rnr_timer;
    t.qpn = q->qp_num;
    t.resp = &qp->resp;
    if (sib_execute(dev, &t, h, payload, &refused))
        qp->epsn = psn_add(qp->epsn, 1);
}

static struct sib_xrc_resp *sib_xrc_ctx(struct sib_dev *dev, uint16_t slot,
                                        uint32_t qpn)
{
    struct sib_xrc_resp *free_e = NULL;

    for (int i = 0; i < 64; i++) {
        struct sib_xrc_resp *e = &dev->xrc_resp[i];

        if (e->used && e->slot == slot && e->qpn == qpn)
            return e;
        if (!e->used && !free_e)
            free_e = e;
    }
    if (!free_e)
        free_e = &dev->xrc_resp[(slot ^ qpn) & 63]; /* evict */
    memset(free_e, 0, sizeof(*free_e));
    free_e->used = true;
    free_e->slot = slot;
    free_e->qpn = qpn;
    return free_e;
}

/* XRC: the TGT QP may live in another process of this host (its state is in
 * that process's shared page); sends land in one of our XRC SRQs. */
static void sib_xrc_request(struct sib_dev *dev, const struct sib_pkt_hdr *h,
                            const uint8_t *payload)
{
    uint16_t owner = (uint16_t)SIB_SLOT_OF(h->dst_qpn);
    struct sib_shared *sh = dev->shared;
    struct sib_shared_qp *tq;
    struct sib_xrc_resp *x;
    struct sib_target t;
    struct sib_srq *srq = NULL;
    uint32_t st;
    bool refused;

    if (owner != dev->slot) {
        struct sib_peer *p = sib_peer_get(dev, owner);

        sh = p ? p->shared : NULL;
        if (!sh)
            return;
    }
    tq = &sh->qp[SIB_IDX_OF(h->dst_qpn)];
    st = atomic_load_explicit(&tq->state, memory_order_relaxed);
    if (atomic_load_explicit(&tq->qpn, memory_order_acquire) != h->dst_qpn ||
        tq->type != IBV_QPT_XRC_RECV ||
        (st != IBV_QPS_RTR && st != IBV_QPS_RTS) ||
        tq->remote_slot != h->src_slot || tq->remote_qpn != h->src_qpn)
        return;
    /* sends land in the SRQ; RDMA is checked against its PD */
    srq = sib_srq_lookup(dev, h->qkey_srqn);
    if (!srq || !srq->is_xrc || srq->xrcd_id != tq->xrcd_id) {
        if (h->offset == 0) /* an SRQ of another domain: invalid request */
            sib_reply(dev, h, SIB_OP_NAK, SIB_NAK_INV_REQ, 0);
        return;
    }
    x = sib_xrc_ctx(dev, h->src_slot, h->src_qpn);
    if (x->have_last && psn_diff(h->psn, x->last_psn) <= 0) {
        if (h->op == SIB_OP_READ_REQ) {
            memset(&t, 0, sizeof(t));
            t.access = tq->access;
            sib_read_respond(dev, &t, h);
        } else if (sib_is_last(h)) {
            sib_reply(dev, h, SIB_OP_ACK, 0, 0);
        }
        return;
    }
    if (x->nak_sent && h->psn != x->nak_psn)
        return;
    memset(&t, 0, sizeof(t));
    t.qp = owner == dev->slot ? sib_qp_lookup(dev, h->dst_qpn) : NULL;
    t.cq = h->op == SIB_OP_SEND ? srq->cq : NULL;
    t.srq = h->op == SIB_OP_SEND ? srq : NULL;
    t.pd = (struct sib_pd *)srq->ibv.pd;
    t.pd_id = t.pd ? t.pd->id : 0;
    t.access = tq->access;
    t.rnr_timer = (uint8_t)tq->min_rnr_timer;
    t.qpn = h->dst_qpn;
    t.resp = &x->resp;
    if (sib_execute(dev, &t, h, payload, &refused)) {
        x->have_last = true;
        x->last_psn = h->psn;
        x->nak_sent = false;
    } else if (refused) {
        x->nak_sent = true;
        x->nak_psn = h->psn;
    }
}

static void sib_ud_recv(struct sib_dev *dev, const struct sib_pkt_hdr *h,
                        const uint8_t *payload)
{
    struct sib_qp *qp = sib_qp_lookup(dev, h->dst_qpn);
    struct iovec iov[SIB_MAX_SGE];
    struct sib_target t;
    struct sib_rwqe w;
    uint64_t cap;
    int n;

    if (!qp || qp->ex.qp_base.qp_type != IBV_QPT_UD ||
        (qp->ex.qp_base.state != IBV_QPS_RTR &&
         qp->ex.qp_base.state != IBV_QPS_RTS))
        return;
    if (h->qkey_srqn != qp->attr.qkey)
        return; /* Q_Key violation: dropped */
    memset(&t, 0, sizeof(t));
    t.qp = qp;
    t.srq = qp->srq;
    t.rq = &qp->rq;
    t.pd = (struct sib_pd *)qp->ex.qp_base.pd;
    if (t.srq ? !sib_rq_pop(&t.srq->rq, &w) : !sib_rq_pop(t.rq, &w))
        return; /* no receive posted: UD drops */
    if (t.srq)
        sib_srq_after_pop(dev, t.srq);
    if (!sib_recv_iov(dev, &t, &w, iov, &n, &cap)) {
        sib_recv_complete(qp, qp->recv_cq, w.wr_id, IBV_WC_LOC_PROT_ERR,
                          IBV_WC_RECV, 0, h, t.srq != NULL);
        sib_qp_to_error(qp);
        return;
    }
    if (cap < (uint64_t)h->len + SIB_GRH_LEN) {
        sib_recv_complete(qp, qp->recv_cq, w.wr_id, IBV_WC_LOC_LEN_ERR,
                          IBV_WC_RECV, 0, h, t.srq != NULL);
        sib_qp_to_error(qp);
        return;
    }
    if (h->flags & SIB_F_GRH) {
        struct ibv_grh grh;

        memset(&grh, 0, sizeof(grh));
        grh.version_tclass_flow = htobe32(6u << 28);
        grh.paylen = htobe16((uint16_t)(h->len + 8));
        grh.next_hdr = 0x1b;
        grh.hop_limit = 64;
        sib_gid_of(h->src_slot, sib_link_is_eth() ? 1 : 0, &grh.sgid);
        sib_gid_of(dev->slot, sib_link_is_eth() ? 1 : 0, &grh.dgid);
        sib_scatter_unpinned(iov, n, 0, (const uint8_t *)&grh, sizeof(grh));
    }
    sib_scatter_unpinned(iov, n, SIB_GRH_LEN, payload, h->len);
    sib_recv_complete(qp, qp->recv_cq, w.wr_id, IBV_WC_SUCCESS, IBV_WC_RECV,
                      h->len + SIB_GRH_LEN, h, t.srq != NULL);
}

void sib_dispatch(struct sib_dev *dev, const struct sib_pkt_hdr *h,
                  const uint8_t *payload)
{
    switch (h->op) {
    case SIB_OP_ACK:
    case SIB_OP_NAK:
    case SIB_OP_READ_RESP:
    case SIB_OP_ATOMIC_RESP:
        sib_handle_ack(dev, h, payload);
        break;
    case SIB_OP_UD_SEND:
        sib_ud_recv(dev, h, payload);
        break;
    case SIB_OP_SEND:
    case SIB_OP_WRITE:
    case SIB_OP_READ_REQ:
    case SIB_OP_ATOMIC_REQ:
        if (h->flags & SIB_F_ACK) { /* the reverse way's ACK first */
            struct sib_pkt_hdr ack;

            memset(&ack, 0, sizeof(ack));
            ack.op = SIB_OP_ACK;
            ack.src_slot = h->src_slot;
            ack.src_qpn = h->src_qpn;
            ack.dst_qpn = h->dst_qpn;
            ack.psn = h->ack_psn;
            sib_handle_ack(dev, &ack, NULL);
        }
        if (h->flags & SIB_F_XRC)
            sib_xrc_request(dev, h, payload);
        else
            sib_rc_request(dev, h, payload);
        break;
    default:
        break;
    }
}
