/*
 * The job description every daemon gets in the JOB message: the job map
 * (hosts, every rank's host and local rank), the launch settings and the
 * program with its environment.
 *
 * Packed as a sequence of 32-bit integers in network order and strings
 * (a 32-bit length, -1 for NULL, then the bytes, no terminator), starting
 * with the magic "rtd1" so a daemon of another version refuses it.
 */
#ifndef RTM_LAUNCHER_RTD_JOBDESC_H
#define RTM_LAUNCHER_RTD_JOBDESC_H

#include "launcher/job.h"
#include "rtmsg.h"

#include <stddef.h>

typedef struct rtd_jobdesc {
    rtrun_job_t *job;        /* with hosts[] and every rank; cores are chosen per host */
    int          root_host;  /* host index of rtrun, -1 when it holds no ranks */
    int          fanout;
    int          bind;       /* rtrun_bind_t as given (each host resolves its own) */
    int          map_by;     /* rtrun_map_by_t */
    int          report_bindings;
    char        *agent;      /* launch agent command, {host} to substitute */
    char        *rtd_path;
    char        *cwd;
    int          prog_argc;
    char       **prog_argv;  /* NULL-terminated */
    size_t       nenv;
    char       **env;        /* "VAR=VALUE" given to every rank */
} rtd_jobdesc_t;

rtm_status_t rtd_jobdesc_pack(const rtd_jobdesc_t *d, char **buf_p, size_t *len_p);
rtm_status_t rtd_jobdesc_unpack(const char *buf, size_t len, rtd_jobdesc_t *d_p);
/* Frees what unpack allocated (the job included). */
void rtd_jobdesc_free(rtd_jobdesc_t *d);
/* A job built by rtd_job_alloc (its hosts[] too). */
rtrun_job_t *rtd_job_alloc(int nprocs, int nhosts);
void rtd_job_free(rtrun_job_t *job);

#endif
