/*
 * Names of a job's files in /dev/shm: "/rtm-<nspace>-<what>".
 *
 * The launcher removes every /dev/shm/rtm-<nspace>-* of a job when the job
 * ends (launcher/cleanup.c), whatever state its ranks died in. Every
 * segment a rank creates is named here, so that one left behind by a rank
 * killed between shm_open and shm_unlink does not outlive its job.
 */
#ifndef RTM_COMMON_SHMNAME_H
#define RTM_COMMON_SHMNAME_H

#include <stddef.h>

/* in with every character outside [A-Za-z0-9._-] replaced by '_', cut to
 * len - 1 characters (len > 0). */
void rtm_name_sanitize(const char *in, char *out, size_t len);

/* "/rtm-<sanitized nspace>-<what>" into buf; 0, or -1 if it does not fit
 * (buf then holds a cut name that must not be used). */
int rtm_job_shm_name(const char *nspace, const char *what, char *buf, size_t len);

#endif
