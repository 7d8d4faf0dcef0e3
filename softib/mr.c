/*
 * softib memory: protection domains and memory regions.
 *
 * A key is (table index << 8 | 8-bit tag); lkey == rkey. The tag changes on
 * every registration, so a stale key of a deregistered region whose index
 * was reused does not match. Each MR is also published in the device's
 * shared page so that a peer on this machine can check an rkey itself before
 * it reads or writes our memory with process_vm_readv/writev.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "softib.h"

#define SIB_ACCESS_KNOWN                                                      \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
     IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED |   \
     IBV_ACCESS_ON_DEMAND | IBV_ACCESS_HUGETLB | IBV_ACCESS_RELAXED_ORDERING)

static uint8_t sib_key_tag;

SIB_EXPORT struct ibv_pd *ibv_alloc_pd(struct ibv_context *ctx)
{
    struct sib_pd *pd;
    struct sib_dev *dev;
    int rc = sib_check_dev(ctx);

    if (rc) {
        errno = rc;
        return NULL;
    }
    dev = sib_dev_of(ctx);
    pd = calloc(1, sizeof(*pd));
    if (!pd) {
        errno = ENOMEM;
        return NULL;
    }
    pthread_mutex_lock(&dev->lock);
    pd->id = dev->next_pd_id++;
    pthread_mutex_unlock(&dev->lock);
    pd->ibv.context = ctx;
    pd->ibv.handle = pd->id;
    return &pd->ibv;
}

SIB_EXPORT int ibv_dealloc_pd(struct ibv_pd *ibpd)
{
    struct sib_dev *dev = sib_dev_of(ibpd->context);
    struct sib_pd *pd = (struct sib_pd *)ibpd;

    pthread_mutex_lock(&dev->lock);
    for (int i = 0; i < SIB_MAX_MR; i++) {
        if (dev->mrs[i] && dev->mrs[i]->pd == pd) {
            pthread_mutex_unlock(&dev->lock);
            return EBUSY;
        }
    }
    for (int i = 0; i <= (int)SIB_MAX_IDX; i++) {
        if (dev->qps[i] && dev->qps[i]->ex.qp_base.pd == ibpd) {
            pthread_mutex_unlock(&dev->lock);
            return EBUSY;
        }
    }
    pthread_mutex_unlock(&dev->lock);
    free(pd);
    return 0;
}

static void sib_mr_publish(struct sib_dev *dev, struct sib_mr *mr)
{
    struct sib_shared_mr *s = &dev->shared->mr[mr->idx];

    atomic_store_explicit(&s->key, 0, memory_order_release);
    s->access = (uint32_t)mr->access;
    s->iova = mr->iova;
    s->addr = (uint64_t)(uintptr_t)(mr->view ? mr->view : mr->ibv.addr);
    s->length = mr->ibv.length;
    s->pd_id = mr->pd->id;
    atomic_store_explicit(&s->key, mr->ibv.rkey, memory_order_release);
}

/* pin.c: from now on the MR reads and writes `view` (its pinned pages) */
void sib_mr_set_view(struct sib_dev *dev, struct sib_mr *mr, void *view)
{
    struct sib_shared_mr *s = &dev->shared->mr[mr->idx];
    uint32_t key = atomic_load_explicit(&s->key, memory_order_acquire);

    atomic_store_explicit(&s->key, 0, memory_order_release);
    mr->view = view;
    s->addr = (uint64_t)(uintptr_t)view;
    atomic_store_explicit(&s->key, key, memory_order_release);
}

static int sib_check_access(int access)
{
    if (access & ~SIB_ACCESS_KNOWN)
        return EINVAL;
    /* IBTA: remote write or atomic requires local write */
    if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
        !(access & IBV_ACCESS_LOCAL_WRITE))
        return EINVAL;
    return 0;
}

/* the range must be mapped, as pinning would require */
static int sib_check_mapped(void *addr, size_t len)
{
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)addr & ~(uintptr_t)(pg - 1);

    if (!len)
        return 0;
    if ((uintptr_t)addr + len < (uintptr_t)addr)
        return EINVAL;
    if (msync((void *)a, (uintptr_t)addr + len - a, MS_ASYNC) && errno == ENOMEM)
        return EFAULT;
    return 0;
}

