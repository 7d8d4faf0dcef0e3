/*
 * The protocol dispatcher (runtime/proto.c): the one place that picks the
 * protocol of a message, for blocking and nonblocking sends alike (eager
 * when it fits, a credit is held and nothing waits ahead; rendezvous
 * otherwise and for synchronous sends), posts receives against the
 * unexpected queue, and drains what waits in a peer's queues.
 */
#ifndef RTM_RUNTIME_PROTO_H
#define RTM_RUNTIME_PROTO_H

#include "runtime/match.h"
#include "runtime/peer.h"
#include "runtime/request.h"
#include "runtime/rt.h"

#include <stddef.h>
#include <stdint.h>

/* A blocking standard send of `len` bytes on context ctx of comm to comm
 * rank dest, without a request: RTM_OK once the transport has copied it
 * out; RTM_ERR_AGAIN when it must take the request path (proto_isend). */
rtm_status_t proto_send_now(const rtm_comm_obj_t *comm, uint32_t ctx, const void *buf,
                            size_t len, int dest, int tag);
/* A send to comm rank dest; *req_p completes when the buffer may be reused
 * (sync: once matched). */
rtm_status_t proto_isend(const rtm_comm_obj_t *comm, uint32_t ctx, const void *buf, size_t len,
                         int dest, int tag, int sync, rtm_request_impl_t **req_p);
/* A receive from comm rank src (or RTM_ANY_SOURCE). */
rtm_status_t proto_irecv(const rtm_comm_obj_t *comm, uint32_t ctx, void *buf, size_t len,
                         int src, int tag, rtm_request_impl_t **req_p);
/* A receive matched an unexpected message (taken out of its queue): its
 * protocol takes over and frees ue. */
void         proto_recv_unexp(rtm_request_impl_t *req, rtm_unexp_t *ue);
/* Drain what waits for one peer, in order; returns messages sent. */
int          proto_flush_peer(rtm_peer_t *p);
/* A communicator context's owner is gone: drop what is still unexpected
 * there (returning credits, releasing rendezvous senders) and free it. */
void         proto_ctx_release(uint32_t ctx_id);

#endif
