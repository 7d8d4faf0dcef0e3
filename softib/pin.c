/*
 * SOFTIB_PIN=1: registration pins pages, as it does on an HCA.
 *
 * On an HCA, ibv_reg_mr pins the physical pages under the range and the
 * HCA keeps using those pages whatever the process does to its mappings
 * afterwards: after munmap + mmap at the same address (or mmap MAP_FIXED
 * over it, mremap away, madvise(MADV_DONTNEED), a brk shrink), the process
 * sees new pages while the MR still reads and writes the old ones. A
 * registration cache that misses such a change hands out a stale
 * translation and the peer reads old data. By default softib resolves an MR
 * through the virtual address at every access, which hides that bug.
 *
 * With SOFTIB_PIN=1 the interposed munmap, mmap (MAP_FIXED), mremap,
 * madvise, brk and sbrk first copy every MR overlapping the range they are
 * about to change into a private buffer, and the MR uses that copy from
 * then on (its "pinned pages"). Limits: only calls that go through these
 * symbols are seen (libc's own internal calls, e.g. free() unmapping a large
 * chunk, are not); the whole MR is frozen, also the part the call did not
 * touch.
 */
#include "config.h"

#include "softib.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

bool sib_pin_enabled;

/* Registered MRs by index; own lock, taken after dev->lock, never before:
 * the hooks take only this one. */
static pthread_mutex_t pin_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sib_mr *pin_mrs[SIB_MAX_MR];
static struct sib_dev *pin_dev;

void sib_pin_add(struct sib_dev *dev, struct sib_mr *mr)
{
    if (!sib_pin_enabled)
        return;
    pthread_mutex_lock(&pin_lock);
    pin_dev = dev;
    pin_mrs[mr->idx] = mr;
    pthread_mutex_unlock(&pin_lock);
}

void sib_pin_del(struct sib_mr *mr)
{
    void *view;

    if (!sib_pin_enabled)
        return;
    pthread_mutex_lock(&pin_lock);
    if (pin_mrs[mr->idx] == mr)
        pin_mrs[mr->idx] = NULL;
    view = mr->view;
    mr->view = NULL;
    pthread_mutex_unlock(&pin_lock);
    if (view)
        syscall(SYS_munmap, view, mr->ibv.length);
}

/* Freeze every MR overlapping [start, end) before its pages change. */
static void pin_freeze(uintptr_t start, uintptr_t end)
{
    if (!sib_pin_enabled || start >= end)
        return;
    pthread_mutex_lock(&pin_lock);
    for (uint32_t i = 1; i < SIB_MAX_MR; i++) {
        struct sib_mr *mr = pin_mrs[i];
        uintptr_t a;
        size_t l;
        long copy;

        if (!mr || mr->view || !mr->ibv.length)
            continue;
        a = (uintptr_t)mr->ibv.addr;
        l = mr->ibv.length;
        if (a + l <= start || end <= a)
            continue;
        copy = syscall(SYS_mmap, NULL, l, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (copy == -1)
            continue;
        memcpy((void *)copy, mr->ibv.addr, l);
        sib_mr_set_view(pin_dev, mr, (void *)copy);
    }
    pthread_mutex_unlock(&pin_lock);
}

SIB_EXPORT int munmap(void *addr, size_t len)
{
    pin_freeze((uintptr_t)addr, (uintptr_t)addr + len);
    return (int)syscall(SYS_munmap, addr, len);
}

SIB_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (flags & MAP_FIXED)
        pin_freeze((uintptr_t)addr, (uintptr_t)addr + len);
    return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

SIB_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
    void *new_addr = NULL;
    long r;

    if (flags & MREMAP_FIXED) {
        va_list ap;

        va_start(ap, flags);
        new_addr = va_arg(ap, void *);
        va_end(ap);
    }
    /* moving, or shrinking: the old pages leave this range */
    if (flags & MREMAP_FIXED)
        pin_freeze((uintptr_t)old, (uintptr_t)old + old_len);
    else if (new_len < old_len)
        pin_freeze((uintptr_t)old + new_len, (uintptr_t)old + old_len);
    r = syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
    /* MREMAP_MAYMOVE moved them: the MR follows the same pages, which
     * still hold what the old range held (copy them from there) */
    if (r != -1 && (void *)r != old && !(flags & MREMAP_FIXED) && sib_pin_enabled) {
        pthread_mutex_lock(&pin_lock);
        for (uint32_t i = 1; i < SIB_MAX_MR; i++) {
            struct sib_mr *mr = pin_mrs[i];
            uintptr_t a;
            long copy;

            if (!mr || mr->view || !mr->ibv.length)
                continue;
            a = (uintptr_t)mr->ibv.addr;
            if (a < (uintptr_t)old || a + mr->ibv.length > (uintptr_t)old + old_len)
                continue;
            copy = syscall(SYS_mmap, NULL, mr->ibv.length, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (copy == -1)
                continue;
            memcpy((void *)copy, (char *)r + (a - (uintptr_t)old), mr->ibv.length);
            sib_mr_set_view(pin_dev, mr, (void *)copy);
        }
        pthread_mutex_unlock(&pin_lock);
    }
    return (void *)r;
}

SIB_EXPORT int madvise(void *addr, size_t len, int advice)
{
    if (advice == MADV_DONTNEED || advice == MADV_REMOVE || advice == MADV_FREE)
        pin_freeze((uintptr_t)addr, (uintptr_t)addr + len);
    return (int)syscall(SYS_madvise, addr, len, advice);
}

/* brk and sbrk keep libc's idea of the break: call libc's own. */
SIB_EXPORT void *sbrk(intptr_t inc)
{
    static void *(*real_sbrk)(intptr_t);

    if (!real_sbrk)
        real_sbrk = (void *(*)(intptr_t))dlsym(RTLD_NEXT, "sbrk");
    if (inc < 0 && sib_pin_enabled) {
        uintptr_t cur = (uintptr_t)real_sbrk(0);

        pin_freeze(cur + (uintptr_t)inc, cur);
    }
    return real_sbrk(inc);
}

SIB_EXPORT int brk(void *addr)
{
    static int (*real_brk)(void *);
    static void *(*real_sbrk)(intptr_t);

    if (!real_brk) {
        real_brk = (int (*)(void *))dlsym(RTLD_NEXT, "brk");
        real_sbrk = (void *(*)(intptr_t))dlsym(RTLD_NEXT, "sbrk");
    }
    if (sib_pin_enabled) {
        uintptr_t cur = (uintptr_t)real_sbrk(0);

        if ((uintptr_t)addr < cur)
            pin_freeze((uintptr_t)addr, cur);
    }
    return real_brk(addr);
}
