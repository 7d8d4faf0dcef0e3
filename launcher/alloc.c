/*
 * Scheduler allocations: Slurm hostlists and per-node counts, PBS nodefiles.
 * See alloc.h for the formats and the precedence.
 */
#include "config.h"

#include "launcher/alloc.h"
#include "launcher/hostfile.h"
#include "common/error.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Range bounds: Slurm node numbers are small; 9 digits keep the arithmetic
 * in a long on every platform. */
#define HOSTLIST_MAX_DIGITS 9

typedef struct name_list {
    char  **names;
    size_t  count;
    size_t  cap;
} name_list_t;

void rtrun_alloc_names_free(char **names, size_t count)
{
    if (names == NULL)
        return;
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

static rtm_status_t names_add(name_list_t *l, const char *name, size_t len, const char *list)
{
    char *copy;

    if (!rtrun_host_name_ok(name, len))
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "hostlist \"%s\": \"%.*s\" is not a host name", list, (int)len,
                             name);
    if (l->count >= RTRUN_MAX_PROCS)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "hostlist \"%.64s...\": more than %d hosts",
                             list, RTRUN_MAX_PROCS);
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **grown = realloc(l->names, cap * sizeof(*grown));

        if (grown == NULL)
            return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory expanding a hostlist");
        l->names = grown;
        l->cap = cap;
    }
    copy = strndup(name, len);
    if (copy == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory expanding a hostlist");
    l->names[l->count++] = copy;
    return RTM_OK;
}

/* A range bound: 1..HOSTLIST_MAX_DIGITS digits. */
static int parse_bound(const char *s, size_t len, long *v_p)
{
    long v = 0;

    if (len == 0 || len > HOSTLIST_MAX_DIGITS)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *v_p = v;
    return 0;
}

/* Expand one entry (no top-level comma) whose first bracket group, if any,
 * is expanded here and the rest by recursion: the first group varies
 * slowest. */
static rtm_status_t expand_entry(const char *s, size_t len, const char *list, name_list_t *out)
{
    const char *lb = memchr(s, '[', len), *rb, *p;
    size_t prefix_len, rest_len;
    const char *rest;
    char *buf;
    rtm_status_t status = RTM_OK;

    if (lb == NULL) {
        if (memchr(s, ']', len) != NULL)
            return rtm_error_set(RTM_ERR_INVALID_ARG, "hostlist \"%s\": ']' without '['", list);
        return names_add(out, s, len, list);
    }
    prefix_len = (size_t)(lb - s);
    if (memchr(s, ']', prefix_len) != NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "hostlist \"%s\": ']' without '['", list);
    rb = memchr(lb, ']', len - prefix_len);
    if (rb == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "hostlist \"%s\": '[' without ']'", list);
    if (memchr(lb + 1, '[', (size_t)(rb - lb - 1)) != NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "hostlist \"%s\": nested '['", list);
    if (rb == lb + 1)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "hostlist \"%s\": empty brackets", list);
    rest = rb + 1;
    rest_len = len - (size_t)(rest - s);

    /* room for prefix, the widest number and the rest */
    buf = malloc(prefix_len + HOSTLIST_MAX_DIGITS + rest_len + 1);
    if (buf == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory expanding a hostlist");
    memcpy(buf, s, prefix_len);

    for (p = lb + 1; p < rb;) {
        size_t item_len = strcspn(p, ",]");
        const char *dash = memchr(p, '-', item_len);
        size_t lo_len = dash ? (size_t)(dash - p) : item_len;
        long lo, hi;

        if (parse_bound(p, lo_len, &lo) != 0 ||
            (dash != NULL && parse_bound(dash + 1, item_len - lo_len - 1, &hi) != 0)) {
            status = rtm_error_set(RTM_ERR_INVALID_ARG,
                                   "hostlist \"%s\": \"%.*s\" in brackets: expected N or N-M (numbers of at most %d digits)",
                                   list, (int)item_len, p, HOSTLIST_MAX_DIGITS);
            goto out_free_buf;
        }
        if (dash == NULL)
            hi = lo;
        if (hi < lo) {
            status = rtm_error_set(RTM_ERR_INVALID_ARG,
                                   "hostlist \"%s\": range %.*s goes down", list, (int)item_len,
                                   p);
            goto out_free_buf;
        }
        if (hi - lo >= RTRUN_MAX_PROCS) {
            status = rtm_error_set(RTM_ERR_INVALID_ARG,
                                   "hostlist \"%s\": range %.*s has more than %d hosts", list,
                                   (int)item_len, p, RTRUN_MAX_PROCS);
            goto out_free_buf;
        }
        for (long v = lo; v <= hi; v++) {
            /* the width of the first bound keeps the padding: 01-10 */
            int n = snprintf(buf + prefix_len, HOSTLIST_MAX_DIGITS + 1, "%0*ld", (int)lo_len, v);

            memcpy(buf + prefix_len + n, rest, rest_len);
            status = expand_entry(buf, prefix_len + (size_t)n + rest_len, list, out);
            if (status != RTM_OK)
                goto out_free_buf;
        }
        p += item_len;
        if (*p == ',') {
            p++;
            if (*p == ']' || *p == ',') {
                status = rtm_error_set(RTM_ERR_INVALID_ARG,
                                       "hostlist \"%s\": empty item in brackets", list);
                goto out_free_buf;
            }
        }
    }

out_free_buf:
    free(buf);
    return status;
}

