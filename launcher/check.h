/*
 * rtm_check (launcher/check.c): the RDMA and host troubleshooting
 * checklist as a command, run by `rtm_check` on this host or by
 * `rtrun --check` on the hosts of a job.
 */
#ifndef RTM_LAUNCHER_CHECK_H
#define RTM_LAUNCHER_CHECK_H

/* Runs the checks; returns the exit code (0: every check passed). */
int rtrun_check_main(int argc, char **argv);

#endif
