/*
 * Eager credits (see credit.h): the explicit CREDIT message, both ways, and
 * queuing a return. Taking credits into match headers and counting them is
 * inline in credit.h, on the eager paths.
 */
#include "config.h"

#include "runtime/credit.h"
#include "runtime/peer.h"

void credit_return(int peer)
{
    rtm_peer_t *p = &rtm_rt.peers[peer];

    /* a peer that only ever sent to us gets its credits back all the same */
    if (p->ep == NULL && peer_connect(peer) != RTM_OK)
        return;
    peer_pending_add(p);
}

int credit_flush(rtm_peer_t *p)
{
    rtm_credit_hdr_t hdr = {(uint32_t)p->credits_owed};

    if (p->credits_owed < credit_threshold())
        return 0;
    if (p->tl->ops->am_send(p->ep, RTM_AM_CREDIT, &hdr, sizeof(hdr), NULL, 0) != RTM_OK)
        return -1;
    p->credits_owed = 0;
    return 1;
}

void credit_recv(int src, const void *data, size_t len)
{
    const rtm_credit_hdr_t *c = data;

    if (len < sizeof(*c))
        peer_protocol_error(src, "truncated CREDIT");
    credit_received(&rtm_rt.peers[src], c->credits);
}
