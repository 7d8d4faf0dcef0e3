/*
 * Single-copy rendezvous by CMA (process_vm_readv): the receiver reads the
 * sender's buffer straight into its own. Whether the kernel lets one rank
 * read another (ptrace access rules, Yama, containers, seccomp) is tested
 * once at wireup by reading a probe word a local peer published; when it is
 * refused the transport does not offer get, and the runtime streams such
 * messages through the rings instead.
 */
#include "config.h"

#include "transport/shm/shm.h"
#include "common/error.h"
#include "common/log.h"
#include "transport/shm/shm_config.h"
#include "common/timer.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* How long local rank 0 waits after the fence for another local rank to
 * publish its probe word, when the runtime offers no addr_lookup. */
#define SHM_CMA_PROBE_WAIT_S 30.0

/* len bytes between local memory and remote (an address of process pid),
 * by process_vm_writev (write) or process_vm_readv, resumed after short
 * transfers and EINTR. 0 or an errno. */
int shm_cma_xfer(pid_t pid, void *local, uint64_t remote, size_t len, int write)
{
    struct iovec liov;
    struct iovec riov;
    ssize_t n;

    while (len > 0) {
        liov.iov_base = local;
        liov.iov_len = len;
        riov.iov_base = (void *)(uintptr_t)remote;
        riov.iov_len = len;
        n = write ? process_vm_writev(pid, &liov, 1, &riov, 1, 0)
                  : process_vm_readv(pid, &liov, 1, &riov, 1, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (n == 0)
            return EFAULT;
        local = (char *)local + n;
        remote += (uint64_t)n;
        len -= (size_t)n;
    }
    return 0;
}

static int cma_read(pid_t pid, void *local, uint64_t remote, size_t len)
{
    return shm_cma_xfer(pid, local, remote, len, 0);
}

/* process_vm_writev only reads the local iovec: the cast drops a const the
 * call keeps. */
static int cma_write(pid_t pid, const void *local, uint64_t remote, size_t len)
{
    return shm_cma_xfer(pid, (void *)(uintptr_t)local, remote, len, 1);
}

/* Whom to probe, into *target: a local peer whose pid and probe word are
 * known now. Returns 0, or -1 when none turned up in time. */
static int probe_target(shm_iface_t *iface, shm_rank_info_t *target)
{
    double deadline;
    void *blob = NULL;
    size_t len = 0;

    /* Local rank 0 published its word in the segment before the fence. */
    if (iface->local_rank != 0) {
        *target = *shm_seg_rank_info(iface, 0);
        return 0;
    }
    /* Rank 0 reads local rank 1's address blob when the runtime offers it... */
    if (iface->addr_lookup != NULL &&
        iface->addr_lookup(iface->local_peers[1], "shm", &blob, &len) == RTM_OK) {
        shm_addr_t addr;
        int ok = blob != NULL && len == sizeof(addr);

        if (ok) {
            memcpy(&addr, blob, sizeof(addr));
            ok = addr.magic == SHM_ADDR_MAGIC && addr.local_rank == 1;
        }
        free(blob);
        if (ok) {
            memset(target, 0, sizeof(*target));
            target->pid = addr.pid;
            target->world_rank = iface->local_peers[1];
            target->probe_addr = addr.probe_addr;
            target->probe_value = addr.probe_value;
            return 0;
        }
    }
    /* ...else waits for another local rank to attach and publish its word
     * (they all left the same fence, so normally microseconds). */
    deadline = rtm_time_now() + SHM_CMA_PROBE_WAIT_S;
    for (unsigned spins = 0;; spins++) {
        for (int i = 1; i < iface->local_size; i++) {
            const shm_rank_info_t *info = shm_seg_rank_info(iface, i);

            if (atomic_load_explicit(&info->ready, memory_order_acquire)) {
                *target = *info;
                return 0;
            }
        }
        if (rtm_time_now() > deadline)
            return -1;
        if (spins < 1000) {
            sched_yield();
        } else {
            struct timespec ts = {0, 100000};

            nanosleep(&ts, NULL);
        }
    }
}

int shm_yama_parse(const char *text, size_t len)
{
    /* one digit, then at most a newline */
    if (len < 1 || text[0] < '0' || text[0] > '3' || (len > 1 && (len > 2 || text[1] != '\n')))
        return -1;
    return text[0] - '0';
}

static int yama_scope(void)
{
    char text[8];
    ssize_t n;
    int fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return -1;   /* no Yama in this kernel */
    n = read(fd, text, sizeof(text));
    close(fd);
    return n > 0 ? shm_yama_parse(text, (size_t)n) : -1;
}

/* Open MPI does the same (its vader/sm transport). The job's privacy is
 * unchanged: a process of another user may not read the rank either way
 * (the kernel's ptrace rules: same user, or CAP_SYS_PTRACE); Yama's scope 1
 * also kept the rank's own user's other processes out, which this reopens
 * for the job's life, as without Yama (docs/security.md). Scopes 2 and 3
 * forbid it whatever the target says: CMA is refused, and the rings copy. */
void shm_cma_allow_peers(shm_iface_t *iface)
{
    iface->yama_scope = yama_scope();
    if (shm_config.cma != 0 || iface->local_size < 2 || iface->yama_scope != 1)
        return;
    if (prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0) != 0) {
        rtm_debug("shm: Yama ptrace_scope 1 and prctl(PR_SET_PTRACER_ANY) failed: %s; CMA "
                  "between local ranks will be refused", strerror(errno));
        return;
    }
    iface->ptracer_any = 1;
    rtm_debug("shm: Yama ptrace_scope 1: this rank lets its user's processes read it "
              "(PR_SET_PTRACER_ANY) for CMA between local ranks (RTM_SHM_CMA=off leaves it closed)");
}

