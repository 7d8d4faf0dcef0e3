/*
 * The progress engine: poll the open transports that can have work (self
 * only while a self-send waits in it, a socket transport less often while it
 * is quiet), then send what waits for queue space (proto_flush_peer), and
 * the idle policy of blocking waits.
 * Driven only by calls into the library; no hidden thread.
 */
#include "config.h"

#include "runtime/progress.h"
#include "runtime/job.h"
#include "runtime/peer.h"
#include "runtime/proto.h"
#include "runtime/rt.h"
#include "common/log.h"
#include "runtime/rt_config.h"
#include "common/timer.h"

#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
    tl->polls++;
    n = tl->ops->progress(tl->iface);
    if (n > 0)
        tl->poll_hot = SLOW_POLL_HOT;
    else if (tl->poll_hot > 0)
        tl->poll_hot--;
    tl->poll_skip = rt_config.net_poll_interval - 1;
    return n;
}

/* Hot path: no allocation, lock or log. */
int progress_once(void)
{
    int n = 0;

    for (int i = 0; i < rtm_rt.num_tls; i++) {
        rtm_tl_t *tl = &rtm_rt.tls[i];

        if (__builtin_expect(tl->caps.flags & (RTM_TL_CAP_SLOW_POLL | RTM_TL_CAP_POLL_ON_WORK),
                             0)) {
            /* self: only while one of our own sends waits in it */
            if (tl->caps.flags & RTM_TL_CAP_POLL_ON_WORK) {
                if (!tl->iface->has_work)
                    continue;
                tl->polls++;
                n += tl->ops->progress(tl->iface);
            } else {
                n += progress_slow_tl(tl);
            }
        } else {
            tl->polls++;
            n += tl->ops->progress(tl->iface);
        }
    }
    if (!rtm_list_is_empty(&rtm_rt.pending_peers))
        n += progress_pending();
    rtm_rt.progress_events += (unsigned long)n;
    return n;
}

int progress_has_pending(void)
{
    return !rtm_list_is_empty(&rtm_rt.pending_peers);
}

/* Hostname lookups go through the PMIx server: beyond this many ranks the
 * job's "ranks on this host" is PMIx's local size alone. */
#define IDLE_HOSTNAME_SCAN_MAX 4096

/* Ranks of the job on this machine. PMIx's local size counts the ranks of
 * this node; test "hosts" made of network namespaces are nodes of their own
 * on one machine with one hostname, so ranks on other nodes with our
 * hostname share our CPUs as well. */
static int idle_ranks_here(void)
{
    int n = 0;

    if (rtm_rt.num_nodes <= 1 || rtm_rt.world_size > IDLE_HOSTNAME_SCAN_MAX)
        return rtm_rt.local_size > 0 ? rtm_rt.local_size : 1;
    for (int r = 0; r < rtm_rt.world_size; r++) {
        if (strcmp(job_peer_hostname(r), rtm_rt.hostname) == 0)
            n++;
    }
    return n > rtm_rt.local_size ? n : rtm_rt.local_size;
}

/* CPUs the job's ranks here may run on. A launcher that binds each rank to
 * a core of its own leaves this rank's mask narrower than the job's, so the
 * parent's mask (rtrun, rtd, slurmstepd, orted: not bound themselves) counts
 * too; a cpuset/cgroup limit shows in both. */
static int idle_cpus_here(void)
{
    cpu_set_t set;
    int own = 0, parent = 0;

    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        own = CPU_COUNT(&set);
    if (sched_getaffinity(getppid(), sizeof(set), &set) == 0)
        parent = CPU_COUNT(&set);
    if (own <= 0 && parent <= 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);

        return online > 0 ? (int)online : 1;
    }
    return own > parent ? own : parent;
}

/* Spin mode: a wait looks at the clock every this many empty polls. */
#define IDLE_SPIN_CHECK_MASK 1023ul

