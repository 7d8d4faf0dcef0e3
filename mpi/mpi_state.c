/*
 * The binding's side of a job-state report (mpi_state.h): turns the
 * recorded call into runtime/binding.h's binding_call_t when the runtime
 * asks (only while a rank answers a report).
 */
#include "config.h"

#include "mpi_impl.h"
#include "mpi_state.h"
#include "binding.h"

#include <string.h>

rtmpi_call_t rtmpi_call_now;

static const char *comm_name_of(MPI_Comm comm, const rtmpi_comm_t *c)
{
    if (comm == MPI_COMM_WORLD)
        return "WORLD";
    if (comm == MPI_COMM_SELF)
        return "SELF";
    return c != NULL && c->name[0] ? c->name : "a communicator";
}

static int world_of(const rtmpi_comm_t *c, int rank)
{
    if (rank == MPI_ANY_SOURCE)
        return -2;
    if (c == NULL || rank < 0 || rank >= c->size || c->world_ranks == NULL)
        return -1;
    return c->world_ranks[rank];
}

static int describe(binding_call_t *call)
{
    const rtmpi_call_t *r = &rtmpi_call_now;
    rtmpi_comm_t *c;
    int peer, tag, step_peer_world = -1;

    if (r->fn == NULL || rtmpi_state.finalized)
        return 0;
    /* "PMPI_Send" -> "MPI_Send" */
    call->name = r->fn[0] == 'P' && strncmp(r->fn, "PMPI_", 5) == 0 ? r->fn + 1 : r->fn;
    peer = (int)(int32_t)(uint32_t)(r->args & 0xffffffffu);
    tag = (int)(int32_t)(uint32_t)(r->args >> 32);
    c = r->comm != MPI_COMM_NULL ? rtmpi_comm_get(r->comm) : NULL;
    call->comm_name = r->comm != MPI_COMM_NULL ? comm_name_of(r->comm, c) : "";
    call->native_comm = c != NULL ? (int)c->pt2pt : -1;
    call->peer = peer == RTMPI_CALL_NONE ? BINDING_NONE : peer;
    call->tag = tag == RTMPI_CALL_NONE ? BINDING_NONE : tag;
    call->peer_world = peer == RTMPI_CALL_NONE ? -1 : world_of(c, peer);
    if (rtmpi_sched_describe_running(call->step, sizeof(call->step), &step_peer_world))
        call->step_peer_world = step_peer_world;
    return 1;
}

void rtmpi_state_init(void)
{
    binding_state_register(describe);
}