void shm_cma_probe(shm_iface_t *iface)
{
    shm_rank_info_t target;
    uint64_t value = 0;
    int err;

    if (shm_config.cma != 0) {
        iface->cma = SHM_CMA_OFF;
        return;
    }
    if (probe_target(iface, &target) != 0) {
        iface->cma = SHM_CMA_NO_PEER;
        rtm_warn("rank %d (%s): no other local rank attached %s within %.0f s; CMA not "
                 "probed, copying through shared memory",
                 iface->world_rank, iface->hostname, iface->name, SHM_CMA_PROBE_WAIT_S);
        return;
    }
    err = cma_read((pid_t)target.pid, &value, target.probe_addr, sizeof(value));
    if (err == 0 && value != target.probe_value)
        err = EIO;   /* read something, but not the word published: don't trust it */
    if (err != 0) {
        iface->cma = SHM_CMA_REFUSED;
        iface->cma_errno = err;
        rtm_debug("shm: process_vm_readv of rank %d (pid %d) refused: %s; large messages are "
                  "copied through shared memory",
                  target.world_rank, target.pid, strerror(err));
        return;
    }
    iface->cma = SHM_CMA_OK;
}

const char *shm_cma_describe(const shm_iface_t *iface, char *buf, size_t len)
{
    const char *errname;

    switch (iface->cma) {
    case SHM_CMA_OK:
        snprintf(buf, len, "CMA single copy from %zu B, from %zu B on a busy host (RTM_SHM_LOAD=%s)",
                 shm_config.cma_threshold, shm_config.cma_threshold_busy,
                 shm_config.load == 0 ? "auto" : shm_config.load == 1 ? "quiet" : "busy");
        break;
    case SHM_CMA_OFF:
        snprintf(buf, len, "CMA off (RTM_SHM_CMA=off): copy through shared memory");
        break;
    case SHM_CMA_REFUSED:
        switch (iface->cma_errno) {
        case EPERM:  errname = "EPERM"; break;
        case EFAULT: errname = "EFAULT"; break;
        case ENOSYS: errname = "ENOSYS"; break;
        case ESRCH:  errname = "ESRCH"; break;
        case EIO:    errname = "wrong probe value"; break;
        default:     errname = strerror(iface->cma_errno); break;
        }
        if (iface->yama_scope >= 2)
            snprintf(buf, len, "CMA refused by the kernel (%s; Yama ptrace_scope %d forbids it: "
                     "sysctl kernel.yama.ptrace_scope=1 or 0 allows it): copy through shared "
                     "memory", errname, iface->yama_scope);
        else
            snprintf(buf, len, "CMA refused by the kernel (%s): copy through shared memory",
                     errname);
        break;
    case SHM_CMA_NO_PEER:
        snprintf(buf, len, "CMA not probed (no peer in time): copy through shared memory");
        break;
    default:
        snprintf(buf, len, "CMA not probed yet");
        break;
    }
    return buf;
}

