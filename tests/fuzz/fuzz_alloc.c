/*
 * Fuzz target: what a scheduler hands rtrun (launcher/alloc.c), as the
 * parsers see the variables' values and the nodefile's text. The first
 * byte picks the parser:
 *   0  a Slurm hostlist (SLURM_JOB_NODELIST)
 *   1  per-node counts (SLURM_TASKS_PER_NODE) for 1 + the second byte hosts
 *   2  a Slurm allocation: hostlist NUL per-node counts (absent: not given)
 *   3  a PBS nodefile
 * Every name returned is a valid host name, at most RTRUN_MAX_PROCS of
 * them; every count is 1..RTRUN_MAX_PROCS.
 */
#include "config.h"

#include "launcher/alloc.h"
#include "launcher/hostfile.h"
#include "tests/fuzz/fuzz.h"

static void check_hosts(rtrun_host_spec_t *hosts, size_t nhosts)
{
    FZ_CHECK(nhosts > 0 && nhosts <= RTRUN_MAX_PROCS);
    for (size_t i = 0; i < nhosts; i++) {
        FZ_CHECK(rtrun_host_name_ok(hosts[i].name, strlen(hosts[i].name)));
        FZ_CHECK(hosts[i].slots >= 0 && hosts[i].slots <= RTRUN_MAX_PROCS);
    }
    rtrun_hosts_free(hosts, nhosts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in_t in = fz_in(data, size);
    rtrun_host_spec_t *hosts = NULL;
    size_t nhosts = 0;
    unsigned what = fz_u8(&in) % 4;
    char *a = NULL, *b = NULL;

    switch (what) {
    case 0: {
        char **names = NULL;
        size_t count = 0;

        a = fz_str(&in);
        if (a != NULL && rtrun_alloc_expand_hostlist(a, &names, &count) == RTM_OK) {
            FZ_CHECK(count > 0 && count <= RTRUN_MAX_PROCS);
            for (size_t i = 0; i < count; i++)
                FZ_CHECK(rtrun_host_name_ok(names[i], strlen(names[i])));
            rtrun_alloc_names_free(names, count);
        }
        break;
    }
    case 1: {
        size_t n = 1 + fz_u8(&in);
        int *counts = NULL;

        a = fz_str(&in);
        if (a != NULL &&
            rtrun_alloc_parse_per_node(a, "SLURM_TASKS_PER_NODE", n, &counts) == RTM_OK) {
            for (size_t i = 0; i < n; i++)
                FZ_CHECK(counts[i] >= 1 && counts[i] <= RTRUN_MAX_PROCS);
            free(counts);
        }
        break;
    }
    case 2:
        a = fz_str(&in);
        b = in.left > 0 ? fz_str(&in) : NULL;
        if (a != NULL && rtrun_alloc_slurm(a, b, "SLURM_TASKS_PER_NODE", &hosts, &nhosts) ==
                             RTM_OK)
            check_hosts(hosts, nhosts);
        break;
    default:
        if (rtrun_alloc_pbs((const char *)in.p, in.left, "fuzz.nodefile", &hosts, &nhosts) ==
            RTM_OK)
            check_hosts(hosts, nhosts);
        break;
    }
    free(a);
    free(b);
    return 0;
}
