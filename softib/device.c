/*
 * softib device: the device list, contexts, device/port/GID/P_Key queries,
 * asynchronous events, fork protection and the verbs string helpers.
 *
 * softib's own environment (read here and in wire.c, nowhere else):
 *   SOFTIB_DIR        shared directory for sockets and device pages
 *                     (default /tmp/softib-<uid>)
 *   SOFTIB_LINK       "ib" (default, LIDs) or "eth" (RoCE-style GIDs, LID 0)
 *   SOFTIB_CMA        0 disables process_vm_readv/writev one-sided ops
 *   SOFTIB_TRANSPORT  "auto" (default), "unix" or "tcp"
 *   SOFTIB_FAULT      fault injection, see wire.c
 *   SOFTIB_TRACE      1: one line per packet sent/received on stderr
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "softib.h"

struct sib_dev *sib_the_dev;
static pthread_mutex_t sib_global_lock = PTHREAD_MUTEX_INITIALIZER;
static bool sib_atfork_done;

struct ibv_device sib_ibv_device = {
    .node_type = IBV_NODE_CA,
    .transport_type = IBV_TRANSPORT_IB,
    .name = "softib0",
    .dev_name = "uverbs_softib0",
    .dev_path = "/nonexistent/softib/uverbs_softib0",
    .ibdev_path = "/nonexistent/softib/softib0",
};

uint64_t sib_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool sib_link_is_eth(void)
{
    const char *s = getenv("SOFTIB_LINK");

    return s && (!strcmp(s, "eth") || !strcmp(s, "ethernet") ||
                 !strcmp(s, "roce"));
}

/* SOFTIB_PORT_STATE=down|init|armed|active (default active): the state
 * port 1 reports (ibv_query_port, the sysfs tree), to test what a client
 * does with a port that is not ACTIVE. Traffic is not affected: a client
 * that uses a port it was told is DOWN is on its own, as on an HCA. */
enum ibv_port_state sib_port_state(void)
{
    const char *s = getenv("SOFTIB_PORT_STATE");

    if (s == NULL || *s == '\0' || !strcmp(s, "active"))
        return IBV_PORT_ACTIVE;
    if (!strcmp(s, "down"))
        return IBV_PORT_DOWN;
    if (!strcmp(s, "init"))
        return IBV_PORT_INIT;
    if (!strcmp(s, "armed"))
        return IBV_PORT_ARMED;
    return IBV_PORT_ACTIVE;
}

/* The IB physical state that goes with a port state: 3 Disabled for DOWN,
 * 5 LinkUp otherwise. */
int sib_port_phys_state(enum ibv_port_state st)
{
    return st == IBV_PORT_DOWN ? 3 : 5;
}

uint64_t sib_node_guid(void)
{
    char host[256] = "";
    uint64_t h = 1469598103934665603ull;

    gethostname(host, sizeof(host) - 1);
    for (const char *p = host; *p; p++)
        h = (h ^ (uint8_t)*p) * 1099511628211ull;
    return ((uint64_t)SIB_VENDOR_ID << 40) | (h & 0xffffff0000ull);
}

/* GID index 0: fe80::<port guid> (IB, or RoCE v1 style); index 1 in Ethernet
 * mode: an IPv4-mapped ::ffff:127.83.<slot> (RoCE v2 style). Both end with
 * the slot, which is how a destination GID is routed. */
void sib_gid_of(uint16_t slot, int index, union ibv_gid *gid)
{
    memset(gid, 0, sizeof(*gid));
    if (index == 0) {
        uint64_t guid = sib_node_guid() | slot;

        gid->raw[0] = 0xfe;
        gid->raw[1] = 0x80;
        for (int i = 0; i < 8; i++)
            gid->raw[8 + i] = (uint8_t)(guid >> (56 - 8 * i));
    } else {
        gid->raw[10] = 0xff;
        gid->raw[11] = 0xff;
        gid->raw[12] = 127;
        gid->raw[13] = 83;
    }
    gid->raw[14] = (uint8_t)(slot >> 8);
    gid->raw[15] = (uint8_t)slot;
}

