/*
 * shm transport: ranks of one host exchange active messages through
 * per-pair lock-free rings, or one shared queue per rank past the rings'
 * floor, in the job's shared segment (shm_fifo.h), and
 * large messages by a single process_vm_readv copy when the kernel permits
 * it (shm_cma.c).
 */
#include "config.h"

#include "transport/shm/shm.h"
#include "common/error.h"
#include "common/log.h"
#include "transport/shm/shm_config.h"
#include "transport/shm/shm_direct.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * Largest active message: the runtime streams medium messages as DATA
 * fragments of up to am_max minus its 16 B header. Measured with bench_shm
 * (2-vCPU VM, 256 KiB rings, best of 7): 256K/512K messages streamed at
 * 33/35 GB/s with 8K fragments, 40/47 with 32K, 36/41 with 64K. 32K keeps
 * eight fragments in flight in a ring that stays in L2.
 */
#ifndef SHM_AM_MAX_DEFAULT   /* -D for experiments with bench_shm */
#define SHM_AM_MAX_DEFAULT (32u * 1024u)
#endif
/* Records delivered from one ring (or the shared queue) per progress call,
 * so one busy sender cannot starve the others. */
#define SHM_RX_BATCH 32
/* Stamps are the low 32 bits of a line position: a ring must stay far
 * below 2^32 lines for a stale header never to carry the current stamp. */
#define SHM_MAX_FIFO_SIZE  ((size_t)1 << 30)
/* RTM_SHM_FIFO_SIZE's range keeps to them */
_Static_assert(SHM_CONFIG_FIFO_MIN >= SHM_MIN_FIFO_LINES * SHM_LINE &&
               SHM_CONFIG_FIFO_MAX == SHM_MAX_FIFO_SIZE, "shm_config.c's fifo range");

static size_t am_max_for(uint64_t fifo_lines)
{
    size_t max = (size_t)(fifo_lines / 4) * SHM_LINE - SHM_REC_HDR;

    return max < SHM_AM_MAX_DEFAULT ? max : SHM_AM_MAX_DEFAULT;
}

static void shm_free(shm_iface_t *iface)
{
    free(iface->eps);
    free(iface->harmless);
    free(iface->tx);
    free(iface->rx);
    free(iface->local_peers);
    free(iface);
}

static rtm_status_t shm_open_iface(const rtm_tl_params_t *params, rtm_tl_iface_t **iface_p)
{
    shm_iface_t *iface;
    shm_seg_geom_t geom;
    rtm_status_t status;

    if (!rtm_tl_params_valid(params) || iface_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "shm open: params, am_cb, peer_failed or iface_p is NULL");
    if (params->local_size < 1 || params->local_rank < 0 ||
        params->local_rank >= params->local_size || params->local_peers == NULL ||
        params->nspace == NULL || params->am_cb == NULL ||
        params->local_peers[params->local_rank] != params->world_rank)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "shm open: inconsistent parameters (local rank %d of %d, world "
                             "rank %d, local_peers %p, nspace %p, am_cb %s)",
                             params->local_rank, params->local_size, params->world_rank,
                             (const void *)params->local_peers, (const void *)params->nspace,
                             params->am_cb ? "set" : "NULL");

    if (params->local_size - 1 > (int)SHM_QUEUE_SRC_MAX)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "shm open: rank %d (%s): %d local ranks; the shm transport "
                             "serves at most %u", params->world_rank,
                             params->hostname ? params->hostname : rtm_log_hostname(),
                             params->local_size, SHM_QUEUE_SRC_MAX + 1);
    iface = calloc(1, sizeof(*iface));
    if (iface == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "shm open: no memory");
    iface->super.ops = &rtm_tl_shm;
    iface->fd = -1;
    iface->load_fd = -1;
    iface->am_cb = params->am_cb;
    iface->am_arg = params->am_arg;
    iface->addr_lookup = params->addr_lookup;
    iface->world_rank = params->world_rank;
    iface->local_rank = params->local_rank;
    iface->local_size = params->local_size;
    iface->node_id = params->node_id;
    snprintf(iface->hostname, sizeof(iface->hostname), "%s",
             params->hostname ? params->hostname : rtm_log_hostname());
    shm_seg_name(params->nspace, params->node_id, iface->name, sizeof(iface->name));
    shm_seg_geometry(params->local_size, &geom);
    iface->shared = geom.shared;
    iface->fifo_lines = geom.fifo_lines;
    iface->am_max = am_max_for(iface->fifo_lines);
    iface->cma = SHM_CMA_UNPROBED;
    /* any value a stale or foreign mapping would not hold by chance */
    iface->cma_probe = ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)iface ^
                       (uint64_t)time(NULL) ^ UINT64_C(0x5deece66d);
    /* before the word is published: peers probe it once they see it */
    shm_cma_allow_peers(iface);

    iface->local_peers = malloc((size_t)params->local_size * sizeof(int));
    if (iface->local_peers == NULL) {
        status = rtm_error_set(RTM_ERR_NO_MEMORY, "shm open: no memory");
        goto err_free;
    }
    memcpy(iface->local_peers, params->local_peers, (size_t)params->local_size * sizeof(int));

    /* Local rank 0 makes the segment before the fence, so that it exists
     * when the others attach after it. Alone on the host: nothing to share. */
    if (iface->local_rank == 0 && iface->local_size > 1) {
        status = shm_seg_create(iface, &geom);
        if (status != RTM_OK)
            goto err_free;
    }
    *iface_p = &iface->super;
    return RTM_OK;

