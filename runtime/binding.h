/*
 * What the MPI binding (mpi/) needs of the runtime beyond the public API
 * (rtmsg.h). This is the only runtime header mpi/ can include: its include
 * path (mpi/local.mk) holds include/, mpi/ and this header, not runtime/ or
 * transport/. Internal to librtmsg: no name here is exported (the library
 * exports only rtm_*, MPI_*, PMPI_*, MPIX_*).
 */
#ifndef RTM_RUNTIME_BINDING_H
#define RTM_RUNTIME_BINDING_H

/* The runtime's idle policy, for a wait loop the binding drives itself.
 *
 * The binding's blocking waits (MPI_Wait* over its own collective schedules
 * and orphaned requests, a blocking collective) cannot call rtm_wait: they
 * poll rtm_progress and their own work in a loop. After each poll they
 * call binding_idle with the number of polls the wait has made so far (1,
 * 2, ...), and it does what the native waits do: nothing while the wait is
 * within its spin (RTM_POLL_SPIN polls), then yield the core at each call
 * if the rank shares its core (RTM_IDLE_WAIT; by default, more ranks of the
 * job on this host than CPUs), so the peer waited for can run.
 *
 * Cheap: one compare while spinning. Allocates and locks nothing; logs
 * once, at debug level, when the first wait past its spin resolves the
 * policy. */
void binding_idle(unsigned long polls);

/* The blocking call the binding is in, for a job-state report (rtrun's
 * summary on --timeout, SIGUSR1 or --report-state). The binding records
 * its call with a few stores at the entry of its blocking calls only (no
 * cost on the nonblocking paths) and, when asked, describes it here; the
 * runtime calls the describer only while answering a report, from inside a
 * wait, on the rank's own thread. */
typedef struct binding_call {
    const char *name;      /* "MPI_Probe"; NULL: not in a blocking call */
    int         peer;      /* comm rank the call names; -1 any source, BINDING_NONE: none */
    int         tag;       /* -1: any tag, BINDING_NONE: none */
    int         native_comm;  /* rtm_comm_t of the call's communicator, -1: none */
    int         peer_world;   /* world rank of peer (-1 none, -2 any) */
    const char *comm_name; /* "WORLD", or the communicator's name */
    /* A collective: the step of its schedule it waits in, or "" */
    char        step[128];
    int         step_peer_world;  /* world rank that step waits for, -1 none */
} binding_call_t;

#define BINDING_NONE (-32768)

/* Once, after the runtime is initialized. describe fills *call_p and
 * returns 1 when the rank is in a blocking call of the binding. */
void binding_state_register(int (*describe)(binding_call_t *call_p));

#endif
