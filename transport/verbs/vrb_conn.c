/*
 * verbs: on-demand RC connections. Each rank has one UD QP (its number in
 * the address blob); the first message to a peer creates our RC QP for it
 * and sends a request datagram (vrb_conn_msg_t) carrying that QP's number,
 * first PSN, the port MTU, our address and the receive credits we grant.
 * The peer creates its QP, takes it to RTR and RTS towards ours and replies
 * with the same about its QP; we take ours to RTS and send a first message
 * on the new connection (the "hello"), from which the peer knows our QP is
 * in RTR and may send too. What the runtime posts meanwhile gets
 * RTM_ERR_AGAIN and waits, in order, in the runtime's per-peer queue.
 *
 * UD loses datagrams: a request with no reply is sent again after 50 ms,
 * then at doubling intervals up to 1 s, until RTM_VERBS_CONNECT_TIMEOUT
 * seconds have passed; then the job ends with a message naming the peer.
 * Duplicates are harmless: a repeated request is answered with the same
 * reply, a reply that matches no pending request is dropped.
 *
 * Simultaneous connects (both ranks send a request before seeing the
 * other's): the request of the LOWER rank wins. The lower rank ignores the
 * higher rank's request; the higher rank, on the lower rank's request,
 * gives up its own, connects the QP it had already created to the lower
 * rank's and replies. So each side holds exactly one QP per peer, and no
 * QP is thrown away.
 *
 * XRC (RTM_VERBS_XRC=1, in full mesh at wireup, else on demand): the same
 * REQ/REP/hello per pair of ranks, but no QP per pair. A rank's INI QP to a
 * host is connected first, once, by XREQ/XREP with the first rank of that
 * host it talks to, which creates the TGT QP for it (vrb_xrc.c has the
 * rule and why its lifetime is safe); pairs of ranks then only exchange the
 * TGT QP each one's messages arrive through, and credits. A pair whose
 * host's INI QP is still connecting waits (xwait) and is started when the
 * XREP comes; a REQ arriving while our own INI QP towards the requester's
 * host is not connected yet starts connecting it and is answered at the
 * request's retransmission. Crossing REQs resolve as for RC.
 *
 * The handshake runs inside progress: UD completions come through the same
 * CQ as everything else (tagged VRB_WR_UD_BIT in wr_id), so a rank with no
 * connection in progress pays one bit test per completion and one branch per
 * progress call, nothing more.
 */
#include "config.h"

#include "transport/verbs/vrb.h"
#include "common/error.h"
#include "common/log.h"
#include "common/timer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UD_GRH 40   /* every UD receive starts with room for the GRH */

static char *ud_buf(vrb_iface_t *iface, int i)
{
    return iface->ud_bufs + (size_t)i * VRB_UD_BUF;
}

static rtm_status_t ud_post_recv(vrb_iface_t *iface, int i)
{
    struct ibv_recv_wr wr, *bad;
    struct ibv_sge sge;

    sge.addr = (uintptr_t)ud_buf(iface, i);
    sge.length = VRB_UD_BUF;
    sge.lkey = iface->ud_mr->lkey;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = VRB_WR_UD_BIT | VRB_WR_RECV_BIT | (uint64_t)i;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    if (ibv_post_recv(iface->ud_qp, &wr, &bad) != 0)
        return rtm_error_set(RTM_ERR_TRANSPORT, "verbs: ibv_post_recv on the UD QP 0x%x: %s",
                             iface->ud_qp->qp_num, strerror(errno));
    return RTM_OK;
}

