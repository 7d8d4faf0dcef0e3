/*
 * self transport: a rank sending to itself. am_send copies the message into
 * a bounded ring in private memory and progress() delivers it, so the
 * runtime's handler never runs from inside its own am_send. get() is a
 * memcpy within the process.
 *
 * The ring is the same record format as the shm rings (shm_fifo.h), with
 * producer and consumer in one thread.
 */
#include "config.h"

#include "transport/transport.h"
#include "transport/shm/shm_fifo.h"
#include "common/error.h"
#include "transport/shm/shm_config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SELF_AM_MAX     (64u * 1024u)
#define SELF_MIN_LINES  128u

typedef struct self_rkey {
    uint64_t addr;
    uint64_t len;
} self_rkey_t;

typedef struct self_iface {
    rtm_tl_iface_t   super;
    shm_fifo_tx_t    tx;
    shm_fifo_rx_t    rx;
    _Atomic uint64_t tail;
    size_t           am_max;
    int              world_rank;
    int              in_progress;
    rtm_tl_am_cb_t   am_cb;
    void            *am_arg;
    char             memh_token;
    rtm_tl_ep_t      ep;          /* the one endpoint: to this rank */
} self_iface_t;

_Static_assert(offsetof(self_iface_t, super) == 0, "the base comes first");

static inline self_iface_t *self_iface(rtm_tl_iface_t *tl_iface)
{
    return (self_iface_t *)(void *)tl_iface;
}

static rtm_status_t self_open(const rtm_tl_params_t *params, rtm_tl_iface_t **iface_p)
{
    self_iface_t *iface;
    uint64_t lines = SELF_MIN_LINES;
    size_t am_max;

    if (!rtm_tl_params_valid(params) || iface_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "self open: params, am_cb, peer_failed or iface_p is NULL");
    while (lines * 2 * SHM_LINE <= shm_config.fifo_size)
        lines *= 2;
    am_max = (size_t)(lines / 4) * SHM_LINE - SHM_REC_HDR;
    if (am_max > SELF_AM_MAX)
        am_max = SELF_AM_MAX;

    iface = calloc(1, sizeof(*iface));
    if (iface == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "self open: no memory");
    iface->tx.lines = aligned_alloc(SHM_LINE, lines * SHM_LINE);
    iface->tx.harmless = malloc(lines);
    if (iface->tx.lines == NULL || iface->tx.harmless == NULL) {
        free(iface->tx.lines);
        free(iface->tx.harmless);
        free(iface);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "self open: no memory for a %llu B ring",
                             (unsigned long long)(lines * SHM_LINE));
    }
    memset(iface->tx.lines, 0, lines * SHM_LINE);
    memset(iface->tx.harmless, 1, lines);
    atomic_init(&iface->tail, 0);
    iface->tx.tail = &iface->tail;
    iface->tx.mask = lines - 1;
    iface->rx.lines = iface->tx.lines;
    iface->rx.tail = &iface->tail;
    iface->rx.mask = lines - 1;
    iface->rx.src = params->world_rank;
    iface->am_max = am_max;
    iface->world_rank = params->world_rank;
    iface->am_cb = params->am_cb;
    iface->am_arg = params->am_arg;
    iface->super.ops = &rtm_tl_self;
    iface->ep.iface = &iface->super;
    iface->ep.peer = params->world_rank;
    *iface_p = &iface->super;
    return RTM_OK;
}

static void self_close(rtm_tl_iface_t *tl_iface)
{
    self_iface_t *iface = self_iface(tl_iface);

    if (iface == NULL)
        return;
    free(iface->tx.lines);
    free(iface->tx.harmless);
    free(iface);
}

static void self_query(rtm_tl_iface_t *tl_iface, rtm_tl_caps_t *caps)
{
    self_iface_t *iface = self_iface(tl_iface);

    memset(caps, 0, sizeof(*caps));
    caps->flags = RTM_TL_CAP_SELF | RTM_TL_CAP_GET | RTM_TL_CAP_POLL_ON_WORK;
    caps->am_max = iface ? iface->am_max : SELF_AM_MAX;
    caps->eager_limit = shm_config.eager_limit;
    if (caps->eager_limit > caps->am_max - 256)
        caps->eager_limit = caps->am_max - 256;
    caps->get_threshold = 0;   /* a get is one memcpy: always worth it past eager */
    caps->latency_us = 0.01;
    caps->bandwidth_gbs = 20.0;
}

static void self_describe(rtm_tl_iface_t *tl_iface, char *buf, size_t len)
{
    self_iface_t *iface = self_iface(tl_iface);

    if (iface == NULL)
        snprintf(buf, len, "self: messages a rank sends to itself (in-process ring, get by memcpy)");
    else
        snprintf(buf, len, "self: rank %d, ring of %llu KiB, messages <= %zu B, get by memcpy",
                 iface->world_rank, (unsigned long long)((iface->tx.mask + 1) * SHM_LINE / 1024),
                 iface->am_max);
}

static rtm_status_t self_addr_pack(rtm_tl_iface_t *tl_iface, void *buf, size_t *len_p)
{
    if (tl_iface == NULL || len_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "self addr_pack: NULL argument");
    (void)buf;
    *len_p = 0;   /* nothing to publish */
    return RTM_OK;
}

static int self_reachable(rtm_tl_iface_t *tl_iface, int peer, const void *blob, size_t blob_len)
{
    (void)blob;
    (void)blob_len;
    return tl_iface != NULL && peer == self_iface(tl_iface)->world_rank;
}

