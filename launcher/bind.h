/*
 * Binding ranks to cores with hwloc. The cpu set of each rank is computed in
 * rtrun before fork; the child only applies it (sched_setaffinity), so
 * nothing between fork and exec allocates or takes a lock.
 */
#ifndef RTM_LAUNCHER_BIND_H
#define RTM_LAUNCHER_BIND_H

#include "launcher/cli.h"
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

/* The binding a host applies to its ranks: --bind-to as given, and for the
 * default core (numa under --map-by numa) when the host holds at most as
 * many ranks as it has cores, none otherwise (binding more ranks than cores
 * would stack some on one core while the scheduler could spread them).
 * Pure arithmetic: rtrun and rtd call it with their own host's numbers. */
rtrun_bind_t rtrun_bind_resolve(rtrun_bind_t bind, rtrun_map_by_t map_by, int nranks,
                                int ncores);

/* The cpu set of local rank `local_rank` of this host under `policy` (a
 * resolved one, see rtrun_bind_resolve) and --map-by, with a description
 * for --report-bindings:
 *   core: core L mod ncores ("core 1 (PU 1,3)"); under --map-by numa the
 *         cores are taken round robin over NUMA domains (rank L in domain
 *         L mod ndomains, on its (L / ndomains)-th core);
 *   numa: the whole NUMA domain L mod ndomains ("NUMA 0 (PU 0-7)");
 *   none: every PU of the host ("not bound").
 * rtd (remote hosts) and rtrun (this host) share it. */
rtm_status_t rtrun_topo_rank_cpuset(const rtrun_topo_t *topo, rtrun_bind_t policy,
                                    rtrun_map_by_t map_by, int local_rank, cpu_set_t *set_p,
                                    char *desc, size_t desc_len);
/* NUMA domains of this host (at least 1). */
int rtrun_topo_nnuma(const rtrun_topo_t *topo);

#endif
