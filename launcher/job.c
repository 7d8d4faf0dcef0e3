/*
 * The job map: ranks onto hosts (--map-by, --npernode, slots,
 * oversubscription), local and node ranks per host, and the cores of the
 * ranks on this host. Pure logic: no hwloc, no fork (rtrun_bind_resolve is
 * arithmetic).
 */
#include "config.h"

#include "launcher/job.h"
#include "launcher/bind.h"
#include "launcher/hostfile.h"
#include "common/error.h"
#include "common/shmname.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rtrun_job_sanitize(const char *in, char *out, size_t len)
{
    rtm_name_sanitize(in, out, len);
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

/* Merge opts->hosts (or this host alone) into a list of distinct hosts with
 * their slots; *hosts_p is calloc'd with room for every entry. */
static rtm_status_t merge_hosts(const rtrun_opts_t *opts, const char *hostname, int ncores,
                                rtrun_host_t **hosts_p, int *nhosts_p)
{
    size_t nspecs = opts->nhosts > 0 ? opts->nhosts : 1;
    rtrun_host_list_t seen = {0};
    rtrun_host_t *hosts;
    rtm_status_t status;
    const char *merged;
    int n = 0;

    hosts = calloc(nspecs, sizeof(*hosts));
    if (hosts == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for %zu hosts", nspecs);
    if (opts->nhosts == 0) {
        snprintf(hosts[0].name, sizeof(hosts[0].name), "%s", hostname);
        hosts[0].slots = ncores;
        hosts[0].is_local = 1;
        *hosts_p = hosts;
        *nhosts_p = 1;
        return RTM_OK;
    }
    for (size_t i = 0; i < opts->nhosts; i++) {
        const rtrun_host_spec_t *spec = &opts->hosts[i];
        int is_local, slots, j;

        if (spec->name == NULL || spec->name[0] == '\0' ||
            strlen(spec->name) >= sizeof(hosts[0].name) || spec->slots < 0) {
            rtrun_host_list_free(&seen);
            free(hosts);
            return rtm_error_set(RTM_ERR_INVALID_ARG, "host %zu of the list: bad name or slots",
                                 i);
        }
        is_local = rtrun_job_is_local_host(spec->name, hostname);
        /* a host without a count: as many slots as cores, as Open MPI (this
         * host's cores: remote ones are not known before rtd runs there) */
        slots = spec->slots > 0 ? spec->slots : ncores;
        /* seen's entry i is hosts[i], under its merged name (this host's
         * entries all under `hostname`): one lookup per entry, not a scan */
        merged = is_local ? hostname : spec->name;
        j = (int)rtrun_host_list_find(&seen, merged, strlen(merged));
        if (j < 0) {
            status = rtrun_host_list_add(&seen, merged, strlen(merged), 0, NULL);
            if (status != RTM_OK) {
                rtrun_host_list_free(&seen);
                free(hosts);
                return status;
            }
            snprintf(hosts[n].name, sizeof(hosts[n].name), "%s", merged);
            hosts[n].is_local = is_local;
            j = n++;
        }
        if (slots > RTRUN_MAX_PROCS - hosts[j].slots) {
            rtrun_host_list_free(&seen);
            free(hosts);
            return rtm_error_set(RTM_ERR_INVALID_ARG, "host %s: more than %d slots", spec->name,
                                 RTRUN_MAX_PROCS);
        }
        hosts[j].slots += slots;
    }
    rtrun_host_list_free(&seen);
    *hosts_p = hosts;
    *nhosts_p = n;
    return RTM_OK;
}

/* How many ranks each host gets (counts[i]) and which host each rank runs
 * on (host_of[r]), by --map-by; caps[] is what each host may hold before
 * oversubscribing. */
static void assign_ranks(rtrun_map_by_t map_by, int nprocs, const int *caps, int nhosts,
                         int *counts, int *host_of)
{
    long total = 0;
    int r = 0;

    for (int i = 0; i < nhosts; i++)
        total += caps[i];
    if (map_by == RTRUN_MAP_NODE) {
        int cursor = 0;

        for (r = 0; r < nprocs; r++) {
            int h = -1;

            /* the next host in turn that has room; when all are full
             * (oversubscribed), simply the next host in turn */
            for (int k = 0; k < nhosts && h < 0; k++) {
                int cand = (cursor + k) % nhosts;

                if (counts[cand] < caps[cand])
                    h = cand;
            }
            if (h < 0)
                h = cursor;
            counts[h]++;
            host_of[r] = h;
            cursor = (h + 1) % nhosts;
        }
        return;
    }
    /* slot, core, numa: consecutive ranks fill a host, then the next */
    if (nprocs <= total) {
        int left = nprocs;

        for (int i = 0; i < nhosts; i++) {
            counts[i] = caps[i] < left ? caps[i] : left;
            left -= counts[i];
        }
    } else {
        long extra = nprocs - total;

        for (int i = 0; i < nhosts; i++)
            counts[i] = caps[i] + (int)(extra / nhosts) + (i < extra % nhosts ? 1 : 0);
    }
    for (int i = 0; i < nhosts; i++) {
        for (int k = 0; k < counts[i]; k++)
            host_of[r++] = i;
    }
}

/* --npernode: every host holds that many ranks, within its slots unless
 * oversubscribing; *nprocs_p: the ranks asked for, or all that fit. */
static rtm_status_t caps_per_node(const rtrun_opts_t *opts, const rtrun_host_t *hosts,
                                  int nhosts, int *caps, int *nprocs_p)
{
    long room = (long)opts->npernode * nhosts;
    int nprocs;

    for (int i = 0; i < nhosts; i++) {
        if (opts->npernode > hosts[i].slots && !opts->oversubscribe)
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "--npernode %d: host %s has only %d slot%s; add --oversubscribe to run more ranks than that on it, or lower --npernode",
                                 opts->npernode, hosts[i].name, hosts[i].slots,
                                 hosts[i].slots == 1 ? "" : "s");
        caps[i] = opts->npernode;
    }
    nprocs = opts->nprocs > 0 ? opts->nprocs
                              : (int)(room < RTRUN_MAX_PROCS ? room : RTRUN_MAX_PROCS);
    if (nprocs > room)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "%d ranks requested but --npernode %d on %d host%s places at most %ld; raise --npernode, add hosts, or ask for at most %ld ranks",
                             nprocs, opts->npernode, nhosts, nhosts == 1 ? "" : "s", room, room);
    *nprocs_p = nprocs;
    return RTM_OK;
}

