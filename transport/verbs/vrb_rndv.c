/*
 * verbs: rendezvous memory. The sender exposes its buffer with
 * IBV_ACCESS_REMOTE_READ only (never remote write) for the life of one
 * message; the receiver reads it with RDMA Reads into its own buffer, which
 * it registers for local write for the transfer.
 *
 * Both registrations go through the registration cache (vrb_rcache.c): a
 * buffer used again is not registered again, and the cache never serves a
 * translation of memory that was unmapped or remapped since. The sender's
 * exposure still ends with the message: a cached remote registration loses
 * its remote read right at mem_dereg (the FIN) and gets it back only when
 * the same buffer is shown again.
 */
#include "config.h"

#include "transport/verbs/vrb.h"
#include "transport/verbs/vrb_rcache.h"
#include "common/error.h"
#include "common/log.h"
#include "transport/verbs/vrb_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The cache, made on the first rendezvous (after the PD exists). */
vrb_rcache_t *vrb_rndv_rcache(vrb_iface_t *iface)
{
    char who[VRB_HOST_LEN + 32];

    if (iface->rcache != NULL)
        return iface->rcache;
    snprintf(who, sizeof(who), "rank %d (%s)", iface->world_rank, iface->host);
    if (vrb_rcache_create(iface->pd, rtm_verbs_config.rcache,
                          rtm_verbs_config.rcache_max_entries, rtm_verbs_config.rcache_max_bytes,
                          who, &iface->rcache) != RTM_OK)
        return NULL;
    return iface->rcache;
}

rtm_status_t vrb_mem_reg(rtm_tl_iface_t *tl_iface, void *addr, size_t len,
                         rtm_tl_memh_t **memh_p, void *rkey, size_t *rkey_len_p)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);
    vrb_rcache_t *rc;
    vrb_rc_entry_t *e;
    rtm_status_t status;
    uint32_t key;

    if (iface == NULL || addr == NULL || len == 0 || memh_p == NULL || rkey == NULL ||
        rkey_len_p == NULL || *rkey_len_p < VRB_RKEY_LEN)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs mem_reg: bad arguments (len %zu)", len);
    rc = vrb_rndv_rcache(iface);
    if (rc == NULL)
        return RTM_ERR_NO_MEMORY;
    /* Least privilege: peers may read this buffer, nothing else. */
    status = vrb_rcache_get(rc, addr, len, IBV_ACCESS_REMOTE_READ, &e);
    if (status != RTM_OK)
        return status;
    key = e->mr->rkey;
    memcpy(rkey, &key, VRB_RKEY_LEN);
    *rkey_len_p = VRB_RKEY_LEN;
    *memh_p = (rtm_tl_memh_t *)(void *)e;
    return RTM_OK;
}

void vrb_mem_dereg(rtm_tl_iface_t *tl_iface, rtm_tl_memh_t *memh)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);

    /* Ends the exposure: the rkey is invalid from here on. */
    if (iface != NULL && memh != NULL)
        vrb_rcache_put(iface->rcache, (vrb_rc_entry_t *)(void *)memh);
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

        if (n > vrb_ep_iface(ep)->read_chunk)
            n = vrb_ep_iface(ep)->read_chunk;
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
        /* XRC: the read is checked against the named SRQ's PD, the owner's */
        wr.qp_type.xrc.remote_srqn = ep->r_srqn;
        slot->bounce = NULL;
        slot->get = g;
        slot->kind = VRB_SLOT_READ;
        slot->bytes = (uint32_t)n;
        if (ibv_post_send(ep->qp, &wr, &bad) != 0) {
            struct ibv_wc fake;

            slot->get = NULL;
            memset(&fake, 0, sizeof(fake));
            fake.status = IBV_WC_GENERAL_ERR;
            fake.qp_num = ep->qp->qp_num;
            fake.wr_id = vrb_wr_id(ep, ep->sq_head);
            vrb_wc_fatal(vrb_ep_iface(ep), &fake, "posting an RDMA read");
        }
        ep->sq_head++;
        ep->sq_unsignaled = 0;
        vrb_ep_iface(ep)->rma_wrs++;
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
    vrb_rcache_put(vrb_ep_iface(g->ep)->rcache, g->rc_entry);
    vrb_get_release(vrb_ep_iface(g->ep), g);
    comp->cb(comp, RTM_OK);
}

rtm_status_t vrb_get(rtm_tl_ep_t *tl_ep, void *local, rtm_tl_memh_t *local_memh, size_t len,
                     uint64_t remote_addr, const void *rkey, size_t rkey_len,
                     rtm_tl_comp_t *comp)
{
    vrb_ep_t *ep = vrb_ep_of(tl_ep);
    vrb_rcache_t *rc;
    rtm_status_t status;
    vrb_get_t *g;

    (void)local_memh;   /* the runtime passes none: we register (or find) it here */
    if (ep == NULL || local == NULL || len == 0 || rkey == NULL ||
        rkey_len != VRB_RKEY_LEN || comp == NULL || comp->cb == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs get: bad arguments (len %zu, rkey "
                             "%zu bytes)", len, rkey_len);
    /* a one-sided get may come before any message (on demand): connect
     * first; a rendezvous get follows the peer's RTS, so it is connected */
    if (__builtin_expect(!ep->connected, 0))
        return vrb_conn_start(ep);
    rc = vrb_rndv_rcache(vrb_ep_iface(ep));
    if (rc == NULL)
        return RTM_ERR_NO_MEMORY;
    g = vrb_get_alloc(vrb_ep_iface(ep));
    if (g == NULL)
        return RTM_ERR_NO_MEMORY;
    status = vrb_rcache_get(rc, local, len, IBV_ACCESS_LOCAL_WRITE, &g->rc_entry);
    if (status != RTM_OK) {
        vrb_get_release(vrb_ep_iface(ep), g);
        return status;
    }
    g->mr = g->rc_entry->mr;
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

void vrb_rndv_close(vrb_iface_t *iface)
{
    if (iface == NULL)
        return;
    for (int i = 0; i < iface->world_size; i++) {
        vrb_ep_t *ep = &iface->eps[i];

        while (!rtm_list_is_empty(&ep->pending_gets)) {
            vrb_get_t *g = rtm_container_of(ep->pending_gets.next, vrb_get_t, link);

            rtm_list_del(&g->link);
            vrb_rcache_put(iface->rcache, g->rc_entry);
            vrb_get_release(iface, g);
        }
    }
    vrb_get_pool_destroy(iface);
    vrb_rcache_destroy(iface->rcache);
    iface->rcache = NULL;
}
