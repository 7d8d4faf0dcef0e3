/*
 * verbs: the registration cache for rendezvous buffers (see vrb_rcache.h
 * for what it promises, docs/transports/verbs-rcache.md for why it works
 * this way).
 *
 * Invalidation: one userfaultfd per cache, opened with the unmap, remap and
 * remove events only. Every cached range is registered with it in
 * write-protect mode, and nothing is ever write-protected, so the
 * application never takes a fault for it; the only thing the kernel does is
 * queue an event when the range is unmapped (munmap, mmap MAP_FIXED over
 * it, brk shrink), moved (mremap) or zapped (madvise DONTNEED/REMOVE), and
 * hold the calling thread until that event has been read. A small thread
 * reads the events; it reads them while holding the cache lock and marks
 * the entries stale before it lets go, so by the time munmap() returns in
 * the application, any later lookup sees the entry stale. That thread never
 * calls into verbs, allocates or logs; the lookups never hold the lock
 * across a call that could unmap memory (ibv_*, malloc/free), since an
 * unmap of a registered range waits for that thread, which waits for the
 * lock.
 */
#include "config.h"

#include "transport/verbs/vrb_rcache.h"
#include "common/log.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

#define RC_EVENT_BATCH 16

struct vrb_rcache {
    struct ibv_pd     *pd;
    int                enabled;
    long               max_entries;
    size_t             max_bytes;
    pid_t              pid;          /* a forked child bypasses the cache */
    char               who[96];
    /* everything below `lock` is shared with the event thread */
    pthread_mutex_t    lock;
    rtm_list_t         lru;          /* entries, most recently used first */
    long               nentries;
    size_t             nbytes;
    int                uffd;
    int                stop_fd;      /* eventfd: ends the event thread */
    pthread_t          thread;
    int                thread_started;
    vrb_rcache_stats_t stats;
    vrb_rcache_t      *next_live;
};

/* Every cache not yet destroyed. An interface closed without
 * vrb_rndv_close() (an older close path) leaves its cache behind: listed
 * here it stays reachable (no leak report), and its thread keeps draining
 * unmap events, so no munmap ever waits for a reader that is gone. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static vrb_rcache_t *live_caches;

static size_t page_size(void)
{
    static size_t pg;

    if (pg == 0)
        pg = (size_t)sysconf(_SC_PAGESIZE);
    return pg;
}

/* Caller holds the lock. */
static void mark_stale(vrb_rcache_t *rc, uintptr_t start, uintptr_t end)
{
    rtm_list_t *pos;

    rtm_list_for_each(pos, &rc->lru) {
        vrb_rc_entry_t *e = rtm_container_of(pos, vrb_rc_entry_t, lru);

        if (!e->stale && e->start < end && start < e->end) {
            e->stale = 1;
            rc->stats.invalidated++;
        }
    }
}

