/*
 * The runtime's direct path into the shm rings. A small eager message (its
 * match header and payload in one ring line, <= SHM_LINE_DATA bytes) is
 * written in place in the ring by the runtime's eager send itself
 * (runtime/eager.h, eager_send_ring: shm_fifo_line_claim, the bytes,
 * shm_fifo_line_commit), instead of through ops->am_send: that saves the
 * indirect call and its frame, am_send's own argument checks (the runtime
 * keeps the message within the caps) and the copy of the match header from
 * the caller's stack.
 *
 * shm_ep_ring gives, once per peer when the runtime connects it, the ring an
 * shm endpoint writes (runtime/tl.c keeps the function in rtm_tl_t.ep_ring,
 * peer_connect the ring in rtm_peer_t.ring). Records
 * appended there and those am_send appends share the ring's sender state,
 * so they stay in order. The ring belongs to the interface and outlives the
 * endpoint; the runtime stops using it when it destroys the endpoint. One
 * producer per process: only the thread that calls am_send (the runtime's)
 * appends. In shared mode the "ring" is the peer's shared queue, which the
 * other local ranks append to as well: the claim reserves the line there
 * (a compare-and-swap) and the commit's header word carries this rank
 * (shm_fifo.h); the runtime's code is the same for both.
 */
#ifndef RTM_TRANSPORT_SHM_DIRECT_H
#define RTM_TRANSPORT_SHM_DIRECT_H

#include "transport/shm/shm_fifo.h"
#include "transport/transport.h"

shm_fifo_tx_t *shm_ep_ring(rtm_tl_ep_t *ep);

#endif
