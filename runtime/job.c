/*
 * The job as PMIx describes it: this rank, the job size, the ranks on this
 * host, every rank's host, and the modex (transport addresses published with
 * PMIx_Put/Commit and collected with one PMIx_Fence). Without a PMIx server
 * the process runs as a singleton (world of size 1).
 */
#include "config.h"

#include "runtime/job.h"
#include "runtime/pmix_sock.h"
#include "runtime/rt.h"
#include "common/error.h"
#include "common/log.h"
#include "runtime/rt_config.h"

#include <errno.h>
#include <limits.h>
#include <pmix.h>
#include <stdbool.h>
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
    if (*val_p == NULL)
        return rtm_error_set(RTM_ERR_PMIX, "PMIx_Get(%s, rank %d) returned no value", key, rank);
    return RTM_OK;
}

/* The standard gives each key one type (PMIX_NODEID uint32, PMIX_LOCAL_RANK
 * uint16, PMIX_LOCALLDR a rank), but servers are free to differ (Slurm and
 * Open MPI already disagree on PMIX_APPNUM and PMIX_GLOBAL_RANK): any
 * integer type, or a decimal string, is taken when the value is in range. */
static rtm_status_t pmi_value_uint(const pmix_value_t *val, const char *key, unsigned *value_p)
{
    unsigned long long u = 0;
    long long i = 0;
    int is_signed = 0;
    char *end;

    switch (val->type) {
    case PMIX_UINT8:     u = val->data.uint8; break;
    case PMIX_UINT16:    u = val->data.uint16; break;
    case PMIX_UINT32:    u = val->data.uint32; break;
    case PMIX_UINT64:    u = val->data.uint64; break;
    case PMIX_UINT:      u = val->data.uint; break;
    case PMIX_SIZE:      u = val->data.size; break;
    case PMIX_PROC_RANK: u = val->data.rank; break;
    case PMIX_INT8:      i = val->data.int8; is_signed = 1; break;
    case PMIX_INT16:     i = val->data.int16; is_signed = 1; break;
    case PMIX_INT32:     i = val->data.int32; is_signed = 1; break;
    case PMIX_INT64:     i = val->data.int64; is_signed = 1; break;
    case PMIX_INT:       i = val->data.integer; is_signed = 1; break;
    case PMIX_STRING:
        if (val->data.string == NULL || val->data.string[0] < '0' || val->data.string[0] > '9')
            goto err_type;
        errno = 0;
        u = strtoull(val->data.string, &end, 10);
        if (errno != 0 || *end != '\0')
            goto err_type;
        break;
    default:
        goto err_type;
    }
    if (is_signed) {
        if (i < 0)
            return rtm_error_set(RTM_ERR_PMIX, "PMIx key %s holds a negative value %lld", key, i);
        u = (unsigned long long)i;
    }
    if (u > INT_MAX)
        return rtm_error_set(RTM_ERR_PMIX, "PMIx key %s holds %llu, out of range", key, u);
    *value_p = (unsigned)u;
    return RTM_OK;

err_type:
    return rtm_error_set(RTM_ERR_PMIX, "PMIx key %s has unexpected type %s", key,
                         PMIx_Data_type_string(val->type));
}

static rtm_status_t pmi_get_uint(int rank, const char *key, unsigned *value_p)
{
    pmix_value_t *val;
    rtm_status_t status = pmi_get(rank, key, &val);

    if (status != RTM_OK)
        return status;
    status = pmi_value_uint(val, key, value_p);
    PMIX_VALUE_RELEASE(val);
    return status;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return (x > y) - (x < y);
}

/* Sorts the local peer list and drops repeats. Every local rank derives its
 * local rank (its index here) and the shared memory layout from this list,
 * so all of them must see the same order whatever order the server used. */
static void pmi_local_peers_normalize(void)
{
    int n = 0;

    qsort(rtm_rt.local_peers, (size_t)rtm_rt.local_size, sizeof(int), cmp_int);
    for (int i = 0; i < rtm_rt.local_size; i++) {
        if (n == 0 || rtm_rt.local_peers[n - 1] != rtm_rt.local_peers[i])
            rtm_rt.local_peers[n++] = rtm_rt.local_peers[i];
    }
    rtm_rt.local_size = n;
}