rtm_status_t vrb_conn_open(vrb_iface_t *iface)
{
    struct ibv_qp_init_attr ia;
    struct ibv_qp_attr a;
    size_t len = 2 * VRB_UD_DEPTH * (size_t)VRB_UD_BUF;
    rtm_status_t status;

    iface->ud_bufs = aligned_alloc(4096, (len + 4095) / 4096 * 4096);
    if (iface->ud_bufs == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "verbs: no memory for the UD buffers");
    iface->ud_mr = ibv_reg_mr(iface->pd, iface->ud_bufs, len, IBV_ACCESS_LOCAL_WRITE);
    if (iface->ud_mr == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "verbs: cannot register %zu bytes of UD "
                             "buffers on %s: %s", len, iface->dev.name, strerror(errno));
    memset(&ia, 0, sizeof(ia));
    ia.send_cq = iface->cq;
    ia.recv_cq = iface->cq;
    ia.qp_type = IBV_QPT_UD;
    ia.sq_sig_all = 1;             /* rare: every datagram's slot comes back by completion */
    ia.cap.max_send_wr = VRB_UD_DEPTH;
    ia.cap.max_recv_wr = VRB_UD_DEPTH;
    ia.cap.max_send_sge = 1;
    ia.cap.max_recv_sge = 1;
    iface->ud_qp = ibv_create_qp(iface->pd, &ia);
    if (iface->ud_qp == NULL)
        return rtm_error_set(RTM_ERR_TRANSPORT, "verbs: ibv_create_qp (UD) on %s: %s",
                             iface->dev.name, strerror(errno));
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.pkey_index = 0;
    a.port_num = iface->dev.port;
    a.qkey = VRB_UD_QKEY;
    if (ibv_modify_qp(iface->ud_qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                      IBV_QP_QKEY) != 0)
        goto err_modify;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    if (ibv_modify_qp(iface->ud_qp, &a, IBV_QP_STATE) != 0)
        goto err_modify;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.sq_psn = 0;
    if (ibv_modify_qp(iface->ud_qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) != 0)
        goto err_modify;
    for (int i = 0; i < VRB_UD_DEPTH; i++) {
        status = ud_post_recv(iface, i);
        if (status != RTM_OK)
            return status;
        iface->ud_send_free[i] = VRB_UD_DEPTH + i;
    }
    iface->ud_nsend_free = VRB_UD_DEPTH;
    return RTM_OK;

err_modify:
    return rtm_error_set(RTM_ERR_TRANSPORT, "verbs: UD QP 0x%x on %s: ibv_modify_qp: %s",
                         iface->ud_qp->qp_num, iface->dev.name, strerror(errno));
}

/* Called by close() before the CQ and PD go; the caller frees the rest. */
void vrb_conn_close(vrb_iface_t *iface)
{
    if (iface->ud_qp != NULL)
        ibv_destroy_qp(iface->ud_qp);
    iface->ud_qp = NULL;
    if (iface->ud_mr != NULL)
        ibv_dereg_mr(iface->ud_mr);
    iface->ud_mr = NULL;
    free(iface->ud_bufs);
    iface->ud_bufs = NULL;
}

/* Our first PSN on a QP: any 24-bit value both sides agree on; the QP
 * number makes it differ between QPs. */
static uint32_t qp_psn(const struct ibv_qp *qp)
{
    return qp->qp_num & 0xffffff;
}

/* Receive buffers of our SRQ for a new peer: full credits while the SRQ
 * has them unpromised, else 2 (see the SRQ sizing in vrb_open). */
static void grant_credits(vrb_iface_t *iface, vrb_ep_t *ep)
{
    int need = iface->credits + VRB_CTRL_SLACK;

    if (ep->grant > 0)
        return;
    if (iface->rx_budget >= need) {
        iface->rx_budget -= need;
        ep->grant = iface->credits;
    } else {
        ep->grant = 2;
    }
}

/* ep's request is about to go out: credits granted, retransmission timer
 * armed, on the list vrb_conn_timers walks. */
static void conn_begin(vrb_iface_t *iface, vrb_ep_t *ep)
{
    grant_credits(iface, ep);
    ep->conn_state = VRB_EP_CONNECTING;
    ep->conn_start = rtm_time_now();
    ep->conn_rto = VRB_CONN_RTO_MIN;
    ep->conn_next = ep->conn_start + ep->conn_rto;
    ep->conn_tries = 1;
    rtm_list_push_tail(&iface->connecting, &ep->conn_link);
    iface->nconnecting++;
}

