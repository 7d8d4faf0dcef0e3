/*
 * The shm transport driven directly through rtm_tl_shm by 2-4 forked
 * processes (no runtime, no PMIx): ordering, every message size from 0 to
 * am_max checked byte by byte, RTM_ERR_AGAIN without loss, wrap-around,
 * CMA get, the CMA-off and CMA-refused paths, and that nothing is left in
 * /dev/shm, also when a rank is SIGKILLed.
 */
#include "config.h"

#include "tests/unit/test_shm_util.h"
#include "common/list.h"
#include "transport/shm/shm.h"
#include "transport/shm/shm_config.h"

#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { AM_SIZED = 1, AM_SEQ = 2, AM_CTRL = 3 };

/* Per-process test state. */
static struct {
    tjob_t         *job;
    rtm_tl_iface_t *iface;
    rtm_tl_ep_t    *ep[TJOB_MAX];
    rtm_tl_caps_t   caps;
    uint64_t        next_size;            /* AM_SIZED: size expected next */
    uint64_t        seq_next[TJOB_MAX];   /* AM_SEQ: per source */
    unsigned char   ctrl[256];            /* last AM_CTRL */
    size_t          ctrl_len;
    int             ctrl_count;
    int             in_cb;
} T;

static unsigned char pattern(uint64_t msg, size_t i)
{
    return (unsigned char)(msg * 131u + i * 7u + 1u);
}

static void am_cb(void *arg, int src, unsigned am_id, const void *data, size_t len)
{
    const unsigned char *p = data;

    (void)arg;
    CHECK(!T.in_cb, "am_cb re-entered");
    CHECK(src >= 0 && src < T.job->nprocs && src != T.job->rank, "bad source %d", src);
    CHECK(((uintptr_t)data & 7) == 0, "data %p not 8-byte aligned", data);
    T.in_cb = 1;
    switch (am_id) {
    case AM_SIZED:
        CHECK(len == T.next_size, "message %llu arrived with %zu bytes (lost or reordered)",
              (unsigned long long)T.next_size, len);
        for (size_t i = 0; i < len; i++)
            CHECK(p[i] == pattern(len, i), "size %zu: byte %zu is %u, expected %u", len, i, p[i],
                  pattern(len, i));
        T.next_size++;
        break;
    case AM_SEQ: {
        uint64_t seq;

        CHECK(len >= 8, "AM_SEQ of %zu bytes", len);
        memcpy(&seq, p, 8);
        CHECK(seq == T.seq_next[src], "from %d: seq %llu, expected %llu", src,
              (unsigned long long)seq, (unsigned long long)T.seq_next[src]);
        for (size_t i = 8; i < len; i++)
            CHECK(p[i] == pattern(seq + (uint64_t)src, i), "from %d seq %llu: byte %zu differs",
                  src, (unsigned long long)seq, i);
        T.seq_next[src]++;
        break;
    }
    case AM_CTRL:
        CHECK(len <= sizeof(T.ctrl), "control message of %zu bytes", len);
        memcpy(T.ctrl, data, len);
        T.ctrl_len = len;
        T.ctrl_count++;
        break;
    default:
        CHECK(0, "unknown am_id %u", am_id);
    }
    T.in_cb = 0;
}

/* The runtime's modex lookup, for the transports that use it at wireup. */
static int use_addr_lookup;
static tjob_t *lookup_job;
static int lookups;

static rtm_status_t test_addr_lookup(int peer, const char *name, void **blob_p, size_t *len_p)
{
    void *blob;

    CHECK(strcmp(name, "shm") == 0, "lookup of transport %s", name);
    CHECK(peer >= 0 && peer < lookup_job->nprocs, "lookup of rank %d", peer);
    blob = malloc(lookup_job->shared->blob_len[peer]);
    CHECK(blob != NULL, "no memory");
    memcpy(blob, lookup_job->shared->blob[peer], lookup_job->shared->blob_len[peer]);
    *blob_p = blob;
    *len_p = lookup_job->shared->blob_len[peer];
    lookups++;
    return RTM_OK;
}

static void tsetup(tjob_t *job)
{
    rtm_tl_params_t params;
    size_t len = RTM_TL_ADDR_MAX;

    memset(&T, 0, sizeof(T));
    T.job = job;
    CHECK(rtm_config_register(&shm_config_table) == RTM_OK, "%s", rtm_last_error());
    memset(&params, 0, sizeof(params));
    params.world_rank = job->rank;
    params.world_size = job->nprocs;
    params.local_rank = job->rank;
    params.local_size = job->nprocs;
    params.local_peers = job->peers;
    params.node_id = 0;
    params.nspace = job->nspace;
    params.hostname = "testhost";
    params.am_cb = am_cb;
    params.peer_failed = tjob_peer_failed;
    if (use_addr_lookup) {
        lookup_job = job;
        params.addr_lookup = test_addr_lookup;
    }
    CHECK(rtm_tl_shm.open(&params, &T.iface) == RTM_OK, "open: %s", rtm_last_error());
    CHECK(rtm_tl_shm.addr_pack(T.iface, job->shared->blob[job->rank], &len) == RTM_OK, "%s",
          rtm_last_error());
    job->shared->blob_len[job->rank] = len;
    tjob_barrier(job);   /* the "PMIx fence" */
}

static void twireup(tjob_t *job)
{
    /* the runtime may progress before wireup: nothing to do yet */
    CHECK(rtm_tl_shm.progress(T.iface) == 0, "events before wireup");
    CHECK(rtm_tl_shm.wireup(T.iface) == RTM_OK, "wireup: %s", rtm_last_error());
    for (int p = 0; p < job->nprocs; p++) {
        if (p == job->rank)
            continue;
        CHECK(rtm_tl_shm.reachable(T.iface, p, job->shared->blob[p], job->shared->blob_len[p]),
              "peer %d not reachable", p);
        CHECK(rtm_tl_shm.ep_create(T.iface, p, job->shared->blob[p], job->shared->blob_len[p],
                                   &T.ep[p]) == RTM_OK, "ep_create %d: %s", p, rtm_last_error());
    }
    rtm_tl_shm.query(T.iface, &T.caps);
}

static void tteardown(tjob_t *job)
{
    tjob_barrier_progress(job, &rtm_tl_shm, T.iface);
    for (int p = 0; p < job->nprocs; p++)
        if (T.ep[p] != NULL)
            rtm_tl_shm.ep_destroy(T.ep[p]);
    rtm_tl_shm.close(T.iface);
}