/* PMIX_LOCAL_PEERS is "r0,r1,...": the world ranks sharing this host. Spaces
 * and "a-b" ranges are accepted too, so a server that compresses the list
 * still works. RTM_ERR_UNREACHABLE when the server does not provide it. */
static rtm_status_t pmi_local_peers_from_key(void)
{
    pmix_value_t *val;
    rtm_status_t status = pmi_get(-1, PMIX_LOCAL_PEERS, &val);
    const char *p;
    int n = 0;

    if (status != RTM_OK)
        return status;
    if (val->type != PMIX_STRING || val->data.string == NULL) {
        status = rtm_error_set(RTM_ERR_PMIX, "rank %d (%s): PMIX_LOCAL_PEERS has type %s, "
                               "not a string", rtm_rt.world_rank, rtm_rt.hostname,
                               PMIx_Data_type_string(val->type));
        goto out_release;
    }
    rtm_rt.local_peers = calloc((size_t)rtm_rt.world_size, sizeof(int));
    if (rtm_rt.local_peers == NULL) {
        status = rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for %d local peers",
                               rtm_rt.world_size);
        goto out_release;
    }
    p = val->data.string;
    for (;;) {
        long first, last;
        char *end;

        while (*p == ' ' || *p == ',')
            p++;
        if (*p == '\0')
            break;
        first = strtol(p, &end, 10);
        last = first;
        if (end != p && *end == '-') {
            p = end + 1;
            last = strtol(p, &end, 10);
        }
        if (end == p || first < 0 || last < first || last >= rtm_rt.world_size ||
            (*end != '\0' && *end != ',' && *end != ' ') ||
            n + (last - first) >= rtm_rt.world_size) {
            status = rtm_error_set(RTM_ERR_PMIX, "rank %d (%s): PMIX_LOCAL_PEERS \"%s\" holds "
                                   "an invalid rank for a job of %d", rtm_rt.world_rank,
                                   rtm_rt.hostname, val->data.string, rtm_rt.world_size);
            goto err_free_peers;
        }
        for (long r = first; r <= last; r++)
            rtm_rt.local_peers[n++] = (int)r;
        p = end;
    }
    if (n == 0) {
        status = rtm_error_set(RTM_ERR_PMIX, "rank %d (%s): PMIX_LOCAL_PEERS is empty",
                               rtm_rt.world_rank, rtm_rt.hostname);
        goto err_free_peers;
    }
    rtm_rt.local_size = n;
    PMIX_VALUE_RELEASE(val);
    return RTM_OK;

err_free_peers:
    free(rtm_rt.local_peers);
    rtm_rt.local_peers = NULL;
out_release:
    PMIX_VALUE_RELEASE(val);
    return status;
}

/* The host name of a world rank as PMIx gives it (PMIX_HOSTNAME), cached;
 * NULL when the server does not say. */
static const char *pmi_hostname_of(int rank)
{
    pmix_value_t *val;

    if (pmi_hostnames[rank] == NULL && pmi_get(rank, PMIX_HOSTNAME, &val) == RTM_OK) {
        if (val->type == PMIX_STRING && val->data.string != NULL)
            pmi_hostnames[rank] = strdup(val->data.string);
        PMIX_VALUE_RELEASE(val);
    }
    return pmi_hostnames[rank];
}

/* Without PMIX_LOCAL_PEERS: the ranks whose PMIX_NODEID is ours, else those
 * whose PMIX_HOSTNAME is ours. One PMIx_Get per rank, so only a fallback.
 * RTM_ERR_UNREACHABLE when the server gives neither key for some rank. */