/* Exposing memory to CMA needs no kernel object: the rkey is the range. */
rtm_status_t shm_mem_reg(rtm_tl_iface_t *tl_iface, void *addr, size_t len,
                         rtm_tl_memh_t **memh_p, void *rkey, size_t *rkey_len_p)
{
    shm_iface_t *iface = shm_iface(tl_iface);
    shm_rkey_t key;

    if (iface == NULL || memh_p == NULL || rkey == NULL || rkey_len_p == NULL ||
        (addr == NULL && len > 0))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "shm mem_reg: NULL argument");
    if (*rkey_len_p < sizeof(key))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "shm mem_reg: rkey buffer of %zu B, need %zu",
                             *rkey_len_p, sizeof(key));
    key.addr = (uint64_t)(uintptr_t)addr;
    key.len = len;
    memcpy(rkey, &key, sizeof(key));
    *rkey_len_p = sizeof(key);
    *memh_p = (rtm_tl_memh_t *)(void *)&iface->memh_token;
    iface->exposed++;   /* a rendezvous send in flight: shm_split_start asks */
    return RTM_OK;
}

void shm_mem_dereg(rtm_tl_iface_t *tl_iface, rtm_tl_memh_t *memh)
{
    shm_iface_t *iface = shm_iface(tl_iface);

    if (iface != NULL && memh != NULL && iface->exposed > 0)
        iface->exposed--;
}

/* A read the kernel refused after shm_get accepted it: said once per
 * rank as a warning (the runtime then has the bytes copied through the
 * rings), each time at debug level. Not the hot path. */
rtm_status_t shm_cma_read_failed(shm_iface_t *iface, int peer, pid_t pid, size_t len,
                                    int err)
{
    if (!iface->cma_warned) {
        iface->cma_warned = 1;
        rtm_warn("rank %d (%s): CMA read of %zu B from rank %d (pid %d) failed: %s; "
                 "copying through shared memory instead",
                 iface->world_rank, iface->hostname, len, peer, (int)pid, strerror(err));
    }
    return rtm_error_set(RTM_ERR_TRANSPORT,
                         "rank %d (%s): CMA read of %zu B from rank %d (pid %d) failed: %s",
                         iface->world_rank, iface->hostname, len, peer, (int)pid,
                         strerror(err));
}

/* A rendezvous read is gathered (iface->gets) and made by shm_get_flush,
 * at the latest at the end of the progress pass it came in: the receiver
 * meets a window of RTS records in one pass, and their reads from one
 * sender then cost one system call. comp->cb runs then, with RTM_OK or,
 * when the kernel refuses that read, RTM_ERR_TRANSPORT (the runtime has the
 * bytes copied instead). A one-sided read (an exposure's key) and an empty
 * one are made at once, before the call returns: such reads come one per
 * call. A bad argument is returned, and comp->cb never runs. No
 * allocation, lock or log. */
