/*
 * verbs: XRC (RTM_VERBS_XRC=1). The verbs objects; the handshakes that
 * connect them are in vrb_conn.c.
 *
 * - One XRC domain per host, shared by the host's ranks through a file:
 *   every rank opens /dev/shm/rtm-<nspace>-xrc-<node> with O_CREAT and
 *   ibv_open_xrcd(fd, O_CREAT); the kernel (or any provider) identifies the
 *   domain by the file's inode. The modex fence comes after every rank's
 *   open, so at wireup local rank 0 unlinks the file: it exists only during
 *   init. A job killed before that leaves it where rtrun's end-of-job
 *   cleanup removes every /dev/shm/rtm-<nspace>* (covers SIGKILLed ranks).
 *   /dev/shm is a local tmpfs, as a real HCA needs (the inode must be the
 *   same for every process of the host; a network filesystem may not give
 *   that). A rank alone on its host uses a private domain and no file.
 * - One XRC SRQ per rank (its number in the address blob and handshake).
 * - One INI (send) QP per remote host, shared by every peer there: each
 *   work request names the destination rank's SRQ (Sends, and RDMA Reads,
 *   whose memory protection is the target SRQ's PD).
 * - TGT (receive) QPs in the host's shared domain. Rule: the rank an INI
 *   QP's connection request goes to (the first rank of that host its owner
 *   talks to) creates the TGT QP for it and holds it until it closes its
 *   interface. Other ranks of the host receive through it too (a TGT QP
 *   delivers into any SRQ of its domain). That is safe because no rank
 *   closes before every rank has quiesced: rtm_finalize runs barrier ->
 *   drain -> quiesce (every posted send completed) -> fence -> close, so
 *   nothing is in flight towards a TGT QP when its creator destroys it. A
 *   rank that dies earlier ends the job anyway.
 */
#include "config.h"

#include "transport/verbs/vrb.h"
#include "common/error.h"
#include "common/log.h"
#include "common/shmname.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

