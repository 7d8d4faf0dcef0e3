/*
 * The job-state report (see state.h and common/state_ask.h for the ask and
 * the answer file). Everything here is the slow path of a report: it reads
 * the request table, the matching contexts, the peers and, through
 * ops.ep_state, the transports, and allocates as it likes. Nothing here
 * runs unless a launcher asked.
 */
#include "config.h"

#include "runtime/state.h"
#include "runtime/job.h"
#include "runtime/match.h"
#include "runtime/peer.h"
#include "runtime/request.h"
#include "runtime/rt.h"
#include "runtime/rt_config.h"
#include "common/log.h"
#include "common/state_ask.h"

#include <errno.h>
#include <limits.h>
#include <pmix.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

atomic_int state_asked;

/* The ask as PMIx's thread left it (under ask_lock). */
static pthread_mutex_t ask_lock = PTHREAD_MUTEX_INITIALIZER;
static char     ask_dir[PATH_MAX];
static unsigned ask_seq;
static size_t   handler_ref;
static int      handler_registered;
static int      (*binding_describe)(state_call_t *call_p);

/* First envelopes listed per queue; the counts are always whole. */
#define STATE_FIRST_ENVELOPES 4

void state_binding_set(int (*describe)(state_call_t *call_p))
{
    binding_describe = describe;
}

/* ---- the ask (PMIx's thread) ---- */

static void on_state_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                           pmix_info_t info[], size_t ninfo, pmix_info_t *results,
                           size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                           void *cbdata)
{
    const char *dir = NULL;
    unsigned seq = 0;

    (void)id;
    (void)status;
    (void)source;
    (void)results;
    (void)nresults;
    for (size_t i = 0; i < ninfo; i++) {
        if (strcmp(info[i].key, RTM_STATE_KEY_DIR) == 0 && info[i].value.type == PMIX_STRING)
            dir = info[i].value.data.string;
        else if (strcmp(info[i].key, RTM_STATE_KEY_SEQ) == 0 &&
                 info[i].value.type == PMIX_UINT32)
            seq = info[i].value.data.uint32;
    }
    if (dir != NULL && strlen(dir) < sizeof(ask_dir)) {
        pthread_mutex_lock(&ask_lock);
        snprintf(ask_dir, sizeof(ask_dir), "%s", dir);
        ask_seq = seq;
        pthread_mutex_unlock(&ask_lock);
        atomic_store_explicit(&state_asked, 1, memory_order_release);
    }
    if (cbfunc != NULL)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

void state_init(void)
{
    pmix_status_t code = RTM_STATE_EVENT, rc;

    if (rtm_rt.singleton)
        return;
    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_state_event, NULL, NULL);
    if (rc < 0) {
        rtm_debug("no job-state reports: PMIx_Register_event_handler: %s",
                  PMIx_Error_string(rc));
        return;
    }
    handler_ref = (size_t)rc;
    handler_registered = 1;
}

void state_fini(void)
{
    if (handler_registered)
        PMIx_Deregister_event_handler(handler_ref, NULL, NULL);
    handler_registered = 0;
    binding_describe = NULL;
}

/* ---- a growing text buffer ---- */

typedef struct sbuf {
    char  *p;
    size_t len, cap;
    int    oom;
} sbuf_t;

static void sb_printf(sbuf_t *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(sbuf_t *sb, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (sb->oom)
        return;
    for (;;) {
        size_t room = sb->cap - sb->len;

        va_start(ap, fmt);
        n = vsnprintf(sb->p ? sb->p + sb->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0) {
            sb->oom = 1;
            return;
        }
        if ((size_t)n < room) {
            sb->len += (size_t)n;
            return;
        }
        size_t cap = sb->cap ? sb->cap * 2 : 8192;
        while (cap < sb->len + (size_t)n + 1)
            cap *= 2;
        char *grown = realloc(sb->p, cap);
        if (grown == NULL) {
            sb->oom = 1;
            return;
        }
        sb->p = grown;
        sb->cap = cap;
    }
}

/* A JSON string (quotes included). */
static void sb_str(sbuf_t *sb, const char *s)
{
    sb_printf(sb, "\"");
    for (; s != NULL && *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c == '"' || c == '\\')
            sb_printf(sb, "\\%c", c);
        else if (c < 0x20)
            sb_printf(sb, "\\u%04x", c);
        else
            sb_printf(sb, "%c", c);
    }
    sb_printf(sb, "\"");
}

/* ---- what the structures say ---- */

