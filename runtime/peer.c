/*
 * Peers: the state this rank keeps per world rank (sequence numbers,
 * credits, queues of what waits for the transport) and which opened
 * transport reaches each one. A peer's endpoint is made on first use, from
 * the address it published in the modex (runtime/tl.c opens the transports).
 * A message a peer got wrong ends the job here (peer_protocol_error).
 */
#include "config.h"

#include "runtime/peer.h"
#include "runtime/job.h"
#include "runtime/rt.h"
#include "common/error.h"
#include "common/log.h"
#include "runtime/rt_config.h"
#include "transport/shm/shm_direct.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

rtm_status_t peers_init(void)
{
    rtm_rt.peers = calloc((size_t)rtm_rt.world_size, sizeof(rtm_peer_t));
    if (rtm_rt.peers == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for %d peers",
                             rtm_rt.world_size);
    for (int i = 0; i < rtm_rt.world_size; i++) {
        rtm_peer_t *p = &rtm_rt.peers[i];

        p->tx_credits = (int)rt_config.eager_credits;
        p->node = -1;
        rtm_list_init(&p->pending_sends);
        rtm_list_init(&p->pending_ctrl);
        rtm_list_init(&p->pending_link);
    }
    rtm_list_init(&rtm_rt.pending_peers);
    return RTM_OK;
}

void peers_close(void)
{
    if (rtm_rt.peers != NULL) {
        for (int i = 0; i < rtm_rt.world_size; i++) {
            rtm_peer_t *p = &rtm_rt.peers[i];

            if (p->ep != NULL)
                p->tl->ops->ep_destroy(p->ep);
        }
        free(rtm_rt.peers);
        rtm_rt.peers = NULL;
    }
}

/* Slow path, once per peer: pick the first transport that reaches it. */
rtm_status_t peer_connect(int peer)
{
    rtm_peer_t *p = &rtm_rt.peers[peer];
    char key[64];

    for (int i = 0; i < rtm_rt.num_tls; i++) {
        rtm_tl_t *tl = &rtm_rt.tls[i];
        void *blob = NULL;
        size_t blob_len = 0;
        rtm_status_t status;

        if (tl->caps.flags & RTM_TL_CAP_SELF) {
            if (peer != rtm_rt.world_rank)
                continue;
        } else if (peer == rtm_rt.world_rank) {
            continue;
        } else {
            snprintf(key, sizeof(key), "rtm.tl.%s", tl->ops->name);
            if (job_lookup(peer, key, &blob, &blob_len) != RTM_OK)
                continue;
        }
        if (!tl->ops->reachable(tl->iface, peer, blob, blob_len)) {
            free(blob);
            continue;
        }
        status = tl->ops->ep_create(tl->iface, peer, blob, blob_len, &p->ep);
        free(blob);
        if (status != RTM_OK) {
            rtm_error("rank %d (%s): cannot connect to rank %d (%s) over %s: %s",
                      rtm_rt.world_rank, rtm_rt.hostname, peer, job_peer_hostname(peer),
                      tl->ops->name, rtm_last_error());
            return status;
        }
        p->tl = tl;
        /* shm: eager messages of one ring line, the 16 B match header and
         * up to 40 B, go straight into the ring (eager.h) when the
         * transport's limits let every such message go eagerly */
        if (tl->ep_ring != NULL && tl->caps.am_max >= SHM_LINE_DATA &&
            tl->caps.eager_limit >= PEER_RING_MAX)
            p->ring = tl->ep_ring(p->ep);
        rtm_debug("rank %d reaches rank %d (%s) over %s", rtm_rt.world_rank, peer,
                  job_peer_hostname(peer), tl->ops->name);
        return RTM_OK;
    }
    rtm_error("rank %d (%s): no transport reaches rank %d (%s); RTM_TRANSPORTS=%s "
              "(self reaches this rank only, shm ranks on this host only, tcp ranks that "
              "published a TCP address, verbs ranks with a connected RDMA queue pair)",
              rtm_rt.world_rank, rtm_rt.hostname, peer, job_peer_hostname(peer),
              rt_config.transports);
    return rtm_error_set(RTM_ERR_UNREACHABLE, "no transport reaches rank %d (%s)", peer,
                         job_peer_hostname(peer));
}

void peer_protocol_error(int src, const char *what)
{
    char msg[768];

    snprintf(msg, sizeof(msg), "rank %d (%s): corrupt message from rank %d (%s): %s",
             rtm_rt.world_rank, rtm_rt.hostname, src, job_peer_hostname(src), what);
    rtm_error("%s", msg);
    job_abort(70, msg);
}

void peer_no_memory(int src, size_t bytes)
{
    /* Nothing here allocates: no PMIx lookup of the peer's host and no
     * PMIx_Abort (both need memory; PMIx_Abort was seen to crash on a failed
     * malloc). The line goes out with one write(2) and the rank exits; rtrun
     * ends the job when a rank exits non-zero. The message cannot be dropped
     * (that would lose data silently) nor left in the transport, which has
     * consumed it. */
    rtm_error("rank %d (%s): out of memory: no room to hold a %zu-byte message from rank %d "
              "that arrived before its receive was posted; the job ends as the message "
              "cannot be kept (post receives earlier, or give the ranks more memory)",
              rtm_rt.world_rank, rtm_rt.hostname, bytes, src);
    _exit(75); /* EX_TEMPFAIL: with more memory it may run */
}

rtm_status_t rtm_world_node(int world_rank, int *node_p)
{
    rtm_status_t status = rt_check_ready("rtm_world_node");
    int node;

    if (status != RTM_OK)
        return status;
    if (world_rank < 0 || world_rank >= rtm_rt.world_size)
        return rtm_error_set(RTM_ERR_RANK, "rtm_world_node: rank %d is not in 0..%d",
                             world_rank, rtm_rt.world_size - 1);
    if (node_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_world_node: node_p is NULL");
    if (rtm_rt.peers[world_rank].node < 0)
        rtm_rt.peers[world_rank].node = job_peer_node(world_rank);
    node = rtm_rt.peers[world_rank].node;
    if (node < 0)
        return rtm_error_set(RTM_ERR_PMIX, "rtm_world_node: PMIx knows no node of rank %d",
                             world_rank);
    *node_p = node;
    return RTM_OK;
}
