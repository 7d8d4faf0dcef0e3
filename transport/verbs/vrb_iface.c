/*
 * verbs: the interface (device, protection domain, one CQ, one SRQ, the
 * registered buffer pools, one RC QP per peer), the address blob, the QP
 * state machine and the ops table.
 *
 * Full mesh: open() creates every QP (RESET -> INIT) so their numbers go
 * into the blob; wireup(), after the modex fence, reads every peer's blob and
 * takes each QP to RTR and RTS; the runtime then fences once more
 * (ops.wireup_fence) so no rank sends to a QP its peer has not
 * brought to RTR yet (an HCA silently drops such packets, and the sender
 * would burn its retries).
 */
#include "config.h"

#include "transport/verbs/vrb.h"
#include "common/error.h"
#include "common/log.h"
#include "common/rtconfig.h"

#include <errno.h>
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

static rtm_status_t qp_create(vrb_iface_t *iface, vrb_ep_t *ep)
{
    struct ibv_qp_init_attr ia;
    struct ibv_qp_attr a;

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
                             ep->peer, iface->dev.name, strerror(errno));
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
                             ep->qp->qp_num, ep->peer, strerror(errno));
    iface->num_qps++;
    return RTM_OK;
}

/* INIT -> RTR -> RTS towards the peer described by its blob. The
 * attributes, and why, are in docs/verbs.md ("QP attributes"). */
static rtm_status_t qp_connect(vrb_iface_t *iface, vrb_ep_t *ep, const vrb_addr_t *ra)
{
    struct ibv_qp_attr a;
    int grh = iface->dev.gid_index >= 0 || (ra->flags & VRB_ADDR_F_GRH);

    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = iface->dev.mtu < (enum ibv_mtu)ra->mtu ? iface->dev.mtu
                                                         : (enum ibv_mtu)ra->mtu;
    a.dest_qp_num = ep->remote_qpn;
    a.rq_psn = 0;
    a.max_dest_rd_atomic = (uint8_t)iface->rd_atomic;
    a.min_rnr_timer = VRB_QP_MIN_RNR_TIMER;
    a.ah_attr.dlid = ra->lid;
    a.ah_attr.sl = 0;
    a.ah_attr.src_path_bits = 0;
    a.ah_attr.port_num = iface->dev.port;
    if (grh) {
        a.ah_attr.is_global = 1;
        memcpy(a.ah_attr.grh.dgid.raw, ra->gid, 16);
        a.ah_attr.grh.sgid_index = (uint8_t)(iface->dev.gid_index < 0 ? 0 : iface->dev.gid_index);
        a.ah_attr.grh.hop_limit = 64;
        a.ah_attr.grh.traffic_class = 0;
        a.ah_attr.grh.flow_label = 0;
    }
    if (ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                      IBV_QP_MIN_RNR_TIMER) != 0)
        return rtm_error_set(RTM_ERR_TRANSPORT,
                             "verbs: QP 0x%x to rank %d (%s, QP 0x%x) INIT->RTR: %s",
                             ep->qp->qp_num, ep->peer, ep->host, ep->remote_qpn,
                             strerror(errno));
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = VRB_QP_TIMEOUT;
    a.retry_cnt = VRB_QP_RETRY_CNT;
    a.rnr_retry = VRB_QP_RNR_RETRY;
    a.sq_psn = 0;
    a.max_rd_atomic = (uint8_t)iface->rd_atomic;
    if (ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                      IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) != 0)
        return rtm_error_set(RTM_ERR_TRANSPORT,
                             "verbs: QP 0x%x to rank %d (%s, QP 0x%x) RTR->RTS: %s",
                             ep->qp->qp_num, ep->peer, ep->host, ep->remote_qpn,
                             strerror(errno));
    return RTM_OK;
}

static void vrb_close(rtm_tl_iface_t *tl_iface);

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

