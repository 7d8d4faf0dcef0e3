/*
 * verbs: one-sided memory semantics (the contract's mem_expose, mem_key,
 * mem_revoke, put, atomic, flush; get is vrb_rndv.c's RDMA Read).
 *
 * Exposure, least privilege:
 *   - with type 2 memory windows (IBV_DEVICE_MEM_WINDOW_TYPE_2B, not XRC,
 *     RTM_VERBS_MW=1): one MR with IBV_ACCESS_MW_BIND (and LOCAL_WRITE only
 *     when a peer may write or do atomics), which itself grants no remote
 *     access at all, and one type 2 window per peer, bound by an
 *     IBV_WR_BIND_MW on that peer's QP with exactly the rights asked. A
 *     type 2 window is usable only through the QP it was bound on, so a key
 *     is worth nothing to any other rank. mem_revoke posts IBV_WR_LOCAL_INV
 *     of each window on its QP and waits for it: from its return, a peer
 *     using the key gets a remote access error.
 *   - otherwise: one MR per region with exactly the remote rights asked
 *     (every listed peer gets its rkey); mem_revoke deregisters it. The
 *     MR admits any QP of the PD, so write and atomic rights are refused
 *     (RTM_ERR_NOT_SUPPORTED: the runtime exposes for reading, the caller
 *     uses messages) unless RTM_VERBS_MR_WRITE=1 (docs/transports/verbs.md
 *     says what then holds and what does not).
 *   The QP of each listed peer also gets the remote access flags asked
 *   (the responder checks them before the MR or window), and at revoke
 *   loses those no live exposure (or eager RDMA ring) needs any more.
 *
 * Operations: put = one IBV_WR_RDMA_WRITE (inline when small, else from a
 * registration cache entry), atomic = one IBV_WR_ATOMIC_FETCH_AND_ADD or
 * IBV_WR_ATOMIC_CMP_AND_SWP into a per-peer result word, each signaled;
 * its completion (RC: acknowledged by the target, so the data is there)
 * calls the comp. They take send-queue slots like any WR (RTM_ERR_AGAIN
 * when the queue to that peer is full). flush is a counter check of the
 * puts and atomics to that peer (not of gets: the runtime counts its
 * one-sided gets itself, and rendezvous reads are none of flush's
 * business). A failed completion ends the job through vrb_wc_fatal,
 * naming both ranks, hosts, QPs and the status (IBV_WC_REM_ACCESS_ERR:
 * "remote access error").
 */
#include "config.h"

#include "transport/verbs/vrb.h"
#include "transport/verbs/vrb_config.h"
#include "transport/verbs/vrb_rcache.h"
#include "common/error.h"
#include "common/log.h"
#include "common/timer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One peer of an exposure: its window and the key it is sent. */
typedef struct vrb_xpeer {
    vrb_ep_t      *ep;
    struct ibv_mw *mw;            /* NULL: the MR's rkey */
    uint32_t       rkey;
    int            bound;
    int            counted;       /* in ep->xwrite / xatomic */
} vrb_xpeer_t;

typedef struct vrb_expo {
    rtm_list_t     link;          /* in iface->exposures */
    struct ibv_mr *mr;
    void          *addr;
    size_t         len;
    unsigned       rights;
    int            use_mw;
    int            npeers;
    vrb_xpeer_t    peers[];
} vrb_expo_t;

static int remote_access_of(unsigned rights)
{
    return ((rights & RTM_TL_RIGHT_READ) ? IBV_ACCESS_REMOTE_READ : 0) |
           ((rights & RTM_TL_RIGHT_WRITE) ? IBV_ACCESS_REMOTE_WRITE : 0) |
           ((rights & RTM_TL_RIGHT_ATOMIC) ? IBV_ACCESS_REMOTE_ATOMIC : 0);
}

rtm_status_t vrb_ep_qp_allow(vrb_ep_t *ep, int access)
{
    struct ibv_qp_attr a;

    if ((ep->qp_access & access) == access)
        return RTM_OK;
    if (ep->qp == NULL || vrb_ep_iface(ep)->xrc)
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "verbs: no queue pair of rank %d's to "
                             "grant remote access flags 0x%x to", ep->super.peer, access);
    memset(&a, 0, sizeof(a));
    a.qp_access_flags = (unsigned)(ep->qp_access | access);
    if (ibv_modify_qp(ep->qp, &a, IBV_QP_ACCESS_FLAGS) != 0)
        return rtm_error_set(RTM_ERR_TRANSPORT, "verbs: QP 0x%x (rank %d, %s): access flags "
                             "0x%x: %s", ep->qp->qp_num, ep->super.peer, ep->host,
                             a.qp_access_flags, strerror(errno));
    ep->qp_access = (int)a.qp_access_flags;
    return RTM_OK;
}

/* Post one signaled one-sided WR (kind VRB_SLOT_*), accounted in ep's send
 * queue; the caller checked there is room. Hot path for put and atomic: no
 * allocation, lock or log. */
