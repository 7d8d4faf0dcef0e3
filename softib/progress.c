/*
 * softib progress: the engine every verbs call runs (receive, retry timers,
 * queued packets), blocking waits for ibv_get_cq_event/ibv_get_async_event,
 * and the helper thread.
 *
 * The application drives progress whenever it calls post_send, poll_cq and
 * friends. The helper thread only serves a process that stopped calling
 * verbs (blocked in its own read(), or computing) so that its peers' RDMA
 * reads, atomics and sends still get answers. While the application is
 * active the helper sleeps in 1 ms naps and never takes the device lock:
 * on 2 cores, a busy-polling application would otherwise be stalled by a
 * helper preempted while holding the lock.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdint.h>
#include <unistd.h>

#include "softib.h"

/* under dev->lock; hot path: no allocation, no logging, one atomic load
 * and no system call when nothing arrived */
void sib_progress(struct sib_dev *dev)
{
    uint64_t db = atomic_load_explicit(&dev->shared->doorbell,
                                       memory_order_acquire);

    bool tick = (++dev->poll_tick & 1023) == 0;

    if (dev->n_ack) /* deferred in the previous pass and not carried */
        sib_ack_flush(dev);

    /* the tick catches packets from peers that could not ring */
    if (db != dev->doorbell_seen || dev->have_tcp || tick) {
        int got;

        dev->doorbell_seen = db;
        got = sib_wire_poll(dev, tick);
        if (dev->trace && got)
            fprintf(stderr, "softib[%u] drained %d%s\n", dev->slot, got,
                    tick ? " (tick)" : "");
    }
    if (dev->have_outq)
        sib_wire_flush(dev);
    if (dev->next_timer_ns && sib_now_ns() >= dev->next_timer_ns)
        sib_send_timers(dev);
}

static int sib_next_timeout_ms(struct sib_dev *dev, int max_ms)
{
    uint64_t now, t = dev->next_timer_ns;
    int ms = max_ms;

    if (dev->have_outq)
        return 1;
    if (t) {
        now = sib_now_ns();
        ms = t <= now ? 0 : (int)((t - now) / 1000000) + 1;
        if (ms > max_ms)
            ms = max_ms;
    }
    return ms;
}

/* Block until extra_fd or one of our sockets is readable, a timer is due or
 * timeout_ms passed; then run progress. Called without the lock. */
int sib_wait(struct sib_dev *dev, int extra_fd, int timeout_ms)
{
    struct pollfd pfd[64];
    int fds[63], n, k = 0, rc;

    pthread_mutex_lock(&dev->lock);
    n = sib_wire_fds(dev, fds, 63);
    timeout_ms = sib_next_timeout_ms(dev, timeout_ms);
    pthread_mutex_unlock(&dev->lock);
    if (extra_fd >= 0)
        pfd[k++] = (struct pollfd){.fd = extra_fd, .events = POLLIN};
    for (int i = 0; i < n; i++)
        pfd[k++] = (struct pollfd){.fd = fds[i], .events = POLLIN};
    rc = poll(pfd, (nfds_t)k, timeout_ms);
    pthread_mutex_lock(&dev->lock);
    if (!dev->forked_away) {
        sib_wire_poll(dev, true); /* also what arrived without a doorbell */
        sib_progress(dev);
    }
    pthread_mutex_unlock(&dev->lock);
    return rc;
}

static void *sib_helper_main(void *arg)
{
    struct sib_dev *dev = arg;

    while (!atomic_load(&dev->helper_stop)) {
        uint64_t a = atomic_load_explicit(&dev->activity, memory_order_relaxed);
        struct pollfd w = {.fd = dev->wake_fd, .events = POLLIN};

        poll(&w, 1, 1);
        if (atomic_load_explicit(&dev->activity, memory_order_relaxed) != a)
            continue; /* the application drives progress itself */
        /* idle application: serve peers until it comes back */
        while (!atomic_load(&dev->helper_stop) &&
               atomic_load_explicit(&dev->activity, memory_order_relaxed) == a)
            sib_wait(dev, dev->wake_fd, 20);
    }
    return NULL;
}

int sib_helper_start(struct sib_dev *dev)
{
    atomic_store(&dev->helper_stop, false);
    if (pthread_create(&dev->helper, NULL, sib_helper_main, dev))
        return -1;
    dev->helper_running = true;
    return 0;
}

void sib_helper_stop(struct sib_dev *dev)
{
    uint64_t one = 1;

    if (!dev->helper_running)
        return;
    atomic_store(&dev->helper_stop, true);
    if (write(dev->wake_fd, &one, sizeof(one)) < 0)
        (void)errno;
    pthread_join(dev->helper, NULL);
    dev->helper_running = false;
}