static rtm_status_t vrb_open(const rtm_tl_params_t *params, rtm_tl_iface_t **iface_p)
{
    vrb_iface_t *iface;
    rtm_status_t status;
    int npeers;
    long credits, gid_index;

    if (params == NULL || iface_p == NULL || params->am_cb == NULL || params->world_size < 1 ||
        params->world_rank < 0 || params->world_rank >= params->world_size ||
        params->addr_lookup == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "verbs open: params, am_cb, addr_lookup or iface_p is NULL, or "
                             "rank out of range");
    npeers = params->world_size - 1;
    if (npeers == 0)
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "verbs: no peer to reach (world of 1)");
    if (params->world_size > VRB_FULLMESH_MAX) {
        rtm_warn("verbs: %d ranks exceed the full-mesh limit of %d (QP numbers of every peer "
                 "in a %d-byte address); on-demand connections are not implemented yet: "
                 "verbs is not used", params->world_size, VRB_FULLMESH_MAX, RTM_TL_ADDR_MAX);
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "verbs: job too large for full mesh");
    }
    if (rtm_config.verbs_xrc && params->world_rank == 0)
        rtm_warn("RTM_VERBS_XRC=1: XRC is not implemented yet; using RC full mesh");
    credits = rtm_config.verbs_credits;
    if (credits < 2 || credits > 4096)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "RTM_VERBS_CREDITS=%ld: expected 2..4096",
                             credits);

    iface = calloc(1, sizeof(*iface));
    if (iface == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "verbs open: no memory");
    iface->am_cb = params->am_cb;
    iface->am_arg = params->am_arg;
    iface->addr_lookup = params->addr_lookup;
    iface->peer_failed = params->peer_failed;
    iface->world_rank = params->world_rank;
    iface->world_size = params->world_size;
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
        iface->eps[i].iface = iface;
        iface->eps[i].peer = i;
        rtm_list_init(&iface->eps[i].pending_gets);
    }
    *iface_p = (rtm_tl_iface_t *)(void *)iface;

    gid_index = -1;
    if (rtm_config.verbs_gid_index[0] != '\0' && strcmp(rtm_config.verbs_gid_index, "auto")) {
        char *end;

        gid_index = strtol(rtm_config.verbs_gid_index, &end, 10);
        if (*end != '\0' || gid_index < 0 || gid_index > 65535) {
            status = rtm_error_set(RTM_ERR_INVALID_ARG, "RTM_VERBS_GID_INDEX=\"%s\": expected "
                                   "auto or a GID table index", rtm_config.verbs_gid_index);
            goto err_close;
        }
    }
    status = vrb_dev_select(rtm_config.verbs_device, gid_index, &iface->dev);
    if (status != RTM_OK)
        goto err_close;

    /* Sizes. A receive buffer holds our header and the largest message. */
    iface->eager_limit = rtm_config.verbs_eager_limit;
    iface->am_max = iface->eager_limit + 128;      /* room for the runtime's largest header */
    iface->buf_size = round_up(sizeof(vrb_am_hdr_t) + iface->am_max, 64);
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
     * messages, so the SRQ never runs dry in normal traffic (no RNR). */
    if ((long)npeers * (credits + VRB_CTRL_SLACK) > iface->dev.dev_attr.max_srq_wr)
        credits = iface->dev.dev_attr.max_srq_wr / npeers - VRB_CTRL_SLACK;
    if (credits < 2) {
        status = rtm_error_set(RTM_ERR_NOT_SUPPORTED,
                               "verbs: %s's SRQ (%d entries) is too small for %d peers",
                               iface->dev.name, iface->dev.dev_attr.max_srq_wr, npeers);
        goto err_close;
    }
    iface->credits = (int)credits;
    iface->srq_depth = npeers * (iface->credits + VRB_CTRL_SLACK);
    /* Every receive and every send-queue entry completes at most once. */
    iface->cq_depth = iface->srq_depth + npeers * VRB_SQ_DEPTH;
    if (iface->cq_depth > iface->dev.dev_attr.max_cqe) {
        status = rtm_error_set(RTM_ERR_NOT_SUPPORTED,
                               "verbs: %s's CQs (%d entries) are too small for %d peers (%d "
                               "needed)", iface->dev.name, iface->dev.dev_attr.max_cqe, npeers,
                               iface->cq_depth);
        goto err_close;
    }
    iface->max_inline = VRB_MAX_INLINE;

    iface->pd = ibv_alloc_pd(iface->dev.ctx);
    if (iface->pd == NULL) {
        status = rtm_error_set(RTM_ERR_TRANSPORT, "verbs: ibv_alloc_pd on %s: %s",
                               iface->dev.name, strerror(errno));
        goto err_close;
    }
    iface->cq = ibv_create_cq(iface->dev.ctx, iface->cq_depth, NULL, NULL, 0);
    if (iface->cq == NULL) {
        status = rtm_error_set(RTM_ERR_TRANSPORT, "verbs: ibv_create_cq(%d) on %s: %s",
                               iface->cq_depth, iface->dev.name, strerror(errno));
        goto err_close;
    }
    {
        struct ibv_srq_init_attr sa;

        memset(&sa, 0, sizeof(sa));
        sa.attr.max_wr = (uint32_t)iface->srq_depth;
        sa.attr.max_sge = 1;
        iface->srq = ibv_create_srq(iface->pd, &sa);
        if (iface->srq == NULL) {
            status = rtm_error_set(RTM_ERR_TRANSPORT, "verbs: ibv_create_srq(%d) on %s: %s",
                                   iface->srq_depth, iface->dev.name, strerror(errno));
            goto err_close;
        }
    }
    status = pools_create(iface);
    if (status != RTM_OK)
        goto err_close;
    status = vrb_post_recv_all(iface);
    if (status != RTM_OK)
        goto err_close;
    for (int i = 0; i < iface->world_size; i++) {
        if (i == iface->world_rank)
            continue;
        status = qp_create(iface, &iface->eps[i]);
        if (status != RTM_OK)
            goto err_close;
    }
    rtm_debug("verbs: %s port %u, %d RC QPs created (INIT), SRQ %d x %zu B, CQ %d, "
              "%d credits per peer, inline <= %u B", iface->dev.name, iface->dev.port,
              iface->num_qps, iface->srq_depth, iface->buf_size, iface->cq_depth,
              iface->credits, iface->max_inline);
    return RTM_OK;