int sib_check_dev(struct ibv_context *ctx)
{
    if (!ctx)
        return EINVAL;
    if (sib_dev_of(ctx)->forked_away)
        return EPERM;
    return 0;
}

/* The helper thread is stopped across fork(): a child born while it sat in
 * malloc would inherit that allocator lock held forever (seen as a hang in
 * the child under AddressSanitizer). The parent starts it again. */
static bool sib_helper_paused;

static void sib_atfork_prepare(void)
{
    if (sib_the_dev && sib_the_dev->helper_running) {
        sib_helper_stop(sib_the_dev);
        sib_helper_paused = true;
    }
}

static void sib_atfork_parent(void)
{
    if (sib_helper_paused && sib_the_dev)
        sib_helper_start(sib_the_dev);
    sib_helper_paused = false;
}

/* A fork() child inherits our sockets and mappings; it must never read the
 * parent's socket or unlink its files. The child may open its own device. */
static void sib_atfork_child(void)
{
    sib_helper_paused = false;
    if (sib_the_dev) {
        sib_the_dev->forked_away = true;
        sib_the_dev->helper_running = false;
        pthread_mutex_init(&sib_the_dev->lock, NULL);
        sib_the_dev = NULL;
    }
}

/* ------------------------------------------------------------ device list */

SIB_EXPORT struct ibv_device **ibv_get_device_list(int *num_devices)
{
    struct ibv_device **list = calloc(2, sizeof(*list));

    if (!list) {
        errno = ENOMEM;
        return NULL;
    }
    list[0] = &sib_ibv_device;
    if (num_devices)
        *num_devices = 1;
    return list;
}

SIB_EXPORT void ibv_free_device_list(struct ibv_device **list)
{
    free(list);
}

SIB_EXPORT const char *ibv_get_device_name(struct ibv_device *device)
{
    return device ? device->name : NULL;
}

SIB_EXPORT __be64 ibv_get_device_guid(struct ibv_device *device)
{
    (void)device;
    return htobe64(sib_node_guid());
}

SIB_EXPORT int ibv_get_device_index(struct ibv_device *device)
{
    (void)device;
    return 0;
}

SIB_EXPORT int ibv_fork_init(void)
{
    return 0;
}

SIB_EXPORT enum ibv_fork_status ibv_is_fork_initialized(void)
{
    return IBV_FORK_UNNEEDED;
}

/* ------------------------------------------------------------- contexts */

static int sib_query_port_op(struct ibv_context *ctx, uint8_t port,
                             struct ibv_port_attr *attr, size_t len);
static int sib_query_device_ex(struct ibv_context *ctx,
                               const struct ibv_query_device_ex_input *in,
                               struct ibv_device_attr_ex *attr, size_t len);

static struct sib_dev *sib_dev_open(void)
{
    struct sib_dev *dev = calloc(1, sizeof(*dev));
    const char *s;

    if (!dev)
        return NULL;
    pthread_mutex_init(&dev->lock, NULL);
    dev->sock = dev->unix_listen = dev->tcp_listen = dev->wake_fd = -1;
    s = getenv("SOFTIB_CMA");
    dev->cma = !(s && !strcmp(s, "0"));
    sib_fault_parse(&dev->fault, getenv("SOFTIB_FAULT"));
    s = getenv("SOFTIB_PIN");
    sib_pin_enabled = s && *s && strcmp(s, "0");
    s = getenv("SOFTIB_MEMLOCK");
    dev->memlock = s && *s && strcmp(s, "0");
    s = getenv("SOFTIB_TRACE");
    dev->trace = s && *s && strcmp(s, "0");
    dev->next_qp_idx = dev->next_srq_idx = 1;
    dev->next_mr_idx = 1;
    dev->next_pd_id = 1;
    dev->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (dev->wake_fd < 0)
        goto err_free;
    if (sib_wire_open(dev))
        goto err_free;
    if (sib_helper_start(dev))
        goto err_wire;
    return dev;

err_wire:
    sib_wire_close(dev);
err_free:
    if (dev->wake_fd >= 0)
        close(dev->wake_fd);
    free(dev);
    return NULL;
}

