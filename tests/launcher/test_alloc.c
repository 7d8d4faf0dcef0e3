/* Unit test of the scheduler allocations: Slurm hostlists and per-node
 * counts, PBS nodefiles, and which one rtrun picks from the environment. */
#include "config.h"

#include "launcher/alloc.h"
#include "launcher/hostfile.h"
#include "tests/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Expand `list` and compare with the space-separated `want`. */
static void expect_expand(const char *list, const char *want, int line)
{
    char **names = NULL;
    size_t count = 0;
    char got[4096] = "";
    size_t used = 0;

    if (rtrun_alloc_expand_hostlist(list, &names, &count) != RTM_OK) {
        th_expect_failed(__FILE__, line, NULL, "\"%s\" refused: %s", list, rtm_last_error());
        return;
    }
    for (size_t i = 0; i < count; i++)
        used += (size_t)snprintf(got + used, sizeof(got) - used, "%s%s", i ? " " : "",
                                 names[i]);
    if (strcmp(got, want) != 0)
        th_expect_failed(__FILE__, line, NULL, "\"%s\" gave \"%s\", expected \"%s\"", list, got,
                         want);
    rtrun_alloc_names_free(names, count);
}
#define EXPECT_EXPAND(_list, _want) expect_expand(_list, _want, __LINE__)

#define EXPECT_BAD_LIST(_list, _needle) \
    do { \
        char **n_ = NULL; \
        size_t c_ = 7; \
        EXPECT(rtrun_alloc_expand_hostlist(_list, &n_, &c_) == RTM_ERR_INVALID_ARG && \
                   n_ == NULL && c_ == 7 && strstr(rtm_last_error(), _needle), \
               "hostlist \"%s\": %s", _list, rtm_last_error()); \
    } while (0)

static int counts_are(const char *value, size_t nhosts, const int *want)
{
    int *counts = NULL;
    int ok;

    if (rtrun_alloc_parse_per_node(value, "SLURM_TASKS_PER_NODE", nhosts, &counts) != RTM_OK)
        return 0;
    ok = memcmp(counts, want, nhosts * sizeof(int)) == 0;
    free(counts);
    return ok;
}

#define EXPECT_BAD_COUNTS(_value, _n, _needle) \
    do { \
        int *c_ = NULL; \
        EXPECT(rtrun_alloc_parse_per_node(_value, "SLURM_TASKS_PER_NODE", _n, &c_) == \
                   RTM_ERR_INVALID_ARG && c_ == NULL && \
                   strstr(rtm_last_error(), "SLURM_TASKS_PER_NODE") && \
                   strstr(rtm_last_error(), _needle), \
               "counts \"%s\": %s", _value, rtm_last_error()); \
    } while (0)

static void clear_env(void)
{
    unsetenv("SLURM_JOB_NODELIST");
    unsetenv("SLURM_NODELIST");
    unsetenv("SLURM_TASKS_PER_NODE");
    unsetenv("SLURM_JOB_CPUS_PER_NODE");
    unsetenv("PBS_NODEFILE");
}

