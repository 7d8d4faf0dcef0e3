/*
 * One-sided memory (rtmsg.h rtm_rma_*, binding.h binding_rma_*): regions
 * exposed through the transports' mem_expose, keys packed per peer
 * (runtime/rma_key.c), and put/get/atomic/flush by communicator rank over
 * the transport that reaches that rank. A transport without the operation
 * makes it RTM_ERR_NOT_SUPPORTED ("not available": the caller uses
 * messages). Completions are counted per peer (rma_done): flush(rank)
 * waits, driving progress, until that peer's gets have completed and the
 * transport says its puts and atomics to that peer are complete at the
 * target, and returns the first error an operation to that peer completed
 * with (flush of RTM_ANY_SOURCE: of any peer of the communicator).
 */
#include "config.h"

#include "runtime/binding.h"
#include "runtime/comm.h"
#include "runtime/peer.h"
#include "runtime/progress.h"
#include "runtime/rma_key.h"
#include "runtime/rt.h"
#include "common/error.h"
#include "common/list.h"
#include "common/log.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(RMA_KEY_TL_MAX == RTM_TL_RKEY_MAX, "a transport key fits a packed key");
_Static_assert(sizeof(((rtm_rma_key_t *)0)->tl_key) == RTM_TL_RKEY_MAX, "and an unpacked one");
_Static_assert(RMA_KEY_HDR + RMA_KEY_TL_MAX <= RTM_RMA_KEY_MAX, "RTM_RMA_KEY_MAX holds a key");
_Static_assert(RTM_RMA_READ == RTM_TL_RIGHT_READ && RTM_RMA_WRITE == RTM_TL_RIGHT_WRITE &&
               RTM_RMA_ATOMIC == RTM_TL_RIGHT_ATOMIC, "the rights are the contract's");
_Static_assert(RTM_RMA_FADD == RTM_TL_ATOMIC_FADD && RTM_RMA_CSWAP == RTM_TL_ATOMIC_CSWAP,
               "the atomic ops are the contract's");

struct rtm_rma_region {
    rtm_comm_t     comm;
    void          *addr;
    size_t         len;
    unsigned       rights;
    /* per opened transport: its exposure (NULL: none) and what it grants */
    rtm_tl_memh_t *memh[RTM_MAX_TRANSPORTS];
    unsigned       tl_rights[RTM_MAX_TRANSPORTS];
    unsigned char  loop[RTM_MAX_TRANSPORTS];   /* its loopback endpoint was listed */
};

/* Completions of the one-sided operations to one peer (by world rank):
 * the first error since its last flush, and its gets not complete yet. A
 * get is complete when its comp is called; the transports' flush covers
 * puts and atomics only (their get also serves rendezvous reads, which a
 * one-sided flush must not wait for). Two comps per peer (the contract
 * lets one comp serve many operations), so a completion says whose it is
 * and whether it is a get. */
typedef struct rma_peer_done {
    rtm_tl_comp_t comp;       /* puts and atomics */
    rtm_tl_comp_t get_comp;   /* gets */
    rtm_status_t  error;
    uint64_t      gets;
} rma_peer_done_t;

static rma_peer_done_t *rma_done;   /* [rma_done_n], made once per world */
static int rma_done_n;
/* Transports whose loopback endpoint carried an operation (flush of this
 * rank flushes it). */
static unsigned char rma_loop_used[RTM_MAX_TRANSPORTS];

/* This process's loopback endpoint on transport t (ops.ep_loopback, made on
 * its first call), or NULL: the transport has none. An operation on the
 * process's own region through it goes through the device as the peers'
 * do (verbs atomics are atomic only among the device's own). */
static rtm_tl_ep_t *loop_ep(int t)
{
    rtm_tl_ep_t *ep = NULL;
    rtm_tl_t *tl;

    if (t < 0 || t >= rtm_rt.num_tls)
        return NULL;
    tl = &rtm_rt.tls[t];
    if (tl->ops->ep_loopback == NULL || tl->ops->ep_loopback(tl->iface, &ep) != RTM_OK)
        return NULL;
    return ep;
}

