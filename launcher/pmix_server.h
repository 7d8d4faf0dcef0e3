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
#include "common/secret.h"
#include "rtmsg.h"

typedef enum rtrun_pmix_event_type {
    RTRUN_PMIX_EV_CONNECTED = 1, /* the rank called PMIx_Init */
    RTRUN_PMIX_EV_FINALIZED,     /* the rank called PMIx_Finalize */
    RTRUN_PMIX_EV_ABORT,         /* the rank called PMIx_Abort(status, msg) */
    /* The server lost the rank's connection before it finalized (it died,
     * or closed the connection). These come in the order the server lost
     * the connections, and a rank's loss comes before the server fails any
     * collective because of it (see the .c). */
    RTRUN_PMIX_EV_LOST,
    /* Multi-host only; `req` carries the request, the main loop owns it. */
    RTRUN_PMIX_EV_FENCE,         /* this server's part of a fence (req->data) */
    RTRUN_PMIX_EV_DMODEX,        /* a local rank wants a remote rank's data */
    RTRUN_PMIX_EV_SERVED,        /* data of a local rank asked by another host is ready */
} rtrun_pmix_event_type_t;

/* A fence or direct-modex request handed from PMIx's thread to the main
 * loop, which answers it with rtrun_pmix_fence_done/dmodex_done (or
 * forwards a SERVED one and frees it). */
typedef struct rtrun_pmix_req {
    struct rtrun_pmix_req *next;  /* the main loop's pending list */
    int    id;
    int    rank;       /* DMODEX, SERVED: whose data */
    int    status;     /* SERVED: PMIx status of the lookup */
    int    from_host;  /* SERVED: the host that asked */
    int    from_id;    /* SERVED: its request id */
    char  *data;       /* FENCE: local contribution; SERVED: the data */
    size_t ndata;
    void  *cbfunc;     /* PMIx's callback and its argument */
    void  *cbdata;
} rtrun_pmix_req_t;

/* Fixed size, below PIPE_BUF, so one write() is atomic. */
typedef struct rtrun_pmix_event {
    int  type;
    int  rank;
    int  status;
    char msg[244];
    rtrun_pmix_req_t *req;
} rtrun_pmix_event_t;

/* Start the server with its rendezvous files under tmpdir. hwloc_topology
 * (a hwloc_topology_t, may be NULL) spares PMIx discovering its own; it
 * must outlive the server. self_host >= 0 means a multi-host job: this
 * server is the one of host self_host (job->hosts[]), fences and direct
 * modex requests go to the main loop as events; -1: every rank is local. */
rtm_status_t rtrun_pmix_server_start(const char *tmpdir, const char *nspace, int event_fd,
                                     void *hwloc_topology, const char *host_name, int self_host);
/* Stop the server. all_finalized: every local rank called PMIx_Finalize;
 * otherwise the server is left to die with the process (see the .c).
 * Bounded: PMIx_server_finalize runs in a thread of its own for at most a
 * few seconds, less when a SIGTERM, SIGINT or SIGHUP is pending. */
void rtrun_pmix_server_stop(int all_finalized);
/* Whether the server was left running in a wedged library: the process
 * must then end with _exit (exit handlers could wait on the same locks). */
int rtrun_pmix_server_abandoned(void);

/* The job secret (common/secret.h) to register as the job-level key
 * RTM_SECRET_PMIX_KEY; the caller keeps it alive until the job is
 * registered. NULL: none. */
void rtrun_pmix_set_job_secret(const rtm_secret_t *secret);

/* Register the job's namespace (node/proc maps, per-rank data: the whole
 * job, every host) and this host's ranks as clients. prog_argv is the
 * application's argv. */
rtm_status_t rtrun_pmix_register_job(const rtrun_job_t *job, const char *tmpdir,
                                     int prog_argc, char **prog_argv);
void rtrun_pmix_deregister_job(const rtrun_job_t *job);

/* Answer requests from events (main loop only). ok = 0: the fence failed. */
void rtrun_pmix_fence_done(rtrun_pmix_req_t *req, int ok, const char *data, size_t len);
void rtrun_pmix_dmodex_done(rtrun_pmix_req_t *req, int pmix_status, const char *data, size_t len);
/* Ask the local server for a local rank's data on behalf of from_host;
 * a SERVED event follows. */
rtm_status_t rtrun_pmix_dmodex_serve(const char *nspace, int rank, int from_host, int from_id);
void rtrun_pmix_req_free(rtrun_pmix_req_t *req);

/* Add to *env_p (a malloc'd, NULL-terminated array as PMIx's argv helpers
 * build) what rank `rank` needs to connect to this server. */
rtm_status_t rtrun_pmix_setup_fork(const rtrun_job_t *job, int rank, char ***env_p);

#endif
