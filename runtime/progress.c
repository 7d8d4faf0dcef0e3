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

/* Hot path: no allocation, lock or log. */
int progress_once(void)
{
    int n = 0;

    for (int i = 0; i < rtm_rt.num_tls; i++)
        n += rtm_rt.tls[i].ops->progress(rtm_rt.tls[i].iface);
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
