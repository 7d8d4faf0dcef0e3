/*
 * verbs: the interface (device, protection domain, one CQ, one SRQ, the
 * registered buffer pools, one RC QP per connected peer), the address blob,
 * the QP state machine and the ops table.
 *
 * Full mesh: open() creates every QP (RESET -> INIT) so their numbers go
 * into the blob; wireup(), after the modex fence, reads every peer's blob and
 * takes each QP to RTR and RTS; the runtime then fences once more
 * (ops.wireup_fence) so no rank sends to a QP its peer has not
 * brought to RTR yet (an HCA silently drops such packets, and the sender
 * would burn its retries).
 *
 * On demand: open() creates one UD QP whose number goes into a fixed-size
 * blob; no RC QP exists until the first message to a peer, and the
 * handshake (vrb_conn.c) creates and connects it.
 *
 * XRC (RTM_VERBS_XRC=1, vrb_xrc.c): an XRC SRQ in the host's shared XRC
 * domain instead of the SRQ, the UD QP of on demand, and no QP per peer:
 * one INI QP per remote host and TGT QPs, connected by the same handshake;
 * in full mesh wireup() makes every connection before it returns.
 */
#include "config.h"

#include "transport/verbs/vrb.h"
#include "common/error.h"
#include "common/log.h"
#include "transport/verbs/vrb_config.h"
#include "common/timer.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static size_t round_up(size_t n, size_t a)
{
    return (n + a - 1) / a * a;
}

/* ibv_reg_mr for a pool, with the RLIMIT_MEMLOCK diagnosis users need. */
static struct ibv_mr *pool_reg(vrb_iface_t *iface, void *buf, size_t len, int access,
                               const char *what, size_t total)
{
    struct ibv_mr *mr = ibv_reg_mr(iface->pd, buf, len, access);
    struct rlimit rl;

    if (mr != NULL)
        return mr;
    if ((errno == ENOMEM || errno == EPERM || errno == EAGAIN) &&
        getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        rtm_error_set(RTM_ERR_NO_MEMORY,
                      "verbs: cannot register the %s (%zu bytes): %s; RLIMIT_MEMLOCK is "
                      "%llu bytes and this rank needs at least %zu locked; raise it "
                      "(ulimit -l unlimited, or memlock in /etc/security/limits.conf / "
                      "LimitMEMLOCK= for the launch daemon)", what, len, strerror(errno),
                      (unsigned long long)rl.rlim_cur, total);
    } else {
        rtm_error_set(RTM_ERR_NO_MEMORY, "verbs: cannot register the %s (%zu bytes): %s",
                      what, len, strerror(errno));
    }
    return NULL;
}

/* On demand the number of QPs grows: keep the CQ large enough for every
 * receive of the SRQ and the UD QP and every send-queue entry of every QP,
 * so it cannot overflow whatever completes at once. Slow path. */
rtm_status_t vrb_cq_reserve(vrb_iface_t *iface, int nqps)
{
    int need = iface->srq_depth + 2 * VRB_UD_DEPTH + nqps * VRB_SQ_DEPTH;
    int want = need;

    if (need <= iface->cq_depth)
        return RTM_OK;
    if (want < 2 * iface->cq_depth)
        want = 2 * iface->cq_depth;     /* grow geometrically: few resizes */
    if (want > iface->dev.dev_attr.max_cqe)
        want = iface->dev.dev_attr.max_cqe;
    if (want < need || ibv_resize_cq(iface->cq, want) != 0)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "verbs: cannot grow the CQ to %d entries for "
                             "%d QPs on %s (device limit %d): %s", need, nqps, iface->dev.name,
                             iface->dev.dev_attr.max_cqe, want < need ? "too many" :
                             strerror(errno));
    iface->cq_depth = iface->cq->cqe > want ? iface->cq->cqe : want;
    return RTM_OK;
}

/* Room for one more send queue feeding the CQ, and ep's send-queue slots
 * (kept across reconnections). */
rtm_status_t vrb_ep_sq_reserve(vrb_iface_t *iface, vrb_ep_t *ep)
{
    rtm_status_t status = vrb_cq_reserve(iface, iface->num_sqs + 1);

    if (status != RTM_OK)
        return status;
    if (ep->slots == NULL)
        ep->slots = calloc(VRB_SQ_DEPTH, sizeof(*ep->slots));
    if (ep->slots == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "verbs: no memory for the send queue to rank %d",
                             ep->super.peer);
    return RTM_OK;
}