err_free:
    shm_free(iface);
    return status;
}

static void shm_close(rtm_tl_iface_t *tl_iface)
{
    shm_iface_t *iface = shm_iface(tl_iface);

    if (iface == NULL)
        return;
    shm_get_flush(iface);
    shm_split_drain(iface);
    if (iface->cma == SHM_CMA_OK) {
        rtm_debug("shm: %llu CMA reads (%llu B) in %llu system calls, %llu rendezvous left "
                  "to the rings; host busy in %llu of %llu load samples",
                  (unsigned long long)iface->cma_reads,
                  (unsigned long long)iface->cma_bytes, (unsigned long long)iface->cma_calls,
                  (unsigned long long)iface->cma_declined,
                  (unsigned long long)iface->load_busy_samples,
                  (unsigned long long)iface->load_samples);
        rtm_debug("shm: %llu reads split with their senders (%llu chunks, %llu written by "
                  "the senders); not split: %llu while sending too, %llu after a sender "
                  "missed, %llu without a slot or ring room; wrote %llu chunks (%llu B) of "
                  "peers' reads, left %llu requests",
                  (unsigned long long)iface->split_reads,
                  (unsigned long long)iface->split_chunks,
                  (unsigned long long)iface->split_peer_chunks,
                  (unsigned long long)iface->split_both_ways,
                  (unsigned long long)iface->split_paused,
                  (unsigned long long)iface->split_declined,
                  (unsigned long long)iface->split_helped,
                  (unsigned long long)iface->split_helped_bytes,
                  (unsigned long long)iface->split_skipped);
    }
    if (iface->split_bad > 0)
        rtm_warn("rank %d (%s): shm: ignored %llu split-read records that failed their check",
                 iface->world_rank, iface->hostname, (unsigned long long)iface->split_bad);
    if (iface->bad_records > 0)
        rtm_warn("rank %d (%s): shm: dropped %llu records of the shared queue that named no "
                 "local peer", iface->world_rank, iface->hostname,
                 (unsigned long long)iface->bad_records);
    shm_load_close(iface);
    shm_seg_unlink_if_named(iface);
    shm_seg_detach(iface);
    shm_free(iface);
}

/* Shared mode: the queue this rank reads, and every peer's it writes. */
static void shm_setup_queues(shm_iface_t *iface)
{
    uint64_t mask = iface->fifo_lines - 1;

    iface->rx[0].lines = shm_seg_queue(iface, iface->local_rank);
    iface->rx[0].tail = &shm_seg_qctrl(iface, iface->local_rank)->tail;
    iface->rx[0].mask = mask;
    iface->rx[0].pos = 0;
    iface->rx[0].src = -1;   /* each record names its sender */
    iface->num_rx = 1;
    for (int peer = 0; peer < iface->local_size; peer++) {
        if (peer == iface->local_rank)
            continue;
        iface->tx[peer].lines = shm_seg_queue(iface, peer);
        iface->tx[peer].tail = &shm_seg_qctrl(iface, peer)->tail;
        iface->tx[peer].qhead = &shm_seg_qctrl(iface, peer)->head;
        iface->tx[peer].mask = mask;
        iface->tx[peer].src_pos = (uint64_t)iface->local_rank << SHM_QUEUE_SRC_SHIFT;
    }
}

