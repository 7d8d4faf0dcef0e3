/*
 * Start-up and shut-down of a rank: configuration, the job (PMIx),
 * transports and the address exchange, communicators; the public calls on
 * the library's state. The top of the runtime: it calls every module's
 * init and finalize, nothing calls into it. Defines rtm_rt (rt.h).
 */
#include "config.h"

#include "runtime/comm.h"
#include "runtime/ctxid.h"
#include "runtime/job.h"
#include "runtime/match.h"
#include "runtime/peer.h"
#include "runtime/progress.h"
#include "runtime/request.h"
#include "runtime/rt.h"
#include "runtime/state.h"
#include "runtime/tl.h"
#include "common/error.h"
#include "common/log.h"
#include "runtime/rt_config.h"
#include "common/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

rtm_runtime_t rtm_rt;

rtm_status_t rtm_init(void)
{
    rtm_status_t status;

    if (rtm_rt.state == RT_READY)
        return rtm_error_set(RTM_ERR_ALREADY_INITIALIZED, "rtm_init called twice");
    if (rtm_rt.state == RT_FINALIZED)
        return rtm_error_set(RTM_ERR_FINALIZED,
                             "rtm_init called after rtm_finalize (librtmsg cannot be restarted)");
    status = rtm_lib_config_register();
    if (status != RTM_OK)
        return status;
    status = job_init();
    if (status != RTM_OK) {
        rtm_error("cannot join the job: %s", rtm_last_error());
        return status;
    }
    rtm_log_set_identity(NULL, rtm_rt.world_rank);
    if (rtm_rt.world_rank == 0)   /* one warning per job, not one per rank */
        rtm_config_warn_unknown();
    req_pool_init();
    /* before the transports open: a peer's first message may come early */
    match_table_init(&rtm_rt.contexts, 2u * RTM_CTXID_SLOTS);
    status = peers_init();
    if (status != RTM_OK)
        goto err_job;
    status = peers_open_transports();
    if (status != RTM_OK)
        goto err_peers;
    status = job_commit_and_fence();
    if (status != RTM_OK) {
        rtm_error("rank %d (%s): %s", rtm_rt.world_rank, rtm_rt.hostname, rtm_last_error());
        goto err_peers;
    }
    status = peers_wireup();
    if (status != RTM_OK)
        goto err_peers;
    status = comm_init();
    if (status != RTM_OK)
        goto err_peers;
    rtm_rt.state = RT_READY;
    state_init();
    rtm_debug("rank %d of %d ready (local rank %d of %d on node %d)", rtm_rt.world_rank,
              rtm_rt.world_size, rtm_rt.local_rank, rtm_rt.local_size, rtm_rt.node_id);
    return RTM_OK;

err_peers:
    peers_close();
    tls_close();
err_job:
    match_table_cleanup(&rtm_rt.contexts);
    req_pool_cleanup();
    job_finalize();
    return status;
}

rtm_status_t rtm_finalize(void)
{
    rtm_status_t status = rt_check_ready("rtm_finalize");
    rtm_status_t quiesced;

    if (status != RTM_OK)
        return status;
    /* Every rank gets here before any transport closes; then what is still
     * queued (FIN, credits) goes out, and the transports that need it wait
     * for their peers' acknowledgements and fence (peers_quiesce). */
    status = coll_barrier(&rtm_rt.comms[RTM_COMM_WORLD]);
    while (progress_has_pending())
        progress_once();
    quiesced = peers_quiesce();
    if (status == RTM_OK)
        status = quiesced;
    state_fini();
    comm_finalize();
    peers_close();
    tls_close();
    match_table_cleanup(&rtm_rt.contexts);
    req_pool_cleanup();
    job_finalize();
    rtm_rt.state = RT_FINALIZED;
    return status;
}

int rtm_initialized(void)
{
    return rtm_rt.state == RT_READY;
}

int rtm_finalized(void)
{
    return rtm_rt.state == RT_FINALIZED;
}

void rtm_abort(int code, const char *message)
{
    if (message == NULL)
        message = "(no message)";
    if (rtm_rt.state != RT_READY) {
        rtm_error("abort with code %d: %s", code, message);
        _exit(code != 0 ? code : 1);
    }
    job_abort(code, message);
}

double rtm_wtime(void)
{
    return rtm_time_now();
}

double rtm_wtick(void)
{
    return 1e-9;
}

const char *rtm_hostname(void)
{
    return rtm_rt.hostname[0] ? rtm_rt.hostname : rtm_log_hostname();
}

const char *rtm_version_string(void)
{
    return PACKAGE_NAME " " PACKAGE_VERSION;
}