/* The communicator a context id belongs to: "WORLD", "SELF", "comm 3";
 * coll_p: the collective context of it. */
static void ctx_name(uint32_t ctx, char *buf, size_t len, int *coll_p)
{
    for (int h = 0; h < rtm_rt.num_comms; h++) {
        const rtm_comm_obj_t *c = &rtm_rt.comms[h];

        if (!c->in_use || (c->ctx_p2p != ctx && c->ctx_coll != ctx))
            continue;
        if (h == RTM_COMM_WORLD)
            snprintf(buf, len, "WORLD");
        else if (h == RTM_COMM_SELF)
            snprintf(buf, len, "SELF");
        else
            snprintf(buf, len, "comm %d", h);
        *coll_p = c->ctx_coll == ctx;
        return;
    }
    snprintf(buf, len, "context %u", (unsigned)ctx);
    *coll_p = 0;
}

static const char *peer_host(int world)
{
    const char *h = world >= 0 && world < rtm_rt.world_size ? job_peer_hostname(world) : NULL;

    return h != NULL && h[0] ? h : "?";
}

static int credits_in_use(const rtm_peer_t *p)
{
    return (int)rt_config.eager_credits - p->tx_credits;
}

static int on_list(const rtm_list_t *head, const rtm_list_t *elem)
{
    const rtm_list_t *pos;

    rtm_list_for_each(pos, head) {
        if (pos == elem)
            return 1;
    }
    return 0;
}

/* The protocol state of an incomplete request, in words. */
static void req_state_text(const rtm_request_impl_t *req, char *buf, size_t len)
{
    const rtm_peer_t *p = req->peer >= 0 ? &rtm_rt.peers[req->peer] : NULL;
    int get = p != NULL && p->tl != NULL && (p->tl->caps.flags & RTM_TL_CAP_GET);

    if (req->kind == RTM_REQ_SEND) {
        int queued = p != NULL && on_list(&p->pending_sends, &req->link);
        int n = 0;

        if (req->flags & RTM_REQ_F_DETACHED) {
            /* the runtime's own: its caller's send has completed */
            n = snprintf(buf, len, "detached (the caller's send completed, a copy waits): ");
            if (n < 0 || (size_t)n >= len)
                return;
            buf += n;
            len -= (size_t)n;
        }
        if (queued && req->op == RTM_OP_EAGER && p->tx_credits <= 0)
            snprintf(buf, len, "eager, queued for an eager credit (%d of %ld in use)",
                     credits_in_use(p), rt_config.eager_credits);
        else if (queued && req->op == RTM_OP_EAGER)
            snprintf(buf, len, "eager, queued: the %s transport takes no more to this peer "
                     "for now", p->tl->ops->name);
        else if (queued)
            snprintf(buf, len, "RTS queued behind earlier sends or transport space");
        else if (req->op == RTM_OP_DATA)
            snprintf(buf, len, "CTS received, DATA streaming (%zu of %zu bytes sent)",
                     req->xfer_done, req->xfer_len);
        else if (req->flags & RTM_REQ_F_RNDV_TX)
            snprintf(buf, len, "RTS sent, not yet matched by the receiver (waiting for %s)",
                     get ? "its get and FIN" : "CTS");
        else
            snprintf(buf, len, "in progress (op %u)", (unsigned)req->op);
        return;
    }
    if (req->flags & RTM_REQ_F_POSTED)
        snprintf(buf, len, "posted, no matching message has arrived");
    else if (req->op == RTM_OP_CTS)
        snprintf(buf, len, "matched an RTS, CTS queued");
    else if (req->op == RTM_OP_FIN)
        snprintf(buf, len, "data read, FIN pending (queued)");
    else if (req->comp.cb != NULL && req->xfer_done == 0)
        snprintf(buf, len, "matched an RTS, get in flight (%zu bytes)", req->xfer_len);
    else
        snprintf(buf, len, "matched an RTS, CTS sent, DATA received %zu of %zu bytes",
                 req->xfer_done, req->xfer_len);
}

/* Calls fn for every allocated, incomplete request, in table order. */
static void for_each_pending_req(void (*fn)(const rtm_request_impl_t *, void *), void *arg)
{
    for (uint32_t i = 0;; i++) {
        const rtm_request_impl_t *req = req_at(i);

        if (req == NULL)
            break;
        if (req->magic == RTM_REQ_MAGIC && !(req->flags & RTM_REQ_F_COMPLETE))
            fn(req, arg);
    }
}

