/*
 * The job's shared segment on one host: naming, creation by local rank 0,
 * attachment by the others, and making sure the name never outlives the
 * moment every local rank has mapped it.
 */
#include "config.h"

#include "transport/shm/shm.h"
#include "common/error.h"
#include "common/log.h"
#include "common/shmname.h"
#include "transport/shm/shm_config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* "/rtm-<nspace>-<node_id>" (common/shmname.h: the prefix rtrun deletes
 * leftovers by). */
void shm_seg_name(const char *nspace, int node_id, char *buf, size_t len)
{
    char what[16];

    snprintf(what, sizeof(what), "%d", node_id);
    (void)rtm_job_shm_name(nspace, what, buf, len);
}

static uint64_t ring_index(int n, int src_local, int dst_local)
{
    return (uint64_t)src_local * (uint64_t)(n - 1) +
           (uint64_t)(dst_local < src_local ? dst_local : dst_local - 1);
}

shm_rank_info_t *shm_seg_rank_info(shm_iface_t *iface, int local_rank)
{
    return (shm_rank_info_t *)((char *)iface->seg + SHM_PAGE) + local_rank;
}

void *shm_seg_ring(shm_iface_t *iface, int src_local, int dst_local)
{
    return (char *)iface->seg + iface->seg->rings_offset +
           ring_index(iface->local_size, src_local, dst_local) * iface->seg->ring_stride;
}

shm_fifo_ctrl_t *shm_seg_ctrl(shm_iface_t *iface, int src_local, int dst_local)
{
    char *block = (char *)iface->seg + iface->seg->ctrl_offset +
                  (uint64_t)dst_local * iface->seg->ctrl_stride;

    return (shm_fifo_ctrl_t *)(void *)block + (src_local < dst_local ? src_local : src_local - 1);
}

void *shm_seg_queue(shm_iface_t *iface, int dst_local)
{
    return (char *)iface->seg + iface->seg->rings_offset +
           (uint64_t)dst_local * iface->seg->ring_stride;
}

shm_queue_ctrl_t *shm_seg_qctrl(shm_iface_t *iface, int dst_local)
{
    return (shm_queue_ctrl_t *)(void *)((char *)iface->seg + iface->seg->ctrl_offset +
                                        (uint64_t)dst_local * iface->seg->ctrl_stride);
}

shm_split_slot_t *shm_seg_split_slots(shm_iface_t *iface, int dst_local)
{
    return (shm_split_slot_t *)(void *)((char *)iface->seg + iface->seg->split_offset) +
           (uint64_t)dst_local * SHM_SPLIT_SLOTS;
}

static const char *queue_name(uint32_t queue)
{
    return queue == SHM_QUEUE_SHARED ? "shared" : queue == SHM_QUEUE_PAIR ? "pair" : "unknown";
}

static void seg_publish_self(shm_iface_t *iface)
{
    shm_rank_info_t *info = shm_seg_rank_info(iface, iface->local_rank);

    info->pid = (int32_t)getpid();
    info->world_rank = iface->world_rank;
    info->probe_addr = (uint64_t)(uintptr_t)&iface->cma_probe;
    info->probe_value = iface->cma_probe;
    atomic_store_explicit(&info->ready, 1, memory_order_release);
}

/* The last rank to map the segment removes its name at once. */
static void seg_count_attach(shm_iface_t *iface)
{
    uint32_t n = atomic_fetch_add(&iface->seg->attached, 1) + 1;

    if (n == (uint32_t)iface->local_size) {
        if (shm_unlink(iface->name) != 0 && errno != ENOENT)
            rtm_warn("rank %d (%s): cannot remove shared memory name %s: %s",
                     iface->world_rank, iface->hostname, iface->name, strerror(errno));
        atomic_store(&iface->seg->unlinked, 1);
        rtm_debug("shm: all %d local ranks attached; %s unlinked", iface->local_size,
                  iface->name);
    }
}

