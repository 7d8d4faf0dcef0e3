/*
 * Eager, receive side (the send is eager_send, inline in eager.h): a
 * matched EAGER is copied straight into the user's buffer; an unexpected
 * one is kept (its memory bounded by the sender's credits) until a receive
 * takes it, and its credit is owed back only then.
 */
#include "config.h"

#include "runtime/eager.h"
#include "runtime/credit.h"
#include "runtime/match.h"
#include "runtime/peer.h"
#include "runtime/request.h"
#include "runtime/rt.h"

#include <stdlib.h>
#include <string.h>

/* Deliver a complete message into a matched receive: copy and truncate. */
static inline void eager_deliver(rtm_request_impl_t *req, int src_rank, int tag,
                                 const void *data, size_t len)
{
    size_t n = len;

    if (n > req->len) {
        n = req->len;
        req->status.error = RTM_ERR_TRUNCATE;
    }
    if (n > 0)
        memcpy(req->buf, data, n);
    req->status.source = src_rank;
    req->status.tag = tag;
    req->status.count = n;
    req_complete(req);
}

/* Hot path: a matched eager message costs no allocation, lock or log. */
void eager_recv(int src, const void *data, size_t len)
{
    const rtm_match_hdr_t *m = data;
    rtm_peer_t *p = &rtm_rt.peers[src];
    rtm_match_ctx_t *mctx;
    rtm_request_impl_t *req;
    rtm_unexp_t *ue;
    size_t plen;

    if (__builtin_expect(len < sizeof(*m), 0))
        peer_protocol_error(src, "truncated EAGER");
    plen = len - sizeof(*m);
    peer_rx_order(p, src, m->seq);
    rtm_rt.rx_counters->msgs_recv++;
    rtm_rt.rx_counters->bytes_recv += plen;
    credit_received(p, m->credits);
    mctx = peer_rx_context(src, m->ctx);
    req = match_posted_take(mctx, m->src, m->tag);
    if (req != NULL) {
        eager_deliver(req, m->src, m->tag, m + 1, plen);
        credit_release(src);
        return;
    }
    ue = match_unexp_alloc(&rtm_rt.contexts);
    if (ue == NULL)
        peer_no_memory(src, plen);
    ue->am_id = RTM_AM_EAGER;
    ue->peer = src;
    ue->src = m->src;
    ue->tag = m->tag;
    ue->len = plen;
    /* Bounded: the sender holds at most RTM_EAGER_CREDITS of these. */
    eager_unexp_keep(ue, src, m + 1, plen);
    match_unexp_add(mctx, ue);
}

void eager_unexp_keep(rtm_unexp_t *ue, int src, const void *bytes, size_t n)
{
    if (n <= sizeof(ue->inline_data)) {
        ue->data = ue->inline_data;
    } else {
        ue->data = malloc(n);
        if (ue->data == NULL)
            peer_no_memory(src, n);
    }
    memcpy(ue->data, bytes, n);
}

void eager_recv_unexp(rtm_request_impl_t *req, rtm_unexp_t *ue)
{
    eager_deliver(req, ue->src, ue->tag, ue->data, ue->len);
    credit_release(ue->peer);
    match_unexp_free(&rtm_rt.contexts, ue);
}
