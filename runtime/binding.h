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

#endif
