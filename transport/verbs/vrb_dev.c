/*
 * verbs: which device and port this rank uses, and how peers address it
 * (LID on InfiniBand, a GID on RoCE), with the port's path MTU.
 *
 * Without RTM_VERBS_DEVICE, and with more than one device, the devices are
 * tried nearest first: hwloc's I/O topology gives each HCA (an OS device of
 * type OpenFabrics, named as ibv_get_device_name names it) a locality, the
 * cpuset of its first non-I/O ancestor (its NUMA node or package); an HCA
 * whose locality contains the cores this rank is bound to comes first, one
 * that shares some of them next, then the rest in the library's order. A
 * device hwloc does not see (no PCI/sysfs entry) counts as far.
 */
#include "config.h"

#include "transport/verbs/vrb.h"
#include "common/error.h"
#include "common/log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *vrb_mtu_str(enum ibv_mtu mtu)
{
    switch (mtu) {
    case IBV_MTU_256:  return "256";
    case IBV_MTU_512:  return "512";
    case IBV_MTU_1024: return "1024";
    case IBV_MTU_2048: return "2048";
    case IBV_MTU_4096: return "4096";
    default:           return "?";
    }
}

void vrb_gid_str(const union ibv_gid *gid, char *buf, size_t len)
{
    if (inet_ntop(AF_INET6, gid->raw, buf, (socklen_t)len) == NULL)
        snprintf(buf, len, "?");
}

static int gid_is_zero(const union ibv_gid *gid)
{
    for (int i = 0; i < 16; i++)
        if (gid->raw[i] != 0)
            return 0;
    return 1;
}

static int gid_is_v4_mapped(const union ibv_gid *gid)
{
    static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

    return memcmp(gid->raw, prefix, sizeof(prefix)) == 0;
}

static int gid_is_link_local(const union ibv_gid *gid)
{
    return gid->raw[0] == 0xfe && (gid->raw[1] & 0xc0) == 0x80;
}

/* RoCE: RoCE v2 with an IPv4-mapped address first (routable, what IP
 * fabrics configure), then RoCE v2 with a global IPv6 address, then any
 * non-empty entry (RoCE v1). Returns the index or -1. */
static int gid_auto(struct ibv_context *ctx, uint8_t port, int tbl_len, union ibv_gid *gid_p)
{
    int best = -1, best_rank = 0;

    for (int i = 0; i < tbl_len; i++) {
        struct ibv_gid_entry e;
        int rank;

        if (ibv_query_gid_ex(ctx, port, (uint32_t)i, &e, 0) != 0 || gid_is_zero(&e.gid))
            continue;
        if (e.gid_type == IBV_GID_TYPE_ROCE_V2 && gid_is_v4_mapped(&e.gid))
            rank = 4;
        else if (e.gid_type == IBV_GID_TYPE_ROCE_V2 && !gid_is_link_local(&e.gid))
            rank = 3;
        else if (e.gid_type == IBV_GID_TYPE_ROCE_V2)
            rank = 2;
        else
            rank = 1;
        if (rank > best_rank) {
            best_rank = rank;
            best = i;
            *gid_p = e.gid;
        }
    }
    return best;
}

