/*
 * The job as PMIx describes it: this rank, the job size, the ranks on this
 * host, every rank's host, and the modex (transport addresses published with
 * PMIx_Put/Commit and collected with one PMIx_Fence). Without a PMIx server
 * the process runs as a singleton (world of size 1).
 */
#include "config.h"

#include "runtime/runtime.h"
#include "common/error.h"
#include "common/log.h"

#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pmix_proc_t pmi_me;
static int         pmi_active;
static char      **pmi_hostnames;   /* by world rank, filled on demand */

static rtm_status_t pmi_get(int rank, const char *key, pmix_value_t **val_p)
{
    pmix_proc_t proc;
    pmix_status_t rc;

    PMIX_LOAD_PROCID(&proc, pmi_me.nspace, rank < 0 ? PMIX_RANK_WILDCARD : (pmix_rank_t)rank);
    rc = PMIx_Get(&proc, key, NULL, 0, val_p);
    if (rc != PMIX_SUCCESS)
        return rtm_error_set(rc == PMIX_ERR_NOT_FOUND ? RTM_ERR_UNREACHABLE : RTM_ERR_PMIX,
                             "PMIx_Get(%s, rank %d) failed: %s", key, rank,
                             PMIx_Error_string(rc));
    return RTM_OK;
}

static rtm_status_t pmi_get_uint(int rank, const char *key, unsigned *value_p)
{
    pmix_value_t *val;
    rtm_status_t status = pmi_get(rank, key, &val);
    unsigned v;

    if (status != RTM_OK)
        return status;
    switch (val->type) {
    case PMIX_UINT32:  v = val->data.uint32; break;
    case PMIX_UINT16:  v = val->data.uint16; break;
    case PMIX_PROC_RANK: v = val->data.rank; break;
    case PMIX_INT:     v = (unsigned)val->data.integer; break;
    case PMIX_UINT:    v = val->data.uint; break;
    default:
        PMIX_VALUE_RELEASE(val);
        return rtm_error_set(RTM_ERR_PMIX, "PMIx key %s has unexpected type %s", key,
                             PMIx_Data_type_string(val->type));
    }
    PMIX_VALUE_RELEASE(val);
    *value_p = v;
    return RTM_OK;
}

/* PMIX_LOCAL_PEERS is "r0,r1,...": the world ranks sharing this host. */
static rtm_status_t pmi_local_peers(void)
{
    pmix_value_t *val;
    rtm_status_t status = pmi_get(-1, PMIX_LOCAL_PEERS, &val);
    const char *p;
    int n = 1;

    if (status != RTM_OK)
        return status;
    if (val->type != PMIX_STRING || val->data.string == NULL) {
        PMIX_VALUE_RELEASE(val);
        return rtm_error_set(RTM_ERR_PMIX, "PMIX_LOCAL_PEERS is not a string");
    }
    for (p = val->data.string; *p; p++)
        n += (*p == ',');
    rtm_rt.local_peers = calloc((size_t)n, sizeof(int));
    if (rtm_rt.local_peers == NULL) {
        PMIX_VALUE_RELEASE(val);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for %d local peers", n);
    }
    rtm_rt.local_size = 0;
    p = val->data.string;
    while (*p) {
        char *end;
        long r = strtol(p, &end, 10);

        if (end == p || r < 0 || r >= rtm_rt.world_size) {
            rtm_error_set(RTM_ERR_PMIX, "PMIX_LOCAL_PEERS \"%s\" holds an invalid rank",
                          val->data.string);
            PMIX_VALUE_RELEASE(val);
            return RTM_ERR_PMIX;
        }
        rtm_rt.local_peers[rtm_rt.local_size++] = (int)r;
        p = (*end == ',') ? end + 1 : end;
    }
    PMIX_VALUE_RELEASE(val);
    return RTM_OK;
}

static rtm_status_t job_init_singleton(void)
{
    rtm_rt.singleton = 1;
    rtm_rt.world_rank = 0;
    rtm_rt.world_size = 1;
    rtm_rt.local_rank = 0;
    rtm_rt.local_size = 1;
    rtm_rt.node_id = 0;
    rtm_rt.num_nodes = 1;
    rtm_rt.local_peers = calloc(1, sizeof(int));
    if (rtm_rt.local_peers == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory");
    snprintf(rtm_rt.nspace, sizeof(rtm_rt.nspace), "singleton.%d", (int)getpid());
    return RTM_OK;
}

rtm_status_t job_init(void)
{
    pmix_status_t rc;
    rtm_status_t status;
    unsigned v;

    snprintf(rtm_rt.hostname, sizeof(rtm_rt.hostname), "%s", rtm_log_hostname());
    rc = PMIx_Init(&pmi_me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        /* No server to talk to: started without a launcher. */
        rtm_debug("no PMIx server (%s): running as a singleton", PMIx_Error_string(rc));
        return job_init_singleton();
    }
    pmi_active = 1;
    snprintf(rtm_rt.nspace, sizeof(rtm_rt.nspace), "%s", pmi_me.nspace);
    rtm_rt.world_rank = (int)pmi_me.rank;

    status = pmi_get_uint(-1, PMIX_JOB_SIZE, &v);
    if (status != RTM_OK)
        goto err_finalize;
    rtm_rt.world_size = (int)v;
    if (rtm_rt.world_size < 1 || rtm_rt.world_rank >= rtm_rt.world_size) {
        status = rtm_error_set(RTM_ERR_PMIX, "PMIx says rank %d in a job of %d",
                               rtm_rt.world_rank, rtm_rt.world_size);
        goto err_finalize;
    }
    status = pmi_local_peers();
    if (status != RTM_OK)
        goto err_finalize;
    rtm_rt.local_rank = -1;
    for (int i = 0; i < rtm_rt.local_size; i++) {
        if (rtm_rt.local_peers[i] == rtm_rt.world_rank)
            rtm_rt.local_rank = i;
    }
    if (rtm_rt.local_rank < 0) {
        status = rtm_error_set(RTM_ERR_PMIX, "PMIX_LOCAL_PEERS does not list rank %d itself",
                               rtm_rt.world_rank);
        goto err_finalize;
    }
    rtm_rt.num_nodes = 1;
    if (pmi_get_uint(-1, PMIX_NUM_NODES, &v) == RTM_OK && v > 0)
        rtm_rt.num_nodes = (int)v;
    rtm_rt.node_id = 0;
    if (pmi_get_uint(rtm_rt.world_rank, PMIX_NODEID, &v) == RTM_OK)
        rtm_rt.node_id = (int)v;
    pmi_hostnames = calloc((size_t)rtm_rt.world_size, sizeof(char *));
    if (pmi_hostnames == NULL) {
        status = rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for %d host names",
                               rtm_rt.world_size);
        goto err_finalize;
    }
    return RTM_OK;

err_finalize:
    free(rtm_rt.local_peers);
    rtm_rt.local_peers = NULL;
    PMIx_Finalize(NULL, 0);
    pmi_active = 0;
    return status;
}