static rtm_status_t rma_post(vrb_ep_t *ep, struct ibv_send_wr *wr, uint8_t kind,
                             rtm_tl_comp_t *comp, uint64_t *result, vrb_rc_entry_t *e)
{
    vrb_sq_slot_t *slot = &ep->slots[ep->sq_head % VRB_SQ_DEPTH];
    struct ibv_send_wr *bad;
    int err;

    slot->bounce = NULL;
    slot->get = NULL;
    slot->kind = kind;
    slot->comp = comp;
    slot->result = result;
    slot->rc_entry = e;
    wr->wr_id = vrb_wr_id(ep, ep->sq_head);
    wr->send_flags |= IBV_SEND_SIGNALED;
    wr->qp_type.xrc.remote_srqn = ep->r_srqn;   /* XRC: the peer's SRQ; RC ignores it */
    if (__builtin_expect(ibv_post_send(ep->qp, wr, &bad) != 0, 0)) {
        err = errno;
        slot->kind = VRB_SLOT_SEND;
        slot->comp = NULL;
        slot->result = NULL;
        slot->rc_entry = NULL;
        return rtm_error_set(RTM_ERR_TRANSPORT, "verbs: ibv_post_send to rank %d (%s, QP 0x%x): "
                             "%s", ep->super.peer, ep->host, ep->qp->qp_num, strerror(err));
    }
    ep->sq_head++;
    ep->sq_unsignaled = 0;
    return RTM_OK;
}

void vrb_rma_slot_done(vrb_ep_t *ep, vrb_sq_slot_t *slot, uint64_t seq)
{
    rtm_tl_comp_t *comp = slot->comp;

    if (slot->rc_entry != NULL)
        vrb_rcache_put(vrb_ep_iface(ep)->rcache, slot->rc_entry);
    if (slot->kind == VRB_SLOT_ATOMIC && slot->result != NULL) {
        uint64_t v = ep->atomic_res[seq % VRB_SQ_DEPTH];

        *slot->result = vrb_ep_iface(ep)->atomic_order == VRB_ATOMIC_SWAPPED
                        ? __builtin_bswap64(v) : v;
    }
    slot->kind = VRB_SLOT_SEND;
    slot->comp = NULL;
    slot->result = NULL;
    slot->rc_entry = NULL;
    ep->rma_inflight--;
    if (comp != NULL)
        comp->cb(comp, RTM_OK);
}

/* Room for one more WR to ep, connecting first on demand. RTM_ERR_AGAIN:
 * not yet. */
static inline rtm_status_t rma_room(vrb_ep_t *ep)
{
    if (__builtin_expect(!ep->connected, 0))
        return vrb_conn_start(ep);
    if (__builtin_expect(ep->sq_head - ep->sq_tail >= VRB_SQ_DEPTH, 0))
        return RTM_ERR_AGAIN;
    return RTM_OK;
}

/* Slow path (expose, revoke): drive progress until WR number seq of ep (a
 * bind or a local invalidate) is retired. One that has not completed after
 * the connection timeout is still queued, naming the window and its
 * region: freeing them would leave the HCA a WR that binds or invalidates
 * freed (and maybe reused) objects. So the QP is moved to the error state
 * (the HCA executes nothing more from it) and the job ends here, naming
 * the peer, with the objects left as they are (vrb_fatal does not return;
 * the region is in no list vrb_rma_close walks). */
static void sq_wait(vrb_ep_t *ep, uint64_t seq, const char *what)
{
    vrb_iface_t *iface = vrb_ep_iface(ep);
    double end = rtm_time_now() + iface->conn_timeout;

    while (ep->sq_tail <= seq) {
        vrb_progress(&iface->super);
        if (rtm_time_now() > end) {
            struct ibv_qp_attr a;
            char msg[512];

            memset(&a, 0, sizeof(a));
            a.qp_state = IBV_QPS_ERR;
            (void)ibv_modify_qp(ep->qp, &a, IBV_QP_STATE);
            snprintf(msg, sizeof(msg), "rank %d (%s): verbs %s on QP 0x%x to rank %d (%s) did "
                     "not complete in %.0f s (RTM_VERBS_CONNECT_TIMEOUT): the send queue to "
                     "that rank does not move (a peer that stopped answering?); the work "
                     "request still names the memory window and its region, so neither can "
                     "be freed: the queue pair is put in error and the job ends",
                     iface->world_rank, iface->host, what, ep->qp->qp_num, ep->super.peer,
                     ep->host, iface->conn_timeout);
            vrb_fatal(iface, ep, msg);
        }
    }
}

/* Slow path: connect ep (on demand) and wait for send-queue room. */
static rtm_status_t ep_ready(vrb_ep_t *ep)
{
    vrb_iface_t *iface = vrb_ep_iface(ep);
    double end = rtm_time_now() + iface->conn_timeout + 1.0;
    rtm_status_t status;

    while ((status = rma_room(ep)) == RTM_ERR_AGAIN) {
        vrb_progress(&iface->super);
        if (rtm_time_now() > end)
            return rtm_error_set(RTM_ERR_TIMEOUT, "rank %d (%s): verbs: no connection to rank "
                                 "%d (%s) after %.0f s", iface->world_rank, iface->host,
                                 ep->super.peer, ep->host, iface->conn_timeout);
    }
    return status;
}

/* Slow path (revoke): the QP of ep keeps only the remote access flags
 * something still needs -- reads (rendezvous), writes while a live exposure
 * grants them or an eager RDMA ring of ours is written by the peer, atomics
 * while a live exposure grants them -- so a peer whose exposures all ended
 * cannot write or do atomics here with any key, guessed or leaked. */
