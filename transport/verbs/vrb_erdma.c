/*
 * verbs: the eager RDMA fast path. A rank that receives many small
 * messages from a peer gives that peer a ring in its own memory; the peer
 * then writes each small message after the previous one with one RDMA Write
 * (inline when it fits) and this rank finds it by polling where the next
 * one starts, with no receive work request, no SRQ buffer and no completion.
 *
 * Setup (adaptive, bounded): after RTM_VERBS_ERDMA_THRESHOLD small messages
 * from a peer, and while fewer than RTM_VERBS_ERDMA_PEERS rings exist, the
 * receiver registers a ring as its own MR (LOCAL_WRITE | REMOTE_WRITE, exactly
 * the ring), allows RDMA Write on the RC QP of that one peer (the other QPs
 * stay read-only for peers), and sends the address, rkey and geometry in a
 * VRB_AM_RING_OFFER over that QP: the rkey reaches that peer only (the PMIx
 * modex is readable by every rank). See docs/transports/verbs.md.
 *
 * Order. Both paths share the RC QP, so the wire keeps the sender's order;
 * the receiver finds ring messages by polling and Sends in the CQ, and
 * re-establishes the order from two counts: each message carries the number of
 * Sends posted before it (it waits until this rank has received that many),
 * and each Send carries, as immediate data, the number of ring writes posted
 * before it (those are delivered first; RC ordering has placed them).
 *
 * Space: the ring is nslots x slot_size bytes, cut in 64-byte cells, and a
 * message takes only the cells its write needs (vrb.h): slot_size bounds one
 * message, not what each takes, so one ring holds thousands of tiny
 * messages or a few of the largest.
 *
 * Flow control: the writer holds one credit per free cell; the receiver
 * hands freed cells back in the header of whatever it sends the peer (Send
 * or its own ring write) or, once it owes half the ring, in a
 * VRB_AM_RING_CREDIT message. Out of cells, or a message too large for a
 * write, goes by Send/Recv; the counts keep the order.
 */
#include "config.h"

#include "transport/verbs/vrb.h"
#include "common/error.h"
#include "common/log.h"
#include "transport/verbs/vrb_config.h"
#include "common/timer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERDMA_DRAIN_TIMEOUT 1.0   /* seconds a Send may wait for a ring write before it */

rtm_status_t vrb_erdma_open(vrb_iface_t *iface)
{
    long thr = rtm_verbs_config.erdma_threshold;
    long peers = rtm_verbs_config.erdma_peers;
    long slots = rtm_verbs_config.erdma_slots;
    size_t size = rtm_verbs_config.erdma_slot_size;
    size_t payload;

    /* the rows' ranges hold (rtm_verbs_config.c): 2..1024 slots of 64..8K */
    /* a power of two (the rule the offer's reader checks too) */
    if ((slots & (slots - 1)) != 0)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "RTM_VERBS_ERDMA_SLOTS=%ld: expected a power "
                             "of two in 2..1024", slots);
    if (size % 64 != 0)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "RTM_VERBS_ERDMA_SLOT_SIZE=%zu: expected "
                             "64..8192, a multiple of 64", size);
    if (thr == 0 || peers == 0)
        return RTM_OK;
    if (rtm_verbs_config.xrc) {
        /* XRC receives through a target QP shared by the ranks of a host:
         * a per-peer write permission does not exist there. */
        rtm_debug("verbs: eager RDMA is off with XRC");
        return RTM_OK;
    }
    if (peers > iface->world_size - 1)
        peers = iface->world_size - 1;
    /* what fits a slot, a bounce buffer (non-inline writes) and am_max */
    payload = size - VRB_RING_OVERHEAD;
    if (payload > iface->buf_size - VRB_RING_OVERHEAD)
        payload = iface->buf_size - VRB_RING_OVERHEAD;
    if (payload > iface->am_max)
        payload = iface->am_max;
    payload &= ~(size_t)3;
    iface->erdma_rx = calloc((size_t)peers, sizeof(*iface->erdma_rx));
    iface->erdma_want = calloc((size_t)peers, sizeof(*iface->erdma_want));
    if (iface->erdma_rx == NULL || iface->erdma_want == NULL) {
        free(iface->erdma_rx);
        free(iface->erdma_want);
        iface->erdma_rx = NULL;
        iface->erdma_want = NULL;
        return rtm_error_set(RTM_ERR_NO_MEMORY, "verbs: no memory for %ld eager RDMA rings",
                             peers);
    }
    iface->erdma_max = (int)peers;
    iface->erdma_payload = payload;
    iface->erdma_threshold = (uint32_t)thr;
    return RTM_OK;
}

