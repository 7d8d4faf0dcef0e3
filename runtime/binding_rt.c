/*
 * The runtime's side of runtime/binding.h: what the MPI binding uses of the
 * runtime beyond the public API. The binding has checked the arguments, so
 * these go straight to the protocols. A module of its own name: binding.h
 * is a leaf (runtime/request.h includes it for the request head), and this
 * file uses the requests and protocols.
 */
#include "config.h"

#include "runtime/binding.h"
#include "runtime/progress.h"
#include "runtime/proto.h"
#include "runtime/request.h"
#include "runtime/rt.h"
#include "runtime/rt_config.h"
#include "common/error.h"
#include "common/shmname.h"
#include "runtime/state.h"
#include "transport/registry.h"

#include <stdio.h>
#include <string.h>

void binding_idle(unsigned long polls)
{
    /* the first poll of a wait, or the first after one that found work
     * (the binding's own, which the passes do not count): a long wait's
     * back-off counts from here, not from the last transport event */
    if (polls == 1)
        progress_idle_restart();
    progress_idle(polls);
}

int binding_host_oversubscribed(void)
{
    if (rtm_rt.idle_yield == IDLE_UNRESOLVED)
        progress_idle_resolve();
    return rtm_rt.idle_yield == IDLE_YIELD;
}

/* A send by the protocols' full path (proto_isend). */
static inline rtm_status_t isend_proto(const rtm_comm_obj_t *c, const void *buf, size_t len,
                                       int dest, int tag, int sync, binding_req_t **req_p)
{
    rtm_request_impl_t *req;
    rtm_status_t status = proto_isend(c, c->ctx_p2p, buf, len, dest, tag, sync, &req);

    if (__builtin_expect(status != RTM_OK, 0))
        return status;
    *req_p = req_head(req);
    return RTM_OK;
}

/* What binding_isend's fast path leaves: a peer not reached through shm
 * or not connected yet, no credit, a send queued ahead, a full ring, a
 * message of more than a ring line, an empty request free list. Out of
 * line and taken by a tail call, so that the fast path holds no call. */
static __attribute__((noinline)) rtm_status_t
isend_full(const rtm_comm_obj_t *c, const void *buf, size_t len, int dest, int tag,
           binding_req_t **req_p)
{
    return isend_proto(c, buf, len, dest, tag, 0, req_p);
}

rtm_status_t binding_isend(const void *buf, size_t len, int dest, int tag, rtm_comm_t comm,
                           binding_req_t **req_p)
{
    const rtm_comm_obj_t *c = &rtm_rt.comms[comm];
    int world = comm_world_rank_of(c, dest);
    rtm_request_impl_t *req;

    req = proto_isend_ring(&rtm_rt.peers[world], c->ctx_p2p, c->rank, buf, len, world, tag);
    if (__builtin_expect(req != NULL, 1)) {
        *req_p = req_head(req);
        return RTM_OK;
    }
    return isend_full(c, buf, len, dest, tag, req_p);
}

rtm_status_t binding_issend(const void *buf, size_t len, int dest, int tag, rtm_comm_t comm,
                            binding_req_t **req_p)
{
    return isend_proto(&rtm_rt.comms[comm], buf, len, dest, tag, 1, req_p);
}

rtm_status_t binding_irecv(void *buf, size_t len, int src, int tag, rtm_comm_t comm,
                           binding_req_t **req_p)
{
    const rtm_comm_obj_t *c = &rtm_rt.comms[comm];
    rtm_request_impl_t *req;
    rtm_status_t status = proto_irecv(c, c->ctx_p2p, buf, len, src, tag, &req);

    if (__builtin_expect(status != RTM_OK, 0))
        return status;
    *req_p = req_head(req);
    return RTM_OK;
}

binding_req_t *binding_req_new(void)
{
    rtm_request_impl_t *req = req_alloc(RTM_REQ_BINDING);

    if (req == NULL) {
        rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a request");
        return NULL;
    }
    req->peer = -1;
    return req_head(req);
}

void binding_req_free(binding_req_t *req)
{
    rtm_request_impl_t *r = req_of_head(req);

    if (r->flags & RTM_REQ_F_COMPLETE)
        req_release(r);
    else
        r->flags |= RTM_REQ_F_RELEASED;
}

void binding_done_register(binding_done_fn *fn)
{
    req_done_notify = fn;
}

int binding_req_watch(binding_req_t *req)
{
    rtm_request_impl_t *r = req_of_head(req);

    if (r->flags & RTM_REQ_F_COMPLETE)
        return 1;
    r->flags |= RTM_REQ_F_WATCHED;
    return 0;
}

