/*
 * The runtime's side of runtime/binding.h: what the MPI binding uses of the
 * runtime beyond the public API.
 */
#include "config.h"

#include "runtime/binding.h"
#include "runtime/progress.h"
#include "runtime/state.h"

#include <stdio.h>
#include <string.h>

void binding_idle(unsigned long polls)
{
    progress_idle(polls);
}

static int (*binding_describe)(binding_call_t *call_p);

/* The binding's call in the runtime's words: "MPI_Probe(0, tag 99, WORLD)". */
static int binding_state_describe(state_call_t *out)
{
    binding_call_t c;
    char peer[24], tag[24];

    memset(&c, 0, sizeof(c));
    c.peer = c.tag = BINDING_NONE;
    c.peer_world = c.step_peer_world = -1;
    c.native_comm = -1;
    if (binding_describe == NULL || !binding_describe(&c) || c.name == NULL)
        return 0;
    snprintf(out->name, sizeof(out->name), "%s", c.name);
    snprintf(out->comm, sizeof(out->comm), "%s", c.comm_name ? c.comm_name : "");
    if (c.peer == -1)
        snprintf(peer, sizeof(peer), "ANY_SOURCE");
    else
        snprintf(peer, sizeof(peer), "%d", c.peer);
    if (c.tag == -1)
        snprintf(tag, sizeof(tag), "ANY_TAG");
    else
        snprintf(tag, sizeof(tag), "%d", c.tag);
    if (c.peer == BINDING_NONE && c.tag == BINDING_NONE)
        snprintf(out->what, sizeof(out->what), "%s(%s)", c.name, out->comm);
    else if (c.tag == BINDING_NONE)
        snprintf(out->what, sizeof(out->what), "%s(%s, %s)", c.name, peer, out->comm);
    else
        snprintf(out->what, sizeof(out->what), "%s(%s, tag %s, %s)", c.name, peer, tag,
                 out->comm);
    out->waits_for = c.peer_world;
    snprintf(out->step, sizeof(out->step), "%s", c.step);
    out->step_waits_for = c.step_peer_world;
    return 1;
}

void binding_state_register(int (*describe)(binding_call_t *call_p))
{
    binding_describe = describe;
    state_binding_set(describe != NULL ? binding_state_describe : NULL);
}
