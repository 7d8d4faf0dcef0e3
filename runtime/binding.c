/*
 * The runtime's side of runtime/binding.h: what the MPI binding uses of the
 * runtime beyond the public API.
 */
#include "config.h"

#include "runtime/binding.h"
#include "runtime/progress.h"

void binding_idle(unsigned long polls)
{
    progress_idle(polls);
}