typedef struct req_json_ctx {
    sbuf_t *sb;
    int     n;
} req_json_ctx_t;

static void req_json(const rtm_request_impl_t *req, void *arg)
{
    req_json_ctx_t *c = arg;
    char comm[48], st[224];
    int coll;

    ctx_name(req->ctx, comm, sizeof(comm), &coll);
    req_state_text(req, st, sizeof(st));
    sb_printf(c->sb, "%s\n    {\"kind\":\"%s\",\"peer\":%d,\"peer_host\":", c->n ? "," : "",
              req->kind == RTM_REQ_SEND ? "send" : "recv", req->peer);
    sb_str(c->sb, req->peer >= 0 ? peer_host(req->peer) : "any");
    sb_printf(c->sb, ",\"comm_rank\":%d,\"tag\":%d,\"comm\":", req->rank, req->tag);
    sb_str(c->sb, comm);
    sb_printf(c->sb, ",\"collective_context\":%s,\"context\":%u,\"bytes\":%zu,"
              "\"detached\":%s,\"state\":", coll ? "true" : "false", (unsigned)req->ctx,
              req->len, (req->flags & RTM_REQ_F_DETACHED) ? "true" : "false");
    sb_str(c->sb, st);
    sb_printf(c->sb, "}");
    c->n++;
}

static void contexts_json(sbuf_t *sb)
{
    int n = 0;

    sb_printf(sb, "  \"communicators\":[");
    for (uint32_t id = 0; id < rtm_rt.contexts.num; id++) {
        const rtm_match_ctx_t *m = rtm_rt.contexts.ctxs[id];
        const rtm_list_t *pos;
        int np = 0, nu = 0, k;
        char comm[48];
        int coll;

        if (m == NULL)
            continue;
        rtm_list_for_each(pos, &m->posted) np++;
        rtm_list_for_each(pos, &m->unexpected) nu++;
        if (np == 0 && nu == 0)
            continue;
        ctx_name(id, comm, sizeof(comm), &coll);
        sb_printf(sb, "%s\n    {\"comm\":", n++ ? "," : "");
        sb_str(sb, comm);
        sb_printf(sb, ",\"context\":%u,\"collective_context\":%s,\"posted\":%d,"
                  "\"posted_first\":[", (unsigned)id, coll ? "true" : "false", np);
        k = 0;
        rtm_list_for_each(pos, &m->posted) {
            const rtm_request_impl_t *r = rtm_container_of(pos, rtm_request_impl_t, link);

            if (k == STATE_FIRST_ENVELOPES)
                break;
            sb_printf(sb, "%s{\"source\":%d,\"tag\":%d,\"bytes\":%zu}", k++ ? "," : "",
                      r->rank, r->tag, r->len);
        }
        sb_printf(sb, "],\"unexpected\":%d,\"unexpected_first\":[", nu);
        k = 0;
        rtm_list_for_each(pos, &m->unexpected) {
            const rtm_unexp_t *u = rtm_container_of(pos, rtm_unexp_t, link);

            if (k == STATE_FIRST_ENVELOPES)
                break;
            sb_printf(sb, "%s{\"source\":%d,\"world_source\":%d,\"tag\":%d,\"bytes\":%zu,"
                      "\"protocol\":\"%s\"}", k++ ? "," : "", u->src, u->peer, u->tag, u->len,
                      u->am_id == RTM_AM_EAGER ? "eager" : "rts");
        }
        sb_printf(sb, "]}");
    }
    sb_printf(sb, "\n  ],\n");
}

static void peers_json(sbuf_t *sb)
{
    char tl_state[1024];
    int n = 0;

    sb_printf(sb, "  \"peers\":[");
    for (int r = 0; r < rtm_rt.world_size; r++) {
        rtm_peer_t *p = &rtm_rt.peers[r];
        const rtm_list_t *pos;
        int ns = 0, nc = 0;

        if (p->tl == NULL || r == rtm_rt.world_rank)
            continue;
        rtm_list_for_each(pos, &p->pending_sends) ns++;
        rtm_list_for_each(pos, &p->pending_ctrl) nc++;
        sb_printf(sb, "%s\n    {\"rank\":%d,\"host\":", n++ ? "," : "", r);
        sb_str(sb, peer_host(r));
        sb_printf(sb, ",\"transport\":\"%s\",\"eager_credits_in_use\":%d,"
                  "\"eager_credit_limit\":%ld,\"credits_owed\":%d,\"queued_sends\":%d,"
                  "\"queued_control\":%d,\"rendezvous_sends_out\":%d,"
                  "\"detached_sends_out\":%d,\"detached_send_limit\":%ld,\"tx_seq\":%u,"
                  "\"rx_seq\":%u", p->tl->ops->name, credits_in_use(p), rt_config.eager_credits,
                  p->credits_owed, ns, nc, p->rndv_tx_active, p->detached_tx,
                  rt_config.detached_sends, (unsigned)p->tx_seq, (unsigned)p->rx_seq);
        tl_state[0] = '\0';
        if (p->ep != NULL && p->tl->ops->ep_state != NULL)
            p->tl->ops->ep_state(p->ep, tl_state, sizeof(tl_state));
        sb_printf(sb, ",\"transport_state\":{%s}}", tl_state);
    }
    sb_printf(sb, "\n  ],\n");
}

