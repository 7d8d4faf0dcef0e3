/*
 * Fences and direct modex across the daemon tree (see rtd_modex.h).
 */
#include "config.h"

#include "launcher/rtd_modex.h"
#include "common/log.h"
#include "common/timer.h"

#include <pmix_common.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bound on holding our fence part for a loss report (see fence_local). */
#define FENCE_HOLD_SEC 3.0
/* PF_EXITING in /proc/<pid>/stat's flags: the task is in do_exit. */
#define TASK_PF_EXITING 0x4

/* Whether the process is dead or dying: reaped, a zombie, or exiting. */
static int process_gone(pid_t pid)
{
    char path[64], buf[512], *p;
    unsigned long flags = 0;
    char state = 0;
    size_t got;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    f = fopen(path, "r");
    if (f == NULL)
        return 1;
    got = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[got] = '\0';
    p = strrchr(buf, ')'); /* the command name may hold spaces and parens */
    if (p == NULL || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)
        return 0;
    return state == 'Z' || state == 'X' || (flags & TASK_PF_EXITING) != 0;
}

/* A rank of this host that died while connected to our PMIx server, whose
 * loss the server has not reported yet (it will: it reports every rank
 * lost before it finalized). */
static int loss_unreported(const rtd_node_t *n)
{
    const rtrun_job_t *job = n->desc->job;

    for (int r = 0; r < job->nprocs; r++) {
        const rtrun_rank_t *rk = &job->ranks[r];

        if (rk->node_id == n->self_host && rk->connected && !rk->finalized &&
            rk->lost_order == 0 && rk->pid > 0 &&
            (rk->state == RTRUN_RANK_EXITED || process_gone(rk->pid)))
            return 1;
    }
    return 0;
}

static void fence_add(rtd_node_t *n, const char *data, size_t len)
{
    char *grown;

    if (len == 0)
        return;
    grown = realloc(n->fence_data, n->fence_len + len);
    if (grown == NULL) {
        rtm_error("out of memory gathering fence data (%zu bytes)", n->fence_len + len);
        return;
    }
    memcpy(grown + n->fence_len, data, len);
    n->fence_data = grown;
    n->fence_len += len;
}

/* Fence `seq` is over (status 1: released): send the release down the
 * tree, complete this host's part, and make ready for fence seq + 1. `data`
 * may be n->fence_data, freed only once both have used it. */
static void fence_release(rtd_node_t *n, int seq, int status, const char *data, size_t len)
{
    rtd_node_down(n, RTD_MSG_FENCE_DOWN, seq, status, 0, data, len);
    if (n->fence_local != NULL)
        rtrun_pmix_fence_done(n->fence_local, status, data, len);
    n->fence_local = NULL;
    n->fence_local_in = 0;
    n->fence_children_in = 0;
    free(n->fence_data);
    n->fence_data = NULL;
    n->fence_len = 0;
    n->fence_seq = seq + 1;
}

/* Everything below us is in: pass it up, or at the root, release all. */
static void fence_check(rtd_node_t *n)
{
    if ((n->has_local && !n->fence_local_in) || n->fence_children_in < n->nchildren)
        return;
    if (n->pos != 0) {
        rtd_node_up(n, RTD_MSG_FENCE_UP, n->fence_seq, 0, 0, n->fence_data, n->fence_len);
        return; /* the release comes down as FENCE_DOWN */
    }
    fence_release(n, n->fence_seq, 1, n->fence_data, n->fence_len);
}

static void fence_local_in(rtd_node_t *n, rtrun_pmix_req_t *req)
{
    if (n->fence_local != NULL) {
        rtm_error("a second fence began before the first one ended; failing it");
        rtrun_pmix_fence_done(req, 0, NULL, 0);
        return;
    }
    n->fence_local = req;
    n->fence_local_in = 1;
    fence_add(n, req->data, req->ndata);
    fence_check(n);
}

/* The PMIx library hands us our part of a fence that a lost rank made
 * complete (it went on without it) before it reports the loss. Released,
 * the fence lets ranks on other hosts go on without it and fail, and
 * rtrun would hear of their losses first. So while a rank of ours is dead
 * but not reported lost, our part waits: its loss goes up the tree first
 * (the tree keeps the order), and rtrun learns the losses in causal order
 * across hosts. A rank dies (is exiting) before its connection drops, so
 * the check cannot miss it. */
