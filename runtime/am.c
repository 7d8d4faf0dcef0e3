/*
 * Active-message dispatch: one handler per rtm_am_id_t (wire.h), in a
 * table. A handler gets the sender's world rank (checked here) and the
 * message as the transport delivered it, and checks its own header length.
 */
#include "config.h"

#include "runtime/am.h"
#include "runtime/credit.h"
#include "runtime/eager.h"
#include "runtime/job.h"
#include "runtime/peer.h"
#include "runtime/rndv.h"
#include "runtime/rt.h"
#include "runtime/wire.h"

typedef void (*am_handler_fn)(int src, const void *data, size_t len);

/* Id 0 is no message: every slot has a handler, so dispatch is a bounds
 * check and a call. */
static void am_recv_unknown(int src, const void *data, size_t len)
{
    (void)data;
    (void)len;
    peer_protocol_error(src, "unknown message type");
}

static const am_handler_fn am_handlers[RTM_AM_COUNT] = {
    [0]             = am_recv_unknown,
    [RTM_AM_EAGER]  = eager_recv,
    [RTM_AM_RTS]    = rndv_recv_rts,
    [RTM_AM_CTS]    = rndv_recv_cts,
    [RTM_AM_DATA]   = rndv_recv_data,
    [RTM_AM_FIN]    = rndv_recv_fin,
    [RTM_AM_CREDIT] = credit_recv,
    [RTM_AM_CANCEL] = rndv_recv_cancel,
    [RTM_AM_CANCEL_ACK] = rndv_recv_cancel_ack,
};

/* Hot path: no allocation, lock or log. */
void proto_am_handler(void *arg, int src, unsigned am_id, const void *data, size_t len)
{
    /* arg: the receiving transport's counters (tl.c) */
    rtm_rt.rx_counters = arg != NULL ? arg : &rtm_rt.rx_unattributed;
    if (__builtin_expect(src < 0 || src >= rtm_rt.world_size, 0))
        peer_protocol_error(src, "sender rank out of range");
    if (__builtin_expect(am_id >= RTM_AM_COUNT, 0))
        peer_protocol_error(src, "unknown message type");
    am_handlers[am_id](src, data, len);
}

/* A transport lost a peer for good (exit 71), or its device failed with
 * no particular peer concerned (RTM_TL_PEER_NONE, exit 74): whatever was
 * owed will never come, so the job ends now, in the transport's words. */
void proto_peer_failed(void *arg, int peer, rtm_status_t status, const char *msg)
{
    (void)arg;
    (void)status;
    job_abort(peer == RTM_TL_PEER_NONE ? 74 : 71, msg);
}
