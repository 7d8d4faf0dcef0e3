/*
 * The shm endpoint's part of a job-state report (ops.ep_state): how full
 * the ring to the peer (or the peer's shared queue) is, and how many split
 * reads from the peer wait for its chunks. Read on the slow
 * path of a report only.
 */
#include "config.h"

#include "transport/shm/shm.h"
#include "transport/shm/shm_fifo.h"

#include <stdatomic.h>
#include <stdio.h>

size_t shm_ep_state(rtm_tl_ep_t *tl_ep, char *buf, size_t len)
{
    shm_ep_t *ep = shm_ep(tl_ep);
    shm_iface_t *iface;
    uint64_t tail, used, lines;
    int n, split = 0;

    if (buf == NULL || len == 0)
        return 0;
    buf[0] = '\0';
    if (ep == NULL || ep->tx == NULL || ep->tx->tail == NULL)
        return 0;
    tail = atomic_load_explicit(ep->tx->tail, memory_order_acquire);
    lines = ep->tx->mask + 1;
    /* a shared queue: the lines every sender holds in the peer's queue */
    used = (ep->tx->qhead != NULL ? atomic_load_explicit(ep->tx->qhead, memory_order_relaxed)
                                  : ep->tx->head) - tail;
    iface = shm_iface(tl_ep->iface);
    for (uint64_t busy = iface->split_busy; busy != 0; busy &= busy - 1)
        split += iface->split[__builtin_ctzll(busy)].local_peer == ep->local;
    n = snprintf(buf, len, "\"ring_lines_used\":%llu,\"ring_lines\":%llu,\"queue\":\"%s\","
                 "\"peer_pid\":%d,\"split_reads\":%d", (unsigned long long)used,
                 (unsigned long long)lines, ep->tx->qhead != NULL ? "shared" : "pair",
                 (int)ep->pid, split);
    return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
}