/* Send, progressing (and counting) while the ring is full. */
static unsigned long send_retry(int peer, unsigned am_id, const void *hdr, size_t hdr_len,
                                const void *payload, size_t len)
{
    unsigned long again = 0;
    rtm_status_t st;

    while ((st = rtm_tl_shm.am_send(T.ep[peer], am_id, hdr, hdr_len, payload, len)) ==
           RTM_ERR_AGAIN) {
        again++;
        rtm_tl_shm.progress(T.iface);
    }
    CHECK(st == RTM_OK, "am_send of %zu+%zu B: %s", hdr_len, len, rtm_last_error());
    return again;
}

/* Every size 0..am_max from rank 0 to rank 1, hdr/payload split varying;
 * the receiver starts late so the sender must see AGAIN. */
static void body_every_size(tjob_t *job)
{
    static unsigned char buf[1 << 20];
    unsigned long again = 0;
    char desc[256];

    tsetup(job);
    twireup(job);
    CHECK(T.caps.flags & RTM_TL_CAP_LOCAL, "no CAP_LOCAL");
    CHECK(T.caps.am_max >= 1024, "am_max %zu", T.caps.am_max);
    CHECK(T.caps.eager_limit <= T.caps.am_max, "eager %zu > am_max %zu", T.caps.eager_limit,
          T.caps.am_max);
    rtm_tl_shm.describe(T.iface, desc, sizeof(desc));
    CHECK(strstr(desc, "2 local ranks") != NULL, "describe: %s", desc);
    CHECK(strstr(desc, shm_config.queue == SHM_QUEUE_SHARED ? "a shared queue per rank"
                                                             : "per-pair rings") != NULL,
          "describe: %s", desc);
    tjob_barrier(job);   /* every rank has attached (its wireup returned) */
    CHECK(!shm_name_exists(job->nspace), "name still there after every rank attached");
    if (job->rank == 0) {
        size_t len = 8;
        unsigned char small[8];

        /* argument checks */
        CHECK(rtm_tl_shm.am_send(T.ep[1], AM_SIZED, NULL, 0, buf, T.caps.am_max + 1) ==
              RTM_ERR_INVALID_ARG, "oversized am_send accepted");
        CHECK(rtm_tl_shm.am_send(T.ep[1], RTM_TL_AM_ID_MAX, NULL, 0, buf, 1) ==
              RTM_ERR_INVALID_ARG, "am_id too large accepted");
        CHECK(rtm_tl_shm.addr_pack(T.iface, small, &len) == RTM_ERR_INVALID_ARG,
              "addr_pack into 8 B");
        CHECK(!rtm_tl_shm.reachable(T.iface, 0, job->shared->blob[0], job->shared->blob_len[0]),
              "reaches itself");
        CHECK(!rtm_tl_shm.reachable(T.iface, 1, NULL, 0), "reaches without address");
        CHECK(!rtm_tl_shm.reachable(T.iface, 1, job->shared->blob[1], 3), "short address");

        for (size_t size = 0; size <= T.caps.am_max; size++) {
            size_t hdr_len = size < 32 ? size / 2 : 16;

            for (size_t i = 0; i < size; i++)
                buf[i] = pattern(size, i);
            again += send_retry(1, AM_SIZED, buf, hdr_len, buf + hdr_len, size - hdr_len);
        }
        CHECK(again > 0, "never saw RTM_ERR_AGAIN with a late receiver");
        printf("    rank 0: %zu messages 0..%zu B, %lu AGAIN retries\n", T.caps.am_max + 1,
               T.caps.am_max, again);
    } else {
        struct timespec ts = {0, 200 * 1000 * 1000};

        nanosleep(&ts, NULL);
        while (T.next_size <= T.caps.am_max)
            rtm_tl_shm.progress(T.iface);
    }
    tteardown(job);
}

static void body_every_size_small_fifo(tjob_t *job)
{
    setenv("RTM_SHM_FIFO_SIZE", "8K", 1);
    body_every_size(job);
}

/* RTM_SHM_QUEUE=shared at 2 ranks: the same, through the peer's shared
 * queue (256 KiB by default; 16 KiB, many laps, at a 16K budget). */
static void body_every_size_shared(tjob_t *job)
{
    setenv("RTM_SHM_QUEUE", "shared", 1);
    body_every_size(job);
}

static void body_every_size_shared_small(tjob_t *job)
{
    setenv("RTM_SHM_QUEUE", "shared", 1);
    setenv("RTM_SHM_RX_BUDGET", "16K", 1);
    body_every_size(job);
}

static uint64_t prng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* All to all, every rank sending and receiving at once. */
static void body_all_to_all(tjob_t *job)
{
    enum { M = 20000 };
    static unsigned char buf[512];
    uint64_t sent[TJOB_MAX] = {0};
    uint64_t rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)job->rank;
    int done;

    tsetup(job);
    twireup(job);
    do {
        done = 1;
        for (int p = 0; p < job->nprocs; p++) {
            if (p == job->rank)
                continue;
            if (sent[p] < M) {
                size_t len = 8 + (size_t)(prng(&rng) % 200);
                uint64_t seq = sent[p];

                memcpy(buf, &seq, 8);
                for (size_t i = 8; i < len; i++)
                    buf[i] = pattern(seq + (uint64_t)job->rank, i);
                /* half of them split into header and payload */
                if (rtm_tl_shm.am_send(T.ep[p], AM_SEQ, buf, (seq & 1) ? 8 : len,
                                       buf + ((seq & 1) ? 8 : len),
                                       (seq & 1) ? len - 8 : 0) == RTM_OK)
                    sent[p]++;
                done = 0;
            }
            if (T.seq_next[p] < M)
                done = 0;
        }
        rtm_tl_shm.progress(T.iface);
    } while (!done);
    tteardown(job);
}

static int test_comp_calls;
static rtm_status_t test_comp_status;

static void comp_cb(rtm_tl_comp_t *comp, rtm_status_t status)
{
    (void)comp;
    test_comp_calls++;
    test_comp_status = status;
}

