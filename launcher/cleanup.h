/*
 * What a job leaves on its host and how it goes: the per-job temp dir
 * (PMIx rendezvous files) and /dev/shm/rtm-<nspace>* segments. rtrun
 * removes its own at exit; files of an rtrun that was SIGKILLed (it cannot
 * clean up) are removed by the next rtrun on the host, once their owner's
 * pid is gone.
 */
#ifndef RTM_LAUNCHER_CLEANUP_H
#define RTM_LAUNCHER_CLEANUP_H

#include <stddef.h>

/* Directory rtrun's temp dirs live in, and their name prefix. */
#define RTRUN_TMPDIR_PARENT "/tmp"
#define RTRUN_TMPDIR_PREFIX "rtrun."

/* Remove every /dev/shm/rtm-<sanitized nspace>* of the job; returns the count. */
int rtrun_cleanup_shm(const char *nspace);
/* Remove a directory tree. */
void rtrun_cleanup_tree(const char *path);
/* Remove the temp dirs and shm files of dead rtruns of this host
 * (hostname as in the nspace). Returns how many entries were removed. */
int rtrun_cleanup_stale(const char *hostname);
/* Whether `name` (a /dev/shm entry) belongs to nspace: "rtm-<nspace>"
 * exactly or followed by '-', '_' or '.' (so rtm.h.12 never takes
 * rtm.h.123's files). */
int rtrun_cleanup_shm_name_matches(const char *name, const char *nspace);

#endif