err_close:
    vrb_close(*iface_p);
    return status;
}

static void vrb_close(rtm_tl_iface_t *tl_iface)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);

    if (iface == NULL)
        return;
    iface->closing = 1;
    for (int i = 0; i < iface->world_size; i++) {
        vrb_ep_t *ep = &iface->eps[i];

        while (!rtm_list_is_empty(&ep->pending_gets)) {
            vrb_get_t *g = rtm_container_of(ep->pending_gets.next, vrb_get_t, link);

            rtm_list_del(&g->link);
            if (g->mr != NULL)
                ibv_dereg_mr(g->mr);
            free(g);
        }
        if (ep->qp != NULL)
            ibv_destroy_qp(ep->qp);
    }
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
    caps->flags = RTM_TL_CAP_GET;
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
    char gid[64];

    if (iface == NULL) {
        struct ibv_device **list;
        int n = 0;
        size_t off;

        list = ibv_get_device_list(&n);
        off = (size_t)snprintf(buf, len, "verbs: %d RDMA device(s)", list ? n : 0);
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
        return;
    }
    vrb_gid_str(&iface->dev.gid, gid, sizeof(gid));
    if (iface->dev.link == VRB_LINK_IB)
        snprintf(buf, len, "verbs: %s port %u InfiniBand LID 0x%x%s MTU %s; RC full mesh, "
                 "%d QPs (%d connected); SRQ %d x %zu B; eager <= %zu B, inline <= %u B, "
                 "reads of <= %zu B, %d in flight per QP",
                 iface->dev.name, iface->dev.port, iface->dev.lid,
                 iface->dev.gid_index >= 0 ? " (GRH)" : "", vrb_mtu_str(iface->dev.mtu),
                 iface->num_qps, iface->connected_qps, iface->srq_depth, iface->buf_size,
                 iface->eager_limit, iface->max_inline, iface->read_chunk, iface->rd_atomic);
    else
        snprintf(buf, len, "verbs: %s port %u RoCE GID[%d] %s MTU %s; RC full mesh, "
                 "%d QPs (%d connected); SRQ %d x %zu B; eager <= %zu B, inline <= %u B, "
                 "reads of <= %zu B, %d in flight per QP",
                 iface->dev.name, iface->dev.port, iface->dev.gid_index, gid,
                 vrb_mtu_str(iface->dev.mtu), iface->num_qps, iface->connected_qps,
                 iface->srq_depth, iface->buf_size, iface->eager_limit, iface->max_inline,
                 iface->read_chunk, iface->rd_atomic);
}

