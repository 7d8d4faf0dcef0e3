/*
 * The node of the daemon tree (see rtd_node.h): set-up, routing and the
 * dispatch of incoming messages.
 */
#include "config.h"

#include "launcher/rtd_node.h"
#include "launcher/rtd_modex.h"
#include "common/error.h"
#include "common/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

rtm_status_t rtd_node_init(rtd_node_t *n, rtd_jobdesc_t *desc, int self_host,
                           const char *job_blob, size_t job_blob_len,
                           const rtm_secret_t *secret)
{
    rtm_status_t status;
    int first;

    if (n == NULL || desc == NULL || desc->job == NULL || secret == NULL || !secret->set)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtd_node_init: bad argument");
    memset(n, 0, sizeof(*n));
    n->desc = desc;
    n->self_host = self_host;
    n->listen_fd = -1;
    n->job_blob = job_blob;
    n->job_blob_len = job_blob_len;
    n->secret = secret;
    for (int i = 0; i < RTD_PENDING_MAX; i++)
        n->pending[i].fd = -1;
    rtd_conn_init(&n->parent);
    status = rtd_tree_build(desc->job, desc->root_host, desc->fanout, &n->tree);
    if (status != RTM_OK)
        return status;
    n->pos = self_host < 0 ? 0 : n->tree.pos_of_host[self_host];
    if (n->pos < 0) {
        rtd_tree_free(&n->tree);
        return rtm_error_set(RTM_ERR_INVALID_ARG, "host %d has no place in the launch tree",
                             self_host);
    }
    n->has_local = self_host >= 0 && desc->job->hosts[self_host].nranks > 0;
    first = n->pos * n->tree.fanout + 1;
    for (int p = first; p < first + n->tree.fanout && p < n->tree.ndaemons; p++)
        n->nchildren++;
    n->children = calloc((size_t)(n->nchildren ? n->nchildren : 1), sizeof(*n->children));
    if (n->children == NULL) {
        rtd_tree_free(&n->tree);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for the launch tree");
    }
    for (int i = 0; i < n->nchildren; i++) {
        rtd_conn_init(&n->children[i]);
        n->children[i].pos = first + i;
        n->children[i].host = n->tree.host_of_pos[first + i];
    }
    return RTM_OK;
}


void rtd_node_up(rtd_node_t *n, uint32_t type, int a, int b, int c, const void *p, size_t len)
{
    rtd_conn_send(&n->parent, type, -1, a, b, c, p, len);
}

void rtd_node_down(rtd_node_t *n, uint32_t type, int a, int b, int c, const void *p, size_t len)
{
    /* children still starting get it queued, after their JOB */
    for (int i = 0; i < n->nchildren; i++)
        rtd_conn_send(&n->children[i], type, -1, a, b, c, p, len);
}

/* Towards host dst: down to the child whose subtree holds it, else up. */
void rtd_node_route(rtd_node_t *n, uint32_t type, int dst, int a, int b, int c, const void *p,
                    size_t len)
{
    int q = dst >= 0 && dst < n->desc->job->nhosts ? n->tree.pos_of_host[dst] : -1;

    if (q < 0 && dst == n->desc->root_host)
        q = 0;
    for (int i = 0; q > 0 && i < n->nchildren; i++) {
        if (rtd_tree_in_subtree(&n->tree, n->children[i].pos, q)) {
            rtd_conn_send(&n->children[i], type, dst, a, b, c, p, len);
            return;
        }
    }
    rtd_conn_send(&n->parent, type, dst, a, b, c, p, len);
}

int rtd_node_handle(rtd_node_t *n, rtd_conn_t *from, const rtd_hdr_t *h, const char *payload)
{
    int from_parent = from == &n->parent;
    int mine = 0;

    switch (h->type) {
    case RTD_MSG_STARTED:
    case RTD_MSG_IOF:
    case RTD_MSG_EXIT:
    case RTD_MSG_PMIXEV:
    case RTD_MSG_ERROR:
    case RTD_MSG_STDIN_ACK:
    case RTD_MSG_STATE:
        if (from_parent)
            goto bad;
        if (n->pos == 0)
            mine = 1;
        else
            rtd_node_up(n, h->type, h->a, h->b, h->c, payload, h->len);
        break;
    case RTD_MSG_FENCE_UP:
        if (from_parent)
            goto bad;
        rtd_modex_fence_up(n, payload, h->len);
        break;
    case RTD_MSG_FENCE_DOWN:
        if (!from_parent)
            goto bad;
        rtd_modex_fence_down(n, h, payload);
        break;
    case RTD_MSG_DMX_REQ:
        if (h->dst == n->self_host)
            rtd_modex_dmx_request(n, h);
        else
            rtd_node_route(n, h->type, h->dst, h->a, h->b, h->c, NULL, 0);
        break;
    case RTD_MSG_DMX_RESP:
        if (h->dst == n->self_host)
            rtd_modex_dmx_answer(n, h, payload);
        else
            rtd_node_route(n, h->type, h->dst, h->a, h->b, h->c, payload, h->len);
        break;
    case RTD_MSG_STDIN:
        if (h->dst == n->self_host)
            mine = 1;
        else
            rtd_node_route(n, h->type, h->dst, h->a, h->b, h->c, payload, h->len);
        break;
    case RTD_MSG_KILL:
    case RTD_MSG_STATE_ASK:
        if (!from_parent)
            goto bad;
        rtd_node_down(n, h->type, h->a, h->b, h->c, NULL, 0);
        mine = 1;
        break;
    default:
        goto bad;
    }
    if (!mine)
        rtd_conn_consume(from, h);
    return mine;

bad:
    rtm_error("unexpected message %u from host %d", h->type, from->host);
    return -1;
}

void rtd_node_fini(rtd_node_t *n)
{
    if (n == NULL)
        return;
    rtd_modex_fail_pending(n);
    for (int i = 0; n->children != NULL && i < n->nchildren; i++) {
        rtd_conn_t *c = &n->children[i];

        rtd_conn_close(c);
        if (c->agent_stdin >= 0)
            close(c->agent_stdin);
        if (c->agent_err >= 0)
            close(c->agent_err);
        c->agent_stdin = c->agent_err = -1;
    }
    free(n->children);
    n->children = NULL;
    rtd_conn_close(&n->parent);
    /* (a placeholder node before rtd_node_init has none: npending 0) */
    for (int i = 0; n->npending > 0 && i < RTD_PENDING_MAX; i++) {
        if (n->pending[i].fd >= 0) {
            close(n->pending[i].fd);
            n->pending[i].fd = -1;
            n->npending--;
        }
    }
    for (int i = 0; i < n->nlisten; i++)
        close(n->listen_socks[i]);
    n->nlisten = 0;
    if (n->listen_fd >= 0)
        close(n->listen_fd);
    n->listen_fd = -1;
    rtd_tree_free(&n->tree);
}