/* Without --npernode: each host holds its slots, the job at most all of
 * them unless oversubscribing; *nprocs_p: the ranks asked for, or one per
 * slot. slots_given: some host had a count (the message says "slots",
 * else "cores"). */
static rtm_status_t caps_by_slots(const rtrun_opts_t *opts, const rtrun_host_t *hosts,
                                  int nhosts, int slots, int slots_given, int *caps,
                                  int *nprocs_p)
{
    int nprocs;

    for (int i = 0; i < nhosts; i++)
        caps[i] = hosts[i].slots;
    nprocs = opts->nprocs > 0 ? opts->nprocs : slots;
    if (nprocs > slots && !opts->oversubscribe) {
        if (nhosts == 1)
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "%d ranks requested but %s has only %d %s; add --oversubscribe to run more ranks than that (they will share cores), use -H %s:%d to declare more slots, or ask for at most %d ranks",
                                 nprocs, hosts[0].name, slots,
                                 slots_given ? (slots == 1 ? "slot" : "slots")
                                             : (slots == 1 ? "core" : "cores"),
                                 hosts[0].is_local ? "localhost" : hosts[0].name, nprocs,
                                 slots);
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "%d ranks requested but the %d hosts have only %d slots in all; add --oversubscribe to run more ranks than that (they will share cores), declare more slots, or ask for at most %d ranks",
                             nprocs, nhosts, slots, slots);
    }
    *nprocs_p = nprocs;
    return RTM_OK;
}

/* Drop the hosts without ranks, keeping the order of the others;
 * new_id[i]: host i's index after, -1 if dropped. Returns the hosts kept
 * and sets job->local_host. */
static int compact_hosts(rtrun_host_t *hosts, int nhosts, const int *counts, int *new_id,
                         rtrun_job_t *job)
{
    int kept = 0;

    job->local_host = -1;
    for (int i = 0; i < nhosts; i++) {
        if (counts[i] == 0) {
            new_id[i] = -1;
            continue;
        }
        new_id[i] = kept;
        hosts[kept] = hosts[i];
        hosts[kept].nranks = counts[i];
        if (hosts[kept].is_local)
            job->local_host = kept;
        kept++;
    }
    return kept;
}

/* Each rank's host, local and node rank, and core on this host. */
static void place_ranks(rtrun_job_t *job, const int *host_of, const int *new_id, int *next_local)
{
    for (int r = 0; r < job->nprocs; r++) {
        rtrun_rank_t *rk = &job->ranks[r];
        int h = new_id[host_of[r]];

        rk->rank = r;
        rk->node_id = h;
        rk->local_rank = next_local[h]++;
        rk->node_rank = rk->local_rank; /* one job per host */
        rk->core = (h == job->local_host && job->bound) ? rk->local_rank % job->ncores : -1;
        rk->state = RTRUN_RANK_NOT_STARTED;
        rk->pid = -1;
    }
}

/* The scratch tables of rtrun_job_map, one entry per host (host_of: per
 * rank, allocated once nprocs is known). */
typedef struct map_tables {
    int *caps, *counts, *new_id, *next_local, *host_of;
} map_tables_t;

static void map_tables_free(map_tables_t *t)
{
    free(t->host_of);
    free(t->next_local);
    free(t->new_id);
    free(t->counts);
    free(t->caps);
}

