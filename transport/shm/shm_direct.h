/*
 * The runtime's direct path into the shm rings. A small eager message (its
 * match header and payload in one ring line, <= SHM_LINE_DATA bytes) is
 * appended by the runtime's eager send itself (runtime/eager.h) with
 * shm_fifo_push_line, instead of through ops->am_send: that saves the
 * indirect call, am_send's own argument checks (the runtime's eager_fits
 * already keeps the message within the caps) and a call frame between the
 * MPI call and the ring.
 *
 * shm_ep_ring gives, once per peer when the runtime connects it, the ring an
 * shm endpoint writes (runtime/tl.c keeps it as rtm_tl_t.ep_ring). Records
 * appended there and those am_send appends share the ring's sender state,
 * so they stay in order. The ring belongs to the interface and outlives the
 * endpoint; the runtime stops using it when it destroys the endpoint. One
 * producer: only the thread that calls am_send (the runtime's) appends.
 */
#ifndef RTM_TRANSPORT_SHM_DIRECT_H
#define RTM_TRANSPORT_SHM_DIRECT_H

#include "transport/shm/shm_fifo.h"
#include "transport/transport.h"

shm_fifo_tx_t *shm_ep_ring(rtm_tl_ep_t *ep);

#endif