rtm_status_t vrb_qp_create(vrb_iface_t *iface, vrb_ep_t *ep)
{
    struct ibv_qp_init_attr ia;
    struct ibv_qp_attr a;
    rtm_status_t status;

    status = vrb_ep_sq_reserve(iface, ep);
    if (status != RTM_OK)
        return status;
    memset(&ia, 0, sizeof(ia));
    ia.send_cq = iface->cq;
    ia.recv_cq = iface->cq;
    ia.srq = iface->srq;
    ia.qp_type = IBV_QPT_RC;
    ia.sq_sig_all = 0;                   /* we signal every VRB_SIGNAL_EVERY-th send */
    ia.cap.max_send_wr = VRB_SQ_DEPTH;
    ia.cap.max_send_sge = 1;
    ia.cap.max_inline_data = VRB_MAX_INLINE;
    ep->qp = ibv_create_qp(iface->pd, &ia);
    if (ep->qp == NULL) {
        /* some devices take no inline data at all */
        ia.cap.max_inline_data = 0;
        ep->qp = ibv_create_qp(iface->pd, &ia);
    }
    if (ep->qp == NULL)
        return rtm_error_set(RTM_ERR_TRANSPORT, "verbs: ibv_create_qp (RC, for rank %d) on %s: %s",
                             ep->super.peer, iface->dev.name, strerror(errno));
    if (ia.cap.max_inline_data < iface->max_inline)
        iface->max_inline = ia.cap.max_inline_data;

    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.pkey_index = 0;
    a.port_num = iface->dev.port;
    /* Peers only ever read our rendezvous buffers; no remote write. */
    a.qp_access_flags = IBV_ACCESS_REMOTE_READ;
    if (ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                      IBV_QP_ACCESS_FLAGS) != 0)
        return rtm_error_set(RTM_ERR_TRANSPORT, "verbs: QP 0x%x (rank %d) RESET->INIT: %s",
                             ep->qp->qp_num, ep->super.peer, strerror(errno));
    ep->qp_access = IBV_ACCESS_REMOTE_READ;   /* more only by mem_expose and erdma */
    ep->rx_qpn = ep->qp->qp_num;
    iface->num_qps++;
    iface->num_sqs++;
    return RTM_OK;
}

/* Address vector towards the peer (LID, or GID with a GRH). */
void vrb_ah_attr(vrb_iface_t *iface, const vrb_ep_t *ep, struct ibv_ah_attr *ah)
{
    memset(ah, 0, sizeof(*ah));
    ah->dlid = ep->r_lid;
    ah->sl = 0;
    ah->src_path_bits = 0;
    ah->port_num = iface->dev.port;
    if (iface->dev.gid_index >= 0 || (ep->r_flags & VRB_ADDR_F_GRH)) {
        ah->is_global = 1;
        memcpy(ah->grh.dgid.raw, ep->r_gid, 16);
        ah->grh.sgid_index = (uint8_t)(iface->dev.gid_index < 0 ? 0 : iface->dev.gid_index);
        ah->grh.hop_limit = 64;
        ah->grh.traffic_class = 0;
        ah->grh.flow_label = 0;
    }
}

/* INIT -> RTR towards dest_qpn at the peer's address (ep->r_*). An XRC INI
 * QP (responder 0) takes no responder attributes. The attributes, and why,
 * are in docs/transports/verbs.md ("QP attributes"). */
rtm_status_t vrb_qp_rtr(vrb_iface_t *iface, struct ibv_qp *qp, const vrb_ep_t *ep,
                        uint32_t dest_qpn, uint32_t rq_psn, int responder)
{
    struct ibv_qp_attr a;
    int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;

    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = iface->dev.mtu < (enum ibv_mtu)ep->r_mtu ? iface->dev.mtu
                                                           : (enum ibv_mtu)ep->r_mtu;
    a.dest_qp_num = dest_qpn;
    a.rq_psn = rq_psn;
    if (responder) {
        a.max_dest_rd_atomic = (uint8_t)iface->rd_atomic;
        a.min_rnr_timer = VRB_QP_MIN_RNR_TIMER;
        mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    }
    vrb_ah_attr(iface, ep, &a.ah_attr);
    if (ibv_modify_qp(qp, &a, mask) != 0)
        return rtm_error_set(RTM_ERR_TRANSPORT,
                             "verbs: QP 0x%x to rank %d (%s, QP 0x%x) INIT->RTR: %s",
                             qp->qp_num, ep->super.peer, ep->host, dest_qpn, strerror(errno));
    return RTM_OK;
}

rtm_status_t vrb_qp_rts(vrb_iface_t *iface, struct ibv_qp *qp, const vrb_ep_t *ep,
                        uint32_t sq_psn)
{
    struct ibv_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = VRB_QP_TIMEOUT;
    a.retry_cnt = VRB_QP_RETRY_CNT;
    a.rnr_retry = VRB_QP_RNR_RETRY;
    a.sq_psn = sq_psn;
    a.max_rd_atomic = (uint8_t)iface->rd_atomic;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                      IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) != 0)
        return rtm_error_set(RTM_ERR_TRANSPORT,
                             "verbs: QP 0x%x to rank %d (%s) RTR->RTS: %s",
                             qp->qp_num, ep->super.peer, ep->host, strerror(errno));
    return RTM_OK;
}

/* INIT -> RTR -> RTS towards ep->remote_qpn at the peer's address (ep->r_*). */
rtm_status_t vrb_qp_connect(vrb_iface_t *iface, vrb_ep_t *ep, uint32_t psn_local,
                            uint32_t psn_remote)
{
    rtm_status_t status = vrb_qp_rtr(iface, ep->qp, ep, ep->remote_qpn, psn_remote, 1);

    return status != RTM_OK ? status : vrb_qp_rts(iface, ep->qp, ep, psn_local);
}

static void vrb_close(rtm_tl_iface_t *tl_iface);

/* The connection mode, as the debug log, rtm_info and the tests name it. */
static const char *vrb_mode_str(const vrb_iface_t *iface)
{
    if (iface->xrc)
        return iface->ondemand ? "XRC on demand (UD handshake)" : "XRC full mesh";
    return iface->ondemand ? "on-demand RC (UD handshake)" : "RC full mesh";
}

