/*
 * The transports of this rank: which are opened (RTM_TRANSPORTS, in order),
 * what they publish in the modex, their wireup after the fence, the quiesce
 * and fence at finalize, and closing them. Which transport reaches each
 * peer is runtime/peer.c's.
 */
#include "config.h"

#include "runtime/runtime.h"
#include "transport/registry.h"
#include "common/error.h"
#include "common/log.h"
#include "runtime/rt_config.h"
#include "transport/shm/shm_direct.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A listed transport asked for a fence after wireup / after quiesce at
 * finalize (rtm_tl_ops_t). Decided from the list, opened or not, so every
 * rank fences alike. */
static int wireup_fence;
static int finalize_fence;

static rtm_status_t tl_addr_lookup(int peer, const char *name, void **blob_p, size_t *len_p)
{
    char key[64];

    snprintf(key, sizeof(key), "rtm.tl.%s", name);
    return job_lookup(peer, key, blob_p, len_p);
}

/* Whether RTM_TRANSPORTS is its default: a transport of the default list
 * that is absent here (verbs on a host without rdma-core) is then no news. */
static int tl_list_is_default(void)
{
    const rtm_cfg_row_t *row = rtm_config_find("RTM_TRANSPORTS", NULL);

    return row != NULL && !strcmp(rt_config.transports, row->def);
}

/* A listed transport is absent on this host (its module is not installed
 * or does not load). Named by the user: rank 0 says so once, with the
 * reason and what is available instead; every rank says it at debug level.
 * The default list: debug level only. */
static void tl_absent(const char *name, const char *why)
{
    char avail[128];

    rtm_tl_registry_available(avail, sizeof(avail));
    if (rtm_rt.world_rank == 0 && !tl_list_is_default())
        rtm_warn("RTM_TRANSPORTS=\"%s\": transport %s is not available: %s; using the others "
                 "listed (available here: %s)", rt_config.transports, name, why, avail);
    else
        rtm_debug("transport %s not available: %s (available here: %s)", name, why, avail);
}

static rtm_status_t tl_open(const rtm_tl_ops_t *ops)
{
    rtm_tl_params_t params;
    rtm_tl_t *tl = &rtm_rt.tls[rtm_rt.num_tls];
    unsigned char blob[RTM_TL_ADDR_MAX];
    size_t blob_len = sizeof(blob);
    char key[64];
    char desc[256];
    rtm_status_t status;

    memset(&params, 0, sizeof(params));
    params.world_rank = rtm_rt.world_rank;
    params.world_size = rtm_rt.world_size;
    params.local_rank = rtm_rt.local_rank;
    params.local_size = rtm_rt.local_size;
    params.local_peers = rtm_rt.local_peers;
    params.node_id = rtm_rt.node_id;
    params.nspace = rtm_rt.nspace;
    params.hostname = rtm_rt.hostname;
    if (rtm_rt.job_secret.set) {
        params.job_secret = rtm_rt.job_secret.key;
        params.job_secret_len = sizeof(rtm_rt.job_secret.key);
    }
    params.am_cb = proto_am_handler;
    params.am_arg = &tl->counters;   /* proto_am_handler attributes receives */
    params.addr_lookup = tl_addr_lookup;
    params.peer_failed = proto_peer_failed;

    status = ops->open(&params, &tl->iface);
    if (status != RTM_OK)
        return status;
    tl->ops = ops;
    tl->ep_ring = ops == &rtm_tl_shm ? shm_ep_ring : NULL;
    ops->query(tl->iface, &tl->caps);
    status = ops->addr_pack(tl->iface, blob, &blob_len);
    if (status != RTM_OK)
        goto err_close;
    if (blob_len > 0) {
        snprintf(key, sizeof(key), "rtm.tl.%s", ops->name);
        status = job_publish(key, blob, blob_len);
        if (status != RTM_OK)
            goto err_close;
    }
    rtm_rt.num_tls++;
    ops->describe(tl->iface, desc, sizeof(desc));
    rtm_debug("transport %s opened: %s", ops->name, desc);
    return RTM_OK;

err_close:
    ops->close(tl->iface);
    tl->iface = NULL;
    return status;
}

