/*
 * The job description (see rtd_jobdesc.h): packing and unpacking.
 */
#include "config.h"

#include "launcher/rtd_jobdesc.h"
#include "common/error.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pack_buf {
    char  *data;
    size_t len, cap;
    int    failed;
} pack_buf_t;

static void pack_bytes(pack_buf_t *b, const void *p, size_t len)
{
    if (b->failed)
        return;
    if (b->cap - b->len < len) {
        size_t cap = b->cap ? b->cap : 1024;
        char *grown;

        while (cap - b->len < len)
            cap *= 2;
        grown = realloc(b->data, cap);
        if (grown == NULL) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, len);
    b->len += len;
}

static void pack_int(pack_buf_t *b, int v)
{
    uint32_t n = htonl((uint32_t)v);

    pack_bytes(b, &n, 4);
}

static void pack_str(pack_buf_t *b, const char *s)
{
    size_t len = s ? strlen(s) : 0;

    pack_int(b, s ? (int)len : -1);
    if (s)
        pack_bytes(b, s, len);
}

typedef struct unpack_buf {
    const char *data;
    size_t      len, off;
    int         failed;
} unpack_buf_t;

static int unpack_int(unpack_buf_t *b)
{
    uint32_t n;

    if (b->failed || b->len - b->off < 4) {
        b->failed = 1;
        return 0;
    }
    memcpy(&n, b->data + b->off, 4);
    b->off += 4;
    return (int)ntohl(n);
}

/* malloc'd string, NULL for a NULL one or on failure (then b->failed) */
static char *unpack_str(unpack_buf_t *b)
{
    int len = unpack_int(b);
    char *s;

    if (b->failed || len < 0)
        return NULL;
    if ((size_t)len > b->len - b->off) {
        b->failed = 1;
        return NULL;
    }
    s = malloc((size_t)len + 1);
    if (s == NULL) {
        b->failed = 1;
        return NULL;
    }
    memcpy(s, b->data + b->off, (size_t)len);
    s[len] = '\0';
    b->off += (size_t)len;
    return s;
}

#define JOBDESC_MAGIC 0x72746431 /* "rtd1" */