/* Rings (or queues) of this rank, once the segment is mapped. */
static rtm_status_t shm_setup_rings(shm_iface_t *iface)
{
    int n = iface->local_size;
    uint64_t lines = iface->seg->fifo_lines;

    iface->fifo_lines = lines;
    iface->am_max = am_max_for(lines);
    iface->rx = calloc((size_t)n, sizeof(*iface->rx));
    iface->tx = calloc((size_t)n, sizeof(*iface->tx));
    iface->eps = calloc((size_t)n, sizeof(*iface->eps));
    if (iface->rx == NULL || iface->tx == NULL || iface->eps == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "shm: no memory for %d rings", 2 * n);
    if (iface->shared) {
        shm_setup_queues(iface);
        return RTM_OK;
    }
    iface->harmless = malloc((size_t)n * lines);
    if (iface->harmless == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "shm: no memory for %d rings", 2 * n);
    /* a fresh segment is all zeroes: every line is harmless */
    memset(iface->harmless, 1, (size_t)n * lines);

    iface->num_rx = 0;
    for (int peer = 0; peer < n; peer++) {
        if (peer == iface->local_rank)
            continue;
        iface->rx[iface->num_rx].lines = shm_seg_ring(iface, peer, iface->local_rank);
        iface->rx[iface->num_rx].tail = &shm_seg_ctrl(iface, peer, iface->local_rank)->tail;
        iface->rx[iface->num_rx].mask = lines - 1;
        iface->rx[iface->num_rx].pos = 0;
        iface->rx[iface->num_rx].src = iface->local_peers[peer];
        iface->num_rx++;

        iface->tx[peer].lines = shm_seg_ring(iface, iface->local_rank, peer);
        iface->tx[peer].tail = &shm_seg_ctrl(iface, iface->local_rank, peer)->tail;
        iface->tx[peer].mask = lines - 1;
        iface->tx[peer].head = 0;
        iface->tx[peer].cached_tail = 0;
        iface->tx[peer].harmless = iface->harmless + (size_t)peer * lines;
    }
    return RTM_OK;
}

static rtm_status_t shm_wireup(rtm_tl_iface_t *tl_iface)
{
    shm_iface_t *iface = shm_iface(tl_iface);
    char desc[256];
    rtm_status_t status;

    if (iface == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "shm wireup: iface is NULL");
    if (iface->local_size < 2 || iface->rx != NULL)
        return RTM_OK;
    if (iface->seg == NULL) {
        status = shm_seg_attach(iface);
        if (status != RTM_OK)
            return status;
    }
    status = shm_setup_rings(iface);
    if (status != RTM_OK)
        return status;
    shm_cma_probe(iface);
    if (iface->cma == SHM_CMA_OK && shm_split_allowed(iface))
        iface->split_slots = shm_seg_split_slots(iface, iface->local_rank);
    shm_load_open(iface);
    shm_cma_describe(iface, desc, sizeof(desc));
    rtm_debug("shm: %s, %d local ranks, %s of %llu KiB, %s", iface->name, iface->local_size,
              iface->shared ? "a shared queue per rank" : "rings",
              (unsigned long long)(iface->fifo_lines * SHM_LINE / 1024), desc);
    return RTM_OK;
}

static void shm_query(rtm_tl_iface_t *tl_iface, rtm_tl_caps_t *caps)
{
    shm_iface_t *iface = shm_iface(tl_iface);
    size_t am_max = iface ? iface->am_max : SHM_AM_MAX_DEFAULT;

    memset(caps, 0, sizeof(*caps));
    caps->flags = RTM_TL_CAP_LOCAL;
    caps->am_max = am_max;
    /* leave room for the largest runtime header next to an eager payload */
    caps->eager_limit = shm_config.eager_limit;
    if (caps->eager_limit > am_max - 256)
        caps->eager_limit = am_max - 256;
    if (iface != NULL && iface->cma == SHM_CMA_OK) {
        caps->flags |= RTM_TL_CAP_GET | RTM_TL_CAP_PUT;
        caps->get_threshold = shm_cma_min_threshold();   /* then per message: get_preferred */
    }
    caps->latency_us = 0.1;
    caps->bandwidth_gbs = 10.0;
}

static void shm_describe(rtm_tl_iface_t *tl_iface, char *buf, size_t len)
{
    shm_iface_t *iface = shm_iface(tl_iface);
    rtm_tl_caps_t caps;
    char cma[160];

    if (iface == NULL) {
        snprintf(buf, len,
                 "shm: ranks of one host, lock-free queues in /dev/shm (RTM_SHM_QUEUE=%s), "
                 "eager <= %zu B, CMA single copy from %zu B (%zu B on a busy host) when the "
                 "kernel permits (RTM_SHM_CMA=%s)",
                 shm_config.queue == SHM_QUEUE_SHARED ? "shared" :
                 shm_config.queue == SHM_QUEUE_PAIR ? "pair" : "auto",
                 shm_config.eager_limit, shm_config.cma_threshold, shm_config.cma_threshold_busy,
                 shm_config.cma == 0 ? "auto" : "off");
        return;
    }
    shm_query(tl_iface, &caps);
    snprintf(buf, len, "shm: %d local ranks, %s, eager <= %zu B, messages <= %zu B, %s",
             iface->local_size, iface->shared ? "a shared queue per rank" : "per-pair rings",
             caps.eager_limit, caps.am_max,
             shm_cma_describe(iface, cma, sizeof(cma)));
}

