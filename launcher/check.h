/*
 * rtm_check (launcher/check.c): the RDMA and host troubleshooting
 * checklist as a command, run by `rtm_check` on this host or by
 * `rtrun --check` on the hosts of a job.
 */
#ifndef RTM_LAUNCHER_CHECK_H
#define RTM_LAUNCHER_CHECK_H

#include "launcher/cli.h"

/* rtrun --check: runs rtm_check on every host opts names; returns rtrun's
 * exit code (0: every check passed on every host). */
int rtrun_check_main(const rtrun_opts_t *opts);

#endif
