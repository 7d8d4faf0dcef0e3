/* Unit test of rtrun's argument parser: good and bad command lines. */
#include "config.h"

#include "launcher/cli.h"
#include "launcher/launcher_config.h"
#include "tests/harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Parse a NULL-terminated list of words (argv[0] = "rtrun" added). */
static rtm_status_t parse(rtrun_opts_t *opts, char **words_p[], ...)
{
    static char *argv[64];
    int argc = 0;
    va_list ap;
    char *w;

    argv[argc++] = "rtrun";
    va_start(ap, words_p);
    while ((w = va_arg(ap, char *)) != NULL)
        argv[argc++] = w;
    va_end(ap);
    argv[argc] = NULL;
    *words_p = argv;
    return rtrun_cli_parse(argc, argv, opts);
}

/* A bad command line must fail and its message must name `needle`. */
#define EXPECT_BAD(_needle, ...) \
    do { \
        rtrun_opts_t o; \
        char **words; \
        rtm_status_t st = parse(&o, &words, __VA_ARGS__, (char *)NULL); \
        EXPECT(st == RTM_ERR_INVALID_ARG, "expected a usage error for \"%s\"", _needle); \
        if (st == RTM_OK) \
            rtrun_cli_free(&o); \
        else \
            EXPECT(strstr(rtm_last_error(), _needle) != NULL, \
                   "message \"%s\" does not name \"%s\"", rtm_last_error(), _needle); \
    } while (0)

static void clear_alloc_env(void)
{
    unsetenv("SLURM_JOB_NODELIST");
    unsetenv("SLURM_NODELIST");
    unsetenv("SLURM_TASKS_PER_NODE");
    unsetenv("SLURM_JOB_CPUS_PER_NODE");
    unsetenv("PBS_NODEFILE");
}