static rtm_status_t pools_create(vrb_iface_t *iface)
{
    size_t rx_len = (size_t)iface->srq_depth * iface->buf_size;
    size_t tx_len = (size_t)VRB_BOUNCE_COUNT * iface->buf_size;

    iface->rx_bufs = aligned_alloc(4096, round_up(rx_len, 4096));
    iface->tx_bufs = aligned_alloc(4096, round_up(tx_len, 4096));
    iface->tx_free = calloc(VRB_BOUNCE_COUNT, sizeof(void *));
    if (iface->rx_bufs == NULL || iface->tx_bufs == NULL || iface->tx_free == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "verbs: no memory for %zu bytes of buffers",
                             rx_len + tx_len);
    /* Registered once, in one piece each: no registration on the eager path. */
    iface->rx_mr = pool_reg(iface, iface->rx_bufs, rx_len, IBV_ACCESS_LOCAL_WRITE,
                            "receive buffers", rx_len + tx_len);
    if (iface->rx_mr == NULL)
        return RTM_ERR_NO_MEMORY;
    iface->tx_mr = pool_reg(iface, iface->tx_bufs, tx_len, 0, "send buffers", rx_len + tx_len);
    if (iface->tx_mr == NULL)
        return RTM_ERR_NO_MEMORY;
    for (int i = 0; i < VRB_BOUNCE_COUNT; i++)
        iface->tx_free[i] = iface->tx_bufs + (size_t)i * iface->buf_size;
    iface->tx_nfree = VRB_BOUNCE_COUNT;
    return RTM_OK;
}

/* vrb_open, step 1: what the runtime handed us and the configuration,
 * checked before anything is made. Every rank decides alike (same
 * configuration, same job size), so the connection mode agrees. */
static rtm_status_t open_check(const rtm_tl_params_t *params, int *ondemand_p, long *credits_p)
{
    int ondemand;

    if (!rtm_tl_params_valid(params) || params->world_size < 1 || params->world_rank < 0 ||
        params->world_rank >= params->world_size || params->addr_lookup == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "verbs open: params, am_cb, peer_failed, addr_lookup or iface_p "
                             "is NULL, or rank out of range");
    if (params->world_size == 1)
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "verbs: no peer to reach (world of 1)");
    switch (rtm_verbs_config.conn) {
    case 1:  ondemand = 0; break;                                   /* fullmesh */
    case 2:  ondemand = 1; break;                                   /* ondemand */
    default: ondemand = params->world_size > rtm_verbs_config.fullmesh_max; break;
    }
    if (!ondemand && !rtm_verbs_config.xrc && params->world_size > VRB_FULLMESH_MAX) {
        if (params->world_rank == 0)
            rtm_warn("verbs: RTM_VERBS_CONN=fullmesh: %d ranks exceed the full-mesh limit of %d "
                     "(QP numbers of every peer in a %d-byte address): verbs is not used; "
                     "RTM_VERBS_CONN=ondemand has no limit", params->world_size,
                     VRB_FULLMESH_MAX, RTM_TL_ADDR_MAX);
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "verbs: job too large for full mesh");
    }
    /* the rows' ranges hold (rtm_verbs_config.c): timeout >= 1 s, 2..4096 credits */
    *ondemand_p = ondemand;
    *credits_p = rtm_verbs_config.credits;
    return RTM_OK;
}

/* Step 2: the interface and one endpoint per rank, nothing on the device yet. */
static rtm_status_t iface_alloc(const rtm_tl_params_t *params, int ondemand,
                                vrb_iface_t **iface_p)
{
    vrb_iface_t *iface = calloc(1, sizeof(*iface));

    if (iface == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "verbs open: no memory");
    iface->super.ops = &rtm_tl_verbs;
    iface->am_cb = params->am_cb;
    iface->am_arg = params->am_arg;
    iface->addr_lookup = params->addr_lookup;
    iface->peer_failed = params->peer_failed;
    iface->world_rank = params->world_rank;
    iface->world_size = params->world_size;
    iface->ondemand = ondemand;
    iface->xrc = rtm_verbs_config.xrc != 0;
    iface->node = params->node_id;
    iface->local_rank = params->local_rank;
    iface->local_size = params->local_size > 0 ? params->local_size : 1;
    iface->xrcd_fd = -1;
    rtm_list_init(&iface->xconnecting);
    iface->conn_timeout = (double)rtm_verbs_config.connect_timeout;
    rtm_list_init(&iface->connecting);
    rtm_list_init(&iface->exposures);
    snprintf(iface->host, sizeof(iface->host), "%s", params->hostname ? params->hostname : "?");
    iface->eps = calloc((size_t)params->world_size, sizeof(*iface->eps));
    iface->credit_queue = calloc((size_t)params->world_size, sizeof(int));
    if (iface->eps == NULL || iface->credit_queue == NULL) {
        free(iface->eps);
        free(iface->credit_queue);
        free(iface);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "verbs open: no memory for %d peers",
                             params->world_size);
    }
    for (int i = 0; i < params->world_size; i++) {
        iface->eps[i].super.iface = &iface->super;
        iface->eps[i].super.peer = i;
        rtm_list_init(&iface->eps[i].pending_gets);
        rtm_list_init(&iface->eps[i].conn_link);
    }
    *iface_p = iface;
    return RTM_OK;
}