/* One datagram to ep's UD QP. A full send queue drops it: the request's
 * retransmission (or the requester's, for a reply) makes up for it. */
static void ud_send(vrb_iface_t *iface, vrb_ep_t *ep, uint8_t type, uint32_t qpn, uint32_t psn,
                    uint32_t peer_qpn)
{
    struct ibv_send_wr wr, *bad;
    struct ibv_sge sge;
    vrb_conn_msg_t *m;
    int slot;

    if (ep->ud_ah == NULL) {
        struct ibv_ah_attr ah;

        vrb_ah_attr(iface, ep, &ah);
        ep->ud_ah = ibv_create_ah(iface->pd, &ah);
        if (ep->ud_ah == NULL) {
            rtm_debug("verbs: cannot create an address handle to rank %d (%s): %s; retrying",
                      ep->super.peer, ep->host, strerror(errno));
            return;
        }
    }
    if (iface->ud_nsend_free == 0)
        return;
    slot = iface->ud_send_free[--iface->ud_nsend_free];
    m = (vrb_conn_msg_t *)(void *)ud_buf(iface, slot);
    memset(m, 0, sizeof(*m));
    m->magic = VRB_CONN_MAGIC;
    m->type = type;
    m->mtu = (uint8_t)iface->dev.mtu;
    m->flags = iface->dev.gid_index >= 0 ? VRB_ADDR_F_GRH : 0;
    m->link = iface->dev.link;
    m->src = iface->world_rank;
    m->dst = ep->super.peer;
    m->qpn = qpn;
    m->psn = psn;
    m->peer_qpn = peer_qpn;
    m->srqn = iface->srqn;
    m->node = iface->node;
    m->local_size = (uint32_t)iface->local_size;
    m->ud_qpn = iface->ud_qp->qp_num;
    m->lid = iface->dev.lid;
    m->credits = (uint16_t)ep->grant;
    memcpy(m->gid, iface->dev.gid.raw, 16);
    memcpy(m->host, iface->host, strnlen(iface->host, VRB_HOST_LEN));
    sge.addr = (uintptr_t)m;
    sge.length = sizeof(*m);
    sge.lkey = iface->ud_mr->lkey;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = VRB_WR_UD_BIT | (uint64_t)slot;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.ud.ah = ep->ud_ah;
    wr.wr.ud.remote_qpn = ep->r_ud_qpn;
    wr.wr.ud.remote_qkey = VRB_UD_QKEY;
    if (ibv_post_send(iface->ud_qp, &wr, &bad) != 0) {
        rtm_debug("verbs: connection datagram to rank %d (%s) not posted: %s; retrying",
                  ep->super.peer, ep->host, strerror(errno));
        iface->ud_send_free[iface->ud_nsend_free++] = slot;
    }
}

/* A connection request: RC names our QP for the pair, XRC the TGT QP our
 * INI QP to the peer's host reaches. */
static void send_req(vrb_iface_t *iface, vrb_ep_t *ep)
{
    if (iface->xrc)
        ud_send(iface, ep, VRB_CONN_REQ, ep->remote_qpn, 0, 0);
    else
        ud_send(iface, ep, VRB_CONN_REQ, ep->qp->qp_num, qp_psn(ep->qp), 0);
}

/* Never returns: the runtime ends the job (PMIx abort). */
static void conn_fatal(vrb_iface_t *iface, vrb_ep_t *ep, const char *msg)
{
    vrb_fatal(iface, ep, msg);
}

static void connecting_del(vrb_iface_t *iface, vrb_ep_t *ep)
{
    if (!rtm_list_is_empty(&ep->conn_link)) {
        rtm_list_del(&ep->conn_link);
        rtm_list_init(&ep->conn_link);
        iface->nconnecting--;
    }
}