/* Whether the transports opened so far reach every rank of the job: then
 * the rest are not opened at all. Every rank decides alike (same list, same
 * job shape), so no rank waits for a connection or fence the others skip,
 * and an all-local job pays neither network set-up nor network polling
 * (a TCP poll is a system call in every progress loop). */
static int everyone_reached(void)
{
    int self = 0, local = 0;

    for (int i = 0; i < rtm_rt.num_tls; i++) {
        self |= (rtm_rt.tls[i].caps.flags & RTM_TL_CAP_SELF) != 0;
        local |= (rtm_rt.tls[i].caps.flags & RTM_TL_CAP_LOCAL) != 0;
    }
    return self && (rtm_rt.world_size == 1 ||
                    (local && rtm_rt.local_size == rtm_rt.world_size));
}

/* Whether RTM_TRANSPORTS lists `name`. */
static int tl_listed(const char *name)
{
    size_t n = strlen(name);

    for (const char *p = rt_config.transports; *p != '\0';) {
        size_t len = strcspn(p, ",");

        if (len == n && !strncmp(p, name, n))
            return 1;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

static rtm_status_t open_listed_transports(void);

/* The transports of RTM_TRANSPORTS; the job secret is not needed after. */
rtm_status_t peers_open_transports(void)
{
    rtm_status_t status = open_listed_transports();

    job_secret_wipe();
    return status;
}

static rtm_status_t open_listed_transports(void)
{
    const char *list = rt_config.transports;
    rtm_status_t status;

    while (*list != '\0') {
        size_t len = strcspn(list, ",");
        int index = rtm_tl_registry_index(list, len);
        char name[64];

        snprintf(name, sizeof(name), "%.*s", (int)len, list);
        if (index < 0) {
            if (len > 0) {
                char avail[128];

                rtm_tl_registry_available(avail, sizeof(avail));
                rtm_warn("RTM_TRANSPORTS: unknown transport \"%s\" ignored (available here: %s)",
                         name, avail);
            }
        } else if (!strcmp(name, "shm") && rtm_rt.local_size < 2) {
            /* nobody to share memory with */
        } else if (everyone_reached()) {
            rtm_debug("transport %s not opened: every rank is reached already", name);
        } else if (rtm_rt.num_tls < RTM_MAX_TRANSPORTS) {
            const char *why = NULL;
            const rtm_tl_ops_t *ops;
            int already = 0;

            /* A module's fences do not depend on whether it loads here: on
             * another host it may, and every rank must fence alike. */
            if (rtm_tl_registry_is_module(index)) {
                wireup_fence = 1;
                finalize_fence = 1;
            }
            ops = rtm_tl_registry_get(index, &why);
            if (ops == NULL) {
                tl_absent(name, why);
                goto next;
            }
            for (int i = 0; i < rtm_rt.num_tls; i++)
                already |= (rtm_rt.tls[i].ops == ops);
            if (!already) {
                wireup_fence |= ops->wireup_fence;
                finalize_fence |= ops->quiesce != NULL;
                status = tl_open(ops);
                if (status == RTM_ERR_NOT_SUPPORTED || status == RTM_ERR_UNREACHABLE) {
                    /* no device / nothing to reach here: the others carry on */
                    rtm_debug("transport %s skipped: %s", ops->name, rtm_last_error());
                } else if (status != RTM_OK) {
                    /* rtm_init returns it with this message: the caller
                     * says it (MPI_Init's error line), once */
                    char detail[512];

                    snprintf(detail, sizeof(detail), "%s", rtm_last_error());
                    if (strncmp(detail, "rank ", 5) == 0) /* it says where already */
                        rtm_error_set(status, "cannot open transport %s: %s", ops->name,
                                      detail);
                    else
                        rtm_error_set(status, "rank %d (%s): cannot open transport %s: %s",
                                      rtm_rt.world_rank, rtm_rt.hostname, ops->name, detail);
                    rtm_debug("rank %d (%s): %s", rtm_rt.world_rank, rtm_rt.hostname,
                              rtm_last_error());
                    return status;
                }
            }
        }
next:
        list += len;
        if (*list == ',')
            list++;
    }
    if (rtm_rt.num_tls == 0) {
        char avail[128];
        char absent[512] = "";

        rtm_tl_registry_available(avail, sizeof(avail));
        /* name the listed transports that are absent here, and why */
        for (int i = 0; i < rtm_tl_registry_count(); i++) {
            const char *why = NULL;
            const char *name = rtm_tl_registry_name(i);
            size_t off = strlen(absent);

            if (rtm_tl_registry_get(i, &why) == NULL && tl_listed(name) && off < sizeof(absent))
                snprintf(absent + off, sizeof(absent) - off, "; %s: %s", name, why);
        }
        return rtm_error_set(RTM_ERR_UNREACHABLE,
                             "RTM_TRANSPORTS=\"%s\" names no usable transport (available "
                             "here: %s%s)", rt_config.transports, avail, absent);
    }
    return RTM_OK;
}

rtm_status_t peers_wireup(void)
{
    for (int i = 0; i < rtm_rt.num_tls; i++) {
        rtm_tl_t *tl = &rtm_rt.tls[i];
        rtm_status_t status;
        char desc[256];

        if (tl->ops->wireup == NULL)
            continue;
        status = tl->ops->wireup(tl->iface);
        if (status != RTM_OK) {
            rtm_error("rank %d (%s): transport %s failed to connect: %s", rtm_rt.world_rank,
                      rtm_rt.hostname, tl->ops->name, rtm_last_error());
            return status;
        }
        /* wireup may have changed what the transport can do (e.g. CMA refused) */
        tl->ops->query(tl->iface, &tl->caps);
        tl->ops->describe(tl->iface, desc, sizeof(desc));
        rtm_info("%s", desc);
    }
    if (wireup_fence && rtm_rt.world_size > 1) {
        rtm_status_t status = job_commit_and_fence();

        if (status != RTM_OK) {
            rtm_error("rank %d (%s): fence after connecting failed: %s", rtm_rt.world_rank,
                      rtm_rt.hostname, rtm_last_error());
            return status;
        }
    }
    return RTM_OK;
}

/* While the finalize fence runs: quiesced transports only deliver and
 * repost receive buffers (a peer's last send may need one). */
static void quiesce_poll(unsigned long n)
{
    progress_once();
    progress_idle(n);
}

/* Finalize, after the last barrier and drain: each transport waits until
 * its peers acknowledged what it posted, then one fence with progress
 * running in it, so no rank closes a connection another still needs (an
 * RC QP destroyed with a peer's send unacknowledged makes that peer fail
 * with "retry counter exceeded"). */
rtm_status_t peers_quiesce(void)
{
    rtm_status_t first = RTM_OK;

    for (int i = 0; i < rtm_rt.num_tls; i++) {
        rtm_tl_t *tl = &rtm_rt.tls[i];
        rtm_status_t status;

        if (tl->ops->quiesce == NULL)
            continue;
        status = tl->ops->quiesce(tl->iface);
        if (status != RTM_OK && first == RTM_OK) {
            rtm_error("rank %d (%s): transport %s, finishing its last sends: %s",
                      rtm_rt.world_rank, rtm_rt.hostname, tl->ops->name, rtm_last_error());
            first = status;
        }
    }
    if (finalize_fence && rtm_rt.world_size > 1) {
        rtm_status_t status = job_fence_polling(quiesce_poll);

        if (status != RTM_OK && first == RTM_OK) {
            rtm_error("rank %d (%s): fence before closing the transports failed: %s",
                      rtm_rt.world_rank, rtm_rt.hostname, rtm_last_error());
            first = status;
        }
    }
    return first;
}

void tls_close(void)
{
    rtm_debug("idle waits: %lu yields, %lu back-off sleeps", rtm_rt.idle_yields,
              rtm_rt.idle_sleeps);
    for (int i = rtm_rt.num_tls - 1; i >= 0; i--) {
        rtm_debug("transport %s: polled %lu times", rtm_rt.tls[i].ops->name,
                  rtm_rt.tls[i].polls);
        rtm_rt.tls[i].ops->close(rtm_rt.tls[i].iface);
    }
    rtm_rt.num_tls = 0;
}