/* Rank 1 reads rank 0's buffer with get. */
static void cma_exchange(tjob_t *job, int expect_get)
{
    enum { LEN = (1 << 20) + 3 };
    static unsigned char src[LEN], dst[LEN];
    unsigned char rkey[RTM_TL_RKEY_MAX];
    size_t rkey_len = sizeof(rkey);
    rtm_tl_memh_t *memh;

    if (job->rank == 0) {
        uint64_t addr = (uint64_t)(uintptr_t)src;
        unsigned char msg[8 + 8 + RTM_TL_RKEY_MAX];

        for (size_t i = 0; i < LEN; i++)
            src[i] = pattern(LEN, i);
        CHECK(rtm_tl_shm.mem_reg(T.iface, src, LEN, &memh, rkey, &rkey_len) == RTM_OK, "%s",
              rtm_last_error());
        memcpy(msg, &addr, 8);
        memcpy(msg + 8, &rkey_len, 8);
        memcpy(msg + 16, rkey, rkey_len);
        send_retry(1, AM_CTRL, msg, 16 + rkey_len, NULL, 0);
        tjob_barrier_progress(job, &rtm_tl_shm, T.iface);   /* rank 1 has read it */
        rtm_tl_shm.mem_dereg(T.iface, memh);
    } else {
        struct {
            rtm_tl_comp_t comp;
        } tc;
        uint64_t addr;
        rtm_status_t st;

        while (T.ctrl_count == 0)
            rtm_tl_shm.progress(T.iface);
        memcpy(&addr, T.ctrl, 8);
        memcpy(&rkey_len, T.ctrl + 8, 8);
        memcpy(rkey, T.ctrl + 16, rkey_len);
        tc.comp.cb = comp_cb;
        test_comp_calls = 0;
        st = rtm_tl_shm.get(T.ep[0], dst, NULL, LEN, addr, rkey, rkey_len, &tc.comp);
        if (expect_get) {
            CHECK(st == RTM_OK, "get: %s", rtm_last_error());
            /* a rendezvous read is gathered until the end of a progress pass */
            CHECK(test_comp_calls == 0, "completion called before progress");
            /* 1 MiB is split with rank 0 (RTM_SHM_CMA_SPLIT): done once rank 0
             * wrote the chunks it claimed, if any */
            while (test_comp_calls == 0)
                rtm_tl_shm.progress(T.iface);
            CHECK(test_comp_calls == 1 && test_comp_status == RTM_OK,
                  "completion called %d times", test_comp_calls);
            for (size_t i = 0; i < LEN; i++)
                CHECK(dst[i] == pattern(LEN, i), "get: byte %zu differs", i);
            memset(dst, 0, LEN);
            test_comp_calls = 0;
            CHECK(rtm_tl_shm.get(T.ep[0], dst, NULL, 1000, addr + 12345, rkey, rkey_len,
                                 &tc.comp) == RTM_OK, "sub-range get: %s", rtm_last_error());
            CHECK(rtm_tl_shm.flush(T.ep[0]) == RTM_OK, "flush: %s", rtm_last_error());
            CHECK(test_comp_calls == 1 && test_comp_status == RTM_OK,
                  "flush: completion called %d times", test_comp_calls);
            for (size_t i = 0; i < 1000; i++)
                CHECK(dst[i] == pattern(LEN, i + 12345), "sub-range: byte %zu differs", i);
            test_comp_calls = 0;
            CHECK(rtm_tl_shm.get(T.ep[0], dst, NULL, 16, addr + LEN - 8, rkey, rkey_len,
                                 &tc.comp) == RTM_ERR_INVALID_ARG, "get past the exposure");
            CHECK(test_comp_calls == 0, "completion called for a refused get");
        } else {
            CHECK(st == RTM_ERR_NOT_SUPPORTED, "get without CMA returned %d", st);
            CHECK(test_comp_calls == 0, "completion called for a refused get");
        }
        tjob_barrier_progress(job, &rtm_tl_shm, T.iface);
    }
}

/* Gathered reads (SHM_GET_BATCH per system call): completions in order,
 * one call per batch, a new batch for another peer, and a read the kernel
 * refuses (a page the sender unmapped) failing alone in its batch. */
typedef struct {
    rtm_tl_comp_t comp;
    int           calls;
    int           order;
    rtm_status_t  status;
} batch_get_t;

static int batch_order;

static void batch_cb(rtm_tl_comp_t *comp, rtm_status_t status)
{
    batch_get_t *g = rtm_container_of(comp, batch_get_t, comp);

    g->calls++;
    g->order = batch_order++;
    g->status = status;
}

