/*
 * softib requester: post_send, the ibv_qp_ex work-request builder, packet
 * transmission, acknowledgements, RNR and transport retries, and send
 * completions in posting order.
 *
 * Send queue ring: [sq_head, sq_head + sq_count) are live WQEs;
 * [sq_head, sq_next) have been processed (sent, done or failed) and
 * [sq_next, ...) wait to be sent. Completions leave from sq_head only, so
 * they appear in posting order whatever order the work finished in.
 *
 * Each RC message takes one PSN (not one per MTU); a message above SIB_FRAG
 * travels as several packets with the same PSN. Losses are recovered
 * go-back-N: on a timeout or an RNR NAK every unacknowledged message from
 * the oldest one is sent again with its original PSN.
 *
 * RDMA WRITE and READ to a peer on this machine are done by the initiator
 * itself with process_vm_writev/readv when the peer's shared page shows a
 * valid rkey and a connected QP, and nothing is in flight on the socket path
 * (which keeps the order of operations). Anything else, and every error
 * case, goes through the responder, which answers as an HCA would.
 *
 * Hot path (post_send, progress): no allocation unless a socket is full.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "softib.h"

struct sib_exwr {
    struct ibv_send_wr wr;
    struct ibv_sge sge[SIB_MAX_SGE];
    size_t inl_off;
    bool inl;
};

static bool sib_is_rc_like(const struct sib_qp *qp)
{
    return qp->ex.qp_base.qp_type == IBV_QPT_RC ||
           qp->ex.qp_base.qp_type == IBV_QPT_XRC_SEND;
}

static struct sib_swqe *sq_at(struct sib_qp *qp, uint32_t i)
{
    return &qp->sq[(qp->sq_head + i) % qp->sq_cap];
}

static enum ibv_wc_opcode sib_wc_opcode(enum ibv_wr_opcode op)
{
    switch (op) {
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM: return IBV_WC_RDMA_WRITE;
    case IBV_WR_RDMA_READ: return IBV_WC_RDMA_READ;
    case IBV_WR_ATOMIC_CMP_AND_SWP: return IBV_WC_COMP_SWAP;
    case IBV_WR_ATOMIC_FETCH_AND_ADD: return IBV_WC_FETCH_ADD;
    case IBV_WR_BIND_MW: return IBV_WC_BIND_MW;
    case IBV_WR_LOCAL_INV: return IBV_WC_LOCAL_INV;
    default: return IBV_WC_SEND;
    }
}

static bool sib_is_local_op(enum ibv_wr_opcode op)
{
    return op == IBV_WR_BIND_MW || op == IBV_WR_LOCAL_INV;
}

static bool sib_needs_response(enum ibv_wr_opcode op)
{
    return op == IBV_WR_RDMA_READ || op == IBV_WR_ATOMIC_CMP_AND_SWP ||
           op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

/* ------------------------------------------------------------ completion */

