/*
 * The progress engine (runtime/progress.c): poll every open transport,
 * then send what waits in peers' queues; and how a blocking wait idles.
 * Driven only by calls into the library; no hidden thread.
 */
#ifndef RTM_RUNTIME_PROGRESS_H
#define RTM_RUNTIME_PROGRESS_H

#include "runtime/rt_config.h"
#include "runtime/rt.h"
#include "runtime/state.h"

#include <sched.h>
#include <stdint.h>

/* One pass; returns the events found (messages, completions, sends). */
int          progress_once(void);
/* Wait until (*flags & mask) != 0, driving progress (spin, then yield). */
void         progress_wait_flag(const volatile uint16_t *flags, uint16_t mask);
int          progress_pending(void);
int          progress_has_pending(void);
/* The idle policy (RTM_IDLE_WAIT), resolved on first use: IDLE_SPIN or IDLE_YIELD. */
int          progress_idle_resolve(void);

/* The slow path of an idle poll (progress.c): yield, or back off. */
void         progress_idle_slow(void);
/* A new wait starts (or the last poll found work the passes do not count,
 * e.g. a flag in memory the binding shares): the back-off's clock restarts
 * at the next idle poll. */
void         progress_idle_restart(void);

/* Called by a blocking wait after `idle` consecutive empty polls (a wait's
 * polls, counted from 1). The policy (RTM_IDLE_WAIT, resolved on the first
 * call): a rank that shares its core with other ranks of the job yields it
 * at every empty poll past RTM_POLL_SPIN (0: at once), as the peer it waits
 * for may need that core; a rank with a core of its own spins, and only a
 * long wait backs off (progress_idle_slow). Cheap: two compares until then. */
static inline void progress_idle(unsigned long idle)
{
    if (__builtin_expect(rtm_rt.idle_yield == IDLE_UNRESOLVED, 0))
        progress_idle_resolve();
    if (idle > rtm_rt.idle_spin && (idle & rtm_rt.idle_check_mask) == 0)
        progress_idle_slow();
}

#endif
