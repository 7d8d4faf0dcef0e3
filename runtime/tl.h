/*
 * Opening the transports (runtime/tl.c): one rtm_tl_t each in rtm_rt.tls
 * (rt.h), in the order RTM_TRANSPORTS gives; the first that reaches a peer
 * carries its traffic (runtime/peer.c). Wire-up, quiesce and close.
 */
#ifndef RTM_RUNTIME_TL_H
#define RTM_RUNTIME_TL_H

#include "rtmsg.h"

/* --- tl.c --- */
rtm_status_t peers_open_transports(void);
rtm_status_t peers_wireup(void);
rtm_status_t peers_quiesce(void);
void         tls_close(void);

#endif
