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
#include <stdio.h>
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
        if ((dev->mrs[i] && dev->mrs[i]->pd == pd) ||
            (dev->mws[i] && dev->mws[i]->pd == pd)) {
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
    s->bound_qpn = 0;
    atomic_store_explicit(&s->key, mr->ibv.rkey, memory_order_release);
}

static void sib_mw_publish(struct sib_dev *dev, struct sib_mw *mw);

/* pin.c: from now on the MR reads and writes `view` (its pinned pages) */
void sib_mr_set_view(struct sib_dev *dev, struct sib_mr *mr, void *view)
{
    struct sib_shared_mr *s = &dev->shared->mr[mr->idx];
    uint32_t key = atomic_load_explicit(&s->key, memory_order_acquire);

    atomic_store_explicit(&s->key, 0, memory_order_release);
    mr->view = view;
    s->addr = (uint64_t)(uintptr_t)view;
    atomic_store_explicit(&s->key, key, memory_order_release);
    for (uint32_t i = 1; mr->nmw && i < SIB_MAX_MR; i++) /* its windows too */
        if (dev->mws[i] && dev->mws[i]->bound && dev->mws[i]->mr == mr)
            sib_mw_publish(dev, dev->mws[i]);
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

/* As the kernel's ib_access_writable(): an MR with any of these flags pins
 * its pages for writing (FOLL_WRITE), which fails with EFAULT on memory the
 * process may not write (.rodata, mprotect(PROT_READ), a read-only file
 * mapping). The source of a send or an RDMA Write needs none of them. */
#define SIB_ACCESS_WRITABLE                                                   \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                       \
     IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND)

/* Every page of [addr, addr + len) is in a writable mapping (slow path:
 * reads /proc/self/maps), else EFAULT. */