/* Reads every queued event under the lock: see the top of the file. */
static void *event_thread(void *arg)
{
    vrb_rcache_t *rc = arg;
    struct pollfd pfd[2];

    pfd[0].fd = rc->uffd;
    pfd[0].events = POLLIN;
    pfd[1].fd = rc->stop_fd;
    pfd[1].events = POLLIN;
    for (;;) {
        struct uffd_msg msg[RC_EVENT_BATCH];
        ssize_t n;

        pfd[0].revents = pfd[1].revents = 0;
        if (poll(pfd, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (pfd[1].revents != 0)
            break;
        if (pfd[0].revents == 0)
            continue;
        pthread_mutex_lock(&rc->lock);
        while ((n = read(rc->uffd, msg, sizeof(msg))) > 0) {
            for (size_t i = 0; i < (size_t)n / sizeof(msg[0]); i++) {
                switch (msg[i].event) {
                case UFFD_EVENT_UNMAP:
                    mark_stale(rc, (uintptr_t)msg[i].arg.remove.start,
                               (uintptr_t)msg[i].arg.remove.end);
                    break;
                case UFFD_EVENT_REMOVE:
                    mark_stale(rc, (uintptr_t)msg[i].arg.remove.start,
                               (uintptr_t)msg[i].arg.remove.end);
                    break;
                case UFFD_EVENT_REMAP:
                    mark_stale(rc, (uintptr_t)msg[i].arg.remap.from,
                               (uintptr_t)(msg[i].arg.remap.from + msg[i].arg.remap.len));
                    break;
                default:
                    /* no fault can come: nothing is write-protected */
                    break;
                }
            }
        }
        pthread_mutex_unlock(&rc->lock);
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            break;
    }
    return NULL;
}

/* Opens the userfaultfd; returns a reason when the kernel offers none. */
static const char *uffd_open(vrb_rcache_t *rc)
{
    struct uffdio_api api;
    int fd;

    fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && (errno == EPERM || errno == EACCES))
        /* unprivileged (vm.unprivileged_userfaultfd=0): user-mode faults
         * only, which is all we ask for (no fault is ever delivered) */
        fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
    if (fd < 0)
        return strerror(errno);
    memset(&api, 0, sizeof(api));
    api.api = UFFD_API;
    api.features = UFFD_FEATURE_EVENT_UNMAP | UFFD_FEATURE_EVENT_REMAP |
                   UFFD_FEATURE_EVENT_REMOVE;
    if (ioctl(fd, UFFDIO_API, &api) != 0) {
        close(fd);
        return "the kernel lacks the unmap/remap/remove events";
    }
    rc->uffd = fd;
    return NULL;
}

rtm_status_t vrb_rcache_create(struct ibv_pd *pd, int enable, long max_entries,
                               size_t max_bytes, const char *who, vrb_rcache_t **rc_p)
{
    vrb_rcache_t *rc;
    const char *why = NULL;

    if (pd == NULL || rc_p == NULL || max_entries < 0)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs rcache: bad arguments");
    rc = calloc(1, sizeof(*rc));
    if (rc == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "verbs rcache: no memory");
    rc->pd = pd;
    rc->max_entries = max_entries;
    rc->max_bytes = max_bytes;
    rc->pid = getpid();
    rc->uffd = rc->stop_fd = -1;
    snprintf(rc->who, sizeof(rc->who), "%s", who != NULL ? who : "?");
    rtm_list_init(&rc->lru);
    pthread_mutex_init(&rc->lock, NULL);
    if (!enable || max_entries == 0 || max_bytes == 0) {
        rtm_debug("%s: rendezvous registration cache off (RTM_VERBS_RCACHE=0 or no room)",
                  rc->who);
    } else if ((why = uffd_open(rc)) != NULL) {
        rtm_info("%s: rendezvous registration cache off: no userfaultfd to learn of unmapped "
                 "memory (%s); every rendezvous buffer is registered per message", rc->who,
                 why);
    } else {
        sigset_t all, old;

        rc->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        /* the thread must never run the application's signal handlers */
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        if (rc->stop_fd >= 0 && pthread_create(&rc->thread, NULL, event_thread, rc) == 0)
            rc->thread_started = 1;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (rc->thread_started) {
            rc->enabled = 1;
            rtm_debug("%s: rendezvous registration cache on (%ld entries, %zu bytes at most)",
                      rc->who, max_entries, max_bytes);
        } else {
            rtm_info("%s: rendezvous registration cache off: cannot start its event thread",
                     rc->who);
            close(rc->uffd);
            rc->uffd = -1;
        }
    }
    pthread_mutex_lock(&live_lock);
    rc->next_live = live_caches;
    live_caches = rc;
    pthread_mutex_unlock(&live_lock);
    *rc_p = rc;
    return RTM_OK;
}

static void entry_release(vrb_rc_entry_t *e)
{
    if (e->mr != NULL)
        ibv_dereg_mr(e->mr);
    free(e);
}

/* Unlinks, under the lock, what must go: stale unused entries, then the
 * least recently used unused ones while over the bounds (counting `extra`
 * bytes and one entry about to be added). Returns them in `out`. */
static void collect_victims(vrb_rcache_t *rc, size_t extra, int adding, rtm_list_t *out)
{
    rtm_list_t *pos, *tmp;

    rtm_list_for_each_safe(pos, tmp, &rc->lru) {
        vrb_rc_entry_t *e = rtm_container_of(pos, vrb_rc_entry_t, lru);

        if (e->stale && e->refcount == 0) {
            rtm_list_del(&e->lru);
            rc->nentries--;
            rc->nbytes -= e->end - e->start;
            e->cached = 0;
            rtm_list_push_tail(out, &e->lru);
        }
    }
    /* from the least recently used end */
    for (pos = rc->lru.prev; pos != &rc->lru &&
         (rc->nentries + adding > rc->max_entries || rc->nbytes + extra > rc->max_bytes);
         pos = tmp) {
        vrb_rc_entry_t *e = rtm_container_of(pos, vrb_rc_entry_t, lru);

        tmp = pos->prev;
        if (e->refcount > 0)
            continue;
        rtm_list_del(&e->lru);
        rc->nentries--;
        rc->nbytes -= e->end - e->start;
        e->cached = 0;
        rc->stats.evicted++;
        rtm_list_push_tail(out, &e->lru);
    }
}

static void release_all(rtm_list_t *list)
{
    while (!rtm_list_is_empty(list)) {
        vrb_rc_entry_t *e = rtm_container_of(rtm_list_pop_head(list), vrb_rc_entry_t, lru);

        entry_release(e);
    }
}

/* Caller holds the lock. */
static vrb_rc_entry_t *lookup(vrb_rcache_t *rc, uintptr_t start, uintptr_t end, int access)
{
    rtm_list_t *pos;

    rtm_list_for_each(pos, &rc->lru) {
        vrb_rc_entry_t *e = rtm_container_of(pos, vrb_rc_entry_t, lru);

        if (e->stale)
            continue;
        /* remote: exactly what the peer is shown; local: any entry with at
         * least the rights asked (LOCAL_WRITE serves a send source too) */
        if (access == IBV_ACCESS_REMOTE_READ
                ? (e->access == access && e->start == start && e->end == end)
                : (e->access != IBV_ACCESS_REMOTE_READ && (e->access & access) == access &&
                   e->start <= start && end <= e->end))
            return e;
    }
    return NULL;
}

static rtm_status_t reg_error(vrb_rcache_t *rc, void *addr, size_t len, int access, int err)
{
    int no_mem = err == ENOMEM || err == EAGAIN || err == EPERM;

    return rtm_error_set(no_mem ? RTM_ERR_NO_MEMORY : err == EFAULT ? RTM_ERR_BUFFER :
                         RTM_ERR_TRANSPORT, "%s: verbs: cannot register %zu bytes at %p %s: "
                         "%s%s", rc->who, len, addr,
                         access == IBV_ACCESS_REMOTE_READ ? "for reading by a peer"
                         : access == IBV_ACCESS_LOCAL_WRITE ? "to read into"
                                                            : "to send from",
                         strerror(err),
                         no_mem ? " (RLIMIT_MEMLOCK too low? try ulimit -l unlimited, or a "
                                  "smaller RTM_VERBS_RCACHE_MAX_BYTES)"
                         : err == EFAULT ? " (memory not mapped, or not writable where it "
                                           "must be)" : "");
}

/* A registration outside the cache, released by its put. */
static rtm_status_t get_uncached(vrb_rcache_t *rc, void *addr, size_t len, int access,
                                 vrb_rc_entry_t **entry_p)
{
    vrb_rc_entry_t *e = calloc(1, sizeof(*e));

    if (e == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "%s: verbs rcache: no memory", rc->who);
    e->mr = ibv_reg_mr(rc->pd, addr, len, access);
    if (e->mr == NULL) {
        int err = errno;

        free(e);
        return reg_error(rc, addr, len, access, err);
    }
    rtm_list_init(&e->lru);
    e->start = (uintptr_t)addr;
    e->end = (uintptr_t)addr + len;
    e->access = access;
    e->refcount = 1;
    rc->stats.uncached++;
    *entry_p = e;
    return RTM_OK;
}

/* Let peers read a cached remote entry again (it was closed by put). */
static rtm_status_t expose(vrb_rcache_t *rc, vrb_rc_entry_t *e)
{
    int rc_rereg = ibv_rereg_mr(e->mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
                                IBV_ACCESS_REMOTE_READ);

    if (rc_rereg != 0)
        return rtm_error_set(RTM_ERR_TRANSPORT, "%s: verbs: cannot open %zu bytes at %p to "
                             "peers again (ibv_rereg_mr: %d)", rc->who,
                             (size_t)(e->end - e->start), (void *)e->start, rc_rereg);
    return RTM_OK;
}

rtm_status_t vrb_rcache_get(vrb_rcache_t *rc, void *addr, size_t len, int access,
                            vrb_rc_entry_t **entry_p)
{
    uintptr_t start = (uintptr_t)addr, end = start + len;
    uintptr_t pg_start, pg_end;
    struct uffdio_register ureg;
    rtm_list_t victims;
    vrb_rc_entry_t *e;
    rtm_status_t status;

    if (rc == NULL || addr == NULL || len == 0 || end < start || entry_p == NULL ||
        (access != IBV_ACCESS_REMOTE_READ && access != IBV_ACCESS_LOCAL_WRITE && access != 0))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "verbs rcache get: bad arguments (len %zu, "
                             "access 0x%x)", len, access);
    if (!rc->enabled || getpid() != rc->pid)
        return get_uncached(rc, addr, len, access, entry_p);
    rtm_list_init(&victims);
    pthread_mutex_lock(&rc->lock);
    e = lookup(rc, start, end, access);
    if (e != NULL) {
        int first = e->refcount++ == 0;

        rtm_list_del(&e->lru);
        rtm_list_push_head(&rc->lru, &e->lru);
        rc->stats.hits++;
        collect_victims(rc, 0, 0, &victims);
        pthread_mutex_unlock(&rc->lock);
        release_all(&victims);
        if (first && access == IBV_ACCESS_REMOTE_READ && (status = expose(rc, e)) != RTM_OK) {
            vrb_rcache_put(rc, e);
            return status;
        }
        *entry_p = e;
        return RTM_OK;
    }
    rc->stats.misses++;
    pg_start = start & ~(uintptr_t)(page_size() - 1);
    pg_end = (end + page_size() - 1) & ~(uintptr_t)(page_size() - 1);
    if (pg_end - pg_start > rc->max_bytes) {
        pthread_mutex_unlock(&rc->lock);
        return get_uncached(rc, addr, len, access, entry_p);
    }
    collect_victims(rc, pg_end - pg_start, 1, &victims);
    pthread_mutex_unlock(&rc->lock);
    release_all(&victims);

    /* Ask for the events first: an unmap after this point is seen. Memory
     * the kernel cannot watch (some file or device mappings) goes uncached. */
    memset(&ureg, 0, sizeof(ureg));
    ureg.range.start = pg_start;
    ureg.range.len = pg_end - pg_start;
    ureg.mode = UFFDIO_REGISTER_MODE_WP;
    if (ioctl(rc->uffd, UFFDIO_REGISTER, &ureg) != 0) {
        rtm_trace("%s: rcache: %zu bytes at %p cannot be watched (%s): not cached", rc->who,
                  len, addr, strerror(errno));
        return get_uncached(rc, addr, len, access, entry_p);
    }
    e = calloc(1, sizeof(*e));
    if (e == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "%s: verbs rcache: no memory", rc->who);
    /* Remote entries cover exactly what the peer is shown (least
     * privilege); local ones whole pages, to serve neighbours too. */
    if (access == IBV_ACCESS_REMOTE_READ) {
        e->start = start;
        e->end = end;
    } else {
        e->start = pg_start;
        e->end = pg_end;
    }
    e->mr = ibv_reg_mr(rc->pd, (void *)e->start, e->end - e->start, access);
    if (e->mr == NULL && (errno == ENOMEM || errno == EAGAIN)) {
        /* out of lockable memory: give back every unused registration */
        pthread_mutex_lock(&rc->lock);
        {
            size_t saved = rc->max_bytes;

            rc->max_bytes = 0;
            collect_victims(rc, 0, 0, &victims);
            rc->max_bytes = saved;
        }
        pthread_mutex_unlock(&rc->lock);
        release_all(&victims);
        e->mr = ibv_reg_mr(rc->pd, (void *)e->start, e->end - e->start, access);
    }
    if (e->mr == NULL) {
        int err = errno;

        free(e);
        return reg_error(rc, addr, len, access, err);
    }
    e->access = access;
    e->refcount = 1;
    e->cached = 1;
    pthread_mutex_lock(&rc->lock);
    rtm_list_push_head(&rc->lru, &e->lru);
    rc->nentries++;
    rc->nbytes += e->end - e->start;
    pthread_mutex_unlock(&rc->lock);
    *entry_p = e;
    return RTM_OK;
}