/* Take our QP to RTS towards the peer's (numbers from its datagram). */
static void conn_connect(vrb_iface_t *iface, vrb_ep_t *ep, const vrb_conn_msg_t *m)
{
    ep->remote_qpn = m->qpn;
    ep->peer_grant = m->credits;
    if (vrb_qp_connect(iface, ep, qp_psn(ep->qp), m->psn) != RTM_OK) {
        char msg[640];

        snprintf(msg, sizeof(msg), "rank %d (%s): verbs: cannot connect to rank %d (%s): %s",
                 iface->world_rank, iface->host, ep->super.peer, ep->host, rtm_last_error());
        conn_fatal(iface, ep, msg);
    }
}

static void conn_set_connected(vrb_iface_t *iface, vrb_ep_t *ep)
{
    ep->conn_state = VRB_EP_CONNECTED;
    ep->tx_credits += ep->peer_grant;
    ep->connected = 1;
    iface->connected_qps++;
}

void vrb_conn_established(vrb_ep_t *ep)
{
    vrb_iface_t *iface = vrb_ep_iface(ep);

    if (ep->conn_state != VRB_EP_ACCEPTED)
        return;
    conn_set_connected(iface, ep);
    rtm_debug("verbs: rank %d connected to rank %d (%s) on its request: QP 0x%x -> 0x%x, "
              "%d RC QPs held", iface->world_rank, ep->super.peer, ep->host, ep->qp->qp_num,
              ep->remote_qpn, iface->num_qps);
}

/* The peer's address from its datagram, for a peer we never looked up. */
static void addr_from_msg(vrb_ep_t *ep, const vrb_conn_msg_t *m)
{
    vrb_peer_addr_t a;

    if (ep->have_addr)
        return;
    vrb_conn_msg_addr(m, &a);
    vrb_ep_set_peer_addr(ep, &a);
}

static void on_request(vrb_iface_t *iface, vrb_ep_t *ep, const vrb_conn_msg_t *m)
{
    switch (ep->conn_state) {
    case VRB_EP_CONNECTING:
        rtm_debug("verbs: rank %d: connection requests to and from rank %d crossed; the "
                  "lower rank's wins", iface->world_rank, ep->super.peer);
        if (iface->world_rank < ep->super.peer)
            return;    /* our request wins: the peer answers it */
        connecting_del(iface, ep);
        break;         /* theirs wins: connect our QP to theirs */
    case VRB_EP_IDLE:
        if (vrb_qp_create(iface, ep) != RTM_OK) {
            char msg[640];

            snprintf(msg, sizeof(msg), "rank %d (%s): verbs: cannot accept the connection "
                     "from rank %d (%s): %s", iface->world_rank, iface->host, ep->super.peer,
                     ep->host, rtm_last_error());
            conn_fatal(iface, ep, msg);
        }
        grant_credits(iface, ep);
        break;
    case VRB_EP_ACCEPTED:
    case VRB_EP_CONNECTED:
        if (m->qpn == ep->remote_qpn)
            ud_send(iface, ep, VRB_CONN_REP, ep->qp->qp_num, qp_psn(ep->qp),
                    m->qpn);   /* our reply was lost */
        return;
    default:
        return;
    }
    conn_connect(iface, ep, m);
    ep->conn_state = VRB_EP_ACCEPTED;
    ud_send(iface, ep, VRB_CONN_REP, ep->qp->qp_num, qp_psn(ep->qp), m->qpn);
}

static void on_reply(vrb_iface_t *iface, vrb_ep_t *ep, const vrb_conn_msg_t *m)
{
    if (ep->conn_state != VRB_EP_CONNECTING || m->peer_qpn != ep->qp->qp_num)
        return;        /* a duplicate, or the answer to a request we gave up */
    connecting_del(iface, ep);
    conn_connect(iface, ep, m);
    conn_set_connected(iface, ep);
    if (vrb_post_hello(ep) != RTM_OK) {
        char msg[640];

        snprintf(msg, sizeof(msg), "rank %d (%s): verbs: first message to rank %d (%s) on "
                 "the new connection: %s", iface->world_rank, iface->host, ep->super.peer, ep->host,
                 rtm_last_error());
        conn_fatal(iface, ep, msg);
    }
    rtm_debug("verbs: rank %d connected to rank %d (%s): QP 0x%x -> 0x%x after %d request(s), "
              "%.1f ms; %d RC QPs held", iface->world_rank, ep->super.peer, ep->host, ep->qp->qp_num,
              ep->remote_qpn, ep->conn_tries, (rtm_time_now() - ep->conn_start) * 1e3,
              iface->num_qps);
}

