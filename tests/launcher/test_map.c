/* Unit test of the job map: slots, oversubscription, binding, hosts, and
 * multi-host maps under every --map-by, --npernode and --oversubscribe. */
#include "config.h"

#include "launcher/cleanup.h"
#include "launcher/job.h"
#include "launcher/bind.h"
#include "tests/harness.h"

#include <stdio.h>
#include <string.h>

static rtrun_opts_t opts_for(int nprocs, rtrun_host_spec_t *hosts, size_t nhosts, int over,
                             rtrun_bind_t bind)
{
    rtrun_opts_t o;

    memset(&o, 0, sizeof(o));
    o.nprocs = nprocs;
    o.hosts = hosts;
    o.nhosts = nhosts;
    o.oversubscribe = over;
    o.bind = bind;
    return o;
}

/* The map as "host=r,r host=r": which ranks each host got, in node_id
 * order; also checks node ids, local ranks and nranks agree. */
static const char *map_str(const rtrun_job_t *job)
{
    static char buf[1024];
    size_t used = 0;

    buf[0] = '\0';
    for (int h = 0; h < job->nhosts; h++) {
        int local = 0;

        used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s=", h ? " " : "",
                                 job->hosts[h].name);
        for (int r = 0; r < job->nprocs; r++) {
            if (job->ranks[r].node_id != h)
                continue;
            if (job->ranks[r].local_rank != local || job->ranks[r].node_rank != local)
                return "bad local rank";
            used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%d", local ? "," : "",
                                     r);
            local++;
        }
        if (local != job->hosts[h].nranks || local == 0)
            return "bad nranks";
    }
    return buf;
}

#define EXPECT_MAP(_job, _want) \
    EXPECT(strcmp(map_str(_job), _want) == 0, "map \"%s\", expected \"%s\"", map_str(_job), \
           _want)