static rtm_status_t shm_addr_pack(rtm_tl_iface_t *tl_iface, void *buf, size_t *len_p)
{
    shm_iface_t *iface = shm_iface(tl_iface);
    shm_addr_t addr;

    if (iface == NULL || buf == NULL || len_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "shm addr_pack: NULL argument");
    if (*len_p < sizeof(addr))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "shm addr_pack: buffer of %zu B, need %zu",
                             *len_p, sizeof(addr));
    memset(&addr, 0, sizeof(addr));
    addr.magic = SHM_ADDR_MAGIC;
    addr.version = SHM_SEG_VERSION;
    addr.local_rank = (uint16_t)iface->local_rank;
    addr.node_id = iface->node_id;
    addr.pid = (int32_t)getpid();
    addr.probe_addr = (uint64_t)(uintptr_t)&iface->cma_probe;
    addr.probe_value = iface->cma_probe;
    memcpy(buf, &addr, sizeof(addr));
    *len_p = sizeof(addr);
    return RTM_OK;
}

/* Local rank of a world rank, or -1 when it is not on this host. */
static int shm_local_of(const shm_iface_t *iface, int peer)
{
    for (int i = 0; i < iface->local_size; i++) {
        if (iface->local_peers[i] == peer)
            return i;
    }
    return -1;
}

static int shm_addr_check(const shm_iface_t *iface, int peer, const void *blob,
                          size_t blob_len, shm_addr_t *addr)
{
    int local;

    if (iface == NULL || peer == iface->world_rank || blob == NULL ||
        blob_len != sizeof(*addr))
        return -1;
    memcpy(addr, blob, sizeof(*addr));
    local = shm_local_of(iface, peer);
    if (addr->magic != SHM_ADDR_MAGIC || addr->version != SHM_SEG_VERSION ||
        addr->node_id != iface->node_id || local < 0 || addr->local_rank != local)
        return -1;
    return local;
}

static int shm_reachable(rtm_tl_iface_t *tl_iface, int peer, const void *blob,
                         size_t blob_len)
{
    shm_addr_t addr;

    return shm_addr_check(shm_iface(tl_iface), peer, blob, blob_len, &addr) >= 0;
}

static rtm_status_t shm_ep_create(rtm_tl_iface_t *tl_iface, int peer, const void *blob,
                                  size_t blob_len, rtm_tl_ep_t **ep_p)
{
    shm_iface_t *iface = shm_iface(tl_iface);
    shm_addr_t addr;
    shm_ep_t *ep;
    int local;

    if (iface == NULL || ep_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "shm ep_create: NULL argument");
    local = shm_addr_check(iface, peer, blob, blob_len, &addr);
    if (local < 0)
        return rtm_error_set(RTM_ERR_UNREACHABLE,
                             "shm: rank %d is not a local peer of rank %d (%s) or its address "
                             "(%zu B) is not an shm address of node %d",
                             peer, iface->world_rank, iface->hostname, blob_len, iface->node_id);
    if (iface->rx == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "shm ep_create: called before wireup");
    ep = &iface->eps[local];
    ep->super.iface = &iface->super;
    ep->super.peer = peer;
    ep->tx = &iface->tx[local];
    ep->local = local;
    ep->pid = (pid_t)addr.pid;
    ep->in_use = 1;
    *ep_p = &ep->super;
    return RTM_OK;
}

/* The ring's state lives in the iface: a later ep_create to the same peer
 * continues the same stream. */
static void shm_ep_destroy(rtm_tl_ep_t *tl_ep)
{
    if (tl_ep != NULL)
        shm_ep(tl_ep)->in_use = 0;
}

shm_fifo_tx_t *shm_ep_ring(rtm_tl_ep_t *tl_ep)
{
    return shm_ep(tl_ep)->tx;
}