rtm_status_t shm_get(rtm_tl_ep_t *tl_ep, void *local, rtm_tl_memh_t *local_memh, size_t len,
                     uint64_t remote_addr, const void *rkey, size_t rkey_len,
                     rtm_tl_comp_t *comp)
{
    shm_ep_t *ep = shm_ep(tl_ep);
    shm_iface_t *iface;
    shm_get_batch_t *b;
    shm_rkey_t key;
    int one_sided = 0, err;

    (void)local_memh;
    if (ep == NULL || comp == NULL || comp->cb == NULL || rkey == NULL ||
        (local == NULL && len > 0))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "shm get: NULL argument");
    iface = shm_iface(tl_ep->iface);
    if (iface->cma != SHM_CMA_OK)
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED,
                             "shm get: CMA is not available on rank %d (%s)", iface->world_rank,
                             iface->hostname);
    if (rkey_len == sizeof(shm_xkey_t)) {
        shm_xkey_t x;

        /* a one-sided exposure: it must allow reading */
        memcpy(&x, rkey, sizeof(x));
        if (x.magic != SHM_XKEY_MAGIC || !(x.rights & RTM_TL_RIGHT_READ))
            return rtm_error_set(RTM_ERR_INVALID_ARG, "shm get: rank %d exposed no read right "
                                 "with this key", tl_ep->peer);
        key.addr = x.addr;
        key.len = x.len;
        one_sided = 1;
    } else if (rkey_len != sizeof(key)) {
        return rtm_error_set(RTM_ERR_INVALID_ARG, "shm get: rkey of %zu B, expected %zu",
                             rkey_len, sizeof(key));
    } else {
        memcpy(&key, rkey, sizeof(key));
    }
    if (remote_addr < key.addr || len > key.len || remote_addr - key.addr > key.len - len)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "shm get: %zu B at %#llx from rank %d lie outside the %llu B the "
                             "peer exposed at %#llx",
                             len, (unsigned long long)remote_addr, tl_ep->peer,
                             (unsigned long long)key.len, (unsigned long long)key.addr);
    if (one_sided || len == 0) {
        err = cma_read(ep->pid, local, remote_addr, len);
        if (err != 0)
            return shm_cma_read_failed(iface, tl_ep->peer, ep->pid, len, err);
        if (one_sided)
            iface->cma_rma_ops++;
        else
            iface->cma_reads++;
        comp->cb(comp, RTM_OK);
        return RTM_OK;
    }
    /* a large read: the sender may copy half of it (shm_split.c) */
    if (len >= shm_config.cma_split && shm_config.cma_split > 0 &&
        shm_split_start(iface, ep, local, remote_addr, len, comp))
        return RTM_OK;
    b = &iface->gets;
    if (b->n > 0 && (b->pid != ep->pid || b->n >= shm_config.cma_batch))
        shm_get_flush(iface);
    b->pid = ep->pid;
    b->peer = tl_ep->peer;
    b->local[b->n].iov_base = local;
    b->local[b->n].iov_len = len;
    b->remote[b->n].iov_base = (void *)(uintptr_t)remote_addr;
    b->remote[b->n].iov_len = len;
    b->comp[b->n] = comp;
    b->n++;
    return RTM_OK;
}

/* Not the hot path's fast part: one system call per batch. The batch is
 * taken off the iface first, so a completion may start new reads. The
 * kernel does not split an iovec element in a partial transfer; a short
 * count is taken element by element anyway (the rest of one is read
 * again), and an element it refuses fails alone. */