static void test_multi_host(void)
{
    rtrun_job_t *job = NULL;
    rtrun_opts_t o;
    rtrun_host_spec_t ab[2] = {{"a", 2}, {"b", 2}};
    rtrun_host_spec_t uneven[2] = {{"a", 1}, {"b", 3}};
    rtrun_host_spec_t abc[3] = {{"a", 2}, {"b", 2}, {"c", 2}};
    rtrun_host_spec_t one_each[2] = {{"a", 1}, {"b", 1}};
    rtrun_host_spec_t mixed[3] = {{"localhost", 2}, {"r", 2}, {"node07", 1}};
    rtrun_host_spec_t bare[2] = {{"r1", 0}, {"r2", 0}};
    rtrun_host_spec_t repeated[3] = {{"r", 1}, {"s", 1}, {"r", 2}};
    rtrun_host_spec_t a4b4[2] = {{"a", 4}, {"b", 4}};

    /* --map-by slot (default): fill a, then b; remote ranks unbound */
    o = opts_for(4, ab, 2, 0, RTRUN_BIND_DEFAULT);
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK, "slot: %s", rtm_last_error());
    EXPECT_MAP(job, "a=0,1 b=2,3");
    EXPECT(job->nhosts == 2 && job->local_host == -1 && job->slots == 4 &&
           !job->oversubscribed && job->ranks[0].core == -1 && job->ranks[3].node_id == 1,
           "slot fields");
    rtrun_job_free(job);
    /* core and numa place like slot across hosts */
    o.map_by = RTRUN_MAP_CORE;
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK, "core");
    EXPECT_MAP(job, "a=0,1 b=2,3");
    rtrun_job_free(job);
    o.map_by = RTRUN_MAP_NUMA;
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK, "numa");
    EXPECT_MAP(job, "a=0,1 b=2,3");
    rtrun_job_free(job);

    /* --map-by node: round robin */
    o = opts_for(4, ab, 2, 0, RTRUN_BIND_DEFAULT);
    o.map_by = RTRUN_MAP_NODE;
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK, "node");
    EXPECT_MAP(job, "a=0,2 b=1,3");
    rtrun_job_free(job);
    /* ... skipping full hosts */
    o = opts_for(4, uneven, 2, 0, RTRUN_BIND_DEFAULT);
    o.map_by = RTRUN_MAP_NODE;
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK, "node uneven");
    EXPECT_MAP(job, "a=0 b=1,2,3");
    rtrun_job_free(job);

    /* hosts left without a rank are dropped */
    o = opts_for(3, abc, 3, 0, RTRUN_BIND_DEFAULT);
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK, "3 of 6 slots");
    EXPECT_MAP(job, "a=0,1 b=2");
    EXPECT(job->nhosts == 2, "c dropped");
    rtrun_job_free(job);
    o.map_by = RTRUN_MAP_NODE;
    o.nprocs = 2;
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK, "node, 2 ranks on 3 hosts");
    EXPECT_MAP(job, "a=0 b=1");
    rtrun_job_free(job);

    /* this host under two names merges, named by its hostname, bound */
    o = opts_for(5, mixed, 3, 0, RTRUN_BIND_DEFAULT);
    EXPECT(rtrun_job_map(&o, "node07", 4, &job) == RTM_OK, "local and remote: %s",
           rtm_last_error());
    EXPECT_MAP(job, "node07=0,1,2 r=3,4");
    EXPECT(job->local_host == 0 && job->hosts[0].is_local && job->hosts[0].slots == 3 &&
           !job->hosts[1].is_local && job->bound && job->bind == RTRUN_BIND_CORE,
           "local host fields");
    EXPECT(job->ranks[0].core == 0 && job->ranks[2].core == 2 && job->ranks[3].core == -1 &&
           job->ranks[4].core == -1, "local ranks bound, remote not");
    rtrun_job_free(job);
    /* the local host holding no rank: no local host in the job */
    o = opts_for(2, mixed + 1, 1, 0, RTRUN_BIND_DEFAULT);
    EXPECT(rtrun_job_map(&o, "node07", 4, &job) == RTM_OK && job->local_host == -1 &&
           !job->bound, "remote only");
    rtrun_job_free(job);

    /* oversubscription across hosts */
    o = opts_for(5, one_each, 2, 0, RTRUN_BIND_DEFAULT);
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_ERR_INVALID_ARG &&
           strstr(rtm_last_error(), "2 hosts have only 2 slots") &&
           strstr(rtm_last_error(), "--oversubscribe"), "refused: %s", rtm_last_error());
    o.oversubscribe = 1;
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK, "oversubscribed slot");
    EXPECT_MAP(job, "a=0,1,2 b=3,4");
    EXPECT(job->oversubscribed, "flagged");
    rtrun_job_free(job);
    o.map_by = RTRUN_MAP_NODE;
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK, "oversubscribed node");
    EXPECT_MAP(job, "a=0,2,4 b=1,3");
    rtrun_job_free(job);
    o = opts_for(6, uneven, 2, 1, RTRUN_BIND_DEFAULT);
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK, "uneven oversubscribed");
    EXPECT_MAP(job, "a=0,1 b=2,3,4,5");
    rtrun_job_free(job);

    /* -n left out: one rank per slot; bare hosts have this host's cores */
    o = opts_for(0, uneven, 2, 0, RTRUN_BIND_DEFAULT);
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK && job->nprocs == 4, "n from slots");
    rtrun_job_free(job);
    o = opts_for(0, bare, 2, 0, RTRUN_BIND_DEFAULT);
    EXPECT(rtrun_job_map(&o, "node07", 3, &job) == RTM_OK && job->nprocs == 6, "bare hosts");
    EXPECT_MAP(job, "r1=0,1,2 r2=3,4,5");
    rtrun_job_free(job);
    /* a repeated name: slots add up, first position kept */
    o = opts_for(4, repeated, 3, 0, RTRUN_BIND_DEFAULT);
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK, "repeated");
    EXPECT_MAP(job, "r=0,1,2 s=3");
    rtrun_job_free(job);

    /* --npernode */
    o = opts_for(0, a4b4, 2, 0, RTRUN_BIND_DEFAULT);
    o.npernode = 1;
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK, "npernode 1");
    EXPECT_MAP(job, "a=0 b=1");
    rtrun_job_free(job);
    o.npernode = 2;
    o.nprocs = 3;
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK, "npernode 2, 3 ranks");
    EXPECT_MAP(job, "a=0,1 b=2");
    rtrun_job_free(job);
    o.map_by = RTRUN_MAP_NODE;
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK, "npernode 2 by node");
    EXPECT_MAP(job, "a=0,2 b=1");
    rtrun_job_free(job);
    o.nprocs = 5;
    o.oversubscribe = 1;
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_ERR_INVALID_ARG &&
           strstr(rtm_last_error(), "--npernode 2") && strstr(rtm_last_error(), "at most 4"),
           "npernode is a hard limit: %s", rtm_last_error());
    o = opts_for(0, ab, 2, 0, RTRUN_BIND_DEFAULT);
    o.npernode = 3;
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_ERR_INVALID_ARG &&
           strstr(rtm_last_error(), "host a has only 2 slots") &&
           strstr(rtm_last_error(), "--oversubscribe"), "npernode over slots: %s",
           rtm_last_error());
    o.oversubscribe = 1;
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK && job->nprocs == 6, "allowed");
    EXPECT_MAP(job, "a=0,1,2 b=3,4,5");
    rtrun_job_free(job);

    /* binding policy on this host */
    o = opts_for(2, NULL, 0, 0, RTRUN_BIND_DEFAULT);
    o.map_by = RTRUN_MAP_NUMA;
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK && job->bind == RTRUN_BIND_NUMA &&
           job->bound && job->map_by == RTRUN_MAP_NUMA, "map-by numa binds to numa");
    rtrun_job_free(job);
    EXPECT(rtrun_bind_resolve(RTRUN_BIND_DEFAULT, RTRUN_MAP_SLOT, 2, 2) == RTRUN_BIND_CORE &&
           rtrun_bind_resolve(RTRUN_BIND_DEFAULT, RTRUN_MAP_SLOT, 3, 2) == RTRUN_BIND_NONE &&
           rtrun_bind_resolve(RTRUN_BIND_DEFAULT, RTRUN_MAP_NUMA, 1, 2) == RTRUN_BIND_NUMA &&
           rtrun_bind_resolve(RTRUN_BIND_CORE, RTRUN_MAP_SLOT, 9, 2) == RTRUN_BIND_CORE &&
           rtrun_bind_resolve(RTRUN_BIND_NONE, RTRUN_MAP_SLOT, 1, 2) == RTRUN_BIND_NONE,
           "bind resolve");

    /* bad arguments */
    o = opts_for(2, ab, 2, 0, RTRUN_BIND_DEFAULT);
    o.hosts = NULL;
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_ERR_INVALID_ARG, "hosts NULL");
    o = opts_for(-1, NULL, 0, 0, RTRUN_BIND_DEFAULT);
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_ERR_INVALID_ARG, "negative nprocs");
}

