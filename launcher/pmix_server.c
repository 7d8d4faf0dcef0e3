/*
 * PMIx server glue. Facts this file relies on (OpenPMIx 4.2):
 * - Node and proc maps from PMIx_generate_regex/ppn must be registered with
 *   type PMIX_REGEX: as PMIX_STRING the client cannot parse them.
 * - A fence among ranks that are all local to this server completes inside
 *   the library; fence_nb is only called when remote participants exist
 *   (nlocalprocs < job size at register_nspace). One-host jobs hand the
 *   data back; multi-host jobs (self_host >= 0) pass it to the main loop,
 *   whose daemon tree combines every host's part (launcher/daemon.c).
 * - Blobs of several servers are combined by concatenation: each is a
 *   sequence of packed items the receiving server unpacks in turn.
 * - direct_modex is called for a proc not in the local store; the owning
 *   host's daemon answers it with PMIx_server_dmodex_request, which waits
 *   until that rank has committed.
 * - The env array given to PMIx_server_setup_fork is grown with realloc, so
 *   it must be malloc'd (PMIX_ARGV_APPEND builds it).
 * - A rank that dies (lost connection) does not get client_finalized called
 *   for it in 4.2.2 (checked here). (OpenPMIx 5 calls client_finalized on a
 *   lost connection, with a callback: then a finalize must be told apart
 *   from a death some other way.)
 * - When a rank dies, ranks waiting in a fence with it get
 *   PMIX_ERR_PARTIAL_SUCCESS from the library and may exit at once: rtrun
 *   can reap them before the rank that died first.
 * - Which rank died first is the order in which the library lost the
 *   connections: its one progress thread handles a lost connection
 *   (lost_connection in ptl_base_sendrecv.c) by first failing the
 *   collectives the rank was due in, then reporting
 *   PMIX_ERR_LOST_CONNECTION to the server's own event handlers (checked
 *   here). So a rank whose fence failed because of rank X is lost after X.
 *   The report is cached for pmix_event_caching_window seconds (default 1)
 *   and losses in that time are added to it: the first one as its source,
 *   each later one prepended to its info as a PMIX_PROCID (so the info
 *   lists them newest first). Only one report per status is cached at a
 *   time, so reports come in the order of their first loss. rtrun sets the
 *   window to 0 for its server: a report then comes as soon as the thread
 *   is back in its loop, aggregated only with losses handled before that.
 */
#include "config.h"

#include "launcher/pmix_server.h"
#include "launcher/pmix_gate.h"
#include "common/error.h"
#include "common/log.h"

#include <errno.h>
#include <pmix.h>
#include <pmix_server.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int  server_event_fd = -1;
static char server_job_nspace[PMIX_MAX_NSLEN + 1];
static int  server_started;
static int  server_wedged;  /* the library stopped answering (see deregister) */
static int  server_abandoned; /* left running at exit: the caller must _exit */
static int  server_self_host = -1; /* multi-host: this server's host index */
static int  server_job_size;       /* multi-host: ranks in the job */
static const rtm_secret_t *server_job_secret; /* job data for the ranks (rtrun_pmix_set_job_secret) */

/* Longest wait for the library at teardown. */
#define RTRUN_PMIX_TEARDOWN_SEC 3
#define RTRUN_PMIX_TEARDOWN_STR "3"
/* How often a teardown wait looks for a SIGTERM, SIGINT or SIGHUP. */
#define RTRUN_PMIX_TEARDOWN_SLICE_NS 50000000L

/* Completion of one asynchronous PMIx server call. */
typedef struct pmix_wait {
    pthread_mutex_t lock;
    pthread_cond_t  cond;
    int             done;
    pmix_status_t   status;
} pmix_wait_t;

#define PMIX_WAIT_INIT {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, PMIX_SUCCESS}

static void op_done(pmix_status_t status, void *cbdata)
{
    pmix_wait_t *w = cbdata;

    pthread_mutex_lock(&w->lock);
    w->status = status;
    w->done = 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* rc is what the call returned: PMIX_SUCCESS means the callback will
 * come; PMIX_OPERATION_SUCCEEDED means done already; anything else failed. */
static pmix_status_t op_wait(pmix_wait_t *w, pmix_status_t rc)
{
    if (rc == PMIX_OPERATION_SUCCEEDED)
        return PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS)
        return rc;
    pthread_mutex_lock(&w->lock);
    while (!w->done)
        pthread_cond_wait(&w->cond, &w->lock);
    pthread_mutex_unlock(&w->lock);
    return w->status;
}

/* Whether the user asked the process to end: one of the signals the
 * engine reads through its signalfd is pending (they are blocked in every
 * thread, so they wait there until read). No handler is involved: the
 * teardown looks, and leaves them pending for whoever reads next. */
static int end_requested(void)
{
    sigset_t pending;

    if (sigpending(&pending) != 0)
        return 0;
    return sigismember(&pending, SIGTERM) == 1 || sigismember(&pending, SIGINT) == 1 ||
           sigismember(&pending, SIGHUP) == 1;
}

/* Wait for w up to RTRUN_PMIX_TEARDOWN_SEC, or until the user asks the
 * process to end: 0 done, ETIMEDOUT, or EINTR (a signal is pending). */