int main(void)
{
    rtrun_opts_t o;
    char **w;

    th_name = "test_cli";
    /* the test may run inside a Slurm or PBS job: parse as outside one */
    clear_alloc_env();
    unsetenv("RTM_LAUNCH_AGENT");
    if (rtm_config_register(&launcher_config_table) != RTM_OK)
        fprintf(stderr, "warning: %s\n", rtm_last_error());

    /* the basic form */
    EXPECT(parse(&o, &w, "-n", "4", "prog", "a", "b", (char *)NULL) == RTM_OK, "-n 4 prog");
    EXPECT(o.action == RTRUN_ACTION_RUN && o.nprocs == 4, "nprocs 4");
    EXPECT(o.prog_argc == 3 && strcmp(o.prog_argv[0], "prog") == 0 &&
           strcmp(o.prog_argv[2], "b") == 0, "program argv");
    EXPECT(o.bind == RTRUN_BIND_DEFAULT && !o.oversubscribe && !o.tag_output &&
           o.timeout_sec == 0 && o.nhosts == 0, "defaults");
    rtrun_cli_free(&o);

    /* aliases and joined forms */
    EXPECT(parse(&o, &w, "-np", "3", "prog", (char *)NULL) == RTM_OK && o.nprocs == 3, "-np");
    rtrun_cli_free(&o);
    EXPECT(parse(&o, &w, "--np=5", "prog", (char *)NULL) == RTM_OK && o.nprocs == 5, "--np=");
    rtrun_cli_free(&o);
    EXPECT(parse(&o, &w, "-n2", "prog", (char *)NULL) == RTM_OK && o.nprocs == 2, "-n2");
    rtrun_cli_free(&o);

    /* every option */
    EXPECT(parse(&o, &w, "-n", "2", "-H", "localhost:4", "--oversubscribe", "-x", "FOO=bar",
                 "-x", "HOME", "--bind-to", "none", "--report-bindings", "--tag-output",
                 "--timeout", "30", "--", "-prog", "-n", "9", (char *)NULL) == RTM_OK,
           "all options");
    EXPECT(o.nhosts == 1 && strcmp(o.hosts[0].name, "localhost") == 0 && o.hosts[0].slots == 4,
           "host list");
    EXPECT(o.oversubscribe && o.report_bindings && o.tag_output && o.timeout_sec == 30 &&
           o.bind == RTRUN_BIND_NONE, "flags");
    EXPECT(o.nenv_vars == 2 && strcmp(o.env_vars[0], "FOO=bar") == 0 &&
           strcmp(o.env_vars[1], "HOME") == 0, "-x");
    EXPECT(o.prog_argc == 3 && strcmp(o.prog_argv[0], "-prog") == 0, "-- ends options");
    EXPECT(o.nprocs == 2, "program's -n is not rtrun's");
    rtrun_cli_free(&o);

    EXPECT(parse(&o, &w, "-n", "1", "--host=a,b:2", "--bind-to=core", "p", (char *)NULL) == RTM_OK,
           "--host=list");
    EXPECT(o.nhosts == 2 && o.hosts[0].slots == 0 && strcmp(o.hosts[1].name, "b") == 0 &&
           o.hosts[1].slots == 2 && o.bind == RTRUN_BIND_CORE, "host list parsed");
    rtrun_cli_free(&o);

    /* hosts, mapping and launch options */
    EXPECT(parse(&o, &w, "-n", "4", "--map-by", "node", "--bind-to", "numa", "--npernode", "2",
                 "--launch-agent", "ip netns exec {host}", "--fanout=8", "-H", "a:2,b",
                 "prog", (char *)NULL) == RTM_OK, "multi-host options: %s", rtm_last_error());
    EXPECT(o.map_by == RTRUN_MAP_NODE && o.bind == RTRUN_BIND_NUMA && o.npernode == 2 &&
           o.fanout == 8 && o.launch_agent && strcmp(o.launch_agent, "ip netns exec {host}") == 0 &&
           o.host_source == RTRUN_HOSTS_CLI && o.nhosts == 2 && o.hostfile == NULL,
           "multi-host options parsed");
    rtrun_cli_free(&o);
    {
        static const char *maps[] = {"slot", "node", "core", "numa"};
        static const rtrun_map_by_t want[] = {RTRUN_MAP_SLOT, RTRUN_MAP_NODE, RTRUN_MAP_CORE,
                                              RTRUN_MAP_NUMA};

        for (int m = 0; m < 4; m++) {
            EXPECT(parse(&o, &w, "-n", "1", "--map-by", maps[m], "p", (char *)NULL) == RTM_OK &&
                   o.map_by == want[m], "--map-by %s", maps[m]);
            rtrun_cli_free(&o);
        }
    }
    /* defaults: slot, no agent from an empty RTM_LAUNCH_AGENT, this host */
    EXPECT(parse(&o, &w, "-n", "1", "p", (char *)NULL) == RTM_OK && o.map_by == RTRUN_MAP_SLOT &&
           o.launch_agent == NULL && o.host_source == RTRUN_HOSTS_NONE && o.npernode == 0 &&
           o.fanout == 0, "defaults");
    rtrun_cli_free(&o);
    /* RTM_LAUNCH_AGENT (through the config table) unless --launch-agent */
    setenv("RTM_LAUNCH_AGENT", "myssh -q", 1);
    EXPECT(rtm_config_register(&launcher_config_table) == RTM_OK, "config load");
    EXPECT(parse(&o, &w, "-n", "1", "p", (char *)NULL) == RTM_OK && o.launch_agent &&
           strcmp(o.launch_agent, "myssh -q") == 0, "agent from RTM_LAUNCH_AGENT");
    rtrun_cli_free(&o);
    EXPECT(parse(&o, &w, "-n", "1", "--launch-agent", "rsh", "p", (char *)NULL) == RTM_OK &&
           strcmp(o.launch_agent, "rsh") == 0, "--launch-agent wins");
    rtrun_cli_free(&o);
    unsetenv("RTM_LAUNCH_AGENT");
    EXPECT(rtm_config_register(&launcher_config_table) == RTM_OK, "config reload");

    /* --hostfile: read at parse time; -n may be left out */
    {
        char path[] = "/tmp/test_cli.XXXXXX";
        int fd = mkstemp(path);

        EXPECT(fd >= 0, "mkstemp");
        if (fd >= 0) {
            EXPECT(write(fd, "n1 slots=2\nn2:3\n", 16) == 16, "write");
            close(fd);
            EXPECT(parse(&o, &w, "--hostfile", path, "p", (char *)NULL) == RTM_OK &&
                   o.nprocs == 0 && o.nhosts == 2 && o.hosts[1].slots == 3 &&
                   o.host_source == RTRUN_HOSTS_FILE && strcmp(o.hostfile, path) == 0,
                   "hostfile: %s", rtm_last_error());
            rtrun_cli_free(&o);
            EXPECT(parse(&o, &w, "--machinefile", path, "-n", "2", "p", (char *)NULL) ==
                       RTM_OK && o.nprocs == 2 && o.nhosts == 2, "--machinefile");
            rtrun_cli_free(&o);
            EXPECT_BAD("both given", "--hostfile", path, "-H", "a", "p");
            EXPECT_BAD("already given", "--hostfile", path, "--hostfile", path, "p");
            unlink(path);
            EXPECT_BAD(path, "--hostfile", path, "p");
            EXPECT_BAD("No such file", "--hostfile", path, "p");
        }
    }
    /* the allocation when no host is given, --host over it */
    setenv("SLURM_JOB_NODELIST", "s[1-2]", 1);
    setenv("SLURM_TASKS_PER_NODE", "2(x2)", 1);
    EXPECT(parse(&o, &w, "p", (char *)NULL) == RTM_OK && o.host_source == RTRUN_HOSTS_SLURM &&
           o.nhosts == 2 && o.nprocs == 0 && strcmp(o.hosts[1].name, "s2") == 0,
           "slurm allocation: %s", rtm_last_error());
    rtrun_cli_free(&o);
    EXPECT(parse(&o, &w, "-H", "x", "p", (char *)NULL) == RTM_OK &&
           o.host_source == RTRUN_HOSTS_CLI && o.nhosts == 1, "--host over the allocation");
    rtrun_cli_free(&o);
    setenv("SLURM_TASKS_PER_NODE", "2", 1);
    EXPECT_BAD("SLURM_TASKS_PER_NODE", "-n", "1", "p");
    clear_alloc_env();
    /* --npernode alone is enough */
    EXPECT(parse(&o, &w, "--npernode", "1", "p", (char *)NULL) == RTM_OK && o.nprocs == 0 &&
           o.npernode == 1, "--npernode without -n");
    rtrun_cli_free(&o);

    /* help and version need no program */
    EXPECT(parse(&o, &w, "--help", (char *)NULL) == RTM_OK && o.action == RTRUN_ACTION_HELP,
           "--help");
    rtrun_cli_free(&o);
    EXPECT(parse(&o, &w, "-V", (char *)NULL) == RTM_OK && o.action == RTRUN_ACTION_VERSION,
           "-V");
    rtrun_cli_free(&o);

    /* bad command lines name the argument */
    EXPECT_BAD("--bogus", "-n", "2", "--bogus", "prog");
    EXPECT_BAD("-n", "-n", "zero", "prog");
    EXPECT_BAD("-n", "-n", "0", "prog");
    EXPECT_BAD("-n", "-n", "70000", "prog");
    EXPECT_BAD("-n", "-n");
    EXPECT_BAD("-n N", "prog");
    EXPECT_BAD("no program", "-n", "2");
    EXPECT_BAD("--bind-to", "-n", "2", "--bind-to", "socket", "prog");
    EXPECT_BAD("--timeout", "-n", "2", "--timeout", "-1", "prog");
    EXPECT_BAD("--timeout", "-n", "2", "--timeout", "1.5x", "prog");
    EXPECT_BAD("-x", "-n", "2", "-x", "=VAL", "prog");
    EXPECT_BAD("-x", "-n", "2", "-x", "1BAD", "prog");
    EXPECT_BAD("--host", "-n", "2", "--host", "localhost:0", "prog");
    EXPECT_BAD("--host", "-n", "2", "--host", ":4", "prog");
    EXPECT_BAD("--host", "-n", "2", "--host", "localhost:", "prog");
    EXPECT_BAD("--oversubscribe", "-n", "2", "--oversubscribe=yes", "prog");
    EXPECT_BAD("--map-by \"socket\"", "-n", "2", "--map-by", "socket", "prog");
    EXPECT_BAD("--bind-to \"hwthread\"", "-n", "2", "--bind-to", "hwthread", "prog");
    EXPECT_BAD("--npernode \"0\"", "-n", "2", "--npernode", "0", "prog");
    EXPECT_BAD("--npernode \"x\"", "-n", "2", "--npernode", "x", "prog");
    EXPECT_BAD("--fanout \"0\"", "-n", "2", "--fanout", "0", "prog");
    EXPECT_BAD("--fanout \"99999\"", "-n", "2", "--fanout", "99999", "prog");
    EXPECT_BAD("--launch-agent", "-n", "2", "--launch-agent", " ", "prog");
    EXPECT_BAD("--hostfile needs a value", "-n", "2", "--hostfile");
    EXPECT_BAD("--hostfile needs a file name", "-n", "2", "--hostfile=", "prog");
    EXPECT_BAD("\"a/b\" is not a host name", "-n", "2", "-H", "a/b", "prog");

    if (th_failures > 0)
        TH_RETURN();
    printf("test_cli: all checks passed\n");
    return 0;
}