int main(void)
{
    rtrun_job_t *job = NULL;
    rtrun_opts_t o;
    char buf[64];

    th_name = "test_map";
    /* ranks <= cores: bound by default, one core each */
    o = opts_for(4, NULL, 0, 0, RTRUN_BIND_DEFAULT);
    EXPECT(rtrun_job_map(&o, "node07", 8, &job) == RTM_OK, "4 ranks on 8 cores");
    EXPECT(job->bound && !job->oversubscribed && job->slots == 8, "bound, not oversubscribed");
    for (int r = 0; r < 4; r++)
        EXPECT(job->ranks[r].core == r && job->ranks[r].local_rank == r &&
               job->ranks[r].node_rank == r && job->ranks[r].node_id == 0 &&
               job->ranks[r].state == RTRUN_RANK_NOT_STARTED, "rank %d map", r);
    rtrun_job_free(job);

    /* more ranks than cores: refused with how to proceed */
    o = opts_for(5, NULL, 0, 0, RTRUN_BIND_DEFAULT);
    job = NULL;
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_ERR_INVALID_ARG && job == NULL,
           "5 ranks on 2 cores refused");
    EXPECT(strstr(rtm_last_error(), "--oversubscribe") && strstr(rtm_last_error(), "2 cores"),
           "refusal says how to proceed: %s", rtm_last_error());

    /* ... allowed with --oversubscribe, unbound by default */
    o = opts_for(5, NULL, 0, 1, RTRUN_BIND_DEFAULT);
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK, "oversubscribed");
    EXPECT(job->oversubscribed && !job->bound && job->ranks[4].core == -1, "unbound");
    rtrun_job_free(job);

    /* ... --bind-to core then binds round-robin */
    o = opts_for(5, NULL, 0, 1, RTRUN_BIND_CORE);
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK, "oversubscribed, bound");
    EXPECT(job->bound && job->ranks[0].core == 0 && job->ranks[1].core == 1 &&
           job->ranks[2].core == 0 && job->ranks[4].core == 0, "round-robin cores");
    rtrun_job_free(job);

    /* --bind-to none with few ranks */
    o = opts_for(1, NULL, 0, 0, RTRUN_BIND_NONE);
    EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK && !job->bound &&
           job->ranks[0].core == -1, "bind none");
    rtrun_job_free(job);

    /* slots from --host replace the core count */
    {
        rtrun_host_spec_t h[2] = {{"localhost", 3}, {"node07", 1}};

        o = opts_for(4, h, 2, 0, RTRUN_BIND_DEFAULT);
        EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK, "4 ranks in 3+1 slots");
        EXPECT(job->slots == 4 && !job->oversubscribed && !job->bound,
               "slots 4, not bound (more ranks than cores)");
        rtrun_job_free(job);
        o = opts_for(5, h, 2, 0, RTRUN_BIND_DEFAULT);
        EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_ERR_INVALID_ARG &&
               strstr(rtm_last_error(), "4 slots"), "5 ranks in 4 slots: %s", rtm_last_error());
    }

    /* other hosts are mapped (rtd runs them) */
    {
        rtrun_host_spec_t h[1] = {{"node12", 2}};

        o = opts_for(2, h, 1, 0, RTRUN_BIND_DEFAULT);
        EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_OK && job->nhosts == 1 &&
               !job->hosts[0].is_local && job->local_host == -1 &&
               strcmp(job->hosts[0].name, "node12") == 0 && job->ranks[1].core == -1,
               "remote host mapped: %s", rtm_last_error());
        rtrun_job_free(job);
    }
    test_multi_host();
    EXPECT(rtrun_job_is_local_host("localhost", "n1.cluster"), "localhost");
    EXPECT(rtrun_job_is_local_host("n1", "n1.cluster"), "short name");
    EXPECT(rtrun_job_is_local_host("n1.cluster", "n1"), "fqdn of short hostname");
    EXPECT(!rtrun_job_is_local_host("n11", "n1.cluster"), "n11 is not n1");
    EXPECT(!rtrun_job_is_local_host("n", "n1"), "prefix is not the host");

    /* nspace and shm names */
    rtrun_job_make_nspace("my host/x", 1234, buf, sizeof(buf));
    EXPECT(strcmp(buf, "rtm.my_host_x.1234") == 0, "nspace %s", buf);
    rtrun_job_sanitize("a:b.c-d_e", buf, sizeof(buf));
    EXPECT(strcmp(buf, "a_b.c-d_e") == 0, "sanitize %s", buf);

    /* which /dev/shm names are the job's */
    EXPECT(rtrun_cleanup_shm_name_matches("rtm-rtm.n1.12-0", "rtm.n1.12"), "segment of node 0");
    EXPECT(rtrun_cleanup_shm_name_matches("rtm-rtm.n1.12", "rtm.n1.12"), "exact name");
    EXPECT(!rtrun_cleanup_shm_name_matches("rtm-rtm.n1.123-0", "rtm.n1.12"),
           "another job whose pid extends ours");
    EXPECT(!rtrun_cleanup_shm_name_matches("rtm.n1.12-0", "rtm.n1.12"), "no rtm- prefix");
    EXPECT(rtrun_cleanup_shm_name_matches("rtm-rtm.a_b.7-1", "rtm.a:b.7"), "sanitized nspace");

    /* running list for --timeout */
    o = opts_for(4, NULL, 0, 0, RTRUN_BIND_DEFAULT);
    EXPECT(rtrun_job_map(&o, "node07", 4, &job) == RTM_OK, "map for list");
    job->ranks[0].state = RTRUN_RANK_RUNNING;
    job->ranks[2].state = RTRUN_RANK_RUNNING;
    job->ranks[3].state = RTRUN_RANK_RUNNING;
    EXPECT(rtrun_job_running_list(job, buf, sizeof(buf)) == 3 && strcmp(buf, "0, 2, 3") == 0,
           "running list \"%s\"", buf);
    rtrun_job_free(job);

    if (th_failures > 0)
        TH_RETURN();
    printf("test_map: all checks passed\n");
    return 0;
}
