/*
 * The transports this rank opened (runtime/tl.c): one rtm_tl_t each, in
 * the order RTM_TRANSPORTS gives; the first that reaches a peer carries
 * its traffic (runtime/peer.c).
 */
#ifndef RTM_RUNTIME_TL_H
#define RTM_RUNTIME_TL_H

#include "rtmsg.h"
#include "transport/transport.h"

#define RTM_MAX_TRANSPORTS 4

/* One opened transport. */
typedef struct rtm_tl {
    const rtm_tl_ops_t *ops;
    rtm_tl_iface_t     *iface;
    rtm_tl_caps_t       caps;
    /* RTM_TL_CAP_SLOW_POLL: calls to skip before the next poll, and polls
     * left in which it is polled every call since it last found work. */
    int                 poll_skip;
    int                 poll_hot;
} rtm_tl_t;

/* --- tl.c --- */
rtm_status_t peers_open_transports(void);
rtm_status_t peers_wireup(void);
rtm_status_t peers_quiesce(void);
void         tls_close(void);

#endif