static void sib_retire(struct sib_qp *qp)
{
    while (qp->sq_count && qp->sq_next > 0) {
        struct sib_swqe *w = sq_at(qp, 0);
        bool failed = w->state == SWQE_FAILED;

        if (w->state != SWQE_DONE && !failed)
            return;
        if (failed || qp->sq_sig_all || (w->send_flags & IBV_SEND_SIGNALED)) {
            struct ibv_wc wc;

            memset(&wc, 0, sizeof(wc));
            wc.wr_id = w->wr_id;
            wc.status = failed ? w->status : IBV_WC_SUCCESS;
            wc.opcode = sib_wc_opcode(w->opcode);
            wc.qp_num = qp->ex.qp_base.qp_num;
            if (w->opcode == IBV_WR_RDMA_READ)
                wc.byte_len = w->length;
            else if (w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
                     w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
                wc.byte_len = 8;
            sib_cq_push(qp->send_cq, &wc, false);
        }
        qp->sq_head = (qp->sq_head + 1) % qp->sq_cap;
        qp->sq_count--;
        qp->sq_next--;
        if (failed) {
            sib_qp_to_error(qp);
            return;
        }
    }
}

/* every live WQE completes with IBV_WC_WR_FLUSH_ERR (called on ERR) */
void sib_sq_flush(struct sib_qp *qp)
{
    while (qp->sq_count) {
        struct sib_swqe *w = sq_at(qp, 0);
        struct ibv_wc wc;

        memset(&wc, 0, sizeof(wc));
        wc.wr_id = w->wr_id;
        wc.status = IBV_WC_WR_FLUSH_ERR;
        wc.opcode = sib_wc_opcode(w->opcode);
        wc.qp_num = qp->ex.qp_base.qp_num;
        if (w->state == SWQE_INFLIGHT && qp->inflight) {
            qp->inflight--;
            qp->dev->inflight_total--;
        }
        sib_cq_push(qp->send_cq, &wc, false);
        qp->sq_head = (qp->sq_head + 1) % qp->sq_cap;
        qp->sq_count--;
    }
    qp->sq_next = 0;
    qp->inflight = 0;
}

/* when the oldest unacknowledged message times out; 0 = never */
static uint64_t sib_deadline(const struct sib_qp *qp, const struct sib_swqe *w)
{
    uint64_t t = sib_timeout_ns(qp->attr.timeout);

    if (!w->deadline_ns || !t)
        return 0;
    return qp->progress_ns + t > w->deadline_ns ? qp->progress_ns + t
                                                : w->deadline_ns;
}

static void sib_fail(struct sib_qp *qp, struct sib_swqe *w,
                     enum ibv_wc_status st)
{
    if (w->state == SWQE_INFLIGHT && qp->inflight) {
        qp->inflight--;
        qp->dev->inflight_total--;
    }
    w->state = SWQE_FAILED;
    w->status = st;
}

/* ------------------------------------------------------------ local buffers */

/* translate the sges of w; false when one fails the lkey/bounds/access check */
static bool sib_resolve(struct sib_qp *qp, struct sib_swqe *w,
                        struct iovec *iov, int *n_p)
{
    int need = sib_needs_response(w->opcode) ? IBV_ACCESS_LOCAL_WRITE : 0;
    int n = 0;

    if (w->inline_data) {
        iov[0].iov_base = w->inline_data;
        iov[0].iov_len = w->length;
        *n_p = w->length ? 1 : 0;
        return true;
    }
    for (int i = 0; i < w->num_sge; i++) {
        void *va;

        if (!w->sge[i].length)
            continue;
        va = sib_mr_local(qp->dev, (struct sib_pd *)qp->ex.qp_base.pd,
                          w->sge[i].lkey, w->sge[i].addr, w->sge[i].length,
                          need);
        if (!va)
            return false;
        iov[n].iov_base = va;
        iov[n].iov_len = w->sge[i].length;
        n++;
    }
    *n_p = n;
    return true;
}

/* the part [off, off + len) of a gather list */
static int sib_iov_slice(const struct iovec *iov, int n, size_t off, size_t len,
                         struct iovec *out)
{
    int k = 0;

    for (int i = 0; i < n && len; i++) {
        if (off >= iov[i].iov_len) {
            off -= iov[i].iov_len;
            continue;
        }
        out[k].iov_base = (char *)iov[i].iov_base + off;
        out[k].iov_len = iov[i].iov_len - off < len ? iov[i].iov_len - off : len;
        len -= out[k].iov_len;
        off = 0;
        k++;
    }
    return k;
}

/* ------------------------------------------------------------ one-sided */

/* Bytes [from, to) of a gather list, by one process_vm_writev to rva + from.
 * The bytes written, or -1 and errno. */
static ssize_t cma_write_range(pid_t pid, const struct iovec *iov, int n, char *rva, size_t from,
                               size_t to)
{
    struct iovec part[SIB_MAX_SGE], remote = {rva + from, to - from};
    int np = sib_iov_slice(iov, n, from, to - from, part);

    return process_vm_writev(pid, part, (unsigned long)np, &remote, 1, 0);
}

/* An RDMA Write into another process by CMA, placed in order as an HCA
 * places it: a poller that sees the last bytes sees all the others
 * (eager-RDMA rings, ours and openib's, poll a footer). One
 * process_vm_writev does not give that: the kernel copies with a string
 * move whose stores may become visible out of order, also within a short
 * one (a 64-byte line of zeros seen under a written footer; and with the
 * last 8 bytes in a call of their own, the 4 before a 4-byte footer stale
 * under it, in 12 of 160 runs of tests/integration/unexpected over verbs).
 * The stores of one call are all visible before any of a later one, so the
 * write goes in up to three calls: all but the last SIB_WRITE_TAIL bytes
 * (a footer word), then that word but its last byte, then the last byte
 * (a flag byte, as openib's). */
static ssize_t sib_cma_write(pid_t pid, const struct iovec *iov, int n, void *rva, size_t len)
{
    size_t cut[3] = {len > SIB_WRITE_TAIL ? len - SIB_WRITE_TAIL : 0, len > 1 ? len - 1 : 0, len};
    size_t from = 0, done = 0;

    for (int k = 0; k < 3; k++) {
        ssize_t w;

        if (cut[k] <= from)
            continue;
        w = cma_write_range(pid, iov, n, rva, from, cut[k]);
        if (w < 0)
            return done > 0 ? (ssize_t)done : -1;
        done += (size_t)w;
        if ((size_t)w != cut[k] - from)
            return (ssize_t)done;
        from = cut[k];
    }
    return (ssize_t)done;
}

static bool sib_direct(struct sib_qp *qp, struct sib_swqe *w,
                       const struct iovec *iov, int n)
{
    struct sib_dev *dev = qp->dev;
    struct sib_peer *p;
    struct sib_shared_qp *rq;
    struct iovec remote;
    uint64_t rva;
    ssize_t got;
    int need;

    /* Not for a WQE sent before (SWQE_RESEND, after a timeout or a NAK):
     * its first packet may still wait at the responder, which would then
     * place it after this direct write and after the writes that follow
     * it (their cells already reused by the peer; a ring message read
     * with an old one's bytes). It goes again by its PSN, so the
     * responder takes it once, in order. qp->inflight covers the rest. */
    if (!dev->cma || dev->cma_broken || qp->inflight || w->state == SWQE_RESEND ||
        qp->ex.qp_base.qp_type != IBV_QPT_RC || w->length == 0 ||
        (w->opcode != IBV_WR_RDMA_WRITE && w->opcode != IBV_WR_RDMA_READ))
        return false;
    if (w->dst_slot == dev->slot || dev->fault.delay_ns ||
        dev->fault.cut_slot >= 0 || dev->fault.rnr_count)
        return false;
    p = sib_peer_get(dev, (uint16_t)w->dst_slot);
    if (!p || !p->shared || p->is_tcp ||
        !atomic_load_explicit(&p->shared->alive, memory_order_relaxed))
        return false;
    rq = &p->shared->qp[SIB_IDX_OF(w->dst_qpn)];
    need = w->opcode == IBV_WR_RDMA_WRITE ? IBV_ACCESS_REMOTE_WRITE
                                          : IBV_ACCESS_REMOTE_READ;
    if (atomic_load_explicit(&rq->qpn, memory_order_acquire) != w->dst_qpn)
        return false;
    {
        uint32_t st = atomic_load_explicit(&rq->state, memory_order_relaxed);

        if ((st != IBV_QPS_RTR && st != IBV_QPS_RTS) ||
            rq->remote_slot != dev->slot ||
            rq->remote_qpn != qp->ex.qp_base.qp_num ||
            (rq->access & (uint32_t)need) != (uint32_t)need)
            return false;
    }
    if (!sib_shared_mr_check(p->shared, rq->pd_id, w->dst_qpn, w->rkey, w->raddr,
                             w->length, need, &rva))
        return false;
    remote.iov_base = (void *)(uintptr_t)rva;
    remote.iov_len = w->length;
    if (w->opcode == IBV_WR_RDMA_WRITE)
        got = sib_cma_write(p->pid, iov, n, remote.iov_base, w->length);
    else
        got = process_vm_readv(p->pid, iov, (unsigned long)n, &remote, 1, 0);
    if (got < 0 && (errno == EPERM || errno == ENOSYS))
        dev->cma_broken = true; /* ptrace rules: use the socket path */
    return got == (ssize_t)w->length;
}

/* ------------------------------------------------------------ transmit */

static uint16_t sib_wqe_slot(const struct sib_qp *qp, const struct sib_swqe *w)
{
    (void)qp;
    return (uint16_t)w->dst_slot;
}

static void sib_transmit(struct sib_qp *qp, struct sib_swqe *w,
                         const struct iovec *iov, int n)
{
    struct sib_pkt_hdr h;
    struct iovec part[SIB_MAX_SGE];
    uint32_t off = 0;

    memset(&h, 0, sizeof(h));
    h.src_qpn = qp->ex.qp_base.qp_num;
    h.dst_qpn = w->dst_qpn;
    h.psn = w->psn;
    h.total = w->length;
    h.rkey = w->rkey;
    h.raddr = w->raddr;
    h.imm = w->imm;
    h.qkey_srqn = w->srqn;
    if (qp->ex.qp_base.qp_type == IBV_QPT_XRC_SEND)
        h.flags |= SIB_F_XRC;
    if (w->send_flags & IBV_SEND_SOLICITED)
        h.flags |= SIB_F_SOLICITED;
    if (qp->ack_pending) { /* our peer's ACK rides along */
        h.flags |= SIB_F_ACK;
        h.ack_psn = qp->ack_psn;
        qp->ack_pending = false;
    }
    switch (w->opcode) {
    case IBV_WR_SEND_WITH_INV:
        h.flags |= SIB_F_INV; /* h.rkey: the key the responder invalidates */
        h.op = SIB_OP_SEND;
        break;
    case IBV_WR_SEND_WITH_IMM:
        h.flags |= SIB_F_IMM;
        /* fall through */
    case IBV_WR_SEND:
        h.op = qp->ex.qp_base.qp_type == IBV_QPT_UD ? SIB_OP_UD_SEND : SIB_OP_SEND;
        if (h.op == SIB_OP_UD_SEND) {
            h.qkey_srqn = w->qkey;
            if (w->grh)
                h.flags |= SIB_F_GRH;
        }
        break;
    case IBV_WR_RDMA_WRITE_WITH_IMM:
        h.flags |= SIB_F_IMM;
        /* fall through */
    case IBV_WR_RDMA_WRITE:
        h.op = SIB_OP_WRITE;
        break;
    case IBV_WR_RDMA_READ:
        h.op = SIB_OP_READ_REQ;
        h.flags |= SIB_F_LAST;
        sib_wire_send(qp->dev, sib_wqe_slot(qp, w), &h, NULL, 0);
        return;
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
        h.flags |= SIB_F_FETCH_ADD;
        /* fall through */
    default:
        h.op = SIB_OP_ATOMIC_REQ;
        h.flags |= SIB_F_LAST;
        h.compare_add = w->compare_add;
        h.swap = w->swap;
        h.total = 8;
        sib_wire_send(qp->dev, sib_wqe_slot(qp, w), &h, NULL, 0);
        return;
    }
    do {
        uint32_t len = w->length - off < SIB_FRAG ? w->length - off : SIB_FRAG;
        int k = sib_iov_slice(iov, n, off, len, part);

        h.offset = off;
        h.len = len;
        h.flags = (uint8_t)((h.flags & ~SIB_F_LAST) |
                            (off + len == w->length ? SIB_F_LAST : 0));
        sib_wire_send(qp->dev, sib_wqe_slot(qp, w), &h, part, k);
        h.flags &= (uint8_t)~SIB_F_ACK;
        off += len;
    } while (off < w->length);
}

/* send what is queued, if the QP may send now */
static void sib_kick(struct sib_qp *qp)
{
    struct sib_dev *dev = qp->dev;
    struct ibv_qp *q = &qp->ex.qp_base;

    if (q->state != IBV_QPS_RTS)
        return;
    if (qp->rnr_wait_until) {
        if (sib_now_ns() < qp->rnr_wait_until)
            return;
        qp->rnr_wait_until = 0;
    }
    while (qp->sq_next < qp->sq_count) {
        struct sib_swqe *w = sq_at(qp, qp->sq_next);
        struct iovec iov[SIB_MAX_SGE];
        int n = 0;

        if (w->state == SWQE_FAILED)
            return; /* nothing after a failed WQE is sent */
        qp->sq_next++;
        if (w->state == SWQE_DONE)
            continue;
        if (sib_is_local_op(w->opcode)) { /* done here, in queue order */
            enum ibv_wc_status st = w->opcode == IBV_WR_BIND_MW
                                        ? sib_mw_bind(dev, qp, w)
                                        : sib_mw_local_inv(dev, qp, w->rkey);

            if (st != IBV_WC_SUCCESS) {
                sib_fail(qp, w, st);
                break;
            }
            w->state = SWQE_DONE;
            continue;
        }
        if (!sib_resolve(qp, w, iov, &n)) {
            sib_fail(qp, w, IBV_WC_LOC_PROT_ERR);
            break;
        }
        if (q->qp_type == IBV_QPT_UD) {
            uint32_t mtu = 128u << (sib_link_is_eth() ? IBV_MTU_1024 : IBV_MTU_4096);

            if (w->length > mtu) {
                sib_fail(qp, w, IBV_WC_LOC_LEN_ERR);
                break;
            }
            sib_transmit(qp, w, iov, n);
            w->state = SWQE_DONE; /* unreliable: done once on the wire */
            continue;
        }
        if (sib_direct(qp, w, iov, n)) {
            dev->stats.direct++;
            w->state = SWQE_DONE;
            continue;
        }
        if (w->state == SWQE_POSTED) {
            w->psn = qp->next_psn;
            qp->next_psn = psn_add(qp->next_psn, 1);
        }
        w->state = SWQE_INFLIGHT;
        w->read_got = 0;
        {
            uint64_t t = sib_timeout_ns(qp->attr.timeout);

            w->deadline_ns = t ? sib_now_ns() + t : 0;
            if (w->deadline_ns && (!dev->next_timer_ns ||
                                   w->deadline_ns < dev->next_timer_ns))
                dev->next_timer_ns = w->deadline_ns;
        }
        qp->inflight++;
        dev->inflight_total++;
        sib_transmit(qp, w, iov, n);
    }
}

void sib_send_progress(struct sib_qp *qp)
{
    sib_kick(qp);
    sib_retire(qp);
}

/* go back to the oldest unacknowledged message and send it all again */
static void sib_go_back(struct sib_qp *qp)
{
    for (uint32_t i = 0; i < qp->sq_next; i++) {
        struct sib_swqe *w = sq_at(qp, i);

        if (w->state == SWQE_INFLIGHT) {
            for (uint32_t j = i; j < qp->sq_next; j++) {
                struct sib_swqe *x = sq_at(qp, j);

                if (x->state == SWQE_INFLIGHT) {
                    x->state = SWQE_RESEND;
                    qp->inflight--;
                    qp->dev->inflight_total--;
                }
            }
            qp->sq_next = i;
            return;
        }
    }
}

/* ------------------------------------------------------------ post_send */

static int sib_check_wr(struct sib_qp *qp, const struct ibv_send_wr *wr,
                        bool verb_bind)
{
    enum ibv_qp_type t = qp->ex.qp_base.qp_type;
    uint64_t len = 0;

    if (wr->opcode == IBV_WR_BIND_MW || wr->opcode == IBV_WR_LOCAL_INV) {
        if (t != IBV_QPT_RC)
            return EINVAL;
        /* a type 1 window is bound by ibv_bind_mw only (IBTA 10.6.7.2) */
        if (wr->opcode == IBV_WR_BIND_MW &&
            (!wr->bind_mw.mw || wr->bind_mw.mw->context != qp->ex.qp_base.context ||
             (wr->bind_mw.mw->type == IBV_MW_TYPE_1) != verb_bind))
            return EINVAL;
        return 0;
    }
    if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->cap.max_send_sge)
        return EINVAL;
    for (int i = 0; i < wr->num_sge; i++)
        len += wr->sg_list[i].length;
    if (len > (1ull << 31))
        return EINVAL;
    if ((wr->send_flags & IBV_SEND_INLINE) && len > qp->cap.max_inline_data)
        return EINVAL;
    switch (wr->opcode) {
    case IBV_WR_SEND:
    case IBV_WR_SEND_WITH_IMM:
        break;
    case IBV_WR_SEND_WITH_INV:
        if (t == IBV_QPT_UD)
            return EINVAL;
        break;
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM:
    case IBV_WR_RDMA_READ:
        if (t == IBV_QPT_UD)
            return EINVAL;
        if (wr->opcode == IBV_WR_RDMA_READ && (wr->send_flags & IBV_SEND_INLINE))
            return EINVAL;
        break;
    case IBV_WR_ATOMIC_CMP_AND_SWP:
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
        if (t == IBV_QPT_UD || wr->num_sge != 1 || len != 8 ||
            (wr->send_flags & IBV_SEND_INLINE) || (sib_caps_off() & SIB_CAP_NO_ATOMIC))
            return EINVAL;
        break;
    default:
        return EINVAL;
    }
    if (t == IBV_QPT_UD && !wr->wr.ud.ah)
        return EINVAL;
    return 0;
}

