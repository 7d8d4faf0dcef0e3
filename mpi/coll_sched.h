/*
 * Collective schedules: a collective is built as a list of rounds; each
 * round runs its local steps (copy, reduce) in order, then posts its sends
 * and receives, and ends when they have all completed. A blocking
 * collective runs its schedule to the end at once; a nonblocking one is
 * advanced by the binding's progress (every MPI_Test/Wait and blocking
 * call), so it overlaps with the application. Progress is driven by
 * completions: the runtime tells the schedule when the last message of its
 * round completed (binding_req_watch), and only such schedules are
 * advanced, so many collectives in flight cost nothing while they wait.
 *
 * All messages of one collective instance carry one tag (the
 * communicator's collective sequence number) on the hidden collective
 * communicator. Between two ranks they match in posting order, so every
 * algorithm must post, between any pair, its sends on one side in the
 * order the other side posts the matching receives.
 */
#ifndef RTMPI_COLL_SCHED_H
#define RTMPI_COLL_SCHED_H

#include "mpi_impl.h"

typedef struct rtmpi_sched rtmpi_sched_t;

rtmpi_sched_t *rtmpi_sched_new(MPI_Comm comm);
/* Ends the current round: later steps wait for its messages. */
void rtmpi_sched_round(rtmpi_sched_t *s);
int rtmpi_sched_send(rtmpi_sched_t *s, const void *buf, MPI_Count count, MPI_Datatype dt, int peer);
int rtmpi_sched_recv(rtmpi_sched_t *s, void *buf, MPI_Count count, MPI_Datatype dt, int peer);
/* inout = in op inout (MPI's order for user functions). */
int rtmpi_sched_reduce(rtmpi_sched_t *s, const void *in, void *inout, MPI_Count count,
                       MPI_Datatype dt, MPI_Op op);
/* Copies scount elements of stype to rbuf as rtype (pack + unpack). */
int rtmpi_sched_copy(rtmpi_sched_t *s, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                     void *rbuf, MPI_Count rcount, MPI_Datatype rtype);
/* A local step that calls fn(s, arg) when its round runs: fn may add steps
 * (they run in rounds after all the others), so a schedule can decide its
 * next rounds on what earlier ones received (MPI_Comm_idup's agreement).
 * A nonzero return is the schedule's error class and ends it. */
typedef int rtmpi_sched_fn(rtmpi_sched_t *s, void *arg);
int rtmpi_sched_call(rtmpi_sched_t *s, rtmpi_sched_fn *fn, void *arg);
/* Scratch memory owned by the schedule: `bytes` bytes, or room for `count`
 * elements of dt laid out as in a user buffer (the pointer accounts for
 * the type's lower bound). NULL when out of memory. */
void *rtmpi_sched_tmp(rtmpi_sched_t *s, size_t bytes);
void *rtmpi_sched_tmp_dt(rtmpi_sched_t *s, MPI_Count count, MPI_Datatype dt);
/* The schedule could not be built (out of memory); its error class. */
int rtmpi_sched_failed(const rtmpi_sched_t *s);

/* Runs s to completion and frees it; returns its error class. */
int rtmpi_sched_run(rtmpi_sched_t *s);
/* Starts s as the request of a nonblocking collective. */
int rtmpi_sched_start(rtmpi_sched_t *s, MPI_Request *request);

#endif