rtm_status_t rtd_jobdesc_pack(const rtd_jobdesc_t *d, char **buf_p, size_t *len_p)
{
    pack_buf_t b = {0};
    const rtrun_job_t *job;

    if (d == NULL || d->job == NULL || d->job->hosts == NULL || buf_p == NULL || len_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtd_jobdesc_pack: bad argument");
    job = d->job;
    pack_int(&b, JOBDESC_MAGIC);
    pack_str(&b, job->nspace);
    pack_int(&b, job->nprocs);
    pack_int(&b, job->nhosts);
    pack_int(&b, d->root_host);
    pack_int(&b, d->fanout);
    pack_int(&b, d->bind);
    pack_int(&b, d->map_by);
    pack_int(&b, d->report_bindings);
    pack_int(&b, job->oversubscribed);
    pack_str(&b, d->agent);
    pack_str(&b, d->rtd_path);
    pack_str(&b, d->cwd);
    for (int h = 0; h < job->nhosts; h++) {
        pack_str(&b, job->hosts[h].name);
        pack_int(&b, job->hosts[h].slots);
        pack_int(&b, job->hosts[h].nranks);
    }
    for (int r = 0; r < job->nprocs; r++) {
        pack_int(&b, job->ranks[r].node_id);
        pack_int(&b, job->ranks[r].local_rank);
        pack_int(&b, job->ranks[r].node_rank);
    }
    pack_int(&b, d->prog_argc);
    for (int i = 0; i < d->prog_argc; i++)
        pack_str(&b, d->prog_argv[i]);
    pack_int(&b, (int)d->nenv);
    for (size_t i = 0; i < d->nenv; i++)
        pack_str(&b, d->env[i]);
    if (b.failed) {
        free(b.data);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory packing the job description");
    }
    *buf_p = b.data;
    *len_p = b.len;
    return RTM_OK;
}

rtrun_job_t *rtd_job_alloc(int nprocs, int nhosts)
{
    rtrun_job_t *job = calloc(1, sizeof(*job));

    if (job == NULL)
        return NULL;
    job->ranks = calloc((size_t)(nprocs > 0 ? nprocs : 1), sizeof(*job->ranks));
    job->hosts = calloc((size_t)(nhosts > 0 ? nhosts : 1), sizeof(*job->hosts));
    if (job->ranks == NULL || job->hosts == NULL) {
        rtd_job_free(job);
        return NULL;
    }
    job->nprocs = nprocs;
    job->nhosts = nhosts;
    for (int r = 0; r < nprocs; r++) {
        job->ranks[r].rank = r;
        job->ranks[r].pid = -1;
        job->ranks[r].core = -1;
        job->ranks[r].state = RTRUN_RANK_NOT_STARTED;
    }
    return job;
}

void rtd_job_free(rtrun_job_t *job)
{
    if (job == NULL)
        return;
    free(job->ranks);
    free(job->hosts);
    free(job);
}

rtm_status_t rtd_jobdesc_unpack(const char *buf, size_t len, rtd_jobdesc_t *d_p)
{
    unpack_buf_t b = {.data = buf, .len = len};
    rtd_jobdesc_t d;
    char *nspace;
    int nprocs, nhosts;

    if (buf == NULL || d_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtd_jobdesc_unpack: bad argument");
    memset(&d, 0, sizeof(d));
    if (unpack_int(&b) != JOBDESC_MAGIC)
        return rtm_error_set(RTM_ERR_PMIX, "the job description is not from this rtrun version");
    nspace = unpack_str(&b);
    nprocs = unpack_int(&b);
    nhosts = unpack_int(&b);
    /* a host and a rank take 12 bytes each at least: counts the message
     * cannot hold are refused before anything is allocated for them */
    if (b.failed || nspace == NULL || nprocs < 1 || nprocs > RTRUN_MAX_PROCS || nhosts < 1 ||
        nhosts > RTRUN_MAX_PROCS || ((size_t)nprocs + (size_t)nhosts) * 12 > len - b.off) {
        free(nspace);
        return rtm_error_set(RTM_ERR_PMIX, "malformed job description");
    }
    d.job = rtd_job_alloc(nprocs, nhosts);
    if (d.job == NULL) {
        free(nspace);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for the job description");
    }
    snprintf(d.job->nspace, sizeof(d.job->nspace), "%s", nspace);
    free(nspace);
    d.root_host = unpack_int(&b);
    d.fanout = unpack_int(&b);
    d.bind = unpack_int(&b);
    d.map_by = unpack_int(&b);
    d.report_bindings = unpack_int(&b);
    d.job->oversubscribed = unpack_int(&b);
    d.agent = unpack_str(&b);
    d.rtd_path = unpack_str(&b);
    d.cwd = unpack_str(&b);
    for (int h = 0; h < nhosts && !b.failed; h++) {
        char *name = unpack_str(&b);

        snprintf(d.job->hosts[h].name, sizeof(d.job->hosts[h].name), "%s", name ? name : "?");
        free(name);
        d.job->hosts[h].slots = unpack_int(&b);
        d.job->hosts[h].nranks = unpack_int(&b);
    }
    for (int r = 0; r < nprocs && !b.failed; r++) {
        d.job->ranks[r].node_id = unpack_int(&b);
        d.job->ranks[r].local_rank = unpack_int(&b);
        d.job->ranks[r].node_rank = unpack_int(&b);
        if (d.job->ranks[r].node_id < 0 || d.job->ranks[r].node_id >= nhosts)
            b.failed = 1;
    }
    d.prog_argc = unpack_int(&b);
    if (!b.failed && d.prog_argc >= 1 && (size_t)d.prog_argc < len) {
        d.prog_argv = calloc((size_t)d.prog_argc + 1, sizeof(char *));
        if (d.prog_argv == NULL)
            b.failed = 1;
        for (int i = 0; i < d.prog_argc && !b.failed; i++)
            d.prog_argv[i] = unpack_str(&b);
    } else {
        b.failed = 1;
    }
    d.nenv = (size_t)unpack_int(&b);
    if (!b.failed && d.nenv < len) {
        d.env = calloc(d.nenv + 1, sizeof(char *));
        if (d.env == NULL)
            b.failed = 1;
        for (size_t i = 0; i < d.nenv && !b.failed; i++)
            d.env[i] = unpack_str(&b);
    } else {
        d.nenv = 0;
        b.failed = 1;
    }
    if (b.failed || d.fanout < 1 || d.prog_argv == NULL || d.prog_argv[0] == NULL) {
        rtd_jobdesc_free(&d);
        return rtm_error_set(RTM_ERR_PMIX, "malformed job description");
    }
    *d_p = d;
    return RTM_OK;
}

void rtd_jobdesc_free(rtd_jobdesc_t *d)
{
    if (d == NULL)
        return;
    rtd_job_free(d->job);
    free(d->agent);
    free(d->rtd_path);
    free(d->cwd);
    for (int i = 0; d->prog_argv != NULL && i < d->prog_argc; i++)
        free(d->prog_argv[i]);
    free(d->prog_argv);
    for (size_t i = 0; d->env != NULL && i < d->nenv; i++)
        free(d->env[i]);
    free(d->env);
    memset(d, 0, sizeof(*d));
}