static inline void rma_done_error(rma_peer_done_t *d, rtm_status_t status)
{
    if (__builtin_expect(status != RTM_OK, 0) && d->error == RTM_OK)
        d->error = status;
}

static void rma_comp_cb(rtm_tl_comp_t *comp, rtm_status_t status)
{
    rma_done_error(rtm_container_of(comp, rma_peer_done_t, comp), status);
}

static void rma_get_cb(rtm_tl_comp_t *comp, rtm_status_t status)
{
    rma_peer_done_t *d = rtm_container_of(comp, rma_peer_done_t, get_comp);

    d->gets--;
    rma_done_error(d, status);
}

/* Slow path (expose, key_unpack, or a first operation): one entry per
 * world rank. */
static rtm_status_t rma_done_init(void)
{
    rma_peer_done_t *d;

    if (rma_done != NULL && rma_done_n == rtm_rt.world_size)
        return RTM_OK;
    d = calloc((size_t)rtm_rt.world_size, sizeof(*d));
    if (d == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "rank %d: one-sided: no memory",
                             rtm_rt.world_rank);
    for (int i = 0; i < rtm_rt.world_size; i++) {
        d[i].comp.cb = rma_comp_cb;
        d[i].get_comp.cb = rma_get_cb;
    }
    free(rma_done);   /* a world before (nothing is outstanding across finalize) */
    rma_done = d;
    rma_done_n = rtm_rt.world_size;
    return RTM_OK;
}

static int tl_index(const rtm_tl_t *tl)
{
    return tl != NULL ? (int)(tl - rtm_rt.tls) : -1;
}

/* The peer of comm rank `rank`, connected, into *peer_p (and its world
 * rank into *world_p); an error status, set, otherwise. */
static rtm_status_t rma_peer(const rtm_comm_obj_t *c, int rank, rtm_peer_t **peer_p,
                             int *world_p)
{
    int world;
    rtm_peer_t *p;

    if (__builtin_expect(rank < 0 || rank >= c->size, 0))
        return rtm_error_set(RTM_ERR_RANK, "one-sided: rank %d is not in a communicator of %d",
                             rank, c->size);
    world = comm_world_rank_of(c, rank);
    p = &rtm_rt.peers[world];
    if (__builtin_expect(p->ep == NULL, 0) && peer_connect(world) != RTM_OK)
        return rtm_error_set(RTM_ERR_UNREACHABLE, "one-sided: no transport reaches rank %d",
                             world);
    *peer_p = p;
    *world_p = world;
    return RTM_OK;
}

