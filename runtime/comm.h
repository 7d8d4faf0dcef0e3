/*
 * Communicators (runtime/comm.c): a group of world ranks, this rank's
 * place in it, and one context-id slot (ctxid.h) naming two matching
 * contexts (user point-to-point, and collectives/management), so internal
 * traffic never matches a user receive. Also the few blocking collectives
 * the runtime itself needs on the collective context.
 */
#ifndef RTM_RUNTIME_COMM_H
#define RTM_RUNTIME_COMM_H

#include "rtmsg.h"

#include <stddef.h>
#include <stdint.h>

typedef struct rtm_comm_obj {
    int       in_use;
    int       rank;
    int       size;
    int      *world_ranks;  /* comm rank -> world rank */
    uint32_t  ctx_p2p;      /* user messages */
    uint32_t  ctx_coll;     /* collectives and comm management */
    int       ctx_slot;     /* ctxid.h slot of both */
    int       next_free;    /* unused handle: the next unused one (-1: none) */
} rtm_comm_obj_t;

rtm_status_t comm_init(void);
void         comm_finalize(void);
/* Look up a handle; on error sets the detail naming func. */
rtm_status_t comm_get(rtm_comm_t comm, const char *func, rtm_comm_obj_t **obj_p);
/* Blocking point-to-point on a communicator's collective context. */
rtm_status_t coll_sendrecv(rtm_comm_obj_t *comm, const void *sbuf, size_t slen, int dest,
                           void *rbuf, size_t rlen, int src, int tag);
rtm_status_t coll_barrier(rtm_comm_obj_t *comm);

static inline int comm_world_rank_of(const rtm_comm_obj_t *comm, int rank)
{
    return comm->world_ranks[rank];
}

#endif