static void sib_fill_wqe(struct sib_qp *qp, struct sib_swqe *w,
                         const struct ibv_send_wr *wr)
{
    enum ibv_qp_type t = qp->ex.qp_base.qp_type;

    memset(w, 0, offsetof(struct sib_swqe, sge));
    w->wr_id = wr->wr_id;
    w->opcode = wr->opcode;
    w->send_flags = wr->send_flags;
    w->imm = wr->imm_data;
    w->num_sge = wr->num_sge;
    w->state = SWQE_POSTED;
    w->inline_data = NULL;
    w->length = 0;
    for (int i = 0; i < wr->num_sge; i++) {
        w->sge[i] = wr->sg_list[i];
        w->length += wr->sg_list[i].length;
    }
    w->mw = NULL;
    w->bind_mr = NULL;
    if (wr->opcode == IBV_WR_BIND_MW || wr->opcode == IBV_WR_LOCAL_INV) {
        w->num_sge = 0;
        w->length = 0;
        if (wr->opcode == IBV_WR_BIND_MW) {
            w->mw = wr->bind_mw.mw;
            w->rkey = wr->bind_mw.rkey;
            w->bind_mr = wr->bind_mw.bind_info.mr;
            w->raddr = wr->bind_mw.bind_info.addr;
            w->bind_len = wr->bind_mw.bind_info.length;
            w->bind_access = wr->bind_mw.bind_info.mw_access_flags;
        } else {
            w->rkey = wr->invalidate_rkey;
        }
        return;
    }
    if (wr->opcode == IBV_WR_SEND_WITH_INV)
        w->rkey = wr->invalidate_rkey;
    else if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
        wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
        w->raddr = wr->wr.atomic.remote_addr;
        w->rkey = wr->wr.atomic.rkey;
        w->compare_add = wr->wr.atomic.compare_add;
        w->swap = wr->wr.atomic.swap;
    } else {
        w->raddr = wr->wr.rdma.remote_addr;
        w->rkey = wr->wr.rdma.rkey;
    }
    if (t == IBV_QPT_UD) {
        struct sib_ah *ah = (struct sib_ah *)wr->wr.ud.ah;

        w->dst_slot = ah->slot;
        w->dst_qpn = wr->wr.ud.remote_qpn;
        /* a qkey with the high bit set means "use the QP's own" */
        w->qkey = (wr->wr.ud.remote_qkey & 0x80000000u) ? qp->attr.qkey
                                                        : wr->wr.ud.remote_qkey;
        w->grh = ah->attr.is_global;
    } else {
        const struct ibv_ah_attr *ah = &qp->attr.ah_attr;

        w->dst_qpn = qp->attr.dest_qp_num;
        w->dst_slot = ah->is_global
                          ? (uint32_t)(ah->grh.dgid.raw[14] << 8 | ah->grh.dgid.raw[15])
                          : ah->dlid;
        if (t == IBV_QPT_XRC_SEND) {
            w->srqn = wr->qp_type.xrc.remote_srqn;
            /* every request goes straight to the process owning the SRQ:
             * on a host whose processes share one HCA, RDMA reads and
             * writes reach any of them, checked against the named XRC
             * SRQ's PD (IBTA XRC annex) */
            w->dst_slot = SIB_SLOT_OF(w->srqn);
        }
    }
    if ((wr->send_flags & IBV_SEND_INLINE) && qp->inline_area) {
        uint32_t slot = (uint32_t)(w - qp->sq);
        uint8_t *dst = qp->inline_area + (size_t)slot * qp->cap.max_inline_data;
        uint32_t off = 0;

        for (int i = 0; i < wr->num_sge; i++) {
            if (!wr->sg_list[i].length)
                continue; /* UCX posts empty inline sges with address 0 */
            memcpy(dst + off, (void *)(uintptr_t)wr->sg_list[i].addr,
                   wr->sg_list[i].length);
            off += wr->sg_list[i].length;
        }
        w->inline_data = dst;
    } else if (wr->send_flags & IBV_SEND_INLINE) {
        w->send_flags &= ~(unsigned)IBV_SEND_INLINE; /* zero-length inline */
    }
}