/* ---- XRC ----------------------------------------------------------------- */

/* Our INI QP to ep's host if it is connected; else NULL, having started
 * connecting it (XREQ to ep's rank, which creates the TGT QP) if nothing is
 * in progress; *status_p: RTM_ERR_AGAIN, or the error. */
static vrb_xini_t *xrc_ini(vrb_iface_t *iface, vrb_ep_t *ep, rtm_status_t *status_p)
{
    vrb_xini_t *ini = &iface->xinis[ep->r_node];

    if (ini->state == VRB_XINI_CONNECTED)
        return ini;
    *status_p = RTM_ERR_AGAIN;
    if (ini->state == VRB_XINI_CONNECTING)
        return NULL;
    if (vrb_xrc_ini_create(ep, status_p) == NULL)
        return NULL;
    ini->state = VRB_XINI_CONNECTING;
    ini->via = ep->super.peer;
    ini->start = rtm_time_now();
    ini->rto = VRB_CONN_RTO_MIN;
    ini->next = ini->start + ini->rto;
    ini->tries = 1;
    rtm_list_push_tail(&iface->xconnecting, &ini->link);
    iface->nconnecting++;
    rtm_debug("verbs: rank %d: XRC INI QP 0x%x to host %s (node %d): asking rank %d for a TGT "
              "QP", iface->world_rank, ini->qp->qp_num, ep->host, ep->r_node, ep->super.peer);
    ud_send(iface, ep, VRB_CONN_XREQ, ini->qp->qp_num, qp_psn(ini->qp), 0);
    return NULL;
}

static rtm_status_t xrc_start(vrb_iface_t *iface, vrb_ep_t *ep)
{
    rtm_status_t status = RTM_OK;
    vrb_xini_t *ini = xrc_ini(iface, ep, &status);

    if (ini == NULL) {
        ep->xwait = status == RTM_ERR_AGAIN;
        return status;
    }
    ep->xwait = 0;
    status = vrb_xrc_attach(ep, ini);
    if (status != RTM_OK)
        return status;
    conn_begin(iface, ep);
    rtm_debug("verbs: rank %d connecting to rank %d (%s) over XRC INI QP 0x%x (TGT QP 0x%x, "
              "SRQ 0x%x)", iface->world_rank, ep->super.peer, ep->host, ep->qp->qp_num,
              ep->remote_qpn, ep->r_srqn);
    send_req(iface, ep);
    return RTM_ERR_AGAIN;
}

static void xrc_fatal(vrb_iface_t *iface, vrb_ep_t *ep, const char *what)
{
    char msg[768];

    snprintf(msg, sizeof(msg), "rank %d (%s): verbs XRC: %s rank %d (%s): %s",
             iface->world_rank, iface->host, what, ep->super.peer, ep->host, rtm_last_error());
    conn_fatal(iface, ep, msg);
}

