/*
 * rtrun's command line. Options come first; the first word that is not an
 * option (or the word after "--") is the program, and everything after it
 * belongs to the program, so `rtrun -n 2 prog -n 5` passes "-n 5" to prog.
 */
#include "config.h"

#include "launcher/cli.h"
#include "launcher/alloc.h"
#include "launcher/hostfile.h"
#include "common/error.h"
#include "launcher/launcher_config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef enum cli_opt_id {
    OPT_NP, OPT_HOST, OPT_OVERSUBSCRIBE, OPT_ENV, OPT_BIND_TO, OPT_REPORT_BINDINGS,
    OPT_TAG_OUTPUT, OPT_TIMEOUT, OPT_HELP, OPT_VERSION, OPT_HOSTFILE, OPT_MAP_BY,
    OPT_NPERNODE, OPT_LAUNCH_AGENT, OPT_FANOUT, OPT_REPORT_STATE, OPT_CHECK,
} cli_opt_id_t;

typedef struct cli_opt {
    const char  *name;      /* as typed, with its dashes */
    cli_opt_id_t id;
    int          has_value;
} cli_opt_t;

static const cli_opt_t cli_opts[] = {
    {"-n", OPT_NP, 1},
    {"-np", OPT_NP, 1},
    {"--np", OPT_NP, 1},
    {"-H", OPT_HOST, 1},
    {"--host", OPT_HOST, 1},
    {"--hostfile", OPT_HOSTFILE, 1},
    {"--machinefile", OPT_HOSTFILE, 1},
    {"--map-by", OPT_MAP_BY, 1},
    {"--npernode", OPT_NPERNODE, 1},
    {"--launch-agent", OPT_LAUNCH_AGENT, 1},
    {"--fanout", OPT_FANOUT, 1},
    {"--oversubscribe", OPT_OVERSUBSCRIBE, 0},
    {"-x", OPT_ENV, 1},
    {"--bind-to", OPT_BIND_TO, 1},
    {"--report-bindings", OPT_REPORT_BINDINGS, 0},
    {"--tag-output", OPT_TAG_OUTPUT, 0},
    {"--timeout", OPT_TIMEOUT, 1},
    {"--report-state", OPT_REPORT_STATE, 1},
    {"--check", OPT_CHECK, 0},
    {"-h", OPT_HELP, 0},
    {"--help", OPT_HELP, 0},
    {"-V", OPT_VERSION, 0},
    {"--version", OPT_VERSION, 0},
};

#define NUM_CLI_OPTS (sizeof(cli_opts) / sizeof(cli_opts[0]))

static const cli_opt_t *find_opt(const char *word, size_t len)
{
    for (size_t i = 0; i < NUM_CLI_OPTS; i++) {
        if (strlen(cli_opts[i].name) == len && strncmp(cli_opts[i].name, word, len) == 0)
            return &cli_opts[i];
    }
    return NULL;
}