static int sib_post(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
                    struct ibv_send_wr **bad, bool verb_bind);

int sib_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
                  struct ibv_send_wr **bad)
{
    return sib_post(ibqp, wr, bad, false);
}

int sib_post_send_bind(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
                       struct ibv_send_wr **bad)
{
    return sib_post(ibqp, wr, bad, true);
}

static int sib_post(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
                    struct ibv_send_wr **bad, bool verb_bind)
{
    struct sib_qp *qp = (struct sib_qp *)ibqp;
    struct sib_dev *dev = qp->dev;
    int rc = 0;

    if (dev->forked_away) {
        *bad = wr;
        return EPERM;
    }
    pthread_mutex_lock(&dev->lock);
    sib_touch(dev);
    if ((ibqp->state != IBV_QPS_RTS && ibqp->state != IBV_QPS_ERR) ||
        ibqp->qp_type == IBV_QPT_XRC_RECV) {
        *bad = wr;
        rc = EINVAL;
        goto out;
    }
    for (; wr; wr = wr->next) {
        if ((rc = sib_check_wr(qp, wr, verb_bind))) {
            *bad = wr;
            break;
        }
        if (qp->sq_count == qp->sq_cap) {
            *bad = wr;
            rc = ENOMEM;
            break;
        }
        sib_fill_wqe(qp, sq_at(qp, qp->sq_count), wr);
        qp->sq_count++;
        dev->stats.send_wr++;
    }
    if (ibqp->state == IBV_QPS_ERR)
        sib_sq_flush(qp);
    else
        sib_send_progress(qp);
out:
    pthread_mutex_unlock(&dev->lock);
    return rc;
}

