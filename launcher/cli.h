/*
 * rtrun's command line: a parser that never prints or exits, so a test
 * program (and later rtd) can call it and check what it says.
 */
#ifndef RTM_LAUNCHER_CLI_H
#define RTM_LAUNCHER_CLI_H

#include "rtmsg.h"

#include <stddef.h>
#include <stdio.h>

/* rtrun's exit codes (documented in --help). */
#define RTRUN_EXIT_OK       0
#define RTRUN_EXIT_FAILURE  1   /* rtrun itself failed, or a rank broke the PMIx protocol */
#define RTRUN_EXIT_USAGE    2   /* bad command line, or a job that cannot be mapped as asked */
/* What a rank aborts with when one of its transports lost a peer for good
 * (runtime/am.c, proto_peer_failed): rtrun takes it for the consequence
 * of that peer's failure and names the peer when it failed too. */
#define RTRUN_EXIT_PEER_LOST 71
#define RTRUN_EXIT_TIMEOUT  124 /* --timeout expired (as timeout(1)) */
#define RTRUN_EXIT_NOEXEC   126 /* the program exists but cannot be executed */
#define RTRUN_EXIT_NOTFOUND 127 /* the program was not found */

/* Largest job: local ranks travel as PMIx uint16 values. */
#define RTRUN_MAX_PROCS 65535
/* Largest --fanout: a daemon with more children than this gains nothing
 * from the tree. */
#define RTRUN_MAX_FANOUT 1024

typedef enum rtrun_action {
    RTRUN_ACTION_RUN,
    RTRUN_ACTION_HELP,
    RTRUN_ACTION_VERSION,
    RTRUN_ACTION_REPORT_STATE,  /* --report-state PID: ask a running rtrun (launcher/report.c) */
    RTRUN_ACTION_CHECK,         /* --check: rtm_check's checks on the job's hosts */
} rtrun_action_t;

typedef enum rtrun_bind {
    RTRUN_BIND_DEFAULT, /* core when a host's ranks <= its cores, none otherwise */
    RTRUN_BIND_CORE,
    RTRUN_BIND_NUMA,
    RTRUN_BIND_NONE,
} rtrun_bind_t;

/* --map-by: how ranks are spread over hosts (slot, node) and, on one host,
 * over its cores (core: consecutive cores; numa: round robin over NUMA
 * domains). */
typedef enum rtrun_map_by {
    RTRUN_MAP_SLOT,     /* default: fill each host's slots in host order */
    RTRUN_MAP_NODE,     /* round robin over hosts */
    RTRUN_MAP_CORE,
    RTRUN_MAP_NUMA,
} rtrun_map_by_t;

/* Where the host list came from (for error messages and docs). */
typedef enum rtrun_host_source {
    RTRUN_HOSTS_NONE,   /* this host only */
    RTRUN_HOSTS_CLI,    /* --host */
    RTRUN_HOSTS_FILE,   /* --hostfile */
    RTRUN_HOSTS_SLURM,  /* SLURM_JOB_NODELIST + SLURM_TASKS_PER_NODE */
    RTRUN_HOSTS_PBS,    /* PBS_NODEFILE */
} rtrun_host_source_t;

/* One host of the job: a name and its slot count (0: not given). */
typedef struct rtrun_host_spec {
    char *name;
    int   slots;
} rtrun_host_spec_t;

typedef struct rtrun_opts {
    rtrun_action_t     action;
    int                nprocs;         /* -n; 0: one rank per slot (or --npernode per host) */
    rtrun_host_spec_t *hosts;          /* from --host/--hostfile/allocation, in order; NULL if none */
    size_t             nhosts;
    rtrun_host_source_t host_source;
    char              *hostfile;       /* --hostfile path, NULL if none */
    rtrun_map_by_t     map_by;
    int                npernode;       /* --npernode; 0: not given */
    char              *launch_agent;   /* --launch-agent, else RTM_LAUNCH_AGENT; NULL: the default (ssh) */
    int                fanout;         /* --fanout: children per daemon in the launch tree; 0: default */
    int                oversubscribe;
    char             **env_vars;       /* -x arguments: "VAR" or "VAR=VALUE" */
    size_t             nenv_vars;
    rtrun_bind_t       bind;
    int                report_bindings;
    int                tag_output;
    long               timeout_sec;    /* 0: no timeout */
    long               report_pid;     /* --report-state PID */
    int                prog_argc;      /* the program and its arguments */
    char             **prog_argv;      /* points into the argv given to the parser */
} rtrun_opts_t;

/* Parse rtrun's arguments (argv[0] is rtrun itself). On error returns
 * RTM_ERR_INVALID_ARG; rtm_last_error() then names the argument and says
 * what is expected. *opts_p is written only on success and released with
 * rtrun_cli_free().
 * For a run, the host list is resolved here by precedence: --host or
 * --hostfile (read and parsed now; both at once is an error), else the
 * Slurm/PBS allocation (alloc.h), else none (this host alone);
 * host_source says which. launch_agent falls back to RTM_LAUNCH_AGENT
 * (register launcher_config_table first). -n may be left out when hosts
 * are known or --npernode is given: nprocs is then 0 and rtrun_job_map
 * counts the ranks. */
rtm_status_t rtrun_cli_parse(int argc, char **argv, rtrun_opts_t *opts_p);
void rtrun_cli_free(rtrun_opts_t *opts);

void rtrun_cli_print_help(FILE *out);
/* The short reminder printed after a usage error. */
void rtrun_cli_print_usage(FILE *out);

#endif