static void qp_narrow(vrb_iface_t *iface, vrb_ep_t *ep)
{
    int want = IBV_ACCESS_REMOTE_READ |
               (ep->xwrite > 0 || ep->erx != NULL ? IBV_ACCESS_REMOTE_WRITE : 0) |
               (ep->xatomic > 0 ? IBV_ACCESS_REMOTE_ATOMIC : 0);
    struct ibv_qp_attr a;

    if (ep->qp_access == want || ep->qp == NULL || iface->xrc || !ep->connected)
        return;
    memset(&a, 0, sizeof(a));
    a.qp_access_flags = (unsigned)want;
    if (ibv_modify_qp(ep->qp, &a, IBV_QP_ACCESS_FLAGS) != 0) {
        rtm_warn("rank %d (%s): verbs: QP 0x%x (rank %d, %s): cannot take remote access flags "
                 "back (0x%x -> 0x%x): %s", iface->world_rank, iface->host, ep->qp->qp_num,
                 ep->super.peer, ep->host, ep->qp_access, want, strerror(errno));
        return;
    }
    ep->qp_access = want;
}

static void expo_free(vrb_iface_t *iface, vrb_expo_t *x, int invalidate)
{
    for (int i = 0; i < x->npeers; i++) {
        vrb_xpeer_t *p = &x->peers[i];

        if (p->counted) {
            p->ep->xwrite -= (x->rights & RTM_TL_RIGHT_WRITE) ? 1 : 0;
            p->ep->xatomic -= (x->rights & RTM_TL_RIGHT_ATOMIC) ? 1 : 0;
            p->counted = 0;
            if (invalidate)
                qp_narrow(iface, p->ep);
        }
        if (p->mw == NULL)
            continue;
        if (p->bound && invalidate && p->ep->connected && p->ep->qp != NULL &&
            ep_ready(p->ep) == RTM_OK) {
            struct ibv_send_wr wr;
            uint64_t seq = p->ep->sq_head;

            memset(&wr, 0, sizeof(wr));
            wr.opcode = IBV_WR_LOCAL_INV;
            wr.invalidate_rkey = p->rkey;
            if (rma_post(p->ep, &wr, VRB_SLOT_INV, NULL, NULL, NULL) == RTM_OK) {
                sq_wait(p->ep, seq, "memory window invalidate");
            } else {
                rtm_warn("%s; the window is deallocated instead", rtm_last_error());
            }
        }
        if (ibv_dealloc_mw(p->mw) != 0)
            rtm_warn("rank %d (%s): verbs: ibv_dealloc_mw for rank %d: %s", iface->world_rank,
                     iface->host, p->ep->super.peer, strerror(errno));
        p->mw = NULL;
    }
    if (x->mr != NULL && ibv_dereg_mr(x->mr) != 0)
        rtm_warn("rank %d (%s): verbs: ibv_dereg_mr of an exposed region (%zu B at %p): %s",
                 iface->world_rank, iface->host, x->len, x->addr, strerror(errno));
    free(x);
}

/* Bind p's window over x's MR on p's QP and wait for it. */
static rtm_status_t bind_one(vrb_iface_t *iface, vrb_expo_t *x, vrb_xpeer_t *p)
{
    struct ibv_send_wr wr;
    rtm_status_t status;
    uint64_t seq;

    p->mw = ibv_alloc_mw(iface->pd, IBV_MW_TYPE_2);
    if (p->mw == NULL)
        return rtm_error_set(RTM_ERR_TRANSPORT, "rank %d (%s): verbs: ibv_alloc_mw (type 2) for "
                             "rank %d: %s", iface->world_rank, iface->host, p->ep->super.peer,
                             strerror(errno));
    status = ep_ready(p->ep);
    if (status != RTM_OK)
        return status;
    p->rkey = ibv_inc_rkey(p->mw->rkey);
    memset(&wr, 0, sizeof(wr));
    wr.opcode = IBV_WR_BIND_MW;
    wr.bind_mw.mw = p->mw;
    wr.bind_mw.rkey = p->rkey;
    wr.bind_mw.bind_info.mr = x->mr;
    wr.bind_mw.bind_info.addr = (uint64_t)(uintptr_t)x->addr;
    wr.bind_mw.bind_info.length = x->len;
    wr.bind_mw.bind_info.mw_access_flags = (unsigned)remote_access_of(x->rights);
    seq = p->ep->sq_head;
    status = rma_post(p->ep, &wr, VRB_SLOT_BIND, NULL, NULL, NULL);
    if (status != RTM_OK)
        return status;
    sq_wait(p->ep, seq, "memory window bind");
    p->bound = 1;
    return RTM_OK;
}

/* ---- atomics: the byte order of a fetched value ------------------------
 *
 * IB atomics work on 64-bit words in the target's memory, and the old value
 * comes back into the requester's buffer. Not every device writes it there
 * in host order: Mellanox Connect-IB/ConnectX-4 class devices reply
 * big-endian on little-endian hosts (MLNX_OFED's experimental verbs report
 * exp_atomic_cap IBV_EXP_ATOMIC_HCA_REPLY_BE, "HOST is LE and atomic reply
 * is BE"; UCX and Open MPI's openib swap such replies; libfabric documents
 * the limitation), while upstream mlx5 reports atomic_cap IBV_ATOMIC_HCA
 * only when the firmware replies in host order (atomic_req_8B_endianness_mode)
 * and IBV_ATOMIC_NONE otherwise; upstream mlx4 reports IBV_ATOMIC_HCA
 * whenever the device has atomics, and nothing in ibv_query_device says in
 * which order. So the transport does not trust a device list: at the first
 * atomic use (an atomic, or exposing a region for atomics), it runs one
 * fetch-and-add and one compare-and-swap through a queue pair connected to
 * itself on the same port, on a word of known asymmetric value, and learns
 * whether the old value lands as it was (host), byte-swapped, or otherwise;
 * and whether the word itself was updated in host order (else atomics are
 * "not available" on that device). docs/transports/verbs.md has the sources. */