static void body_cma_batch(tjob_t *job)
{
    enum { NGET = SHM_GET_BATCH + 6 };
    long page = sysconf(_SC_PAGESIZE);
    size_t region = 4 * (size_t)page;

    tsetup(job);
    twireup(job);
    CHECK(T.caps.flags & RTM_TL_CAP_GET, "no CAP_GET although CMA should work here");
    if (job->rank != 1) {
        /* four pages, the third unmapped: its address is in the key, its
         * memory is not */
        unsigned char *base = mmap(NULL, region, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        uint64_t addr = (uint64_t)(uintptr_t)base;

        CHECK(base != MAP_FAILED, "mmap");
        for (size_t i = 0; i < region; i++)
            base[i] = pattern((uint64_t)job->rank, i);
        CHECK(munmap(base + 2 * page, (size_t)page) == 0, "munmap");
        if (job->rank == 2)
            tjob_barrier_progress(job, &rtm_tl_shm, T.iface);   /* rank 0's went first */
        send_retry(1, AM_CTRL, &addr, sizeof(addr), NULL, 0);
        if (job->rank == 0)
            tjob_barrier_progress(job, &rtm_tl_shm, T.iface);
        tjob_barrier_progress(job, &rtm_tl_shm, T.iface);   /* rank 1 is done */
        munmap(base, 2 * (size_t)page);
        munmap(base + 3 * page, (size_t)page);
    } else {
        static batch_get_t g[NGET];
        static unsigned char dst[NGET][4096];
        shm_iface_t *iface = shm_iface(T.iface);
        shm_rkey_t key[3];
        uint64_t calls;

        while (T.ctrl_count < 1)
            rtm_tl_shm.progress(T.iface);
        memcpy(&key[0].addr, T.ctrl, 8);
        tjob_barrier_progress(job, &rtm_tl_shm, T.iface);
        while (T.ctrl_count < 2)
            rtm_tl_shm.progress(T.iface);
        memcpy(&key[2].addr, T.ctrl, 8);
        key[0].len = key[2].len = region;

        /* NGET reads of 1..4000 B from the first two pages of rank 0 */
        memset(g, 0, sizeof(g));
        batch_order = 0;
        calls = iface->cma_calls;
        for (int i = 0; i < NGET; i++) {
            size_t len = 1 + (size_t)(i * 977) % 4000, off = (size_t)(i * 131) % 4096;

            g[i].comp.cb = batch_cb;
            CHECK(rtm_tl_shm.get(T.ep[0], dst[i], NULL, len, key[0].addr + off, &key[0],
                                 sizeof(key[0]), &g[i].comp) == RTM_OK, "get %d: %s", i,
                  rtm_last_error());
        }
        CHECK(g[SHM_GET_BATCH - 1].calls == 1 && g[SHM_GET_BATCH].calls == 0,
              "a full batch was not made at once (%d, %d)", g[SHM_GET_BATCH - 1].calls,
              g[SHM_GET_BATCH].calls);
        CHECK(iface->cma_calls == calls + 1, "%llu system calls for a full batch",
              (unsigned long long)(iface->cma_calls - calls));
        rtm_tl_shm.progress(T.iface);
        CHECK(iface->cma_calls == calls + 2, "%llu system calls for %d reads",
              (unsigned long long)(iface->cma_calls - calls), NGET);
        for (int i = 0; i < NGET; i++) {
            size_t len = 1 + (size_t)(i * 977) % 4000, off = (size_t)(i * 131) % 4096;

            CHECK(g[i].calls == 1 && g[i].status == RTM_OK && g[i].order == i,
                  "read %d: %d completions, status %d, completed as %d", i, g[i].calls,
                  g[i].status, g[i].order);
            for (size_t k = 0; k < len; k++)
                CHECK(dst[i][k] == pattern(0, off + k), "read %d: byte %zu differs", i, k);
        }

        /* rank 0's page 0, rank 2's page 1 (a new batch: the first completes) */
        memset(g, 0, sizeof(g));
        memset(dst, 0, sizeof(dst));
        batch_order = 0;
        g[0].comp.cb = g[1].comp.cb = batch_cb;
        CHECK(rtm_tl_shm.get(T.ep[0], dst[0], NULL, 4096, key[0].addr, &key[0], sizeof(key[0]),
                             &g[0].comp) == RTM_OK, "get from rank 0: %s", rtm_last_error());
        CHECK(g[0].calls == 0, "a read completed before progress");
        CHECK(rtm_tl_shm.get(T.ep[2], dst[1], NULL, 4096, key[2].addr + (uint64_t)page,
                             &key[2], sizeof(key[2]), &g[1].comp) == RTM_OK,
              "get from rank 2: %s", rtm_last_error());
        CHECK(g[0].calls == 1 && g[1].calls == 0, "a read from another peer did not make the "
              "batch (%d, %d)", g[0].calls, g[1].calls);
        rtm_tl_shm.progress(T.iface);
        CHECK(g[1].calls == 1 && g[1].status == RTM_OK, "read from rank 2: %d, %d",
              g[1].calls, g[1].status);
        for (size_t k = 0; k < 4096; k++) {
            CHECK(dst[0][k] == pattern(0, k), "rank 0's byte %zu differs", k);
            CHECK(dst[1][k] == pattern(2, (size_t)page + k), "rank 2's byte %zu differs", k);
        }

        /* pages 0, 2 (unmapped) and 3 of rank 0 in one batch */
        memset(g, 0, sizeof(g));
        memset(dst, 0, sizeof(dst));
        batch_order = 0;
        for (int i = 0; i < 3; i++) {
            g[i].comp.cb = batch_cb;
            CHECK(rtm_tl_shm.get(T.ep[0], dst[i], NULL, 4096,
                                 key[0].addr + (uint64_t)(i == 0 ? 0 : i + 1) * (uint64_t)page,
                                 &key[0], sizeof(key[0]), &g[i].comp) == RTM_OK, "get %d: %s",
                  i, rtm_last_error());
        }
        rtm_tl_shm.progress(T.iface);
        CHECK(g[0].calls == 1 && g[0].status == RTM_OK && g[0].order == 0, "page 0: %d, %d",
              g[0].calls, g[0].status);
        CHECK(g[1].calls == 1 && g[1].status == RTM_ERR_TRANSPORT && g[1].order == 1,
              "unmapped page: %d completions, status %d", g[1].calls, g[1].status);
        CHECK(g[2].calls == 1 && g[2].status == RTM_OK && g[2].order == 2, "page 3: %d, %d",
              g[2].calls, g[2].status);
        for (size_t k = 0; k < 4096; k++) {
            CHECK(dst[0][k] == pattern(0, k), "page 0: byte %zu differs", k);
            CHECK(dst[2][k] == pattern(0, 3 * (size_t)page + k), "page 3: byte %zu differs", k);
        }
        CHECK(strstr(rtm_last_error(), "failed") != NULL, "error: %s", rtm_last_error());
        tjob_barrier_progress(job, &rtm_tl_shm, T.iface);
    }
    tteardown(job);
}

/* Split reads (shm_split.c): rank 1 reads 1 MiB + 12345 B (5 chunks of
 * 256 KiB, the last of 12345 B) from rank 0, which writes the chunks it
 * claims from the back. Each step is ordered by the slot's words or a
 * barrier, never by time; the barriers do not progress, so that rank 0
 * meets a record only in the loop meant for it (a progressing barrier
 * could let it take the next step's record early). */
static void split_wait_claimed(shm_iface_t *iface, int s, uint32_t nchunks)
{
    /* until rank 0 claimed from the back (no progress here: rank 1 takes
     * nothing meanwhile) */
    while ((atomic_load(&iface->split_slots[s].claim) & 0xffffu) == nchunks)
        sched_yield();
}

static void split_progress_until(int *calls)
{
    while (*calls == 0)
        rtm_tl_shm.progress(T.iface);
}

/* dst zeroed and g reset for a split read into dst */
static void split_reset(unsigned char *dst, size_t len, batch_get_t *g)
{
    memset(g, 0, sizeof(*g));
    memset(dst, 0, len);
    g->comp.cb = batch_cb;
}

/* The split-read get of len bytes at key's address into dst, completing
 * into g (both as split_reset left them). */
static void split_issue(unsigned char *dst, size_t len, const shm_rkey_t *key, batch_get_t *g)
{
    CHECK(rtm_tl_shm.get(T.ep[0], dst, NULL, len, key->addr, key, sizeof(*key), &g->comp) ==
          RTM_OK, "get: %s", rtm_last_error());
}

static void split_get(unsigned char *dst, size_t len, const shm_rkey_t *key, batch_get_t *g)
{
    split_reset(dst, len, g);
    split_issue(dst, len, key, g);
}

/* bytes [from, to) of dst hold the sender's pattern of a len-byte message */
static void split_check(const unsigned char *dst, size_t len, size_t from, size_t to,
                        const char *what)
{
    for (size_t i = from; i < to; i++)
        CHECK(dst[i] == pattern(len, i), "%s: byte %zu differs", what, i);
}

static void body_cma_split(tjob_t *job)
{
    enum { LEN = (1 << 20) + 12345, NCHUNKS = 5, CHUNK = 256 * 1024 };
    long page = sysconf(_SC_PAGESIZE);
    shm_iface_t *iface;

    setenv("RTM_SHM_CMA_SPLIT", "128K", 1);
    tsetup(job);
    twireup(job);
    unsetenv("RTM_SHM_CMA_SPLIT");
    iface = shm_iface(T.iface);
    CHECK(T.caps.flags & RTM_TL_CAP_GET, "no CAP_GET although CMA should work here");
    if (job->rank == 0) {
        unsigned char *src = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                  -1, 0);
        uint64_t addr = (uint64_t)(uintptr_t)src, helped;

        CHECK(src != MAP_FAILED, "mmap");
        for (size_t i = 0; i < LEN; i++)
            src[i] = pattern(LEN, i);
        send_retry(1, AM_CTRL, &addr, sizeof(addr), NULL, 0);

        /* 1: rank 1 waits for this rank's claim, then both copy */
        helped = iface->split_helped;
        while (iface->split_helped == helped)
            rtm_tl_shm.progress(T.iface);
        CHECK(iface->split_helped - helped >= (NCHUNKS + 1) / 2,
              "wrote %llu chunks, expected at least %d",
              (unsigned long long)(iface->split_helped - helped), (NCHUNKS + 1) / 2);
        tjob_barrier(job);

        /* 2: two reads in one slot came while this rank did not progress:
         * the first (completed by rank 1 alone) is stale, the second helped */
        tjob_barrier(job);
        helped = iface->split_helped;
        while (iface->split_helped == helped)
            rtm_tl_shm.progress(T.iface);
        tjob_barrier(job);

        /* 3: rank 1 made the back of its buffer read-only: the writes fail
         * (rank 1 does not progress meanwhile: it would read them itself) */
        tjob_barrier(job);
        helped = iface->split_help_failed;
        while (iface->split_help_failed == helped)
            rtm_tl_shm.progress(T.iface);
        tjob_barrier(job);

        /* 4: a page at the front unmapped: rank 1's read fails, this rank's
         * chunks are written */
        tjob_barrier(job);   /* rank 1 completed 3 (it read the whole again) */
        CHECK(munmap(src + page, (size_t)page) == 0, "munmap");
        helped = iface->split_helped;
        while (iface->split_helped == helped)
            rtm_tl_shm.progress(T.iface);
        tjob_barrier(job);

        /* 5: a record that fails its check is dropped and counted */
        tjob_barrier(job);
        while (iface->split_bad == 0)
            rtm_tl_shm.progress(T.iface);
        tjob_barrier(job);
        munmap(src, (size_t)page);
        munmap(src + 2 * page, LEN - 2 * (size_t)page);
    } else {
        static batch_get_t g[2];
        unsigned char *dst = mmap(NULL, 2 * (size_t)LEN, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        unsigned char *dst2 = dst + LEN;
        size_t back = (size_t)(NCHUNKS / 2) * CHUNK;   /* rank 0's first claim starts here */
        shm_rkey_t key;
        shm_split_req_t req;
        uint64_t peer_chunks;

        CHECK(dst != MAP_FAILED, "mmap");
        while (T.ctrl_count < 1)
            rtm_tl_shm.progress(T.iface);
        memcpy(&key.addr, T.ctrl, 8);
        key.len = LEN;

        /* 1 */
        split_get(dst, LEN, &key, &g[0]);
        CHECK(iface->split_busy == 1 && iface->split_reads == 1 && g[0].calls == 0,
              "not split: busy %#llx, %llu reads", (unsigned long long)iface->split_busy,
              (unsigned long long)iface->split_reads);
        split_wait_claimed(iface, 0, NCHUNKS);
        split_progress_until(&g[0].calls);
        CHECK(g[0].status == RTM_OK && iface->split_busy == 0, "status %d", g[0].status);
        CHECK(iface->split_peer_chunks >= (NCHUNKS + 1) / 2 &&
              iface->split_peer_chunks == NCHUNKS - iface->split[0].mine,
              "rank 0 wrote %llu chunks, this rank read %u",
              (unsigned long long)iface->split_peer_chunks, iface->split[0].mine);
        split_check(dst, LEN, 0, LEN, "split read");
        tjob_barrier(job);

        /* 2: rank 0 is in a plain barrier: the first read completes here
         * alone; its buffer is then reused, the slot serves a second read */
        peer_chunks = iface->split_peer_chunks;
        split_get(dst, LEN, &key, &g[0]);
        split_progress_until(&g[0].calls);
        CHECK(g[0].status == RTM_OK && iface->split_peer_chunks == peer_chunks &&
              iface->split[0].mine == NCHUNKS, "alone: status %d, read %u chunks", g[0].status,
              iface->split[0].mine);
        split_check(dst, LEN, 0, LEN, "read alone");
        memset(dst, 0xee, LEN);
        split_get(dst2, LEN, &key, &g[1]);
        CHECK(iface->split_busy == 1, "the second read is not in slot 0: %#llx",
              (unsigned long long)iface->split_busy);
        tjob_barrier(job);
        split_wait_claimed(iface, 0, NCHUNKS);
        tjob_barrier(job);   /* rank 0 helped */
        for (size_t i = 0; i < LEN; i++)
            CHECK(dst[i] == 0xee, "the stale record wrote byte %zu of a completed read", i);
        split_progress_until(&g[1].calls);
        CHECK(g[1].status == RTM_OK && iface->split_peer_chunks > peer_chunks, "second: %d",
              g[1].status);
        split_check(dst2, LEN, 0, LEN, "second read");

        /* 3: rank 0's writes fail (read-only pages, made so before the
         * record goes): this rank reads its chunks */
        split_reset(dst, LEN, &g[0]);
        CHECK(mprotect(dst + back, LEN - back, PROT_READ) == 0, "mprotect");
        split_issue(dst, LEN, &key, &g[0]);
        tjob_barrier(job);
        tjob_barrier(job);   /* rank 0 failed */
        CHECK(mprotect(dst + back, LEN - back, PROT_READ | PROT_WRITE) == 0, "mprotect");
        split_progress_until(&g[0].calls);
        CHECK(g[0].status == RTM_OK, "after a failed write: status %d", g[0].status);
        split_check(dst, LEN, 0, LEN, "after a failed write");

        /* 4: this rank's read fails (rank 0 unmapped its second page): the
         * read completes with RTM_ERR_TRANSPORT once rank 0's chunks are in */
        split_get(dst, LEN, &key, &g[0]);
        tjob_barrier(job);
        split_wait_claimed(iface, 0, NCHUNKS);
        split_progress_until(&g[0].calls);
        CHECK(g[0].status == RTM_ERR_TRANSPORT, "a failed read: status %d", g[0].status);
        split_check(dst, LEN, back, LEN, "rank 0's chunks");
        tjob_barrier(job);

        /* 5: a slot out of range */
        memset(&req, 0, sizeof(req));
        req.slot = SHM_SPLIT_SLOTS;
        req.nchunks = 2;
        req.len = 2 * CHUNK;
        req.chunk = CHUNK;
        CHECK(shm_split_check(&req, sizeof(req), &req) == -1, "slot 64 accepted");
        CHECK(shm_fifo_push(&iface->tx[0], SHM_AM_SPLIT, &req, sizeof(req), NULL, 0) == 0,
              "push");
        tjob_barrier(job);
        tjob_barrier(job);
        munmap(dst, 2 * (size_t)LEN);
    }
    tteardown(job);
}

static void body_cma(tjob_t *job)
{
    char desc[256];

    tsetup(job);
    twireup(job);
    rtm_tl_shm.describe(T.iface, desc, sizeof(desc));
    CHECK(T.caps.flags & RTM_TL_CAP_GET, "no CAP_GET although CMA should work here: %s", desc);
    CHECK(T.caps.get_threshold == (shm_config.cma_threshold_busy < shm_config.cma_threshold ?
                                   shm_config.cma_threshold_busy : shm_config.cma_threshold),
          "get_threshold %zu", T.caps.get_threshold);
    CHECK(strstr(desc, "CMA single copy") != NULL, "describe: %s", desc);
    if (job->rank == 1)
        printf("    %s\n", desc);
    cma_exchange(job, 1);
    tteardown(job);
}

/* The same with the runtime's addr_lookup: rank 0 probes rank 1's blob. */
static void body_cma_lookup(tjob_t *job)
{
    use_addr_lookup = 1;
    body_cma(job);
    CHECK(job->rank != 0 || lookups == 1, "rank 0 made %d lookups", lookups);
}

static void check_no_cma(tjob_t *job, const char *why)
{
    char desc[256];

    rtm_tl_shm.describe(T.iface, desc, sizeof(desc));
    CHECK(!(T.caps.flags & RTM_TL_CAP_GET), "CAP_GET offered: %s", desc);
    CHECK(strstr(desc, why) != NULL, "describe lacks \"%s\": %s", why, desc);
    CHECK(strstr(desc, "copy through shared memory") != NULL, "describe: %s", desc);
    if (job->rank == 1)
        printf("    %s\n", desc);
    cma_exchange(job, 0);
}

static void body_cma_off(tjob_t *job)
{
    setenv("RTM_SHM_CMA", "off", 1);
    tsetup(job);
    CHECK(!shm_iface(T.iface)->ptracer_any, "RTM_SHM_CMA=off set PR_SET_PTRACER_ANY");
    twireup(job);
    check_no_cma(job, "RTM_SHM_CMA=off");
    tteardown(job);
}

/* The same all to all through shared queues of 16 KiB (the smallest
 * RTM_SHM_RX_BUDGET), three senders contending for every queue. */
static void body_all_to_all_shared(tjob_t *job)
{
    setenv("RTM_SHM_QUEUE", "shared", 1);
    setenv("RTM_SHM_RX_BUDGET", "16K", 1);
    body_all_to_all(job);
    CHECK(T.caps.am_max == 16 * 1024 / 4 - 8, "am_max %zu: not a 16K queue", T.caps.am_max);
}

/* A rank whose configuration chose the other mode, or a segment of another
 * layout version: wireup fails with a message saying which, nothing hangs. */
static void body_mode_mismatch(tjob_t *job)
{
    setenv("RTM_SHM_QUEUE", job->rank == 0 ? "shared" : "pair", 1);
    tsetup(job);
    if (job->rank == 1) {
        CHECK(rtm_tl_shm.wireup(T.iface) == RTM_ERR_TRANSPORT, "wireup of the other mode");
        CHECK(strstr(rtm_last_error(), "has shared queues") != NULL &&
              strstr(rtm_last_error(), "RTM_SHM_QUEUE=pair") != NULL &&
              strstr(rtm_last_error(), "chose pair queues") != NULL, "message: %s",
              rtm_last_error());
        printf("    %s\n", rtm_last_error());
    }
    tjob_barrier(job);
    rtm_tl_shm.close(T.iface);
}

static void body_version_mismatch(tjob_t *job)
{
    tsetup(job);
    if (job->rank == 0)
        shm_iface(T.iface)->seg->version = SHM_SEG_VERSION - 1;
    tjob_barrier(job);
    if (job->rank == 1) {
        CHECK(rtm_tl_shm.wireup(T.iface) == RTM_ERR_TRANSPORT, "wireup of an older layout");
        CHECK(strstr(rtm_last_error(), "layout version") != NULL, "message: %s",
              rtm_last_error());
        printf("    %s\n", rtm_last_error());
    }
    tjob_barrier(job);
    rtm_tl_shm.close(T.iface);
}

/* RTM_SHM_SEG_MAX bounds the segment: 4 ranks (12 rings) in 1 MiB get
 * 64 KiB rings, not 256 KiB, and all to all still arrives in order. */
static void body_seg_budget(tjob_t *job)
{
    setenv("RTM_SHM_SEG_MAX", "1M", 1);
    body_all_to_all(job);
    CHECK(T.caps.am_max == 64 * 1024 / 4 - 8, "am_max %zu: rings not shrunk to 64K",
          T.caps.am_max);
    unsetenv("RTM_SHM_SEG_MAX");
}

/* get_preferred by size and the load signal, forced by RTM_SHM_LOAD: a busy
 * host reads from RTM_SHM_CMA_THRESHOLD_BUSY, a quiet one from
 * RTM_SHM_CMA_THRESHOLD; auto reads /proc/loadavg and says one or the other. */
static void body_cma_load(tjob_t *job)
{
    static const char *const loads[] = {"busy", "quiet", "auto"};

    for (int i = 0; i < 3; i++) {
        size_t busy, quiet;
        int peer = 1 - job->rank, got;

        setenv("RTM_SHM_LOAD", loads[i], 1);
        setenv("RTM_SHM_CMA_THRESHOLD_BUSY", "16K", 1);
        setenv("RTM_SHM_CMA_THRESHOLD", "1M", 1);
        tsetup(job);
        twireup(job);
        busy = shm_config.cma_threshold_busy;
        quiet = shm_config.cma_threshold;
        CHECK(busy == 16384 && quiet == 1048576, "thresholds %zu %zu", busy, quiet);
        CHECK(T.caps.get_threshold == busy, "get_threshold %zu", T.caps.get_threshold);
        if (i == 0) {
            CHECK(rtm_tl_shm.get_preferred(T.ep[peer], busy), "busy: %zu B not by CMA", busy);
            CHECK(!rtm_tl_shm.get_preferred(T.ep[peer], busy - 1), "busy: below threshold");
        } else if (i == 1) {
            CHECK(!rtm_tl_shm.get_preferred(T.ep[peer], busy), "quiet: %zu B by CMA", busy);
            CHECK(!rtm_tl_shm.get_preferred(T.ep[peer], quiet - 1), "quiet: below threshold");
            CHECK(rtm_tl_shm.get_preferred(T.ep[peer], quiet), "quiet: %zu B not by CMA", quiet);
        } else {
            got = rtm_tl_shm.get_preferred(T.ep[peer], busy);
            CHECK(rtm_tl_shm.get_preferred(T.ep[peer], quiet), "auto: %zu B not by CMA", quiet);
            CHECK(!rtm_tl_shm.get_preferred(T.ep[peer], busy - 1), "auto: below both");
            if (job->rank == 0)
                printf("    auto: the host is %s now\n", got ? "busy" : "quiet");
        }
        tteardown(job);
    }
    /* equal thresholds (the default): the answer is the size's alone and
     * /proc/loadavg is never read */
    setenv("RTM_SHM_LOAD", "auto", 1);
    setenv("RTM_SHM_CMA_THRESHOLD_BUSY", "64K", 1);
    setenv("RTM_SHM_CMA_THRESHOLD", "64K", 1);
    tsetup(job);
    twireup(job);
    {
        int peer = 1 - job->rank;

        CHECK(rtm_tl_shm.get_preferred(T.ep[peer], 65536), "equal: 64K not by CMA");
        CHECK(!rtm_tl_shm.get_preferred(T.ep[peer], 65535), "equal: 64K-1 by CMA");
        CHECK(shm_iface(T.iface)->load_samples == 0, "equal thresholds: load sampled %llu times",
              (unsigned long long)shm_iface(T.iface)->load_samples);
    }
    tteardown(job);
    unsetenv("RTM_SHM_LOAD");
    unsetenv("RTM_SHM_CMA_THRESHOLD_BUSY");
    unsetenv("RTM_SHM_CMA_THRESHOLD");
}

/* The runnable-task field of /proc/loadavg, and texts that are not it. */
static void body_load_parse(tjob_t *job)
{
    static const struct { const char *text; int want; } cases[] = {
        {"0.50 0.60 0.70 3/250 12345\n", 3}, {"12.01 9.99 7.00 17/1024 1", 17},
        {"0.00 0.00 0.00 1/1 1", 1}, {"0.50 0.60 0.70 /250 1", -1}, {"0.50 0.60", -1},
        {"0.50 0.60 0.70 3", -1}, {"", -1}, {"a b c 4/5", 4},
    };

    (void)job;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int got = shm_load_parse(cases[i].text, strlen(cases[i].text));

        CHECK(got == cases[i].want, "\"%s\": %d, expected %d", cases[i].text, got,
              cases[i].want);
    }
}

