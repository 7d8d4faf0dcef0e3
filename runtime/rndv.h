/*
 * The rendezvous protocol, both sides (runtime/rndv.c; the exchange is in
 * wire.h): the sender's RTS (exposing its buffer when the transport can
 * get), the receiver's choice of get + FIN or CTS + DATA once the RTS has
 * matched, the DATA stream, and the end of the exposure. Control messages
 * a transport could not take wait on the peer's pending_ctrl list, which
 * runtime/proto.c drains.
 */
#ifndef RTM_RUNTIME_RNDV_H
#define RTM_RUNTIME_RNDV_H

#include "runtime/match.h"
#include "runtime/peer.h"
#include "runtime/request.h"
#include "runtime/wire.h"

#include <stddef.h>

/* Sender: put req's RTS on the wire (p connected). RTM_ERR_AGAIN: nothing
 * changed, try again later. */
rtm_status_t rndv_send_rts(rtm_peer_t *p, rtm_request_impl_t *req);
/* Transmit req's pending control step (req->op: CTS, DATA or FIN). */
rtm_status_t rndv_send_ctrl(rtm_peer_t *p, rtm_request_impl_t *req);
/* Receiver: an RTS from peer matched req: read by get, or ask for a copy. */
void         rndv_start(rtm_request_impl_t *req, int peer, const rtm_rts_hdr_t *rts,
                        const void *inline_data);
/* A receive matched an unexpected RTS: start it and free ue. */
void         rndv_recv_unexp(rtm_request_impl_t *req, rtm_unexp_t *ue);
/* Sender: withdraw req's message if no receive has matched it (rtm_cancel):
 * at once if it has not left, by CANCEL if its RTS is out; else nothing. */
void         rndv_cancel_send(rtm_request_impl_t *req);
/* A request whose transmission failed for good ends with that error. */
void         rndv_req_fail(rtm_request_impl_t *req, rtm_status_t status);

/* Handlers (am.c's table). */
void rndv_recv_rts(int src, const void *data, size_t len);
void rndv_recv_cts(int src, const void *data, size_t len);
void rndv_recv_data(int src, const void *data, size_t len);
void rndv_recv_fin(int src, const void *data, size_t len);
void rndv_recv_cancel(int src, const void *data, size_t len);
void rndv_recv_cancel_ack(int src, const void *data, size_t len);

#endif