#define VRB_PROBE_WORD 0x0102030405060708ull

/* Post one atomic on the self-connected qp and wait for its completion. */
static int probe_one(vrb_iface_t *iface, struct ibv_qp *qp, struct ibv_cq *cq,
                     struct ibv_mr *mr, uint64_t *w, struct ibv_send_wr *wr, const char **why)
{
    struct ibv_sge sge = {(uintptr_t)&w[1], 8, mr->lkey};
    struct ibv_send_wr *bad;
    struct ibv_wc wc;
    double end = rtm_time_now() + iface->conn_timeout;
    int n;

    wr->sg_list = &sge;
    wr->num_sge = 1;
    wr->send_flags = IBV_SEND_SIGNALED;
    wr->wr.atomic.remote_addr = (uintptr_t)&w[0];
    wr->wr.atomic.rkey = mr->rkey;
    if (ibv_post_send(qp, wr, &bad) != 0) {
        *why = "ibv_post_send of an atomic failed";
        return -1;
    }
    while ((n = ibv_poll_cq(cq, 1, &wc)) == 0) {
        if (rtm_time_now() > end) {
            *why = "the atomic did not complete (RTM_VERBS_CONNECT_TIMEOUT)";
            return -1;
        }
    }
    if (n < 0 || wc.status != IBV_WC_SUCCESS) {
        *why = n < 0 ? "ibv_poll_cq failed" : ibv_wc_status_str(wc.status);
        return -1;
    }
    return 0;
}

/* Slow path, once per interface: sets iface->atomic_order. */
static void atomic_probe(vrb_iface_t *iface)
{
    const uint64_t v = VRB_PROBE_WORD;
    struct ibv_qp_init_attr init;
    struct ibv_qp_attr a;
    struct ibv_send_wr wr;
    struct ibv_cq *cq = NULL;
    struct ibv_qp *qp = NULL;
    struct ibv_mr *mr = NULL;
    uint64_t *w = aligned_alloc(64, 64), fadd_old = 0, cas_old = 0, word = 0;
    const char *why = NULL;
    vrb_ep_t self;

    iface->atomic_order = VRB_ATOMIC_BROKEN;
    memset(&self, 0, sizeof(self));   /* ourselves, as a peer, for the QP helpers */
    self.super.peer = iface->world_rank;
    self.r_lid = iface->dev.lid;
    self.r_mtu = (uint8_t)iface->dev.mtu;
    memcpy(self.r_gid, iface->dev.gid.raw, 16);
    self.r_flags = iface->dev.gid_index >= 0 ? VRB_ADDR_F_GRH : 0;
    snprintf(self.host, sizeof(self.host), "%s", iface->host);
    if (w == NULL) {
        why = "no memory";
        goto out;
    }
    w[0] = v;
    w[1] = 0;
    mr = ibv_reg_mr(iface->pd, w, 64, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
    cq = ibv_create_cq(iface->dev.ctx, 2, NULL, NULL, 0);
    memset(&init, 0, sizeof(init));
    init.send_cq = init.recv_cq = cq;
    init.cap.max_send_wr = init.cap.max_recv_wr = 1;
    init.cap.max_send_sge = init.cap.max_recv_sge = 1;
    init.qp_type = IBV_QPT_RC;
    if (mr == NULL || cq == NULL || (qp = ibv_create_qp(iface->pd, &init)) == NULL) {
        why = "cannot make a registered word, a completion queue and a queue pair";
        goto out;
    }
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.port_num = iface->dev.port;
    a.qp_access_flags = IBV_ACCESS_REMOTE_ATOMIC;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                      IBV_QP_ACCESS_FLAGS) != 0 ||
        vrb_qp_rtr(iface, qp, &self, qp->qp_num, 0, 1) != RTM_OK ||
        vrb_qp_rts(iface, qp, &self, 0) != RTM_OK) {
        why = "cannot connect a queue pair to itself";
        goto out;
    }
    memset(&wr, 0, sizeof(wr));
    wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
    wr.wr.atomic.compare_add = 1;
    if (probe_one(iface, qp, cq, mr, w, &wr, &why) != 0)
        goto out;
    fadd_old = w[1];
    memset(&wr, 0, sizeof(wr));
    wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
    wr.wr.atomic.compare_add = v + 1;
    wr.wr.atomic.swap = v + 2;
    if (probe_one(iface, qp, cq, mr, w, &wr, &why) != 0)
        goto out;
    cas_old = w[1];
    word = w[0];
    if (word != v + 2)
        why = "the word was not updated in host order";
    else if (fadd_old == v && cas_old == v + 1)
        iface->atomic_order = VRB_ATOMIC_HOST;
    else if (fadd_old == __builtin_bswap64(v) && cas_old == __builtin_bswap64(v + 1))
        iface->atomic_order = VRB_ATOMIC_SWAPPED;
    else
        why = "the old values came back in neither host nor swapped order";
