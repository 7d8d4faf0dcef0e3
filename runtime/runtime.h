/*
 * What runtime/tl.c (the opened transports) uses from the runtime core, in
 * one include for it alone; no core file includes this. A module includes
 * the private headers of the modules it uses (see docs/architecture.md and
 * tests/unit/runtime_layers.sh, which keeps their graph free of cycles).
 */
#ifndef RTM_RUNTIME_RUNTIME_H
#define RTM_RUNTIME_RUNTIME_H

#include "runtime/am.h"
#include "runtime/job.h"
#include "runtime/progress.h"
#include "runtime/rt.h"
#include "runtime/tl.h"

#endif
