/*
 * Peers (runtime/peer.c): the state this rank keeps per world rank
 * (sequence numbers, credits, queues of what waits for the transport) and
 * which opened transport reaches it, connected on first use. Also the one
 * place a message from a peer is found corrupt (peer_protocol_error).
 */
#ifndef RTM_RUNTIME_PEER_H
#define RTM_RUNTIME_PEER_H

#include "rtmsg.h"
#include "common/list.h"
#include "runtime/match.h"
#include "runtime/rt.h"
#include "runtime/wire.h"

#include <stdint.h>

typedef struct rtm_peer {
    rtm_tl_t    *tl;              /* NULL until the first message to or from it */
    rtm_tl_ep_t *ep;
    uint16_t     tx_seq;
    uint16_t     rx_seq;
    int          tx_credits;      /* eager messages we may still send it */
    int          credits_owed;    /* its eager messages we released, not yet returned */
    int          rndv_tx_active;  /* our rendezvous sends to it (RTS out) not complete */
    int          detached_tx;     /* our detached sends to it not complete (proto.c) */
    int          node;            /* host index */
    rtm_list_t   pending_sends;   /* matched messages waiting for queue space, FIFO */
    rtm_list_t   pending_ctrl;    /* requests with a CTS/FIN/DATA to send */
    rtm_list_t   pending_link;    /* in rtm_rt.pending_peers while anything waits */
    /* shm's ring to it when tl is shm (transport/shm/shm_direct.h): eager
     * messages of up to PEER_RING_MAX bytes go straight there
     * (eager_send_ring); NULL otherwise */
    struct shm_fifo_tx *ring;
} rtm_peer_t;   /* 96 bytes: an index into rtm_rt.peers is two instructions */

/* The eager payloads that fit one shm ring line (64 B) with the record's
 * word and the match header (8 + 16 B); eager.h checks it. */
#define PEER_RING_MAX 40u

rtm_status_t peers_init(void);
void         peers_close(void);
/* Slow path, once per peer: the first opened transport that reaches it. */
rtm_status_t peer_connect(int peer);

/* Remember that a peer has queued work (progress drains it). */
static inline void peer_pending_add(rtm_peer_t *peer)
{
    if (rtm_list_is_empty(&peer->pending_link))
        rtm_list_push_tail(&rtm_rt.pending_peers, &peer->pending_link);
}

/* A message from src breaks the protocol: the job ends with
 * "corrupt message from rank N", naming what was wrong. */
void peer_protocol_error(int src, const char *what) __attribute__((noreturn));
/* No memory to keep a message from src that arrived unexpected: the job
 * ends (exit 75) with a line that says so. */
void peer_no_memory(int src, size_t bytes) __attribute__((noreturn));

/* A matched message (EAGER, RTS) from src: transports deliver in order per
 * peer, so a sequence gap means a transport bug; matching out of order
 * would silently break MPI semantics. */
static inline void peer_rx_order(rtm_peer_t *p, int src, uint16_t seq)
{
    if (__builtin_expect(seq != p->rx_seq, 0))
        peer_protocol_error(src, "sequence number out of order");
    p->rx_seq++;
}

/* The matching context a message from src names, created on first use. */
static inline rtm_match_ctx_t *peer_rx_context(int src, uint32_t ctx)
{
    rtm_match_ctx_t *mctx = match_ctx_find(&rtm_rt.contexts, ctx);

    if (__builtin_expect(mctx == NULL, 0))
        peer_protocol_error(src, ctx < rtm_rt.contexts.max_ids
                                     ? "out of memory for a new communicator context"
                                     : "communicator context id out of range");
    return mctx;
}

#endif