/* Once per process, on the first idle poll. */
int progress_idle_resolve(void)
{
    static const char *const names[] = {"auto", "spin", "yield"};
    int ranks = 0, cpus = 0;

    switch (rt_config.idle_wait) {
    case 1:
        rtm_rt.idle_yield = IDLE_SPIN;
        break;
    case 2:
        rtm_rt.idle_yield = IDLE_YIELD;
        break;
    default:
        ranks = idle_ranks_here();
        cpus = idle_cpus_here();
        rtm_rt.idle_yield = ranks > cpus ? IDLE_YIELD : IDLE_SPIN;
        break;
    }
    if (rtm_rt.idle_yield == IDLE_YIELD) {
        rtm_rt.idle_spin = (unsigned long)rt_config.poll_spin;
        rtm_rt.idle_check_mask = 0;
    } else {
        rtm_rt.idle_spin = 0;
        rtm_rt.idle_check_mask = IDLE_SPIN_CHECK_MASK;
    }
    if (rt_config.idle_wait == 0)
        rtm_debug("idle waits %s: %d ranks of the job on this host, %d CPUs "
                  "(RTM_IDLE_WAIT=%s)", rtm_rt.idle_yield == IDLE_YIELD ? "yield" : "spin",
                  ranks, cpus, names[rt_config.idle_wait]);
    else
        rtm_debug("idle waits %s (RTM_IDLE_WAIT=%s)",
                  rtm_rt.idle_yield == IDLE_YIELD ? "yield" : "spin", names[rt_config.idle_wait]);
    return rtm_rt.idle_yield;
}

/* Back-off of a long wait, by its age (time since the last pass that found
 * work): a spinning rank starts yielding after IDLE_YIELD_AFTER (the wait
 * is not the peer's next message but a peer that computes, or is off its
 * core: other work may have ours); any rank sleeps after IDLE_SLEEP_AFTER,
 * for a 1/IDLE_SLEEP_SHARE of the age so far, at most IDLE_SLEEP_MAX_NS,
 * so the wake-up adds at most ~1/256 to a wait that long. Short waits never
 * reach them: a rank that owns its core keeps its latency, and under load a
 * yield hands the core to other work for a whole time slice (Reduce 8 B was
 * 60x slower than Open MPI's when every wait yielded). */
#define IDLE_YIELD_AFTER   0.05
#define IDLE_SLEEP_AFTER   0.5
#define IDLE_SLEEP_SHARE   256.0
#define IDLE_SLEEP_MAX_NS  1000000L

/* Not the hot path (a yield or a clock read follows anyway); no allocation,
 * lock or log. Yields at every call in yield mode unless the passes since
 * the last call found work (then it polls again first). */
/* a count no pass has reached: the next call starts a wait */
static unsigned long events_seen = ~0ul;
static double wait_start;

void progress_idle_restart(void)
{
    events_seen = ~0ul;
}

void progress_idle_slow(void)
{
    double now = rtm_time_now(), age;

    state_check();   /* a launcher asked for the job's state (runtime/state.h) */
    if (rtm_rt.progress_events != events_seen) {
        events_seen = rtm_rt.progress_events;
        wait_start = now;
        return;
    }
    age = now - wait_start;
    if (age >= IDLE_SLEEP_AFTER) {
        double ns = age / IDLE_SLEEP_SHARE * 1e9;
        struct timespec ts = {0, ns < (double)IDLE_SLEEP_MAX_NS ? (long)ns : IDLE_SLEEP_MAX_NS};

        rtm_rt.idle_sleeps++;
        nanosleep(&ts, NULL);
    } else if (rtm_rt.idle_yield == IDLE_YIELD || age >= IDLE_YIELD_AFTER) {
        rtm_rt.idle_yields++;
        sched_yield();
    }
}

/* Wait for a flag, driving progress; the idle policy between empty polls. */
void progress_wait_flag(const volatile uint16_t *flags, uint16_t mask)
{
    unsigned long idle = 0;

    while (!(*flags & mask)) {
        if (progress_once() > 0) {
            idle = 0;
            state_check();   /* a wait that keeps finding work still answers (state.h) */
        } else {
            progress_idle(++idle);
        }
    }
}

int rtm_progress(void)
{
    if (rtm_rt.state != RT_READY)
        return 0;
    return progress_once();
}