/* Packets still queued (ACKs, read responses) would be lost with the socket;
 * an HCA sends them whatever the process does next, so give them a moment. */
static void sib_dev_drain(struct sib_dev *dev)
{
    for (int i = 0; i < 200; i++) {
        bool left;

        pthread_mutex_lock(&dev->lock);
        sib_progress(dev);
        left = dev->have_outq;
        pthread_mutex_unlock(&dev->lock);
        if (!left)
            return;
        usleep(500);
    }
}

/* SOFTIB_STATS=<dir>: this device's counters into <dir>/<pid>.<slot>, one
 * "name value" per line (bench/compare-verbs.sh sums them over a job) */
static void sib_stats_write(struct sib_dev *dev)
{
    const char *dir = getenv("SOFTIB_STATS");
    char path[512];
    FILE *f;

    if (!dir || !*dir || dev->forked_away)
        return;
    snprintf(path, sizeof(path), "%s/%d.%u", dir, (int)getpid(), dev->slot);
    f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "send_wr %llu\nrecv_wr %llu\npoll_calls %llu\ncqe %llu\n"
            "packets %llu\none_sided %llu\n",
            (unsigned long long)dev->stats.send_wr,
            (unsigned long long)dev->stats.recv_wr,
            (unsigned long long)dev->stats.poll_calls,
            (unsigned long long)dev->stats.cqe,
            (unsigned long long)dev->stats.pkts,
            (unsigned long long)dev->stats.direct);
    fclose(f);
}

static void sib_dev_close(struct sib_dev *dev)
{
    sib_stats_write(dev);
    sib_dev_drain(dev);
    sib_helper_stop(dev);
    sib_wire_close(dev);
    close(dev->wake_fd);
    free(dev);
}

static void sib_exit_cleanup(void) __attribute__((destructor));
static void sib_exit_cleanup(void)
{
    /* the program exited without ibv_close_device: remove our files */
    if (sib_the_dev && !sib_the_dev->forked_away) {
        sib_stats_write(sib_the_dev);
        sib_helper_stop(sib_the_dev);
        sib_wire_close(sib_the_dev);
    }
}

SIB_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
    struct sib_ctx *c;
    struct ibv_context *ctx;

    if (device != &sib_ibv_device) {
        errno = ENODEV;
        return NULL;
    }
    c = calloc(1, sizeof(*c));
    if (!c) {
        errno = ENOMEM;
        return NULL;
    }
    c->async_fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
    if (c->async_fd < 0) {
        free(c);
        return NULL;
    }
    pthread_mutex_lock(&sib_global_lock);
    if (!sib_atfork_done) {
        pthread_atfork(sib_atfork_prepare, sib_atfork_parent, sib_atfork_child);
        sib_atfork_done = true;
    }
    if (!sib_the_dev) {
        sib_the_dev = sib_dev_open();
        if (!sib_the_dev) {
            pthread_mutex_unlock(&sib_global_lock);
            close(c->async_fd);
            free(c);
            if (!errno)
                errno = EIO;
            return NULL;
        }
    }
    sib_the_dev->refs++;
    c->dev = sib_the_dev;
    pthread_mutex_lock(&c->dev->lock);
    c->next = c->dev->ctxs;
    c->dev->ctxs = c;
    pthread_mutex_unlock(&c->dev->lock);
    pthread_mutex_unlock(&sib_global_lock);

    ctx = &c->vctx.context;
    ctx->device = device;
    ctx->cmd_fd = -1;
    ctx->async_fd = c->async_fd;
    ctx->num_comp_vectors = 1;
    pthread_mutex_init(&ctx->mutex, NULL);
    ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
    ctx->ops.poll_cq = sib_poll_cq;
    ctx->ops.req_notify_cq = sib_req_notify_cq;
    ctx->ops.post_send = sib_post_send;
    ctx->ops.post_recv = sib_post_recv;
    ctx->ops.post_srq_recv = sib_post_srq_recv;
    c->vctx.sz = sizeof(struct verbs_context);
    c->vctx.query_port = sib_query_port_op;
    c->vctx.query_device_ex = sib_query_device_ex;
    c->vctx.open_qp = sib_open_qp;
    c->vctx.create_qp_ex = sib_create_qp_ex;
    c->vctx.get_srq_num = sib_get_srq_num;
    c->vctx.create_srq_ex = sib_create_srq_ex;
    c->vctx.open_xrcd = sib_open_xrcd;
    c->vctx.close_xrcd = sib_close_xrcd;
    sib_mw_ops(ctx);
    return ctx;
}