static void xrc_on_request(vrb_iface_t *iface, vrb_ep_t *ep, const vrb_conn_msg_t *m)
{
    rtm_status_t status = RTM_OK;
    vrb_xini_t *ini;

    switch (ep->conn_state) {
    case VRB_EP_ACCEPTED:
    case VRB_EP_CONNECTED:
        if (m->qpn == ep->rx_qpn)      /* our reply was lost */
            ud_send(iface, ep, VRB_CONN_REP, ep->remote_qpn, 0, m->qpn);
        return;
    case VRB_EP_CONNECTING:
        rtm_debug("verbs: rank %d: connection requests to and from rank %d crossed; the "
                  "lower rank's wins", iface->world_rank, ep->super.peer);
        if (iface->world_rank < ep->super.peer)
            return;
        connecting_del(iface, ep);
        break;
    case VRB_EP_IDLE:
        break;
    default:
        return;
    }
    ini = xrc_ini(iface, ep, &status);
    if (ini == NULL) {
        if (status != RTM_ERR_AGAIN)
            xrc_fatal(iface, ep, "cannot accept the connection from");
        return;   /* answered when the request comes again, our INI QP connected */
    }
    if (vrb_xrc_attach(ep, ini) != RTM_OK)
        xrc_fatal(iface, ep, "cannot accept the connection from");
    ep->xwait = 0;
    grant_credits(iface, ep);
    ep->rx_qpn = m->qpn;
    ep->peer_grant = m->credits;
    ep->conn_state = VRB_EP_ACCEPTED;
    ud_send(iface, ep, VRB_CONN_REP, ep->remote_qpn, 0, m->qpn);
}

static void xrc_on_reply(vrb_iface_t *iface, vrb_ep_t *ep, const vrb_conn_msg_t *m)
{
    if (ep->conn_state != VRB_EP_CONNECTING || m->peer_qpn != ep->remote_qpn)
        return;        /* a duplicate, or the answer to a request we gave up */
    connecting_del(iface, ep);
    ep->rx_qpn = m->qpn;
    ep->peer_grant = m->credits;
    conn_set_connected(iface, ep);
    if (vrb_post_hello(ep) != RTM_OK)
        xrc_fatal(iface, ep, "first message on the new connection to");
    rtm_debug("verbs: rank %d connected to rank %d (%s) over XRC: INI QP 0x%x -> TGT QP 0x%x, "
              "SRQ 0x%x; its messages arrive through TGT QP 0x%x; after %d request(s), %.1f ms; "
              "%d XRC INI QPs, %d XRC TGT QPs held", iface->world_rank, ep->super.peer, ep->host,
              ep->qp->qp_num, ep->remote_qpn, ep->r_srqn, ep->rx_qpn, ep->conn_tries,
              (rtm_time_now() - ep->conn_start) * 1e3, iface->num_ini, iface->num_tgt);
}

/* A rank of another host (or ours) asks for a TGT QP for its INI QP. */
static void xrc_on_xreq(vrb_iface_t *iface, vrb_ep_t *ep, const vrb_conn_msg_t *m)
{
    uint32_t tgt;

    if (m->node != iface->node) {
        rtm_debug("verbs: rank %d: XRC request from rank %d for node %d, we are node %d: "
                  "dropped", iface->world_rank, ep->super.peer, (int)m->node, iface->node);
        return;
    }
    tgt = vrb_xrc_tgt_for(ep, m->qpn, m->psn);
    if (tgt == 0) {
        if (ep->tgt_qp != NULL)
            return;     /* a stale request for an INI QP we do not serve */
        xrc_fatal(iface, ep, "cannot create the TGT QP for the INI QP of");
    }
    rtm_debug("verbs: rank %d: XRC TGT QP 0x%x for rank %d's INI QP 0x%x; %d TGT QPs held",
              iface->world_rank, tgt, ep->super.peer, m->qpn, iface->num_tgt);
    ud_send(iface, ep, VRB_CONN_XREP, tgt, 0, m->qpn);
}

/* Our INI QP's TGT QP exists: connect the INI QP, then every pair that
 * waited for it. */
