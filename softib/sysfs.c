/*
 * softib's sysfs tree: what verbs stacks read from /sys about an HCA rather
 * than through verbs calls, written where SOFTIB_SYSFS says (softib-run sets
 * it and points libibverbs' SYSFS_PATH at the same directory):
 *
 *   class/infiniband/softib0/      node_guid sys_image_guid node_type fw_ver
 *                                  hca_type board_id node_desc
 *     device/numa_node             -1 (no PCI device)
 *     ports/1/                     state phys_state lid lid_mask_count sm_lid
 *                                  sm_sl rate link_layer cap_mask
 *       gids/N pkeys/0 gid_attrs/types/N gid_attrs/ndevs/N
 *       hw_counters/               rnr_nak_retry_err local_ack_timeout_err:
 *                                  live, the sum over the processes that
 *                                  share the tree (sib_hw_count)
 *   class/infiniband_verbs/uverbs_softib0/   ibdev abi_version dev
 *
 * Open MPI's openib BTL wants $(ibv_get_sysfs_path())/class/infiniband to be
 * a directory; UCX reads device/numa_node under ibdev_path and the GID type
 * of gid_attrs/types/N. Each process is an HCA of its own (one slot, one
 * LID), so the per-port values here are those of slot 0: lid 0x0, and GIDs
 * ending in 0000 (a program gets its own through ibv_query_port/gid).
 *
 * The tree is built in a directory of its own and renamed into place, so
 * processes starting at once never see half of it; the first one wins.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/file.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "softib.h"

static int sib_put(const char *root, const char *rel, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* root/rel with the directories above it; 0 or -1 */
static int sib_put(const char *root, const char *rel, const char *fmt, ...)
{
    char path[1024];
    va_list ap;
    FILE *f;

    if (snprintf(path, sizeof(path), "%s/%s", root, rel) >= (int)sizeof(path))
        return -1;
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        if (mkdir(path, 0755) && errno != EEXIST)
            return -1;
        *p = '/';
    }
    f = fopen(path, "w");
    if (!f)
        return -1;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    return fclose(f) ? -1 : 0;
}

static void sib_guid_str(char *buf, size_t n, uint64_t g)
{
    snprintf(buf, n, "%04x:%04x:%04x:%04x", (unsigned)(g >> 48) & 0xffff,
             (unsigned)(g >> 32) & 0xffff, (unsigned)(g >> 16) & 0xffff,
             (unsigned)g & 0xffff);
}

static void sib_gid_str(char *buf, size_t n, const union ibv_gid *gid)
{
    size_t k = 0;

    for (int i = 0; i < 16; i += 2)
        k += (size_t)snprintf(buf + k, n - k, "%s%02x%02x", i ? ":" : "",
                              gid->raw[i], gid->raw[i + 1]);
}

static int sib_sysfs_build(const char *root)
{
    const char *dev = "class/infiniband/softib0";
    bool eth = sib_link_is_eth();
    int ngid = eth ? 2 : 1, rc = 0;
    char guid[32], rel[256], g[64];
    union ibv_gid gid;

    sib_guid_str(guid, sizeof(guid), sib_node_guid());
#define PUT(...) rc |= sib_put(root, __VA_ARGS__)
    snprintf(rel, sizeof(rel), "%s/node_guid", dev);
    PUT(rel, "%s\n", guid);
    snprintf(rel, sizeof(rel), "%s/sys_image_guid", dev);
    PUT(rel, "%s\n", guid);
    snprintf(rel, sizeof(rel), "%s/node_type", dev);
    PUT(rel, "1: CA\n");
    snprintf(rel, sizeof(rel), "%s/fw_ver", dev);
    PUT(rel, "softib-1.0\n");
    snprintf(rel, sizeof(rel), "%s/hca_type", dev);
    PUT(rel, "softib\n");
    snprintf(rel, sizeof(rel), "%s/board_id", dev);
    PUT(rel, "SOFTIB0001\n");
    snprintf(rel, sizeof(rel), "%s/node_desc", dev);
    PUT(rel, "softib userspace verbs emulator\n");
    snprintf(rel, sizeof(rel), "%s/device/numa_node", dev);
    PUT(rel, "-1\n");
    snprintf(rel, sizeof(rel), "%s/ports/1/state", dev);
    {
        static const char *const names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE"};
        enum ibv_port_state st = sib_port_state();
        int phys = sib_port_phys_state(st);

        PUT(rel, "%d: %s\n", (int)st, names[st <= IBV_PORT_ACTIVE ? st : 0]);
        snprintf(rel, sizeof(rel), "%s/ports/1/phys_state", dev);
        PUT(rel, "%d: %s\n", phys, phys == 3 ? "Disabled" : "LinkUp");
    }
    snprintf(rel, sizeof(rel), "%s/ports/1/lid", dev);
    PUT(rel, "0x0\n");
    snprintf(rel, sizeof(rel), "%s/ports/1/lid_mask_count", dev);
    PUT(rel, "0\n");
    snprintf(rel, sizeof(rel), "%s/ports/1/sm_lid", dev);
    PUT(rel, "0x0\n");
    snprintf(rel, sizeof(rel), "%s/ports/1/sm_sl", dev);
    PUT(rel, "0\n");
    snprintf(rel, sizeof(rel), "%s/ports/1/rate", dev);
    PUT(rel, "100 Gb/sec (4X EDR)\n");
    snprintf(rel, sizeof(rel), "%s/ports/1/link_layer", dev);
    PUT(rel, "%s\n", eth ? "Ethernet" : "InfiniBand");
    snprintf(rel, sizeof(rel), "%s/ports/1/cap_mask", dev);
    PUT(rel, "0x%08x\n", eth ? 0u : (unsigned)IBV_PORT_SM);
    snprintf(rel, sizeof(rel), "%s/ports/1/pkeys/0", dev);
    PUT(rel, "0x%04x\n", SIB_PKEY_DEFAULT);
    for (int i = 0; i < ngid; i++) {
        sib_gid_of(0, i, &gid);
        sib_gid_str(g, sizeof(g), &gid);
        snprintf(rel, sizeof(rel), "%s/ports/1/gids/%d", dev, i);
        PUT(rel, "%s\n", g);
        snprintf(rel, sizeof(rel), "%s/ports/1/gid_attrs/types/%d", dev, i);
        PUT(rel, "%s\n", i == 1 ? "RoCE v2" : "IB/RoCE v1");
        snprintf(rel, sizeof(rel), "%s/ports/1/gid_attrs/ndevs/%d", dev, i);
        PUT(rel, "%s\n", eth ? "lo" : "");
    }
    for (int i = 0; i < SIB_HW_NCOUNTERS; i++) {
        snprintf(rel, sizeof(rel), "%s/ports/1/hw_counters/%s", dev, sib_hw_counter_names[i]);
        PUT(rel, "0\n");
    }
    PUT("class/infiniband_verbs/uverbs_softib0/ibdev", "softib0\n");
    PUT("class/infiniband_verbs/uverbs_softib0/abi_version", "1\n");
    PUT("class/infiniband_verbs/uverbs_softib0/dev", "1:3\n");
    PUT("class/infiniband_verbs/abi_version", "6\n");
#undef PUT
    return rc ? -1 : 0;
}