SIB_EXPORT int ibv_close_device(struct ibv_context *ctx)
{
    struct sib_ctx *c = sib_ctx(ctx);
    struct sib_dev *dev = c->dev;

    pthread_mutex_lock(&sib_global_lock);
    if (!dev->forked_away) {
        pthread_mutex_lock(&dev->lock);
        for (struct sib_ctx **pp = &dev->ctxs; *pp; pp = &(*pp)->next) {
            if (*pp == c) {
                *pp = c->next;
                break;
            }
        }
        pthread_mutex_unlock(&dev->lock);
    }
    if (!dev->forked_away && --dev->refs == 0) {
        if (sib_the_dev == dev)
            sib_the_dev = NULL;
        sib_dev_close(dev);
    }
    pthread_mutex_unlock(&sib_global_lock);
    close(c->async_fd);
    free(c->async_q);
    free(c);
    return 0;
}

/* ------------------------------------------------------------- queries */

/* SOFTIB_CAPS, a comma-separated list of what the device lacks: noatomic,
 * nomw (read at every call: queries are not a hot path, and a test may set
 * it before opening the device) */
unsigned sib_caps_off(void)
{
    const char *s = getenv("SOFTIB_CAPS");
    unsigned off = 0;

    if (s == NULL)
        return 0;
    if (strstr(s, "noatomic") != NULL)
        off |= SIB_CAP_NO_ATOMIC;
    if (strstr(s, "nomw") != NULL)
        off |= SIB_CAP_NO_MW;
    if (strstr(s, "atomic_be") != NULL)
        off |= SIB_CAP_ATOMIC_BE;
    return off;
}

static void sib_fill_device_attr(struct ibv_device_attr *a)
{
    unsigned off = sib_caps_off();

    memset(a, 0, sizeof(*a));
    snprintf(a->fw_ver, sizeof(a->fw_ver), "softib-1.0");
    a->node_guid = htobe64(sib_node_guid());
    a->sys_image_guid = a->node_guid;
    a->max_mr_size = ~0ull;
    a->page_size_cap = 0xfffff000;
    a->vendor_id = SIB_VENDOR_ID;
    a->vendor_part_id = SIB_VENDOR_PART;
    a->hw_ver = 1;
    a->max_qp = SIB_MAX_IDX - 1;
    a->max_qp_wr = SIB_MAX_WR;
    a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_SRQ_RESIZE |
                          IBV_DEVICE_PORT_ACTIVE_EVENT | IBV_DEVICE_XRC |
                          IBV_DEVICE_CHANGE_PHY_PORT | IBV_DEVICE_MEM_WINDOW |
                          IBV_DEVICE_MEM_WINDOW_TYPE_2B;
    a->max_sge = SIB_MAX_SGE;
    a->max_sge_rd = SIB_MAX_SGE;
    a->max_cq = 65536;
    a->max_cqe = SIB_MAX_CQE;
    a->max_mr = SIB_MAX_MR - 1;
    a->max_mw = SIB_MAX_MR - 1;
    a->max_pd = 65536;
    a->max_qp_rd_atom = SIB_MAX_RD_ATOMIC;
    a->max_ee_rd_atom = 0;
    a->max_res_rd_atom = SIB_MAX_RD_ATOMIC * 1024;
    a->max_qp_init_rd_atom = SIB_MAX_RD_ATOMIC;
    a->atomic_cap = IBV_ATOMIC_HCA;
    if (off & SIB_CAP_NO_ATOMIC)
        a->atomic_cap = IBV_ATOMIC_NONE;
    if (off & SIB_CAP_NO_MW) {
        a->device_cap_flags &= ~(unsigned)(IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_WINDOW_TYPE_2B);
        a->max_mw = 0;
    }
    a->max_ah = 65536;
    a->max_srq = SIB_MAX_IDX - 1;
    a->max_srq_wr = SIB_MAX_WR;
    a->max_srq_sge = SIB_MAX_SGE;
    a->max_pkeys = 1;
    a->local_ca_ack_delay = 15;
    a->phys_port_cnt = 1;
}

