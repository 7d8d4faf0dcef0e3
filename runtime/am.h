/*
 * Active-message dispatch (runtime/am.c): every message a transport
 * delivers enters at proto_am_handler, which checks the sender and calls
 * the handler its id names in one table; each handler checks its own
 * header. Also the transports' peer_failed callback.
 */
#ifndef RTM_RUNTIME_AM_H
#define RTM_RUNTIME_AM_H

#include "rtmsg.h"

#include <stddef.h>

/* The transports' am_cb (runtime/tl.c registers it). */
void proto_am_handler(void *arg, int src, unsigned am_id, const void *data, size_t len);
/* The transports' peer_failed: whatever the peer owed us will never come,
 * so the job ends now, with the transport's own words, instead of hanging. */
void proto_peer_failed(void *arg, int peer, rtm_status_t status, const char *msg);

#endif