static int sib_rm_one(const char *path, const struct stat *st, int flag,
                      struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path) ? -1 : 0;
}

/* what is left of our build directory (all of it when the rename lost) */
static void sib_rm_tree(const char *path)
{
    nftw(path, sib_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Runs when libsoftib is loaded, before the program's main: Open MPI looks
 * at the tree before it opens any device. Never fails the program. */
static void sib_sysfs_init(void) __attribute__((constructor));
static void sib_sysfs_init(void)
{
    const char *root = getenv("SOFTIB_SYSFS");
    char marker[600], build[600], from[700], to[700];
    struct stat st;

    /* the device's paths point into the tree (ibdev_path is where UCX
     * looks for device/numa_node); they must fit struct ibv_device */
    if (!root || root[0] != '/' || strlen(root) > 200)
        return;
    snprintf(sib_ibv_device.ibdev_path, sizeof(sib_ibv_device.ibdev_path),
             "%s/class/infiniband/softib0", root);
    snprintf(sib_ibv_device.dev_path, sizeof(sib_ibv_device.dev_path),
             "%s/class/infiniband_verbs/uverbs_softib0", root);
    snprintf(marker, sizeof(marker), "%s/class/infiniband/softib0/node_guid", root);
    if (stat(marker, &st) == 0)
        return;
    mkdir(root, 0755);
    snprintf(build, sizeof(build), "%s/.softib-build.%d", root, (int)getpid());
    if (mkdir(build, 0755) == 0 && sib_sysfs_build(build) == 0) {
        snprintf(from, sizeof(from), "%s/class", build);
        snprintf(to, sizeof(to), "%s/class", root);
        if (rename(from, to) && errno != EEXIST && errno != ENOTEMPTY)
            fprintf(stderr, "softib: cannot make the sysfs tree %s: %s\n", to,
                    strerror(errno));
    }
    sib_rm_tree(build);
}

const char *const sib_hw_counter_names[SIB_HW_NCOUNTERS] = {
    [SIB_HW_RNR_NAK_RETRY] = "rnr_nak_retry_err",
    [SIB_HW_LOCAL_ACK_TIMEOUT] = "local_ack_timeout_err",
};

/* Adds one to a port counter of the tree, as an HCA's port counts for every
 * process on the host: read, add, write under an exclusive flock. For rare
 * events only (a NAK, a timeout), never per packet; nothing without a tree. */
void sib_hw_count(enum sib_hw_counter c)
{
    const char *root = getenv("SOFTIB_SYSFS");
    char path[700], buf[32];
    unsigned long long v = 0;
    ssize_t n;
    int fd;

    if (!root || root[0] != '/' || strlen(root) > 200 || c < 0 || c >= SIB_HW_NCOUNTERS)
        return;
    snprintf(path, sizeof(path), "%s/class/infiniband/softib0/ports/1/hw_counters/%s", root,
             sib_hw_counter_names[c]);
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return;
    if (flock(fd, LOCK_EX) == 0) {
        n = pread(fd, buf, sizeof(buf) - 1, 0);
        if (n > 0) {
            buf[n] = '\0';
            v = strtoull(buf, NULL, 10);
        }
        n = snprintf(buf, sizeof(buf), "%llu\n", v + 1);
        if (pwrite(fd, buf, (size_t)n, 0) == n)
            (void)ftruncate(fd, n);
        flock(fd, LOCK_UN);
    }
    close(fd);
}