rtm_status_t shm_seg_create(shm_iface_t *iface, const shm_seg_geom_t *geom)
{
    uint64_t size = geom->size;
    shm_seg_hdr_t *seg;
    int fd, rc;

    fd = shm_open(iface->name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0 && errno == EEXIST) {
        /* Only a crashed earlier job with the very same namespace leaves
         * this; its ranks are gone (rtrun names jobs by its pid). */
        rtm_warn("rank %d (%s): removing stale shared memory segment /dev/shm%s",
                 iface->world_rank, iface->hostname, iface->name);
        shm_unlink(iface->name);
        fd = shm_open(iface->name, O_RDWR | O_CREAT | O_EXCL, 0600);
    }
    if (fd < 0)
        return rtm_error_set(RTM_ERR_TRANSPORT,
                             "rank %d (%s): cannot create shared memory segment /dev/shm%s: %s",
                             iface->world_rank, iface->hostname, iface->name, strerror(errno));

    /* Allocate the pages now: on a full /dev/shm a later first touch would
     * be a SIGBUS in the middle of a send instead of this message. */
    rc = posix_fallocate(fd, 0, (off_t)size);
    if (rc == EINVAL || rc == EOPNOTSUPP)
        rc = ftruncate(fd, (off_t)size) == 0 ? 0 : errno;
    if (rc != 0) {
        rtm_error_set(RTM_ERR_TRANSPORT,
                      "rank %d (%s): cannot size shared memory segment /dev/shm%s to %llu bytes "
                      "(%d local ranks, rings of %llu B: RTM_SHM_FIFO_SIZE=%zu within "
                      "RTM_SHM_RX_BUDGET=%zu per rank and RTM_SHM_SEG_MAX=%zu): %s; free space "
                      "in /dev/shm (df /dev/shm) or lower RTM_SHM_RX_BUDGET",
                      iface->world_rank, iface->hostname, iface->name, (unsigned long long)size,
                      iface->local_size, (unsigned long long)(geom->fifo_lines * SHM_LINE),
                      shm_config.fifo_size, shm_config.rx_budget, shm_config.seg_max,
                      strerror(rc));
        goto err_unlink;
    }
    seg = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (seg == MAP_FAILED) {
        rtm_error_set(RTM_ERR_TRANSPORT,
                      "rank %d (%s): cannot map shared memory segment /dev/shm%s (%llu bytes): %s",
                      iface->world_rank, iface->hostname, iface->name, (unsigned long long)size,
                      strerror(errno));
        goto err_unlink;
    }

    seg->version = SHM_SEG_VERSION;
    seg->local_size = (uint32_t)iface->local_size;
    seg->queue = geom->shared ? SHM_QUEUE_SHARED : SHM_QUEUE_PAIR;
    seg->fifo_lines = geom->fifo_lines;
    seg->ring_stride = geom->fifo_lines * SHM_LINE;
    seg->split_offset = geom->split_offset;
    seg->ctrl_offset = geom->ctrl_offset;
    seg->ctrl_stride = geom->ctrl_stride;
    seg->rings_offset = geom->rings_offset;
    seg->size = size;
    atomic_store(&seg->attached, 0);
    atomic_store(&seg->unlinked, 0);
    /* magic last: a peer checks it after the fence, which orders it anyway */
    seg->magic = SHM_SEG_MAGIC;

    iface->fd = fd;
    iface->seg = seg;
    iface->seg_size = size;
    rtm_debug("shm: segment %s of %llu KiB: %d local ranks, %llu %s of %llu KiB",
              iface->name, (unsigned long long)(size / 1024), iface->local_size,
              (unsigned long long)geom->rings, geom->shared ? "shared queues" : "rings",
              (unsigned long long)(geom->fifo_lines * SHM_LINE / 1024));
    seg_publish_self(iface);
    seg_count_attach(iface);
    return RTM_OK;

err_unlink:
    shm_unlink(iface->name);
    close(fd);
    return RTM_ERR_TRANSPORT;
}