/* A whole decimal number in [min, max]; -1 if it is not one. */
static int parse_long(const char *s, long min, long max, long *value_p)
{
    char *end;
    long v;

    if (s == NULL || !isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *value_p = v;
    return 0;
}

static int valid_env_name(const char *s, size_t len)
{
    if (len == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < len; i++) {
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return 0;
    }
    return 1;
}

/* --host a[:slots],b[:slots]...; entries are appended to opts->hosts. */
static rtm_status_t parse_hosts(const char *opt, const char *value, rtrun_opts_t *opts)
{
    const char *p = value;

    if (*value == '\0')
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "%s needs a host list, e.g. %s localhost:4", opt, opt);
    for (;;) {
        size_t len = strcspn(p, ",");
        const char *colon = memchr(p, ':', len);
        size_t name_len = colon ? (size_t)(colon - p) : len;
        long slots = 0;
        rtrun_host_spec_t *grown;

        if (name_len == 0)
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "%s \"%s\": empty host name (expected HOST[:SLOTS],...)", opt,
                                 value);
        if (!rtrun_host_name_ok(p, name_len))
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "%s \"%s\": \"%.*s\" is not a host name (letters, digits, '.', '-', '_', at most %d)",
                                 opt, value, (int)name_len, p, RTRUN_HOST_NAME_MAX);
        if (colon != NULL) {
            char num[32];
            size_t nlen = len - name_len - 1;

            if (nlen == 0 || nlen >= sizeof(num))
                return rtm_error_set(RTM_ERR_INVALID_ARG,
                                     "%s \"%s\": the slot count after ':' must be a positive integer",
                                     opt, value);
            memcpy(num, colon + 1, nlen);
            num[nlen] = '\0';
            if (parse_long(num, 1, RTRUN_MAX_PROCS, &slots) != 0)
                return rtm_error_set(RTM_ERR_INVALID_ARG,
                                     "%s \"%s\": slot count \"%s\" is not an integer from 1 to %d",
                                     opt, value, num, RTRUN_MAX_PROCS);
        }
        grown = realloc(opts->hosts, (opts->nhosts + 1) * sizeof(*grown));
        if (grown == NULL)
            return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory parsing %s", opt);
        opts->hosts = grown;
        grown[opts->nhosts].name = strndup(p, name_len);
        grown[opts->nhosts].slots = (int)slots;
        if (grown[opts->nhosts].name == NULL)
            return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory parsing %s", opt);
        opts->nhosts++;
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    return RTM_OK;
}

static rtm_status_t set_hostfile(const char *typed, const char *value, rtrun_opts_t *opts)
{
    if (opts->hostfile != NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "%s \"%s\": a hostfile was already given (\"%s\"); give one",
                             typed, value, opts->hostfile);
    if (*value == '\0')
        return rtm_error_set(RTM_ERR_INVALID_ARG, "%s needs a file name", typed);
    opts->hostfile = strdup(value);
    if (opts->hostfile == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory parsing %s", typed);
    return RTM_OK;
}

static rtm_status_t parse_map_by(const char *typed, const char *value, rtrun_opts_t *opts)
{
    if (strcmp(value, "slot") == 0)
        opts->map_by = RTRUN_MAP_SLOT;
    else if (strcmp(value, "node") == 0)
        opts->map_by = RTRUN_MAP_NODE;
    else if (strcmp(value, "core") == 0)
        opts->map_by = RTRUN_MAP_CORE;
    else if (strcmp(value, "numa") == 0)
        opts->map_by = RTRUN_MAP_NUMA;
    else
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "%s \"%s\": expected slot, node, core or numa", typed, value);
    return RTM_OK;
}

static rtm_status_t parse_bind_to(const char *typed, const char *value, rtrun_opts_t *opts)
{
    if (strcmp(value, "core") == 0)
        opts->bind = RTRUN_BIND_CORE;
    else if (strcmp(value, "numa") == 0)
        opts->bind = RTRUN_BIND_NUMA;
    else if (strcmp(value, "none") == 0)
        opts->bind = RTRUN_BIND_NONE;
    else
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "%s \"%s\": expected core, numa or none", typed, value);
    return RTM_OK;
}

