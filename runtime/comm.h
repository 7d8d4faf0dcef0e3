/*
 * Communicators (runtime/comm.c): creating, splitting and freeing them
 * (the object, rtm_comm_obj_t, is in rt.h, where the protocols read it),
 * their context ids (ctxid.h), and the few blocking collectives the
 * runtime itself needs on a communicator's collective context.
 */
#ifndef RTM_RUNTIME_COMM_H
#define RTM_RUNTIME_COMM_H

#include "rtmsg.h"
#include "runtime/rt.h"

#include <stddef.h>
#include <stdint.h>

rtm_status_t comm_init(void);
void         comm_finalize(void);
/* Look up a handle; on error sets the detail naming func. */
rtm_status_t comm_get(rtm_comm_t comm, const char *func, rtm_comm_obj_t **obj_p);
/* Blocking point-to-point on a communicator's collective context. */
rtm_status_t coll_sendrecv(rtm_comm_obj_t *comm, const void *sbuf, size_t slen, int dest,
                           void *rbuf, size_t rlen, int src, int tag);
rtm_status_t coll_barrier(rtm_comm_obj_t *comm);

#endif