out:
    if (qp != NULL)
        ibv_destroy_qp(qp);
    if (cq != NULL)
        ibv_destroy_cq(cq);
    if (mr != NULL)
        ibv_dereg_mr(mr);
    free(w);
    if (iface->atomic_order == VRB_ATOMIC_BROKEN)
        rtm_info("rank %d (%s): verbs: atomics on %s are not available: the self-test failed: "
                 "%s (fetch-and-add of 1 to 0x%016llx returned 0x%016llx, compare-and-swap "
                 "0x%016llx, word now 0x%016llx)", iface->world_rank, iface->host,
                 iface->dev.name, why != NULL ? why : "?", (unsigned long long)v,
                 (unsigned long long)fadd_old, (unsigned long long)cas_old,
                 (unsigned long long)word);
    else
        rtm_debug("verbs: rank %d: atomic self-test on %s: the old value comes back %s",
                  iface->world_rank, iface->dev.name,
                  iface->atomic_order == VRB_ATOMIC_HOST ? "in host order"
                                                         : "byte-swapped (big-endian)");
}

/* Atomics usable on this interface's device (self-test on first use). */
static rtm_status_t atomics_usable(vrb_iface_t *iface)
{
    if (iface->dev.dev_attr.atomic_cap == IBV_ATOMIC_NONE)
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "verbs: %s does not do atomics "
                             "(atomic_cap IBV_ATOMIC_NONE)", iface->dev.name);
    if (iface->atomic_order == VRB_ATOMIC_UNTESTED)
        atomic_probe(iface);
    if (iface->atomic_order == VRB_ATOMIC_BROKEN)
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "verbs: atomics on %s are not available "
                             "(its self-test failed; see the info line)", iface->dev.name);
    return RTM_OK;
}

int vrb_rma_uses_mw(const vrb_iface_t *iface)
{
    return rtm_verbs_config.mw && !iface->xrc &&
           (iface->dev.dev_attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B) &&
           iface->dev.dev_attr.max_mw > 0;
}

rtm_status_t vrb_mem_expose(rtm_tl_iface_t *tl_iface, void *addr, size_t len, unsigned rights,
                            rtm_tl_ep_t *const *eps, int neps, rtm_tl_memh_t **memh_p)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);
    int remote, mr_access;
    rtm_status_t status;
    vrb_expo_t *x;

    if (iface == NULL || addr == NULL || len == 0 || rights == 0 ||
        (rights & ~(unsigned)RTM_TL_RIGHTS_ALL) != 0 || neps < 0 || (neps > 0 && eps == NULL) ||
        memh_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs mem_expose: bad arguments (%zu B at %p, "
                             "rights 0x%x, %d peers)", len, addr, rights, neps);
    for (int i = 0; i < neps; i++) {
        if (eps[i] == NULL || eps[i]->iface != tl_iface ||
            (eps[i]->peer == iface->world_rank && vrb_ep_of(eps[i])->qp == NULL))
            return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs mem_expose: peer %d is no endpoint "
                                 "of this interface (to another rank, or ep_loopback's)", i);
        for (int j = 0; j < i; j++)
            if (eps[j] == eps[i])
                return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs mem_expose: rank %d listed "
                                     "twice", eps[i]->peer);
    }
    if ((rights & RTM_TL_RIGHT_ATOMIC) && (status = atomics_usable(iface)) != RTM_OK)
        return status;
    if (iface->xrc && (rights & ~(unsigned)RTM_TL_RIGHT_READ))
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "verbs: with XRC, regions are exposed for "
                             "reading only (puts and atomics are not implemented there)");
    /* One MR per region: every listed peer gets the same rkey, and the MR
     * admits any QP of the PD whose access flags allow the operation. Its
     * write or atomic right would reach a rank outside the group that
     * learned or guessed the key and whose QP admits writes (an eager RDMA
     * peer, a peer of another region): refused unless asked for. */
    if (neps > 0 && !vrb_rma_uses_mw(iface) &&
        (rights & (RTM_TL_RIGHT_WRITE | RTM_TL_RIGHT_ATOMIC)) && !rtm_verbs_config.mr_write)
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "verbs: without type 2 memory windows, "
                             "regions are exposed for reading only: one memory region's key "
                             "could let a rank outside the group write it "
                             "(RTM_VERBS_MR_WRITE=1 allows it)");
    x = calloc(1, sizeof(*x) + (size_t)neps * sizeof(x->peers[0]));
    if (x == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "verbs mem_expose: no memory");
    rtm_list_init(&x->link);
    x->addr = addr;
    x->len = len;
    x->rights = rights;
    x->npeers = neps;
    x->use_mw = neps > 0 && vrb_rma_uses_mw(iface);
    remote = remote_access_of(rights);
    mr_access = (rights & (RTM_TL_RIGHT_WRITE | RTM_TL_RIGHT_ATOMIC)) ? IBV_ACCESS_LOCAL_WRITE : 0;
    /* the MR of a windowed region opens nothing by itself */
    mr_access |= x->use_mw ? IBV_ACCESS_MW_BIND : remote;
    x->mr = ibv_reg_mr(iface->pd, addr, len, mr_access);
    if (x->mr == NULL) {
        int err = errno;

        free(x);
        return rtm_error_set(err == ENOMEM || err == EAGAIN ? RTM_ERR_NO_MEMORY :
                             RTM_ERR_TRANSPORT, "rank %d (%s): verbs: ibv_reg_mr of %zu B at %p "
                             "(access 0x%x) to expose it: %s", iface->world_rank, iface->host,
                             len, addr, mr_access, strerror(err));
    }
    for (int i = 0; i < neps; i++) {
        vrb_xpeer_t *p = &x->peers[i];

        p->ep = vrb_ep_of(eps[i]);
        p->rkey = x->mr->rkey;
        /* the peer's QP must let it in (connect first, on demand); XRC:
         * only reads, which every TGT QP takes (vrb_xrc.c) */
        if (!iface->xrc && (p->ep->qp_access & remote) != remote &&
            ((status = ep_ready(p->ep)) != RTM_OK ||
             (status = vrb_ep_qp_allow(p->ep, remote)) != RTM_OK))
            goto err;
        if (!iface->xrc) {
            p->ep->xwrite += (rights & RTM_TL_RIGHT_WRITE) ? 1 : 0;
            p->ep->xatomic += (rights & RTM_TL_RIGHT_ATOMIC) ? 1 : 0;
            p->counted = 1;
        }
        if (x->use_mw && (status = bind_one(iface, x, p)) != RTM_OK)
            goto err;
    }
    rtm_list_push_tail(&iface->exposures, &x->link);
    rtm_debug("verbs: rank %d exposes %zu B at %p to %d peers, rights %s%s%s, by %s",
              iface->world_rank, len, addr, neps, (rights & RTM_TL_RIGHT_READ) ? "r" : "",
              (rights & RTM_TL_RIGHT_WRITE) ? "w" : "", (rights & RTM_TL_RIGHT_ATOMIC) ? "a" : "",
              x->use_mw ? "a type 2 window per peer" : "one MR");
    *memh_p = (rtm_tl_memh_t *)(void *)x;
    return RTM_OK;

