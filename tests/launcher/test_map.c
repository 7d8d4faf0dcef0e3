/* Unit test of the job map: slots, oversubscription, binding, hosts. */
#include "config.h"

#include "launcher/cleanup.h"
#include "launcher/job.h"

#include <stdio.h>
#include <string.h>

static int failures;

#define EXPECT(_cond, ...) \
    do { \
        if (!(_cond)) { \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__); \
            fprintf(stderr, "\n"); \
            failures++; \
        } \
    } while (0)

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

int main(void)
{
    rtrun_job_t *job = NULL;
    rtrun_opts_t o;
    char buf[64];

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

    /* other hosts: a clear "later" error */
    {
        rtrun_host_spec_t h[1] = {{"node12", 2}};

        o = opts_for(2, h, 1, 0, RTRUN_BIND_DEFAULT);
        EXPECT(rtrun_job_map(&o, "node07", 2, &job) == RTM_ERR_INVALID_ARG &&
               strstr(rtm_last_error(), "node12") && strstr(rtm_last_error(), "later"),
               "remote host refused: %s", rtm_last_error());
    }
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

    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_map: all checks passed\n");
    return 0;
}