void vrb_rcache_put(vrb_rcache_t *rc, vrb_rc_entry_t *e)
{
    int last, cached;
    rtm_list_t victims;

    if (rc == NULL || e == NULL)
        return;
    rtm_list_init(&victims);
    pthread_mutex_lock(&rc->lock);
    last = --e->refcount == 0;
    cached = e->cached;
    if (last && cached && e->stale) {
        rtm_list_del(&e->lru);
        rc->nentries--;
        rc->nbytes -= e->end - e->start;
        e->cached = 0;
        cached = 0;
    }
    if (last && cached)
        collect_victims(rc, 0, 0, &victims);
    pthread_mutex_unlock(&rc->lock);
    release_all(&victims);
    if (!last)
        return;
    if (!cached) {
        entry_release(e);
        return;
    }
    /* The transfer is over: peers lose the right to read (a new rkey on
     * HCAs that change it; none of them keeps REMOTE_READ). */
    if (e->access == IBV_ACCESS_REMOTE_READ &&
        ibv_rereg_mr(e->mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, 0) != 0) {
        /* cannot close it: deregister it (that closes it for sure) */
        pthread_mutex_lock(&rc->lock);
        if (e->cached) {
            rtm_list_del(&e->lru);
            rc->nentries--;
            rc->nbytes -= e->end - e->start;
            e->cached = 0;
        }
        pthread_mutex_unlock(&rc->lock);
        entry_release(e);
    }
}

