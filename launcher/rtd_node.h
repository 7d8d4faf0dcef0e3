/*
 * The daemon a node of the tree is: its place in the tree, its parent and
 * children connections, and the fence and direct-modex state of the job
 * on this host; the routing of messages (fence data up and down,
 * direct-modex requests to the owning host, everything else up to the
 * root) and the dispatch of what arrives.
 */
#ifndef RTM_LAUNCHER_RTD_NODE_H
#define RTM_LAUNCHER_RTD_NODE_H

#include "launcher/pmix_server.h"
#include "launcher/rtd_conn.h"
#include "launcher/rtd_jobdesc.h"
#include "launcher/rtd_tree.h"
#include "launcher/rtd_wire.h"
#include "rtmsg.h"

#include <stddef.h>
#include <stdint.h>

typedef struct rtd_node {
    rtd_jobdesc_t     *desc;
    rtd_tree_t         tree;
    int                self_host;   /* -1 for a root without ranks */
    int                pos;
    int                has_local;   /* ranks run here (the PMIx server contributes) */
    rtd_conn_t         parent;      /* fd -1 at the root */
    rtd_conn_t        *children;
    int                nchildren;
    int                listen_fd;
    char               addrs[1024]; /* "a.b.c.d:port,..." the children connect back to */
    char               token[RTD_TOKEN_LEN + 1];
    const char        *job_blob;    /* the packed description, sent to every child */
    size_t             job_blob_len;
    /* the fence under way (fences are job-wide and never overlap) */
    int                fence_seq;
    rtrun_pmix_req_t  *fence_local;
    int                fence_local_in;
    int                fence_children_in;
    char              *fence_data;
    size_t             fence_len;
    /* our server's part, held until the loss of a rank of ours that died
     * is reported up the tree before it (rtd_node_fence_local) */
    rtrun_pmix_req_t  *fence_held;
    double             fence_held_until;
    /* direct modex requests of our ranks waiting for an answer */
    rtrun_pmix_req_t  *dmx_pending;
    int                dmx_next_id;
} rtd_node_t;

/* Set up the node (tree position, children slots). */
rtm_status_t rtd_node_init(rtd_node_t *n, rtd_jobdesc_t *desc, int self_host,
                           const char *job_blob, size_t job_blob_len, const char *token);
/* Pending fence and modex requests are answered with an error;
 * connections closed. */
void rtd_node_fini(rtd_node_t *n);

/* Send a message towards the root (to the parent; the root handles it). */
void rtd_node_up(rtd_node_t *n, uint32_t type, int a, int b, int c, const void *p, size_t len);
/* To every child. */
void rtd_node_down(rtd_node_t *n, uint32_t type, int a, int b, int c, const void *p, size_t len);
/* Towards the daemon of host dst, hop by hop through the tree. */
void rtd_node_route(rtd_node_t *n, uint32_t type, int dst, int a, int b, int c, const void *p,
                    size_t len);

/* Handle one message that came from conn (the parent or a child).
 * Routing and fence/modex work happen here; returns 1 when the message
 * is for the caller itself (an up message at the root, KILL at an rtd):
 * the caller then handles it and calls rtd_conn_consume; 0 when handled
 * and consumed; -1 on a protocol error. */
int rtd_node_handle(rtd_node_t *n, rtd_conn_t *from, const rtd_hdr_t *h, const char *payload);

#endif