/* ---- the one-line summary ---- */

typedef struct first_req_ctx {
    int peer;                       /* -1: any peer */
    const rtm_request_impl_t *req;  /* first match */
    const rtm_request_impl_t *detached; /* first detached match */
    int count;
} first_req_ctx_t;

/* The first incomplete request (to c->peer) of a caller: a detached send
 * (the runtime's own, its caller's send complete) only when there is no
 * other, since no call waits for it. */
static void first_req(const rtm_request_impl_t *req, void *arg)
{
    first_req_ctx_t *c = arg;

    c->count++;
    if (c->peer >= 0 && req->peer != c->peer)
        return;
    if (req->flags & RTM_REQ_F_DETACHED) {
        if (c->detached == NULL)
            c->detached = req;
    } else if (c->req == NULL) {
        c->req = req;
    }
}

static void first_req_done(first_req_ctx_t *c)
{
    if (c->req == NULL)
        c->req = c->detached;
}

/* Why this rank's exchange with world rank `peer` does not move, from what
 * it holds for that peer: "no eager credit (64 of 64 in use), its RTS is
 * sent and not yet matched by rank 1". */
static void why_peer(int peer, char *buf, size_t len)
{
    first_req_ctx_t fr = {peer, NULL, NULL, 0};
    const rtm_peer_t *p = &rtm_rt.peers[peer];
    char st[224];
    size_t off = 0;
    int n;

    buf[0] = '\0';
    for_each_pending_req(first_req, &fr);
    first_req_done(&fr);
    if (p->tl != NULL && p->tx_credits <= 0) {
        n = snprintf(buf, len, "no eager credit (%d of %ld in use)", credits_in_use(p),
                     rt_config.eager_credits);
        off = n > 0 && (size_t)n < len ? (size_t)n : 0;
    }
    if (p->tl != NULL && p->detached_tx > 0 && p->detached_tx >= rt_config.detached_sends) {
        n = snprintf(buf + off, len - off, "%sno detached send left (%d of %ld out)",
                     off ? ", " : "", p->detached_tx, rt_config.detached_sends);
        off = n > 0 && (size_t)n < len - off ? off + (size_t)n : off;
    }
    if (fr.req == NULL)
        return;
    req_state_text(fr.req, st, sizeof(st));
    snprintf(buf + off, len - off, "%sits %s (tag %d, %zu bytes): %s", off ? ", " : "",
             fr.req->kind == RTM_REQ_SEND ? "send" : "receive", fr.req->tag, fr.req->len, st);
}

/* The value of member "key" in a transport's ep_state text, unquoted;
 * "" when absent. */
static void tl_member(const char *text, const char *key, char *buf, size_t len)
{
    char pat[64];
    const char *at, *end;

    buf[0] = '\0';
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    if ((at = strstr(text, pat)) == NULL)
        return;
    at += strlen(pat);
    if (*at == '"')
        at++;
    end = at + strcspn(at, "\",}");
    snprintf(buf, len, "%.*s", (int)(end - at), at);
}

/* A few words on the transport's state towards `peer`, from ep_state:
 * "verbs QP 0x1a2b RTS, 5 work requests outstanding, 0 send credits". */