err:
    expo_free(iface, x, 1);
    return status;
}

rtm_status_t vrb_mem_key(rtm_tl_memh_t *memh, rtm_tl_ep_t *ep, void *key, size_t *key_len_p)
{
    vrb_expo_t *x = (vrb_expo_t *)(void *)memh;

    if (x == NULL || ep == NULL || key == NULL || key_len_p == NULL ||
        *key_len_p < VRB_RKEY_LEN)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs mem_key: bad arguments");
    for (int i = 0; i < x->npeers; i++) {
        if (&x->peers[i].ep->super == ep) {
            memcpy(key, &x->peers[i].rkey, VRB_RKEY_LEN);
            *key_len_p = VRB_RKEY_LEN;
            return RTM_OK;
        }
    }
    return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs mem_key: rank %d is not a peer this region "
                         "was exposed to", ep->peer);
}

rtm_status_t vrb_mem_revoke(rtm_tl_iface_t *tl_iface, rtm_tl_memh_t *memh)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);
    vrb_expo_t *x = (vrb_expo_t *)(void *)memh;

    if (iface == NULL || x == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs mem_revoke: NULL argument");
    rtm_list_del(&x->link);
    expo_free(iface, x, 1);
    return RTM_OK;
}

rtm_status_t vrb_put(rtm_tl_ep_t *tl_ep, const void *local, size_t len, uint64_t remote_addr,
                     const void *rkey, size_t rkey_len, rtm_tl_comp_t *comp)
{
    vrb_ep_t *ep = vrb_ep_of(tl_ep);
    vrb_iface_t *iface;
    vrb_rc_entry_t *e = NULL;
    struct ibv_send_wr wr;
    struct ibv_sge sge;
    rtm_status_t status;
    uint32_t key;

    if (__builtin_expect(ep == NULL || (local == NULL && len > 0) || rkey == NULL ||
                         rkey_len != VRB_RKEY_LEN || comp == NULL || comp->cb == NULL, 0))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs put: bad arguments (len %zu, rkey %zu "
                             "bytes)", len, rkey_len);
    iface = vrb_ep_iface(ep);
    if (__builtin_expect(len > iface->dev.max_msg_sz, 0))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs put: %zu B exceed %s's largest "
                             "message (%u B)", len, iface->dev.name, iface->dev.max_msg_sz);
    status = rma_room(ep);
    if (status != RTM_OK)
        return status;
    memcpy(&key, rkey, VRB_RKEY_LEN);
    memset(&wr, 0, sizeof(wr));
    if (len <= iface->max_inline) {
        wr.send_flags = IBV_SEND_INLINE;
        sge.lkey = 0;
    } else {
        vrb_rcache_t *rc = vrb_rndv_rcache(iface);

        if (rc == NULL)
            return RTM_ERR_NO_MEMORY;
        /* the source of an RDMA Write needs no right: it may be read-only
         * memory, which an HCA refuses to register for local write */
        status = vrb_rcache_get(rc, (void *)(uintptr_t)local, len, 0, &e);
        if (status != RTM_OK)
            return status;
        sge.lkey = e->mr->lkey;
    }
    sge.addr = (uintptr_t)local;
    sge.length = (uint32_t)len;
    wr.sg_list = &sge;
    wr.num_sge = len > 0 ? 1 : 0;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.wr.rdma.remote_addr = remote_addr;
    wr.wr.rdma.rkey = key;
    status = rma_post(ep, &wr, VRB_SLOT_PUT, comp, NULL, e);
    if (__builtin_expect(status != RTM_OK, 0)) {
        if (e != NULL)
            vrb_rcache_put(iface->rcache, e);
        return status;
    }
    ep->rma_inflight++;
    iface->rma_wrs++;
    return RTM_OK;
}

/* Slow path, once per peer: the registered words atomic results land in,
 * one per send-queue slot. */