/* -x VAR or -x VAR=VALUE, kept as given (resolved when ranks start). */
static rtm_status_t add_env_var(const char *typed, const char *value, rtrun_opts_t *opts)
{
    size_t name_len = strcspn(value, "=");
    char **grown;

    if (!valid_env_name(value, name_len))
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "%s \"%s\": expected VAR or VAR=VALUE with VAR made of letters, digits and '_'",
                             typed, value);
    grown = realloc(opts->env_vars, (opts->nenv_vars + 1) * sizeof(*grown));
    if (grown == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory parsing %s", typed);
    opts->env_vars = grown;
    grown[opts->nenv_vars] = strdup(value);
    if (grown[opts->nenv_vars] == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory parsing %s", typed);
    opts->nenv_vars++;
    return RTM_OK;
}

static rtm_status_t apply_opt(const cli_opt_t *opt, const char *typed, const char *value,
                              rtrun_opts_t *opts)
{
    long v;

    switch (opt->id) {
    case OPT_NP:
        if (parse_long(value, 1, RTRUN_MAX_PROCS, &v) != 0)
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "%s \"%s\": the number of ranks must be an integer from 1 to %d",
                                 typed, value, RTRUN_MAX_PROCS);
        opts->nprocs = (int)v;
        return RTM_OK;
    case OPT_HOST:
        opts->host_source = RTRUN_HOSTS_CLI;
        return parse_hosts(typed, value, opts);
    case OPT_HOSTFILE:
        return set_hostfile(typed, value, opts);
    case OPT_MAP_BY:
        return parse_map_by(typed, value, opts);
    case OPT_NPERNODE:
        if (parse_long(value, 1, RTRUN_MAX_PROCS, &v) != 0)
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "%s \"%s\": ranks per host must be an integer from 1 to %d",
                                 typed, value, RTRUN_MAX_PROCS);
        opts->npernode = (int)v;
        return RTM_OK;
    case OPT_LAUNCH_AGENT:
        if (strspn(value, " \t") == strlen(value))
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "%s \"%s\": expected a command, e.g. %s 'ssh -x {host}'", typed,
                                 value, typed);
        free(opts->launch_agent);
        opts->launch_agent = strdup(value);
        if (opts->launch_agent == NULL)
            return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory parsing %s", typed);
        return RTM_OK;
    case OPT_FANOUT:
        if (parse_long(value, 1, RTRUN_MAX_FANOUT, &v) != 0)
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "%s \"%s\": children per daemon must be an integer from 1 to %d",
                                 typed, value, RTRUN_MAX_FANOUT);
        opts->fanout = (int)v;
        return RTM_OK;
    case OPT_OVERSUBSCRIBE:
        opts->oversubscribe = 1;
        return RTM_OK;
    case OPT_ENV:
        return add_env_var(typed, value, opts);
    case OPT_BIND_TO:
        return parse_bind_to(typed, value, opts);
    case OPT_REPORT_BINDINGS:
        opts->report_bindings = 1;
        return RTM_OK;
    case OPT_TAG_OUTPUT:
        opts->tag_output = 1;
        return RTM_OK;
    case OPT_TIMEOUT:
        if (parse_long(value, 1, INT_MAX, &v) != 0)
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "%s \"%s\": expected a whole number of seconds, at least 1",
                                 typed, value);
        opts->timeout_sec = v;
        return RTM_OK;
    case OPT_REPORT_STATE:
        if (parse_long(value, 1, INT_MAX, &v) != 0)
            return rtm_error_set(RTM_ERR_INVALID_ARG, "%s \"%s\": expected the pid of a running "
                                 "rtrun", typed, value);
        opts->report_pid = v;
        opts->action = RTRUN_ACTION_REPORT_STATE;
        return RTM_OK;
    case OPT_CHECK:
        opts->action = RTRUN_ACTION_CHECK;
        return RTM_OK;
    case OPT_HELP:
        opts->action = RTRUN_ACTION_HELP;
        return RTM_OK;
    case OPT_VERSION:
        opts->action = RTRUN_ACTION_VERSION;
        return RTM_OK;
    }
    return rtm_error_set(RTM_ERR_INTERNAL, "unhandled option %s", typed);
}

/* The host list by precedence (as Open MPI and MPICH): --host or
 * --hostfile, else the scheduler's allocation, else this host alone. The
 * launch agent: --launch-agent, else RTM_LAUNCH_AGENT. */
