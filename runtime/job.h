/*
 * The job as PMIx describes it (runtime/job.c): this rank, the job size,
 * the ranks on this host, every rank's host, and the modex. Fills the
 * identity fields of rtm_rt.
 */
#ifndef RTM_RUNTIME_JOB_H
#define RTM_RUNTIME_JOB_H

#include "rtmsg.h"

#include <stddef.h>

rtm_status_t job_init(void);
void         job_finalize(void);
/* Forget the job secret (once every transport that needs it is open). */
void         job_secret_wipe(void);
rtm_status_t job_publish(const char *key, const void *blob, size_t len);
rtm_status_t job_commit_and_fence(void);
rtm_status_t job_fence_polling(void (*poll)(unsigned long n));
/* The blob a peer published under key; *blob_p is malloc'd (caller frees).
 * RTM_ERR_UNREACHABLE when the peer published nothing under that key. */
rtm_status_t job_lookup(int peer, const char *key, void **blob_p, size_t *len_p);
const char  *job_peer_hostname(int peer);
int          job_peer_node(int peer);
void         job_abort(int code, const char *message) __attribute__((noreturn));

#endif
