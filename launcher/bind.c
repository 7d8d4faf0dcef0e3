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