static int teardown_wait(pmix_wait_t *w)
{
    struct timespec deadline, slice;
    int rc = 0;

    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += RTRUN_PMIX_TEARDOWN_SEC;
    pthread_mutex_lock(&w->lock);
    while (!w->done && rc == 0) {
        clock_gettime(CLOCK_REALTIME, &slice);
        slice.tv_nsec += RTRUN_PMIX_TEARDOWN_SLICE_NS;
        if (slice.tv_nsec >= 1000000000L) {
            slice.tv_sec++;
            slice.tv_nsec -= 1000000000L;
        }
        if (slice.tv_sec > deadline.tv_sec ||
            (slice.tv_sec == deadline.tv_sec && slice.tv_nsec > deadline.tv_nsec))
            slice = deadline;
        if (pthread_cond_timedwait(&w->cond, &w->lock, &slice) == ETIMEDOUT && !w->done) {
            if (slice.tv_sec == deadline.tv_sec && slice.tv_nsec == deadline.tv_nsec)
                rc = ETIMEDOUT;
            else if (end_requested())
                rc = EINTR;
        }
    }
    pthread_mutex_unlock(&w->lock);
    return rc;
}

static void post_event(int type, const pmix_proc_t *proc, int status, const char *msg)
{
    rtrun_pmix_event_t ev;
    ssize_t n;

    if (proc == NULL || strncmp(proc->nspace, server_job_nspace, PMIX_MAX_NSLEN) != 0)
        return; /* not one of our ranks (a tool, or the server itself) */
    memset(&ev, 0, sizeof(ev));
    ev.type = type;
    ev.rank = (int)proc->rank;
    ev.status = status;
    if (msg != NULL)
        snprintf(ev.msg, sizeof(ev.msg), "%s", msg);
    do {
        n = write(server_event_fd, &ev, sizeof(ev));
    } while (n < 0 && errno == EINTR);
}

/* Hand a request to the main loop; 0 on success. */
static int post_req(int type, rtrun_pmix_req_t *req)
{
    rtrun_pmix_event_t ev;
    ssize_t n;

    memset(&ev, 0, sizeof(ev));
    ev.type = type;
    ev.rank = req->rank;
    ev.req = req;
    do {
        n = write(server_event_fd, &ev, sizeof(ev));
    } while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof(ev) ? 0 : -1;
}

void rtrun_pmix_req_free(rtrun_pmix_req_t *req)
{
    if (req == NULL)
        return;
    free(req->data);
    free(req);
}

static pmix_status_t cb_client_connected(const pmix_proc_t *proc, void *server_object,
                                         pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)server_object;
    /* Refusing here would break the library (pmix_gate.c): the gate
     * refused strangers at accept(); this ties the connection to the rank
     * it claims, and closes it when another rank's process made it. */
    if (proc != NULL && strncmp(proc->nspace, server_job_nspace, PMIX_MAX_NSLEN) == 0)
        rtrun_pmix_gate_bind((int)proc->rank);
    post_event(RTRUN_PMIX_EV_CONNECTED, proc, 0, NULL);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t cb_client_finalized(const pmix_proc_t *proc, void *server_object,
                                         pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)server_object;
    if (cbfunc == NULL)
        return PMIX_SUCCESS; /* not a client's finalize request (see top) */
    post_event(RTRUN_PMIX_EV_FINALIZED, proc, 0, NULL);
    cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t cb_abort(const pmix_proc_t *proc, void *server_object, int status,
                              const char msg[], pmix_proc_t procs[], size_t nprocs,
                              pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)server_object;
    (void)procs;
    (void)nprocs;
    /* Whatever subset it names, an abort ends the whole job here. */
    post_event(RTRUN_PMIX_EV_ABORT, proc, status, msg);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static void fence_release(void *cbdata)
{
    free(cbdata);
}

static pmix_status_t cb_fence_nb(const pmix_proc_t procs[], size_t nprocs,
                                 const pmix_info_t info[], size_t ninfo, char *data,
                                 size_t ndata, pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    char *copy = NULL;

    (void)info;
    (void)ninfo;
    if (cbfunc == NULL)
        return PMIX_ERR_BAD_PARAM;
    if (server_self_host >= 0) {
        rtrun_pmix_req_t *req;
        size_t participants = nprocs;

        /* The daemons combine fences job-wide, in order: a fence over a
         * subset of the ranks would wait for hosts that never join. */
        if (nprocs == 1 && procs[0].rank == PMIX_RANK_WILDCARD)
            participants = (size_t)server_job_size;
        if (participants != (size_t)server_job_size) {
            rtm_warn("a fence over %zu of the job's %d ranks: only job-wide fences are supported across hosts",
                     participants, server_job_size);
            return PMIX_ERR_NOT_SUPPORTED;
        }
        req = calloc(1, sizeof(*req));
        if (req == NULL || (ndata > 0 && (req->data = malloc(ndata)) == NULL)) {
            free(req);
            return PMIX_ERR_NOMEM;
        }
        if (ndata > 0)
            memcpy(req->data, data, ndata);
        req->ndata = ndata;
        req->cbfunc = (void *)cbfunc;
        req->cbdata = cbdata;
        req->rank = -1;
        if (post_req(RTRUN_PMIX_EV_FENCE, req) != 0) {
            rtrun_pmix_req_free(req);
            return PMIX_ERROR;
        }
        return PMIX_SUCCESS;
    }
    /* Every participant is local, so this server's contribution is the
     * whole collective: hand it back. `data` belongs to the library and
     * the callback may complete after we return, so it gets a copy that
     * the library releases through fence_release. With rtd, this is
     * where the contributions of all hosts get gathered. */
    if (ndata > 0) {
        copy = malloc(ndata);
        if (copy == NULL)
            return PMIX_ERR_NOMEM;
        memcpy(copy, data, ndata);
    }
    cbfunc(PMIX_SUCCESS, copy, ndata, cbdata, fence_release, copy);
    return PMIX_SUCCESS;
}

