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
#define RTRUN_EXIT_TIMEOUT  124 /* --timeout expired (as timeout(1)) */
#define RTRUN_EXIT_NOEXEC   126 /* the program exists but cannot be executed */
#define RTRUN_EXIT_NOTFOUND 127 /* the program was not found */

/* Largest job: local ranks travel as PMIx uint16 values. */
#define RTRUN_MAX_PROCS 65535

typedef enum rtrun_action {
    RTRUN_ACTION_RUN,
    RTRUN_ACTION_HELP,
    RTRUN_ACTION_VERSION,
} rtrun_action_t;

typedef enum rtrun_bind {
    RTRUN_BIND_DEFAULT, /* core when ranks <= cores, none otherwise */
    RTRUN_BIND_CORE,
    RTRUN_BIND_NONE,
} rtrun_bind_t;

/* One entry of --host: a name and its slot count (0: not given). */
typedef struct rtrun_host_spec {
    char *name;
    int   slots;
} rtrun_host_spec_t;

typedef struct rtrun_opts {
    rtrun_action_t     action;
    int                nprocs;
    rtrun_host_spec_t *hosts;          /* from --host, in order; NULL if none */
    size_t             nhosts;
    int                oversubscribe;
    char             **env_vars;       /* -x arguments: "VAR" or "VAR=VALUE" */
    size_t             nenv_vars;
    rtrun_bind_t       bind;
    int                report_bindings;
    int                tag_output;
    long               timeout_sec;    /* 0: no timeout */
    int                prog_argc;      /* the program and its arguments */
    char             **prog_argv;      /* points into the argv given to the parser */
} rtrun_opts_t;

/* Parse rtrun's arguments (argv[0] is rtrun itself). On error returns
 * RTM_ERR_INVALID_ARG; rtm_last_error() then names the argument and says
 * what is expected. *opts_p is written only on success and released with
 * rtrun_cli_free(). */
rtm_status_t rtrun_cli_parse(int argc, char **argv, rtrun_opts_t *opts_p);
void rtrun_cli_free(rtrun_opts_t *opts);

void rtrun_cli_print_help(FILE *out);
/* The short reminder printed after a usage error. */
void rtrun_cli_print_usage(FILE *out);

#endif
