/*
 * The shape of the daemon tree. Positions: 0 is rtrun; 1.. are the remote
 * hosts holding ranks, in host order. Position p's children are
 * p*fanout+1 .. p*fanout+fanout.
 */
#ifndef RTM_LAUNCHER_RTD_TREE_H
#define RTM_LAUNCHER_RTD_TREE_H

#include "launcher/job.h"
#include "rtmsg.h"

typedef struct rtd_tree {
    int  ndaemons;
    int  fanout;
    int *host_of_pos;   /* ndaemons entries; [0] = root_host (may be -1) */
    int *pos_of_host;   /* nhosts entries; -1 for a host without rtd */
} rtd_tree_t;

rtm_status_t rtd_tree_build(const rtrun_job_t *job, int root_host, int fanout, rtd_tree_t *t);
void rtd_tree_free(rtd_tree_t *t);
/* Whether position q is p or below p. */
int rtd_tree_in_subtree(const rtd_tree_t *t, int p, int q);

#endif