/* Fill sel from an opened device and an ACTIVE port. */
static rtm_status_t port_setup(struct ibv_context *ctx, uint8_t port,
                               const struct ibv_port_attr *pa, long gid_override,
                               vrb_dev_sel_t *sel)
{
    const char *name = ibv_get_device_name(ctx->device);

    memset(sel, 0, sizeof(*sel));
    if (ibv_query_device(ctx, &sel->dev_attr) != 0)
        return rtm_error_set(RTM_ERR_TRANSPORT, "verbs: ibv_query_device(%s): %s", name,
                             strerror(errno));
    sel->ctx = ctx;
    snprintf(sel->name, sizeof(sel->name), "%s", name);
    sel->port = port;
    sel->mtu = pa->active_mtu;
    sel->max_msg_sz = pa->max_msg_sz;
    sel->gid_index = -1;
    if (pa->link_layer == IBV_LINK_LAYER_ETHERNET) {
        sel->link = VRB_LINK_ETH;
        if (gid_override >= 0) {
            if (gid_override >= pa->gid_tbl_len ||
                ibv_query_gid(ctx, port, (int)gid_override, &sel->gid) != 0 ||
                gid_is_zero(&sel->gid))
                return rtm_error_set(RTM_ERR_INVALID_ARG,
                                     "verbs: RTM_VERBS_GID_INDEX=%ld: %s port %u has no GID "
                                     "there (table of %d); unset it to choose automatically",
                                     gid_override, name, port, pa->gid_tbl_len);
            sel->gid_index = (int)gid_override;
        } else {
            sel->gid_index = gid_auto(ctx, port, pa->gid_tbl_len, &sel->gid);
            if (sel->gid_index < 0)
                return rtm_error_set(RTM_ERR_UNREACHABLE,
                                     "verbs: %s port %u (Ethernet) has no usable GID: is an IP "
                                     "address configured on its netdev?", name, port);
        }
    } else {
        sel->link = VRB_LINK_IB;
        sel->lid = pa->lid;
        if (gid_override >= 0) {
            /* IB with a GRH: only when asked (routers between subnets) */
            if (ibv_query_gid(ctx, port, (int)gid_override, &sel->gid) != 0)
                return rtm_error_set(RTM_ERR_INVALID_ARG,
                                     "verbs: RTM_VERBS_GID_INDEX=%ld: %s port %u has no GID there",
                                     gid_override, name, port);
            sel->gid_index = (int)gid_override;
        } else {
            ibv_query_gid(ctx, port, 0, &sel->gid);
        }
        if (sel->lid == 0 && sel->gid_index < 0)
            return rtm_error_set(RTM_ERR_UNREACHABLE,
                                 "verbs: %s port %u has no LID (is a subnet manager running?)",
                                 name, port);
    }
    return RTM_OK;
}

/* Open device `dev`; try `want_port` (0: every port, first ACTIVE). */
static rtm_status_t try_device(struct ibv_device *dev, int want_port, long gid_override,
                               vrb_dev_sel_t *sel)
{
    struct ibv_context *ctx = ibv_open_device(dev);
    struct ibv_device_attr da;
    rtm_status_t status = RTM_ERR_UNREACHABLE;
    int active = 0;

    if (ctx == NULL)
        return rtm_error_set(RTM_ERR_UNREACHABLE, "verbs: cannot open %s: %s",
                             ibv_get_device_name(dev), strerror(errno));
    if (ibv_query_device(ctx, &da) != 0) {
        ibv_close_device(ctx);
        return rtm_error_set(RTM_ERR_UNREACHABLE, "verbs: cannot query %s: %s",
                             ibv_get_device_name(dev), strerror(errno));
    }
    for (int p = 1; p <= da.phys_port_cnt; p++) {
        struct ibv_port_attr pa;

        if (want_port > 0 && p != want_port)
            continue;
        if (ibv_query_port(ctx, (uint8_t)p, &pa) != 0 || pa.state != IBV_PORT_ACTIVE) {
            rtm_debug("verbs: %s port %d is not ACTIVE", ibv_get_device_name(dev), p);
            continue;
        }
        active = 1;
        status = port_setup(ctx, (uint8_t)p, &pa, gid_override, sel);
        if (status == RTM_OK)
            return RTM_OK;
    }
    if (want_port > (int)da.phys_port_cnt)
        status = rtm_error_set(RTM_ERR_INVALID_ARG, "RTM_VERBS_DEVICE: %s has no port %d "
                               "(%u ports)", ibv_get_device_name(dev), want_port,
                               da.phys_port_cnt);
    else if (status == RTM_ERR_UNREACHABLE && want_port > 0)
        status = rtm_error_set(RTM_ERR_INVALID_ARG, "RTM_VERBS_DEVICE: %s port %d is not "
                               "ACTIVE", ibv_get_device_name(dev), want_port);
    else if (status == RTM_ERR_UNREACHABLE && !active)
        rtm_error_set(RTM_ERR_UNREACHABLE, "verbs: %s has no ACTIVE port",
                      ibv_get_device_name(dev));
    ibv_close_device(ctx);
    return status;
}

/* Nearness of each device to this rank's cores: 2 the HCA's locality holds
 * our binding, 1 it shares some cores, 0 otherwise or unknown. */