void rtd_node_fence_local(rtd_node_t *n, rtrun_pmix_req_t *req)
{
    if (n->fence_held == NULL && loss_unreported(n)) {
        n->fence_held = req;
        n->fence_held_until = rtm_time_now() + FENCE_HOLD_SEC;
        return;
    }
    fence_local_in(n, req);
}

double rtd_node_fence_recheck(rtd_node_t *n, double now)
{
    rtrun_pmix_req_t *req = n->fence_held;

    if (req == NULL)
        return 0;
    if (loss_unreported(n) && now < n->fence_held_until)
        return n->fence_held_until;
    n->fence_held = NULL;
    fence_local_in(n, req);
    return 0;
}

void rtd_modex_fence_down(rtd_node_t *n, const rtd_hdr_t *h, const char *payload)
{
    fence_release(n, h->a, h->b, payload, h->len);
}

void rtd_node_dmodex_local(rtd_node_t *n, rtrun_pmix_req_t *req)
{
    const rtrun_job_t *job = n->desc->job;
    int owner = job->ranks[req->rank].node_id;

    if (owner == n->self_host) {
        /* Our own rank: the library answers those itself; nothing to fetch. */
        rtrun_pmix_dmodex_done(req, PMIX_ERR_NOT_FOUND, NULL, 0);
        return;
    }
    req->id = ++n->dmx_next_id;
    req->next = n->dmx_pending;
    n->dmx_pending = req;
    rtd_node_route(n, RTD_MSG_DMX_REQ, owner, n->self_host, req->id, req->rank, NULL, 0);
}

void rtd_node_dmodex_served(rtd_node_t *n, rtrun_pmix_req_t *req)
{
    rtd_node_route(n, RTD_MSG_DMX_RESP, req->from_host, req->from_id, req->status, 0,
                   req->data, req->ndata);
    rtrun_pmix_req_free(req);
}

int rtd_node_pmix_request(rtd_node_t *n, const rtrun_pmix_event_t *ev)
{
    switch (ev->type) {
    case RTRUN_PMIX_EV_FENCE:
        rtd_node_fence_local(n, ev->req);
        return 1;
    case RTRUN_PMIX_EV_DMODEX:
        rtd_node_dmodex_local(n, ev->req);
        return 1;
    case RTRUN_PMIX_EV_SERVED:
        rtd_node_dmodex_served(n, ev->req);
        return 1;
    default:
        return 0;
    }
}

void rtd_modex_dmx_answer(rtd_node_t *n, const rtd_hdr_t *h, const char *payload)
{
    for (rtrun_pmix_req_t **pp = &n->dmx_pending; *pp != NULL; pp = &(*pp)->next) {
        rtrun_pmix_req_t *req = *pp;

        if (req->id != h->a)
            continue;
        *pp = req->next;
        rtrun_pmix_dmodex_done(req, h->b, payload, h->len);
        return;
    }
}

void rtd_modex_fence_up(rtd_node_t *n, const char *payload, size_t len)
{
    fence_add(n, payload, len);
    n->fence_children_in++;
    fence_check(n);
}

/* Our PMIx server looks the rank up; its SERVED event carries the answer
 * back (rtd_node_dmodex_served). A rank it cannot serve is answered now. */
void rtd_modex_dmx_request(rtd_node_t *n, const rtd_hdr_t *h)
{
    if (h->c < 0 || h->c >= n->desc->job->nprocs ||
        rtrun_pmix_dmodex_serve(n->desc->job->nspace, h->c, h->a, h->b) != RTM_OK)
        rtd_node_route(n, RTD_MSG_DMX_RESP, h->a, h->b, PMIX_ERR_NOT_FOUND, 0, NULL, 0);
}

void rtd_modex_fail_pending(rtd_node_t *n)
{
    if (n->fence_local != NULL)
        rtrun_pmix_fence_done(n->fence_local, 0, NULL, 0);
    n->fence_local = NULL;
    if (n->fence_held != NULL)
        rtrun_pmix_fence_done(n->fence_held, 0, NULL, 0);
    n->fence_held = NULL;
    while (n->dmx_pending != NULL) {
        rtrun_pmix_req_t *req = n->dmx_pending;

        n->dmx_pending = req->next;
        rtrun_pmix_dmodex_done(req, PMIX_ERR_UNREACH, NULL, 0);
    }
    free(n->fence_data);
    n->fence_data = NULL;
}