void vrb_rcache_destroy(vrb_rcache_t *rc)
{
    rtm_list_t all;

    if (rc == NULL)
        return;
    pthread_mutex_lock(&live_lock);
    for (vrb_rcache_t **pp = &live_caches; *pp != NULL; pp = &(*pp)->next_live) {
        if (*pp == rc) {
            *pp = rc->next_live;
            break;
        }
    }
    pthread_mutex_unlock(&live_lock);
    if (rc->thread_started) {
        uint64_t one = 1;

        if (write(rc->stop_fd, &one, sizeof(one)) != (ssize_t)sizeof(one)) {
            rtm_warn("%s: rcache: cannot stop the event thread: %s", rc->who, strerror(errno));
        } else {
            /* The userfaultfd goes before the join: the exiting thread
             * frees its thread-local memory, and a heap trim over a range
             * still registered would wait for an UNMAP event to be read,
             * by the very thread that is exiting, while we wait for it
             * (a finalize that hung 1 run in ~50 under load). Closed, the
             * file unregisters every range and wakes such a waiter. Under
             * the lock: the thread reads rc->uffd only while holding it. */
            pthread_mutex_lock(&rc->lock);
            if (rc->uffd >= 0)
                close(rc->uffd);
            rc->uffd = -1;
            pthread_mutex_unlock(&rc->lock);
            pthread_join(rc->thread, NULL);
        }
    }
    rtm_list_init(&all);
    pthread_mutex_lock(&rc->lock);
    while (!rtm_list_is_empty(&rc->lru))
        rtm_list_push_tail(&all, rtm_list_pop_head(&rc->lru));
    pthread_mutex_unlock(&rc->lock);
    rtm_debug("%s: rcache: %llu hits, %llu misses, %llu invalidated, %llu evicted, %llu "
              "uncached", rc->who, (unsigned long long)rc->stats.hits,
              (unsigned long long)rc->stats.misses, (unsigned long long)rc->stats.invalidated,
              (unsigned long long)rc->stats.evicted, (unsigned long long)rc->stats.uncached);
    release_all(&all);
    /* closing the userfaultfd unregisters every range with it */
    if (rc->uffd >= 0)
        close(rc->uffd);
    if (rc->stop_fd >= 0)
        close(rc->stop_fd);
    pthread_mutex_destroy(&rc->lock);
    free(rc);
}

void vrb_rcache_stats(vrb_rcache_t *rc, vrb_rcache_stats_t *stats_p)
{
    if (rc == NULL || stats_p == NULL)
        return;
    pthread_mutex_lock(&rc->lock);
    *stats_p = rc->stats;
    pthread_mutex_unlock(&rc->lock);
}

int vrb_rcache_enabled(const vrb_rcache_t *rc)
{
    return rc != NULL && rc->enabled;
}