void vrb_erdma_close(vrb_iface_t *iface)
{
    for (int i = 0; i < iface->world_size && iface->eps != NULL; i++)
        if (iface->eps[i].etx_nslots != 0)
            rtm_debug("verbs: rank %d wrote %u messages into the eager RDMA ring of rank %d",
                      iface->world_rank, iface->eps[i].etx_seq, i);
    for (int i = 0; i < iface->erdma_nrx; i++) {
        vrb_ering_t *r = iface->erdma_rx[i];

        rtm_debug("verbs: rank %d: eager RDMA ring of rank %d: %u messages by RDMA Write, "
                  "%u by Send/Recv in between", iface->world_rank, r->ep->super.peer, r->seq, r->sends);
        if (r->mr != NULL)
            ibv_dereg_mr(r->mr);
        r->ep->erx = NULL;
        free(r->buf);
        free(r);
    }
    iface->erdma_nrx = 0;
    iface->erdma_nwant = 0;
    free(iface->erdma_rx);
    free(iface->erdma_want);
    iface->erdma_rx = NULL;
    iface->erdma_want = NULL;
}

/* Hot path (from recv_done, once per peer): no allocation, lock or log. */
void vrb_erdma_want(vrb_ep_t *ep)
{
    vrb_iface_t *iface = vrb_ep_iface(ep);

    if (ep->erx == NULL && iface->erdma_nrx + iface->erdma_nwant < iface->erdma_max)
        iface->erdma_want[iface->erdma_nwant++] = ep->super.peer;
}

/* Register a ring for ep and open its QP to RDMA Write. Slow path (once per
 * peer). A failure only keeps that peer on Send/Recv. */