rtm_status_t binding_rma_expose(rtm_comm_t comm, void *addr, size_t len, unsigned rights,
                                rtm_rma_region_t *reg_p)
{
    rtm_comm_obj_t *c;
    rtm_rma_region_t reg;
    rtm_tl_ep_t **eps;
    rtm_status_t status;

    if ((status = comm_get(comm, "rtm_rma_expose", &c)) != RTM_OK ||
        (status = rma_done_init()) != RTM_OK)
        return status;
    if (addr == NULL || len == 0 || rights == 0 ||
        (rights & ~(RTM_RMA_READ | RTM_RMA_WRITE | RTM_RMA_ATOMIC)) != 0 || reg_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_rma_expose: bad arguments (%zu B at %p, "
                             "rights 0x%x)", len, addr, rights);
    reg = calloc(1, sizeof(*reg));
    eps = calloc((size_t)c->size + 1, sizeof(*eps));
    if (reg == NULL || eps == NULL) {
        free(reg);
        free(eps);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "rtm_rma_expose: no memory");
    }
    reg->comm = comm;
    reg->addr = addr;
    reg->len = len;
    reg->rights = rights;
    /* every peer's transport, connected now (exposure is collective) */
    for (int r = 0; r < c->size; r++) {
        rtm_peer_t *p;
        int world;

        if (r != c->rank && (status = rma_peer(c, r, &p, &world)) != RTM_OK)
            goto err;
    }
    /* one exposure per transport, to exactly the peers it reaches */
    for (int t = 0; t < rtm_rt.num_tls; t++) {
        rtm_tl_t *tl = &rtm_rt.tls[t];
        unsigned want = rights;
        int n = 0;

        if (tl->ops->mem_expose == NULL || tl->ops->mem_key == NULL)
            continue;
        for (int r = 0; r < c->size; r++) {
            rtm_peer_t *p = &rtm_rt.peers[comm_world_rank_of(c, r)];

            if (r != c->rank && p->tl == tl)
                eps[n++] = p->ep;
        }
        if (n == 0)
            continue;
        /* atomics: this rank's own too, through the device (its loopback
         * endpoint), so every atomic on the region is the device's */
        if ((rights & RTM_RMA_ATOMIC) && (tl->caps.flags & RTM_TL_CAP_ATOMIC) &&
            (eps[n] = loop_ep(t)) != NULL) {
            reg->loop[t] = 1;
            n++;
        }
        /* what the transport cannot grant, callers do by messages: without
         * atomics (shm, a device without them), then read only (verbs XRC) */
        status = tl->ops->mem_expose(tl->iface, addr, len, want, eps, n, &reg->memh[t]);
        if (status == RTM_ERR_NOT_SUPPORTED && (want & RTM_RMA_ATOMIC) &&
            (want & ~RTM_RMA_ATOMIC) != 0) {
            want &= ~RTM_RMA_ATOMIC;
            n -= reg->loop[t];   /* the loopback endpoint is there for atomics only */
            reg->loop[t] = 0;
            status = tl->ops->mem_expose(tl->iface, addr, len, want, eps, n, &reg->memh[t]);
        }
        if (status == RTM_ERR_NOT_SUPPORTED && (want & RTM_RMA_READ) && want != RTM_RMA_READ) {
            want = RTM_RMA_READ;
            status = tl->ops->mem_expose(tl->iface, addr, len, want, eps, n, &reg->memh[t]);
        }
        if (status == RTM_ERR_NOT_SUPPORTED) {
            rtm_debug("rank %d: %s exposes no region (%s); its peers use messages",
                      rtm_rt.world_rank, tl->ops->name, rtm_last_error());
            reg->memh[t] = NULL;
            continue;
        }
        if (status != RTM_OK)
            goto err;
        reg->tl_rights[t] = want;
    }
    free(eps);
    *reg_p = reg;
    return RTM_OK;

err:
    for (int t = 0; t < rtm_rt.num_tls; t++)
        if (reg->memh[t] != NULL)
            rtm_rt.tls[t].ops->mem_revoke(rtm_rt.tls[t].iface, reg->memh[t]);
    free(reg);
    free(eps);
    return status;
}

rtm_status_t binding_rma_key_pack(rtm_rma_region_t reg, int rank, void *blob, size_t *len_p)
{
    unsigned char tl_key[RTM_TL_RKEY_MAX];
    size_t tl_key_len = sizeof(tl_key);
    rtm_comm_obj_t *c;
    rtm_peer_t *p;
    rtm_status_t status;
    int world, t;

    if (reg == NULL || blob == NULL || len_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_rma_key_pack: NULL argument");
    if ((status = comm_get(reg->comm, "rtm_rma_key_pack", &c)) != RTM_OK)
        return status;
    if (rank == c->rank) {
        /* its own key: for its loopback endpoint (atomics on its own region) */
        for (t = 0; t < rtm_rt.num_tls; t++) {
            rtm_tl_ep_t *ep;

            if (!reg->loop[t] || reg->memh[t] == NULL || (ep = loop_ep(t)) == NULL)
                continue;
            status = rtm_rt.tls[t].ops->mem_key(reg->memh[t], ep, tl_key, &tl_key_len);
            if (status != RTM_OK)
                return status;
            return rma_key_pack(blob, len_p, (uint64_t)(uintptr_t)reg->addr, reg->len,
                                reg->tl_rights[t], reg->rights, rtm_rt.tls[t].ops->name, tl_key,
                                tl_key_len);
        }
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "rtm_rma_key_pack: not available: rank %d "
                             "exposed its region to itself through no transport (use "
                             "messages)", rtm_rt.world_rank);
    }
    if ((status = rma_peer(c, rank, &p, &world)) != RTM_OK)
        return status;
    t = tl_index(p->tl);
    if (t < 0 || reg->memh[t] == NULL)
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "rtm_rma_key_pack: not available: %s "
                             "reaches rank %d and exposed nothing to it (use messages)",
                             t >= 0 ? p->tl->ops->name : "no transport", world);
    status = p->tl->ops->mem_key(reg->memh[t], p->ep, tl_key, &tl_key_len);
    if (status != RTM_OK)
        return status;
    return rma_key_pack(blob, len_p, (uint64_t)(uintptr_t)reg->addr, reg->len,
                        reg->tl_rights[t], reg->rights, p->tl->ops->name, tl_key, tl_key_len);
}

