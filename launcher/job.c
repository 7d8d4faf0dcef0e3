/*
 * The job map for a single host. With several hosts (rtd), the same map
 * gains one node_id per host; local and node ranks already count per host.
 */
#include "config.h"

#include "launcher/job.h"
#include "common/error.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nspace_char_ok(char c)
{
    return isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-';
}

void rtrun_job_sanitize(const char *in, char *out, size_t len)
{
    size_t i;

    if (len == 0)
        return;
    for (i = 0; in[i] != '\0' && i + 1 < len; i++)
        out[i] = nspace_char_ok(in[i]) ? in[i] : '_';
    out[i] = '\0';
}

void rtrun_job_make_nspace(const char *hostname, pid_t pid, char *buf, size_t len)
{
    char host[64];

    /* The host part is cut so the name stays short: it ends up inside shm
     * and socket names, which have their own length limits. */
    rtrun_job_sanitize(hostname, host, sizeof(host));
    snprintf(buf, len, "rtm.%s.%d", host, (int)pid);
}

int rtrun_job_is_local_host(const char *name, const char *hostname)
{
    size_t short_len = strcspn(hostname, ".");

    if (strcmp(name, "localhost") == 0 || strcmp(name, "127.0.0.1") == 0 ||
        strcmp(name, "::1") == 0 || strcmp(name, hostname) == 0)
        return 1;
    /* "node07" for "node07.cluster" and the reverse */
    if (strlen(name) == short_len && strncmp(name, hostname, short_len) == 0)
        return 1;
    if (strncmp(name, hostname, strlen(hostname)) == 0 && name[strlen(hostname)] == '.')
        return 1;
    return 0;
}

rtm_status_t rtrun_job_map(const rtrun_opts_t *opts, const char *hostname, int ncores,
                           rtrun_job_t **job_p)
{
    rtrun_job_t *job;
    int slots = 0, slots_given = 0;

    if (opts == NULL || hostname == NULL || job_p == NULL || ncores < 1)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_job_map: bad argument");
    if (opts->nprocs < 1 || opts->nprocs > RTRUN_MAX_PROCS)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "%d ranks: expected 1 to %d", opts->nprocs,
                             RTRUN_MAX_PROCS);

    for (size_t i = 0; i < opts->nhosts; i++) {
        if (!rtrun_job_is_local_host(opts->hosts[i].name, hostname))
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "--host %s: \"%s\" is not this host (%s); rtrun runs jobs on this host only for now (running on several hosts comes in a later version); use -H localhost:SLOTS",
                                 opts->hosts[i].name, opts->hosts[i].name, hostname);
        if (opts->hosts[i].slots > 0) {
            slots += opts->hosts[i].slots;
            slots_given = 1;
        }
    }
    if (!slots_given)
        slots = ncores;

    if (opts->nprocs > slots && !opts->oversubscribe)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "%d ranks requested but %s has only %d %s; add --oversubscribe to run more ranks than that (they will share cores), use -H localhost:%d to declare more slots, or ask for at most %d ranks",
                             opts->nprocs, hostname, slots,
                             slots_given ? (slots == 1 ? "slot" : "slots")
                                         : (slots == 1 ? "core" : "cores"),
                             opts->nprocs, slots);

    job = calloc(1, sizeof(*job));
    if (job == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for the job map");
    job->ranks = calloc((size_t)opts->nprocs, sizeof(*job->ranks));
    if (job->ranks == NULL) {
        free(job);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for %d ranks", opts->nprocs);
    }
    snprintf(job->hostname, sizeof(job->hostname), "%s", hostname);
    job->nprocs = opts->nprocs;
    job->slots = slots;
    job->ncores = ncores;
    job->oversubscribed = opts->nprocs > slots;
    switch (opts->bind) {
    case RTRUN_BIND_CORE:
    case RTRUN_BIND_NUMA:
        job->bound = 1;
        break;
    case RTRUN_BIND_NONE:
        job->bound = 0;
        break;
    case RTRUN_BIND_DEFAULT:
        /* Binding more ranks than cores would stack ranks on some cores
         * while the scheduler could spread them; let it. */
        job->bound = opts->nprocs <= ncores;
        break;
    }
    for (int r = 0; r < job->nprocs; r++) {
        rtrun_rank_t *rk = &job->ranks[r];

        rk->rank = r;
        rk->local_rank = r;
        rk->node_rank = r;
        rk->node_id = 0;
        rk->core = job->bound ? r % ncores : -1;
        rk->state = RTRUN_RANK_NOT_STARTED;
        rk->pid = -1;
    }
    *job_p = job;
    return RTM_OK;
}

void rtrun_job_free(rtrun_job_t *job)
{
    if (job == NULL)
        return;
    free(job->ranks);
    free(job);
}

int rtrun_job_running_list(const rtrun_job_t *job, char *buf, size_t len)
{
    size_t used = 0;
    int count = 0;

    if (len > 0)
        buf[0] = '\0';
    for (int r = 0; r < job->nprocs; r++) {
        int n;

        if (job->ranks[r].state != RTRUN_RANK_RUNNING)
            continue;
        count++;
        if (used >= len)
            continue;
        n = snprintf(buf + used, len - used, "%s%d", count > 1 ? ", " : "", r);
        if (n < 0 || (size_t)n >= len - used) {
            /* keep the list readable when it is cut */
            if (len >= 5)
                strcpy(buf + len - 5, "...");
            used = len;
        } else {
            used += (size_t)n;
        }
    }
    return count;
}

rtrun_rank_t *rtrun_job_find_pid(rtrun_job_t *job, pid_t pid)
{
    for (int r = 0; r < job->nprocs; r++) {
        if (job->ranks[r].pid == pid && job->ranks[r].state == RTRUN_RANK_RUNNING)
            return &job->ranks[r];
    }
    return NULL;
}
