/*
 * rtrun's PMIx server: the job's namespace, its clients, and the host
 * callbacks. Callbacks run in PMIx's own thread: they never touch the job;
 * they write a rtrun_pmix_event_t to the event pipe given at start and let
 * the main loop act on it. Each event is written before the callback
 * releases the client, so once the main loop sees a rank exit, every event
 * that rank caused is already in the pipe.
 */
#ifndef RTM_LAUNCHER_PMIX_SERVER_H
#define RTM_LAUNCHER_PMIX_SERVER_H

#include "launcher/job.h"
#include "rtmsg.h"

typedef enum rtrun_pmix_event_type {
    RTRUN_PMIX_EV_CONNECTED = 1, /* the rank called PMIx_Init */
    RTRUN_PMIX_EV_FINALIZED,     /* the rank called PMIx_Finalize */
    RTRUN_PMIX_EV_ABORT,         /* the rank called PMIx_Abort(status, msg) */
} rtrun_pmix_event_type_t;

/* Fixed size, below PIPE_BUF, so one write() is atomic. */
typedef struct rtrun_pmix_event {
    int  type;
    int  rank;
    int  status;
    char msg[244];
} rtrun_pmix_event_t;

/* Start the server with its rendezvous files under tmpdir. hwloc_topology
 * (a hwloc_topology_t, may be NULL) spares PMIx discovering its own; it
 * must outlive the server. */
rtm_status_t rtrun_pmix_server_start(const char *tmpdir, const char *nspace, int event_fd,
                                     void *hwloc_topology);
void rtrun_pmix_server_stop(void);

/* Register the job's namespace (node/proc maps, per-rank data) and every
 * rank as a client. prog_argv is the application's argv. */
rtm_status_t rtrun_pmix_register_job(const rtrun_job_t *job, const char *tmpdir,
                                     int prog_argc, char **prog_argv);
void rtrun_pmix_deregister_job(const rtrun_job_t *job);

/* Add to *env_p (a malloc'd, NULL-terminated array as PMIx's argv helpers
 * build) what rank `rank` needs to connect to this server. */
rtm_status_t rtrun_pmix_setup_fork(const rtrun_job_t *job, int rank, char ***env_p);

#endif