/* Step 3: the device and port (RTM_VERBS_DEVICE, RTM_VERBS_GID_INDEX). */
static rtm_status_t device_open(vrb_iface_t *iface)
{
    long gid_index = -1;

    if (rtm_verbs_config.gid_index[0] != '\0' && strcmp(rtm_verbs_config.gid_index, "auto")) {
        char *end;

        gid_index = strtol(rtm_verbs_config.gid_index, &end, 10);
        if (*end != '\0' || gid_index < 0 || gid_index > 65535)
            return rtm_error_set(RTM_ERR_INVALID_ARG, "RTM_VERBS_GID_INDEX=\"%s\": expected "
                                 "auto or a GID table index", rtm_verbs_config.gid_index);
    }
    return vrb_dev_select(rtm_verbs_config.device, gid_index, &iface->dev);
}

/* Step 4: buffer, queue and credit sizes, within what the device allows. */
static rtm_status_t sizes_choose(vrb_iface_t *iface, long credits)
{
    int npeers = iface->world_size - 1;
    int srq_peers;

    /* A receive buffer holds our header and the largest message. */
    iface->eager_limit = rtm_verbs_config.eager_limit;
    iface->am_max = iface->eager_limit + VRB_RT_HDR_MAX;
    iface->buf_size = vrb_buf_size(iface->eager_limit);
    iface->read_chunk = iface->dev.max_msg_sz < VRB_READ_CHUNK ? iface->dev.max_msg_sz
                                                                : VRB_READ_CHUNK;
    iface->rd_atomic = VRB_QP_RD_ATOMIC;
    if (iface->rd_atomic > iface->dev.dev_attr.max_qp_rd_atom)
        iface->rd_atomic = iface->dev.dev_attr.max_qp_rd_atom;
    if (iface->rd_atomic > iface->dev.dev_attr.max_qp_init_rd_atom)
        iface->rd_atomic = iface->dev.dev_attr.max_qp_init_rd_atom;
    if (iface->rd_atomic < 1)
        iface->rd_atomic = 1;
    /* Every peer owns `credits` receives plus the slack for its credit-only
     * messages, so the SRQ never runs dry in normal traffic (no RNR). On
     * demand the SRQ holds that for VRB_SRQ_PEERS peers, granted at connect
     * time; peers connecting beyond them get 2 credits each and lean on RNR
     * retries (rnr_retry 7: slower, never lost). */
    srq_peers = vrb_srq_peers(npeers, iface->ondemand);
    if ((long)srq_peers * (credits + VRB_CTRL_SLACK) > iface->dev.dev_attr.max_srq_wr)
        credits = iface->dev.dev_attr.max_srq_wr / srq_peers - VRB_CTRL_SLACK;
    if (credits < 2)
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED,
                             "verbs: %s's SRQ (%d entries) is too small for %d peers",
                             iface->dev.name, iface->dev.dev_attr.max_srq_wr, srq_peers);
    iface->credits = (int)credits;
    iface->srq_depth = srq_peers * (iface->credits + VRB_CTRL_SLACK);
    if (rtm_verbs_config.srq_depth != 0) {
        /* Smaller than the credits promise: peers overrun it and RNR
         * retries (rnr_retry 7: for ever) hold their messages back. */
        if (rtm_verbs_config.srq_depth < 2 ||
            rtm_verbs_config.srq_depth > iface->dev.dev_attr.max_srq_wr)
            return rtm_error_set(RTM_ERR_INVALID_ARG, "RTM_VERBS_SRQ_DEPTH=%ld: expected 0 "
                                 "or 2..%d (%s's limit)", (long)rtm_verbs_config.srq_depth,
                                 iface->dev.dev_attr.max_srq_wr, iface->dev.name);
        iface->srq_depth = (int)rtm_verbs_config.srq_depth;
    }
    iface->rx_budget = iface->srq_depth;
    /* Every receive and every send-queue entry completes at most once; on
     * demand the CQ grows with the QPs (cq_reserve). */
    iface->cq_depth = iface->srq_depth + 2 * VRB_UD_DEPTH +
                      (iface->ondemand ? (srq_peers < 8 ? srq_peers : 8) : npeers) *
                          VRB_SQ_DEPTH;
    if (iface->cq_depth > iface->dev.dev_attr.max_cqe)
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED,
                             "verbs: %s's CQs (%d entries) are too small for %d peers (%d "
                             "needed)", iface->dev.name, iface->dev.dev_attr.max_cqe, npeers,
                             iface->cq_depth);
    iface->max_inline = VRB_MAX_INLINE;
    return RTM_OK;
}

/* Step 5: protection domain and the one CQ (sends, reads and receives). */
static rtm_status_t pd_cq_create(vrb_iface_t *iface)
{
    iface->pd = ibv_alloc_pd(iface->dev.ctx);
    if (iface->pd == NULL)
        return rtm_error_set(RTM_ERR_TRANSPORT, "verbs: ibv_alloc_pd on %s: %s",
                             iface->dev.name, strerror(errno));
    iface->cq = ibv_create_cq(iface->dev.ctx, iface->cq_depth, NULL, NULL, 0);
    if (iface->cq == NULL)
        return rtm_error_set(RTM_ERR_TRANSPORT, "verbs: ibv_create_cq(%d) on %s: %s",
                             iface->cq_depth, iface->dev.name, strerror(errno));
    return RTM_OK;
}