SIB_EXPORT int ibv_query_device(struct ibv_context *ctx,
                                struct ibv_device_attr *attr)
{
    int rc = sib_check_dev(ctx);

    if (rc)
        return rc;
    sib_fill_device_attr(attr);
    return 0;
}

static int sib_query_device_ex(struct ibv_context *ctx,
                               const struct ibv_query_device_ex_input *in,
                               struct ibv_device_attr_ex *attr, size_t len)
{
    struct ibv_device_attr_ex ex;
    int rc = sib_check_dev(ctx);

    if (rc)
        return rc;
    if (in && in->comp_mask)
        return EINVAL;
    memset(&ex, 0, sizeof(ex));
    sib_fill_device_attr(&ex.orig_attr);
    ex.max_dm_size = 0;
    memcpy(attr, &ex, len < sizeof(ex) ? len : sizeof(ex));
    return 0;
}

static int sib_query_port_op(struct ibv_context *ctx, uint8_t port,
                             struct ibv_port_attr *attr, size_t len)
{
    struct ibv_port_attr a;
    struct sib_dev *dev;
    int rc = sib_check_dev(ctx);

    if (rc)
        return rc;
    if (port != 1)
        return EINVAL;
    dev = sib_dev_of(ctx);
    memset(&a, 0, sizeof(a));
    a.state = sib_port_state();
    a.max_mtu = IBV_MTU_4096;
    a.active_mtu = sib_link_is_eth() ? IBV_MTU_1024 : IBV_MTU_4096;
    a.gid_tbl_len = sib_link_is_eth() ? 2 : 1;
    a.port_cap_flags = sib_link_is_eth() ? 0 : IBV_PORT_SM;
    a.max_msg_sz = 1u << 31;
    a.pkey_tbl_len = 1;
    /* a subnet manager gives the LID when it arms the port */
    a.lid = sib_link_is_eth() || a.state < IBV_PORT_ARMED ? 0 : dev->slot;
    a.sm_lid = sib_link_is_eth() ? 0 : dev->slot;
    a.lmc = 0;
    a.max_vl_num = 1;
    a.subnet_timeout = 18;
    a.active_width = 2;  /* 4x */
    a.active_speed = 32; /* EDR */
    a.phys_state = (uint8_t)sib_port_phys_state(a.state);
    a.link_layer = sib_link_is_eth() ? IBV_LINK_LAYER_ETHERNET
                                     : IBV_LINK_LAYER_INFINIBAND;
    memcpy(attr, &a, len < sizeof(a) ? len : sizeof(a));
    return 0;
}

/* the exported symbol takes the old, shorter struct; it is the same prefix.
 * verbs.h turns ibv_query_port into a macro that prefers the context op. */
#undef ibv_query_port
SIB_EXPORT int ibv_query_port(struct ibv_context *ctx, uint8_t port,
                              struct _compat_ibv_port_attr *attr)
{
    return sib_query_port_op(ctx, port, (struct ibv_port_attr *)attr,
                             offsetof(struct ibv_port_attr, flags));
}

SIB_EXPORT int ibv_query_gid(struct ibv_context *ctx, uint8_t port, int index,
                             union ibv_gid *gid)
{
    int rc = sib_check_dev(ctx);