static pmix_status_t cb_direct_modex(const pmix_proc_t *proc, const pmix_info_t info[],
                                     size_t ninfo, pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    (void)info;
    (void)ninfo;
    if (server_self_host >= 0 && proc != NULL && cbfunc != NULL &&
        strncmp(proc->nspace, server_job_nspace, PMIX_MAX_NSLEN) == 0 &&
        proc->rank < (pmix_rank_t)server_job_size) {
        rtrun_pmix_req_t *req = calloc(1, sizeof(*req));

        /* The owning host's daemon asks its server (dmodex_serve). */
        if (req == NULL)
            return PMIX_ERR_NOMEM;
        req->rank = (int)proc->rank;
        req->cbfunc = (void *)cbfunc;
        req->cbdata = cbdata;
        if (post_req(RTRUN_PMIX_EV_DMODEX, req) != 0) {
            free(req);
            return PMIX_ERROR;
        }
        return PMIX_SUCCESS;
    }
    /* Every rank of the job is local, so the library answers from its own
     * store; a request reaching us names a proc nobody hosts. Returning an
     * error means cbfunc will not be called. */
    rtm_debug("direct modex request for %s:%u: no such remote rank", proc ? proc->nspace : "?",
              proc ? proc->rank : 0);
    return PMIX_ERR_NOT_FOUND;
}

/* PMIx's thread: connections the library lost, oldest first (see top). */
static void on_lost_connection(size_t evhdlr_registration_id, pmix_status_t status,
                               const pmix_proc_t *source, pmix_info_t info[], size_t ninfo,
                               pmix_info_t results[], size_t nresults,
                               pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)evhdlr_registration_id;
    (void)status;
    (void)results;
    (void)nresults;
    post_event(RTRUN_PMIX_EV_LOST, source, 0, NULL);
    for (size_t i = ninfo; i-- > 0;) {
        if (info[i].value.type == PMIX_PROC && info[i].value.data.proc != NULL &&
            PMIX_CHECK_KEY(&info[i], PMIX_PROCID))
            post_event(RTRUN_PMIX_EV_LOST, info[i].value.data.proc, 0, NULL);
    }
    if (cbfunc != NULL)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void handler_registered(pmix_status_t status, size_t ref, void *cbdata)
{
    (void)ref;
    op_done(status, cbdata);
}

/* Lost connections reach on_lost_connection before any rank connects:
 * the registration is waited for. */
static rtm_status_t register_lost_handler(void)
{
    pmix_status_t code = PMIX_ERR_LOST_CONNECTION;
    pmix_wait_t w = PMIX_WAIT_INIT;
    pmix_status_t rc;

    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_lost_connection, handler_registered,
                                     &w);
    rc = op_wait(&w, rc);
    if (rc != PMIX_SUCCESS)
        return rtm_error_set(RTM_ERR_PMIX, "PMIx_Register_event_handler(LOST_CONNECTION): %s",
                             PMIx_Error_string(rc));
    return RTM_OK;
}

static pmix_server_module_t server_module = {
    .client_connected = cb_client_connected,
    .client_finalized = cb_client_finalized,
    .abort = cb_abort,
    .fence_nb = cb_fence_nb,
    .direct_modex = cb_direct_modex,
};

/* The library reads its variables from the environment at init: the lost
 * connections are to be reported at once (see top), whatever the user's
 * environment says; the ranks get the user's value. */
#define CACHING_WINDOW_VAR "PMIX_MCA_pmix_event_caching_window"

static pmix_status_t server_init(pmix_info_t info[], size_t ninfo)
{
    const char *user = getenv(CACHING_WINDOW_VAR);
    char *saved = user != NULL ? strdup(user) : NULL;
    pmix_status_t rc;

    if (user != NULL && saved == NULL)
        return PMIX_ERR_NOMEM;
    setenv(CACHING_WINDOW_VAR, "0", 1);
    rc = PMIx_server_init(&server_module, info, ninfo);
    if (saved != NULL)
        setenv(CACHING_WINDOW_VAR, saved, 1);
    else
        unsetenv(CACHING_WINDOW_VAR);
    free(saved);
    return rc;
}