static rtm_status_t resolve_hosts(rtrun_opts_t *opts)
{
    rtm_status_t status;

    if (opts->launch_agent == NULL && launcher_config.launch_agent != NULL &&
        strspn(launcher_config.launch_agent, " \t") != strlen(launcher_config.launch_agent)) {
        opts->launch_agent = strdup(launcher_config.launch_agent);
        if (opts->launch_agent == NULL)
            return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for RTM_LAUNCH_AGENT");
    }
    if (opts->hostfile != NULL) {
        if (opts->nhosts > 0)
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "--host and --hostfile %s both given: list the hosts in one of them",
                                 opts->hostfile);
        status = rtrun_hostfile_read(opts->hostfile, &opts->hosts, &opts->nhosts);
        if (status != RTM_OK)
            return status;
        opts->host_source = RTRUN_HOSTS_FILE;
        return RTM_OK;
    }
    if (opts->nhosts > 0) {
        opts->host_source = RTRUN_HOSTS_CLI;
        return RTM_OK;
    }
    return rtrun_alloc_from_env(&opts->hosts, &opts->nhosts, &opts->host_source);
}

void rtrun_cli_free(rtrun_opts_t *opts)
{
    if (opts == NULL)
        return;
    for (size_t i = 0; i < opts->nhosts; i++)
        free(opts->hosts[i].name);
    free(opts->hosts);
    for (size_t i = 0; i < opts->nenv_vars; i++)
        free(opts->env_vars[i]);
    free(opts->env_vars);
    free(opts->hostfile);
    free(opts->launch_agent);
    memset(opts, 0, sizeof(*opts));
}

