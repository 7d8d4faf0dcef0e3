/*
 * Binding ranks to cores with hwloc. The cpu set of each rank is computed in
 * rtrun before fork; the child only applies it (sched_setaffinity), so
 * nothing between fork and exec allocates or takes a lock.
 */
#ifndef RTM_LAUNCHER_BIND_H
#define RTM_LAUNCHER_BIND_H

#include "rtmsg.h"

#include <sched.h>
#include <stddef.h>

typedef struct rtrun_topo rtrun_topo_t;

rtm_status_t rtrun_topo_load(rtrun_topo_t **topo_p);
void rtrun_topo_free(rtrun_topo_t *topo);
/* Cores of this host (at least 1: PUs are counted when hwloc sees no core). */
int rtrun_topo_ncores(const rtrun_topo_t *topo);

/* The hwloc_topology_t, to hand to the PMIx server (it then loads none of
 * its own). */
void *rtrun_topo_hwloc(const rtrun_topo_t *topo);

/* The cpu set of logical core `core` and a description of it for
 * --report-bindings ("core 1 (PUs 1,3)"). */
rtm_status_t rtrun_topo_core_cpuset(const rtrun_topo_t *topo, int core, cpu_set_t *set_p,
                                    char *desc, size_t desc_len);

#endif