rtm_status_t binding_rma_revoke(rtm_rma_region_t reg)
{
    rtm_status_t status = RTM_OK;

    if (reg == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_rma_revoke: NULL region");
    for (int t = 0; t < rtm_rt.num_tls; t++) {
        if (reg->memh[t] != NULL) {
            rtm_status_t st = rtm_rt.tls[t].ops->mem_revoke(rtm_rt.tls[t].iface, reg->memh[t]);

            if (st != RTM_OK && status == RTM_OK)
                status = st;
        }
    }
    free(reg);
    return status;
}

rtm_status_t binding_rma_key_unpack(rtm_comm_t comm, int rank, const void *blob, size_t len,
                                    rtm_rma_key_t *key_p)
{
    rma_key_view_t v;
    rtm_comm_obj_t *c;
    rtm_peer_t *p;
    rtm_status_t status;
    int world, t;

    if (key_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_rma_key_unpack: NULL key");
    if ((status = comm_get(comm, "rtm_rma_key_unpack", &c)) != RTM_OK ||
        (status = rma_done_init()) != RTM_OK)
        return status;
    if (rank == c->rank) {
        /* its own key: the transport of that name with a loopback endpoint */
        if ((status = rma_key_parse(blob, len, &v)) != RTM_OK)
            return status;
        world = rtm_rt.world_rank;
        for (t = 0; t < rtm_rt.num_tls; t++)
            if (strcmp(v.tl_name, rtm_rt.tls[t].ops->name) == 0 && loop_ep(t) != NULL)
                break;
        if (t == rtm_rt.num_tls)
            return rtm_error_set(RTM_ERR_INVALID_ARG, "rank %d: its own key is for %s, which "
                                 "has no loopback endpoint here", world, v.tl_name);
    } else {
        if ((status = rma_peer(c, rank, &p, &world)) != RTM_OK)
            return status;
        if ((status = rma_key_parse(blob, len, &v)) != RTM_OK)
            return rtm_error_set(status, "rank %d: a key from rank %d: %s", rtm_rt.world_rank,
                                 world, rtm_last_error());
        if (strcmp(v.tl_name, p->tl->ops->name) != 0)
            return rtm_error_set(RTM_ERR_INVALID_ARG, "rank %d: a key from rank %d is for %s, "
                                 "but %s reaches that rank", rtm_rt.world_rank, world,
                                 v.tl_name, p->tl->ops->name);
        t = tl_index(p->tl);
    }
    memset(key_p, 0, sizeof(*key_p));
    key_p->addr = v.addr;
    key_p->len = v.len;
    key_p->rights = v.rights;
    key_p->asked = v.asked;
    key_p->world_rank = world;
    key_p->tl = t;
    key_p->tl_key_len = (unsigned)v.tl_key_len;
    memcpy(key_p->tl_key, v.tl_key, v.tl_key_len);
    return RTM_OK;
}

/* Where an operation goes: the transport and its endpoint (a peer's, or
 * the loopback endpoint for this rank's own region). */
typedef struct rma_route {
    rtm_tl_t    *tl;
    rtm_tl_ep_t *ep;
} rma_route_t;

static const char *right_name(unsigned right)
{
    return right == RTM_RMA_READ ? "read" : right == RTM_RMA_WRITE ? "write" : "atomic";
}

/* The checks every operation makes at the origin: the key is this rank's
 * (unpacked for it), the range lies in the region, the right was granted,
 * and the transport has the op. Hot path: no allocation, lock or log. */
static inline rtm_status_t rma_check(rtm_comm_t comm, int rank, const rtm_rma_key_t *key,
                                     uint64_t offset, size_t len, unsigned right,
                                     rma_route_t *p, rma_peer_done_t **done_p)
{
    rtm_comm_obj_t *c;
    rtm_status_t status;
    int world;

    if (__builtin_expect((status = comm_get(comm, "one-sided", &c)) != RTM_OK, 0))
        return status;
    if (__builtin_expect(key == NULL, 0))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "one-sided: NULL key");
    if (rank == c->rank && key->world_rank == rtm_rt.world_rank) {
        /* its own region, through the transport's loopback endpoint */
        world = rtm_rt.world_rank;
        if (__builtin_expect((p->ep = loop_ep(key->tl)) == NULL, 0))
            return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "one-sided: not available: no loopback "
                                 "endpoint for rank %d's own region", world);
        p->tl = &rtm_rt.tls[key->tl];
        rma_loop_used[key->tl] = 1;
    } else {
        rtm_peer_t *peer;

        if (__builtin_expect((status = rma_peer(c, rank, &peer, &world)) != RTM_OK, 0))
            return status;
        p->tl = peer->tl;
        p->ep = peer->ep;
    }
    if (__builtin_expect(key->world_rank != world || key->tl != tl_index(p->tl), 0))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "one-sided: the key was not unpacked for "
                             "rank %d (it is rank %d's)", world, key->world_rank);
    if (__builtin_expect(offset > key->len || len > key->len - offset, 0))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "one-sided: %zu B at offset %llu lie outside "
                             "rank %d's region of %llu B", len, (unsigned long long)offset,
                             world, (unsigned long long)key->len);
    if (__builtin_expect(!(key->rights & right), 0) && (key->asked & right))
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "one-sided: not available: rank %d exposed "
                             "its region with the %s right, which %s cannot grant (use "
                             "messages)", world, right_name(right), p->tl->ops->name);
    if (__builtin_expect(!(key->rights & right), 0))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "one-sided: rank %d exposed its region without "
                             "the %s right", world, right_name(right));
    if (__builtin_expect(rma_done_n != rtm_rt.world_size, 0) &&
        (status = rma_done_init()) != RTM_OK)
        return status;
    *done_p = &rma_done[world];
    return RTM_OK;
}

