/*
 * Finalize: wait until every Send this rank posted has been acknowledged
 * (transport.h, quiesce). Without it a rank that finished its last barrier
 * could destroy its QPs while a peer still waited for the ACK of a message
 * the rank had received: the peer's HCA retransmits into a QP that is gone
 * and the peer dies with "retry counter exceeded" (seen with 150 ms of link
 * delay on softib). The runtime fences after this on every rank, so no QP
 * closes before every rank's sends are acknowledged, and keeps calling
 * progress during that fence: a peer's last send may still wait for a
 * receive buffer of ours (RNR) that only progress reposts. From here on
 * progress sends nothing (iface->quiet): a peer may close once its fence
 * ends, and a message to it then would fail.
 *
 * Sends are signaled only every VRB_SIGNAL_EVERY-th (vrb_am.c): an
 * unsignaled send is known complete only once a later signaled one on the
 * same QP completes. A peer whose last send was unsignaled therefore gets
 * one more, signaled, credit-only message (it takes a VRB_CTRL_SLACK slot of
 * the peer's SRQ, not a credit; credit-only messages earn no credits back, so
 * this ends).
 */
#include "config.h"

#include "transport/verbs/vrb.h"

#include "common/error.h"
#include "common/timer.h"

/* Long enough for any retry schedule the QP attributes allow (vrb_conn.c):
 * a dead peer fails the send with "retry counter exceeded" well before. */
#define VRB_QUIESCE_TIMEOUT 120.0

static int sends_outstanding(const vrb_iface_t *iface, int *peer_p)
{
    for (int i = 0; i < iface->world_size; i++) {
        const vrb_ep_t *ep = &iface->eps[i];

        if (ep->qp != NULL && ep->sq_head != ep->sq_tail) {
            *peer_p = i;
            return 1;
        }
    }
    return 0;
}

rtm_status_t vrb_quiesce(rtm_tl_iface_t *tl_iface)
{
    vrb_iface_t *iface = vrb_iface_of(tl_iface);
    double start = rtm_time_now();
    int peer = -1;

    iface->quiet = 1;   /* from now on progress sends nothing of its own */
    for (int i = 0; i < iface->world_size; i++) {
        vrb_ep_t *ep = &iface->eps[i];

        if (ep->qp == NULL || !ep->connected || ep->sq_head == ep->sq_tail ||
            ep->sq_unsignaled == 0)
            continue;
        while (ep->sq_head - ep->sq_tail >= VRB_SQ_DEPTH)
            vrb_progress(tl_iface);
        ep->sq_unsignaled = VRB_SIGNAL_EVERY - 1;   /* the next post is signaled */
        if (vrb_post_hello(ep) != RTM_OK)
            return RTM_ERR_TRANSPORT;               /* error set by the post */
    }
    while (sends_outstanding(iface, &peer)) {
        vrb_progress(tl_iface);
        if (rtm_time_now() - start > VRB_QUIESCE_TIMEOUT)
            return rtm_error_set(RTM_ERR_TIMEOUT,
                                 "verbs: rank %d (%s): sends to rank %d (%s) still "
                                 "unacknowledged after %.0f s at finalize",
                                 iface->world_rank, iface->host, peer,
                                 iface->eps[peer].host, VRB_QUIESCE_TIMEOUT);
    }
    return RTM_OK;
}