static void transport_hint(int peer, char *buf, size_t len)
{
    const rtm_peer_t *p = &rtm_rt.peers[peer];
    char st[1024], a[64], b[64], c[64];

    buf[0] = '\0';
    if (p->tl == NULL || p->ep == NULL || p->tl->ops->ep_state == NULL)
        return;
    st[0] = '\0';
    p->tl->ops->ep_state(p->ep, st, sizeof(st));
    tl_member(st, "qp_state", a, sizeof(a));
    if (a[0]) {
        tl_member(st, "qp_num", b, sizeof(b));
        tl_member(st, "sq_outstanding", c, sizeof(c));
        snprintf(buf, len, "%s QP %s %s, %s work requests outstanding", p->tl->ops->name, b,
                 a, c);
        tl_member(st, "tx_credits", a, sizeof(a));
        if (a[0])
            snprintf(buf + strlen(buf), len - strlen(buf), ", %s send credits", a);
        return;
    }
    tl_member(st, "connection", a, sizeof(a));
    if (a[0]) {
        tl_member(st, "tx_queued_bytes", b, sizeof(b));
        snprintf(buf, len, "%s connection %s, %s bytes queued", p->tl->ops->name, a, b);
        return;
    }
    tl_member(st, "ring_lines_used", a, sizeof(a));
    tl_member(st, "ring_lines", b, sizeof(b));
    if (a[0])
        snprintf(buf, len, "%s ring %s of %s lines in use", p->tl->ops->name, a, b);
}

/* Unexpected messages from world rank `peer` on any context: what the
 * rank holds from it that the call did not want. */
static int unexpected_from(int peer)
{
    int n = 0;

    for (uint32_t id = 0; id < rtm_rt.contexts.num; id++) {
        const rtm_match_ctx_t *m = rtm_rt.contexts.ctxs[id];
        const rtm_list_t *pos;

        if (m == NULL)
            continue;
        rtm_list_for_each(pos, &m->unexpected) {
            if (rtm_container_of(pos, rtm_unexp_t, link)->peer == peer)
                n++;
        }
    }
    return n;
}

static void summarize(const state_call_t *call, int have_call, sbuf_t *what, sbuf_t *summary,
                      int *waits_for_p)
{
    first_req_ctx_t fr = {-1, NULL, NULL, 0};
    char why[512];
    int target;

    for_each_pending_req(first_req, &fr);
    first_req_done(&fr);
    if (have_call) {
        target = call->step_waits_for >= 0 ? call->step_waits_for : call->waits_for;
        if (target == -1 && fr.req != NULL)   /* MPI_Wait*: the first request's peer */
            target = fr.req->peer;
        sb_printf(what, "%s", call->what);
        sb_printf(summary, "waits in %s", call->what);
        if (call->step[0])
            sb_printf(summary, ", %s", call->step);
        if (target >= 0 && target < rtm_rt.world_size) {
            int nu = unexpected_from(target);

            char hint[256];

            why_peer(target, why, sizeof(why));
            transport_hint(target, hint, sizeof(hint));
            sb_printf(summary, " for rank %d (%s)", target, peer_host(target));
            if (why[0])
                sb_printf(summary, ": %s", why);
            if (hint[0])
                sb_printf(summary, " [%s]", hint);
            if (nu > 0)
                sb_printf(summary, "; %d unexpected message%s from rank %d held here",
                          nu, nu == 1 ? "" : "s", target);
        } else if (call->waits_for == -2) {
            sb_printf(summary, " for any rank");
        }
        *waits_for_p = target >= 0 ? target : -1;
        return;
    }
    if (fr.req == NULL) {
        sb_printf(what, "in the library, no request pending");
        sb_printf(summary, "waits in the library with no request pending");
        *waits_for_p = -1;
        return;
    }
    req_state_text(fr.req, why, sizeof(why));
    sb_printf(what, "a %s %s rank %d", fr.req->kind == RTM_REQ_SEND ? "send" : "receive",
              fr.req->kind == RTM_REQ_SEND ? "to" : "from", fr.req->peer);
    sb_printf(summary, "waits with %d incomplete request%s; the first: %s %s rank %d "
              "(tag %d, %zu bytes): %s", fr.count, fr.count == 1 ? "" : "s",
              fr.req->kind == RTM_REQ_SEND ? "send to" : "receive from",
              fr.req->kind == RTM_REQ_SEND ? "" : "", fr.req->peer, fr.req->tag, fr.req->len,
              why);
    *waits_for_p = fr.req->peer;
}

/* ---- the answer ---- */