rtm_status_t binding_rma_put(rtm_comm_t comm, int rank, const rtm_rma_key_t *key,
                             uint64_t offset, const void *buf, size_t len)
{
    rma_route_t rt = { NULL, NULL }, *p = &rt;
    rma_peer_done_t *d = NULL;
    rtm_status_t status = rma_check(comm, rank, key, offset, len, RTM_RMA_WRITE, p, &d);

    if (status != RTM_OK)
        return status;
    if (__builtin_expect(buf == NULL && len > 0, 0))
        return rtm_error_set(RTM_ERR_BUFFER, "rtm_rma_put: NULL buffer");
    if (__builtin_expect(p->tl->ops->put == NULL, 0))
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "rtm_rma_put: not available over %s",
                             p->tl->ops->name);
    if (len == 0)
        return RTM_OK;
    while ((status = p->tl->ops->put(p->ep, buf, len, key->addr + offset, key->tl_key,
                                     key->tl_key_len, &d->comp)) == RTM_ERR_AGAIN)
        progress_once();
    return status;
}

rtm_status_t binding_rma_get(rtm_comm_t comm, int rank, const rtm_rma_key_t *key,
                             uint64_t offset, void *buf, size_t len)
{
    rma_route_t rt = { NULL, NULL }, *p = &rt;
    rma_peer_done_t *d = NULL;
    rtm_status_t status = rma_check(comm, rank, key, offset, len, RTM_RMA_READ, p, &d);

    if (status != RTM_OK)
        return status;
    if (__builtin_expect(buf == NULL && len > 0, 0))
        return rtm_error_set(RTM_ERR_BUFFER, "rtm_rma_get: NULL buffer");
    if (__builtin_expect(p->tl->ops->get == NULL || p->tl->ops->flush == NULL, 0))
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "rtm_rma_get: not available over %s",
                             p->tl->ops->name);
    if (len == 0)
        return RTM_OK;   /* nothing to read (transports take no empty get) */
    d->gets++;   /* before: the comp may run inside the call */
    while ((status = p->tl->ops->get(p->ep, buf, NULL, len, key->addr + offset, key->tl_key,
                                     key->tl_key_len, &d->get_comp)) == RTM_ERR_AGAIN)
        progress_once();
    if (__builtin_expect(status != RTM_OK, 0))
        d->gets--;   /* not started */
    return status;
}