static int (*binding_describe)(binding_call_t *call_p);

/* The binding's call in the runtime's words: "MPI_Probe(0, tag 99, WORLD)". */
static int binding_state_describe(state_call_t *out)
{
    binding_call_t c;
    char peer[24], tag[24];

    memset(&c, 0, sizeof(c));
    c.peer = c.tag = BINDING_NONE;
    c.peer_world = c.step_peer_world = -1;
    c.native_comm = -1;
    if (binding_describe == NULL || !binding_describe(&c) || c.name == NULL)
        return 0;
    snprintf(out->name, sizeof(out->name), "%s", c.name);
    snprintf(out->comm, sizeof(out->comm), "%s", c.comm_name ? c.comm_name : "");
    if (c.peer == -1)
        snprintf(peer, sizeof(peer), "ANY_SOURCE");
    else
        snprintf(peer, sizeof(peer), "%d", c.peer);
    if (c.tag == -1)
        snprintf(tag, sizeof(tag), "ANY_TAG");
    else
        snprintf(tag, sizeof(tag), "%d", c.tag);
    if (c.peer == BINDING_NONE && c.tag == BINDING_NONE)
        snprintf(out->what, sizeof(out->what), "%s(%s)", c.name, out->comm);
    else if (c.tag == BINDING_NONE)
        snprintf(out->what, sizeof(out->what), "%s(%s, %s)", c.name, peer, out->comm);
    else
        snprintf(out->what, sizeof(out->what), "%s(%s, tag %s, %s)", c.name, peer, tag,
                 out->comm);
    out->waits_for = c.peer_world;
    snprintf(out->step, sizeof(out->step), "%s", c.step);
    out->step_waits_for = c.step_peer_world;
    return 1;
}

void binding_state_register(int (*describe)(binding_call_t *call_p))
{
    binding_describe = describe;
    state_binding_set(describe != NULL ? binding_state_describe : NULL);
}

rtm_status_t binding_config_ready(void)
{
    static int registered;

    if (registered || rtm_rt.state != RT_NEVER)
        return RTM_OK;
    registered = 1;
    return rtm_lib_config_register();
}

const char *binding_tl_name(int i)
{
    if (i < 0 || i >= rtm_tl_registry_count())
        return NULL;
    return rtm_tl_registry_name(i);
}

int binding_tl_open(const char *name)
{
    if (name == NULL)
        return 0;
    for (int t = 0; t < rtm_rt.num_tls; t++) {
        if (rtm_rt.tls[t].ops != NULL && !strcmp(rtm_rt.tls[t].ops->name, name))
            return 1;
    }
    return 0;
}

int binding_job_shm_name(const char *what, char *buf, size_t len)
{
    return rtm_job_shm_name(rtm_rt.nspace, what, buf, len);
}

static const rtm_tl_counters_t *tl_counters(int i)
{
    const char *name = binding_tl_name(i);

    if (name == NULL)
        return NULL;
    /* every slot ever opened: after rtm_finalize the counts stay readable */
    for (int t = 0; t < RTM_MAX_TRANSPORTS; t++) {
        if (rtm_rt.tls[t].ops != NULL && !strcmp(rtm_rt.tls[t].ops->name, name))
            return &rtm_rt.tls[t].counters;
    }
    return NULL;
}

uint64_t binding_counter(binding_counter_t which, int tl)
{
    const rtm_tl_counters_t *c = which < BINDING_CTR_PER_TL ? tl_counters(tl) : NULL;

    switch (which) {
    case BINDING_CTR_MSGS_SENT:  return c ? c->msgs_sent : 0;
    case BINDING_CTR_BYTES_SENT: return c ? c->bytes_sent : 0;
    case BINDING_CTR_MSGS_RECV:  return c ? c->msgs_recv : 0;
    case BINDING_CTR_BYTES_RECV: return c ? c->bytes_recv : 0;
    case BINDING_CTR_RNDV_SENT:  return c ? c->rndv_sent : 0;
    case BINDING_CTR_RNDV_RECV:  return c ? c->rndv_recv : 0;
    case BINDING_CTR_UNEXP_HELD: return rtm_rt.contexts.unexp_held;
    case BINDING_CTR_UNEXP_HELD_MAX: return rtm_rt.contexts.unexp_held_max;
    case BINDING_CTR_CREDIT_STALLS: return rtm_rt.credit_stalls;
    case BINDING_CTR_IDLE_POLICY: return (uint64_t)rtm_rt.idle_yield;
    case BINDING_CTR_RNDV_COPIES: return rtm_rt.rndv_copies;
    case BINDING_CTR_COUNT:      break;
    }
    return 0;
}
