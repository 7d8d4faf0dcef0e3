/*
 * Unit test of the rendezvous registration cache (transport/verbs/
 * vrb_rcache.c), on softib linked in: hits, the exact-range rule for
 * remote registrations and containment for local ones, sources (access 0)
 * in read-only memory and served by local-write entries, the remote read
 * right taken away at put, invalidation by munmap / mmap MAP_FIXED /
 * mremap / madvise(DONTNEED) / brk shrink (the kernel's userfaultfd
 * events), the entry and byte bounds with LRU eviction of unused entries
 * only, and RTM_VERBS_RCACHE=0. Prints the cost of a hit against a
 * registration per message (figures, not checked).
 */
#include "config.h"

#include "transport/verbs/vrb_rcache.h"
#include "tests/harness.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>


static struct ibv_pd *pd;
static const size_t pg = 4096;

static vrb_rc_entry_t *get(vrb_rcache_t *rc, void *a, size_t len, int access)
{
    vrb_rc_entry_t *e = NULL;
    rtm_status_t st = vrb_rcache_get(rc, a, len, access, &e);

    CHECK(st == RTM_OK && e != NULL, "get %zu bytes at %p: %s", len, a, rtm_last_error());
    return e;
}

static vrb_rcache_stats_t stats(vrb_rcache_t *rc)
{
    vrb_rcache_stats_t s;

    vrb_rcache_stats(rc, &s);
    return s;
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* hit after put; remote exact, local containment; access taken at put */
static void test_hits(vrb_rcache_t *rc)
{
    char *b = mmap(NULL, 16 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    vrb_rc_entry_t *e1, *e2;
    vrb_rcache_stats_t s0 = stats(rc), s1;

    CHECK(b != MAP_FAILED, "mmap");
    memset(b, 1, 16 * pg);
    e1 = get(rc, b + 100, 5000, IBV_ACCESS_REMOTE_READ);
    EXPECT(e1->mr->addr == b + 100 && e1->mr->length == 5000,
          "a remote registration covers exactly what the peer is shown");
    vrb_rcache_put(rc, e1);
    e2 = get(rc, b + 100, 5000, IBV_ACCESS_REMOTE_READ);
    EXPECT(e2 == e1, "the same buffer again is a hit");
    vrb_rcache_put(rc, e2);
    e2 = get(rc, b + 100, 4000, IBV_ACCESS_REMOTE_READ);
    EXPECT(e2 != e1, "a smaller remote range is not served by a larger registration");
    vrb_rcache_put(rc, e2);
    e1 = get(rc, b + 100, 3 * pg, IBV_ACCESS_LOCAL_WRITE);
    e2 = get(rc, b + 200, 2 * pg, IBV_ACCESS_LOCAL_WRITE);
    EXPECT(e2 == e1, "a local range inside a cached one is a hit");
    vrb_rcache_put(rc, e1);
    vrb_rcache_put(rc, e2);
    s1 = stats(rc);
    EXPECT(s1.hits - s0.hits == 2 && s1.misses - s0.misses == 3,
          "hits %llu misses %llu", (unsigned long long)(s1.hits - s0.hits),
          (unsigned long long)(s1.misses - s0.misses));
    munmap(b, 16 * pg);
}

/* sources (access 0): read-only memory registers, a local-write entry
 * serves a source (more rights serve fewer), a source entry does not serve
 * local write; a local-write registration of read-only memory fails */
static void test_sources(vrb_rcache_t *rc)
{
    char *b = mmap(NULL, 8 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    vrb_rc_entry_t *w, *e, *ro = NULL;
    vrb_rcache_stats_t s0 = stats(rc), s1;

    CHECK(b != MAP_FAILED, "mmap");
    memset(b, 3, 8 * pg);
    w = get(rc, b, 2 * pg, IBV_ACCESS_LOCAL_WRITE);
    e = get(rc, b + 10, 1000, 0);
    EXPECT(e == w, "a cached local-write entry serves a source inside it");
    vrb_rcache_put(rc, e);
    vrb_rcache_put(rc, w);
    CHECK(mprotect(b + 4 * pg, 4 * pg, PROT_READ) == 0, "mprotect");
    e = get(rc, b + 4 * pg + 100, 5000, 0);
    EXPECT(e != w && e->access == 0, "a source in read-only memory registers (access 0)");
    vrb_rcache_put(rc, e);
    EXPECT(vrb_rcache_get(rc, b + 4 * pg + 100, 5000, IBV_ACCESS_LOCAL_WRITE, &ro) != RTM_OK &&
           ro == NULL, "a source entry does not serve local write, which read-only memory "
           "refuses (got %p)", (void *)ro);
    s1 = stats(rc);
    EXPECT(s1.hits - s0.hits == 1, "hits %llu", (unsigned long long)(s1.hits - s0.hits));
    munmap(b, 8 * pg);
}

enum change { UNMAP, MAP_FIXED_OVER, MREMAP_AWAY, DONTNEED };
static const char *change_name[] = {"munmap", "mmap MAP_FIXED", "mremap", "madvise DONTNEED"};

static void test_invalidate(vrb_rcache_t *rc, enum change how)
{
    char *b = mmap(NULL, 8 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    vrb_rc_entry_t *r, *l, *r2, *l2;
    vrb_rcache_stats_t s0, s1;
    char *away;

    CHECK(b != MAP_FAILED, "mmap");
    memset(b, 2, 8 * pg);
    r = get(rc, b, 8 * pg, IBV_ACCESS_REMOTE_READ);
    l = get(rc, b + pg, pg, IBV_ACCESS_LOCAL_WRITE);
    vrb_rcache_put(rc, r);
    vrb_rcache_put(rc, l);
    s0 = stats(rc);
    switch (how) {
    case UNMAP:
        CHECK(munmap(b + pg, pg) == 0, "munmap");   /* one page in the middle */
        CHECK(mmap(b + pg, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
                     MAP_FIXED, -1, 0) == b + pg, "mmap");
        break;
    case MAP_FIXED_OVER:
        CHECK(mmap(b, 8 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
                     MAP_FIXED, -1, 0) == b, "mmap");
        break;
    case MREMAP_AWAY:
        away = mmap(NULL, 8 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(away != MAP_FAILED && mremap(b, 8 * pg, 8 * pg, MREMAP_MAYMOVE | MREMAP_FIXED,
                                             away) == away, "mremap");
        CHECK(mmap(b, 8 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
                     MAP_FIXED, -1, 0) == b, "mmap");
        munmap(away, 8 * pg);
        break;
    case DONTNEED:
        CHECK(madvise(b + pg, pg, MADV_DONTNEED) == 0, "madvise");
        break;
    }
    s1 = stats(rc);
    EXPECT(s1.invalidated - s0.invalidated == 2, "%s: %llu entries invalidated, expected 2 "
          "(both registrations overlap the change)", change_name[how],
          (unsigned long long)(s1.invalidated - s0.invalidated));
    r2 = get(rc, b, 8 * pg, IBV_ACCESS_REMOTE_READ);
    l2 = get(rc, b + pg, pg, IBV_ACCESS_LOCAL_WRITE);
    EXPECT(stats(rc).hits == s1.hits, "%s: a registration of the old pages was served again",
          change_name[how]);
    (void)r2;
    (void)l2;
    vrb_rcache_put(rc, r2);
    vrb_rcache_put(rc, l2);
    munmap(b, 8 * pg);
}

static void test_brk(vrb_rcache_t *rc)
{
    char *base = sbrk(0), *b = sbrk((intptr_t)(4 * pg));
    vrb_rcache_stats_t s0;
    vrb_rc_entry_t *e;

    if (b == (void *)-1 || b != base) {
        printf("test_rcache: brk not usable here, skipped\n");
        return;
    }
    memset(b, 3, 4 * pg);
    /* the break need not be page aligned: use the whole pages inside */
    e = get(rc, (void *)(((uintptr_t)b + pg - 1) & ~(pg - 1)), 2 * pg, IBV_ACCESS_REMOTE_READ);
    vrb_rcache_put(rc, e);
    s0 = stats(rc);
    if (sbrk(0) != b + 4 * pg || sbrk(-(intptr_t)(4 * pg)) == (void *)-1) {
        printf("test_rcache: the break moved meanwhile, brk case skipped\n");
        return;
    }
    EXPECT(stats(rc).invalidated - s0.invalidated == 1, "a brk shrink over a cached range did "
          "not invalidate it");
}

/* bounds: entries and bytes; entries in use are never evicted */
static void test_bounds(void)
{
    char *b = mmap(NULL, 64 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    vrb_rcache_t *rc;
    vrb_rc_entry_t *e[8], *held;
    vrb_rcache_stats_t s;

    CHECK(b != MAP_FAILED, "mmap");
    memset(b, 4, 64 * pg);
    CHECK(vrb_rcache_create(pd, 1, 4, 6 * pg, "test", &rc) == RTM_OK, "create");
    CHECK(vrb_rcache_enabled(rc), "cache off");
    held = get(rc, b, pg, IBV_ACCESS_REMOTE_READ);           /* stays in use */
    for (int i = 0; i < 6; i++) {
        e[i] = get(rc, b + (size_t)(2 + 2 * i) * pg, pg, IBV_ACCESS_REMOTE_READ);
        vrb_rcache_put(rc, e[i]);
    }
    s = stats(rc);
    EXPECT(s.evicted == 3, "4 entries at most: 3 evicted, got %llu",
          (unsigned long long)s.evicted);
    /* the in-use entry survived: a hit */
    vrb_rcache_put(rc, get(rc, b, pg, IBV_ACCESS_REMOTE_READ));
    EXPECT(stats(rc).hits == s.hits + 1, "an entry in use was evicted");
    /* the most recent unused ones survived, the oldest went */
    vrb_rcache_put(rc, get(rc, b + 12 * pg, pg, IBV_ACCESS_REMOTE_READ));
    EXPECT(stats(rc).hits == s.hits + 2, "the most recently used entry was evicted");
    vrb_rcache_put(rc, get(rc, b + 2 * pg, pg, IBV_ACCESS_REMOTE_READ));
    EXPECT(stats(rc).misses == s.misses + 1, "the least recently used entry was kept");
    /* bytes: a 4-page range with 6 pages allowed pushes older ones out */
    vrb_rcache_put(rc, get(rc, b + 20 * pg, 4 * pg, IBV_ACCESS_LOCAL_WRITE));
    /* larger than the byte bound: registered, not cached */
    s = stats(rc);
    vrb_rcache_put(rc, get(rc, b + 32 * pg, 8 * pg, IBV_ACCESS_LOCAL_WRITE));
    EXPECT(stats(rc).uncached == s.uncached + 1, "a range above the byte bound was cached");
    vrb_rcache_put(rc, held);
    vrb_rcache_destroy(rc);
    munmap(b, 64 * pg);
}

static void test_disabled(void)
{
    char *b = malloc(8 * pg);
    vrb_rcache_t *rc;
    vrb_rc_entry_t *e1, *e2;

    CHECK(b != NULL, "malloc");
    CHECK(vrb_rcache_create(pd, 0, 256, 1 << 28, "test", &rc) == RTM_OK, "create");
    EXPECT(!vrb_rcache_enabled(rc), "RTM_VERBS_RCACHE=0 left it on");
    e1 = get(rc, b, 8 * pg, IBV_ACCESS_REMOTE_READ);
    vrb_rcache_put(rc, e1);
    e2 = get(rc, b, 8 * pg, IBV_ACCESS_REMOTE_READ);
    vrb_rcache_put(rc, e2);
    EXPECT(stats(rc).uncached == 2 && stats(rc).hits == 0, "disabled cache cached");
    vrb_rcache_destroy(rc);
    free(b);
}

static void bench(vrb_rcache_t *rc)
{
    size_t len = (size_t)1 << 20;
    char *b = malloc(len);
    vrb_rcache_t *off;
    int n = 2000;
    double t, hit, miss;

    CHECK(b != NULL && vrb_rcache_create(pd, 0, 0, 0, "test", &off) == RTM_OK, "bench");
    memset(b, 5, len);
    vrb_rcache_put(rc, get(rc, b, len, IBV_ACCESS_REMOTE_READ));
    t = now();
    for (int i = 0; i < n; i++)
        vrb_rcache_put(rc, get(rc, b, len, IBV_ACCESS_REMOTE_READ));
    hit = (now() - t) / n * 1e6;
    t = now();
    for (int i = 0; i < n; i++)
        vrb_rcache_put(off, get(off, b, len, IBV_ACCESS_REMOTE_READ));
    miss = (now() - t) / n * 1e6;
    printf("test_rcache: 1 MiB remote registration on softib: %.2f us per get+put from the "
           "cache (two ibv_rereg_mr), %.2f us per ibv_reg_mr+ibv_dereg_mr\n", hit, miss);
    vrb_rcache_destroy(off);
    free(b);
}

/* softib leaves its lock file in SOFTIB_DIR: remove what is there */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char path[4096];

    while (d != NULL && (de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        unlink(path);
    }
    if (d != NULL)
        closedir(d);
    rmdir(dir);
}

int main(void)
{
    char dir[] = "/tmp/rtm-rcache.XXXXXX";
    struct ibv_device **list;
    struct ibv_context *ctx;
    vrb_rcache_t *rc;
    int n;

    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    setenv("SOFTIB_DIR", dir, 1);
    list = ibv_get_device_list(&n);
    CHECK(list != NULL && n > 0, "no verbs device");
    ctx = ibv_open_device(list[0]);
    CHECK(ctx != NULL, "open device");
    pd = ibv_alloc_pd(ctx);
    CHECK(pd != NULL, "alloc pd");
    CHECK(vrb_rcache_create(pd, 1, 256, 1 << 28, "test", &rc) == RTM_OK, "create");
    if (!vrb_rcache_enabled(rc)) {
        printf("SKIP: no userfaultfd here: the cache is off (that path is what "
               "test_disabled checks)\n");
        vrb_rcache_destroy(rc);
        test_disabled();
        ibv_dealloc_pd(pd);
        ibv_close_device(ctx);
        ibv_free_device_list(list);
        remove_dir(dir);
        return th_failures ? 1 : 77;
    }
    test_hits(rc);
    test_sources(rc);
    for (int how = UNMAP; how <= DONTNEED; how++)
        test_invalidate(rc, (enum change)how);
    test_brk(rc);
    bench(rc);
    vrb_rcache_destroy(rc);
    test_bounds();
    test_disabled();
    ibv_dealloc_pd(pd);
    ibv_close_device(ctx);
    ibv_free_device_list(list);
    remove_dir(dir);
    if (th_failures == 0)
        printf("test_rcache: all checks passed\n");
    return th_failures ? 1 : 0;
}