static struct ibv_mr *sib_reg(struct ibv_pd *ibpd, void *addr, size_t len,
                              uint64_t iova, int access)
{
    struct sib_dev *dev;
    struct sib_mr *mr;
    uint32_t idx = 0;
    int rc = sib_check_dev(ibpd ? ibpd->context : NULL);

    if (!rc)
        rc = sib_check_access(access);
    if (!rc)
        rc = sib_check_mapped(addr, len);
    if (rc) {
        errno = rc;
        return NULL;
    }
    dev = sib_dev_of(ibpd->context);
    mr = calloc(1, sizeof(*mr));
    if (!mr) {
        errno = ENOMEM;
        return NULL;
    }
    pthread_mutex_lock(&dev->lock);
    if (dev->memlock) {
        /* as the kernel accounts pinned pages (whole pages, no capability
         * exemption: the point is to test what an unprivileged user sees) */
        struct rlimit rl;
        long pg = sysconf(_SC_PAGESIZE);
        uint64_t pages = ((uintptr_t)addr + len + (uintptr_t)pg - 1) / (uintptr_t)pg -
                         (uintptr_t)addr / (uintptr_t)pg;

        if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
            dev->mr_bytes + pages * (uint64_t)pg > rl.rlim_cur) {
            pthread_mutex_unlock(&dev->lock);
            free(mr);
            errno = ENOMEM;
            return NULL;
        }
        dev->mr_bytes += pages * (uint64_t)pg;
        mr->pinned = pages * (uint64_t)pg;
    }
    for (uint32_t i = 0; i < SIB_MAX_MR - 1; i++) {
        uint32_t cand = (dev->next_mr_idx + i - 1) % (SIB_MAX_MR - 1) + 1;

        if (!dev->mrs[cand]) {
            idx = cand;
            break;
        }
    }
    if (!idx) {
        dev->mr_bytes -= mr->pinned;
        pthread_mutex_unlock(&dev->lock);
        free(mr);
        errno = ENOMEM;
        return NULL;
    }
    dev->next_mr_idx = idx + 1;
    if (++sib_key_tag == 0)
        sib_key_tag = 1;
    mr->idx = idx;
    mr->access = access;
    mr->iova = iova;
    mr->pd = (struct sib_pd *)ibpd;
    mr->ibv.context = ibpd->context;
    mr->ibv.pd = ibpd;
    mr->ibv.addr = addr;
    mr->ibv.length = len;
    mr->ibv.handle = idx;
    mr->ibv.lkey = mr->ibv.rkey = idx << 8 | sib_key_tag;
    dev->mrs[idx] = mr;
    sib_mr_publish(dev, mr);
    sib_pin_add(dev, mr);
    pthread_mutex_unlock(&dev->lock);
    return &mr->ibv;
}

/* verbs.h makes these macros choosing between them by the access flags */
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

SIB_EXPORT struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr,
                                     size_t length, int access)
{
    return sib_reg(pd, addr, length, (uint64_t)(uintptr_t)addr, access);
}

SIB_EXPORT struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr,
                                          size_t length, uint64_t iova,
                                          int access)
{
    return sib_reg(pd, addr, length, iova, access);
}

SIB_EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr,
                                           size_t length, uint64_t iova,
                                           unsigned int access)
{
    return sib_reg(pd, addr, length, iova, (int)access);
}

SIB_EXPORT struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
                                            size_t length, uint64_t iova,
                                            int fd, int access)
{
    (void)pd, (void)offset, (void)length, (void)iova, (void)fd, (void)access;
    errno = EOPNOTSUPP;
    return NULL;
}