rtm_status_t rtrun_cli_parse(int argc, char **argv, rtrun_opts_t *opts_p)
{
    rtrun_opts_t opts;
    rtm_status_t status;
    int i;

    if (argc < 0 || (argc > 0 && argv == NULL) || opts_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_cli_parse: NULL argument");

    memset(&opts, 0, sizeof(opts));
    opts.action = RTRUN_ACTION_RUN;
    opts.bind = RTRUN_BIND_DEFAULT;

    for (i = 1; i < argc; i++) {
        const char *word = argv[i];
        const char *eq, *value = NULL;
        const cli_opt_t *opt;
        size_t name_len;

        if (strcmp(word, "--") == 0) {
            i++;
            break;
        }
        if (word[0] != '-' || word[1] == '\0')
            break; /* the program */

        /* "--name=value" for long options; "-n4" / "-xFOO=1" for the
         * one-letter ones that take a value. */
        eq = (word[1] == '-') ? strchr(word, '=') : NULL;
        name_len = eq ? (size_t)(eq - word) : strlen(word);
        opt = find_opt(word, name_len);
        if (opt == NULL && word[1] != '-' && strlen(word) > 2) {
            const cli_opt_t *short_opt = find_opt(word, 2);

            if (short_opt != NULL && short_opt->has_value) {
                opt = short_opt;
                value = word + 2;
                name_len = 2;
            }
        }
        if (opt == NULL) {
            status = rtm_error_set(RTM_ERR_INVALID_ARG, "unknown option \"%.*s\"",
                                   (int)name_len, word);
            goto err_free_opts;
        }
        if (eq != NULL) {
            if (!opt->has_value) {
                status = rtm_error_set(RTM_ERR_INVALID_ARG, "option %s takes no value (got \"%s\")",
                                       opt->name, word);
                goto err_free_opts;
            }
            value = eq + 1;
        } else if (opt->has_value && value == NULL) {
            if (i + 1 >= argc) {
                status = rtm_error_set(RTM_ERR_INVALID_ARG, "option %s needs a value", word);
                goto err_free_opts;
            }
            value = argv[++i];
        }
        status = apply_opt(opt, opt->name, value, &opts);
        if (status != RTM_OK)
            goto err_free_opts;
    }

    if (opts.action == RTRUN_ACTION_RUN) {
        if (i >= argc) {
            status = rtm_error_set(RTM_ERR_INVALID_ARG, "no program given to run");
            goto err_free_opts;
        }
        /* An empty word (rtrun -n 2 "$UNSET_VAR") names no program: exec
         * would fail in every rank, so say it once, here. */
        if (argv[i][0] == '\0') {
            status = rtm_error_set(RTM_ERR_INVALID_ARG,
                                   "the program name is empty (\"\"): give the program to run after the options");
            goto err_free_opts;
        }
        status = resolve_hosts(&opts);
        if (status != RTM_OK)
            goto err_free_opts;
        /* Without -n: one rank per slot of the hosts given or allocated
         * (as Open MPI), or --npernode per host; job_map counts them. On
         * this host alone the count must be said. */
        if (opts.nprocs == 0 && opts.nhosts == 0 && opts.npernode == 0) {
            status = rtm_error_set(RTM_ERR_INVALID_ARG,
                                   "missing -n N: say how many ranks of \"%s\" to start",
                                   argv[i]);
            goto err_free_opts;
        }
        opts.prog_argc = argc - i;
        opts.prog_argv = &argv[i];
    } else if (opts.action == RTRUN_ACTION_CHECK) {
        status = resolve_hosts(&opts);   /* the hosts to check, as for a job */
        if (status != RTM_OK)
            goto err_free_opts;
    }
    *opts_p = opts;
    return RTM_OK;

err_free_opts:
    rtrun_cli_free(&opts);
    return status;
}

void rtrun_cli_print_usage(FILE *out)
{
    fprintf(out, "Usage: rtrun [-n N] [options] PROGRAM [ARGS...]\n"
                 "Try 'rtrun --help' for more information.\n");
}

void rtrun_cli_print_help(FILE *out)
{
    fprintf(out,
"Usage: rtrun [-n N] [options] PROGRAM [ARGS...]\n"
"Start N ranks of PROGRAM on this host or on several hosts, serve them PMIx,\n"
"forward their standard input and output, and end the whole job if any rank\n"
"fails.\n"
"\n"
"Options (they come before PROGRAM; everything after PROGRAM is its own):\n"
"  -n, -np, --np N        number of ranks to start; may be left out when hosts\n"
"                         are given or allocated: then one rank per slot (or\n"
"                         --npernode ranks per host)\n"
"  -H, --host HOST[:SLOTS][,...]\n"
"                         hosts to run on and how many ranks each may hold;\n"
"                         SLOTS defaults to the number of cores of this host;\n"
"                         a host named twice gets the sum of its slots\n"
"  --hostfile, --machinefile FILE\n"
"                         read the hosts from FILE, one per line, as\n"
"                         \"HOST slots=N\" (Open MPI; max_slots=M is ignored),\n"
"                         \"HOST:N\" (MPICH) or \"HOST\" (slots = cores); '#'\n"
"                         starts a comment; a host on several lines gets the\n"
"                         sum. Errors name FILE and the line. Not with --host.\n"
"  --map-by slot|node|core|numa\n"
"                         slot (default): fill each host's slots in order,\n"
"                         then the next host; node: one rank per host in turn;\n"
"                         core, numa: as slot across hosts, and on each host\n"
"                         spread bound ranks over cores / over NUMA domains\n"
"  --npernode N           at most N ranks on each host (without -n: exactly N\n"
"                         on each host)\n"
"  --oversubscribe        allow more ranks than slots; without it such a job is\n"
"                         refused before anything starts; extra ranks are then\n"
"                         shared evenly among the hosts\n"
"  --launch-agent 'CMD {host}'\n"
"                         command that starts rtrun's daemon on a remote host,\n"
"                         {host} replaced by its name (without {host} the name\n"
"                         comes after CMD); default: RTM_LAUNCH_AGENT, else\n"
"                         ssh (BatchMode, no tty)\n"
"  --fanout K             each daemon starts at most K others (a launch tree),\n"
"                         so no process opens a connection to every host\n"
"  -x VAR[=VALUE]         set VAR in every rank's environment, to VALUE or to\n"
"                         its value in rtrun's environment (may be repeated)\n"
"  --bind-to core|numa|none\n"
"                         bind each rank to one core (local rank L on core L\n"
"                         modulo the host's cores), to a whole NUMA domain\n"
"                         (round robin over domains), or not at all; default:\n"
"                         core on a host holding at most as many ranks as it\n"
"                         has cores (numa with --map-by numa), none otherwise\n"
"  --report-bindings      print one line per rank naming the cores it is bound to\n"
"  --tag-output           prefix every line a rank prints with \"[RANK] \"\n"
"  --timeout SECONDS      end the job after SECONDS and name the ranks still running\n"
"                         and what each waits for (docs/diagnostics.md)\n"
"  --report-state PID     print what every rank of the job of the rtrun PID waits\n"
"                         for (as SIGUSR1 to that rtrun); the job goes on\n"
"  --check                check the hosts (given as for a job) before a job runs:\n"
"                         RDMA ports, limits, /dev/shm, CMA, links (rtm_check)\n"
"  -h, --help             print this help and exit\n"
"  -V, --version          print rtrun's version and exit\n"
"  --                     end of options: the next word is PROGRAM\n"
"\n"
"Input and output: rtrun's standard input goes to rank 0 (the other ranks read\n"
"/dev/null); every rank's standard output and error come out of rtrun's, whole\n"
"lines at a time, so lines of different ranks never mix. SIGINT and SIGTERM\n"
"are forwarded to the ranks, then the job ends; a second SIGINT kills the\n"
"ranks at once.\n"
"\n"
"Failures: a rank that exits with a non-zero code, is killed by a signal,\n"
"calls abort (PMIx_Abort, rtm_abort), or exits without finalizing after it\n"
"connected to PMIx ends the job: the other ranks get SIGTERM, then SIGKILL,\n"
"and rtrun says which rank failed, where and how.\n"
"\n"
"Exit status:\n"
"  0        every rank exited with code 0\n"
"  CODE     a rank exited with CODE, or called abort with CODE (an abort code\n"
"           of 0, or one that is 0 modulo 256, gives 1)\n"
"  128+SIG  a rank was killed by signal SIG, or rtrun received SIG (SIGINT,\n"
"           SIGTERM, SIGHUP) and ended the job\n"
"  1        rtrun itself failed, or a rank exited without finalizing PMIx\n"
"  2        bad command line, or a job refused as asked (e.g. too many ranks)\n"
"  124      --timeout expired\n"
"  71       a rank lost its connection to a peer that did not itself fail\n"
"           (when the peer failed, as it usually did, the peer is named and\n"
"           its code or signal is rtrun's)\n"
"  126/127  PROGRAM cannot be executed / was not found\n"
"\n"
"Hosts: --host or --hostfile if given, else the scheduler's allocation\n"
"(Slurm: SLURM_JOB_NODELIST with SLURM_TASKS_PER_NODE, else\n"
"SLURM_JOB_CPUS_PER_NODE; PBS/Torque: PBS_NODEFILE, one line per slot), else\n"
"this host alone. Hosts that get no rank are left out of the job.\n"
"\n"
"Examples:\n"
"  rtrun -n 4 ./app                          4 ranks on this host\n"
"  rtrun -H node1:2,node2:2 ./app            2 ranks on each host\n"
"  rtrun --hostfile hosts.txt --map-by node -n 8 ./app\n"
"                                            8 ranks dealt over the hosts\n"
"  rtrun --hostfile hosts.txt --npernode 1 hostname\n"
"                                            one rank on every host\n"
"  rtrun --launch-agent 'ip netns exec {host}' -H ns1:2,ns2:2 ./app\n"
"                                            hosts reached without ssh\n"
"  sbatch -N 2 --wrap 'rtrun ./app'          one rank per allocated slot\n"
"\n"
"Environment: RTM_LOG_LEVEL=error|warn|info|debug|trace sets how much rtrun\n"
"logs on stderr; RTM_LAUNCH_AGENT is the default --launch-agent. Each rank gets PMIX_NAMESPACE, PMIX_RANK and the other PMIx\n"
"variables it needs to connect to rtrun's PMIx server.\n");
}