static void ring_setup(vrb_iface_t *iface, vrb_ep_t *ep)
{
    size_t slot_size = rtm_verbs_config.erdma_slot_size;
    uint32_t nslots = (uint32_t)rtm_verbs_config.erdma_slots;
    size_t len = slot_size * nslots;
    struct ibv_qp_attr a;
    vrb_ering_t *r;
    const char *what;
    int err;

    r = calloc(1, sizeof(*r));
    if (r == NULL)
        goto err_log_nomem;
    r->buf = aligned_alloc(4096, (len + 4095) / 4096 * 4096);
    if (r->buf == NULL)
        goto err_free_ring;
    memset(r->buf, 0, len);     /* seq 0 everywhere: no cell looks written */
    /* its own MR, exactly the ring, writable by the peer and nothing else */
    r->mr = ibv_reg_mr(iface->pd, r->buf, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (r->mr == NULL) {
        what = "ibv_reg_mr";
        err = errno;
        goto err_free_buf;
    }
    /* RDMA Write on this peer's QP only; peers still only read rendezvous
     * buffers (those MRs have no REMOTE_WRITE either). */
    memset(&a, 0, sizeof(a));
    a.qp_access_flags = (unsigned)(ep->qp_access | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
    if (ibv_modify_qp(ep->qp, &a, IBV_QP_ACCESS_FLAGS) != 0) {
        what = "ibv_modify_qp (access flags)";
        err = errno;
        goto err_dereg_mr;
    }
    ep->qp_access = (int)a.qp_access_flags;
    r->ep = ep;
    r->nslots = nslots;
    r->slot_size = (uint32_t)slot_size;
    r->ncells = (uint32_t)(len / VRB_RING_CELL);
    ep->erx = r;
    iface->erdma_rx[iface->erdma_nrx++] = r;
    if (ep->rx_sends > 0)
        iface->send_peers--;    /* its small messages come by ring from now */
    rtm_debug("verbs: rank %d gives rank %d (%s) an eager RDMA ring: %u x %zu B, rkey 0x%x",
              iface->world_rank, ep->super.peer, ep->host, nslots, slot_size, r->mr->rkey);
    return;

err_dereg_mr:
    ibv_dereg_mr(r->mr);
err_free_buf:
    free(r->buf);
    free(r);
    rtm_warn("verbs: rank %d (%s): no eager RDMA ring for rank %d (%s): %s: %s; its small "
             "messages keep using Send/Recv", iface->world_rank, iface->host, ep->super.peer,
             ep->host, what, strerror(err));
    return;
err_free_ring:
    free(r);
err_log_nomem:
    rtm_warn("verbs: rank %d (%s): no memory for an eager RDMA ring for rank %d; its small "
             "messages keep using Send/Recv", iface->world_rank, iface->host, ep->super.peer);
}

/* Post the offer of r to its peer (it takes a transport credit). */
static void ring_offer(vrb_ering_t *r)
{
    vrb_ep_t *ep = r->ep;
    vrb_ring_offer_t o;

    if (ep->tx_credits <= 0 || ep->sq_head - ep->sq_tail >= VRB_SQ_DEPTH)
        return;                 /* at a later progress */
    memset(&o, 0, sizeof(o));
    o.addr = (uintptr_t)r->buf;
    o.rkey = r->mr->rkey;
    o.slot_size = (uint16_t)r->slot_size;
    o.nslots = (uint16_t)r->nslots;
    if (vrb_post_am(ep, VRB_AM_RING_OFFER, NULL, 0, &o, sizeof(o)) == RTM_OK) {
        ep->tx_credits--;
        r->offered = 1;
    }
}

static void __attribute__((noreturn)) ring_fatal(vrb_ep_t *ep, const char *what)
{
    struct ibv_wc fake;

    memset(&fake, 0, sizeof(fake));
    fake.status = IBV_WC_GENERAL_ERR;
    fake.wr_id = VRB_WR_RECV_BIT;
    fake.qp_num = ep->qp != NULL ? ep->qp->qp_num : 0;
    vrb_wc_fatal(vrb_ep_iface(ep), &fake, what);
}

/* Deliver the next message of r if it is complete (and, unless `drain`,
 * no Send of the peer precedes it). 1: delivered.
 * Hot path: no allocation, lock or log. */
static int ring_take(vrb_ering_t *r, int drain)
{
    vrb_ep_t *ep = r->ep;
    vrb_iface_t *iface = vrb_ep_iface(ep);
    uint32_t next = vrb_ring_next_seq(r->seq);
    uint32_t at = r->pos, skipped = 0, len, foot, cells;
    vrb_ring_hdr_t *h = (vrb_ring_hdr_t *)(void *)(r->buf + (size_t)at * VRB_RING_CELL);
    char *slot;
    uint8_t am_id;

    if (__atomic_load_n(&h->seq, __ATOMIC_ACQUIRE) != next) {
        /* nothing here: did the writer wrap to the ring's start? */
        if (at == 0)
            return 0;
        h = (vrb_ring_hdr_t *)(void *)r->buf;
        if (__atomic_load_n(&h->seq, __ATOMIC_ACQUIRE) != next)
            return 0;
        skipped = r->ncells - at;
        at = 0;
    }
    slot = (char *)h;
    len = h->len;
    if (__builtin_expect(len > r->slot_size - VRB_RING_OVERHEAD, 0))
        ring_fatal(ep, "an eager RDMA message with a bad length");
    cells = vrb_ring_cells(len);
    if (__builtin_expect(at + cells > r->ncells, 0))
        ring_fatal(ep, "an eager RDMA message past the ring's end");
    /* the footer is the last word of the write: the message is complete */
    foot = __atomic_load_n((uint32_t *)(void *)(slot + sizeof(*h) + ((len + 3) & ~3u)),
                           __ATOMIC_ACQUIRE);
    if (foot != next)
        return 0;
    if (h->sends_before != ep->rx_sends) {
        /* a Send posted before this write is not delivered yet: the CQ
         * will bring it (while draining for a Send this cannot happen) */
        if (__builtin_expect(drain, 0))
            ring_fatal(ep, "eager RDMA messages out of order with Sends");
        iface->cq_due = 1;
        return 0;
    }
    am_id = h->am_id;
    if (__builtin_expect(am_id >= RTM_TL_AM_ID_MAX, 0))
        ring_fatal(ep, "an eager RDMA message with a bad AM id");
    ep->tx_credits += h->credits;
    ep->etx_credits += h->ring_credits;
    /* before the callback: it may send (and piggy-back) */
    r->seq = next;
    r->pos = at + cells == r->ncells ? 0 : at + cells;
    iface->am_cb(iface->am_arg, ep->super.peer, am_id, slot + sizeof(*h), len);
    /* no cell start keeps a sequence number; then the writer may reuse them */
    for (uint32_t i = 0; i < cells; i++)
        __atomic_store_n((uint32_t *)(void *)(slot + (size_t)i * VRB_RING_CELL), 0,
                         __ATOMIC_RELAXED);
    r->owed += cells + skipped;
    return 1;
}

/* Hot path: no allocation, lock or log (a missing write is fatal). */
void vrb_erdma_drain(vrb_ep_t *ep, uint32_t writes)
{
    vrb_ering_t *r = ep->erx;
    double deadline = 0;

    if (__builtin_expect(r == NULL, 0))
        ring_fatal(ep, "a Send announced eager RDMA writes but no ring was offered");
    r->sends++;
    while (r->seq != writes) {
        if (ring_take(r, 1))
            continue;
        /* RC places a write before the Send that follows it; wait a
         * little in case the memory is not visible yet, then give up */
        if (deadline == 0)
            deadline = rtm_time_now() + ERDMA_DRAIN_TIMEOUT;
        else if (rtm_time_now() > deadline)
            ring_fatal(ep, "a Send overtook an eager RDMA write before it");
    }
}

/* A VRB_AM_RING_OFFER from ep: write small messages into its ring from now. */
void vrb_erdma_offer_recv(vrb_ep_t *ep, const void *data, size_t len)
{
    vrb_iface_t *iface = vrb_ep_iface(ep);
    vrb_ring_offer_t o;
    size_t payload;

    if (len != sizeof(o))
        ring_fatal(ep, "a malformed eager RDMA offer");
    memcpy(&o, data, sizeof(o));
    if (o.nslots < 2 || (o.nslots & (o.nslots - 1)) != 0 || o.slot_size < 64 ||
        o.slot_size % VRB_RING_CELL != 0 || ep->etx_nslots != 0)
        ring_fatal(ep, "a malformed eager RDMA offer");
    payload = o.slot_size - VRB_RING_OVERHEAD;
    if (payload > iface->buf_size - VRB_RING_OVERHEAD)
        payload = iface->buf_size - VRB_RING_OVERHEAD;   /* what a bounce buffer holds */
    if (payload > iface->am_max)
        payload = iface->am_max;
    ep->etx_addr = o.addr;
    ep->etx_rkey = o.rkey;
    ep->etx_seq = 0;
    ep->etx_ncells = (uint32_t)o.nslots * o.slot_size / VRB_RING_CELL;
    ep->etx_pos = 0;
    ep->etx_payload = payload & ~(size_t)3;
    ep->etx_credits = (int)ep->etx_ncells;
    ep->etx_nslots = o.nslots;   /* from now on our Sends carry the write count */
    rtm_debug("verbs: rank %d writes small messages to rank %d (%s) by RDMA: %u x %u B ring",
              iface->world_rank, ep->super.peer, ep->host, o.nslots, o.slot_size);
}

/* One small message into the peer's ring after the previous one (or at its
 * start when it does not fit before the end), by one RDMA Write.
 * Hot path: no allocation, lock or log. */
rtm_status_t vrb_erdma_send(vrb_ep_t *ep, uint8_t am_id, const void *hdr, size_t hdr_len,
                            const void *payload, size_t len)
{
    vrb_iface_t *iface = vrb_ep_iface(ep);
    size_t total = hdr_len + len;
    size_t padded = (total + 3) & ~(size_t)3;
    size_t wlen = sizeof(vrb_ring_hdr_t) + padded + 4;
    uint64_t inline_buf[VRB_MAX_INLINE / 8];
    uint32_t seq = vrb_ring_next_seq(ep->etx_seq);
    uint32_t cells = vrb_ring_cells(total), at = ep->etx_pos, need = cells;
    int owed = ep->credits_owed > 0xffff ? 0xffff : ep->credits_owed;
    uint32_t ring_owed = ep->erx != NULL ? vrb_erdma_owed(ep->erx, 0xffff) : 0;
    struct ibv_send_wr wr;
    struct ibv_sge sge;
    vrb_ring_hdr_t *h;
    char *buf, *bounce;
    rtm_status_t status;

    if (at + cells > ep->etx_ncells) {
        need += ep->etx_ncells - at;    /* the cells left at the end go unused */
        at = 0;
    }
    memset(&wr, 0, sizeof(wr));
    if (wlen <= iface->max_inline) {
        buf = (char *)inline_buf;
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
    h = (vrb_ring_hdr_t *)(void *)buf;
    h->seq = seq;
    h->sends_before = ep->tx_sends;
    h->len = (uint16_t)total;
    h->am_id = am_id;
    h->pad = 0;
    h->credits = (uint16_t)owed;
    h->ring_credits = (uint16_t)ring_owed;
    if (hdr_len > 0)
        memcpy(buf + sizeof(*h), hdr, hdr_len);
    if (len > 0)
        memcpy(buf + sizeof(*h) + hdr_len, payload, len);
    memset(buf + sizeof(*h) + total, 0, padded - total);
    memcpy(buf + sizeof(*h) + padded, &seq, 4);     /* footer */
    sge.addr = (uintptr_t)buf;
    sge.length = (uint32_t)wlen;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.wr.rdma.remote_addr = ep->etx_addr + (uint64_t)at * VRB_RING_CELL;
    wr.wr.rdma.rkey = ep->etx_rkey;
    status = vrb_post_wr(ep, &wr, bounce);
    if (status != RTM_OK)
        return status;
    ep->etx_seq = seq;
    ep->etx_pos = at + cells == ep->etx_ncells ? 0 : at + cells;
    ep->etx_credits -= (int)need;
    ep->credits_owed -= owed;
    if (ring_owed != 0)
        vrb_erdma_owed_sent(ep->erx, ring_owed);
    return RTM_OK;
}

/* Rings set up for peers over the threshold (slow path, once per peer). */
static void setup_wanted(vrb_iface_t *iface)
{
    int keep = 0;

    for (int i = 0; i < iface->erdma_nwant; i++) {
        vrb_ep_t *ep = &iface->eps[iface->erdma_want[i]];

        if (ep->erx != NULL)
            continue;
        if (!ep->connected || ep->qp == NULL) {
            iface->erdma_want[keep++] = ep->super.peer;    /* on demand: not yet */
            continue;
        }
        ring_setup(iface, ep);
    }
    iface->erdma_nwant = keep;
}

/* Hot path: no allocation, lock or log. */
int vrb_erdma_progress(vrb_iface_t *iface)
{
    int n = 0;

    if (__builtin_expect(iface->erdma_nwant > 0, 0))
        setup_wanted(iface);
    for (int i = 0; i < iface->erdma_nrx; i++) {
        vrb_ering_t *r = iface->erdma_rx[i];
        vrb_ep_t *ep = r->ep;

        while (ring_take(r, 0))
            n++;
        if (__builtin_expect(iface->quiet, 0))
            continue;
        if (__builtin_expect(!r->offered, 0)) {
            ring_offer(r);
        } else if (__builtin_expect(r->owed >= r->ncells / 2, 0) && ep->tx_credits > 0 &&
                   ep->sq_head - ep->sq_tail < VRB_SQ_DEPTH) {
            /* nothing of ours carried them back lately: say so explicitly,
             * all of them in the payload (the header's field is 8 bits) */
            uint32_t cells = r->owed;

            r->owed = 0;
            if (vrb_post_am(ep, VRB_AM_RING_CREDIT, NULL, 0, &cells, sizeof(cells)) == RTM_OK)
                ep->tx_credits--;
            else
                r->owed = cells;
        }
    }
    return n;
}