rtm_status_t binding_rma_atomic(rtm_comm_t comm, int rank, const rtm_rma_key_t *key,
                                uint64_t offset, int op, uint64_t operand, uint64_t compare,
                                uint64_t *result_p)
{
    rma_route_t rt = { NULL, NULL }, *p = &rt;
    rma_peer_done_t *d = NULL;
    rtm_status_t status = rma_check(comm, rank, key, offset, 8, RTM_RMA_ATOMIC, p, &d);

    if (status != RTM_OK)
        return status;
    if (__builtin_expect((op != RTM_RMA_FADD && op != RTM_RMA_CSWAP) || result_p == NULL ||
                         ((key->addr + offset) & 7) != 0, 0))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_rma_atomic: op %d, result %p, target "
                             "address 8-byte aligned?", op, (void *)result_p);
    if (__builtin_expect(p->tl->ops->atomic == NULL ||
                         !(p->tl->caps.flags & RTM_TL_CAP_ATOMIC), 0))
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "rtm_rma_atomic: not available over %s",
                             p->tl->ops->name);
    while ((status = p->tl->ops->atomic(p->ep, (rtm_tl_atomic_op_t)op, operand, compare,
                                        result_p, key->addr + offset, key->tl_key,
                                        key->tl_key_len, &d->comp)) == RTM_ERR_AGAIN)
        progress_once();
    return status;
}

/* Waits for world rank `world`'s one-sided operations: its gets, then
 * what the transport has in flight to it (puts, atomics). */
static rtm_status_t flush_peer(int world)
{
    rtm_peer_t *p = &rtm_rt.peers[world];
    rtm_status_t status;

    while (rma_done != NULL && world < rma_done_n && rma_done[world].gets > 0)
        progress_once();
    if (world == rtm_rt.world_rank) {
        /* this rank's own region: through the loopback endpoints used */
        for (int t = 0; t < rtm_rt.num_tls; t++) {
            rtm_tl_ep_t *ep;

            if (!rma_loop_used[t] || (ep = loop_ep(t)) == NULL ||
                rtm_rt.tls[t].ops->flush == NULL)
                continue;
            while ((status = rtm_rt.tls[t].ops->flush(ep)) == RTM_ERR_AGAIN)
                progress_once();
            if (status != RTM_OK)
                return status;
        }
    }
    if (p->ep == NULL || p->tl == NULL || p->tl->ops->flush == NULL)
        return RTM_OK;
    while ((status = p->tl->ops->flush(p->ep)) == RTM_ERR_AGAIN)
        progress_once();
    return status;
}

/* The error an operation to world rank `world` completed with since its
 * last flush (cleared), or RTM_OK. */
static rtm_status_t flush_error(int world)
{
    rtm_status_t error;

    if (rma_done == NULL || world >= rma_done_n)
        return RTM_OK;
    error = rma_done[world].error;
    rma_done[world].error = RTM_OK;
    return error;
}

rtm_status_t binding_rma_flush(rtm_comm_t comm, int rank)
{
    rtm_comm_obj_t *c;
    rtm_status_t status, error = RTM_OK;
    int world, failed = -1;

    if ((status = comm_get(comm, "rtm_rma_flush", &c)) != RTM_OK)
        return status;
    if (rank == RTM_ANY_SOURCE) {
        for (int r = 0; r < c->size && status == RTM_OK; r++)
            status = flush_peer(comm_world_rank_of(c, r));
        for (int r = 0; r < c->size && status == RTM_OK; r++) {
            rtm_status_t e = flush_error(comm_world_rank_of(c, r));

            if (e != RTM_OK && error == RTM_OK) {
                error = e;
                failed = comm_world_rank_of(c, r);
            }
        }
    } else {
        rtm_peer_t *p;

        if ((status = rma_peer(c, rank, &p, &world)) != RTM_OK)
            return status;
        status = flush_peer(world);
        if (status == RTM_OK) {
            error = flush_error(world);
            failed = world;
        }
    }
    if (status == RTM_OK && error != RTM_OK)
        status = rtm_error_set(error, "rank %d: one-sided: an operation to rank %d failed: %s",
                               rtm_rt.world_rank, failed, rtm_strerror(error));
    return status;
}