static rtm_status_t pmi_local_peers_by_rank(int have_node_id, unsigned my_node)
{
    const char *my_host = NULL;
    int n = 0;

    if (!have_node_id) {
        my_host = pmi_hostname_of(rtm_rt.world_rank);
        if (my_host == NULL)
            return rtm_error_set(RTM_ERR_UNREACHABLE, "PMIx gives neither PMIX_NODEID nor "
                                 "PMIX_HOSTNAME of rank %d", rtm_rt.world_rank);
    }
    rtm_rt.local_peers = calloc((size_t)rtm_rt.world_size, sizeof(int));
    if (rtm_rt.local_peers == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for %d local peers",
                             rtm_rt.world_size);
    for (int r = 0; r < rtm_rt.world_size; r++) {
        int same;

        if (r == rtm_rt.world_rank) {
            same = 1;
        } else if (have_node_id) {
            unsigned node;

            if (pmi_get_uint(r, PMIX_NODEID, &node) != RTM_OK)
                goto err_unknown;
            same = (node == my_node);
        } else {
            const char *host = pmi_hostname_of(r);

            if (host == NULL)
                goto err_unknown;
            same = (strcmp(host, my_host) == 0);
        }
        if (same)
            rtm_rt.local_peers[n++] = r;
    }
    rtm_rt.local_size = n;
    return RTM_OK;

err_unknown:
    free(rtm_rt.local_peers);
    rtm_rt.local_peers = NULL;
    return rtm_error_set(RTM_ERR_UNREACHABLE, "PMIx does not say where all ranks run");
}

/* The ranks on this host. Every local rank must come to the same list, and
 * every rank of the job to the same kind of answer (peer.c decides from
 * local_size == world_size whether network transports open at all). */
