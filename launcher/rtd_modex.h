/*
 * The job's fences and direct-modex requests across the daemon tree.
 * A fence gathers every host's data up the tree (each node waits for its
 * own server's part and its children's) and the root releases everyone
 * with all of it (FENCE_DOWN). A direct-modex request goes to the host
 * owning the rank, whose PMIx server answers it (DMX_RESP, routed back).
 */
#ifndef RTM_LAUNCHER_RTD_MODEX_H
#define RTM_LAUNCHER_RTD_MODEX_H

#include "launcher/pmix_server.h"
#include "launcher/rtd_node.h"

/* PMIx requests from the local server (see pmix_server.h). */
void rtd_node_fence_local(rtd_node_t *n, rtrun_pmix_req_t *req);
/* After a rank of this host was reported lost (RTRUN_PMIX_EV_LOST, passed
 * up first), and at the deadline: a held fence part goes on if no loss it
 * waits for is still unreported. Returns when to call again (0: never). */
double rtd_node_fence_recheck(rtd_node_t *n, double now);
void rtd_node_dmodex_local(rtd_node_t *n, rtrun_pmix_req_t *req);
void rtd_node_dmodex_served(rtd_node_t *n, rtrun_pmix_req_t *req);
/* Hand a PMIx event from the event pipe to the tree when it is a fence or
 * direct-modex request (then returns 1); 0 for rank events, which the
 * caller handles. */
int rtd_node_pmix_request(rtd_node_t *n, const rtrun_pmix_event_t *ev);

/* Messages from the tree (rtd_node_handle): a child's fence data; the
 * root's release; a request for a rank of this host; the answer to one
 * of ours. */
void rtd_modex_fence_up(rtd_node_t *n, const char *payload, size_t len);
void rtd_modex_fence_down(rtd_node_t *n, const rtd_hdr_t *h, const char *payload);
void rtd_modex_dmx_request(rtd_node_t *n, const rtd_hdr_t *h);
void rtd_modex_dmx_answer(rtd_node_t *n, const rtd_hdr_t *h, const char *payload);
/* The node goes away: the fence and the requests under way fail. */
void rtd_modex_fail_pending(rtd_node_t *n);

#endif