/* Yama's ptrace_scope, parsed; and what a rank did about it on this machine:
 * under scope 1 (Ubuntu's default) it must have let its user's processes
 * read it, or CMA between sibling ranks is refused (then body_cma fails
 * there too); without Yama or at another scope it must not have. */
static void body_yama(tjob_t *job)
{
    static const struct { const char *text; int want; } cases[] = {
        {"0\n", 0}, {"1\n", 1}, {"2\n", 2}, {"3\n", 3}, {"1", 1}, {"4\n", -1}, {"", -1},
        {"\n", -1}, {"-1\n", -1}, {"12\n", -1}, {"1 \n", -1}, {"a\n", -1},
    };
    char text[8];
    int scope = -1, fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY);

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int got = shm_yama_parse(cases[i].text, strlen(cases[i].text));

        CHECK(got == cases[i].want, "\"%s\": %d, expected %d", cases[i].text, got,
              cases[i].want);
    }
    if (fd >= 0) {
        ssize_t n = read(fd, text, sizeof(text));

        scope = n > 0 ? shm_yama_parse(text, (size_t)n) : -1;
        close(fd);
    }
    tsetup(job);
    CHECK(shm_iface(T.iface)->yama_scope == scope, "Yama scope %d seen, the file says %d",
          shm_iface(T.iface)->yama_scope, scope);
    CHECK(shm_iface(T.iface)->ptracer_any == (scope == 1), "PR_SET_PTRACER_ANY %s at scope %d",
          shm_iface(T.iface)->ptracer_any ? "set" : "not set", scope);
    if (job->rank == 0)
        printf("    Yama ptrace_scope: %d (-1: no Yama)\n", scope);
    twireup(job);
    tteardown(job);
}