static rtm_status_t pmi_local_peers(int have_node_id, unsigned my_node)
{
    rtm_status_t status = pmi_local_peers_from_key();

    if (status == RTM_ERR_UNREACHABLE) {
        rtm_debug("PMIx server gives no PMIX_LOCAL_PEERS: finding local ranks by %s",
                  have_node_id ? "PMIX_NODEID" : "PMIX_HOSTNAME");
        status = pmi_local_peers_by_rank(have_node_id, my_node);
    }
    if (status == RTM_ERR_UNREACHABLE) {
        /* Correct but slower: every peer is then reached over the network.
         * Every rank finds the same; one warning per job is enough. */
        if (rtm_rt.world_rank == 0)
            rtm_warn("rank %d (%s): the PMIx server does not say which ranks share a host "
                     "(%s); shared memory is not used", rtm_rt.world_rank, rtm_rt.hostname,
                     rtm_last_error());
        else
            rtm_debug("no locality from PMIx (%s): shared memory is not used",
                      rtm_last_error());
        rtm_rt.local_peers = calloc(1, sizeof(int));
        if (rtm_rt.local_peers == NULL)
            return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory");
        rtm_rt.local_peers[0] = rtm_rt.world_rank;
        rtm_rt.local_size = 1;
        return RTM_OK;
    }
    if (status != RTM_OK)
        return status;
    pmi_local_peers_normalize();
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

/* A launcher that started this process as a rank of a PMIx job whose server
 * did not take it (PMIX_NAMESPACE set), or as one task of several but runs no
 * PMIx server for it: srun without --mpi=pmix, MPICH's PMI-1 mpiexec. Each
 * task would run alone as a singleton and "succeed"; better to stop and say
 * how to launch. These variables are read here, not through the config
 * table, because they are facts the launcher sets, not RTM_* tunables. */
static rtm_status_t job_check_foreign_launch(const char *pmix_error)
{
    static const struct {
        const char *size_var, *rank_var, *launcher, *hint;
    } launchers[] = {
        { "SLURM_STEP_NUM_TASKS", "SLURM_PROCID", "srun",
          "launch with srun --mpi=pmix (or MpiDefault=pmix in slurm.conf), or with rtrun" },
        { "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "Open MPI's mpirun",
          "its PMIx server could not be reached; check that mpirun and librtmsg use "
          "compatible PMIx libraries" },
        { "PMI_SIZE", "PMI_RANK", "a PMI-1/PMI-2 launcher (MPICH's mpiexec?)",
          "librtmsg needs a PMIx server: launch with rtrun, srun --mpi=pmix or Open MPI's "
          "mpirun" },
    };

    const char *ns = getenv("PMIX_NAMESPACE"), *pmix_rank = getenv("PMIX_RANK");

    /* Any PMIx launcher (rtrun, rtd, srun --mpi=pmix, prterun) gives its
     * processes their namespace: one started so whose server refused it or
     * did not answer is a rank of a job, and alone as a singleton it would
     * leave the others waiting for it for good. */
    if (ns != NULL && ns[0] != '\0')
        return rtm_error_set(RTM_ERR_PMIX, "rank %s (%s): started by a PMIx launcher as a "
                             "rank of job %s (PMIX_NAMESPACE) but its PMIx server did not "
                             "take this process (%s); not running alone as a singleton, "
                             "which would leave the job's other ranks waiting: see the "
                             "launcher's messages (rtrun names a connection it refused)",
                             pmix_rank ? pmix_rank : "?", rtm_rt.hostname, ns, pmix_error);
    for (size_t i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++) {
        const char *size = getenv(launchers[i].size_var);
        const char *rank = getenv(launchers[i].rank_var);

        if (size != NULL && atoi(size) > 1)
            return rtm_error_set(RTM_ERR_PMIX, "rank %s (%s): started by %s as one of %s tasks "
                                 "(%s=%s) but no PMIx server answers (%s): the tasks would "
                                 "run as unrelated singletons; %s",
                                 rank ? rank : "?", rtm_rt.hostname, launchers[i].launcher,
                                 size, launchers[i].size_var, size, pmix_error,
                                 launchers[i].hint);
    }
    return RTM_OK;
}

/* The job secret rtrun (or rtd) registered as job data, if any. Asked
 * with PMIX_OPTIONAL: a server that has none (srun, mpirun) answers from
 * what the client already holds, without a round trip. The value PMIx
 * returns is wiped before it is released. */
static void pmi_job_secret(void)
{
    pmix_proc_t proc;
    pmix_info_t info;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    bool optional = true;

    PMIX_LOAD_PROCID(&proc, pmi_me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
    rc = PMIx_Get(&proc, RTM_SECRET_PMIX_KEY, &info, 1, &val);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS || val == NULL) {
        rtm_debug("rank %d (%s): the PMIx server holds no job secret (%s)", rtm_rt.world_rank,
                  rtm_rt.hostname, PMIx_Error_string(rc));
        return;
    }
    if (val->type == PMIX_BYTE_OBJECT && val->data.bo.bytes != NULL) {
        if (rtm_secret_from_bytes(val->data.bo.bytes, val->data.bo.size, &rtm_rt.job_secret) !=
            RTM_OK)
            rtm_warn("rank %d (%s): ignoring the PMIx server's %s: %s", rtm_rt.world_rank,
                     rtm_rt.hostname, RTM_SECRET_PMIX_KEY, rtm_last_error());
        rtm_secret_wipe(val->data.bo.bytes, val->data.bo.size);
    } else {
        rtm_warn("rank %d (%s): ignoring the PMIx server's %s of type %s", rtm_rt.world_rank,
                 rtm_rt.hostname, RTM_SECRET_PMIX_KEY, PMIx_Data_type_string(val->type));
    }
    PMIX_VALUE_RELEASE(val);
}

void job_secret_wipe(void)
{
    rtm_secret_wipe(&rtm_rt.job_secret, sizeof(rtm_rt.job_secret));
}

rtm_status_t job_init(void)
{
    pmix_status_t rc;
    rtm_status_t status;
    unsigned v, my_node = 0;
    int have_node_id;

    snprintf(rtm_rt.hostname, sizeof(rtm_rt.hostname), "%s", rtm_log_hostname());
    rc = PMIx_Init(&pmi_me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        /* No server to talk to: started without a launcher. */
        status = job_check_foreign_launch(PMIx_Error_string(rc));
        if (status != RTM_OK)
            return status;
        rtm_debug("no PMIx server (%s): running as a singleton", PMIx_Error_string(rc));
        return job_init_singleton();
    }
    pmi_active = 1;
    snprintf(rtm_rt.nspace, sizeof(rtm_rt.nspace), "%s", pmi_me.nspace);
    rtm_rt.world_rank = (int)pmi_me.rank;
    /* Its requests go out at once (pmix_sock.h: Nagle cost 40 ms a job).
     * Called outside rtm_debug, whose arguments are evaluated only at the
     * debug level. */
    {
        int n = rtm_pmix_server_nodelay();

        rtm_debug("rank %d (%s): TCP_NODELAY on %d connection(s) to the PMIx server",
                  rtm_rt.world_rank, rtm_rt.hostname, n);
    }

    /* PMIX_JOB_SIZE is the job's ranks; a server without it is taken to
     * mean the universe is the job (a larger universe would only make a
     * lookup of a missing rank fail, never a rank wait for one). */
    status = pmi_get_uint(-1, PMIX_JOB_SIZE, &v);
    if (status == RTM_ERR_UNREACHABLE)
        status = pmi_get_uint(-1, PMIX_UNIV_SIZE, &v);
    if (status != RTM_OK)
        goto err_finalize;
    rtm_rt.world_size = (int)v;
    if (rtm_rt.world_size < 1 || rtm_rt.world_rank >= rtm_rt.world_size) {
        status = rtm_error_set(RTM_ERR_PMIX, "rank %d (%s): PMIx says the job has %d ranks",
                               rtm_rt.world_rank, rtm_rt.hostname, rtm_rt.world_size);
        goto err_finalize;
    }
    pmi_job_secret();
    pmi_hostnames = calloc((size_t)rtm_rt.world_size, sizeof(char *));
    if (pmi_hostnames == NULL) {
        status = rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for %d host names",
                               rtm_rt.world_size);
        goto err_finalize;
    }
    /* The host's name as the launcher gave it (a namespace host's name,
     * a Slurm node name), not gethostname(): every message of the job,
     * the launcher's and the ranks', then names the host the same way. */
    {
        const char *me = pmi_hostname_of(rtm_rt.world_rank);

        if (me != NULL && me[0] != '\0') {
            snprintf(rtm_rt.hostname, sizeof(rtm_rt.hostname), "%s", me);
            rtm_log_set_hostname(rtm_rt.hostname);
        }
    }
    have_node_id = pmi_get_uint(rtm_rt.world_rank, PMIX_NODEID, &my_node) == RTM_OK;
    status = pmi_local_peers(have_node_id, my_node);
    if (status != RTM_OK)
        goto err_free_hostnames;
    rtm_rt.local_rank = -1;
    for (int i = 0; i < rtm_rt.local_size; i++) {
        if (rtm_rt.local_peers[i] == rtm_rt.world_rank)
            rtm_rt.local_rank = i;
    }
    if (rtm_rt.local_rank < 0) {
        status = rtm_error_set(RTM_ERR_PMIX, "rank %d (%s): the PMIx server's list of ranks "
                               "on this host does not hold the rank itself",
                               rtm_rt.world_rank, rtm_rt.hostname);
        goto err_free_peers;
    }
    rtm_rt.num_nodes = 1;
    if (pmi_get_uint(-1, PMIX_NUM_NODES, &v) == RTM_OK && v > 0)
        rtm_rt.num_nodes = (int)v;
    /* The node id names the shared memory segment, so the local ranks must
     * agree on it; without PMIX_NODEID the lowest local rank does. */
    rtm_rt.node_id = have_node_id ? (int)my_node : rtm_rt.local_peers[0];
    rtm_debug("PMIx job %s: rank %d of %d, %d on this host (%s), node %d%s", rtm_rt.nspace,
              rtm_rt.world_rank, rtm_rt.world_size, rtm_rt.local_size, rtm_rt.hostname,
              rtm_rt.node_id, have_node_id ? "" : " (no PMIX_NODEID: lowest local rank)");
    return RTM_OK;

err_free_peers:
    free(rtm_rt.local_peers);
    rtm_rt.local_peers = NULL;
err_free_hostnames:
    for (int i = 0; i < rtm_rt.world_size; i++)
        free(pmi_hostnames[i]);
    free(pmi_hostnames);
    pmi_hostnames = NULL;
err_finalize:
    PMIx_Finalize(NULL, 0);
    pmi_active = 0;
    return status;
}