SIB_EXPORT int ibv_rereg_mr(struct ibv_mr *ibmr, int flags, struct ibv_pd *pd,
                            void *addr, size_t length, int access)
{
    struct sib_mr *mr = (struct sib_mr *)ibmr;
    struct sib_dev *dev = sib_dev_of(ibmr->context);
    int rc;

    if (flags & ~(IBV_REREG_MR_CHANGE_TRANSLATION | IBV_REREG_MR_CHANGE_PD |
                  IBV_REREG_MR_CHANGE_ACCESS) || !flags)
        return IBV_REREG_MR_ERR_INPUT;
    if ((flags & IBV_REREG_MR_CHANGE_ACCESS) && sib_check_access(access))
        return IBV_REREG_MR_ERR_INPUT;
    if ((flags & IBV_REREG_MR_CHANGE_PD) && (!pd || pd->context != ibmr->context))
        return IBV_REREG_MR_ERR_INPUT;
    if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) &&
        (rc = sib_check_mapped(addr, length))) {
        errno = rc;
        return IBV_REREG_MR_ERR_INPUT;
    }
    if (flags & IBV_REREG_MR_CHANGE_TRANSLATION)
        sib_pin_del(mr);   /* pins the new pages instead */
    pthread_mutex_lock(&dev->lock);
    if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
        sib_pin_add(dev, mr);
        mr->ibv.addr = addr;
        mr->ibv.length = length;
        mr->iova = (uint64_t)(uintptr_t)addr;
    }
    if (flags & IBV_REREG_MR_CHANGE_PD) {
        mr->pd = (struct sib_pd *)pd;
        mr->ibv.pd = pd;
    }
    if (flags & IBV_REREG_MR_CHANGE_ACCESS)
        mr->access = access;
    /* a new tag: keys handed out before the change stop working */
    if (++sib_key_tag == 0)
        sib_key_tag = 1;
    mr->ibv.lkey = mr->ibv.rkey = mr->idx << 8 | sib_key_tag;
    sib_mr_publish(dev, mr);
    pthread_mutex_unlock(&dev->lock);
    return 0;
}

SIB_EXPORT int ibv_dereg_mr(struct ibv_mr *ibmr)
{
    struct sib_mr *mr = (struct sib_mr *)ibmr;
    struct sib_dev *dev = sib_dev_of(ibmr->context);

    pthread_mutex_lock(&dev->lock);
    atomic_store_explicit(&dev->shared->mr[mr->idx].key, 0,
                          memory_order_release);
    dev->mrs[mr->idx] = NULL;
    dev->mr_bytes -= mr->pinned;
    pthread_mutex_unlock(&dev->lock);
    sib_pin_del(mr);
    free(mr);
    return 0;
}

struct sib_mr *sib_mr_lookup(struct sib_dev *dev, uint32_t key)
{
    uint32_t idx = key >> 8;
    struct sib_mr *mr;

    if (idx == 0 || idx >= SIB_MAX_MR)
        return NULL;
    mr = dev->mrs[idx];
    return mr && mr->ibv.lkey == key ? mr : NULL;
}

static bool sib_in_range(uint64_t start, uint64_t length, uint64_t addr,
                         uint64_t len)
{
    return addr >= start && len <= length && addr - start <= length - len;
}

void *sib_mr_local(struct sib_dev *dev, struct sib_pd *pd, uint32_t lkey,
                   uint64_t addr, uint64_t len, int need_access)
{
    struct sib_mr *mr = sib_mr_lookup(dev, lkey);

    if (!mr || mr->pd != pd || (mr->access & need_access) != need_access ||
        !sib_in_range(mr->iova, mr->ibv.length, addr, len))
        return NULL;
    return (char *)(mr->view ? mr->view : mr->ibv.addr) + (addr - mr->iova);
}

void *sib_mr_remote(struct sib_dev *dev, uint32_t pd_id, uint32_t rkey,
                    uint64_t addr, uint64_t len, int need_access)
{
    struct sib_mr *mr = sib_mr_lookup(dev, rkey);

    if (!mr || (pd_id && mr->pd->id != pd_id) ||
        (mr->access & need_access) != need_access ||
        !sib_in_range(mr->iova, mr->ibv.length, addr, len))
        return NULL;
    return (char *)(mr->view ? mr->view : mr->ibv.addr) + (addr - mr->iova);
}

bool sib_shared_mr_check(const struct sib_shared *sh, uint32_t pd_id,
                         uint32_t rkey, uint64_t addr, uint64_t len,
                         int need_access, uint64_t *va_p)
{
    const struct sib_shared_mr *s;
    uint32_t idx = rkey >> 8, k1;
    uint64_t iova, length, base;
    uint32_t access, pd;

    if (idx == 0 || idx >= SIB_MAX_MR)
        return false;
    s = &sh->mr[idx];
    k1 = atomic_load_explicit(&s->key, memory_order_acquire);
    if (k1 != rkey)
        return false;
    access = s->access;
    iova = s->iova;
    length = s->length;
    base = s->addr;
    pd = s->pd_id;
    if (atomic_load_explicit(&s->key, memory_order_acquire) != k1)
        return false;
    if (pd != pd_id || ((int)access & need_access) != need_access ||
        !sib_in_range(iova, length, addr, len))
        return false;
    *va_p = base + (addr - iova);
    return true;
}