/* A seccomp filter that makes process_vm_readv fail with EPERM, as in a
 * container whose profile forbids it. */
static int forbid_cma(void)
{
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof(filter) / sizeof(filter[0]), filter};

    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static void body_cma_refused(tjob_t *job)
{
    CHECK(forbid_cma() == 0, "cannot install the seccomp filter: %s", strerror(errno));
    tsetup(job);
    twireup(job);
    check_no_cma(job, "CMA refused by the kernel (EPERM)");
    tteardown(job);
}

/* Once every rank attached, the name is gone: a SIGKILL leaks nothing. */
static void body_sigkill(tjob_t *job)
{
    tsetup(job);
    twireup(job);
    tjob_barrier(job);
    CHECK(!shm_name_exists(job->nspace), "name still there after every rank attached");
    if (job->rank == 2)
        kill(getpid(), SIGKILL);
    if (job->rank == 0) {
        for (uint64_t seq = 0; seq < 1000; seq++) {
            unsigned char buf[16];

            memcpy(buf, &seq, 8);
            for (size_t i = 8; i < 16; i++)
                buf[i] = pattern(seq, i);
            send_retry(1, AM_SEQ, buf, 16, NULL, 0);
        }
    } else if (job->rank == 1) {
        while (T.seq_next[0] < 1000)
            rtm_tl_shm.progress(T.iface);
    }
    /* no barrier with the dead rank */
    rtm_tl_shm.close(T.iface);
}

