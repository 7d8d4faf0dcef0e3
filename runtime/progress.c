/*
 * The progress engine: poll every open transport, then send what waits for
 * queue space. Driven only by calls into the library; no hidden thread.
 */
#include "config.h"

#include "runtime/runtime.h"
#include "common/rtconfig.h"

#include <sched.h>

int progress_pending(void)
{
    rtm_list_t *pos, *tmp;
    int n = 0;

    rtm_list_for_each_safe(pos, tmp, &rtm_rt.pending_peers) {
        rtm_peer_t *p = rtm_container_of(pos, rtm_peer_t, pending_link);

        n += proto_flush_peer(p);
    }
    return n;
}

/* A transport whose poll is a system call: polled every call for a while
 * after it found work (a stream of messages keeps its latency), then only
 * every RTM_NET_POLL_INTERVAL calls. The interval costs a socket message at
 * most that many cheap polls of the other transports (tens of ns each). */
#define SLOW_POLL_HOT 64

static int progress_slow_tl(rtm_tl_t *tl)
{
    int n;

    if (tl->poll_hot == 0 && tl->poll_skip > 0) {
        tl->poll_skip--;
        return 0;
    }
    n = tl->ops->progress(tl->iface);
    if (n > 0)
        tl->poll_hot = SLOW_POLL_HOT;
    else if (tl->poll_hot > 0)
        tl->poll_hot--;
    tl->poll_skip = rtm_config.net_poll_interval - 1;
    return n;
}

/* Hot path: no allocation, lock or log. */
int progress_once(void)
{
    int n = 0;

    for (int i = 0; i < rtm_rt.num_tls; i++) {
        rtm_tl_t *tl = &rtm_rt.tls[i];

        if (tl->caps.flags & RTM_TL_CAP_SLOW_POLL)
            n += progress_slow_tl(tl);
        else
            n += tl->ops->progress(tl->iface);
    }
    if (!rtm_list_is_empty(&rtm_rt.pending_peers))
        n += progress_pending();
    return n;
}

int progress_has_pending(void)
{
    return !rtm_list_is_empty(&rtm_rt.pending_peers);
}

/* Spin on progress while there is a chance the peer answers within the
 * spin; then yield the core at each empty poll, so oversubscribed ranks
 * (more ranks than cores) let the peer they wait for run. */
void progress_wait_flag(const volatile uint16_t *flags, uint16_t mask)
{
    long idle = 0;

    while (!(*flags & mask)) {
        if (progress_once() > 0)
            idle = 0;
        else if (++idle > rtm_config.poll_spin)
            sched_yield();
    }
}

int rtm_progress(void)
{
    if (rtm_rt.state != 1)
        return 0;
    return progress_once();
}
