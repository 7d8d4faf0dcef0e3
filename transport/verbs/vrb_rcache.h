/*
 * verbs: the registration cache for rendezvous buffers (private).
 *
 * Keeps memory registered between messages so that a buffer sent (or
 * received into) again is not pinned again. Bounded in entries and bytes
 * (RTM_VERBS_RCACHE_MAX_ENTRIES / _MAX_BYTES), least recently used unused
 * entries go first; RTM_VERBS_RCACHE=0 turns it off.
 *
 * Never stale: every cached range is registered with a userfaultfd of this
 * process for its unmap, remap and remove events, so the kernel tells us of
 * every munmap, mremap, madvise(DONTNEED) and brk shrink of it -- whoever
 * makes the call (the application, or libc inside free()) -- before that
 * call returns; such an entry is never handed out again. Where userfaultfd
 * is not available the cache is off. The choice, and what UCX, Open MPI and
 * MVAPICH do instead, is in docs/transports/verbs-rcache.md.
 *
 * Two kinds of entries:
 *   remote (IBV_ACCESS_REMOTE_READ, the sender's buffer): matched on the
 *     exact (address, length) shown to the peer, and readable by peers only
 *     between vrb_rcache_get() and vrb_rcache_put(): put takes the remote
 *     read right away again (ibv_rereg_mr), so the exposure still ends with
 *     the transfer and a peer never reads beyond what it was shown;
 *   local (IBV_ACCESS_LOCAL_WRITE, the receiver's target; or 0, the source
 *     of an RDMA Write, which needs no right and so may be read-only
 *     memory, .rodata or mprotect(PROT_READ): a writable registration of
 *     it fails with EFAULT on an HCA): any cached range containing the
 *     buffer with at least the rights asked will do.
 */
#ifndef RTM_TRANSPORT_VERBS_VRB_RCACHE_H
#define RTM_TRANSPORT_VERBS_VRB_RCACHE_H

#include "common/error.h"
#include "common/list.h"

#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>

typedef struct vrb_rcache vrb_rcache_t;

/* One registration, cached or not (then it is released by put). */
typedef struct vrb_rc_entry {
    rtm_list_t     lru;        /* in the cache's LRU list (most recent first) */
    struct ibv_mr *mr;
    uintptr_t      start;      /* registered range [start, end) */
    uintptr_t      end;
    int            access;     /* access while in use */
    int            refcount;   /* gets not yet put */
    int            cached;     /* in the cache (else released by the last put) */
    int            stale;      /* the range was unmapped/remapped: never reuse */
} vrb_rc_entry_t;

/* Statistics, for the debug log and the tests. */
typedef struct vrb_rcache_stats {
    uint64_t hits;
    uint64_t misses;
    uint64_t invalidated;     /* entries dropped after an unmap/remap/remove */
    uint64_t evicted;         /* entries dropped for the bounds */
    uint64_t uncached;        /* registrations done outside the cache */
} vrb_rcache_stats_t;

/*
 * A cache for registrations in `pd`. With enable = 0, or when the kernel
 * does not offer userfaultfd, *rc_p is a cache that caches nothing (every
 * get registers, every put releases): callers need no second code path.
 * `who` names the rank and host for messages.
 */
rtm_status_t vrb_rcache_create(struct ibv_pd *pd, int enable, long max_entries,
                               size_t max_bytes, const char *who, vrb_rcache_t **rc_p);
/* Release every registration (the caller has no get outstanding). */
void         vrb_rcache_destroy(vrb_rcache_t *rc);
/* A registration of [addr, addr + len) with `access` (IBV_ACCESS_REMOTE_READ,
 * IBV_ACCESS_LOCAL_WRITE, or 0 for a source), in use until vrb_rcache_put. */
rtm_status_t vrb_rcache_get(vrb_rcache_t *rc, void *addr, size_t len, int access,
                            vrb_rc_entry_t **entry_p);
/* End the use of an entry; a remote one stops being readable by peers. */
void         vrb_rcache_put(vrb_rcache_t *rc, vrb_rc_entry_t *entry);
void         vrb_rcache_stats(vrb_rcache_t *rc, vrb_rcache_stats_t *stats_p);
int          vrb_rcache_enabled(const vrb_rcache_t *rc);

#endif