/* A rank that dies before it attaches: the name stays until rank 0 closes. */
static void body_dies_before_attach(tjob_t *job)
{
    setenv("RTM_SHM_CMA", "off", 1);
    tsetup(job);
    if (job->rank == 1)
        _exit(0);
    CHECK(rtm_tl_shm.wireup(T.iface) == RTM_OK, "%s", rtm_last_error());
    CHECK(shm_name_exists(job->nspace), "name gone although rank 1 never attached");
    rtm_tl_shm.close(T.iface);
    CHECK(!shm_name_exists(job->nspace), "close left the name behind");
}

/* /dev/shm cannot hold the segment: a clear error naming it, nothing left.
 * 64 local ranks with 1 GiB rings ask for 4032 GiB: far beyond any tmpfs
 * here, so the kernel refuses at once instead of filling memory. */
static void body_no_space(tjob_t *job)
{
    rtm_tl_params_t params;
    rtm_tl_iface_t *iface;
    int peers[64];
    struct statvfs vfs;
    rtm_status_t st;

    if (statvfs("/dev/shm", &vfs) != 0 || (double)vfs.f_blocks * (double)vfs.f_frsize > 1e12 ||
        vfs.f_blocks == 0) {
        printf("    skipped: /dev/shm is too large or unbounded to provoke ENOSPC safely\n");
        return;
    }
    for (int i = 0; i < 64; i++)
        peers[i] = i;
    setenv("RTM_SHM_FIFO_SIZE", "1G", 1);
    setenv("RTM_SHM_RX_BUDGET", "1024G", 1);
    setenv("RTM_SHM_SEG_MAX", "1024G", 1);   /* above /dev/shm: the segment must not fit */
    CHECK(rtm_config_register(&shm_config_table) == RTM_OK, "%s", rtm_last_error());
    memset(&params, 0, sizeof(params));
    params.local_size = 64;
    params.world_size = 64;
    params.local_peers = peers;
    params.nspace = job->nspace;
    params.hostname = "testhost";
    params.am_cb = am_cb;
    params.peer_failed = tjob_peer_failed;
    st = rtm_tl_shm.open(&params, &iface);
    CHECK(st == RTM_ERR_TRANSPORT, "open of a 1 TiB segment returned %d", st);
    CHECK(strstr(rtm_last_error(), "/dev/shm/rtm-") != NULL &&
          strstr(rtm_last_error(), "RTM_SHM_FIFO_SIZE") != NULL, "message: %s",
          rtm_last_error());
    printf("    %s\n", rtm_last_error());
    /* beyond the row's range: refused when the table is read */
    setenv("RTM_SHM_FIFO_SIZE", "2G", 1);
    CHECK(rtm_config_register(&shm_config_table) == RTM_ERR_INVALID_ARG, "2 GiB rings accepted");
    CHECK(strstr(rtm_last_error(), "RTM_SHM_FIFO_SIZE=\"2G\"") != NULL &&
          strstr(rtm_last_error(), "8K..1G") != NULL, "message: %s", rtm_last_error());
}

