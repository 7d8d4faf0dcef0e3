/*
 * verbs: rendezvous memory. The sender exposes its buffer with
 * IBV_ACCESS_REMOTE_READ only (never remote write) for the life of one
 * message; the receiver reads it with RDMA Reads into its own buffer, which
 * it registers for local write for the transfer. Both registrations are per
 * message for now: no cache, so never a stale translation (a cache that
 * intercepts free/munmap is future work, see docs/verbs.md).
 */
#include "config.h"

#include "transport/verbs/vrb.h"
#include "common/error.h"
#include "common/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

rtm_status_t vrb_mem_reg(rtm_tl_iface_t *tl_iface, void *addr, size_t len,
                         rtm_tl_memh_t **memh_p, void *rkey, size_t *rkey_len_p)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);
    struct ibv_mr *mr;
    uint32_t key;

    if (iface == NULL || addr == NULL || len == 0 || memh_p == NULL || rkey == NULL ||
        rkey_len_p == NULL || *rkey_len_p < VRB_RKEY_LEN)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs mem_reg: bad arguments (len %zu)", len);
    /* Least privilege: peers may read this buffer, nothing else. */
    mr = ibv_reg_mr(iface->pd, addr, len, IBV_ACCESS_REMOTE_READ);
    if (mr == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "verbs: cannot register %zu bytes at %p for "
                             "reading by a peer: %s", len, addr, strerror(errno));
    key = mr->rkey;
    memcpy(rkey, &key, VRB_RKEY_LEN);
    *rkey_len_p = VRB_RKEY_LEN;
    *memh_p = (rtm_tl_memh_t *)(void *)mr;
    return RTM_OK;
}

void vrb_mem_dereg(rtm_tl_iface_t *tl_iface, rtm_tl_memh_t *memh)
{
    (void)tl_iface;
    /* Ends the exposure: the rkey is invalid from here on. */
    if (memh != NULL)
        ibv_dereg_mr((struct ibv_mr *)(void *)memh);
}

void vrb_get_post(vrb_get_t *g)
{
    vrb_ep_t *ep = g->ep;

    while (g->posted < g->len && g->inflight < VRB_READS_INFLIGHT &&
           ep->sq_head - ep->sq_tail < VRB_SQ_DEPTH) {
        size_t n = g->len - g->posted;
        vrb_sq_slot_t *slot = &ep->slots[ep->sq_head % VRB_SQ_DEPTH];
        struct ibv_send_wr wr, *bad;
        struct ibv_sge sge;

        if (n > ep->iface->read_chunk)
            n = ep->iface->read_chunk;
        sge.addr = (uintptr_t)(g->local + g->posted);
        sge.length = (uint32_t)n;
        sge.lkey = g->mr->lkey;
        memset(&wr, 0, sizeof(wr));
        wr.wr_id = vrb_wr_id(ep, ep->sq_head);
        wr.sg_list = &sge;
        wr.num_sge = 1;
        wr.opcode = IBV_WR_RDMA_READ;
        wr.send_flags = IBV_SEND_SIGNALED;
        wr.wr.rdma.remote_addr = g->remote_addr + g->posted;
        wr.wr.rdma.rkey = g->rkey;
        slot->bounce = NULL;
        slot->get = g;
        slot->bytes = (uint32_t)n;
        if (ibv_post_send(ep->qp, &wr, &bad) != 0) {
            struct ibv_wc fake;

            slot->get = NULL;
            memset(&fake, 0, sizeof(fake));
            fake.status = IBV_WC_GENERAL_ERR;
            fake.qp_num = ep->qp->qp_num;
            fake.wr_id = vrb_wr_id(ep, ep->sq_head);
            vrb_wc_fatal(ep->iface, &fake, "posting an RDMA read");
        }
        ep->sq_head++;
        ep->sq_unsignaled = 0;
        g->posted += n;
        g->inflight++;
    }
    if (g->posted < g->len) {
        if (rtm_list_is_empty(&g->link))
            rtm_list_push_tail(&ep->pending_gets, &g->link);
    } else if (!rtm_list_is_empty(&g->link)) {
        rtm_list_del(&g->link);
        rtm_list_init(&g->link);
    }
}

void vrb_get_chunk_done(vrb_get_t *g, uint32_t bytes)
{
    rtm_tl_comp_t *comp = g->comp;

    g->done += bytes;
    g->inflight--;
    if (g->done < g->len) {
        if (rtm_list_is_empty(&g->link))
            vrb_get_post(g);
        return;
    }
    ibv_dereg_mr(g->mr);
    free(g);
    comp->cb(comp, RTM_OK);
}

rtm_status_t vrb_get(rtm_tl_ep_t *ep, void *local, rtm_tl_memh_t *local_memh, size_t len,
                     uint64_t remote_addr, const void *rkey, size_t rkey_len,
                     rtm_tl_comp_t *comp)
{
    vrb_get_t *g;

    (void)local_memh;   /* the runtime passes none: we register per transfer */
    if (ep == NULL || local == NULL || len == 0 || rkey == NULL ||
        rkey_len != VRB_RKEY_LEN || comp == NULL || comp->cb == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs get: bad arguments (len %zu, rkey "
                             "%zu bytes)", len, rkey_len);
    g = calloc(1, sizeof(*g));
    if (g == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "verbs get: no memory");
    g->mr = ibv_reg_mr(ep->iface->pd, local, len, IBV_ACCESS_LOCAL_WRITE);
    if (g->mr == NULL) {
        free(g);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "verbs: cannot register %zu bytes at %p to "
                             "read into: %s", len, local, strerror(errno));
    }
    rtm_list_init(&g->link);
    g->ep = ep;
    g->local = local;
    g->remote_addr = remote_addr;
    memcpy(&g->rkey, rkey, VRB_RKEY_LEN);
    g->len = len;
    g->comp = comp;
    /* reads queue behind pending ones of this peer, in order */
    if (!rtm_list_is_empty(&ep->pending_gets))
        rtm_list_push_tail(&ep->pending_gets, &g->link);
    else
        vrb_get_post(g);
    return RTM_OK;
}
