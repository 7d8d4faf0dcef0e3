/*
 * Eager flow control by credits (runtime/credit.c). A sender holds
 * RTM_EAGER_CREDITS credits per peer; each EAGER consumes one. The receiver
 * owes one back once the message's buffer is released (on match) and
 * returns what it owes piggy-backed in the next match header it sends that
 * peer, or in an explicit CREDIT once half the window is owed. Out of
 * credits, a sender uses rendezvous (detached, from a copy of its own, up to
 * RTM_DETACHED_SENDS per peer: runtime/proto.c): the data waits in the
 * sender's memory instead of the receiver's, which holds one envelope per
 * message, so a flood cannot grow memory there without bound.
 */
#ifndef RTM_RUNTIME_CREDIT_H
#define RTM_RUNTIME_CREDIT_H

#include "common/list.h"
#include "runtime/rt_config.h"
#include "runtime/peer.h"
#include "runtime/rt.h"
#include "runtime/wire.h"

#include <stddef.h>
#include <stdint.h>

/* Owed credits are returned once this many accumulate (half the window,
 * so the sender never runs dry in a steady stream). */
static inline int credit_threshold(void)
{
    long half = rt_config.eager_credits / 2;

    return half > 0 ? (int)half : 1;
}

/* What a match header to p hands back; give it back to credits_owed with
 * credit_untake if that header never leaves. */
static inline uint16_t credit_take_owed(rtm_peer_t *p)
{
    int c = p->credits_owed > 0xffff ? 0xffff : p->credits_owed;

    p->credits_owed -= c;
    return (uint16_t)c;
}

static inline void credit_untake(rtm_peer_t *p, uint16_t credits)
{
    p->credits_owed += credits;
}

/* Queue the return of what peer is owed (credit_flush sends it). */
void credit_return(int peer);

/* A receive released one of the peer's eager buffers: owe it a credit.
 * Hot path: an increment and a compare until the batch is due. */
static inline void credit_release(int peer)
{
    if (++rtm_rt.peers[peer].credits_owed >= credit_threshold())
        credit_return(peer);
}

/* Credits p handed back (piggy-backed or CREDIT): sends waiting for them
 * may go. */
static inline void credit_received(rtm_peer_t *p, uint32_t credits)
{
    if (credits != 0) {
        /* never more than were lent: more is a corrupt header (and would
         * overflow tx_credits) */
        if (__builtin_expect(credits > (uint64_t)(rt_config.eager_credits - p->tx_credits), 0))
            peer_protocol_error((int)(p - rtm_rt.peers), "more eager credits returned than lent");
        p->tx_credits += (int)credits;
        if (!rtm_list_is_empty(&p->pending_sends))
            peer_pending_add(p);
    }
}

/* An explicit CREDIT to p if enough is owed and no match header took it:
 * 1 sent, 0 nothing due, -1 the transport could not take it (try again). */
int credit_flush(rtm_peer_t *p);

/* The CREDIT handler (am.c's table). */
void credit_recv(int src, const void *data, size_t len);

#endif