static rtm_status_t atomic_res_alloc(vrb_ep_t *ep)
{
    vrb_iface_t *iface = vrb_ep_iface(ep);
    size_t len = VRB_SQ_DEPTH * sizeof(uint64_t);

    ep->atomic_res = aligned_alloc(64, len);
    if (ep->atomic_res == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "verbs atomic: no memory");
    memset(ep->atomic_res, 0, len);
    ep->atomic_mr = ibv_reg_mr(iface->pd, ep->atomic_res, len, IBV_ACCESS_LOCAL_WRITE);
    if (ep->atomic_mr == NULL) {
        int err = errno;

        free(ep->atomic_res);
        ep->atomic_res = NULL;
        return rtm_error_set(RTM_ERR_TRANSPORT, "rank %d (%s): verbs: ibv_reg_mr of atomic "
                             "result words for rank %d: %s", iface->world_rank, iface->host,
                             ep->super.peer, strerror(err));
    }
    return RTM_OK;
}

rtm_status_t vrb_atomic(rtm_tl_ep_t *tl_ep, rtm_tl_atomic_op_t op, uint64_t operand,
                        uint64_t compare, uint64_t *result, uint64_t remote_addr,
                        const void *rkey, size_t rkey_len, rtm_tl_comp_t *comp)
{
    vrb_ep_t *ep = vrb_ep_of(tl_ep);
    vrb_iface_t *iface;
    struct ibv_send_wr wr;
    struct ibv_sge sge;
    rtm_status_t status;
    uint32_t key;

    if (__builtin_expect(ep == NULL || (op != RTM_TL_ATOMIC_FADD && op != RTM_TL_ATOMIC_CSWAP) ||
                         result == NULL || (remote_addr & 7) != 0 || rkey == NULL ||
                         rkey_len != VRB_RKEY_LEN || comp == NULL || comp->cb == NULL, 0))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs atomic: bad arguments (op %d, remote "
                             "address %#llx: 8-byte aligned?, rkey %zu bytes)", (int)op,
                             (unsigned long long)remote_addr, rkey_len);
    iface = vrb_ep_iface(ep);
    if (__builtin_expect(iface->atomic_order != VRB_ATOMIC_HOST &&
                         iface->atomic_order != VRB_ATOMIC_SWAPPED, 0) &&
        (status = atomics_usable(iface)) != RTM_OK)
        return status;
    status = rma_room(ep);
    if (status != RTM_OK)
        return status;
    if (__builtin_expect(ep->atomic_res == NULL, 0) && (status = atomic_res_alloc(ep)) != RTM_OK)
        return status;
    memcpy(&key, rkey, VRB_RKEY_LEN);
    sge.addr = (uintptr_t)&ep->atomic_res[ep->sq_head % VRB_SQ_DEPTH];
    sge.length = sizeof(uint64_t);
    sge.lkey = ep->atomic_mr->lkey;
    memset(&wr, 0, sizeof(wr));
    wr.sg_list = &sge;
    wr.num_sge = 1;
    if (op == RTM_TL_ATOMIC_FADD) {
        wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
        wr.wr.atomic.compare_add = operand;
    } else {
        wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
        wr.wr.atomic.compare_add = compare;
        wr.wr.atomic.swap = operand;
    }
    wr.wr.atomic.remote_addr = remote_addr;
    wr.wr.atomic.rkey = key;
    status = rma_post(ep, &wr, VRB_SLOT_ATOMIC, comp, result, NULL);
    if (__builtin_expect(status != RTM_OK, 0))
        return status;
    ep->rma_inflight++;
    iface->rma_wrs++;
    return RTM_OK;
}

rtm_status_t vrb_flush(rtm_tl_ep_t *tl_ep)
{
    vrb_ep_t *ep = vrb_ep_of(tl_ep);

    if (__builtin_expect(ep == NULL, 0))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs flush: NULL endpoint");
    return ep->rma_inflight == 0 ? RTM_OK : RTM_ERR_AGAIN;   /* puts and atomics only */
}

/* The loopback endpoint: eps[world_rank], a plain RC QP (XRC too: it
 * carries no messages) connected to itself on the same port, as the
 * atomic self-test's, feeding the interface's CQ (its WRs complete through
 * send_done like any peer's: wr_id names this rank). It takes no receives,
 * carries only one-sided WRs (put, atomic, bind, invalidate), and only
 * this process can use it: an RC QP accepts packets from its one remote
 * QP, itself. Slow path, once per interface. */