/* ------------------------------------------------------------ responses */

/* An ACK or NAK from process `from`. XRC: the requests of one INI QP go to
 * the processes owning their SRQs, each answering for its own only (on an
 * HCA shared by those processes one TGT QP answers for all of them, in
 * order); a cumulative ACK from one must not complete another's. */
static void sib_ack_upto(struct sib_qp *qp, uint32_t psn, bool inclusive, uint32_t from)
{
    bool progress = false;
    bool xrc = qp->ex.qp_base.qp_type == IBV_QPT_XRC_SEND;

    for (uint32_t i = 0; i < qp->sq_next; i++) {
        struct sib_swqe *w = sq_at(qp, i);
        int32_t d = psn_diff(w->psn, psn);

        if (w->state != SWQE_INFLIGHT || (xrc && w->dst_slot != from))
            continue;
        if (d > 0 || (d == 0 && !inclusive))
            break;
        if (sib_needs_response(w->opcode) && d == 0)
            break; /* a read/atomic completes with its response */
        if (sib_needs_response(w->opcode))
            continue; /* its response is lost: retried on timeout */
        w->state = SWQE_DONE;
        qp->inflight--;
        qp->dev->inflight_total--;
        progress = true;
    }
    if (progress) {
        qp->retry_left = qp->attr.retry_cnt;
        qp->rnr_left = qp->attr.rnr_retry;
    }
}