rtm_status_t rtrun_alloc_expand_hostlist(const char *list, char ***names_p, size_t *count_p)
{
    name_list_t out = {NULL, 0, 0};
    const char *p;
    rtm_status_t status;

    if (list == NULL || names_p == NULL || count_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_alloc_expand_hostlist: NULL argument");
    if (*list == '\0')
        return rtm_error_set(RTM_ERR_INVALID_ARG, "empty hostlist");

    for (p = list;;) {
        const char *e = p;
        int depth = 0;

        /* a top-level comma ends the entry; commas in brackets do not */
        while (*e != '\0' && !(*e == ',' && depth == 0)) {
            if (*e == '[')
                depth++;
            else if (*e == ']')
                depth--;
            e++;
        }
        if (e == p) {
            status = rtm_error_set(RTM_ERR_INVALID_ARG, "hostlist \"%s\": empty entry", list);
            goto err_free_names;
        }
        status = expand_entry(p, (size_t)(e - p), list, &out);
        if (status != RTM_OK)
            goto err_free_names;
        if (*e == '\0')
            break;
        p = e + 1;
    }
    *names_p = out.names;
    *count_p = out.count;
    return RTM_OK;

err_free_names:
    rtrun_alloc_names_free(out.names, out.count);
    return status;
}

rtm_status_t rtrun_alloc_parse_per_node(const char *value, const char *var, size_t nhosts,
                                        int **counts_p)
{
    const char *p = value;
    size_t filled = 0;
    int *counts;
    rtm_status_t status;

    if (value == NULL || var == NULL || counts_p == NULL || nhosts == 0)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_alloc_parse_per_node: bad argument");
    counts = calloc(nhosts, sizeof(*counts));
    if (counts == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for %zu hosts", nhosts);

    for (;;) {
        char *end;
        long n, times = 1;

        if (!isdigit((unsigned char)*p))
            goto err_syntax;
        errno = 0;
        n = strtol(p, &end, 10);
        if (errno != 0 || n < 1 || n > RTRUN_MAX_PROCS)
            goto err_syntax;
        p = end;
        if (*p == '(') {
            if (p[1] != 'x' || !isdigit((unsigned char)p[2]))
                goto err_syntax;
            errno = 0;
            times = strtol(p + 2, &end, 10);
            if (errno != 0 || times < 1 || *end != ')')
                goto err_syntax;
            p = end + 1;
        }
        if ((size_t)times > nhosts - filled) {
            status = rtm_error_set(RTM_ERR_INVALID_ARG,
                                   "%s=\"%s\" gives counts for more than the %zu host%s of the node list",
                                   var, value, nhosts, nhosts == 1 ? "" : "s");
            goto err_free_counts;
        }
        for (long i = 0; i < times; i++)
            counts[filled++] = (int)n;
        if (*p == '\0')
            break;
        if (*p != ',')
            goto err_syntax;
        p++;
    }
    if (filled != nhosts) {
        status = rtm_error_set(RTM_ERR_INVALID_ARG,
                               "%s=\"%s\" gives counts for %zu host%s but the node list has %zu",
                               var, value, filled, filled == 1 ? "" : "s", nhosts);
        goto err_free_counts;
    }
    *counts_p = counts;
    return RTM_OK;

err_syntax:
    status = rtm_error_set(RTM_ERR_INVALID_ARG,
                           "%s=\"%s\": expected counts like 2(x3),1 (each from 1 to %d)", var,
                           value, RTRUN_MAX_PROCS);
err_free_counts:
    free(counts);
    return status;
}

rtm_status_t rtrun_alloc_slurm(const char *nodelist, const char *per_node, const char *var,
                               rtrun_host_spec_t **hosts_p, size_t *nhosts_p)
{
    char **names = NULL;
    size_t count = 0;
    int *counts = NULL;
    rtrun_host_list_t list = {0};
    rtm_status_t status;

    if (nodelist == NULL || (per_node != NULL && var == NULL) || hosts_p == NULL ||
        nhosts_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_alloc_slurm: NULL argument");
    status = rtrun_alloc_expand_hostlist(nodelist, &names, &count);
    if (status != RTM_OK)
        return status;
    if (per_node != NULL) {
        status = rtrun_alloc_parse_per_node(per_node, var, count, &counts);
        if (status != RTM_OK)
            goto out_free_names;
    }
    for (size_t i = 0; i < count; i++) {
        status = rtrun_host_list_add(&list, names[i], strlen(names[i]), counts ? counts[i] : 0,
                                     NULL);
        if (status != RTM_OK) {
            rtrun_host_list_free(&list);
            goto out_free_counts;
        }
    }
    rtrun_host_list_take(&list, hosts_p, nhosts_p);

out_free_counts:
    free(counts);
out_free_names:
    rtrun_alloc_names_free(names, count);
    return status;
}

rtm_status_t rtrun_alloc_pbs(const char *text, size_t len, const char *fname,
                             rtrun_host_spec_t **hosts_p, size_t *nhosts_p)
{
    rtrun_host_list_t list = {0};
    size_t pos = 0;
    rtm_status_t status;
    int lineno = 0;

    if ((text == NULL && len > 0) || fname == NULL || hosts_p == NULL || nhosts_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_alloc_pbs: NULL argument");
    while (pos < len) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t line_len = nl ? (size_t)(nl - line) : len - pos;
        size_t b = 0, e = line_len;

        lineno++;
        pos += line_len + (nl ? 1 : 0);
        while (b < e && isspace((unsigned char)line[b]))
            b++;
        while (e > b && isspace((unsigned char)line[e - 1]))
            e--;
        if (b == e)
            continue;
        if (!rtrun_host_name_ok(line + b, e - b)) {
            status = rtm_error_set(RTM_ERR_INVALID_ARG,
                                   "PBS nodefile %s:%d: \"%.*s\" is not a host name", fname,
                                   lineno, (int)(e - b > 64 ? 64 : e - b), line + b);
            goto err_free_hosts;
        }
        /* one line per slot */
        status = rtrun_host_list_add(&list, line + b, e - b, 1, NULL);
        if (status != RTM_OK)
            goto err_free_hosts;
    }
    if (list.nhosts == 0) {
        status = rtm_error_set(RTM_ERR_INVALID_ARG, "PBS nodefile %s lists no hosts", fname);
        goto err_free_hosts;
    }
    rtrun_host_list_take(&list, hosts_p, nhosts_p);
    return RTM_OK;

err_free_hosts:
    rtrun_host_list_free(&list);
    return status;
}

static rtm_status_t read_pbs_nodefile(const char *path, rtrun_host_spec_t **hosts_p,
                                      size_t *nhosts_p)
{
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t len = 0;
    rtm_status_t status;

    if (f == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "PBS_NODEFILE=%s: cannot open: %s", path,
                             strerror(errno));
    for (;;) {
        char chunk[4096];
        size_t n = fread(chunk, 1, sizeof(chunk), f);
        char *grown;

        if (n == 0)
            break;
        grown = realloc(text, len + n);
        if (grown == NULL) {
            free(text);
            fclose(f);
            return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory reading %s", path);
        }
        text = grown;
        memcpy(text + len, chunk, n);
        len += n;
    }
    if (ferror(f)) {
        status = rtm_error_set(RTM_ERR_INVALID_ARG, "PBS_NODEFILE=%s: cannot read: %s", path,
                               strerror(errno));
        free(text);
        fclose(f);
        return status;
    }
    fclose(f);
    status = rtrun_alloc_pbs(text, len, path, hosts_p, nhosts_p);
    free(text);
    return status;
}

rtm_status_t rtrun_alloc_from_env(rtrun_host_spec_t **hosts_p, size_t *nhosts_p,
                                  rtrun_host_source_t *source_p)
{
    const char *nodelist, *per_node, *var, *nodefile;
    rtm_status_t status;

    if (hosts_p == NULL || nhosts_p == NULL || source_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_alloc_from_env: NULL argument");

    /* The one place rtrun reads the scheduler's variables. They are not
     * RTM_* tunables (the config table holds only those): Slurm and PBS set
     * them to describe the allocation, as every MPI launcher reads them. */
    nodelist = getenv("SLURM_JOB_NODELIST");
    if (nodelist == NULL)
        nodelist = getenv("SLURM_NODELIST"); /* older Slurm */
    if (nodelist != NULL && *nodelist != '\0') {
        var = "SLURM_TASKS_PER_NODE";
        per_node = getenv(var);
        if (per_node == NULL || *per_node == '\0') {
            var = "SLURM_JOB_CPUS_PER_NODE";
            per_node = getenv(var);
            if (per_node != NULL && *per_node == '\0')
                per_node = NULL;
        }
        status = rtrun_alloc_slurm(nodelist, per_node, var, hosts_p, nhosts_p);
        if (status != RTM_OK) {
            char why[512];

            /* the message is rewritten into the buffer it is read from */
            snprintf(why, sizeof(why), "%s", rtm_last_error());
            return rtm_error_set(status, "Slurm allocation (SLURM_JOB_NODELIST=%s): %s",
                                 nodelist, why);
        }
        *source_p = RTRUN_HOSTS_SLURM;
        return RTM_OK;
    }
    nodefile = getenv("PBS_NODEFILE");
    if (nodefile != NULL && *nodefile != '\0') {
        status = read_pbs_nodefile(nodefile, hosts_p, nhosts_p);
        if (status != RTM_OK)
            return status;
        *source_p = RTRUN_HOSTS_PBS;
        return RTM_OK;
    }
    *hosts_p = NULL;
    *nhosts_p = 0;
    *source_p = RTRUN_HOSTS_NONE;
    return RTM_OK;
}

/* Scheduler variables, read here for the same reason as above. */
int rtrun_alloc_in_slurm(void)
{
    const char *id = getenv("SLURM_JOB_ID");

    if (id == NULL)
        id = getenv("SLURM_JOBID"); /* older Slurm */
    return id != NULL && *id != '\0';
}

const char *rtrun_alloc_slurm_node(void)
{
    const char *name = getenv("SLURMD_NODENAME");

    return name != NULL && *name != '\0' ? name : NULL;
}