static void xrc_on_xrep(vrb_iface_t *iface, vrb_ep_t *ep, const vrb_conn_msg_t *m)
{
    vrb_xini_t *ini = &iface->xinis[m->node];

    if (ini->state != VRB_XINI_CONNECTING || ini->qp->qp_num != m->peer_qpn)
        return;        /* a duplicate */
    if (vrb_xrc_ini_connect(ini, ep, m->qpn) != RTM_OK)
        xrc_fatal(iface, ep, "cannot connect our INI QP to the TGT QP made by");
    rtm_list_del(&ini->link);
    rtm_list_init(&ini->link);
    iface->nconnecting--;
    rtm_debug("verbs: rank %d: XRC INI QP 0x%x to host %s (node %d) connected to TGT QP 0x%x "
              "made by rank %d, after %d request(s), %.1f ms; %d XRC INI QPs held",
              iface->world_rank, ini->qp->qp_num, ep->host, ini->node, m->qpn, ep->super.peer,
              ini->tries, (rtm_time_now() - ini->start) * 1e3, iface->num_ini);
    for (int i = 0; i < iface->world_size; i++) {
        vrb_ep_t *w = &iface->eps[i];
        rtm_status_t status;

        if (!w->xwait || w->r_node != ini->node || w->conn_state != VRB_EP_IDLE)
            continue;
        status = xrc_start(iface, w);
        if (status != RTM_OK && status != RTM_ERR_AGAIN)
            xrc_fatal(iface, w, "cannot connect to");
    }
}

static int xrc_timers(vrb_iface_t *iface, double now)
{
    rtm_list_t *it, *next;
    int n = 0;

    for (it = iface->xconnecting.next; it != &iface->xconnecting; it = next) {
        vrb_xini_t *ini = rtm_container_of(it, vrb_xini_t, link);
        vrb_ep_t *via = &iface->eps[ini->via];

        next = it->next;
        if (now - ini->start >= iface->conn_timeout) {
            char msg[768];

            snprintf(msg, sizeof(msg), "rank %d (%s): verbs: rank %d (%s) did not answer %d "
                     "XRC connection requests in %.0f s (our UD QP 0x%x -> its UD QP 0x%x, XRC "
                     "INI QP 0x%x to node %d, on %s port %u): the peer is gone, hung, computing "
                     "without calling into the library, or its host or link is down; "
                     "RTM_VERBS_CONNECT_TIMEOUT sets the wait", iface->world_rank, iface->host,
                     via->super.peer, via->host, ini->tries, now - ini->start, iface->ud_qp->qp_num,
                     via->r_ud_qpn, ini->qp->qp_num, ini->node, iface->dev.name,
                     iface->dev.port);
            conn_fatal(iface, via, msg);
        }
        if (now < ini->next)
            continue;
        ud_send(iface, via, VRB_CONN_XREQ, ini->qp->qp_num, qp_psn(ini->qp), 0);
        ini->tries++;
        ini->rto = ini->rto * 2 < VRB_CONN_RTO_MAX ? ini->rto * 2 : VRB_CONN_RTO_MAX;
        ini->next = now + ini->rto;
        n++;
    }
    return n;
}

static void on_datagram(vrb_iface_t *iface, const char *data, size_t len)
{
    vrb_addr_self_t self = vrb_addr_self(iface);
    vrb_conn_msg_t msg;
    const vrb_conn_msg_t *m = &msg;
    vrb_ep_t *ep;

    /* checked by vrb_conn_msg_parse (vrb_addr.c), which logs a dropped one */
    if (vrb_conn_msg_parse(&self, data, len, &msg) != 0)
        return;
    ep = &iface->eps[m->src];
    addr_from_msg(ep, m);
    if (iface->xrc) {
        switch (m->type) {
        case VRB_CONN_REQ:  xrc_on_request(iface, ep, m); break;
        case VRB_CONN_REP:  xrc_on_reply(iface, ep, m); break;
        case VRB_CONN_XREQ: xrc_on_xreq(iface, ep, m); break;
        default:            xrc_on_xrep(iface, ep, m); break;
        }
    } else if (m->type == VRB_CONN_REQ) {
        on_request(iface, ep, m);
    } else {
        on_reply(iface, ep, m);
    }
}