static struct sib_swqe *sib_find_psn(struct sib_qp *qp, uint32_t psn)
{
    for (uint32_t i = 0; i < qp->sq_next; i++) {
        struct sib_swqe *w = sq_at(qp, i);

        if (w->state == SWQE_INFLIGHT && w->psn == psn)
            return w;
    }
    return NULL;
}

static void sib_place_read(struct sib_qp *qp, struct sib_swqe *w,
                           const struct sib_pkt_hdr *h, const uint8_t *payload)
{
    struct iovec iov[SIB_MAX_SGE], part[SIB_MAX_SGE];
    int n, k;
    size_t done = 0;

    if (h->offset != w->read_got || h->offset + h->len > w->length)
        return; /* out of order: the retry will bring it again */
    if (!sib_resolve(qp, w, iov, &n)) {
        sib_fail(qp, w, IBV_WC_LOC_PROT_ERR);
        return;
    }
    k = sib_iov_slice(iov, n, h->offset, h->len, part);
    for (int i = 0; i < k; i++) {
        memcpy(part[i].iov_base, payload + done, part[i].iov_len);
        done += part[i].iov_len;
    }
    w->read_got += h->len;
    if (w->read_got == w->length) {
        w->state = SWQE_DONE;
        qp->inflight--;
        qp->dev->inflight_total--;
    }
}

void sib_handle_ack(struct sib_dev *dev, const struct sib_pkt_hdr *h,
                    const uint8_t *payload)
{
    struct sib_qp *qp = sib_qp_lookup(dev, h->dst_qpn);
    struct sib_swqe *w;

    if (!qp || !sib_is_rc_like(qp) || qp->ex.qp_base.state != IBV_QPS_RTS)
        return;
    /* forward progress restarts the transport timer (IBTA 9.7.6.1.3) */
    if (qp->inflight)
        qp->progress_ns = sib_now_ns();
    switch (h->op) {
    case SIB_OP_ACK:
        sib_ack_upto(qp, h->psn, true, h->src_slot);
        break;
    case SIB_OP_READ_RESP:
        sib_ack_upto(qp, h->psn, false, h->src_slot);
        w = sib_find_psn(qp, h->psn);
        if (w && w->opcode == IBV_WR_RDMA_READ)
            sib_place_read(qp, w, h, payload);
        break;
    case SIB_OP_ATOMIC_RESP:
        sib_ack_upto(qp, h->psn, false, h->src_slot);
        w = sib_find_psn(qp, h->psn);
        if (w && sib_needs_response(w->opcode)) {
            struct iovec iov[SIB_MAX_SGE];
            int n;

            if (!sib_resolve(qp, w, iov, &n) || n != 1) {
                sib_fail(qp, w, IBV_WC_LOC_PROT_ERR);
            } else {
                uint64_t v = (sib_caps_off() & SIB_CAP_ATOMIC_BE) ? htobe64(h->compare_add)
                                                                   : h->compare_add;

                memcpy(iov[0].iov_base, &v, 8);
                w->state = SWQE_DONE;
                qp->inflight--;
                dev->inflight_total--;
            }
        }
        break;
    case SIB_OP_NAK:
        sib_ack_upto(qp, h->psn, false, h->src_slot);
        w = sib_find_psn(qp, h->psn);
        if (!w)
            break;
        if (h->syndrome == SIB_NAK_RNR) {
            if (qp->attr.rnr_retry != 7 && qp->rnr_left-- <= 0) {
                sib_fail(qp, w, IBV_WC_RNR_RETRY_EXC_ERR);
                break;
            }
            sib_hw_count(SIB_HW_RNR_NAK_RETRY);
            qp->rnr_wait_until = sib_now_ns() + sib_rnr_ns(h->rnr_timer);
            if (dev->next_timer_ns > qp->rnr_wait_until || !dev->next_timer_ns)
                dev->next_timer_ns = qp->rnr_wait_until;
            sib_go_back(qp);
        } else {
            sib_fail(qp, w, h->syndrome == SIB_NAK_REM_ACCESS ? IBV_WC_REM_ACCESS_ERR
                            : h->syndrome == SIB_NAK_INV_REQ ? IBV_WC_REM_INV_REQ_ERR
                                                             : IBV_WC_REM_OP_ERR);
        }
        break;
    default:
        return;
    }
    sib_send_progress(qp);
}

/* ------------------------------------------------------------ timers */