int shm_get_flush(shm_iface_t *iface)
{
    shm_get_batch_t *b = &iface->gets;
    struct iovec local[SHM_GET_BATCH], remote[SHM_GET_BATCH];
    rtm_tl_comp_t *comp[SHM_GET_BATCH];
    int n = b->n, i = 0, peer = b->peer;
    pid_t pid = b->pid;

    if (n == 0)
        return 0;
    memcpy(local, b->local, (size_t)n * sizeof(local[0]));
    memcpy(remote, b->remote, (size_t)n * sizeof(remote[0]));
    memcpy(comp, b->comp, (size_t)n * sizeof(comp[0]));
    b->n = 0;
    while (i < n) {
        int first = i;
        ssize_t got = process_vm_readv(pid, &local[i], (unsigned long)(n - i), &remote[i],
                                       (unsigned long)(n - i), 0);

        iface->cma_calls++;
        if (got <= 0) {
            int err = got < 0 ? errno : EFAULT;

            if (err == EINTR)
                continue;
            shm_cma_read_failed(iface, peer, pid, local[i].iov_len, err);
            comp[i]->cb(comp[i], RTM_ERR_TRANSPORT);
            i++;
            continue;
        }
        iface->cma_bytes += (uint64_t)got;
        while (i < n && (size_t)got >= local[i].iov_len) {
            got -= (ssize_t)local[i].iov_len;
            i++;
        }
        if (i < n && got > 0) {
            local[i].iov_base = (char *)local[i].iov_base + got;
            local[i].iov_len -= (size_t)got;
            remote[i].iov_base = (char *)remote[i].iov_base + got;
            remote[i].iov_len -= (size_t)got;
        }
        for (int k = first; k < i; k++) {
            iface->cma_reads++;
            comp[k]->cb(comp[k], RTM_OK);
        }
    }
    return n;
}

/* The smallest size a CMA read may be chosen for (the transport's
 * get_threshold: senders expose their buffer from there). */
size_t shm_cma_min_threshold(void)
{
    return shm_config.cma_threshold_busy < shm_config.cma_threshold ?
           shm_config.cma_threshold_busy : shm_config.cma_threshold;
}

/* Per message, by size and the host's load (shm_load.c): CMA from
 * RTM_SHM_CMA_THRESHOLD on a quiet host, from RTM_SHM_CMA_THRESHOLD_BUSY on
 * a busy one. No allocation, lock or log. */
int shm_get_preferred(rtm_tl_ep_t *tl_ep, size_t len)
{
    shm_iface_t *iface = shm_iface(tl_ep->iface);
    size_t busy = shm_config.cma_threshold_busy, quiet = shm_config.cma_threshold;
    size_t threshold;

    /* the load is sampled only where the two thresholds disagree (by
     * default they are equal and it never is) */
    if (len >= busy && len >= quiet)
        return 1;
    threshold = (len < busy && len < quiet) ? SIZE_MAX :
                shm_load_busy(iface) ? busy : quiet;
    if (len >= threshold)
        return 1;
    iface->cma_declined++;
    return 0;
}

/* ---- one-sided (the contract's mem_expose ... flush) ----------------------
 *
 * CMA needs no kernel object: an exposure is its range and rights, checked
 * by the origin before each process_vm_readv/writev. Same host, same user:
 * whoever may use CMA on a rank may ptrace it, so no check at the target
 * could protect more, and revoke cannot be enforced there: it frees the
 * exposure, and a peer that kept the key is not stopped by shm (verbs is).
 * Every one-sided operation completes before the call returns; flush only
 * makes the rendezvous reads still gathered (shm_get_flush). No atomics
 * (NULL in the table). */
typedef struct shm_expo {
    shm_xkey_t key;
} shm_expo_t;

rtm_status_t shm_mem_expose(rtm_tl_iface_t *tl_iface, void *addr, size_t len, unsigned rights,
                            rtm_tl_ep_t *const *eps, int neps, rtm_tl_memh_t **memh_p)
{
    shm_iface_t *iface = shm_iface(tl_iface);
    shm_expo_t *x;

    if (iface == NULL || addr == NULL || len == 0 || rights == 0 ||
        (rights & ~(unsigned)(RTM_TL_RIGHT_READ | RTM_TL_RIGHT_WRITE)) != 0 || neps < 0 ||
        (neps > 0 && eps == NULL) || memh_p == NULL)
        return rtm_error_set((rights & RTM_TL_RIGHT_ATOMIC) ? RTM_ERR_NOT_SUPPORTED :
                             RTM_ERR_INVALID_ARG, "shm mem_expose: %s (%zu B at %p, rights 0x%x)",
                             (rights & RTM_TL_RIGHT_ATOMIC) ? "no atomics on shm" :
                             "bad arguments", len, addr, rights);
    if (iface->cma != SHM_CMA_OK)
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "shm mem_expose: CMA is not available on "
                             "rank %d (%s)", iface->world_rank, iface->hostname);
    x = calloc(1, sizeof(*x));
    if (x == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "shm mem_expose: no memory");
    x->key.addr = (uint64_t)(uintptr_t)addr;
    x->key.len = len;
    x->key.rights = rights;
    x->key.magic = SHM_XKEY_MAGIC;
    *memh_p = (rtm_tl_memh_t *)(void *)x;
    return RTM_OK;
}