/* Step 6: the shared receive queue (XRC: the XRC domain and its SRQ). */
static rtm_status_t srq_create(vrb_iface_t *iface, const char *nspace)
{
    struct ibv_srq_init_attr sa;

    if (iface->xrc)
        return vrb_xrc_open(iface, nspace);
    memset(&sa, 0, sizeof(sa));
    sa.attr.max_wr = (uint32_t)iface->srq_depth;
    sa.attr.max_sge = 1;
    iface->srq = ibv_create_srq(iface->pd, &sa);
    if (iface->srq == NULL)
        return rtm_error_set(RTM_ERR_TRANSPORT, "verbs: ibv_create_srq(%d) on %s: %s",
                             iface->srq_depth, iface->dev.name, strerror(errno));
    return RTM_OK;
}

/* Step 8: connections. Full mesh: one RC QP per peer now (connected at
 * wireup); on demand or XRC: the UD QP of the handshake. */
static rtm_status_t qps_create(vrb_iface_t *iface)
{
    if (iface->ondemand || iface->xrc)
        return vrb_conn_open(iface);   /* XRC connects through the handshake in both modes */
    for (int i = 0; i < iface->world_size; i++) {
        rtm_status_t status;

        if (i == iface->world_rank)
            continue;
        status = vrb_qp_create(iface, &iface->eps[i]);
        if (status != RTM_OK)
            return status;
    }
    return RTM_OK;
}

/* The steps in order; any failure closes what the earlier ones made
 * (vrb_close copes with a partly opened interface). *iface_p is written on
 * success only. */
static rtm_status_t vrb_open(const rtm_tl_params_t *params, rtm_tl_iface_t **iface_p)
{
    vrb_iface_t *iface = NULL;
    rtm_status_t status;
    int ondemand = 0;
    long credits = 0;

    if (iface_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs open: iface_p is NULL");
    status = open_check(params, &ondemand, &credits);
    if (status != RTM_OK)
        return status;
    status = iface_alloc(params, ondemand, &iface);
    if (status != RTM_OK)
        return status;
    status = device_open(iface);
    if (status != RTM_OK)
        goto err_close;
    status = sizes_choose(iface, credits);
    if (status != RTM_OK)
        goto err_close;
    status = pd_cq_create(iface);
    if (status != RTM_OK)
        goto err_close;
    status = srq_create(iface, params->nspace);
    if (status != RTM_OK)
        goto err_close;
    /* Step 7: registered buffer pools and the eager RDMA settings (rings
     * come later), then every receive buffer posted. */
    status = pools_create(iface);
    if (status != RTM_OK)
        goto err_close;
    status = vrb_erdma_open(iface);
    if (status != RTM_OK)
        goto err_close;
    /* XRC: no eager RDMA rings. An RDMA Write through the host's INI QP is
     * checked against the named SRQ's PD, but the rings' per-peer rkeys and
     * the ordering of ring writes against Sends assume a QP per pair. */
    if (iface->xrc)
        iface->erdma_threshold = 0;
    status = vrb_post_recv_all(iface);
    if (status != RTM_OK)
        goto err_close;
    status = qps_create(iface);
    if (status != RTM_OK)
        goto err_close;
    rtm_debug("verbs: %s port %u, %s: %d RC QPs created, SRQ %d x %zu B, CQ %d, "
              "%d credits per peer, inline <= %u B", iface->dev.name, iface->dev.port,
              vrb_mode_str(iface), iface->num_qps,
              iface->srq_depth, iface->buf_size, iface->cq_depth, iface->credits,
              iface->max_inline);
    *iface_p = &iface->super;
    return RTM_OK;

err_close:
    vrb_close(&iface->super);
    return status;
}

static void vrb_close(rtm_tl_iface_t *tl_iface)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);

    if (iface == NULL)
        return;
    iface->closing = 1;
    if (iface->pd != NULL && iface->xrc)
        rtm_debug("verbs: rank %d closing: %s, held %d XRC INI QPs and %d XRC TGT QPs (%d "
                  "peers connected) + 1 UD QP", iface->world_rank, vrb_mode_str(iface),
                  iface->num_ini, iface->num_tgt, iface->connected_qps);
    else if (iface->pd != NULL)
        rtm_debug("verbs: rank %d closing: %s, held %d RC QPs (%d connected)%s",
                  iface->world_rank, iface->ondemand ? "on-demand RC" : "RC full mesh",
                  iface->num_qps, iface->connected_qps, iface->ondemand ? " + 1 UD QP" : "");
    if (iface->pd != NULL)
        rtm_debug("verbs: rank %d: %llu progress calls polled the CQ %llu times (%llu receive "
                  "completions, the first at call %llu)", iface->world_rank,
                  (unsigned long long)iface->progress_calls, (unsigned long long)iface->cq_polls,
                  (unsigned long long)iface->cq_recv_wcs,
                  (unsigned long long)iface->calls_first_recv);
    /* exposed regions (windows, then MRs) and atomic result buffers, then
     * pending gets and the registration cache, while the PD still exists */
    vrb_rma_close(iface);
    vrb_rndv_close(iface);
    vrb_erdma_close(iface);      /* eager RDMA rings' MRs, while the PD exists */
    for (int i = 0; i < iface->world_size; i++) {
        vrb_ep_t *ep = &iface->eps[i];

        if (ep->qp != NULL && !iface->xrc)   /* XRC: the host's INI QP, below */
            ibv_destroy_qp(ep->qp);
        if (ep->ud_ah != NULL)
            ibv_destroy_ah(ep->ud_ah);
        free(ep->slots);
    }
    vrb_conn_close(iface);
    if (iface->xrc)
        vrb_xrc_close(iface);     /* INI and TGT QPs, the XRC SRQ, the domain */
    if (iface->srq != NULL)
        ibv_destroy_srq(iface->srq);
    if (iface->cq != NULL)
        ibv_destroy_cq(iface->cq);
    if (iface->rx_mr != NULL)
        ibv_dereg_mr(iface->rx_mr);
    if (iface->tx_mr != NULL)
        ibv_dereg_mr(iface->tx_mr);
    if (iface->pd != NULL)
        ibv_dealloc_pd(iface->pd);
    vrb_dev_release(&iface->dev);
    free(iface->rx_bufs);
    free(iface->tx_bufs);
    free(iface->tx_free);
    free(iface->credit_queue);
    free(iface->eps);
    free(iface);
}