rtm_status_t vrb_ep_loopback(rtm_tl_iface_t *tl_iface, rtm_tl_ep_t **ep_p)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);
    struct ibv_qp_init_attr ia;
    struct ibv_qp_attr a;
    rtm_status_t status;
    vrb_ep_t *ep;

    if (iface == NULL || ep_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs ep_loopback: NULL argument");
    ep = &iface->eps[iface->world_rank];
    if (ep->qp != NULL) {
        if (!ep->connected)
            return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "rank %d (%s): verbs: the loopback "
                                 "queue pair did not connect", iface->world_rank, iface->host);
        *ep_p = &ep->super;
        return RTM_OK;
    }
    if ((status = vrb_ep_sq_reserve(iface, ep)) != RTM_OK)
        return status;
    memset(&ia, 0, sizeof(ia));
    ia.send_cq = iface->cq;
    ia.recv_cq = iface->cq;
    ia.qp_type = IBV_QPT_RC;
    ia.cap.max_send_wr = VRB_SQ_DEPTH;
    ia.cap.max_recv_wr = 1;
    ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
    ia.cap.max_inline_data = iface->max_inline;
    ep->qp = ibv_create_qp(iface->pd, &ia);
    if (ep->qp == NULL && iface->max_inline > 0) {
        ia.cap.max_inline_data = 0;
        ep->qp = ibv_create_qp(iface->pd, &ia);
    }
    if (ep->qp == NULL)
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "rank %d (%s): verbs: ibv_create_qp (RC, "
                             "loopback) on %s: %s", iface->world_rank, iface->host,
                             iface->dev.name, strerror(errno));
    if (ia.cap.max_inline_data < iface->max_inline)
        iface->max_inline = ia.cap.max_inline_data;
    iface->num_qps++;
    iface->num_sqs++;
    ep->r_lid = iface->dev.lid;
    ep->r_mtu = (uint8_t)iface->dev.mtu;
    memcpy(ep->r_gid, iface->dev.gid.raw, 16);
    ep->r_flags = iface->dev.gid_index >= 0 ? VRB_ADDR_F_GRH : 0;
    snprintf(ep->host, sizeof(ep->host), "%s", iface->host);
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.port_num = iface->dev.port;
    a.qp_access_flags = IBV_ACCESS_REMOTE_READ;
    if (ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                      IBV_QP_ACCESS_FLAGS) != 0 ||
        (status = vrb_qp_rtr(iface, ep->qp, ep, ep->qp->qp_num, 0, 1)) != RTM_OK ||
        (status = vrb_qp_rts(iface, ep->qp, ep, 0)) != RTM_OK)
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "rank %d (%s): verbs: cannot connect a "
                             "queue pair to itself on %s", iface->world_rank, iface->host,
                             iface->dev.name);
    ep->qp_access = IBV_ACCESS_REMOTE_READ;
    ep->remote_qpn = ep->qp->qp_num;
    ep->conn_state = VRB_EP_CONNECTED;
    ep->connected = 1;
    ep->in_use = 1;
    rtm_debug("verbs: rank %d: loopback QP 0x%x for one-sided operations on its own memory",
              iface->world_rank, ep->qp->qp_num);
    *ep_p = &ep->super;
    return RTM_OK;
}

uint64_t vrb_rma_wr_count(rtm_tl_iface_t *tl_iface)
{
    return tl_iface != NULL ? vrb_iface_of(tl_iface)->rma_wrs : 0;
}

/* ---- the pool of get transfer states ---------------------------------- */

#define VRB_GET_CHUNK 16

struct vrb_get_chunk {
    struct vrb_get_chunk *next;
    vrb_get_t             gets[VRB_GET_CHUNK];
};

/* Slow path: one more chunk of states into the pool. */
static int get_pool_grow(vrb_iface_t *iface)
{
    struct vrb_get_chunk *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return -1;
    if (iface->get_pool.next == NULL)
        rtm_list_init(&iface->get_pool);
    c->next = iface->get_chunks;
    iface->get_chunks = c;
    for (int i = 0; i < VRB_GET_CHUNK; i++)
        rtm_list_push_tail(&iface->get_pool, &c->gets[i].link);
    iface->get_states += VRB_GET_CHUNK;
    return 0;
}

vrb_get_t *vrb_get_alloc(vrb_iface_t *iface)
{
    vrb_get_t *g;

    if (__builtin_expect(iface->get_pool.next == NULL || rtm_list_is_empty(&iface->get_pool),
                         0) && get_pool_grow(iface) != 0) {
        rtm_error_set(RTM_ERR_NO_MEMORY, "rank %d (%s): verbs get: no memory",
                      iface->world_rank, iface->host);
        return NULL;
    }
    g = rtm_container_of(rtm_list_pop_head(&iface->get_pool), vrb_get_t, link);
    memset(g, 0, sizeof(*g));
    iface->gets++;
    return g;
}

void vrb_get_release(vrb_iface_t *iface, vrb_get_t *g)
{
    rtm_list_push_head(&iface->get_pool, &g->link);
}

void vrb_get_pool_destroy(vrb_iface_t *iface)
{
    if (iface->gets > 0)
        rtm_debug("verbs: rank %d: %llu gets used %llu transfer states (pool)",
                  iface->world_rank, (unsigned long long)iface->gets,
                  (unsigned long long)iface->get_states);
    while (iface->get_chunks != NULL) {
        struct vrb_get_chunk *c = iface->get_chunks;

        iface->get_chunks = c->next;
        free(c);
    }
    rtm_list_init(&iface->get_pool);
}

void vrb_rma_close(vrb_iface_t *iface)
{
    if (iface == NULL || iface->eps == NULL)
        return;
    if (iface->exposures.next != NULL) {
        while (!rtm_list_is_empty(&iface->exposures)) {
            vrb_expo_t *x = rtm_container_of(iface->exposures.next, vrb_expo_t, link);

            rtm_list_del(&x->link);
            expo_free(iface, x, 0);   /* closing: the windows go with their MR */
        }
    }
    if (iface->xrc && iface->eps[iface->world_rank].qp != NULL) {
        /* the loopback QP (vrb_close destroys the others' RC QPs, not in XRC) */
        ibv_destroy_qp(iface->eps[iface->world_rank].qp);
        iface->eps[iface->world_rank].qp = NULL;
    }
    for (int i = 0; i < iface->world_size; i++) {
        vrb_ep_t *ep = &iface->eps[i];

        if (ep->atomic_mr != NULL)
            ibv_dereg_mr(ep->atomic_mr);
        ep->atomic_mr = NULL;
        free(ep->atomic_res);
        ep->atomic_res = NULL;
    }
}
