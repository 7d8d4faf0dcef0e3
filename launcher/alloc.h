/*
 * Hosts and slots from a scheduler's allocation, as Open MPI and MPICH take
 * them: Slurm (SLURM_JOB_NODELIST with SLURM_TASKS_PER_NODE, else
 * SLURM_JOB_CPUS_PER_NODE) and PBS/Torque (PBS_NODEFILE). The parsers are
 * pure functions of the strings; only rtrun_alloc_from_env reads the
 * environment.
 *
 * Precedence (rtrun_cli_parse applies it): --host/--hostfile, then the
 * allocation, then this host alone. Inside an allocation, -n may be left
 * out: rtrun then starts one rank per slot of the allocation.
 */
#ifndef RTM_LAUNCHER_ALLOC_H
#define RTM_LAUNCHER_ALLOC_H

#include "launcher/cli.h"
#include "rtmsg.h"

#include <stddef.h>

/* Expand a Slurm hostlist ("node[01-03,07],gpu5,rack[1-2]-n[01-02]") into
 * names, in order, zero padding kept (the width of a range is that of its
 * first bound, as Slurm writes them). Several bracket groups in one name
 * expand as their product, the first group varying slowest. At most
 * RTRUN_MAX_PROCS names. Free with rtrun_alloc_names_free. */
rtm_status_t rtrun_alloc_expand_hostlist(const char *list, char ***names_p, size_t *count_p);
void rtrun_alloc_names_free(char **names, size_t count);

/* Parse SLURM_TASKS_PER_NODE / SLURM_JOB_CPUS_PER_NODE ("2(x3),1") into
 * exactly `nhosts` counts (each 1..RTRUN_MAX_PROCS): `var` names the
 * variable in messages. *counts_p is malloc'd. */
rtm_status_t rtrun_alloc_parse_per_node(const char *value, const char *var, size_t nhosts,
                                        int **counts_p);

/* A Slurm allocation: hostlist and per-node counts (NULL: slots not given)
 * into a host list (names unique: a name listed twice gets both counts). */
rtm_status_t rtrun_alloc_slurm(const char *nodelist, const char *per_node, const char *var,
                               rtrun_host_spec_t **hosts_p, size_t *nhosts_p);

/* The text of a PBS nodefile (one line per slot, a host repeated once per
 * slot) into a host list; `fname` is used in messages. */
rtm_status_t rtrun_alloc_pbs(const char *text, size_t len, const char *fname,
                             rtrun_host_spec_t **hosts_p, size_t *nhosts_p);

/* The allocation rtrun runs in, if any: Slurm first, then PBS. With none,
 * returns RTM_OK with *nhosts_p = 0, *hosts_p = NULL and *source_p =
 * RTRUN_HOSTS_NONE. A malformed allocation is an error naming the
 * variable. */
rtm_status_t rtrun_alloc_from_env(rtrun_host_spec_t **hosts_p, size_t *nhosts_p,
                                  rtrun_host_source_t *source_p);

/* The launch agent rtrun uses inside a Slurm allocation when neither
 * --launch-agent nor RTM_LAUNCH_AGENT names one: one srun step per rtd,
 * started by its parent in the launch tree (rtrun or an rtd), each step one
 * task on the named node. --overlap: the step shares the CPUs the batch
 * script (or the parent rtd's step) already holds; --mpi=none: rtd serves
 * PMIx itself; --cpu-bind=none: rtd binds its ranks itself. */
#define RTRUN_SRUN_AGENT \
    "srun --nodes=1 --ntasks=1 --nodelist={host} --overlap --mpi=none --cpu-bind=none --quiet"

/* Whether rtrun runs inside a Slurm allocation (SLURM_JOB_ID set: a batch
 * script, salloc, or a step). */
int rtrun_alloc_in_slurm(void);

/* The Slurm name of the node rtrun runs on (SLURMD_NODENAME, set by slurmd
 * in batch scripts and steps), NULL outside one. It can differ from the
 * hostname: NodeName is the cluster's choice. */
const char *rtrun_alloc_slurm_node(void);

#endif