static void vrb_query(rtm_tl_iface_t *tl_iface, rtm_tl_caps_t *caps)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);

    memset(caps, 0, sizeof(*caps));
    caps->flags = RTM_TL_CAP_GET | RTM_TL_CAP_PUT;
    if (iface->dev.dev_attr.atomic_cap != IBV_ATOMIC_NONE)
        caps->flags |= RTM_TL_CAP_ATOMIC;
    caps->am_max = iface->am_max;
    caps->eager_limit = iface->eager_limit;
    /* Smaller rendezvous (synchronous or credit-starved sends) go by one
     * CTS/DATA exchange: cheaper than two registrations and a read. */
    caps->get_threshold = iface->eager_limit + 1;
    caps->latency_us = 2.0;
    caps->bandwidth_gbs = 10.0;
}

static void vrb_describe(rtm_tl_iface_t *tl_iface, char *buf, size_t len)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);
    char gid[64], addr[96], qps[160];

    if (iface == NULL) {
        struct ibv_device **list;
        int n = 0;
        size_t off;

        list = ibv_get_device_list(&n);
        if (list == NULL || n == 0)
            off = (size_t)snprintf(buf, len, "verbs: no RDMA device on this host (verbs is not "
                                   "used here)");
        else
            off = (size_t)snprintf(buf, len, "verbs: %d RDMA device(s)", n);
        for (int i = 0; list != NULL && i < n && off < len; i++) {
            struct ibv_context *ctx = ibv_open_device(list[i]);
            struct ibv_device_attr da;

            off += (size_t)snprintf(buf + off, len - off, "%s %s", i ? "," : ":",
                                    ibv_get_device_name(list[i]));
            if (ctx == NULL || ibv_query_device(ctx, &da) != 0) {
                if (off < len)
                    off += (size_t)snprintf(buf + off, len - off, " (cannot open)");
            } else {
                for (int p = 1; p <= da.phys_port_cnt && off < len; p++) {
                    struct ibv_port_attr pa;

                    if (ibv_query_port(ctx, (uint8_t)p, &pa) != 0)
                        continue;
                    off += (size_t)snprintf(buf + off, len - off, " port %d %s %s", p,
                                            ibv_port_state_str(pa.state),
                                            pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE"
                                                                                     : "IB");
                }
            }
            if (ctx != NULL)
                ibv_close_device(ctx);
        }
        if (list != NULL)
            ibv_free_device_list(list);
        if (off < len && rtm_verbs_config.xrc)
            off += (size_t)snprintf(buf + off, len - off, "; XRC (one XRC SRQ per rank, one "
                                    "INI QP per remote host, TGT QPs in a domain shared by "
                                    "the host's ranks)");
        if (off < len) {
            int m = rtm_verbs_config.conn;

            if (m == 0)
                snprintf(buf + off, len - off, "; connections: auto (full mesh, one RC QP per "
                         "peer at init, up to %ld ranks; on demand above: one UD QP, an RC QP "
                         "per peer at first use)", (long)rtm_verbs_config.fullmesh_max);
            else
                snprintf(buf + off, len - off, "; connections: %s", m == 1 ? "full mesh (one "
                         "RC QP per peer at init)" : "on demand (one UD QP, an RC QP per peer "
                         "at first use)");
        }
        return;
    }
    vrb_gid_str(&iface->dev.gid, gid, sizeof(gid));
    if (iface->dev.link == VRB_LINK_IB)
        snprintf(addr, sizeof(addr), "InfiniBand LID 0x%x%s", iface->dev.lid,
                 iface->dev.gid_index >= 0 ? " (GRH)" : "");
    else
        snprintf(addr, sizeof(addr), "RoCE GID[%d] %s", iface->dev.gid_index, gid);
    if (iface->xrc)
        snprintf(qps, sizeof(qps), "%d XRC INI QPs, %d XRC TGT QPs, 1 UD QP (%d peers "
                 "connected); XRC SRQ 0x%x", iface->num_ini, iface->num_tgt,
                 iface->connected_qps, iface->srqn);
    else
        snprintf(qps, sizeof(qps), "%d RC QPs (%d connected)%s", iface->num_qps,
                 iface->connected_qps, iface->ondemand ? " + 1 UD QP" : "");
    snprintf(buf, len, "verbs: %s port %u %s MTU %s; %s, %s; "
             "SRQ %d x %zu B; eager <= %zu B, inline <= %u B, reads of <= %zu B, %d in flight "
             "per QP; one-sided: %s, atomics %s", iface->dev.name, iface->dev.port, addr,
             vrb_mtu_str(iface->dev.mtu), vrb_mode_str(iface), qps, iface->srq_depth,
             iface->buf_size, iface->eager_limit, iface->max_inline, iface->read_chunk,
             iface->rd_atomic,
             vrb_rma_uses_mw(iface) ? "a type 2 memory window per peer" :
             iface->xrc || !rtm_verbs_config.mr_write ? "one MR per exposed region, read only" :
             "one MR per exposed region",
             iface->dev.dev_attr.atomic_cap == IBV_ATOMIC_NONE ? "not available" :
             iface->dev.dev_attr.atomic_cap == IBV_ATOMIC_GLOB ? "(global)" : "(HCA)");
}