    if (rc) {
        errno = rc;
        return -1;
    }
    if (port != 1 || index < 0 || index >= (sib_link_is_eth() ? 2 : 1)) {
        errno = EINVAL;
        return -1;
    }
    sib_gid_of(sib_dev_of(ctx)->slot, index, gid);
    return 0;
}

/* private libibverbs symbol that ibv_devinfo uses; 0 = IB/RoCE v1, 1 = v2 */
SIB_EXPORT int ibv_query_gid_type(struct ibv_context *ctx, uint8_t port,
                                  unsigned int index, int *type)
{
    if (port != 1 || index >= (sib_link_is_eth() ? 2u : 1u) || !ctx)
        return -1;
    *type = index == 1 ? 1 : 0;
    return 0;
}

static void sib_gid_entry(struct ibv_context *ctx, int index,
                          struct ibv_gid_entry *e)
{
    memset(e, 0, sizeof(*e));
    sib_gid_of(sib_dev_of(ctx)->slot, index, &e->gid);
    e->gid_index = (uint32_t)index;
    e->port_num = 1;
    if (!sib_link_is_eth())
        e->gid_type = IBV_GID_TYPE_IB;
    else
        e->gid_type = index == 1 ? IBV_GID_TYPE_ROCE_V2 : IBV_GID_TYPE_ROCE_V1;
}

SIB_EXPORT int _ibv_query_gid_ex(struct ibv_context *ctx, uint32_t port,
                                 uint32_t index, struct ibv_gid_entry *entry,
                                 uint32_t flags, size_t entry_size)
{
    struct ibv_gid_entry e;
    int rc = sib_check_dev(ctx);

    if (rc)
        return rc;
    if (flags || port != 1)
        return EINVAL;
    if (index >= (sib_link_is_eth() ? 2u : 1u))
        return ENODATA;
    sib_gid_entry(ctx, (int)index, &e);
    memcpy(entry, &e, entry_size < sizeof(e) ? entry_size : sizeof(e));
    return 0;
}

SIB_EXPORT ssize_t _ibv_query_gid_table(struct ibv_context *ctx,
                                        struct ibv_gid_entry *entries,
                                        size_t max, uint32_t flags,
                                        size_t entry_size)
{
    size_t n = sib_link_is_eth() ? 2 : 1;

    if (sib_check_dev(ctx) || flags)
        return -EINVAL;
    if (max < n)
        return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        struct ibv_gid_entry e;

        sib_gid_entry(ctx, (int)i, &e);
        memcpy((char *)entries + i * entry_size, &e,
               entry_size < sizeof(e) ? entry_size : sizeof(e));
    }
    return (ssize_t)n;
}

SIB_EXPORT int ibv_query_pkey(struct ibv_context *ctx, uint8_t port, int index,
                              __be16 *pkey)
{
    if (sib_check_dev(ctx) || port != 1 || index != 0) {
        errno = EINVAL;
        return -1;
    }
    *pkey = htobe16(SIB_PKEY_DEFAULT);
    return 0;
}

SIB_EXPORT int ibv_get_pkey_index(struct ibv_context *ctx, uint8_t port,
                                  __be16 pkey)
{
    (void)ctx;
    if (port == 1 && (be16toh(pkey) & 0x7fff) == 0x7fff)
        return 0;
    return -1;
}

/* ------------------------------------------------------------ async events */

/* The context an event belongs to: that of the object it names. Port and
 * device events (no object) go to every context, as the kernel sends them
 * to every uverbs file of the device. */
static struct ibv_context *sib_event_ctx(const struct ibv_async_event *ev)
{
    switch (ev->event_type) {
    case IBV_EVENT_CQ_ERR:
        return ev->element.cq->context;
    case IBV_EVENT_SRQ_ERR:
    case IBV_EVENT_SRQ_LIMIT_REACHED:
        return ev->element.srq->context;
    case IBV_EVENT_QP_FATAL:
    case IBV_EVENT_QP_REQ_ERR:
    case IBV_EVENT_QP_ACCESS_ERR:
    case IBV_EVENT_COMM_EST:
    case IBV_EVENT_SQ_DRAINED:
    case IBV_EVENT_PATH_MIG:
    case IBV_EVENT_PATH_MIG_ERR:
    case IBV_EVENT_QP_LAST_WQE_REACHED:
        return ev->element.qp->context;
    default:
        return NULL;
    }
}