rtm_status_t rtrun_pmix_server_start(const char *tmpdir, const char *nspace, int event_fd,
                                     void *hwloc_topology, const char *host_name, int self_host)
{
    pmix_topology_t topology = {.source = "hwloc", .topology = hwloc_topology};
    pmix_info_t info[6];
    size_t ninfo = 4;
    char server_nspace[PMIX_MAX_NSLEN + 1];
    pmix_rank_t server_rank = 0;
    pmix_status_t rc;
    rtm_status_t status;

    if (tmpdir == NULL || nspace == NULL || event_fd < 0 || strlen(nspace) > PMIX_MAX_NSLEN - 8)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_pmix_server_start: bad argument");
    server_event_fd = event_fd;
    server_self_host = self_host;
    snprintf(server_job_nspace, sizeof(server_job_nspace), "%s", nspace);
    snprintf(server_nspace, sizeof(server_nspace), "%s.rtrun", nspace);

    /* Both the server's and the "system" rendezvous files go in the job's
     * own directory, which rtrun removes at exit. */
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_SERVER_NSPACE, server_nspace, PMIX_STRING);
    if (self_host >= 0)
        server_rank = (pmix_rank_t)self_host;
    PMIX_INFO_LOAD(&info[3], PMIX_SERVER_RANK, &server_rank, PMIX_PROC_RANK);
    /* Test hosts (network namespaces) share one kernel hostname: the
     * server must call itself by the job map's name of its host. */
    if (self_host >= 0 && host_name != NULL)
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_HOSTNAME, host_name, PMIX_STRING);
    if (hwloc_topology != NULL)
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_TOPOLOGY2, &topology, PMIX_TOPO);
    rtrun_pmix_gate_before_listen();
    rc = server_init(info, ninfo);
    for (size_t i = 0; i < ninfo; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    if (rc != PMIX_SUCCESS)
        return rtm_error_set(RTM_ERR_PMIX, "PMIx_server_init failed: %s (temp dir %s)",
                             PMIx_Error_string(rc), tmpdir);
    server_started = 1;
    status = rtrun_pmix_gate_arm(nspace, host_name != NULL ? host_name : rtm_log_hostname());
    if (status != RTM_OK)
        return status;
    return register_lost_handler();
}

/* Static: a finalize that never returns must still find it alive. */
static pmix_wait_t finalize_wait = PMIX_WAIT_INIT;

static void *finalize_thread(void *arg)
{
    (void)arg;
    op_done(PMIx_server_finalize(), &finalize_wait);
    return NULL;
}

void rtrun_pmix_server_stop(int all_finalized)
{
    pthread_attr_t attr;
    pthread_t thread;
    int rc;

    if (!server_started)
        return;
    if (server_wedged) {
        /* PMIx_server_finalize would wait for the same stuck thread. */
        server_started = 0;
        server_abandoned = 1;
        return;
    }
    if (!all_finalized) {
        /* After an abort or a killed rank, OpenPMIx 4.2's
         * PMIx_server_finalize sometimes crashes, or hangs for good joining
         * its progress thread (stuck on a lock), while that thread still
         * tears down the lost clients (both seen with
         * tests/launcher/abort.sh's job run in a loop). The process exits right after this
         * and its rendezvous files are in the job's temp dir, which the
         * caller removes: nothing is lost by not finalizing. */
        rtm_debug("PMIx server not finalized: not every rank finalized");
        server_started = 0;
        return;
    }
    /* In a thread of its own, waited for a bounded time: a client the
     * library half-handled (a process of the job that connected and went
     * quiet, one the library refused) can leave it waiting for good on its
     * own locks, and rtrun must still end, at once when told to. The
     * thread inherits the blocked signals. */
    server_started = 0;
    rc = pthread_attr_init(&attr);
    if (rc == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        rc = pthread_create(&thread, &attr, finalize_thread, NULL);
        pthread_attr_destroy(&attr);
    }
    if (rc != 0) {
        rtm_debug("PMIx server not finalized: no thread for it (%s)", strerror(rc));
        server_abandoned = 1;
        return;
    }
    rc = teardown_wait(&finalize_wait);
    if (rc != 0) {
        rtm_info("PMIx_server_finalize %s; leaving the PMIx server as it is",
                 rc == EINTR ? "interrupted by a signal to end"
                             : "did not return within " RTRUN_PMIX_TEARDOWN_STR " s");
        server_abandoned = 1;
        return;
    }
    if (finalize_wait.status != PMIX_SUCCESS)
        rtm_warn("PMIx_server_finalize: %s", PMIx_Error_string(finalize_wait.status));
}

int rtrun_pmix_server_abandoned(void)
{
    return server_abandoned;
}