rtm_status_t shm_seg_attach(shm_iface_t *iface)
{
    shm_seg_hdr_t *seg;
    struct stat st;
    int fd;

    fd = shm_open(iface->name, O_RDWR, 0);
    if (fd < 0)
        return rtm_error_set(RTM_ERR_TRANSPORT,
                             "rank %d (%s, local rank %d): cannot open shared memory segment "
                             "/dev/shm%s made by local rank 0 (world rank %d): %s",
                             iface->world_rank, iface->hostname, iface->local_rank, iface->name,
                             iface->local_peers[0], strerror(errno));
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < SHM_PAGE) {
        rtm_error_set(RTM_ERR_TRANSPORT,
                      "rank %d (%s): shared memory segment /dev/shm%s is truncated (%lld bytes)",
                      iface->world_rank, iface->hostname, iface->name, (long long)st.st_size);
        goto err_close;
    }
    seg = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (seg == MAP_FAILED) {
        rtm_error_set(RTM_ERR_TRANSPORT,
                      "rank %d (%s): cannot map shared memory segment /dev/shm%s (%lld bytes): %s",
                      iface->world_rank, iface->hostname, iface->name, (long long)st.st_size,
                      strerror(errno));
        goto err_close;
    }
    if (seg->magic == SHM_SEG_MAGIC && seg->version != SHM_SEG_VERSION) {
        rtm_error_set(RTM_ERR_TRANSPORT,
                      "rank %d (%s): shared memory segment /dev/shm%s has layout version %u, "
                      "this library version %u: every rank of a job must run the same "
                      "librtmsg", iface->world_rank, iface->hostname, iface->name,
                      seg->version, SHM_SEG_VERSION);
        munmap(seg, (size_t)st.st_size);
        goto err_close;
    }
    if (seg->magic == SHM_SEG_MAGIC &&
        seg->queue != (iface->shared ? SHM_QUEUE_SHARED : SHM_QUEUE_PAIR)) {
        rtm_error_set(RTM_ERR_TRANSPORT,
                      "rank %d (%s): shared memory segment /dev/shm%s made by local rank 0 "
                      "(world rank %d) has %s queues, but this rank's configuration "
                      "(RTM_SHM_QUEUE=%s, RTM_SHM_RX_BUDGET=%zu, RTM_SHM_SEG_MAX=%zu, %d local "
                      "ranks) chose %s queues: give every rank the same RTM_SHM_* values",
                      iface->world_rank, iface->hostname, iface->name, iface->local_peers[0],
                      queue_name(seg->queue), shm_config.queue == SHM_QUEUE_AUTO ? "auto" : queue_name((uint32_t)shm_config.queue),
                      shm_config.rx_budget, shm_config.seg_max, iface->local_size,
                      iface->shared ? "shared" : "pair");
        munmap(seg, (size_t)st.st_size);
        goto err_close;
    }
    if (seg->magic != SHM_SEG_MAGIC || seg->local_size != (uint32_t)iface->local_size ||
        seg->size != (uint64_t)st.st_size) {
        rtm_error_set(RTM_ERR_TRANSPORT,
                      "rank %d (%s): shared memory segment /dev/shm%s does not belong to this "
                      "job (magic %#llx, version %u, %u local ranks, expected %d)",
                      iface->world_rank, iface->hostname, iface->name,
                      (unsigned long long)seg->magic, seg->version, seg->local_size,
                      iface->local_size);
        munmap(seg, (size_t)st.st_size);
        goto err_close;
    }
    iface->fd = fd;
    iface->seg = seg;
    iface->seg_size = (size_t)st.st_size;
    seg_publish_self(iface);
    seg_count_attach(iface);
    return RTM_OK;

err_close:
    close(fd);
    return RTM_ERR_TRANSPORT;
}

/* On close or failure: if the last attach never happened (a peer failed
 * before wireup), remove the name here. */
void shm_seg_unlink_if_named(shm_iface_t *iface)
{
    if (iface->seg == NULL || atomic_load(&iface->seg->unlinked))
        return;   /* never mapped (rank 0 maps it in open) or already gone */
    if (shm_unlink(iface->name) == 0) {
        atomic_store(&iface->seg->unlinked, 1);
        rtm_debug("shm: removed %s (not every local rank attached)", iface->name);
    }
}

void shm_seg_detach(shm_iface_t *iface)
{
    if (iface->seg != NULL) {
        munmap(iface->seg, iface->seg_size);
        iface->seg = NULL;
    }
    if (iface->fd >= 0) {
        close(iface->fd);
        iface->fd = -1;
    }
}