static void sib_ctx_push(struct sib_ctx *c, const struct ibv_async_event *ev)
{
    uint64_t one = 1;

    if (c->async_n == c->async_cap) {
        int cap = c->async_cap ? c->async_cap * 2 : 16;
        struct ibv_async_event *q = realloc(c->async_q, (size_t)cap * sizeof(*q));

        if (!q)
            return;
        c->async_q = q;
        c->async_cap = cap;
    }
    c->async_q[c->async_n++] = *ev;
    if (write(c->async_fd, &one, sizeof(one)) < 0)
        c->async_n--;
}

/* under dev->lock */
void sib_async_push(struct sib_dev *dev, const struct ibv_async_event *ev)
{
    struct ibv_context *ctx = sib_event_ctx(ev);

    if (ctx) {
        sib_ctx_push(sib_ctx(ctx), ev);
        return;
    }
    for (struct sib_ctx *c = dev->ctxs; c; c = c->next)
        sib_ctx_push(c, ev);
}

static void *sib_event_element(const struct ibv_async_event *ev)
{
    struct ibv_context *ctx = sib_event_ctx(ev);

    if (!ctx)
        return NULL;
    if (ev->event_type == IBV_EVENT_CQ_ERR)
        return ev->element.cq;
    if (ev->event_type == IBV_EVENT_SRQ_ERR ||
        ev->event_type == IBV_EVENT_SRQ_LIMIT_REACHED)
        return ev->element.srq;
    return ev->element.qp;
}

/* under dev->lock: the object is going away; an event of it not read yet
 * is never handed out (the kernel drops them from the file's queue) */
void sib_async_forget(struct sib_dev *dev, struct ibv_context *ctx, void *element)
{
    struct sib_ctx *c = sib_ctx(ctx);
    int k = 0;

    (void)dev;
    for (int i = 0; i < c->async_n; i++) {
        uint64_t v;

        if (sib_event_element(&c->async_q[i]) == element) {
            if (read(c->async_fd, &v, sizeof(v)) < 0)
                v = 0;
            continue;
        }
        c->async_q[k++] = c->async_q[i];
    }
    c->async_n = k;
}

/* without dev->lock: ibv_ack_async_event runs in another thread */
void sib_async_wait_acked(pthread_mutex_t *m, pthread_cond_t *cv,
                          const uint32_t *completed, uint32_t reported)
{
    pthread_mutex_lock(m);
    while (*(volatile const uint32_t *)completed != reported)
        pthread_cond_wait(cv, m);
    pthread_mutex_unlock(m);
}

SIB_EXPORT int ibv_get_async_event(struct ibv_context *ctx,
                                   struct ibv_async_event *event)
{
    struct sib_dev *dev;
    struct sib_ctx *c;
    uint64_t v;
    int rc = sib_check_dev(ctx);

    if (rc) {
        errno = rc;
        return -1;
    }
    dev = sib_dev_of(ctx);
    c = sib_ctx(ctx);
    for (;;) {
        bool nonblock = fcntl(ctx->async_fd, F_GETFL) & O_NONBLOCK;

        pthread_mutex_lock(&dev->lock);
        sib_touch(dev);
        sib_progress(dev);
        if (c->async_n > 0) {
            *event = c->async_q[0];
            memmove(c->async_q, c->async_q + 1,
                    (size_t)(c->async_n - 1) * sizeof(*event));
            c->async_n--;
            /* counted as the kernel counts events_reported: when read */
            switch (event->event_type) {
            case IBV_EVENT_CQ_ERR:
                ((struct sib_cq *)event->element.cq)->async_reported++;
                break;
            case IBV_EVENT_SRQ_ERR:
            case IBV_EVENT_SRQ_LIMIT_REACHED:
                ((struct sib_srq *)event->element.srq)->async_reported++;
                break;
            default:
                if (sib_event_element(event))
                    ((struct sib_qp *)event->element.qp)->async_reported++;
                break;
            }
            pthread_mutex_unlock(&dev->lock);
            if (read(ctx->async_fd, &v, sizeof(v)) < 0)
                v = 0;
            return 0;
        }
        pthread_mutex_unlock(&dev->lock);
        if (nonblock) {
            errno = EAGAIN;
            return -1;
        }
        sib_wait(dev, ctx->async_fd, 50);
    }
}

