/*
 * The job map: which ranks run where, their local/node ranks, the core each
 * one is bound to, and their life cycle. Building the map is pure logic (no
 * hwloc, no fork), so unit tests call rtrun_job_map() with any core count.
 */
#ifndef RTM_LAUNCHER_JOB_H
#define RTM_LAUNCHER_JOB_H

#include "launcher/cli.h"
#include "rtmsg.h"

#include <sys/types.h>

typedef enum rtrun_rank_state {
    RTRUN_RANK_NOT_STARTED,
    RTRUN_RANK_RUNNING,
    RTRUN_RANK_EXITED,   /* reaped; wait_status holds how */
} rtrun_rank_state_t;

typedef struct rtrun_rank {
    int                rank;
    int                local_rank;   /* among this job's ranks on its host */
    int                node_rank;    /* among all jobs' ranks on its host (one job: = local) */
    int                node_id;      /* index of its host in the job's host list */
    int                core;         /* logical core index it is bound to; -1: unbound */
    rtrun_rank_state_t state;
    pid_t              pid;
    int                connected;    /* called PMIx_Init */
    int                finalized;    /* called PMIx_Finalize */
    int                lost_order;   /* rtrun: 1, 2, ...: in which order the PMIx servers
                                      * were seen losing the ranks' connections before
                                      * they finalized (RTRUN_PMIX_EV_LOST); 0: not lost */
    int                wait_status;  /* from waitpid, once EXITED */
} rtrun_rank_t;

/* One host of the job, index = node_id. Only hosts that hold at least one
 * rank are in the job (nranks >= 1): a host given without ranks is left
 * out, so no rtd is ever started for nothing. */
typedef struct rtrun_host {
    char name[256];    /* as given (--host, hostfile, allocation); this host: its hostname */
    int  slots;        /* ranks it may hold without oversubscribing */
    int  is_local;     /* the host rtrun itself runs on (no rtd there) */
    int  nranks;       /* ranks mapped onto it */
} rtrun_host_t;

typedef struct rtrun_job {
    char          nspace[256];    /* PMIx namespace, [A-Za-z0-9._-] only */
    char          hostname[256];
    int           nprocs;
    int           slots;          /* ranks all hosts may hold without oversubscribing */
    int           ncores;         /* of this host */
    int           oversubscribed; /* more ranks than slots (allowed by --oversubscribe) */
    int           bound;          /* ranks on this host are bound (to cores or NUMA domains) */
    rtrun_rank_t *ranks;          /* nprocs entries, index = rank */
    int           nhosts;         /* 1 when every rank runs on this host */
    rtrun_host_t *hosts;          /* nhosts entries, index = node_id */
    int           local_host;     /* node_id of this host; -1: no rank runs here */
    rtrun_bind_t  bind;           /* binding on this host, resolved (never DEFAULT);
                                   * a remote host resolves its own with
                                   * rtrun_bind_resolve(opts->bind, map_by, nranks, its cores) */
    rtrun_map_by_t map_by;        /* --map-by, for rtrun_topo_rank_cpuset */
} rtrun_job_t;

/* Map opts->nprocs ranks (0: one per slot, or --npernode per host) onto
 * opts->hosts (none: this host alone); rtrun runs on `hostname`, which has
 * `ncores` cores. A host without a slot count gets `ncores` slots. Entries
 * naming this host (localhost, its short or long name) are merged, as are
 * repeated names; hosts keep their order, those left without a rank are
 * dropped.
 *   --map-by slot/core/numa: fill each host up to its slots in order;
 *   --map-by node: deal ranks one per host in turn, skipping full hosts.
 *   --npernode K: at most K ranks per host (K more than a host's slots
 *   needs --oversubscribe); more than K x hosts ranks is refused.
 *   More ranks than slots needs --oversubscribe; the extra ranks are then
 *   shared evenly among the hosts (the first hosts get the remainder), as
 *   Open MPI does.
 * local_rank = node_rank counts per host in rank order; node_id indexes
 * job->hosts. Ranks on this host get core = local_rank mod ncores when bound
 * (as before); remote ranks get core -1, their rtd binds them
 * (rtrun_topo_rank_cpuset). Refusals are RTM_ERR_INVALID_ARG with a
 * message saying why and how to proceed. */
rtm_status_t rtrun_job_map(const rtrun_opts_t *opts, const char *hostname, int ncores,
                           rtrun_job_t **job_p);
void rtrun_job_free(rtrun_job_t *job);

/* "rtm.<host>.<pid>" with characters outside [A-Za-z0-9._-] replaced. */
void rtrun_job_make_nspace(const char *hostname, pid_t pid, char *buf, size_t len);
/* The nspace as it appears in shm names: same replacement rule. */
void rtrun_job_sanitize(const char *in, char *out, size_t len);
/* Whether `name` (from --host) designates this host. */
int rtrun_job_is_local_host(const char *name, const char *hostname);

/* Ranks still running, as "0, 2, 3" (at most len bytes). Returns the count. */
int rtrun_job_running_list(const rtrun_job_t *job, char *buf, size_t len);
rtrun_rank_t *rtrun_job_find_pid(rtrun_job_t *job, pid_t pid);
/* Whether every rank of this host (job->local_host; every rank when the
 * job has no host list) called PMIx_Finalize. 0 for a NULL job. */
int rtrun_job_local_finalized(const rtrun_job_t *job);

#endif
