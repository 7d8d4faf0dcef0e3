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

/* Called by a blocking wait after `idle` consecutive empty polls: yields the
 * core once the wait has spun RTM_POLL_SPIN polls, if the policy says so
 * (an oversubscribed host); otherwise keeps spinning, as a rank that owns
 * its core should. Cheap: one compare until the spin is over. */
static inline void progress_idle(unsigned long idle)
{
    if (idle <= (unsigned long)rt_config.poll_spin)
        return;
    state_check();   /* a launcher asked for the job's state (runtime/state.h) */
    if (__builtin_expect(rtm_rt.idle_yield == IDLE_UNRESOLVED, 0))
        progress_idle_resolve();
    if (rtm_rt.idle_yield == IDLE_YIELD)
        sched_yield();
}

#endif