/* Hot path: no allocation, lock or log (except for a caller's bug). */
static rtm_status_t shm_am_send(rtm_tl_ep_t *tl_ep, unsigned am_id, const void *hdr,
                                size_t hdr_len, const void *payload, size_t len)
{
    shm_ep_t *ep = shm_ep(tl_ep);
    size_t am_max = shm_iface(tl_ep->iface)->am_max;

    if (__builtin_expect(hdr_len + len > am_max || am_id >= RTM_TL_AM_ID_MAX, 0))
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "shm am_send: am_id %u, %zu B of header + %zu B of payload; the "
                             "limits are am_id < %d and %zu B in all",
                             am_id, hdr_len, len, RTM_TL_AM_ID_MAX, am_max);
    if (shm_fifo_push(ep->tx, am_id, hdr, hdr_len, payload, len) != 0)
        return RTM_ERR_AGAIN;
    return RTM_OK;
}

/* Shared mode: the records of this rank's queue, up to a batch; nothing
 * before wireup. */
static int shm_progress_queue(shm_iface_t *iface)
{
    shm_fifo_rx_t *rx = iface->rx;
    shm_line_t *line;
    uint64_t word;
    unsigned src;
    int n = 0;

    if (rx == NULL)
        return 0;
    while (n < SHM_RX_BATCH && (line = shm_queue_peek(rx, &word, &src)) != NULL) {
        unsigned am_id = (unsigned)(word >> 24) & 0x7fu;

        if (__builtin_expect(src >= (unsigned)iface->local_size ||
                             src == (unsigned)iface->local_rank, 0))
            iface->bad_records++;   /* reported at close */
        else if (__builtin_expect(am_id == SHM_AM_SPLIT, 0))
            shm_split_help(iface, (int)src, line->data, (size_t)(word & SHM_REC_LEN_MAX));
        else
            iface->am_cb(iface->am_arg, iface->local_peers[src], am_id, line->data,
                         (size_t)(word & SHM_REC_LEN_MAX));
        shm_queue_release(rx, word);
        n++;
    }
    return n;
}

/* Pair mode: the records of each incoming ring, up to a batch per ring. */
static int shm_progress_rings(shm_iface_t *iface)
{
    int events = 0;

    for (int i = 0; i < iface->num_rx; i++) {
        shm_fifo_rx_t *rx = &iface->rx[i];
        shm_line_t *line;
        uint64_t word;
        int n = 0;

        while (n < SHM_RX_BATCH && (line = shm_fifo_peek(rx, &word)) != NULL) {
            unsigned am_id = (unsigned)(word >> 24) & 0x7fu;

            if (__builtin_expect(am_id == SHM_AM_SPLIT, 0))
                shm_split_help(iface, i < iface->local_rank ? i : i + 1, line->data,
                               (size_t)(word & SHM_REC_LEN_MAX));
            else
                iface->am_cb(iface->am_arg, rx->src, am_id, line->data,
                             (size_t)(word & SHM_REC_LEN_MAX));
            shm_fifo_release(rx, word);
            n++;
        }
        events += n;
    }
    return events;
}

/* Hot path: no allocation, lock or log. Cheap when every ring is empty:
 * one load per local peer, of a line only that peer writes; in shared mode
 * one load of the rank's own queue. */
static int shm_progress(rtm_tl_iface_t *tl_iface)
{
    shm_iface_t *iface = shm_iface(tl_iface);
    int events;

    if (iface->in_progress)
        return 0;
    iface->in_progress = 1;
    events = __builtin_expect(iface->shared, 0) ? shm_progress_queue(iface)
                                                : shm_progress_rings(iface);
    /* the reads this pass's RTS records asked for: the large ones with their
     * senders, the others one system call per sender */
    if (iface->split_busy != 0)
        events += shm_split_progress(iface);
    if (iface->gets.n > 0)
        events += shm_get_flush(iface);
    iface->in_progress = 0;
    return events;
}

const rtm_tl_ops_t rtm_tl_shm = {
    RTM_TL_OPS_VERSION,
    .name       = "shm",
    .open       = shm_open_iface,
    .close      = shm_close,
    .query      = shm_query,
    .describe   = shm_describe,
    .addr_pack  = shm_addr_pack,
    .wireup     = shm_wireup,
    .reachable  = shm_reachable,
    .ep_create  = shm_ep_create,
    .ep_destroy = shm_ep_destroy,
    .am_send    = shm_am_send,
    .mem_reg    = shm_mem_reg,
    .mem_dereg  = shm_mem_dereg,
    .get        = shm_get,
    .get_preferred = shm_get_preferred,
    .mem_expose = shm_mem_expose,
    .mem_key    = shm_mem_key,
    .mem_revoke = shm_mem_revoke,
    .put        = shm_put,
    .flush      = shm_flush,
    .rma_wr_count = shm_rma_wr_count,
    .progress   = shm_progress,
    .ep_state   = shm_ep_state,
};