void sib_send_timers(struct sib_dev *dev)
{
    uint64_t now = sib_now_ns(), next = UINT64_MAX;

    for (uint32_t i = 1; i <= SIB_MAX_IDX; i++) {
        struct sib_qp *qp = dev->qps[i];

        if (!qp || !sib_is_rc_like(qp) || qp->ex.qp_base.state != IBV_QPS_RTS)
            continue;
        if (qp->rnr_wait_until) {
            if (now >= qp->rnr_wait_until)
                sib_send_progress(qp);
            else if (qp->rnr_wait_until < next)
                next = qp->rnr_wait_until;
        }
        if (!qp->inflight)
            continue;
        for (uint32_t j = 0; j < qp->sq_next; j++) {
            struct sib_swqe *w = sq_at(qp, j);

            if (w->state != SWQE_INFLIGHT)
                continue;
            if (sib_deadline(qp, w) && now >= sib_deadline(qp, w)) {
                if (qp->retry_left-- <= 0) {
                    sib_fail(qp, w, IBV_WC_RETRY_EXC_ERR);
                } else {
                    sib_hw_count(SIB_HW_LOCAL_ACK_TIMEOUT);
                    sib_go_back(qp);
                }
                sib_send_progress(qp);
            }
            break; /* only the oldest message's timer runs */
        }
        /* what is left to wait for */
        if (qp->rnr_wait_until && qp->rnr_wait_until < next)
            next = qp->rnr_wait_until;
        for (uint32_t j = 0; qp->inflight && j < qp->sq_next; j++) {
            struct sib_swqe *w = sq_at(qp, j);

            if (w->state == SWQE_INFLIGHT) {
                if (sib_deadline(qp, w) && sib_deadline(qp, w) < next)
                    next = sib_deadline(qp, w);
                break;
            }
        }
    }
    dev->next_timer_ns = next == UINT64_MAX ? 0 : next;
}

/* ------------------------------------------------------------ ibv_qp_ex */

static struct sib_qp *qpx(struct ibv_qp_ex *x)
{
    return (struct sib_qp *)x;
}

static struct sib_exwr *sib_ex_new(struct ibv_qp_ex *x, enum ibv_wr_opcode op)
{
    struct sib_qp *qp = qpx(x);
    struct sib_exwr *e;

    if (qp->ex_n == qp->ex_cap) {
        int cap = qp->ex_cap ? qp->ex_cap * 2 : 16;
        struct sib_exwr *l = realloc(qp->ex_list, (size_t)cap * sizeof(*l));

        if (!l) {
            qp->ex_err = ENOMEM;
            return NULL;
        }
        qp->ex_list = l;
        qp->ex_cap = cap;
    }
    e = &qp->ex_list[qp->ex_n++];
    memset(e, 0, sizeof(*e));
    e->wr.wr_id = x->wr_id;
    e->wr.send_flags = x->wr_flags;
    e->wr.opcode = op;
    return e;
}

static struct sib_exwr *sib_ex_cur(struct ibv_qp_ex *x)
{
    struct sib_qp *qp = qpx(x);

    if (!qp->ex_n) {
        qp->ex_err = EINVAL;
        return NULL;
    }
    return &qp->ex_list[qp->ex_n - 1];
}

static void ex_start(struct ibv_qp_ex *x)
{
    qpx(x)->ex_n = 0;
    qpx(x)->ex_err = 0;
    qpx(x)->ex_inline_used = 0;
}

static int ex_complete(struct ibv_qp_ex *x)
{
    struct sib_qp *qp = qpx(x);
    struct ibv_send_wr *bad;
    int rc = qp->ex_err;

    if (!rc && qp->ex_n) {
        for (int i = 0; i < qp->ex_n; i++) {
            struct sib_exwr *e = &qp->ex_list[i];

            e->wr.sg_list = e->sge;
            if (e->inl)
                e->sge[0].addr = (uint64_t)(uintptr_t)(qp->ex_inline + e->inl_off);
            e->wr.next = i + 1 < qp->ex_n ? &qp->ex_list[i + 1].wr : NULL;
        }
        rc = sib_post_send(&x->qp_base, &qp->ex_list[0].wr, &bad);
    }
    qp->ex_n = 0;
    return rc;
}

static void ex_abort(struct ibv_qp_ex *x)
{
    qpx(x)->ex_n = 0;
}

static void ex_send(struct ibv_qp_ex *x)
{
    sib_ex_new(x, IBV_WR_SEND);
}

static void ex_send_imm(struct ibv_qp_ex *x, __be32 imm)
{
    struct sib_exwr *e = sib_ex_new(x, IBV_WR_SEND_WITH_IMM);

    if (e)
        e->wr.imm_data = imm;
}

static void ex_rdma(struct ibv_qp_ex *x, enum ibv_wr_opcode op, uint32_t rkey,
                    uint64_t addr, __be32 imm)
{
    struct sib_exwr *e = sib_ex_new(x, op);

    if (e) {
        e->wr.wr.rdma.rkey = rkey;
        e->wr.wr.rdma.remote_addr = addr;
        e->wr.imm_data = imm;
    }
}

static void ex_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
    ex_rdma(x, IBV_WR_RDMA_WRITE, rkey, addr, 0);
}

static void ex_write_imm(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr,
                         __be32 imm)
{
    ex_rdma(x, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, addr, imm);
}

static void ex_read(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
    ex_rdma(x, IBV_WR_RDMA_READ, rkey, addr, 0);
}

