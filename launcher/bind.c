#include "config.h"

#include "launcher/bind.h"
#include "common/error.h"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <stdio.h>
#include <stdlib.h>

struct rtrun_topo {
    hwloc_topology_t topology;
    hwloc_obj_type_t core_type; /* CORE, or PU where hwloc reports no cores */
    int              ncores;
};

rtm_status_t rtrun_topo_load(rtrun_topo_t **topo_p)
{
    rtrun_topo_t *topo;
    int n;

    if (topo_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_topo_load: NULL argument");
    topo = calloc(1, sizeof(*topo));
    if (topo == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for the topology");
    if (hwloc_topology_init(&topo->topology) != 0)
        goto err_free_topo;
    /* Cores are all rtrun needs; I/O discovery reads every PCI device and
     * the PCI name database, which costs seconds under AddressSanitizer.
     * (The verbs transport finds its HCA from the rank's side.) */
    hwloc_topology_set_io_types_filter(topo->topology, HWLOC_TYPE_FILTER_KEEP_NONE);
    if (hwloc_topology_load(topo->topology) != 0)
        goto err_destroy_topology;
    topo->core_type = HWLOC_OBJ_CORE;
    n = hwloc_get_nbobjs_by_type(topo->topology, HWLOC_OBJ_CORE);
    if (n <= 0) {
        topo->core_type = HWLOC_OBJ_PU;
        n = hwloc_get_nbobjs_by_type(topo->topology, HWLOC_OBJ_PU);
    }
    topo->ncores = n > 0 ? n : 1;
    *topo_p = topo;
    return RTM_OK;

err_destroy_topology:
    hwloc_topology_destroy(topo->topology);
err_free_topo:
    free(topo);
    return rtm_error_set(RTM_ERR_INTERNAL, "hwloc could not read this host's topology");
}

void rtrun_topo_free(rtrun_topo_t *topo)
{
    if (topo == NULL)
        return;
    hwloc_topology_destroy(topo->topology);
    free(topo);
}

int rtrun_topo_ncores(const rtrun_topo_t *topo)
{
    return topo->ncores;
}

rtm_status_t rtrun_topo_core_cpuset(const rtrun_topo_t *topo, int core, cpu_set_t *set_p,
                                    char *desc, size_t desc_len)
{
    hwloc_obj_t obj;
    char pus[256];
    cpu_set_t set;

    if (topo == NULL || set_p == NULL || core < 0 || core >= topo->ncores)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "core %d out of range (0..%d)", core,
                             topo ? topo->ncores - 1 : -1);
    obj = hwloc_get_obj_by_type(topo->topology, topo->core_type, (unsigned)core);
    if (obj == NULL || obj->cpuset == NULL)
        return rtm_error_set(RTM_ERR_INTERNAL, "hwloc has no cpu set for core %d", core);
    CPU_ZERO(&set);
    if (hwloc_cpuset_to_glibc_sched_affinity(topo->topology, obj->cpuset, &set,
                                             sizeof(set)) != 0)
        return rtm_error_set(RTM_ERR_INTERNAL, "cannot convert the cpu set of core %d", core);
    if (desc != NULL && desc_len > 0) {
        hwloc_bitmap_list_snprintf(pus, sizeof(pus), obj->cpuset);
        snprintf(desc, desc_len, "core %d (PU %s)", core, pus);
    }
    *set_p = set;
    return RTM_OK;
}

void *rtrun_topo_hwloc(const rtrun_topo_t *topo)
{
    return topo ? (void *)topo->topology : NULL;
}

rtrun_bind_t rtrun_bind_resolve(rtrun_bind_t bind, rtrun_map_by_t map_by, int nranks,
                                int ncores)
{
    if (bind != RTRUN_BIND_DEFAULT)
        return bind;
    if (nranks > ncores)
        return RTRUN_BIND_NONE;
    return map_by == RTRUN_MAP_NUMA ? RTRUN_BIND_NUMA : RTRUN_BIND_CORE;
}

int rtrun_topo_nnuma(const rtrun_topo_t *topo)
{
    int n;

    if (topo == NULL)
        return 1;
    n = hwloc_get_nbobjs_by_type(topo->topology, HWLOC_OBJ_NUMANODE);
    return n > 0 ? n : 1;
}

/* cpuset -> glibc set and "<what> (PU <list>)" */
static rtm_status_t export_cpuset(const rtrun_topo_t *topo, hwloc_const_cpuset_t cpuset,
                                  const char *what, cpu_set_t *set_p, char *desc,
                                  size_t desc_len)
{
    char pus[256];
    cpu_set_t set;

    CPU_ZERO(&set);
    if (hwloc_cpuset_to_glibc_sched_affinity(topo->topology, cpuset, &set, sizeof(set)) != 0)
        return rtm_error_set(RTM_ERR_INTERNAL, "cannot convert the cpu set of %s", what);
    if (desc != NULL && desc_len > 0) {
        hwloc_bitmap_list_snprintf(pus, sizeof(pus), cpuset);
        snprintf(desc, desc_len, "%s (PU %s)", what, pus);
    }
    *set_p = set;
    return RTM_OK;
}

rtm_status_t rtrun_topo_rank_cpuset(const rtrun_topo_t *topo, rtrun_bind_t policy,
                                    rtrun_map_by_t map_by, int local_rank, cpu_set_t *set_p,
                                    char *desc, size_t desc_len)
{
    int nnuma;
    hwloc_obj_t numa = NULL, obj;
    char what[64];

    if (topo == NULL || set_p == NULL || local_rank < 0)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "rtrun_topo_rank_cpuset: bad argument (local rank %d)", local_rank);
    nnuma = hwloc_get_nbobjs_by_type(topo->topology, HWLOC_OBJ_NUMANODE);
    if (nnuma > 0)
        numa = hwloc_get_obj_by_type(topo->topology, HWLOC_OBJ_NUMANODE,
                                     (unsigned)(local_rank % nnuma));

    switch (policy) {
    case RTRUN_BIND_DEFAULT:
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "rtrun_topo_rank_cpuset: resolve the policy first (rtrun_bind_resolve)");
    case RTRUN_BIND_NONE:
        if (desc != NULL && desc_len > 0)
            snprintf(desc, desc_len, "not bound (may run on any of the %d cores)", topo->ncores);
        return export_cpuset(topo, hwloc_topology_get_topology_cpuset(topo->topology),
                             "the host", set_p, NULL, 0);
    case RTRUN_BIND_NUMA:
        if (numa == NULL || numa->cpuset == NULL) /* no NUMA information: the whole host */
            return export_cpuset(topo, hwloc_topology_get_topology_cpuset(topo->topology),
                                 "NUMA 0", set_p, desc, desc_len);
        snprintf(what, sizeof(what), "NUMA %u", numa->logical_index);
        return export_cpuset(topo, numa->cpuset, what, set_p, desc, desc_len);
    case RTRUN_BIND_CORE:
        if (map_by == RTRUN_MAP_NUMA && numa != NULL && numa->cpuset != NULL && nnuma > 1) {
            int in_domain = hwloc_get_nbobjs_inside_cpuset_by_type(topo->topology, numa->cpuset,
                                                                   topo->core_type);

            if (in_domain > 0) {
                obj = hwloc_get_obj_inside_cpuset_by_type(topo->topology, numa->cpuset,
                                                          topo->core_type,
                                                          (unsigned)((local_rank / nnuma) %
                                                                     in_domain));
                if (obj != NULL && obj->cpuset != NULL) {
                    snprintf(what, sizeof(what), "core %u", obj->logical_index);
                    return export_cpuset(topo, obj->cpuset, what, set_p, desc, desc_len);
                }
            }
        }
        return rtrun_topo_core_cpuset(topo, local_rank % topo->ncores, set_p, desc, desc_len);
    }
    return rtm_error_set(RTM_ERR_INVALID_ARG, "unknown binding policy %d", (int)policy);
}