static rtm_status_t vrb_addr_pack(rtm_tl_iface_t *tl_iface, void *buf, size_t *len_p)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);
    size_t nqpn = iface->ondemand || iface->xrc ? 0 : (size_t)iface->world_size;
    size_t need = vrb_addr_size(nqpn, iface->xrc);
    vrb_addr_t a;
    vrb_addr_xrc_t x;

    if (buf == NULL || len_p == NULL || *len_p < need)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs addr_pack: needs %zu bytes", need);
    memset(&a, 0, sizeof(a));
    a.magic = VRB_ADDR_MAGIC;
    a.lid = iface->dev.lid;
    a.port = iface->dev.port;
    a.link = iface->dev.link;
    memcpy(a.gid, iface->dev.gid.raw, 16);
    a.mtu = (uint8_t)iface->dev.mtu;
    a.flags = (iface->dev.gid_index >= 0 ? VRB_ADDR_F_GRH : 0) |
              (iface->ondemand ? VRB_ADDR_F_ONDEMAND : 0) | (iface->xrc ? VRB_ADDR_F_XRC : 0);
    a.credits = (uint16_t)iface->credits;
    a.nqpn = (uint32_t)nqpn;
    memcpy(a.host, iface->host, strnlen(iface->host, VRB_HOST_LEN));   /* NUL-padded */
    a.ud_qpn = iface->ud_qp != NULL ? iface->ud_qp->qp_num : 0;
    x.srqn = iface->srqn;
    x.node = iface->node;
    x.local_size = (uint32_t)iface->local_size;
    vrb_addr_write(buf, &a, iface->xrc ? &x : NULL);
    for (size_t i = 0; i < nqpn; i++)
        vrb_addr_write_qpn(buf, i, iface->eps[i].qp != NULL ? iface->eps[i].qp->qp_num : 0);
    *len_p = need;
    return RTM_OK;
}

/* Check a peer's blob and remember its address in ep. 0: usable; 1: the
 * peer is not reachable over verbs (other link layer); else an error.
 * The checks are vrb_addr_parse's (vrb_addr.c). */
static int ep_set_addr(vrb_iface_t *iface, vrb_ep_t *ep, const void *blob, size_t len)
{
    vrb_addr_self_t self = vrb_addr_self(iface);
    vrb_peer_addr_t a;
    int rc = vrb_addr_parse(&self, ep->super.peer, blob, len, &a);

    if (rc != 0)
        return rc;
    vrb_ep_set_peer_addr(ep, &a);
    if (!iface->ondemand && !iface->xrc) {
        ep->remote_qpn = a.remote_qpn;
        ep->peer_grant = a.credits;
    }
    return 0;
}

/* XRC full mesh: every connection through the handshake, before the
 * runtime's wireup fence (every rank is in here meanwhile, answering). */
static rtm_status_t xrc_wireup(vrb_iface_t *iface)
{
    double start = rtm_time_now();
    int npeers = 0;

    for (int i = 0; i < iface->world_size; i++) {
        void *blob = NULL;
        size_t len = 0;
        int rc;

        if (i == iface->world_rank)
            continue;
        if (iface->addr_lookup(i, "verbs", &blob, &len) != RTM_OK) {
            rtm_debug("verbs: rank %d published no verbs address: not reachable over verbs", i);
            continue;
        }
        rc = iface->eps[i].have_addr ? 0 : ep_set_addr(iface, &iface->eps[i], blob, len);
        free(blob);
        if (rc < 0)
            return RTM_ERR_TRANSPORT;
        if (rc == 0)
            npeers++;
    }
    for (;;) {
        int pending = 0;

        for (int i = 0; i < iface->world_size; i++) {
            vrb_ep_t *ep = &iface->eps[i];
            rtm_status_t status;

            if (i == iface->world_rank || !ep->have_addr || ep->connected)
                continue;
            pending++;
            if (ep->conn_state != VRB_EP_IDLE)
                continue;
            status = vrb_conn_start(ep);
            if (status != RTM_OK && status != RTM_ERR_AGAIN)
                return status;
        }
        if (pending == 0)
            break;
        vrb_progress(&iface->super);   /* the handshakes; aborts on timeout */
        sched_yield();          /* the peers answering may share our core */
    }
    rtm_debug("verbs: XRC full mesh: %d peers connected in %.1f ms through %d XRC INI QPs; "
              "%d XRC TGT QPs made here", npeers, (rtm_time_now() - start) * 1e3,
              iface->num_ini, iface->num_tgt);
    return RTM_OK;
}