int vrb_conn_ud_done(vrb_iface_t *iface, const struct ibv_wc *wc)
{
    int idx = (int)(wc->wr_id & 0xffff);

    if (!(wc->wr_id & VRB_WR_RECV_BIT)) {
        /* a failed datagram is a lost one: retransmission covers it */
        if (wc->status != IBV_WC_SUCCESS)
            rtm_debug("verbs: connection datagram failed: %s", ibv_wc_status_str(wc->status));
        iface->ud_send_free[iface->ud_nsend_free++] = idx;
        return 1;
    }
    if (wc->status != IBV_WC_SUCCESS) {
        char msg[512];

        snprintf(msg, sizeof(msg), "rank %d (%s): verbs: the connection manager's UD QP 0x%x "
                 "on %s port %u failed: %s (vendor error 0x%x); no peer can connect to this "
                 "rank any more", iface->world_rank, iface->host, wc->qp_num, iface->dev.name,
                 iface->dev.port, ibv_wc_status_str(wc->status), wc->vendor_err);
        conn_fatal(iface, NULL, msg);
    }
    if (wc->byte_len > UD_GRH)
        on_datagram(iface, ud_buf(iface, idx) + UD_GRH, wc->byte_len - UD_GRH);
    if (ud_post_recv(iface, idx) != RTM_OK) {
        char msg[512];

        snprintf(msg, sizeof(msg), "rank %d (%s): %s", iface->world_rank, iface->host,
                 rtm_last_error());
        conn_fatal(iface, NULL, msg);
    }
    return 1;
}

rtm_status_t vrb_conn_start(vrb_ep_t *ep)
{
    vrb_iface_t *iface = vrb_ep_iface(ep);
    rtm_status_t status;

    switch (ep->conn_state) {
    case VRB_EP_IDLE:
        break;
    case VRB_EP_FAILED:
        return rtm_error_set(RTM_ERR_TRANSPORT, "verbs: rank %d (%s) could not be connected",
                             ep->super.peer, ep->host);
    default:
        return RTM_ERR_AGAIN;   /* handshake in progress */
    }
    if ((!iface->ondemand && !iface->xrc) || !ep->have_addr)
        return rtm_error_set(RTM_ERR_UNREACHABLE, "verbs: no connection to rank %d", ep->super.peer);
    if (iface->xrc)
        return xrc_start(iface, ep);
    status = vrb_qp_create(iface, ep);
    if (status != RTM_OK)
        return status;
    conn_begin(iface, ep);
    rtm_debug("verbs: rank %d connecting to rank %d (%s): QP 0x%x, request to UD QP 0x%x",
              iface->world_rank, ep->super.peer, ep->host, ep->qp->qp_num, ep->r_ud_qpn);
    send_req(iface, ep);
    return RTM_ERR_AGAIN;
}

int vrb_conn_timers(vrb_iface_t *iface)
{
    double now = rtm_time_now();
    rtm_list_t *it, *next;
    int n = iface->xrc ? xrc_timers(iface, now) : 0;

    for (it = iface->connecting.next; it != &iface->connecting; it = next) {
        vrb_ep_t *ep = rtm_container_of(it, vrb_ep_t, conn_link);

        next = it->next;
        if (now - ep->conn_start >= iface->conn_timeout) {
            char msg[768];

            connecting_del(iface, ep);
            ep->conn_state = VRB_EP_FAILED;
            snprintf(msg, sizeof(msg), "rank %d (%s): verbs: rank %d (%s) did not answer %d "
                     "connection requests in %.0f s (our UD QP 0x%x -> its UD QP 0x%x, RC QP "
                     "0x%x, on %s port %u): the peer is gone, hung, computing without calling "
                     "into the library, or its host or link is down; RTM_VERBS_CONNECT_TIMEOUT "
                     "sets the wait", iface->world_rank, iface->host, ep->super.peer, ep->host,
                     ep->conn_tries, now - ep->conn_start, iface->ud_qp->qp_num, ep->r_ud_qpn,
                     ep->qp->qp_num, iface->dev.name, iface->dev.port);
            conn_fatal(iface, ep, msg);
        }
        if (now < ep->conn_next)
            continue;
        send_req(iface, ep);
        ep->conn_tries++;
        ep->conn_rto = ep->conn_rto * 2 < VRB_CONN_RTO_MAX ? ep->conn_rto * 2 : VRB_CONN_RTO_MAX;
        ep->conn_next = now + ep->conn_rto;
        n++;
    }
    return n;
}
