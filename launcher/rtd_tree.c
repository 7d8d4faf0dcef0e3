/*
 * The shape of the daemon tree (see rtd_tree.h).
 */
#include "config.h"

#include "launcher/rtd_tree.h"
#include "common/error.h"

#include <stdlib.h>
#include <string.h>

rtm_status_t rtd_tree_build(const rtrun_job_t *job, int root_host, int fanout, rtd_tree_t *t)
{
    int n = 1;

    if (job == NULL || job->hosts == NULL || t == NULL || fanout < 1)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtd_tree_build: bad argument");
    memset(t, 0, sizeof(*t));
    t->fanout = fanout;
    t->host_of_pos = calloc((size_t)job->nhosts + 1, sizeof(int));
    t->pos_of_host = calloc((size_t)job->nhosts, sizeof(int));
    if (t->host_of_pos == NULL || t->pos_of_host == NULL) {
        rtd_tree_free(t);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for the launch tree");
    }
    t->host_of_pos[0] = root_host;
    for (int h = 0; h < job->nhosts; h++) {
        t->pos_of_host[h] = -1;
        if (h == root_host) {
            t->pos_of_host[h] = 0;
            continue;
        }
        if (job->hosts[h].nranks == 0)
            continue;
        t->pos_of_host[h] = n;
        t->host_of_pos[n++] = h;
    }
    t->ndaemons = n;
    return RTM_OK;
}

void rtd_tree_free(rtd_tree_t *t)
{
    free(t->host_of_pos);
    free(t->pos_of_host);
    t->host_of_pos = t->pos_of_host = NULL;
}

int rtd_tree_in_subtree(const rtd_tree_t *t, int p, int q)
{
    while (q > p)
        q = (q - 1) / t->fanout;
    return q == p;
}