static char *join_argv(int argc, char **argv)
{
    size_t len = 1;
    char *s;

    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    s = malloc(len);
    if (s == NULL)
        return NULL;
    s[0] = '\0';
    for (int i = 0; i < argc; i++) {
        if (i > 0)
            strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

/* Adds one key to an info list; stops at the first failure. */
#define LIST_ADD(_rc, _list, _key, _val, _type) \
    do { \
        if ((_rc) == PMIX_SUCCESS) \
            (_rc) = PMIx_Info_list_add((_list), (_key), (_val), (_type)); \
    } while (0)

/* Converts a sub-list into a data array stored under _key in _list. */
static pmix_status_t list_add_array(void *list, const char *key, void *sub)
{
    pmix_data_array_t darray;
    pmix_status_t rc;

    rc = PMIx_Info_list_convert(sub, &darray);
    PMIx_Info_list_release(sub);
    if (rc != PMIX_SUCCESS)
        return rc;
    rc = PMIx_Info_list_add(list, key, &darray, PMIX_DATA_ARRAY);
    PMIX_DATA_ARRAY_DESTRUCT(&darray);
    return rc;
}

/* Whether the job spans the hosts of job->hosts[] (this server being the
 * one of server_self_host); else every rank is on job->hostname. */
static int job_is_multi(const rtrun_job_t *job)
{
    return server_self_host >= 0 && job->hosts != NULL && job->nhosts > 0 &&
           server_self_host < job->nhosts;
}

static const char *host_name_of(const rtrun_job_t *job, int h)
{
    return job_is_multi(job) ? job->hosts[h].name : job->hostname;
}

/* "r0,r1,..." of the ranks on host h (caller frees); *count_p, *leader_p. */
static char *host_peers(const rtrun_job_t *job, int h, uint32_t *count_p, pmix_rank_t *leader_p)
{
    size_t len = (size_t)job->nprocs * 7 + 1, used = 0;
    char *s = malloc(len);
    uint32_t count = 0;

    if (s == NULL)
        return NULL;
    s[0] = '\0';
    *leader_p = 0;
    for (int r = 0; r < job->nprocs; r++) {
        if (job_is_multi(job) && job->ranks[r].node_id != h)
            continue;
        if (count++ == 0)
            *leader_p = (pmix_rank_t)r;
        used += (size_t)snprintf(s + used, len - used, "%s%d", used ? "," : "", r);
    }
    *count_p = count;
    return s;
}

/* Node regex input "h0,h1" and proc regex input "0,1;2,3" (caller frees). */
static rtm_status_t job_maps(const rtrun_job_t *job, char **nodes_p, char **procs_p)
{
    int nhosts = job_is_multi(job) ? job->nhosts : 1;
    size_t nlen = 1, plen = (size_t)job->nprocs * 7 + (size_t)nhosts + 1, used = 0;
    char *nodes, *procs;

    for (int h = 0; h < nhosts; h++)
        nlen += strlen(host_name_of(job, h)) + 1;
    nodes = malloc(nlen);
    procs = malloc(plen);
    if (nodes == NULL || procs == NULL) {
        free(nodes);
        free(procs);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory registering the job");
    }
    nodes[0] = '\0';
    for (int h = 0; h < nhosts; h++) {
        if (h > 0)
            strcat(nodes, ",");
        strcat(nodes, host_name_of(job, h));
    }
    procs[0] = '\0';
    for (int h = 0; h < nhosts; h++) {
        int first = 1;

        if (h > 0)
            used += (size_t)snprintf(procs + used, plen - used, ";");
        for (int r = 0; r < job->nprocs; r++) {
            if (job_is_multi(job) && job->ranks[r].node_id != h)
                continue;
            used += (size_t)snprintf(procs + used, plen - used, "%s%d", first ? "" : ",", r);
            first = 0;
        }
    }
    *nodes_p = nodes;
    *procs_p = procs;
    return RTM_OK;
}

/* The strings the job's info points to, kept until it is registered. */
typedef struct job_strings {
    char    *peers;       /* this host's ranks, "r0,r1,..." */
    char    *argv;        /* the application's command line */
    char    *nodes, *procs;
    char    *node_regex, *proc_regex;
    uint32_t local_size;  /* ranks on this host */
    pmix_rank_t leader;   /* the lowest of them */
    char     cwd[4096];
} job_strings_t;

static void job_strings_free(job_strings_t *js)
{
    free(js->nodes);
    free(js->procs);
    free(js->proc_regex);
    free(js->node_regex);
    free(js->argv);
    free(js->peers);
}

static rtm_status_t job_strings_make(const rtrun_job_t *job, int self, int prog_argc,
                                     char **prog_argv, job_strings_t *js)
{
    pmix_status_t rc;
    rtm_status_t status;

    if (getcwd(js->cwd, sizeof(js->cwd)) == NULL)
        snprintf(js->cwd, sizeof(js->cwd), "/");
    js->peers = host_peers(job, self, &js->local_size, &js->leader);
    js->argv = join_argv(prog_argc, prog_argv);
    if (js->peers == NULL || js->argv == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory registering the job");
    status = job_maps(job, &js->nodes, &js->procs);
    if (status != RTM_OK)
        return status;
    rc = PMIx_generate_regex(js->nodes, &js->node_regex);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_generate_ppn(js->procs, &js->proc_regex);
    if (rc != PMIX_SUCCESS)
        return rtm_error_set(RTM_ERR_PMIX, "PMIx_generate_regex/ppn failed: %s",
                             PMIx_Error_string(rc));
    return RTM_OK;
}

/* Job-level keys (also what clients look up with a wildcard rank). */
static pmix_status_t add_job_level(void *list, const rtrun_job_t *job, const char *tmpdir,
                                   uint32_t nnodes, const job_strings_t *js)
{
    pmix_status_t rc = PMIX_SUCCESS;
    uint32_t job_size = (uint32_t)job->nprocs, univ_size = job_size, one = 1;
    uint32_t local_size = js->local_size;
    pmix_rank_t leader = js->leader;

    LIST_ADD(rc, list, PMIX_JOBID, job->nspace, PMIX_STRING);
    LIST_ADD(rc, list, PMIX_JOB_SIZE, &job_size, PMIX_UINT32);
    LIST_ADD(rc, list, PMIX_UNIV_SIZE, &univ_size, PMIX_UINT32);
    LIST_ADD(rc, list, PMIX_MAX_PROCS, &univ_size, PMIX_UINT32);
    LIST_ADD(rc, list, PMIX_NUM_NODES, &nnodes, PMIX_UINT32);
    LIST_ADD(rc, list, PMIX_JOB_NUM_APPS, &one, PMIX_UINT32);
    LIST_ADD(rc, list, PMIX_NODE_MAP, js->node_regex, PMIX_REGEX);
    LIST_ADD(rc, list, PMIX_PROC_MAP, js->proc_regex, PMIX_REGEX);
    LIST_ADD(rc, list, PMIX_TMPDIR, tmpdir, PMIX_STRING);
    LIST_ADD(rc, list, PMIX_LOCAL_SIZE, &local_size, PMIX_UINT32);
    LIST_ADD(rc, list, PMIX_LOCAL_PEERS, js->peers, PMIX_STRING);
    LIST_ADD(rc, list, PMIX_LOCALLDR, &leader, PMIX_PROC_RANK);
    if (server_job_secret != NULL && server_job_secret->set) {
        pmix_byte_object_t bo = {(char *)(uintptr_t)server_job_secret->key, RTM_SECRET_LEN};

        LIST_ADD(rc, list, RTM_SECRET_PMIX_KEY, &bo, PMIX_BYTE_OBJECT);
    }
    return rc;
}

/* Every host of the job (this one only, for a one-host job). */
static pmix_status_t add_node_info(void *list, const rtrun_job_t *job, uint32_t nnodes, int self)
{
    pmix_status_t rc = PMIX_SUCCESS;

    for (uint32_t h = 0; h < nnodes && rc == PMIX_SUCCESS; h++) {
        uint32_t h_size = 0;
        pmix_rank_t h_leader = 0;
        char *h_peers = host_peers(job, (int)h, &h_size, &h_leader);
        void *sub;

        if (h_peers == NULL)
            return PMIX_ERR_NOMEM;
        sub = PMIx_Info_list_start();
        LIST_ADD(rc, sub, PMIX_HOSTNAME, host_name_of(job, (int)h), PMIX_STRING);
        LIST_ADD(rc, sub, PMIX_NODEID, &h, PMIX_UINT32);
        LIST_ADD(rc, sub, PMIX_NODE_SIZE, &h_size, PMIX_UINT32);
        LIST_ADD(rc, sub, PMIX_LOCAL_SIZE, &h_size, PMIX_UINT32);
        LIST_ADD(rc, sub, PMIX_LOCALLDR, &h_leader, PMIX_PROC_RANK);
        LIST_ADD(rc, sub, PMIX_LOCAL_PEERS, h_peers, PMIX_STRING);
        if (job->oversubscribed && (int)h == self)
            LIST_ADD(rc, sub, PMIX_NODE_OVERSUBSCRIBED, NULL, PMIX_BOOL);
        if (rc == PMIX_SUCCESS)
            rc = list_add_array(list, PMIX_NODE_INFO_ARRAY, sub);
        else
            PMIx_Info_list_release(sub);
        free(h_peers);
    }
    return rc;
}

/* The one application. */
static pmix_status_t add_app_info(void *list, const rtrun_job_t *job, const job_strings_t *js)
{
    pmix_status_t rc = PMIX_SUCCESS;
    uint32_t zero32 = 0, job_size = (uint32_t)job->nprocs;
    void *sub = PMIx_Info_list_start();

    LIST_ADD(rc, sub, PMIX_APPNUM, &zero32, PMIX_UINT32);
    LIST_ADD(rc, sub, PMIX_APP_SIZE, &job_size, PMIX_UINT32);
    LIST_ADD(rc, sub, PMIX_APPLDR, &zero32, PMIX_PROC_RANK);
    LIST_ADD(rc, sub, PMIX_WDIR, js->cwd, PMIX_STRING);
    LIST_ADD(rc, sub, PMIX_APP_ARGV, js->argv, PMIX_STRING);
    if (rc == PMIX_SUCCESS)
        return list_add_array(list, PMIX_APP_INFO_ARRAY, sub);
    PMIx_Info_list_release(sub);
    return rc;
}

/* Each rank, remote ones too (OpenPMIx's client fails PMIx_Init
 * without them); the array must start with PMIX_RANK. */
static pmix_status_t add_proc_info(void *list, const rtrun_job_t *job, int multi)
{
    pmix_status_t rc = PMIX_SUCCESS;
    uint32_t zero32 = 0;

    for (int r = 0; r < job->nprocs && rc == PMIX_SUCCESS; r++) {
        const rtrun_rank_t *rk = &job->ranks[r];
        pmix_rank_t prank = (pmix_rank_t)r;
        uint16_t local_rank = (uint16_t)rk->local_rank, node_rank = (uint16_t)rk->node_rank;
        uint32_t nid = (uint32_t)rk->node_id;
        void *sub = PMIx_Info_list_start();

        LIST_ADD(rc, sub, PMIX_RANK, &prank, PMIX_PROC_RANK);
        LIST_ADD(rc, sub, PMIX_APPNUM, &zero32, PMIX_UINT32);
        LIST_ADD(rc, sub, PMIX_LOCAL_RANK, &local_rank, PMIX_UINT16);
        LIST_ADD(rc, sub, PMIX_NODE_RANK, &node_rank, PMIX_UINT16);
        LIST_ADD(rc, sub, PMIX_NODEID, &nid, PMIX_UINT32);
        LIST_ADD(rc, sub, PMIX_REINCARNATION, &zero32, PMIX_UINT32);
        LIST_ADD(rc, sub, PMIX_HOSTNAME, host_name_of(job, multi ? rk->node_id : 0), PMIX_STRING);
        if (rc == PMIX_SUCCESS)
            rc = list_add_array(list, PMIX_PROC_DATA, sub);
        else
            PMIx_Info_list_release(sub);
    }
    return rc;
}

/* The whole job info as one array for PMIx_server_register_nspace. */
static rtm_status_t build_job_info(const rtrun_job_t *job, const char *tmpdir, int multi,
                                   int self, const job_strings_t *js, pmix_data_array_t *info_p)
{
    uint32_t nnodes = multi ? (uint32_t)job->nhosts : 1;
    void *list = PMIx_Info_list_start();
    pmix_status_t rc;

    rc = add_job_level(list, job, tmpdir, nnodes, js);
    if (rc == PMIX_SUCCESS)
        rc = add_node_info(list, job, nnodes, self);
    if (rc == PMIX_SUCCESS)
        rc = add_app_info(list, job, js);
    if (rc == PMIX_SUCCESS)
        rc = add_proc_info(list, job, multi);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Info_list_convert(list, info_p);
    PMIx_Info_list_release(list);
    if (rc != PMIX_SUCCESS)
        return rtm_error_set(RTM_ERR_PMIX, "building the job info for PMIx failed: %s",
                             PMIx_Error_string(rc));
    return RTM_OK;
}

/* This host's ranks, as the clients the server admits. */
static rtm_status_t register_clients(const rtrun_job_t *job, int multi, int self)
{
    for (int r = 0; r < job->nprocs; r++) {
        pmix_wait_t wait_client = PMIX_WAIT_INIT;
        pmix_proc_t proc;
        pmix_status_t rc;

        if (multi && job->ranks[r].node_id != self)
            continue;
        PMIX_LOAD_PROCID(&proc, job->nspace, (pmix_rank_t)r);
        rc = PMIx_server_register_client(&proc, geteuid(), getegid(), NULL, op_done,
                                         &wait_client);
        rc = op_wait(&wait_client, rc);
        if (rc != PMIX_SUCCESS)
            return rtm_error_set(RTM_ERR_PMIX,
                                 "PMIx_server_register_client(%s, rank %d) failed: %s",
                                 job->nspace, r, PMIx_Error_string(rc));
    }
    return RTM_OK;
}

void rtrun_pmix_set_job_secret(const rtm_secret_t *secret)
{
    server_job_secret = secret;
}

rtm_status_t rtrun_pmix_register_job(const rtrun_job_t *job, const char *tmpdir,
                                     int prog_argc, char **prog_argv)
{
    pmix_wait_t wait_nspace = PMIX_WAIT_INIT;
    job_strings_t js;
    pmix_data_array_t darray;
    pmix_status_t rc;
    rtm_status_t status;
    int multi, self;

    if (job == NULL || tmpdir == NULL || prog_argc < 1 || prog_argv == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_pmix_register_job: bad argument");
    multi = job_is_multi(job);
    self = multi ? server_self_host : 0;
    server_job_size = job->nprocs;
    status = rtrun_pmix_gate_set_ranks(job->nprocs);
    if (status != RTM_OK)
        return status;
    for (int r = 0; r < job->nprocs; r++)
        if (multi && job->ranks[r].node_id != self)
            rtrun_pmix_gate_rank_pid(r, 0); /* another host's: never admitted here */
    memset(&js, 0, sizeof(js));
    status = job_strings_make(job, self, prog_argc, prog_argv, &js);
    if (status == RTM_OK)
        status = build_job_info(job, tmpdir, multi, self, &js, &darray);
    if (status != RTM_OK)
        goto err_free_strings;

    rc = PMIx_server_register_nspace(job->nspace, (int)js.local_size,
                                     (pmix_info_t *)darray.array, darray.size, op_done,
                                     &wait_nspace);
    rc = op_wait(&wait_nspace, rc);
    for (size_t i = 0; i < darray.size; i++) {
        pmix_info_t *in = &((pmix_info_t *)darray.array)[i];

        if (PMIX_CHECK_KEY(in, RTM_SECRET_PMIX_KEY) && in->value.type == PMIX_BYTE_OBJECT)
            rtm_secret_wipe(in->value.data.bo.bytes, in->value.data.bo.size);
    }
    PMIX_DATA_ARRAY_DESTRUCT(&darray);
    if (rc != PMIX_SUCCESS) {
        status = rtm_error_set(RTM_ERR_PMIX, "PMIx_server_register_nspace(%s) failed: %s",
                               job->nspace, PMIx_Error_string(rc));
        goto err_free_strings;
    }
    status = register_clients(job, multi, self);
    if (status != RTM_OK)
        goto err_deregister_nspace;
    job_strings_free(&js);
    return RTM_OK;

err_deregister_nspace:
    rtrun_pmix_deregister_job(job);
err_free_strings:
    job_strings_free(&js);
    return status;
}

static void fence_done_release(void *cbdata)
{
    free(cbdata);
}

void rtrun_pmix_fence_done(rtrun_pmix_req_t *req, int ok, const char *data, size_t len)
{
    pmix_modex_cbfunc_t cbfunc;
    char *copy = NULL;

    if (req == NULL)
        return;
    cbfunc = (pmix_modex_cbfunc_t)req->cbfunc;
    if (ok && len > 0) {
        copy = malloc(len);
        if (copy == NULL)
            ok = 0;
        else
            memcpy(copy, data, len);
    }
    /* The library frees `copy` through fence_done_release. */
    if (cbfunc != NULL)
        cbfunc(ok ? PMIX_SUCCESS : PMIX_ERR_PARTIAL_SUCCESS, copy, ok ? len : 0, req->cbdata,
               fence_done_release, copy);
    else
        free(copy);
    rtrun_pmix_req_free(req);
}

void rtrun_pmix_dmodex_done(rtrun_pmix_req_t *req, int pmix_status, const char *data, size_t len)
{
    pmix_modex_cbfunc_t cbfunc;
    char *copy = NULL;

    if (req == NULL)
        return;
    cbfunc = (pmix_modex_cbfunc_t)req->cbfunc;
    if (pmix_status == PMIX_SUCCESS && len > 0) {
        copy = malloc(len);
        if (copy == NULL)
            pmix_status = PMIX_ERR_NOMEM;
        else
            memcpy(copy, data, len);
    }
    if (cbfunc != NULL)
        cbfunc(pmix_status, copy, copy ? len : 0, req->cbdata, fence_done_release, copy);
    else
        free(copy);
    rtrun_pmix_req_free(req);
}

/* PMIx's thread: the local rank's data is ready for the host that asked. */
static void dmodex_served(pmix_status_t status, char *data, size_t sz, void *cbdata)
{
    rtrun_pmix_req_t *req = cbdata;

    req->status = status;
    if (status == PMIX_SUCCESS && sz > 0) {
        req->data = malloc(sz);
        if (req->data == NULL)
            req->status = PMIX_ERR_NOMEM;
        else {
            memcpy(req->data, data, sz);
            req->ndata = sz;
        }
    }
    if (post_req(RTRUN_PMIX_EV_SERVED, req) != 0)
        rtrun_pmix_req_free(req);
}

rtm_status_t rtrun_pmix_dmodex_serve(const char *nspace, int rank, int from_host, int from_id)
{
    rtrun_pmix_req_t *req;
    pmix_proc_t proc;
    pmix_status_t rc;

    if (nspace == NULL || rank < 0)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_pmix_dmodex_serve: bad argument");
    req = calloc(1, sizeof(*req));
    if (req == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for a direct modex request");
    req->rank = rank;
    req->from_host = from_host;
    req->from_id = from_id;
    PMIX_LOAD_PROCID(&proc, nspace, (pmix_rank_t)rank);
    rc = PMIx_server_dmodex_request(&proc, dmodex_served, req);
    if (rc != PMIX_SUCCESS) {
        free(req);
        return rtm_error_set(RTM_ERR_PMIX, "PMIx_server_dmodex_request(rank %d) failed: %s", rank,
                             PMIx_Error_string(rc));
    }
    return RTM_OK;
}

/* Static: if the library never calls back, a late op_done must still find
 * it alive. */
static pmix_wait_t deregister_wait = PMIX_WAIT_INIT;

void rtrun_pmix_deregister_job(const rtrun_job_t *job)
{
    int rc;

    if (job == NULL || !server_started)
        return;
    PMIx_server_deregister_nspace(job->nspace, op_done, &deregister_wait);
    /* Bounded: after a rank's PMIx_Abort, OpenPMIx 4.2.2 was seen (rarely,
     * under load) to wedge its progress thread so this never completes;
     * rtrun must still exit, and at once after a SIGTERM. */
    rc = teardown_wait(&deregister_wait);
    if (rc != 0) {
        rtm_info("the PMIx server did not release job %s %s; leaving it as it is", job->nspace,
                 rc == EINTR ? "before a signal to end came"
                             : "within " RTRUN_PMIX_TEARDOWN_STR " s");
        server_wedged = 1;
    }
}

rtm_status_t rtrun_pmix_setup_fork(const rtrun_job_t *job, int rank, char ***env_p)
{
    pmix_proc_t proc;
    pmix_status_t rc;

    if (job == NULL || env_p == NULL || rank < 0 || rank >= job->nprocs)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_pmix_setup_fork: bad argument");
    PMIX_LOAD_PROCID(&proc, job->nspace, (pmix_rank_t)rank);
    rc = PMIx_server_setup_fork(&proc, env_p);
    if (rc != PMIX_SUCCESS)
        return rtm_error_set(RTM_ERR_PMIX, "PMIx_server_setup_fork(rank %d) failed: %s", rank,
                             PMIx_Error_string(rc));
    return RTM_OK;
}