static void ex_cmp_swp(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr,
                       uint64_t compare, uint64_t swap)
{
    struct sib_exwr *e = sib_ex_new(x, IBV_WR_ATOMIC_CMP_AND_SWP);

    if (e) {
        e->wr.wr.atomic.rkey = rkey;
        e->wr.wr.atomic.remote_addr = addr;
        e->wr.wr.atomic.compare_add = compare;
        e->wr.wr.atomic.swap = swap;
    }
}

static void ex_fetch_add(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr,
                         uint64_t add)
{
    ex_cmp_swp(x, rkey, addr, add, 0);
    if (qpx(x)->ex_n)
        qpx(x)->ex_list[qpx(x)->ex_n - 1].wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
}

static void ex_send_inv(struct ibv_qp_ex *x, uint32_t rkey)
{
    struct sib_exwr *e = sib_ex_new(x, IBV_WR_SEND_WITH_INV);

    if (e)
        e->wr.invalidate_rkey = rkey;
}

static void ex_local_inv(struct ibv_qp_ex *x, uint32_t rkey)
{
    struct sib_exwr *e = sib_ex_new(x, IBV_WR_LOCAL_INV);

    if (e)
        e->wr.invalidate_rkey = rkey;
}

static void ex_bind_mw(struct ibv_qp_ex *x, struct ibv_mw *mw, uint32_t rkey,
                       const struct ibv_mw_bind_info *info)
{
    struct sib_exwr *e = sib_ex_new(x, IBV_WR_BIND_MW);

    if (e) {
        e->wr.bind_mw.mw = mw;
        e->wr.bind_mw.rkey = rkey;
        e->wr.bind_mw.bind_info = *info;
    }
}

static void ex_set_ud_addr(struct ibv_qp_ex *x, struct ibv_ah *ah,
                           uint32_t remote_qpn, uint32_t remote_qkey)
{
    struct sib_exwr *e = sib_ex_cur(x);

    if (e) {
        e->wr.wr.ud.ah = ah;
        e->wr.wr.ud.remote_qpn = remote_qpn;
        e->wr.wr.ud.remote_qkey = remote_qkey;
    }
}

static void ex_set_xrc_srqn(struct ibv_qp_ex *x, uint32_t srqn)
{
    struct sib_exwr *e = sib_ex_cur(x);

    if (e)
        e->wr.qp_type.xrc.remote_srqn = srqn;
}

static void ex_set_sge_list(struct ibv_qp_ex *x, size_t n,
                            const struct ibv_sge *sg)
{
    struct sib_exwr *e = sib_ex_cur(x);

    if (!e)
        return;
    if (n > SIB_MAX_SGE) {
        qpx(x)->ex_err = EINVAL;
        return;
    }
    if (n)
        memcpy(e->sge, sg, n * sizeof(*sg));
    e->wr.num_sge = (int)n;
}

static void ex_set_sge(struct ibv_qp_ex *x, uint32_t lkey, uint64_t addr,
                       uint32_t length)
{
    struct ibv_sge s = {.addr = addr, .length = length, .lkey = lkey};

    ex_set_sge_list(x, 1, &s);
}

static void ex_set_inline_list(struct ibv_qp_ex *x, size_t n,
                               const struct ibv_data_buf *b)
{
    struct sib_qp *qp = qpx(x);
    struct sib_exwr *e = sib_ex_cur(x);
    size_t len = 0;

    if (!e)
        return;
    for (size_t i = 0; i < n; i++)
        len += b[i].length;
    if (qp->ex_inline_used + len > qp->ex_inline_cap) {
        size_t cap = (qp->ex_inline_used + len) * 2 + 256;
        uint8_t *p = realloc(qp->ex_inline, cap);

        if (!p) {
            qp->ex_err = ENOMEM;
            return;
        }
        qp->ex_inline = p;
        qp->ex_inline_cap = cap;
    }
    e->inl = true;
    e->inl_off = qp->ex_inline_used;
    for (size_t i = 0; i < n; i++) {
        if (b[i].length) /* an empty buffer may have a NULL address */
            memcpy(qp->ex_inline + qp->ex_inline_used, b[i].addr, b[i].length);
        qp->ex_inline_used += b[i].length;
    }
    e->sge[0].length = (uint32_t)len;
    e->wr.num_sge = 1;
    e->wr.send_flags |= IBV_SEND_INLINE;
}

static void ex_set_inline(struct ibv_qp_ex *x, void *addr, size_t length)
{
    struct ibv_data_buf b = {.addr = addr, .length = length};

    ex_set_inline_list(x, 1, &b);
}

void sib_qp_ex_init(struct sib_qp *qp)
{
    struct ibv_qp_ex *x = &qp->ex;

    x->wr_start = ex_start;
    x->wr_complete = ex_complete;
    x->wr_abort = ex_abort;
    x->wr_send = ex_send;
    x->wr_send_imm = ex_send_imm;
    x->wr_rdma_write = ex_write;
    x->wr_rdma_write_imm = ex_write_imm;
    x->wr_rdma_read = ex_read;
    x->wr_atomic_cmp_swp = ex_cmp_swp;
    x->wr_atomic_fetch_add = ex_fetch_add;
    x->wr_send_inv = ex_send_inv;
    x->wr_local_inv = ex_local_inv;
    x->wr_bind_mw = ex_bind_mw;
    x->wr_set_ud_addr = ex_set_ud_addr;
    x->wr_set_xrc_srqn = ex_set_xrc_srqn;
    x->wr_set_sge = ex_set_sge;
    x->wr_set_sge_list = ex_set_sge_list;
    x->wr_set_inline_data = ex_set_inline;
    x->wr_set_inline_data_list = ex_set_inline_list;
}