static rtm_status_t map_check_args(const rtrun_opts_t *opts, const char *hostname, int ncores,
                                   rtrun_job_t **job_p)
{
    if (opts == NULL || hostname == NULL || job_p == NULL || ncores < 1)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_job_map: bad argument");
    if (opts->nprocs < 0 || opts->nprocs > RTRUN_MAX_PROCS || opts->npernode < 0 ||
        opts->npernode > RTRUN_MAX_PROCS)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "%d ranks: expected 1 to %d", opts->nprocs,
                             RTRUN_MAX_PROCS);
    if (opts->nhosts > 0 && opts->hosts == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_job_map: %zu hosts but no list",
                             opts->nhosts);
    return RTM_OK;
}

/* The job from the assignment; takes hosts on success. */
static rtm_status_t build_job(const rtrun_opts_t *opts, const char *hostname, int ncores,
                              rtrun_host_t *hosts, int nhosts, int slots, int nprocs,
                              map_tables_t *t, rtrun_job_t **job_p)
{
    rtrun_job_t *job = calloc(1, sizeof(*job));

    if (job == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for the job map");
    job->ranks = calloc((size_t)nprocs, sizeof(*job->ranks));
    if (job->ranks == NULL) {
        free(job);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for %d ranks", nprocs);
    }
    job->nhosts = compact_hosts(hosts, nhosts, t->counts, t->new_id, job);
    job->hosts = hosts;
    snprintf(job->hostname, sizeof(job->hostname), "%s", hostname);
    job->nprocs = nprocs;
    job->slots = slots;
    job->ncores = ncores;
    job->oversubscribed = nprocs > slots;
    job->map_by = opts->map_by;
    job->bind = job->local_host < 0 ? RTRUN_BIND_NONE /* nothing to bind here */
                                    : rtrun_bind_resolve(opts->bind, opts->map_by,
                                                         hosts[job->local_host].nranks, ncores);
    job->bound = job->bind != RTRUN_BIND_NONE;
    place_ranks(job, t->host_of, t->new_id, t->next_local);
    *job_p = job;
    return RTM_OK;
}

rtm_status_t rtrun_job_map(const rtrun_opts_t *opts, const char *hostname, int ncores,
                           rtrun_job_t **job_p)
{
    rtrun_host_t *hosts = NULL;
    map_tables_t t = {0};
    int nhosts = 0, nprocs = 0, slots = 0, slots_given = 0;
    rtm_status_t status;

    status = map_check_args(opts, hostname, ncores, job_p);
    if (status != RTM_OK)
        return status;
    status = merge_hosts(opts, hostname, ncores, &hosts, &nhosts);
    if (status != RTM_OK)
        return status;
    for (size_t i = 0; i < opts->nhosts; i++)
        slots_given |= opts->hosts[i].slots > 0;
    for (int i = 0; i < nhosts; i++)
        slots += hosts[i].slots;
    if (slots > RTRUN_MAX_PROCS)
        slots = RTRUN_MAX_PROCS;

    t.caps = calloc((size_t)nhosts, sizeof(*t.caps));
    t.counts = calloc((size_t)nhosts, sizeof(*t.counts));
    t.new_id = calloc((size_t)nhosts, sizeof(*t.new_id));
    t.next_local = calloc((size_t)nhosts, sizeof(*t.next_local));
    if (t.caps == NULL || t.counts == NULL || t.new_id == NULL || t.next_local == NULL) {
        status = rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for the job map");
        goto err_free_tmp;
    }
    if (opts->npernode > 0)
        status = caps_per_node(opts, hosts, nhosts, t.caps, &nprocs);
    else
        status = caps_by_slots(opts, hosts, nhosts, slots, slots_given, t.caps, &nprocs);
    if (status != RTM_OK)
        goto err_free_tmp;
    t.host_of = calloc((size_t)nprocs, sizeof(*t.host_of));
    if (t.host_of == NULL) {
        status = rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for %d ranks", nprocs);
        goto err_free_tmp;
    }
    assign_ranks(opts->map_by, nprocs, t.caps, nhosts, t.counts, t.host_of);
    status = build_job(opts, hostname, ncores, hosts, nhosts, slots, nprocs, &t, job_p);
    if (status != RTM_OK)
        goto err_free_tmp;
    map_tables_free(&t);
    return RTM_OK;

err_free_tmp:
    map_tables_free(&t);
    free(hosts);
    return status;
}

void rtrun_job_free(rtrun_job_t *job)
{
    if (job == NULL)
        return;
    free(job->ranks);
    free(job->hosts);
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

int rtrun_job_local_finalized(const rtrun_job_t *job)
{
    if (job == NULL)
        return 0;
    for (int r = 0; r < job->nprocs; r++) {
        const rtrun_rank_t *rk = &job->ranks[r];

        if (job->hosts != NULL && job->local_host >= 0 && rk->node_id != job->local_host)
            continue;   /* served by another host's daemon */
        if (!rk->finalized)
            return 0;
    }
    return 1;
}