static rtm_status_t vrb_addr_pack(rtm_tl_iface_t *tl_iface, void *buf, size_t *len_p)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);
    size_t need = sizeof(vrb_addr_t) + 4 * (size_t)iface->world_size;
    vrb_addr_t *a = buf;

    if (buf == NULL || len_p == NULL || *len_p < need)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs addr_pack: needs %zu bytes", need);
    memset(a, 0, need);
    a->magic = VRB_ADDR_MAGIC;
    a->lid = iface->dev.lid;
    a->port = iface->dev.port;
    a->link = iface->dev.link;
    memcpy(a->gid, iface->dev.gid.raw, 16);
    a->mtu = (uint8_t)iface->dev.mtu;
    a->flags = iface->dev.gid_index >= 0 ? VRB_ADDR_F_GRH : 0;
    a->reserved = (uint16_t)iface->credits;
    a->nqpn = (uint32_t)iface->world_size;
    memcpy(a->host, iface->host, strnlen(iface->host, VRB_HOST_LEN));   /* NUL-padded */
    for (int i = 0; i < iface->world_size; i++)
        a->qpn[i] = iface->eps[i].qp != NULL ? iface->eps[i].qp->qp_num : 0;
    *len_p = need;
    return RTM_OK;
}

static rtm_status_t vrb_wireup(rtm_tl_iface_t *tl_iface)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);

    for (int i = 0; i < iface->world_size; i++) {
        vrb_ep_t *ep = &iface->eps[i];
        const vrb_addr_t *ra;
        void *blob = NULL;
        size_t len = 0;
        rtm_status_t status;

        if (ep->qp == NULL)
            continue;
        if (iface->addr_lookup(i, "verbs", &blob, &len) != RTM_OK) {
            rtm_debug("verbs: rank %d published no verbs address: not reachable over verbs", i);
            continue;
        }
        ra = blob;
        if (len < sizeof(*ra) || ra->magic != VRB_ADDR_MAGIC ||
            ra->nqpn != (uint32_t)iface->world_size ||
            len < sizeof(*ra) + 4 * (size_t)ra->nqpn || ra->qpn[iface->world_rank] == 0) {
            free(blob);
            return rtm_error_set(RTM_ERR_TRANSPORT, "verbs: rank %d published a malformed "
                                 "verbs address (%zu bytes)", i, len);
        }
        if (ra->link != iface->dev.link) {
            rtm_debug("verbs: rank %d is on %s, we are on %s: not reachable over verbs", i,
                      ra->link == VRB_LINK_IB ? "InfiniBand" : "Ethernet",
                      iface->dev.link == VRB_LINK_IB ? "InfiniBand" : "Ethernet");
            free(blob);
            continue;
        }
        ep->remote_qpn = ra->qpn[iface->world_rank];
        memcpy(ep->host, ra->host, VRB_HOST_LEN);
        ep->host[VRB_HOST_LEN] = '\0';
        ep->tx_credits = ra->reserved;
        status = qp_connect(iface, ep, ra);
        free(blob);
        if (status != RTM_OK)
            return status;
        ep->connected = 1;
        iface->connected_qps++;
    }
    rtm_debug("verbs: RC full mesh: %d of %d QPs in RTS", iface->connected_qps, iface->num_qps);
    return RTM_OK;
}

static int vrb_reachable(rtm_tl_iface_t *tl_iface, int peer, const void *blob, size_t blob_len)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);

    (void)blob;
    (void)blob_len;
    return peer >= 0 && peer < iface->world_size && iface->eps[peer].connected;
}

static rtm_status_t vrb_ep_create(rtm_tl_iface_t *tl_iface, int peer, const void *blob,
                                  size_t blob_len, rtm_tl_ep_t **ep_p)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);

    (void)blob;
    (void)blob_len;
    if (ep_p == NULL || peer < 0 || peer >= iface->world_size)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs ep_create: rank %d out of range", peer);
    if (!iface->eps[peer].connected)
        return rtm_error_set(RTM_ERR_UNREACHABLE, "verbs: no connected QP to rank %d", peer);
    /* Full mesh: the QP is in RTS since wireup; nothing to do. */
    iface->eps[peer].in_use = 1;
    *ep_p = &iface->eps[peer];
    return RTM_OK;
}

static void vrb_ep_destroy(rtm_tl_ep_t *ep)
{
    /* The QP lives as long as the interface: close() destroys it. */
    if (ep != NULL)
        ep->in_use = 0;
}

const rtm_tl_ops_t rtm_tl_verbs = {
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
    .progress   = vrb_progress,
    .wireup_fence = 1,
};