static void dev_nearness(struct ibv_device **list, int n, int *near)
{
    hwloc_topology_t topo;
    hwloc_bitmap_t mine;
    hwloc_obj_t os = NULL;

    for (int i = 0; i < n; i++)
        near[i] = 0;
    if (hwloc_topology_init(&topo) != 0)
        return;
    mine = hwloc_bitmap_alloc();
    if (mine == NULL ||
        hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) != 0 ||
        hwloc_topology_load(topo) != 0 ||
        hwloc_get_cpubind(topo, mine, HWLOC_CPUBIND_PROCESS) != 0)
        goto out;
    while ((os = hwloc_get_next_osdev(topo, os)) != NULL) {
        hwloc_obj_t anc;

        if (os->attr->osdev.type != HWLOC_OBJ_OSDEV_OPENFABRICS || os->name == NULL)
            continue;
        anc = hwloc_get_non_io_ancestor_obj(topo, os);
        if (anc == NULL || anc->cpuset == NULL)
            continue;
        for (int i = 0; i < n; i++) {
            if (strcmp(os->name, ibv_get_device_name(list[i])) != 0)
                continue;
            near[i] = hwloc_bitmap_isincluded(mine, anc->cpuset) ? 2
                      : hwloc_bitmap_intersects(mine, anc->cpuset) ? 1 : 0;
            rtm_debug("verbs: %s is %s this rank's cores", os->name,
                      near[i] == 2 ? "local to" : near[i] == 1 ? "partly local to"
                                                               : "remote from");
        }
    }
out:
    if (mine != NULL)
        hwloc_bitmap_free(mine);
    hwloc_topology_destroy(topo);
}

rtm_status_t vrb_dev_select(const char *spec, long gid_override, vrb_dev_sel_t *sel)
{
    struct ibv_device **list;
    int n = 0, want_port = 0;
    char want[64] = "";
    rtm_status_t status = RTM_ERR_UNREACHABLE;

    if (spec != NULL && *spec != '\0') {
        const char *colon = strchr(spec, ':');
        size_t len = colon ? (size_t)(colon - spec) : strlen(spec);

        if (len == 0 || len >= sizeof(want) ||
            (colon && (want_port = atoi(colon + 1)) <= 0))
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "RTM_VERBS_DEVICE=\"%s\": expected name[:port], e.g. mlx5_0:1",
                                 spec);
        memcpy(want, spec, len);
    }
    list = ibv_get_device_list(&n);
    if (list == NULL || n == 0) {
        if (list != NULL)
            ibv_free_device_list(list);
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "verbs: no RDMA device on this host");
    }
    if (want[0] != '\0' || n == 1) {
        for (int i = 0; i < n; i++) {
            if (want[0] != '\0' && strcmp(want, ibv_get_device_name(list[i])) != 0)
                continue;
            status = try_device(list[i], want_port, gid_override, sel);
            break;
        }
    } else {
        /* several HCAs: nearest first (looking costs an I/O topology scan) */
        int *near = calloc((size_t)n, sizeof(int));

        for (int level = 2; level >= 0 && status != RTM_OK; level--) {
            for (int i = 0; i < n && status != RTM_OK; i++) {
                if (near != NULL && level == 2 && i == 0)
                    dev_nearness(list, n, near);
                if ((near != NULL ? near[i] : 0) != level)
                    continue;
                status = try_device(list[i], want_port, gid_override, sel);
            }
        }
        free(near);
    }
    if (want[0] != '\0' && status != RTM_OK && status != RTM_ERR_INVALID_ARG) {
        int found = 0;

        for (int i = 0; i < n; i++)
            found |= !strcmp(want, ibv_get_device_name(list[i]));
        if (!found)
            status = rtm_error_set(RTM_ERR_INVALID_ARG,
                                   "RTM_VERBS_DEVICE=\"%s\": no device %s on this host "
                                   "(ibv_devices lists them)", spec, want);
        else   /* asked for by name: not usable is an error, not a skip */
            status = rtm_error_set(RTM_ERR_INVALID_ARG, "RTM_VERBS_DEVICE=\"%s\": %s",
                                   spec, rtm_last_error());
    }
    ibv_free_device_list(list);
    return status;
}

void vrb_dev_release(vrb_dev_sel_t *sel)
{
    if (sel->ctx != NULL)
        ibv_close_device(sel->ctx);
    sel->ctx = NULL;
}