int main(void)
{
    rtrun_host_spec_t *hosts = NULL;
    size_t nhosts = 0;
    rtrun_host_source_t src;

    th_name = "test_alloc";
    /* hostlists */
    EXPECT_EXPAND("node1", "node1");
    EXPECT_EXPAND("node[01-03,07],gpu5,io[1-2]", "node01 node02 node03 node07 gpu5 io1 io2");
    EXPECT_EXPAND("n[8-11]", "n8 n9 n10 n11");
    EXPECT_EXPAND("n[08-11]", "n08 n09 n10 n11");
    EXPECT_EXPAND("n[098-101]", "n098 n099 n100 n101");
    EXPECT_EXPAND("n[5]", "n5");
    EXPECT_EXPAND("a,b,c", "a b c");
    EXPECT_EXPAND("rack[1-2]-n[01-02]", "rack1-n01 rack1-n02 rack2-n01 rack2-n02");
    EXPECT_EXPAND("[1-2]x", "1x 2x");
    EXPECT_EXPAND("n[1-2].cluster,m", "n1.cluster n2.cluster m");
    EXPECT_BAD_LIST("", "empty");
    EXPECT_BAD_LIST("a,,b", "empty entry");
    EXPECT_BAD_LIST("a,", "empty entry");
    EXPECT_BAD_LIST("n[1-3", "'[' without ']'");
    EXPECT_BAD_LIST("n1-3]", "']' without '['");
    EXPECT_BAD_LIST("n[]", "empty brackets");
    EXPECT_BAD_LIST("n[[1-2]]", "nested");
    EXPECT_BAD_LIST("n[3-1]", "goes down");
    EXPECT_BAD_LIST("n[a-b]", "\"a-b\"");
    EXPECT_BAD_LIST("n[1-]", "\"1-\"");
    EXPECT_BAD_LIST("n[-1]", "\"-1\"");
    EXPECT_BAD_LIST("n[1,,2]", "empty item");
    EXPECT_BAD_LIST("n[1,]", "empty item");
    EXPECT_BAD_LIST("n[1-2-3]", "\"1-2-3\"");
    EXPECT_BAD_LIST("n[1234567890]", "digits");
    EXPECT_BAD_LIST("n[0-999999]", "more than");
    EXPECT_BAD_LIST("bad/host", "not a host name");

    /* per-node counts */
    {
        static const int w1[] = {2, 2, 2, 1};
        static const int w2[] = {4};
        static const int w3[] = {1, 3, 3};

        EXPECT(counts_are("2(x3),1", 4, w1), "2(x3),1");
        EXPECT(counts_are("4", 1, w2), "4");
        EXPECT(counts_are("1,3(x2)", 3, w3), "1,3(x2)");
    }
    EXPECT_BAD_COUNTS("2(x3),1", 3, "more than the 3 hosts");
    EXPECT_BAD_COUNTS("2(x2)", 3, "counts for 2 hosts but the node list has 3");
    EXPECT_BAD_COUNTS("", 1, "expected counts");
    EXPECT_BAD_COUNTS("x", 1, "expected counts");
    EXPECT_BAD_COUNTS("0", 1, "expected counts");
    EXPECT_BAD_COUNTS("2(3)", 3, "expected counts");
    EXPECT_BAD_COUNTS("2(x3", 3, "expected counts");
    EXPECT_BAD_COUNTS("2(x0)", 1, "expected counts");
    EXPECT_BAD_COUNTS("2,", 1, "expected counts");
    EXPECT_BAD_COUNTS("2;1", 2, "expected counts");
    EXPECT_BAD_COUNTS("70000", 1, "expected counts");

    /* a whole Slurm allocation */
    EXPECT(rtrun_alloc_slurm("node[01-03]", "2(x2),1", "SLURM_TASKS_PER_NODE", &hosts,
                             &nhosts) == RTM_OK && nhosts == 3 &&
           strcmp(hosts[0].name, "node01") == 0 && hosts[0].slots == 2 &&
           strcmp(hosts[2].name, "node03") == 0 && hosts[2].slots == 1, "slurm allocation");
    rtrun_hosts_free(hosts, nhosts);
    EXPECT(rtrun_alloc_slurm("a,b", NULL, NULL, &hosts, &nhosts) == RTM_OK && nhosts == 2 &&
           hosts[1].slots == 0, "slurm without counts: slots not given");
    rtrun_hosts_free(hosts, nhosts);

    /* PBS nodefiles: one line per slot */
    {
        static const char text[] = "n1\nn1\nn2\n  n3  \n\nn1\n";

        EXPECT(rtrun_alloc_pbs(text, sizeof(text) - 1, "nodes", &hosts, &nhosts) == RTM_OK &&
               nhosts == 3 && strcmp(hosts[0].name, "n1") == 0 && hosts[0].slots == 3 &&
               hosts[1].slots == 1 && strcmp(hosts[2].name, "n3") == 0 && hosts[2].slots == 1,
               "pbs nodefile");
        rtrun_hosts_free(hosts, nhosts);
        hosts = NULL;
        EXPECT(rtrun_alloc_pbs("n1\nbad host\n", 13, "nodes", &hosts, &nhosts) ==
                   RTM_ERR_INVALID_ARG && strstr(rtm_last_error(), "nodes:2") && hosts == NULL,
               "pbs bad line: %s", rtm_last_error());
        EXPECT(rtrun_alloc_pbs("\n\n", 2, "nodes", &hosts, &nhosts) == RTM_ERR_INVALID_ARG &&
               strstr(rtm_last_error(), "no hosts"), "pbs empty: %s", rtm_last_error());
    }

    /* the environment: none, Slurm, Slurm over PBS, PBS, malformed */
    clear_env();
    src = RTRUN_HOSTS_CLI;
    EXPECT(rtrun_alloc_from_env(&hosts, &nhosts, &src) == RTM_OK && nhosts == 0 &&
           hosts == NULL && src == RTRUN_HOSTS_NONE, "no allocation");
    setenv("SLURM_JOB_NODELIST", "c[1-2]", 1);
    setenv("SLURM_JOB_CPUS_PER_NODE", "8(x2)", 1);
    setenv("PBS_NODEFILE", "/nonexistent", 1);
    EXPECT(rtrun_alloc_from_env(&hosts, &nhosts, &src) == RTM_OK && nhosts == 2 &&
           src == RTRUN_HOSTS_SLURM && hosts[1].slots == 8, "slurm cpus per node");
    rtrun_hosts_free(hosts, nhosts);
    setenv("SLURM_TASKS_PER_NODE", "1,3", 1);
    EXPECT(rtrun_alloc_from_env(&hosts, &nhosts, &src) == RTM_OK && nhosts == 2 &&
           hosts[0].slots == 1 && hosts[1].slots == 3, "tasks per node first");
    rtrun_hosts_free(hosts, nhosts);
    setenv("SLURM_TASKS_PER_NODE", "1", 1);
    EXPECT(rtrun_alloc_from_env(&hosts, &nhosts, &src) == RTM_ERR_INVALID_ARG &&
           strstr(rtm_last_error(), "SLURM_JOB_NODELIST=c[1-2]") &&
           strstr(rtm_last_error(), "SLURM_TASKS_PER_NODE"), "mismatch: %s", rtm_last_error());
    clear_env();
    {
        char path[] = "/tmp/test_alloc.XXXXXX";
        int fd = mkstemp(path);

        EXPECT(fd >= 0, "mkstemp");
        if (fd >= 0) {
            EXPECT(write(fd, "p1\np1\np2\n", 9) == 9, "write");
            close(fd);
            setenv("PBS_NODEFILE", path, 1);
            EXPECT(rtrun_alloc_from_env(&hosts, &nhosts, &src) == RTM_OK && nhosts == 2 &&
                   src == RTRUN_HOSTS_PBS && hosts[0].slots == 2, "pbs from env");
            rtrun_hosts_free(hosts, nhosts);
            unlink(path);
            EXPECT(rtrun_alloc_from_env(&hosts, &nhosts, &src) == RTM_ERR_INVALID_ARG &&
                   strstr(rtm_last_error(), path) && strstr(rtm_last_error(), "PBS_NODEFILE"),
                   "pbs missing file: %s", rtm_last_error());
        }
    }
    clear_env();

    if (th_failures > 0)
        TH_RETURN();
    printf("test_alloc: all checks passed\n");
    return 0;
}