/* as rdma-core: the object's count of acknowledged events grows, and a
 * destroy waiting for it wakes */
SIB_EXPORT void ibv_ack_async_event(struct ibv_async_event *event)
{
    switch (event->event_type) {
    case IBV_EVENT_CQ_ERR: {
        struct ibv_cq *cq = event->element.cq;

        pthread_mutex_lock(&cq->mutex);
        cq->async_events_completed++;
        pthread_cond_signal(&cq->cond);
        pthread_mutex_unlock(&cq->mutex);
        return;
    }
    case IBV_EVENT_SRQ_ERR:
    case IBV_EVENT_SRQ_LIMIT_REACHED: {
        struct ibv_srq *srq = event->element.srq;

        pthread_mutex_lock(&srq->mutex);
        srq->events_completed++;
        pthread_cond_signal(&srq->cond);
        pthread_mutex_unlock(&srq->mutex);
        return;
    }
    default:
        if (sib_event_element(event)) {
            struct ibv_qp *qp = event->element.qp;

            pthread_mutex_lock(&qp->mutex);
            qp->events_completed++;
            pthread_cond_signal(&qp->cond);
            pthread_mutex_unlock(&qp->mutex);
        }
        return;
    }
}

/* ------------------------------------------------------------ strings */

SIB_EXPORT const char *ibv_node_type_str(enum ibv_node_type t)
{
    static const char *const s[] = {"InfiniBand channel adapter",
        "InfiniBand switch", "InfiniBand router", "iWARP NIC",
        "usNIC", "usNIC UDP", "unspecified"};

    if (t == IBV_NODE_CA)
        return s[0];
    if (t >= IBV_NODE_SWITCH && t <= IBV_NODE_UNSPECIFIED)
        return s[t - 1];
    return "unknown";
}

SIB_EXPORT const char *ibv_port_state_str(enum ibv_port_state s)
{
    static const char *const n[] = {"PORT_NOP", "PORT_DOWN", "PORT_INIT",
        "PORT_ARMED", "PORT_ACTIVE", "PORT_ACTIVE_DEFER"};

    return (unsigned)s < 6 ? n[s] : "invalid state";
}

SIB_EXPORT const char *ibv_event_type_str(enum ibv_event_type e)
{
    static const char *const n[] = {
        "CQ error", "local work queue catastrophic error",
        "invalid request local work queue error",
        "local access violation work queue error",
        "communication established", "send queue drained",
        "path migrated", "path migration request error",
        "local catastrophic error", "port active", "port error",
        "LID change", "P_Key change", "SM change", "SRQ catastrophic error",
        "SRQ limit reached", "last WQE reached", "client reregistration",
        "GID table change", "WQ fatal"};

    return (unsigned)e < sizeof(n) / sizeof(n[0]) ? n[e] : "unknown";
}

SIB_EXPORT const char *ibv_wc_status_str(enum ibv_wc_status st)
{
    static const char *const n[] = {
        "success", "local length error", "local QP operation error",
        "local EE context operation error", "local protection error",
        "Work Request Flushed Error", "memory management operation error",
        "bad response error", "local access error", "remote invalid request error",
        "remote access error", "remote operation error",
        "transport retry counter exceeded", "RNR retry counter exceeded",
        "local RDD violation error", "remote invalid RD request",
        "aborted error", "invalid EE context number",
        "invalid EE context state", "fatal error", "response timeout error",
        "general error", "TM error", "TM rendezvous error"};

    return (unsigned)st < sizeof(n) / sizeof(n[0]) ? n[st] : "unknown";
}