/* The node index of a world rank: from PMIx, or this node for local peers.
 * A server without PMIX_NODEID: the lowest rank on the peer's host (by
 * PMIX_HOSTNAME), the same rule job_init uses for this rank's own node. */
int job_peer_node(int peer)
{
    const char *host;
    unsigned v;

    if (rtm_rt.singleton || peer == rtm_rt.world_rank)
        return rtm_rt.node_id;
    if (!pmi_active || peer < 0 || peer >= rtm_rt.world_size)
        return -1;
    for (int i = 0; i < rtm_rt.local_size; i++) {
        if (rtm_rt.local_peers[i] == peer)
            return rtm_rt.node_id;
    }
    if (pmi_get_uint(peer, PMIX_NODEID, &v) == RTM_OK)
        return (int)v;
    host = pmi_hostname_of(peer);
    if (host == NULL)
        return -1;
    for (int r = 0; r < peer; r++) {
        const char *h = pmi_hostname_of(r);

        if (h != NULL && strcmp(h, host) == 0)
            return r;
    }
    return peer;
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

/* After this every rank's addresses can be read: with RTM_PMIX_COLLECT=1
 * the fence brings them all to every host at once; with 0 it only orders
 * the commits before the lookups, and each PMIx_Get of a peer's key is
 * served by its host's server on demand (direct modex). */
rtm_status_t job_commit_and_fence(void)
{
    pmix_info_t info;
    pmix_status_t rc;
    bool collect = rt_config.pmix_collect != 0;

    if (!pmi_active)
        return RTM_OK;
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        return rtm_error_set(RTM_ERR_PMIX, "PMIx_Commit failed: %s", PMIx_Error_string(rc));
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc == PMIX_ERR_PARTIAL_SUCCESS) {
        /* A rank died before it reached the fence: its own failure is the
         * cause the user must read (the launcher names it), this rank's is
         * a consequence. End as a transport that lost a peer does (code
         * 71, which rtrun holds until the cause is known), without an
         * error line of our own. */
        rtm_debug("rank %d (%s): the address exchange failed (%s): a rank died before it",
                  rtm_rt.world_rank, rtm_rt.hostname, PMIx_Error_string(rc));
        job_abort(71, "the address exchange failed: a rank died before it");
    }
    if (rc != PMIX_SUCCESS)
        return rtm_error_set(RTM_ERR_PMIX,
                             "PMIx_Fence (address exchange) failed: %s; is the launcher "
                             "still running?", PMIx_Error_string(rc));
    return RTM_OK;
}