static void build(sbuf_t *out, unsigned seq)
{
    state_call_t call;
    int have_call = 0, waits_for = -1;
    sbuf_t what = {0}, summary = {0}, body = {0};
    req_json_ctx_t rj = {&body, 0};

    memset(&call, 0, sizeof(call));
    call.waits_for = call.step_waits_for = -1;
    if (binding_describe != NULL)
        have_call = binding_describe(&call);
    summarize(&call, have_call, &what, &summary, &waits_for);

    sb_printf(&body, "{\n  \"rank\":%d,\"host\":", rtm_rt.world_rank);
    sb_str(&body, rtm_rt.hostname);
    sb_printf(&body, ",\"pid\":%d,\"nspace\":", (int)getpid());
    sb_str(&body, rtm_rt.nspace);
    sb_printf(&body, ",\"seq\":%u,\n  \"summary\":", seq);
    sb_str(&body, summary.p ? summary.p : "");
    sb_printf(&body, ",\n  \"waits_for\":%d,\n  \"call\":", waits_for);
    if (have_call) {
        sb_printf(&body, "{\"name\":");
        sb_str(&body, call.name);
        sb_printf(&body, ",\"what\":");
        sb_str(&body, call.what);
        sb_printf(&body, ",\"comm\":");
        sb_str(&body, call.comm);
        sb_printf(&body, ",\"waits_for\":%d}", call.waits_for);
    } else {
        sb_printf(&body, "null");
    }
    sb_printf(&body, ",\n  \"collective\":");
    if (call.step[0]) {
        sb_printf(&body, "{\"name\":");
        sb_str(&body, call.name);
        sb_printf(&body, ",\"comm\":");
        sb_str(&body, call.comm);
        sb_printf(&body, ",\"step\":");
        sb_str(&body, call.step);
        sb_printf(&body, ",\"waits_for\":%d}", call.step_waits_for);
    } else {
        sb_printf(&body, "null");
    }
    sb_printf(&body, ",\n  \"requests\":[");
    for_each_pending_req(req_json, &rj);
    sb_printf(&body, "\n  ],\n");
    contexts_json(&body);
    peers_json(&body);
    sb_printf(&body, "  \"transports\":[");
    for (int i = 0; i < rtm_rt.num_tls; i++)
        sb_printf(&body, "%s\"%s\"", i ? "," : "", rtm_rt.tls[i].ops->name);
    sb_printf(&body, "]\n}\n");

    sb_printf(out, "%s\nseq %u\nrank %d\nwhat %s\nwaits_for", RTM_STATE_MAGIC, seq,
              rtm_rt.world_rank, what.p ? what.p : "");
    if (waits_for >= 0)
        sb_printf(out, " %d", waits_for);
    sb_printf(out, "\nsummary %s\njson\n%s", summary.p ? summary.p : "", body.p ? body.p : "{}");
    if (what.oom || summary.oom || body.oom)
        out->oom = 1;
    free(what.p);
    free(summary.p);
    free(body.p);
}

static void write_answer(const char *dir, unsigned seq, const sbuf_t *sb)
{
    char tmp[PATH_MAX], path[PATH_MAX];
    FILE *f;
    int n;

    n = snprintf(path, sizeof(path), "%s/%d%s", dir, rtm_rt.world_rank, RTM_STATE_SUFFIX);
    if (n < 0 || (size_t)n >= sizeof(path) ||
        snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
        return;
    f = fopen(tmp, "w");
    if (f == NULL) {
        rtm_warn("cannot write the job-state answer %s: %s", tmp, strerror(errno));
        return;
    }
    n = fwrite(sb->p, 1, sb->len, f) == sb->len;
    if (fclose(f) != 0 || !n) {
        rtm_warn("cannot write the job-state answer %s: %s", tmp, strerror(errno));
        unlink(tmp);
        return;
    }
    if (rename(tmp, path) != 0) {
        rtm_warn("cannot rename the job-state answer to %s: %s", path, strerror(errno));
        unlink(tmp);
        return;
    }
    rtm_debug("answered job-state ask %u (%s)", seq, path);
}

void state_answer(void)
{
    char dir[PATH_MAX];
    unsigned seq;
    sbuf_t sb = {0};

    pthread_mutex_lock(&ask_lock);
    atomic_store_explicit(&state_asked, 0, memory_order_relaxed);
    snprintf(dir, sizeof(dir), "%s", ask_dir);
    seq = ask_seq;
    pthread_mutex_unlock(&ask_lock);
    if (rtm_rt.state != RT_READY || dir[0] == '\0')
        return;
    build(&sb, seq);
    if (!sb.oom)
        write_answer(dir, seq, &sb);
    else
        rtm_warn("no memory for the job-state answer");
    free(sb.p);
}