/* ---- the public API: the library's state, then the binding's calls ---- */

rtm_status_t rtm_rma_expose(rtm_comm_t comm, void *addr, size_t len, unsigned rights,
                            rtm_rma_region_t *reg_p)
{
    rtm_status_t status = rt_check_ready("rtm_rma_expose");

    return status != RTM_OK ? status : binding_rma_expose(comm, addr, len, rights, reg_p);
}

rtm_status_t rtm_rma_key_pack(rtm_rma_region_t reg, int rank, void *blob, size_t *len_p)
{
    rtm_status_t status = rt_check_ready("rtm_rma_key_pack");

    return status != RTM_OK ? status : binding_rma_key_pack(reg, rank, blob, len_p);
}

rtm_status_t rtm_rma_revoke(rtm_rma_region_t *reg_p)
{
    rtm_status_t status = rt_check_ready("rtm_rma_revoke");

    if (status != RTM_OK)
        return status;
    if (reg_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_rma_revoke: NULL argument");
    status = binding_rma_revoke(*reg_p);
    *reg_p = NULL;
    return status;
}

rtm_status_t rtm_rma_key_unpack(rtm_comm_t comm, int rank, const void *blob, size_t len,
                                rtm_rma_key_t *key_p)
{
    rtm_status_t status = rt_check_ready("rtm_rma_key_unpack");

    return status != RTM_OK ? status : binding_rma_key_unpack(comm, rank, blob, len, key_p);
}

rtm_status_t rtm_rma_put(rtm_comm_t comm, int rank, const rtm_rma_key_t *key, uint64_t offset,
                         const void *buf, size_t len)
{
    rtm_status_t status = rt_check_ready("rtm_rma_put");

    return status != RTM_OK ? status : binding_rma_put(comm, rank, key, offset, buf, len);
}

rtm_status_t rtm_rma_get(rtm_comm_t comm, int rank, const rtm_rma_key_t *key, uint64_t offset,
                         void *buf, size_t len)
{
    rtm_status_t status = rt_check_ready("rtm_rma_get");

    return status != RTM_OK ? status : binding_rma_get(comm, rank, key, offset, buf, len);
}

rtm_status_t rtm_rma_atomic(rtm_comm_t comm, int rank, const rtm_rma_key_t *key,
                            uint64_t offset, int op, uint64_t operand, uint64_t compare,
                            uint64_t *result_p)
{
    rtm_status_t status = rt_check_ready("rtm_rma_atomic");

    return status != RTM_OK ? status : binding_rma_atomic(comm, rank, key, offset, op, operand,
                                                          compare, result_p);
}

rtm_status_t rtm_rma_flush(rtm_comm_t comm, int rank)
{
    rtm_status_t status = rt_check_ready("rtm_rma_flush");

    return status != RTM_OK ? status : binding_rma_flush(comm, rank);
}

rtm_status_t rtm_rma_wr_count(rtm_comm_t comm, int rank, uint64_t *count_p)
{
    rtm_status_t status = rt_check_ready("rtm_rma_wr_count");
    rtm_comm_obj_t *c;
    rtm_peer_t *p;
    int world;

    if (status != RTM_OK)
        return status;
    if ((status = comm_get(comm, "rtm_rma_wr_count", &c)) != RTM_OK)
        return status;
    if (count_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_rma_wr_count: NULL argument");
    if ((status = rma_peer(c, rank, &p, &world)) != RTM_OK)
        return status;
    if (p->tl->ops->rma_wr_count == NULL)
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "rtm_rma_wr_count: not available over %s",
                             p->tl->ops->name);
    *count_p = p->tl->ops->rma_wr_count(p->tl->iface);
    return RTM_OK;
}