static rtm_status_t vrb_wireup(rtm_tl_iface_t *tl_iface)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);

    if (iface->xrc)
        vrb_xrc_unlink(iface);   /* after the modex fence: every local rank opened it */
    if (iface->ondemand) {
        rtm_debug("verbs: %s: no connection until the first message to a peer "
                  "(UD QP 0x%x takes requests)", vrb_mode_str(iface), iface->ud_qp->qp_num);
        return RTM_OK;
    }
    if (iface->xrc)
        return xrc_wireup(iface);
    for (int i = 0; i < iface->world_size; i++) {
        vrb_ep_t *ep = &iface->eps[i];
        void *blob = NULL;
        size_t len = 0;
        rtm_status_t status;
        int rc;

        if (ep->qp == NULL)
            continue;
        if (iface->addr_lookup(i, "verbs", &blob, &len) != RTM_OK) {
            rtm_debug("verbs: rank %d published no verbs address: not reachable over verbs", i);
            continue;
        }
        rc = ep_set_addr(iface, ep, blob, len);
        free(blob);
        if (rc < 0)
            return RTM_ERR_TRANSPORT;
        if (rc > 0)
            continue;
        status = vrb_qp_connect(iface, ep, 0, 0);
        if (status != RTM_OK)
            return status;
        ep->tx_credits = ep->peer_grant;
        ep->grant = iface->credits;
        ep->conn_state = VRB_EP_CONNECTED;
        ep->connected = 1;
        iface->connected_qps++;
    }
    rtm_debug("verbs: RC full mesh: %d of %d QPs in RTS", iface->connected_qps, iface->num_qps);
    return RTM_OK;
}

static int vrb_reachable(rtm_tl_iface_t *tl_iface, int peer, const void *blob, size_t blob_len)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);

    if (peer < 0 || peer >= iface->world_size || peer == iface->world_rank)
        return 0;
    if (!iface->ondemand)
        return iface->eps[peer].connected;
    /* on demand: a peer with a usable address; connected at the first message */
    return iface->eps[peer].have_addr ||
           ep_set_addr(iface, &iface->eps[peer], blob, blob_len) == 0;
}

static rtm_status_t vrb_ep_create(rtm_tl_iface_t *tl_iface, int peer, const void *blob,
                                  size_t blob_len, rtm_tl_ep_t **ep_p)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);

    if (ep_p == NULL || peer < 0 || peer >= iface->world_size || peer == iface->world_rank)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs ep_create: rank %d out of range", peer);
    if (iface->ondemand) {
        /* No QP yet: am_send starts the handshake and says AGAIN until it
         * is done, so the runtime queues what is posted meanwhile in order. */
        if (!iface->eps[peer].have_addr &&
            ep_set_addr(iface, &iface->eps[peer], blob, blob_len) != 0)
            return rtm_error_set(RTM_ERR_UNREACHABLE, "verbs: rank %d has no usable verbs "
                                 "address", peer);
    } else if (!iface->eps[peer].connected) {
        return rtm_error_set(RTM_ERR_UNREACHABLE, "verbs: no connected QP to rank %d", peer);
    }
    /* Full mesh: the QP is in RTS since wireup; nothing to do. */
    iface->eps[peer].in_use = 1;
    *ep_p = &iface->eps[peer].super;
    return RTM_OK;
}

static void vrb_ep_destroy(rtm_tl_ep_t *tl_ep)
{
    /* The QP lives as long as the interface: close() destroys it. */
    if (tl_ep != NULL)
        vrb_ep_of(tl_ep)->in_use = 0;
}

const rtm_tl_ops_t rtm_tl_verbs = {
    RTM_TL_OPS_VERSION,
    .name       = "verbs",
    .open       = vrb_open,
    .close      = vrb_close,
    .query      = vrb_query,
    .describe   = vrb_describe,
    .addr_pack  = vrb_addr_pack,
    .wireup     = vrb_wireup,
    .reachable  = vrb_reachable,
    .ep_create  = vrb_ep_create,
    .ep_destroy = vrb_ep_destroy,
    .am_send    = vrb_am_send,
    .mem_reg    = vrb_mem_reg,
    .mem_dereg  = vrb_mem_dereg,
    .get        = vrb_get,
    .mem_expose = vrb_mem_expose,
    .mem_key    = vrb_mem_key,
    .mem_revoke = vrb_mem_revoke,
    .put        = vrb_put,
    .atomic     = vrb_atomic,
    .flush      = vrb_flush,
    .rma_wr_count = vrb_rma_wr_count,
    .ep_loopback = vrb_ep_loopback,
    .progress   = vrb_progress,
    .quiesce    = vrb_quiesce,
    .wireup_fence = 1,
    .ep_state   = vrb_ep_state,
};