static rtm_status_t self_ep_create(rtm_tl_iface_t *tl_iface, int peer, const void *blob,
                                   size_t blob_len, rtm_tl_ep_t **ep_p)
{
    self_iface_t *iface = self_iface(tl_iface);

    (void)blob;
    (void)blob_len;
    if (iface == NULL || ep_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "self ep_create: NULL argument");
    if (peer != iface->world_rank)
        return rtm_error_set(RTM_ERR_UNREACHABLE, "self: rank %d cannot reach rank %d",
                             iface->world_rank, peer);
    *ep_p = &iface->ep;
    return RTM_OK;
}

static void self_ep_destroy(rtm_tl_ep_t *ep)
{
    (void)ep;
}

/* Hot path: no allocation, lock or log (except for a caller's bug). */
static rtm_status_t self_am_send(rtm_tl_ep_t *ep, unsigned am_id, const void *hdr,
                                 size_t hdr_len, const void *payload, size_t len)
{
    self_iface_t *iface = self_iface(ep->iface);

    if (__builtin_expect(hdr_len + len > iface->am_max || am_id >= RTM_TL_AM_ID_MAX, 0))
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "self am_send: am_id %u, %zu B of header + %zu B of payload; the "
                             "limits are am_id < %d and %zu B in all",
                             am_id, hdr_len, len, RTM_TL_AM_ID_MAX, iface->am_max);
    if (shm_fifo_push(&iface->tx, am_id, hdr, hdr_len, payload, len) != 0)
        return RTM_ERR_AGAIN;
    iface->super.has_work = 1;
    return RTM_OK;
}

/* Hot path: no allocation, lock or log. Delivers only what was queued
 * before the call, so a handler that sends to itself cannot keep it busy.
 * has_work (RTM_TL_CAP_POLL_ON_WORK) stays set while records remain, so the
 * runtime polls self only while a self-send is pending. */
static int self_progress(rtm_tl_iface_t *tl_iface)
{
    self_iface_t *iface = self_iface(tl_iface);
    uint64_t end = iface->tx.head;
    shm_line_t *line;
    uint64_t word;
    int events = 0;

    if (iface->in_progress)
        return 0;
    iface->in_progress = 1;
    while (iface->rx.pos < end && (line = shm_fifo_peek(&iface->rx, &word)) != NULL) {
        iface->am_cb(iface->am_arg, iface->rx.src, (unsigned)(word >> 24) & 0x7fu, line->data,
                     (size_t)(word & SHM_REC_LEN_MAX));
        shm_fifo_release(&iface->rx, word);
        events++;
    }
    /* what a handler sent to itself waits for the next call */
    iface->super.has_work = iface->rx.pos != iface->tx.head;
    iface->in_progress = 0;
    return events;
}

static rtm_status_t self_mem_reg(rtm_tl_iface_t *tl_iface, void *addr, size_t len,
                                 rtm_tl_memh_t **memh_p, void *rkey, size_t *rkey_len_p)
{
    self_iface_t *iface = self_iface(tl_iface);
    self_rkey_t key;

    if (iface == NULL || memh_p == NULL || rkey == NULL || rkey_len_p == NULL ||
        (addr == NULL && len > 0))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "self mem_reg: NULL argument");
    if (*rkey_len_p < sizeof(key))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "self mem_reg: rkey buffer of %zu B, need %zu",
                             *rkey_len_p, sizeof(key));
    key.addr = (uint64_t)(uintptr_t)addr;
    key.len = len;
    memcpy(rkey, &key, sizeof(key));
    *rkey_len_p = sizeof(key);
    *memh_p = (rtm_tl_memh_t *)(void *)&iface->memh_token;
    return RTM_OK;
}

static void self_mem_dereg(rtm_tl_iface_t *tl_iface, rtm_tl_memh_t *memh)
{
    (void)tl_iface;
    (void)memh;
}

/* Completes before returning (comp->cb runs inside). */
static rtm_status_t self_get(rtm_tl_ep_t *ep, void *local, rtm_tl_memh_t *local_memh,
                             size_t len, uint64_t remote_addr, const void *rkey,
                             size_t rkey_len, rtm_tl_comp_t *comp)
{
    self_rkey_t key;

    (void)local_memh;
    if (ep == NULL || comp == NULL || comp->cb == NULL || rkey == NULL ||
        (local == NULL && len > 0))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "self get: NULL argument");
    if (rkey_len != sizeof(key))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "self get: rkey of %zu B, expected %zu",
                             rkey_len, sizeof(key));
    memcpy(&key, rkey, sizeof(key));
    if (remote_addr < key.addr || len > key.len || remote_addr - key.addr > key.len - len)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "self get: %zu B at %#llx lie outside the %llu B exposed at %#llx",
                             len, (unsigned long long)remote_addr, (unsigned long long)key.len,
                             (unsigned long long)key.addr);
    if (len > 0)
        memmove(local, (const void *)(uintptr_t)remote_addr, len);
    comp->cb(comp, RTM_OK);
    return RTM_OK;
}

const rtm_tl_ops_t rtm_tl_self = {
    RTM_TL_OPS_VERSION,
    .name       = "self",
    .open       = self_open,
    .close      = self_close,
    .query      = self_query,
    .describe   = self_describe,
    .addr_pack  = self_addr_pack,
    .wireup     = NULL,
    .reachable  = self_reachable,
    .ep_create  = self_ep_create,
    .ep_destroy = self_ep_destroy,
    .am_send    = self_am_send,
    .mem_reg    = self_mem_reg,
    .mem_dereg  = self_mem_dereg,
    .get        = self_get,
    .progress   = self_progress,
};
