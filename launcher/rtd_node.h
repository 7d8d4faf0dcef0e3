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

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

/* Listening sockets: one per address of this host the children may use. */
#define RTD_LISTEN_MAX   16
/* Connections still in their handshake, at most; more evict one of the
 * busiest source address's (rtd_launch.c). */
#define RTD_PENDING_MAX  64
/* A handshake not finished by then is refused: a legitimate rtd answers
 * within milliseconds (it waits for nothing else). */
#define RTD_HS_DEADLINE_SEC 10.0

/* A connection to our listening sockets still in its handshake. */
typedef struct rtd_pending {
    int                fd;          /* -1: free */
    int                stage;       /* 0: HELLO due; 1: CHALLENGE sent, PROOF due */
    int                host;        /* stage 1: the host index HELLO named */
    double             since;       /* accepted at */
    struct sockaddr_in from;
    unsigned char      nonce_c[RTM_AUTH_NONCE_LEN];
    unsigned char      nonce_p[RTM_AUTH_NONCE_LEN];
    unsigned char      in[RTD_HS_MSG_MAX];
    size_t             in_len;
} rtd_pending_t;

typedef struct rtd_node {
    rtd_jobdesc_t     *desc;
    rtd_tree_t         tree;
    int                self_host;   /* -1 for a root without ranks */
    int                pos;
    int                has_local;   /* ranks run here (the PMIx server contributes) */
    rtd_conn_t         parent;      /* fd -1 at the root */
    rtd_conn_t        *children;
    int                nchildren;
    /* What the loop polls for the children's connections: an epoll fd
     * over the listening sockets and the handshakes under way (readable
     * when any is); rtd_node_accept does the work. -1: no children. */
    int                listen_fd;
    int                listen_socks[RTD_LISTEN_MAX];
    int                nlisten;
    rtd_pending_t      pending[RTD_PENDING_MAX];
    int                npending;
    char               addrs[1024]; /* "a.b.c.d:port,..." the children connect back to */
    const rtm_secret_t *secret;     /* the job's (the caller's, outlives the node) */
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
                           const char *job_blob, size_t job_blob_len,
                           const rtm_secret_t *secret);
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
