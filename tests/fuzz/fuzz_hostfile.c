/*
 * Fuzz target: a hostfile's text (launcher/hostfile.c), as a user hands it
 * to --hostfile. On success every host has a valid name, appears once, and
 * has 0 (not given) to RTRUN_MAX_PROCS slots.
 */
#include "config.h"

#include "launcher/hostfile.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtrun_host_spec_t *hosts = NULL;
    size_t nhosts = 0;

    if (rtrun_hostfile_parse((const char *)data, size, "fuzz.hosts", &hosts, &nhosts) != RTM_OK)
        return 0;
    FZ_CHECK(hosts != NULL && nhosts > 0);
    for (size_t i = 0; i < nhosts; i++) {
        FZ_CHECK(rtrun_host_name_ok(hosts[i].name, strlen(hosts[i].name)));
        FZ_CHECK(hosts[i].slots >= 0 && hosts[i].slots <= RTRUN_MAX_PROCS);
        for (size_t j = 0; j < i; j++)
            FZ_CHECK(strcmp(hosts[i].name, hosts[j].name) != 0);
    }
    rtrun_hosts_free(hosts, nhosts);
    return 0;
}
