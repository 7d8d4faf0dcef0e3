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
    int                wait_status;  /* from waitpid, once EXITED */
} rtrun_rank_t;

/* One host of the job, index = node_id. */
typedef struct rtrun_host {
    char name[256];    /* as given (--host, hostfile, allocation) */
    int  slots;        /* ranks it may hold without oversubscribing */
    int  is_local;     /* the host rtrun itself runs on (no rtd there) */
    int  nranks;       /* ranks mapped onto it */
} rtrun_host_t;

typedef struct rtrun_job {
    char          nspace[256];    /* PMIx namespace, [A-Za-z0-9._-] only */
    char          hostname[256];
    int           nprocs;
    int           slots;          /* ranks this host may hold without oversubscribing */
    int           ncores;
    int           oversubscribed; /* more ranks than slots (allowed by --oversubscribe) */
    int           bound;          /* ranks are bound to cores */
    rtrun_rank_t *ranks;          /* nprocs entries, index = rank */
    int           nhosts;         /* 1 when every rank runs on this host */
    rtrun_host_t *hosts;          /* nhosts entries, index = node_id */
} rtrun_job_t;

/* Map opts->nprocs ranks onto this host, which is `hostname` and has
 * `ncores` cores. Refuses (RTM_ERR_INVALID_ARG, rtm_last_error() says why
 * and how to proceed) a host that is not this one and more ranks than slots
 * without --oversubscribe. */
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

#endif