typedef struct fence_wait {
    int           done;     /* set by the PMIx thread */
    pmix_status_t status;
} fence_wait_t;

static void fence_done(pmix_status_t status, void *cbdata)
{
    fence_wait_t *w = cbdata;

    w->status = status;
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
}

/* A fence that exchanges nothing (every rank got here), calling poll(n)
 * with n = 1, 2, ... until it completes, so this rank keeps serving its
 * peers (reposting receive buffers) while it waits. */
rtm_status_t job_fence_polling(void (*poll)(unsigned long n))
{
    fence_wait_t w = {0, PMIX_SUCCESS};
    unsigned long n = 0;
    pmix_status_t rc;

    if (!pmi_active)
        return RTM_OK;
    rc = PMIx_Fence_nb(NULL, 0, NULL, 0, fence_done, &w);
    if (rc == PMIX_OPERATION_SUCCEEDED)
        return RTM_OK;   /* done at once; no callback comes */
    if (rc != PMIX_SUCCESS)
        return rtm_error_set(RTM_ERR_PMIX, "PMIx_Fence_nb failed: %s; is the launcher still "
                             "running?", PMIx_Error_string(rc));
    while (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE))
        poll(++n);
    if (w.status != PMIX_SUCCESS)
        return rtm_error_set(RTM_ERR_PMIX, "PMIx fence failed: %s; is the launcher still running?",
                             PMIx_Error_string(w.status));
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
    const char *host;

    if (peer == rtm_rt.world_rank || !pmi_active || peer < 0 || peer >= rtm_rt.world_size)
        return rtm_rt.hostname;
    host = pmi_hostname_of(peer);
    return host ? host : "unknown host";
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
