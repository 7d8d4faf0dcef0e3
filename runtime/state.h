/*
 * The job-state report (runtime/state.c): on a launcher's ask (a PMIx
 * event, common/state_ask.h) this rank writes what it is waiting for --
 * the blocking call it is in, its incomplete requests with their protocol
 * state, posted receives and unexpected messages per communicator,
 * per-peer flow control and transport state -- for rtrun's summary.
 *
 * Nothing is recorded for it on the fast path: the report is read from the
 * structures the protocols keep anyway. PMIx's thread only sets
 * state_asked; the rank notices it where a blocking wait idles past its
 * spin (progress_idle), and answers there, on its own thread.
 */
#ifndef RTM_RUNTIME_STATE_H
#define RTM_RUNTIME_STATE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Set (non-zero) by PMIx's thread when an ask came and is not answered. */
extern atomic_int state_asked;

/* The blocking call of the binding the rank is in, as the binding
 * describes it (runtime/binding.c fills it from mpi/). */
typedef struct state_call {
    char what[160];        /* "MPI_Probe(0, tag 99, WORLD)" */
    char name[48];         /* "MPI_Probe" */
    char comm[48];         /* "WORLD" */
    int  waits_for;        /* world rank the call names; -1: none; -2: any source */
    char step[160];        /* collective: its schedule's step ("round 1 of 2: ..."), or "" */
    int  step_waits_for;   /* world rank that step waits for, -1: none */
} state_call_t;

/* The binding's describer (binding_state_register): fills *call_p and
 * returns 1 when the rank is in a blocking call of the binding, else 0. */
void state_binding_set(int (*describe)(state_call_t *call_p));

/* At init (after the job is joined) and finalize: listen for asks. */
void state_init(void);
void state_fini(void);

/* Slow path: answer an ask (writes the answer file). */
void state_answer(void);

/* Where a wait idles: one relaxed load, a branch not taken. */
static inline void state_check(void)
{
    if (__builtin_expect(atomic_load_explicit(&state_asked, memory_order_relaxed) != 0, 0))
        state_answer();
}

#endif