rtm_status_t vrb_xrc_open(vrb_iface_t *iface, const char *nspace)
{
    struct ibv_xrcd_init_attr xa;
    struct ibv_srq_init_attr_ex sa;

    iface->xrcd_fd = -1;
    memset(&xa, 0, sizeof(xa));
    xa.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
    xa.oflags = O_CREAT;
    xa.fd = -1;                     /* alone on the host: a private domain */
    if (iface->local_size > 1) {
        char what[32], name[sizeof(iface->xrcd_path) - 8];

        snprintf(what, sizeof(what), "xrc-%d", iface->node);
        (void)rtm_job_shm_name(nspace != NULL && nspace[0] ? nspace : "job", what, name,
                               sizeof(name));
        snprintf(iface->xrcd_path, sizeof(iface->xrcd_path), "/dev/shm%s", name);
        iface->xrcd_fd = open(iface->xrcd_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (iface->xrcd_fd < 0) {
            rtm_status_t st = rtm_error_set(RTM_ERR_TRANSPORT, "rank %d (%s): verbs XRC: cannot "
                                            "create the XRC domain file %s: %s",
                                            iface->world_rank, iface->host, iface->xrcd_path,
                                            strerror(errno));

            iface->xrcd_path[0] = '\0';
            return st;
        }
        xa.fd = iface->xrcd_fd;
    }
    iface->xrcd = ibv_open_xrcd(iface->dev.ctx, &xa);
    if (iface->xrcd == NULL)
        return rtm_error_set(RTM_ERR_TRANSPORT, "rank %d (%s): verbs XRC: ibv_open_xrcd on %s "
                             "(%s): %s", iface->world_rank, iface->host, iface->dev.name,
                             iface->xrcd_fd >= 0 ? iface->xrcd_path : "private domain",
                             strerror(errno));
    memset(&sa, 0, sizeof(sa));
    sa.attr.max_wr = (uint32_t)iface->srq_depth;
    sa.attr.max_sge = 1;
    sa.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_XRCD |
                   IBV_SRQ_INIT_ATTR_CQ;
    sa.srq_type = IBV_SRQT_XRC;
    sa.pd = iface->pd;
    sa.xrcd = iface->xrcd;
    sa.cq = iface->cq;
    iface->srq = ibv_create_srq_ex(iface->dev.ctx, &sa);
    if (iface->srq == NULL)
        return rtm_error_set(RTM_ERR_TRANSPORT, "rank %d (%s): verbs XRC: ibv_create_srq_ex(%d) "
                             "on %s: %s", iface->world_rank, iface->host, iface->srq_depth,
                             iface->dev.name, strerror(errno));
    if (ibv_get_srq_num(iface->srq, &iface->srqn) != 0)
        return rtm_error_set(RTM_ERR_TRANSPORT, "rank %d (%s): verbs XRC: ibv_get_srq_num: %s",
                             iface->world_rank, iface->host, strerror(errno));
    iface->xinis = calloc((size_t)iface->world_size, sizeof(*iface->xinis));
    if (iface->xinis == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "verbs XRC: no memory for %d hosts",
                             iface->world_size);
    for (int i = 0; i < iface->world_size; i++) {
        iface->xinis[i].node = i;
        rtm_list_init(&iface->xinis[i].link);
    }
    rtm_debug("verbs: rank %d: XRC domain %s, XRC SRQ 0x%x", iface->world_rank,
              iface->xrcd_fd >= 0 ? iface->xrcd_path : "(private)", iface->srqn);
    return RTM_OK;
}

void vrb_xrc_unlink(vrb_iface_t *iface)
{
    if (iface->xrcd_path[0] == '\0')
        return;
    /* Local rank 0 only; the others just forget the name. ENOENT is fine
     * (an earlier interface of the same job, or rtrun's cleanup). */
    if (iface->local_rank == 0 && unlink(iface->xrcd_path) == 0)
        rtm_debug("verbs: rank %d: XRC domain file %s removed (every rank of the host has "
                  "opened the domain)", iface->world_rank, iface->xrcd_path);
    iface->xrcd_path[0] = '\0';
}

/* Called by close() after every QP using the SRQ is gone. */
void vrb_xrc_close(vrb_iface_t *iface)
{
    for (int i = 0; iface->xinis != NULL && i < iface->world_size; i++)
        if (iface->xinis[i].qp != NULL)
            ibv_destroy_qp(iface->xinis[i].qp);
    for (int i = 0; i < iface->world_size; i++) {
        if (iface->eps[i].tgt_qp != NULL)
            ibv_destroy_qp(iface->eps[i].tgt_qp);
        iface->eps[i].tgt_qp = NULL;
    }
    free(iface->xinis);
    iface->xinis = NULL;
    if (iface->srq != NULL)
        ibv_destroy_srq(iface->srq);
    iface->srq = NULL;
    if (iface->xrcd != NULL)
        ibv_close_xrcd(iface->xrcd);
    iface->xrcd = NULL;
    vrb_xrc_unlink(iface);       /* an open that failed before wireup */
    if (iface->xrcd_fd >= 0)
        close(iface->xrcd_fd);
    iface->xrcd_fd = -1;
}

/* Our INI QP to ep's host, created (RESET -> INIT) if need be. Its send
 * queue holds VRB_SQ_DEPTH for every rank of that host: each peer keeps its
 * own count of what it has outstanding (vrb_am.c), so their sum never
 * exceeds the queue. */
vrb_xini_t *vrb_xrc_ini_create(vrb_ep_t *ep, rtm_status_t *status_p)
{
    vrb_iface_t *iface = vrb_ep_iface(ep);
    vrb_xini_t *ini = &iface->xinis[ep->r_node];
    struct ibv_qp_init_attr_ex ia;
    struct ibv_qp_attr a;
    long depth = (long)(ep->r_local_size > 0 ? ep->r_local_size : 1) * VRB_SQ_DEPTH;

    if (ini->qp != NULL)
        return ini;
    if (depth > iface->dev.dev_attr.max_qp_wr) {
        *status_p = rtm_error_set(RTM_ERR_NOT_SUPPORTED, "rank %d (%s): verbs XRC: %d ranks on "
                                  "host %s need an INI QP of %ld send WRs, more than %s allows "
                                  "(%d); use RTM_VERBS_XRC=0", iface->world_rank, iface->host,
                                  ep->r_local_size, ep->host, depth, iface->dev.name,
                                  iface->dev.dev_attr.max_qp_wr);
        return NULL;
    }
    memset(&ia, 0, sizeof(ia));
    ia.qp_type = IBV_QPT_XRC_SEND;
    ia.comp_mask = IBV_QP_INIT_ATTR_PD;
    ia.pd = iface->pd;
    ia.send_cq = iface->cq;
    ia.sq_sig_all = 0;
    ia.cap.max_send_wr = (uint32_t)depth;
    ia.cap.max_send_sge = 1;
    ia.cap.max_inline_data = VRB_MAX_INLINE;
    ini->qp = ibv_create_qp_ex(iface->dev.ctx, &ia);
    if (ini->qp == NULL) {
        ia.cap.max_inline_data = 0;
        ini->qp = ibv_create_qp_ex(iface->dev.ctx, &ia);
    }
    if (ini->qp == NULL) {
        *status_p = rtm_error_set(RTM_ERR_TRANSPORT, "rank %d (%s): verbs XRC: ibv_create_qp_ex "
                                  "(INI, to host %s) on %s: %s", iface->world_rank, iface->host,
                                  ep->host, iface->dev.name, strerror(errno));
        return NULL;
    }
    if (ia.cap.max_inline_data < iface->max_inline)
        iface->max_inline = ia.cap.max_inline_data;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.pkey_index = 0;
    a.port_num = iface->dev.port;
    a.qp_access_flags = 0;       /* it only sends */
    if (ibv_modify_qp(ini->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                      IBV_QP_ACCESS_FLAGS) != 0) {
        *status_p = rtm_error_set(RTM_ERR_TRANSPORT, "verbs XRC: INI QP 0x%x RESET->INIT: %s",
                                  ini->qp->qp_num, strerror(errno));
        ibv_destroy_qp(ini->qp);
        ini->qp = NULL;
        return NULL;
    }
    iface->num_ini++;
    return ini;
}

/* INIT -> RTR -> RTS towards the TGT QP `via` made for it. */
rtm_status_t vrb_xrc_ini_connect(vrb_xini_t *ini, vrb_ep_t *via, uint32_t tgt_qpn)
{
    vrb_iface_t *iface = vrb_ep_iface(via);
    rtm_status_t status;

    status = vrb_qp_rtr(iface, ini->qp, via, tgt_qpn, 0, 0);
    if (status == RTM_OK)
        status = vrb_qp_rts(iface, ini->qp, via, ini->qp->qp_num & 0xffffff);
    if (status != RTM_OK)
        return status;
    ini->tgt_qpn = tgt_qpn;
    ini->state = VRB_XINI_CONNECTED;
    return RTM_OK;
}

uint32_t vrb_xrc_tgt_for(vrb_ep_t *ep, uint32_t ini_qpn, uint32_t ini_psn)
{
    vrb_iface_t *iface = vrb_ep_iface(ep);
    struct ibv_qp_init_attr_ex ia;
    struct ibv_qp_attr a;

    if (ep->tgt_qp != NULL)    /* a repeated request, or one for an INI QP we do not know */
        return ep->tgt_ini_qpn == ini_qpn ? ep->tgt_qp->qp_num : 0;
    memset(&ia, 0, sizeof(ia));
    ia.qp_type = IBV_QPT_XRC_RECV;
    ia.comp_mask = IBV_QP_INIT_ATTR_XRCD;
    ia.xrcd = iface->xrcd;
    ep->tgt_qp = ibv_create_qp_ex(iface->dev.ctx, &ia);
    if (ep->tgt_qp == NULL) {
        rtm_error_set(RTM_ERR_TRANSPORT, "verbs XRC: ibv_create_qp_ex (TGT, for rank %d's INI "
                      "QP 0x%x) on %s: %s", ep->super.peer, ini_qpn, iface->dev.name, strerror(errno));
        return 0;
    }
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.pkey_index = 0;
    a.port_num = iface->dev.port;
    /* Peers only ever read rendezvous buffers: no remote write. */
    a.qp_access_flags = IBV_ACCESS_REMOTE_READ;
    if (ibv_modify_qp(ep->tgt_qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                      IBV_QP_ACCESS_FLAGS) != 0) {
        rtm_error_set(RTM_ERR_TRANSPORT, "verbs XRC: TGT QP 0x%x RESET->INIT: %s",
                      ep->tgt_qp->qp_num, strerror(errno));
        goto err_destroy;
    }
    if (vrb_qp_rtr(iface, ep->tgt_qp, ep, ini_qpn, ini_psn, 1) != RTM_OK)
        goto err_destroy;
    ep->tgt_ini_qpn = ini_qpn;
    iface->num_tgt++;
    return ep->tgt_qp->qp_num;

err_destroy:
    ibv_destroy_qp(ep->tgt_qp);
    ep->tgt_qp = NULL;
    return 0;
}

rtm_status_t vrb_xrc_attach(vrb_ep_t *ep, vrb_xini_t *ini)
{
    vrb_iface_t *iface = vrb_ep_iface(ep);
    rtm_status_t status;

    if (ep->qp == ini->qp)
        return RTM_OK;
    status = vrb_ep_sq_reserve(iface, ep);
    if (status != RTM_OK)
        return status;
    ep->qp = ini->qp;
    ep->remote_qpn = ini->tgt_qpn;
    iface->num_sqs++;
    return RTM_OK;
}