rtm_status_t shm_mem_key(rtm_tl_memh_t *memh, rtm_tl_ep_t *ep, void *key, size_t *key_len_p)
{
    const shm_expo_t *x = (const shm_expo_t *)(const void *)memh;

    if (x == NULL || ep == NULL || key == NULL || key_len_p == NULL ||
        *key_len_p < sizeof(x->key))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "shm mem_key: bad arguments");
    memcpy(key, &x->key, sizeof(x->key));
    *key_len_p = sizeof(x->key);
    return RTM_OK;
}

rtm_status_t shm_mem_revoke(rtm_tl_iface_t *tl_iface, rtm_tl_memh_t *memh)
{
    if (tl_iface == NULL || memh == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "shm mem_revoke: NULL argument");
    free(memh);
    return RTM_OK;
}

rtm_status_t shm_put(rtm_tl_ep_t *tl_ep, const void *local, size_t len, uint64_t remote_addr,
                     const void *rkey, size_t rkey_len, rtm_tl_comp_t *comp)
{
    shm_ep_t *ep = shm_ep(tl_ep);
    shm_iface_t *iface;
    shm_xkey_t key;
    int err;

    if (ep == NULL || comp == NULL || comp->cb == NULL || rkey == NULL ||
        (local == NULL && len > 0) || rkey_len != sizeof(key))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "shm put: bad arguments (rkey %zu B)",
                             rkey_len);
    iface = shm_iface(tl_ep->iface);
    memcpy(&key, rkey, sizeof(key));
    if (key.magic != SHM_XKEY_MAGIC || !(key.rights & RTM_TL_RIGHT_WRITE))
        return rtm_error_set(RTM_ERR_INVALID_ARG, "shm put: rank %d exposed no write right "
                             "with this key", tl_ep->peer);
    if (remote_addr < key.addr || len > key.len || remote_addr - key.addr > key.len - len)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "shm put: %zu B at %#llx to rank %d lie outside the %llu B the "
                             "peer exposed at %#llx", len, (unsigned long long)remote_addr,
                             tl_ep->peer, (unsigned long long)key.len,
                             (unsigned long long)key.addr);
    if (iface->cma != SHM_CMA_OK)
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "shm put: CMA is not available on rank %d "
                             "(%s)", iface->world_rank, iface->hostname);
    err = cma_write(ep->pid, local, remote_addr, len);
    if (err != 0)
        return rtm_error_set(RTM_ERR_TRANSPORT,
                             "rank %d (%s): CMA write of %zu B to rank %d (pid %d) failed: %s",
                             iface->world_rank, iface->hostname, len, tl_ep->peer, (int)ep->pid,
                             strerror(err));
    iface->cma_rma_ops++;
    comp->cb(comp, RTM_OK);
    return RTM_OK;
}

rtm_status_t shm_flush(rtm_tl_ep_t *tl_ep)
{
    if (tl_ep == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "shm flush: NULL endpoint");
    /* puts and one-sided gets completed in their calls; rendezvous reads
     * may wait in the batch, or be split with their senders */
    shm_get_flush(shm_iface(tl_ep->iface));
    shm_split_drain(shm_iface(tl_ep->iface));
    return RTM_OK;
}

uint64_t shm_rma_wr_count(rtm_tl_iface_t *tl_iface)
{
    return tl_iface != NULL ? shm_iface(tl_iface)->cma_rma_ops : 0;
}