static int sib_check_writable(void *addr, size_t len)
{
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t cur = (uintptr_t)addr & ~(uintptr_t)(pg - 1), end = (uintptr_t)addr + len;
    char *line = NULL;
    size_t cap = 0;
    FILE *f;
    int rc = EFAULT;

    if (!len)
        return 0;
    f = fopen("/proc/self/maps", "re");
    if (!f)
        return 0;   /* cannot tell: as before */
    while (getline(&line, &cap, f) > 0) {
        unsigned long s, e;
        char perms[5];

        if (sscanf(line, "%lx-%lx %4s", &s, &e, perms) != 3 || e <= cur)
            continue;
        if (s > cur || perms[1] != 'w')
            break;   /* a hole, or read-only */
        cur = e;
        if (cur >= end) {
            rc = 0;
            break;
        }
    }
    free(line);
    fclose(f);
    return rc;
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
    if (!rc && (access & SIB_ACCESS_WRITABLE))
        rc = sib_check_writable(addr, len);
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

        if (!dev->mrs[cand] && !dev->mws[cand]) {
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
    if (((flags & IBV_REREG_MR_CHANGE_ACCESS) ? access : mr->access) & SIB_ACCESS_WRITABLE) {
        int tr = flags & IBV_REREG_MR_CHANGE_TRANSLATION;

        if ((rc = sib_check_writable(tr ? addr : ibmr->addr, tr ? length : ibmr->length))) {
            errno = rc;
            return IBV_REREG_MR_ERR_INPUT;
        }
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
    if (mr->nmw) { /* windows still bound to it */
        pthread_mutex_unlock(&dev->lock);
        return EBUSY;
    }
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

void *sib_mr_remote(struct sib_dev *dev, uint32_t pd_id, uint32_t qpn,
                    uint32_t rkey, uint64_t addr, uint64_t len, int need_access)
{
    uint32_t idx = rkey >> 8;
    struct sib_mr *mr;

    if (idx && idx < SIB_MAX_MR && dev->mws[idx]) {
        struct sib_mw *mw = dev->mws[idx];

        /* IBTA 10.6.7: a window's key, state, PD, QP (type 2), access and
         * range; then the region's memory */
        if (mw->key != rkey || !mw->bound || (pd_id && mw->pd->id != pd_id) ||
            (mw->ibv.type == IBV_MW_TYPE_2 && mw->qpn != qpn) ||
            (mw->access & need_access) != need_access ||
            !sib_in_range(mw->addr, mw->length, addr, len))
            return NULL;
        mr = mw->mr;
        return (char *)(mr->view ? mr->view : mr->ibv.addr) + (addr - mr->iova);
    }
    mr = sib_mr_lookup(dev, rkey);
    if (!mr || (pd_id && mr->pd->id != pd_id) ||
        (mr->access & need_access) != need_access ||
        !sib_in_range(mr->iova, mr->ibv.length, addr, len))
        return NULL;
    return (char *)(mr->view ? mr->view : mr->ibv.addr) + (addr - mr->iova);
}

bool sib_shared_mr_check(const struct sib_shared *sh, uint32_t pd_id,
                         uint32_t qpn, uint32_t rkey, uint64_t addr,
                         uint64_t len, int need_access, uint64_t *va_p)
{
    const struct sib_shared_mr *s;
    uint32_t idx = rkey >> 8, k1;
    uint64_t iova, length, base;
    uint32_t access, pd, bound_qpn;

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
    bound_qpn = s->bound_qpn;
    if (atomic_load_explicit(&s->key, memory_order_acquire) != k1)
        return false;
    if (pd != pd_id || (bound_qpn && bound_qpn != qpn) ||
        ((int)access & need_access) != need_access ||
        !sib_in_range(iova, length, addr, len))
        return false;
    *va_p = base + (addr - iova);
    return true;
}

/* ------------------------------------------------------------ memory windows */

/* a bound window in the shared page (peers check it before process_vm_*);
 * an unbound one is not there, so its key opens nothing */
static void sib_mw_publish(struct sib_dev *dev, struct sib_mw *mw)
{
    struct sib_shared_mr *s = &dev->shared->mr[mw->idx];
    struct sib_mr *mr = mw->mr;

    atomic_store_explicit(&s->key, 0, memory_order_release);
    if (!mw->bound)
        return;
    s->access = (uint32_t)mw->access;
    s->iova = mw->addr;
    s->addr = (uint64_t)(uintptr_t)(mr->view ? mr->view : mr->ibv.addr) +
              (mw->addr - mr->iova);
    s->length = mw->length;
    s->pd_id = mw->pd->id;
    s->bound_qpn = mw->ibv.type == IBV_MW_TYPE_2 ? mw->qpn : 0;
    atomic_store_explicit(&s->key, mw->key, memory_order_release);
}

static void sib_mw_unbind(struct sib_dev *dev, struct sib_mw *mw)
{
    if (mw->bound)
        mw->mr->nmw--;
    mw->bound = false;
    mw->mr = NULL;
    sib_mw_publish(dev, mw);
}

static struct ibv_mw *sib_alloc_mw(struct ibv_pd *ibpd, enum ibv_mw_type type)
{
    struct sib_dev *dev;
    struct sib_mw *mw;
    uint32_t idx = 0;
    int rc = sib_check_dev(ibpd ? ibpd->context : NULL);

    if (!rc && type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2)
        rc = EINVAL;
    if (!rc && (sib_caps_off() & SIB_CAP_NO_MW))
        rc = EOPNOTSUPP;
    if (rc) {
        errno = rc;
        return NULL;
    }
    dev = sib_dev_of(ibpd->context);
    mw = calloc(1, sizeof(*mw));
    if (!mw) {
        errno = ENOMEM;
        return NULL;
    }
    pthread_mutex_lock(&dev->lock);
    for (uint32_t i = 0; i < SIB_MAX_MR - 1; i++) {
        uint32_t cand = (dev->next_mr_idx + i - 1) % (SIB_MAX_MR - 1) + 1;

        if (!dev->mrs[cand] && !dev->mws[cand]) {
            idx = cand;
            break;
        }
    }
    if (!idx) {
        pthread_mutex_unlock(&dev->lock);
        free(mw);
        errno = ENOMEM;
        return NULL;
    }
    dev->next_mr_idx = idx + 1;
    if (++sib_key_tag == 0)
        sib_key_tag = 1;
    mw->idx = idx;
    mw->key = idx << 8 | sib_key_tag;
    mw->pd = (struct sib_pd *)ibpd;
    mw->ibv.context = ibpd->context;
    mw->ibv.pd = ibpd;
    mw->ibv.rkey = mw->key;
    mw->ibv.handle = idx;
    mw->ibv.type = type;
    dev->mws[idx] = mw;
    pthread_mutex_unlock(&dev->lock);
    return &mw->ibv;
}

static int sib_dealloc_mw(struct ibv_mw *ibmw)
{
    struct sib_mw *mw = (struct sib_mw *)ibmw;
    struct sib_dev *dev = sib_dev_of(ibmw->context);

    pthread_mutex_lock(&dev->lock);
    sib_mw_unbind(dev, mw);
    dev->mws[mw->idx] = NULL;
    pthread_mutex_unlock(&dev->lock);
    free(mw);
    return 0;
}

/* ibv_bind_mw(3), type 1 only (verbs.h checked the type, an empty range
 * without an MR and the MR's PD): a BIND_MW work request with the next key,
 * which the window carries from the post on, as rdma-core's providers do */
static int sib_bind_mw_verb(struct ibv_qp *qp, struct ibv_mw *mw,
                            struct ibv_mw_bind *b)
{
    struct ibv_send_wr wr, *bad;
    int rc;

    if (b->bind_info.mw_access_flags & IBV_ACCESS_ZERO_BASED)
        return EINVAL;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = b->wr_id;
    wr.opcode = IBV_WR_BIND_MW;
    wr.send_flags = b->send_flags;
    wr.bind_mw.mw = mw;
    wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
    wr.bind_mw.bind_info = b->bind_info;
    rc = sib_post_send_bind(qp, &wr, &bad);
    if (!rc)
        mw->rkey = wr.bind_mw.rkey;
    return rc;
}

void sib_mw_ops(struct ibv_context *ctx)
{
    ctx->ops.alloc_mw = sib_alloc_mw;
    ctx->ops.dealloc_mw = sib_dealloc_mw;
    ctx->ops.bind_mw = sib_bind_mw_verb;
}

/* IBTA 10.6.7.2 (checks C10-72..75, o10-36.2.2, o10-37.2.30/40); any
 * failure is IBV_WC_MW_BIND_ERR, and the QP goes to the error state */
enum ibv_wc_status sib_mw_bind(struct sib_dev *dev, struct sib_qp *qp,
                               const struct sib_swqe *w)
{
    struct sib_mw *mw = (struct sib_mw *)w->mw;
    struct sib_mr *mr = NULL;
    int acc = (int)w->bind_access;

    if (!mw || mw->idx >= SIB_MAX_MR || dev->mws[mw->idx] != mw ||
        (w->rkey & ~0xffu) != (mw->key & ~0xffu))
        return IBV_WC_MW_BIND_ERR;
    if (acc & ~(IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
                IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_LOCAL_WRITE))
        return IBV_WC_MW_BIND_ERR; /* zero-based windows are not emulated */
    if (mw->ibv.type == IBV_MW_TYPE_2 &&
        (mw->bound || (struct sib_pd *)qp->ex.qp_base.pd != mw->pd ||
         !w->bind_mr || !w->bind_len))
        return IBV_WC_MW_BIND_ERR;
    if (w->bind_mr) {
        mr = sib_mr_lookup(dev, w->bind_mr->lkey);
        if (!mr || &mr->ibv != w->bind_mr || mr->pd != mw->pd ||
            !(mr->access & IBV_ACCESS_MW_BIND) ||
            ((acc & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
             !(mr->access & IBV_ACCESS_LOCAL_WRITE)) ||
            !sib_in_range(mr->iova, mr->ibv.length, w->raddr, w->bind_len))
            return IBV_WC_MW_BIND_ERR;
    }
    sib_mw_unbind(dev, mw);
    mw->key = w->rkey;
    mw->ibv.rkey = w->rkey;
    if (mr && w->bind_len) {
        mw->bound = true;
        mw->mr = mr;
        mr->nmw++;
        mw->addr = w->raddr;
        mw->length = w->bind_len;
        mw->access = acc;
        mw->qpn = qp->ex.qp_base.qp_num;
    }
    sib_mw_publish(dev, mw);
    return IBV_WC_SUCCESS;
}

/* a type 2 window of pd named by rkey, or NULL */
static struct sib_mw *sib_mw_of_key(struct sib_dev *dev, struct sib_pd *pd,
                                    uint32_t rkey)
{
    uint32_t idx = rkey >> 8;
    struct sib_mw *mw;

    if (!idx || idx >= SIB_MAX_MR)
        return NULL;
    mw = dev->mws[idx];
    if (!mw || mw->key != rkey || mw->pd != pd || mw->ibv.type != IBV_MW_TYPE_2)
        return NULL;
    return mw;
}

/* LOCAL_INV: only a type 2 window of the QP's PD (softib has no
 * fast-registration MRs); anything else is a local QP operation error */
enum ibv_wc_status sib_mw_local_inv(struct sib_dev *dev, struct sib_qp *qp,
                                    uint32_t rkey)
{
    struct sib_mw *mw = sib_mw_of_key(dev, (struct sib_pd *)qp->ex.qp_base.pd, rkey);

    if (!mw)
        return IBV_WC_LOC_QP_OP_ERR;
    sib_mw_unbind(dev, mw);
    return IBV_WC_SUCCESS;
}

int sib_mw_remote_inv(struct sib_dev *dev, struct sib_pd *pd, uint32_t rkey)
{
    struct sib_mw *mw = sib_mw_of_key(dev, pd, rkey);

    if (!mw)
        return -1;
    sib_mw_unbind(dev, mw);
    return 0;
}