/* The node index of a world rank: from PMIx, or this node for local peers. */
int job_peer_node(int peer)
{
    unsigned v;

    if (rtm_rt.singleton || peer == rtm_rt.world_rank)
        return rtm_rt.node_id;
    for (int i = 0; i < rtm_rt.local_size; i++) {
        if (rtm_rt.local_peers[i] == peer)
            return rtm_rt.node_id;
    }
    if (pmi_get_uint(peer, PMIX_NODEID, &v) == RTM_OK)
        return (int)v;
    return -1;
}

void job_finalize(void)
{
    if (pmi_hostnames != NULL) {
        for (int i = 0; i < rtm_rt.world_size; i++)
            free(pmi_hostnames[i]);
        free(pmi_hostnames);
        pmi_hostnames = NULL;
    }
    free(rtm_rt.local_peers);
    rtm_rt.local_peers = NULL;
    if (pmi_active) {
        PMIx_Finalize(NULL, 0);
        pmi_active = 0;
    }
}

rtm_status_t job_publish(const char *key, const void *blob, size_t len)
{
    pmix_value_t val;
    pmix_status_t rc;

    if (!pmi_active)
        return RTM_OK;
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)(uintptr_t)blob;
    val.data.bo.size = len;
    rc = PMIx_Put(PMIX_GLOBAL, key, &val);
    if (rc != PMIX_SUCCESS)
        return rtm_error_set(RTM_ERR_PMIX, "PMIx_Put(%s) failed: %s", key,
                             PMIx_Error_string(rc));
    return RTM_OK;
}

rtm_status_t job_commit_and_fence(void)
{
    pmix_info_t info;
    pmix_status_t rc;
    bool collect = true;

    if (!pmi_active)
        return RTM_OK;
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        return rtm_error_set(RTM_ERR_PMIX, "PMIx_Commit failed: %s", PMIx_Error_string(rc));
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS)
        return rtm_error_set(RTM_ERR_PMIX,
                             "PMIx_Fence (address exchange) failed: %s; is the launcher "
                             "still running?", PMIx_Error_string(rc));
    return RTM_OK;
}

rtm_status_t job_lookup(int peer, const char *key, void **blob_p, size_t *len_p)
{
    pmix_value_t *val;
    rtm_status_t status;
    void *copy;

    if (!pmi_active)
        return rtm_error_set(RTM_ERR_UNREACHABLE, "no PMIx server: no peer addresses");
    status = pmi_get(peer, key, &val);
    if (status != RTM_OK)
        return status;
    if (val->type != PMIX_BYTE_OBJECT) {
        PMIX_VALUE_RELEASE(val);
        return rtm_error_set(RTM_ERR_PMIX, "PMIx key %s of rank %d is not a byte object",
                             key, peer);
    }
    copy = malloc(val->data.bo.size ? val->data.bo.size : 1);
    if (copy == NULL) {
        PMIX_VALUE_RELEASE(val);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a %zu-byte address",
                             val->data.bo.size);
    }
    memcpy(copy, val->data.bo.bytes, val->data.bo.size);
    *len_p = val->data.bo.size;
    *blob_p = copy;
    PMIX_VALUE_RELEASE(val);
    return RTM_OK;
}

const char *job_peer_hostname(int peer)
{
    pmix_value_t *val;

    if (peer == rtm_rt.world_rank || !pmi_active || peer < 0 || peer >= rtm_rt.world_size)
        return rtm_rt.hostname;
    if (pmi_hostnames[peer] == NULL && pmi_get(peer, PMIX_HOSTNAME, &val) == RTM_OK) {
        if (val->type == PMIX_STRING && val->data.string != NULL)
            pmi_hostnames[peer] = strdup(val->data.string);
        PMIX_VALUE_RELEASE(val);
    }
    return pmi_hostnames[peer] ? pmi_hostnames[peer] : "unknown host";
}

void job_abort(int code, const char *message)
{
    if (pmi_active) {
        /* The server ends every rank of the job, this one included. */
        PMIx_Abort(code, message, NULL, 0);
    } else {
        rtm_error("rank %d called abort with code %d: %s", rtm_rt.world_rank, code,
                  message);
    }
    _exit(code != 0 ? code : 1);
}