int main(void)
{
    int failed = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    failed |= tjob_run("every size 0..am_max, in order, AGAIN, 256K ring", 2, body_every_size, 0);
    failed |= tjob_run("every size 0..am_max, 8K ring (many wraps)", 2,
                       body_every_size_small_fifo, 0);
    failed |= tjob_run("all to all, 4 ranks, ordering and content", 4, body_all_to_all, 0);
    failed |= tjob_run("every size 0..am_max, shared queue (RTM_SHM_QUEUE=shared)", 2,
                       body_every_size_shared, 0);
    failed |= tjob_run("every size 0..am_max, 16K shared queue (many laps)", 2,
                       body_every_size_shared_small, 0);
    failed |= tjob_run("all to all, 4 ranks, 16K shared queues", 4, body_all_to_all_shared, 0);
    failed |= tjob_run("a rank of the other queue mode: refused at wireup", 2,
                       body_mode_mismatch, 0);
    failed |= tjob_run("a segment of another layout version: refused at wireup", 2,
                       body_version_mismatch, 0);
    failed |= tjob_run("segment within RTM_SHM_SEG_MAX: smaller rings, all to all", 4,
                       body_seg_budget, 0);
    failed |= tjob_run("CMA get", 2, body_cma, 0);
    failed |= tjob_run("CMA get, probe through addr_lookup", 2, body_cma_lookup, 0);
    failed |= tjob_run("CMA reads gathered: one call per batch, per peer, a refused one alone", 3,
                       body_cma_batch, 0);
    failed |= tjob_run("CMA reads split with the sender: both copy, a late record writes "
                       "nothing, failed writes and reads", 2, body_cma_split, 0);
    failed |= tjob_run("CMA chosen by size and load (RTM_SHM_LOAD)", 2, body_cma_load, 0);
    failed |= tjob_run("load signal: /proc/loadavg's runnable tasks", 1, body_load_parse, 0);
    failed |= tjob_run("Yama ptrace_scope: parsed, and PR_SET_PTRACER_ANY at scope 1 only", 2,
                       body_yama, 0);
    failed |= tjob_run("CMA off (RTM_SHM_CMA=off)", 2, body_cma_off, 0);
    failed |= tjob_run("CMA refused by seccomp (EPERM)", 2, body_cma_refused, 0);
    failed |= tjob_run("SIGKILL after attach leaves nothing", 3, body_sigkill, 1u << 2);
    failed |= tjob_run("rank dying before attach: close removes the name", 2,
                       body_dies_before_attach, 0);
    failed |= tjob_run("/dev/shm too small: clear error", 1, body_no_space, 0);
    return failed ? 1 : 0;
}
