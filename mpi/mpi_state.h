/*
 * What the binding tells a job-state report (runtime/binding.h): the
 * blocking MPI call the rank is in. Recorded with three stores at the
 * entry of blocking calls only (MPI_Send, MPI_Recv, MPI_Probe, MPI_Wait*,
 * the blocking collectives, MPI_Finalize): nonblocking calls record
 * nothing. The record is read only while the rank answers a report, which
 * it does from inside a wait, so it names the call that waits.
 */
#ifndef RTMPI_MPI_STATE_H
#define RTMPI_MPI_STATE_H

#include "mpi.h"

#include <stdint.h>

typedef struct rtmpi_call {
    const char *fn;      /* __func__ of the call ("PMPI_Probe") */
    uint64_t    args;    /* peer (low 32 bits) and tag (high 32 bits) */
    MPI_Comm    comm;
} rtmpi_call_t;

extern rtmpi_call_t rtmpi_call_now;

/* No peer or no tag in the call. */
#define RTMPI_CALL_NONE (-32768)

static inline void rtmpi_call_enter(const char *fn, int peer, int tag, MPI_Comm comm)
{
    rtmpi_call_now.fn = fn;
    rtmpi_call_now.args = (uint32_t)peer | (uint64_t)(uint32_t)tag << 32;
    rtmpi_call_now.comm = comm;
}

/* At MPI_Init, once the runtime is up: hand the describer to the runtime. */
void rtmpi_state_init(void);

/* coll_sched.c: the step the blocking collective in progress waits in
 * ("round 2 of 3: receive from rank 1"; on an intercommunicator "remote
 * rank 1" or "local rank 1"), and the world rank it waits for (-1: none).
 * 0 when no blocking collective runs. */
int rtmpi_sched_describe_running(char *buf, size_t len, int *peer_world_p);

#endif
