/*
 * One-sided memory through the native API (rtm_rma_*, issue 15 phase 2),
 * run by tests/verbs/vrb_rma.sh (verbs on softib, windows and plain MRs;
 * shm; tcp) and vrb_rma_fault.sh (the modes that must end the job).
 *
 *   vrb_rma ops [atomics|noatomics|none]
 *     Every rank exposes a region to all others and sends each its own key.
 *     put: each rank writes a pattern into its right neighbour's region
 *     (an inline-sized, a middle and a 40 KB put, and puts from a read-only
 *     page and from .rodata above the inline size); get: each rank reads
 *     its left neighbour's read-only part; fetch-add: every rank adds to
 *     one word of rank 0's K times (the exact total is checked, and every
 *     old value returned is below it); CAS: every rank increments another
 *     word of rank 0's by compare-and-swap loops (exact total); a region
 *     exposed without the atomic right, or read-only, is refused at the
 *     origin; a range beyond the region too; a rank's key for its own
 *     region only where it has atomics (verbs: the loopback QP, one WR per
 *     atomic on its own word). The transport's WR counter
 *     must grow by exactly 1 per put, get, fetch-add and CAS (verbs).
 *     "readonly": puts and atomics "not available", gets work (XRC).
 *     "noatomics": atomics must be "not available" (shm, or a device
 *     without atomics: SOFTIB_CAPS=noatomic); "none": no key at all,
 *     every key_pack "not available" (tcp).
 *   vrb_rma nokey     (3 ranks) rank 1 leaks its key of rank 0's region to
 *     rank 2, which puts with it: the window is bound to rank 1's QP, so
 *     the target refuses (remote access error) and the job must end.
 *   vrb_rma revoked   (2 ranks) rank 1 puts, rank 0 revokes, rank 1 puts
 *     again with the old key: remote access error, the job ends.
 *   vrb_rma forged    (2 ranks) rank 0 exposes a region without the atomic
 *     right (after one with it, so the QP admits atomics); rank 1 sets the
 *     right in its copy of the key and does an atomic: the region's window
 *     or MR refuses it at the target, the job ends.
 *   vrb_rma outsider  (3 ranks, one MR) a rank outside the group uses a
 *     leaked key: its QP lost REMOTE_WRITE at an earlier revoke, so the
 *     target refuses and the job ends (mode_outsider).
 *   vrb_rma stuckbind | stuckinv (2 ranks) a bind or invalidate that cannot
 *     complete (mode_stuck): the job ends naming it, nothing is freed.
 * A fault mode that returns from its flush prints FAIL and exits 1.
 */
#include "config.h"

#include "rtmsg.h"
#include "../integration/itest.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SLOT      (64 * 1024)         /* a put slot and a read-only part */
#define REGION    (2 * SLOT + 64)     /* put slot, read-only part, atomic words */
#define W_FADD    (2 * SLOT)          /* offsets of rank 0's atomic words */
#define W_CAS     (2 * SLOT + 8)
#define NFADD     200
#define NCAS      50
#define TAG_KEY   77
#define TAG_SYNC  78
#define RO_OFF     44000               /* in the put slot, after the three puts */
#define RO_PUT     5000
#define RODATA_OFF 50000

/* a put source in .rodata, above any inline size */
static const unsigned char rodata_src[1024] = {[0] = 1, [1] = 2, [300] = 3, [1023] = 4};

static int rank, size;

/* Exposes reg_mem with rights and swaps keys with every other rank:
 * keys[r] is rank r's (unless none is to be had). */
static void swap_keys(rtm_rma_region_t reg, rtm_rma_key_t *keys, int expect_none)
{
    for (int r = 0; r < size; r++) {
        unsigned char blob[RTM_RMA_KEY_MAX];
        size_t len = sizeof(blob);

        if (r == rank)
            continue;
        if (expect_none) {
            EXPECT_STATUS(rtm_rma_key_pack(reg, r, blob, &len), RTM_ERR_NOT_SUPPORTED);
            continue;
        }
        CHECK_RTM(rtm_rma_key_pack(reg, r, blob, &len));
        CHECK_RTM(rtm_send(blob, len, r, TAG_KEY, RTM_COMM_WORLD));
    }
    for (int r = 0; r < size && !expect_none; r++) {
        unsigned char blob[RTM_RMA_KEY_MAX];
        rtm_msg_status_t st;

        if (r == rank)
            continue;
        CHECK_RTM(rtm_recv(blob, sizeof(blob), r, TAG_KEY, RTM_COMM_WORLD, &st));
        CHECK_RTM(rtm_rma_key_unpack(RTM_COMM_WORLD, r, blob, st.count, &keys[r]));
    }
}

static uint64_t wrs(int r);
static void one_wr(int r, uint64_t before, const char *what);

/* Arguments and keys the API must refuse, with a message. */
static void bad_args(rtm_rma_region_t reg, char *mem, int peer, int can_put, int own)
{
    unsigned char blob[RTM_RMA_KEY_MAX], bad[RTM_RMA_KEY_MAX];
    size_t len = sizeof(blob), small = 8;
    rtm_rma_region_t r = NULL;
    rtm_rma_key_t k;

    EXPECT_STATUS(rtm_rma_expose(RTM_COMM_WORLD, NULL, 64, RTM_RMA_READ, &r),
                  RTM_ERR_INVALID_ARG);
    EXPECT_STATUS(rtm_rma_expose(RTM_COMM_WORLD, mem, 64, 8, &r), RTM_ERR_INVALID_ARG);
    EXPECT_STATUS(rtm_rma_expose(RTM_COMM_WORLD, mem, 0, RTM_RMA_READ, &r),
                  RTM_ERR_INVALID_ARG);
    EXPECT_STATUS(rtm_rma_expose(4242, mem, 64, RTM_RMA_READ, &r), RTM_ERR_COMM);
    if (r != NULL)
        TH_FAIL("a refused expose wrote its output");
    if (own) {
        /* its own key, with the atomic right granted (verbs): for the
         * transport's loopback endpoint, so its own atomics go through the
         * device like its peers' (one WR, counted) */
        uint64_t res = 1, before;

        CHECK_RTM(rtm_rma_key_pack(reg, rank, blob, &len));
        CHECK_RTM(rtm_rma_key_unpack(RTM_COMM_WORLD, rank, blob, len, &k));
        before = wrs(peer);
        CHECK_RTM(rtm_rma_atomic(RTM_COMM_WORLD, rank, &k, REGION - 8, RTM_RMA_FADD, 0, 0,
                                 &res));
        CHECK_RTM(rtm_rma_flush(RTM_COMM_WORLD, rank));
        if (res != 0)
            TH_FAIL("fetch-and-add of 0 on its own zeroed word returned %llu",
                    (unsigned long long)res);
        one_wr(peer, before, "an atomic on its own region (counted on the interface of");
        len = sizeof(blob);
    } else {
        EXPECT_STATUS(rtm_rma_key_pack(reg, rank, blob, &len), RTM_ERR_NOT_SUPPORTED);
    }
    EXPECT_STATUS(rtm_rma_key_pack(reg, size, blob, &len), RTM_ERR_RANK);
    EXPECT_STATUS(rtm_rma_key_pack(reg, peer, blob, &small), RTM_ERR_INVALID_ARG);
    CHECK_RTM(rtm_rma_key_pack(reg, peer, blob, &len));
    CHECK_RTM(rtm_rma_key_unpack(RTM_COMM_WORLD, peer, blob, len, &k));
    EXPECT_STATUS(rtm_rma_key_unpack(RTM_COMM_WORLD, peer, blob, len - 1, &k),
                  RTM_ERR_INVALID_ARG);
    EXPECT_STATUS(rtm_rma_key_unpack(RTM_COMM_WORLD, size, blob, len, &k), RTM_ERR_RANK);
    for (size_t i = 0; i < 32; i++) {   /* every header byte that matters */
        memcpy(bad, blob, len);
        switch (i) {
        case 0: case 4: case 5: case 6: case 7: case 24:
            bad[i] ^= 0xff;
            break;
        case 16: case 17: case 18: case 19: case 20: case 21: case 22: case 23:
            memset(bad + 16, i == 16 ? 0 : 0xff, 8);   /* length 0, or wrapping */
            break;
        default:
            continue;
        }
        EXPECT_STATUS(rtm_rma_key_unpack(RTM_COMM_WORLD, peer, bad, len, &k),
                      RTM_ERR_INVALID_ARG);
    }
    memcpy(bad, blob, len);
    memcpy(bad + 24, "tcp\0\0\0\0\0", 8);   /* a key for another transport */
    EXPECT_STATUS(rtm_rma_key_unpack(RTM_COMM_WORLD, peer, bad, len, &k), RTM_ERR_INVALID_ARG);
    EXPECT_STATUS(rtm_rma_put(RTM_COMM_WORLD, peer, NULL, 0, mem, 8), RTM_ERR_INVALID_ARG);
    EXPECT_STATUS(rtm_rma_get(RTM_COMM_WORLD, peer, &k, 0, NULL, 8), RTM_ERR_BUFFER);
    CHECK_RTM(rtm_rma_get(RTM_COMM_WORLD, peer, &k, 0, NULL, 0));   /* nothing to do */
    EXPECT_STATUS(rtm_rma_put(RTM_COMM_WORLD, peer, &k, 0, NULL, 0),
                  can_put ? RTM_OK : RTM_ERR_NOT_SUPPORTED);
    k.world_rank = -5;   /* not unpacked for this rank */
    EXPECT_STATUS(rtm_rma_get(RTM_COMM_WORLD, peer, &k, 0, mem, 8), RTM_ERR_INVALID_ARG);
    EXPECT_STATUS(rtm_rma_flush(4242, peer), RTM_ERR_COMM);
    EXPECT_STATUS(rtm_rma_revoke(NULL), RTM_ERR_INVALID_ARG);
}

static uint64_t wrs(int r)
{
    uint64_t n = 0;

    CHECK_RTM(rtm_rma_wr_count(RTM_COMM_WORLD, r, &n));
    return n;
}

static void one_wr(int r, uint64_t before, const char *what)
{
    uint64_t after = wrs(r);

    if (after - before != 1)
        TH_FAIL("%s to rank %d took %llu work requests, expected exactly 1", what, r,
                (unsigned long long)(after - before));
}

static int mode_ops(const char *variant)
{
    int atomics = strcmp(variant, "atomics") == 0, none = strcmp(variant, "none") == 0;
    int can_put = strcmp(variant, "readonly") != 0;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    char *mem = itest_malloc(REGION), *ro = mem + SLOT;
    char *buf = itest_malloc(SLOT);
    rtm_rma_key_t *keys = calloc((size_t)size, sizeof(*keys));
    rtm_rma_region_t reg, reg_rw, reg_ro;
    static const size_t lens[] = {100, 3000, 40000};
    uint64_t res, before;
    rtm_status_t st;

    if (keys == NULL)
        TH_FAIL("calloc");
    memset(mem, 0, REGION);
    itest_fill(ro, SLOT, 100 + (uint32_t)rank);
    CHECK_RTM(rtm_rma_expose(RTM_COMM_WORLD, mem, REGION,
                             RTM_RMA_READ | RTM_RMA_WRITE | RTM_RMA_ATOMIC, &reg));
    swap_keys(reg, keys, none);
    if (none) {
        CHECK_RTM(rtm_rma_revoke(&reg));
        free(keys);
        free(buf);
        free(mem);
        return itest_finish();
    }
    bad_args(reg, mem, right, can_put, atomics);
    /* put: three sizes into the right neighbour's slot, each one WR */
    for (size_t i = 0, off = 0; i < sizeof(lens) / sizeof(lens[0]); off += lens[i], i++) {
        itest_fill(buf + off, lens[i], 1000 * (uint32_t)rank + (uint32_t)i);
        before = wrs(right);
        if (!can_put) {   /* asked for, not granted by the transport */
            EXPECT_STATUS(rtm_rma_put(RTM_COMM_WORLD, right, &keys[right], off, buf + off,
                                      lens[i]), RTM_ERR_NOT_SUPPORTED);
            continue;
        }
        CHECK_RTM(rtm_rma_put(RTM_COMM_WORLD, right, &keys[right], off, buf + off, lens[i]));
        one_wr(right, before, "a put");
    }
    /* puts from memory this rank may not write, above the inline size: a
     * page made read-only and a const array in .rodata (an HCA refuses to
     * register either for local write, which an RDMA Write source needs
     * not) */
    if (can_put) {
        long pg = sysconf(_SC_PAGESIZE);
        char *ro_src = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        if (ro_src == MAP_FAILED)
            TH_FAIL("mmap");
        itest_fill(ro_src, RO_PUT, 7000 + (uint32_t)rank);
        if (mprotect(ro_src, (size_t)pg * 2, PROT_READ) != 0)
            TH_FAIL("mprotect");
        CHECK_RTM(rtm_rma_put(RTM_COMM_WORLD, right, &keys[right], RO_OFF, ro_src, RO_PUT));
        CHECK_RTM(rtm_rma_put(RTM_COMM_WORLD, right, &keys[right], RODATA_OFF, rodata_src,
                              sizeof(rodata_src)));
        CHECK_RTM(rtm_rma_flush(RTM_COMM_WORLD, right));
        munmap(ro_src, (size_t)pg * 2);
    }
    /* get: the left neighbour's read-only part (one WR each) */
    before = wrs(left);
    CHECK_RTM(rtm_rma_get(RTM_COMM_WORLD, left, &keys[left], SLOT, buf, 5000));
    one_wr(left, before, "a get");
    CHECK_RTM(rtm_rma_get(RTM_COMM_WORLD, left, &keys[left], SLOT + 5000, buf + 5000,
                          SLOT - 5000));
    CHECK_RTM(rtm_rma_flush(RTM_COMM_WORLD, RTM_ANY_SOURCE));
    itest_check(buf, SLOT, 100 + (uint32_t)left, "data read by get");
    /* the origin refuses what the key does not allow */
    EXPECT_STATUS(rtm_rma_put(RTM_COMM_WORLD, right, &keys[right], REGION - 8, buf, 16),
                  RTM_ERR_INVALID_ARG);
    EXPECT_STATUS(rtm_rma_get(RTM_COMM_WORLD, right, &keys[right], (uint64_t)-8, buf, 16),
                  RTM_ERR_INVALID_ARG);
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    /* the left neighbour's puts are here */
    for (size_t i = 0, off = 0; can_put && i < sizeof(lens) / sizeof(lens[0]);
         off += lens[i], i++)
        itest_check(mem + off, lens[i], 1000 * (uint32_t)left + (uint32_t)i, "data put");
    if (can_put) {
        itest_check(mem + RO_OFF, RO_PUT, 7000 + (uint32_t)left, "data put from a read-only "
                    "page");
        if (memcmp(mem + RODATA_OFF, rodata_src, sizeof(rodata_src)) != 0)
            TH_FAIL("data put from .rodata differs");
    }

    if (rank != 0 && atomics) {
        uint64_t inc = (uint64_t)rank + 1, bound = 0;

        for (int r = 1; r < size; r++)
            bound += (uint64_t)NFADD * ((uint64_t)r + 1);
        before = wrs(0);
        CHECK_RTM(rtm_rma_atomic(RTM_COMM_WORLD, 0, &keys[0], W_FADD, RTM_RMA_FADD, inc, 0,
                                 &res));
        one_wr(0, before, "a fetch-and-add");
        CHECK_RTM(rtm_rma_flush(RTM_COMM_WORLD, 0));
        if (res >= bound)
            TH_FAIL("fetch-add returned %llu, beyond the total %llu", (unsigned long long)res,
                    (unsigned long long)bound);
        for (int k = 1; k < NFADD; k++) {
            CHECK_RTM(rtm_rma_atomic(RTM_COMM_WORLD, 0, &keys[0], W_FADD, RTM_RMA_FADD, inc, 0,
                                     &res));
            CHECK_RTM(rtm_rma_flush(RTM_COMM_WORLD, 0));
            if (res >= bound)   /* e.g. an old value in the wrong byte order */
                TH_FAIL("fetch-add %d returned %llu (0x%llx), beyond the total %llu", k,
                        (unsigned long long)res, (unsigned long long)res,
                        (unsigned long long)bound);
        }
        /* compare-and-swap increments */
        for (int k = 0; k < NCAS; k++) {
            uint64_t expect = 0;

            for (long tries = 0;; tries++) {
                if (tries > 100L * NCAS * size)
                    TH_FAIL("compare-and-swap never matched (last old value 0x%llx)",
                            (unsigned long long)expect);
                before = wrs(0);
                CHECK_RTM(rtm_rma_atomic(RTM_COMM_WORLD, 0, &keys[0], W_CAS, RTM_RMA_CSWAP,
                                         expect + 1, expect, &res));
                one_wr(0, before, "a compare-and-swap");
                CHECK_RTM(rtm_rma_flush(RTM_COMM_WORLD, 0));
                if (res == expect)
                    break;
                expect = res;
            }
        }
        EXPECT_STATUS(rtm_rma_atomic(RTM_COMM_WORLD, 0, &keys[0], W_FADD + 4, RTM_RMA_FADD, 1,
                                     0, &res), RTM_ERR_INVALID_ARG);
    } else if (rank != 0) {
        /* asked for, not granted by the transport: "not available" */
        st = rtm_rma_atomic(RTM_COMM_WORLD, 0, &keys[0], W_FADD, RTM_RMA_FADD, 1, 0, &res);
        if (st != RTM_ERR_NOT_SUPPORTED)
            TH_FAIL("an atomic where none is available returned %s, expected %s (key rights "
                    "0x%x, asked 0x%x)", rtm_strerror(st), rtm_strerror(RTM_ERR_NOT_SUPPORTED),
                    keys[0].rights, keys[0].asked);
    }
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    if (rank == 0 && atomics) {
        uint64_t want = 0, got_fadd, got_cas;

        for (int r = 1; r < size; r++)
            want += (uint64_t)NFADD * ((uint64_t)r + 1);
        memcpy(&got_fadd, mem + W_FADD, 8);
        memcpy(&got_cas, mem + W_CAS, 8);
        if (got_fadd != want)
            TH_FAIL("%d ranks x %d fetch-adds: the word holds %llu, expected %llu", size - 1,
                    NFADD, (unsigned long long)got_fadd, (unsigned long long)want);
        if (got_cas != (uint64_t)NCAS * (uint64_t)(size - 1))
            TH_FAIL("CAS increments: the word holds %llu, expected %llu",
                    (unsigned long long)got_cas, (unsigned long long)NCAS * (size - 1));
        printf("vrb_rma: %d ranks: fetch-add total %llu exact, CAS total %llu exact; 1 WR per "
               "put, get, fetch-add and compare-and-swap\n", size, (unsigned long long)got_fadd,
               (unsigned long long)got_cas);
    }
    /* rights: read-write without atomics, and read-only */
    CHECK_RTM(rtm_rma_expose(RTM_COMM_WORLD, mem, SLOT, RTM_RMA_READ | RTM_RMA_WRITE, &reg_rw));
    swap_keys(reg_rw, keys, 0);
    EXPECT_STATUS(rtm_rma_atomic(RTM_COMM_WORLD, right, &keys[right], 0, RTM_RMA_FADD, 1, 0,
                                 &res), RTM_ERR_INVALID_ARG);
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    CHECK_RTM(rtm_rma_expose(RTM_COMM_WORLD, ro, SLOT, RTM_RMA_READ, &reg_ro));
    swap_keys(reg_ro, keys, 0);
    EXPECT_STATUS(rtm_rma_put(RTM_COMM_WORLD, right, &keys[right], 0, buf, 8),
                  RTM_ERR_INVALID_ARG);
    CHECK_RTM(rtm_rma_get(RTM_COMM_WORLD, right, &keys[right], 0, buf, SLOT));
    CHECK_RTM(rtm_rma_flush(RTM_COMM_WORLD, right));
    itest_check(buf, SLOT, 100 + (uint32_t)right, "data read through a read-only key");
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    CHECK_RTM(rtm_rma_revoke(&reg_ro));
    CHECK_RTM(rtm_rma_revoke(&reg_rw));
    CHECK_RTM(rtm_rma_revoke(&reg));
    EXPECT_STATUS(rtm_rma_revoke(&reg), RTM_ERR_INVALID_ARG);
    free(keys);
    free(buf);
    free(mem);
    return itest_finish();
}

/* vrb_rma fadd N (2 ranks): rank 1 does N fetch-adds on rank 0's word, one
 * flush, between two barriers, for counting work requests at the device
 * (SOFTIB_STATS send_wr, against N = 0). */
static int mode_fadd(long n)
{
    uint64_t *word = itest_malloc(64), res = 0;
    rtm_rma_key_t *keys = calloc((size_t)size, sizeof(*keys));
    rtm_rma_region_t reg;

    if (keys == NULL)
        TH_FAIL("calloc");
    memset(word, 0, 64);
    CHECK_RTM(rtm_rma_expose(RTM_COMM_WORLD, word, 64, RTM_RMA_ATOMIC, &reg));
    swap_keys(reg, keys, 0);
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    if (rank == 1) {
        for (long i = 0; i < n; i++)
            CHECK_RTM(rtm_rma_atomic(RTM_COMM_WORLD, 0, &keys[0], 0, RTM_RMA_FADD, 1, 0, &res));
        CHECK_RTM(rtm_rma_flush(RTM_COMM_WORLD, 0));
    }
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    if (rank == 0 && word[0] != (uint64_t)n)
        TH_FAIL("%ld fetch-adds left %llu", n, (unsigned long long)word[0]);
    CHECK_RTM(rtm_rma_revoke(&reg));
    free(keys);
    free(word);
    return itest_finish();
}

/* vrb_rma gets N (2 ranks): rank 1 reads rank 0's region N times (1000 B
 * each, a flush after every 8), checking the data; the transport's debug
 * line at close says how many transfer states its gets took (a pool: at
 * most a chunk for 8 in flight, where each get allocated one before). */
static int mode_gets(long n)
{
    char *mem = itest_malloc(SLOT), *buf = itest_malloc(SLOT);
    rtm_rma_key_t *keys = calloc((size_t)size, sizeof(*keys));
    rtm_rma_region_t reg;

    if (keys == NULL)
        TH_FAIL("calloc");
    itest_fill(mem, SLOT, 55);
    CHECK_RTM(rtm_rma_expose(RTM_COMM_WORLD, mem, SLOT, RTM_RMA_READ, &reg));
    swap_keys(reg, keys, 0);
    if (rank == 1) {
        for (long i = 0; i < n; i++) {
            size_t off = (size_t)(i % 60) * 1000;

            CHECK_RTM(rtm_rma_get(RTM_COMM_WORLD, 0, &keys[0], off, buf + off, 1000));
            if (i % 8 == 7 || i == n - 1)
                CHECK_RTM(rtm_rma_flush(RTM_COMM_WORLD, 0));
        }
        itest_check(buf, n >= 60 ? 60000 : (size_t)n * 1000, 55, "data read by get");
    }
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    CHECK_RTM(rtm_rma_revoke(&reg));
    free(keys);
    free(buf);
    free(mem);
    return itest_finish();
}

/* A rank that must not write rank 0's region: it receives a key from rank
 * `from`, says what it does, and puts with it; the target must refuse and
 * end the job, so returning from the flush is a failure. */
static void put_with_leaked_key(int from, char v, const char *what)
{
    unsigned char blob[RTM_RMA_KEY_MAX];
    rtm_msg_status_t st;
    rtm_rma_key_t key;

    CHECK_RTM(rtm_recv(blob, sizeof(blob), from, TAG_KEY, RTM_COMM_WORLD, &st));
    CHECK_RTM(rtm_rma_key_unpack(RTM_COMM_WORLD, 0, blob, st.count, &key));
    printf("vrb_rma: rank %d %s\n", rank, what);
    CHECK_RTM(rtm_rma_put(RTM_COMM_WORLD, 0, &key, 0, &v, 1));
    CHECK_RTM(rtm_rma_flush(RTM_COMM_WORLD, 0));
    TH_FAIL("a put completed: rank %d %s", rank, what);
}

/* The ranks not failing wait: the job must end from the failed rank's
 * error. */
static void wait_for_the_end(const char *mode)
{
    for (double end = itest_now() + 30; itest_now() < end;)
        rtm_progress();
    TH_FAIL("the job should have ended by now (%s)", mode);
}

/* Fault modes: the operation at the end must never complete. */
static int mode_fault(const char *mode)
{
    char *mem = itest_malloc(REGION);
    unsigned char blob[RTM_RMA_KEY_MAX];
    rtm_rma_region_t reg = NULL, other = NULL;
    rtm_rma_key_t key;
    rtm_msg_status_t st;
    uint64_t res = 0;
    size_t len = sizeof(blob);
    char sync = 1;
    unsigned rights = strcmp(mode, "forged") == 0 ? RTM_RMA_READ | RTM_RMA_WRITE :
                      RTM_RMA_READ | RTM_RMA_WRITE | RTM_RMA_ATOMIC;

    memset(mem, 0, REGION);
    /* forged: another region with atomics first, so the QP admits atomics
     * and only the region's own window or MR can refuse the forged one */
    if (!strcmp(mode, "forged"))
        CHECK_RTM(rtm_rma_expose(RTM_COMM_WORLD, mem + SLOT, 64, RTM_RMA_READ | RTM_RMA_ATOMIC,
                                 &other));
    CHECK_RTM(rtm_rma_expose(RTM_COMM_WORLD, mem, REGION - SLOT, rights, &reg));
    if (rank == 0) {
        CHECK_RTM(rtm_rma_key_pack(reg, 1, blob, &len));
        CHECK_RTM(rtm_send(blob, len, 1, TAG_KEY, RTM_COMM_WORLD));
        if (!strcmp(mode, "revoked")) {
            CHECK_RTM(rtm_recv(&sync, 1, 1, TAG_SYNC, RTM_COMM_WORLD, NULL));
            if (mem[0] != 42)
                TH_FAIL("rank 1's put before the revoke did not land");
            CHECK_RTM(rtm_rma_revoke(&reg));
            printf("vrb_rma: rank 0 revoked its region\n");
            CHECK_RTM(rtm_send(&sync, 1, 1, TAG_SYNC, RTM_COMM_WORLD));
        }
        CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));   /* the job ends in here */
    } else if (rank == 1) {
        char v = 42;

        CHECK_RTM(rtm_recv(blob, sizeof(blob), 0, TAG_KEY, RTM_COMM_WORLD, &st));
        if (!strcmp(mode, "nokey")) {
            CHECK_RTM(rtm_send(blob, st.count, 2, TAG_KEY, RTM_COMM_WORLD));   /* the leak */
            CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
        }
        CHECK_RTM(rtm_rma_key_unpack(RTM_COMM_WORLD, 0, blob, st.count, &key));
        if (!strcmp(mode, "revoked")) {
            CHECK_RTM(rtm_rma_put(RTM_COMM_WORLD, 0, &key, 0, &v, 1));
            CHECK_RTM(rtm_rma_flush(RTM_COMM_WORLD, 0));
            CHECK_RTM(rtm_send(&sync, 1, 0, TAG_SYNC, RTM_COMM_WORLD));
            CHECK_RTM(rtm_recv(&sync, 1, 0, TAG_SYNC, RTM_COMM_WORLD, NULL));
            printf("vrb_rma: rank 1 puts with the revoked key\n");
            CHECK_RTM(rtm_rma_put(RTM_COMM_WORLD, 0, &key, 0, &v, 1));
            CHECK_RTM(rtm_rma_flush(RTM_COMM_WORLD, 0));
            TH_FAIL("a put with a revoked key completed");
        }
        if (!strcmp(mode, "forged")) {
            key.rights |= RTM_RMA_ATOMIC;   /* not granted: the target must refuse */
            printf("vrb_rma: rank 1 does an atomic the region was not exposed for\n");
            CHECK_RTM(rtm_rma_atomic(RTM_COMM_WORLD, 0, &key, 0, RTM_RMA_FADD, 1, 0, &res));
            CHECK_RTM(rtm_rma_flush(RTM_COMM_WORLD, 0));
            TH_FAIL("an atomic without the atomic right completed (old value %llu)",
                    (unsigned long long)res);
        }
    } else if (rank == 2 && !strcmp(mode, "nokey")) {
        put_with_leaked_key(1, 7, "puts with a key rank 0 gave rank 1");
    }
    wait_for_the_end(mode);
    return 1;
}

/* The state letter of process pid (/proc/pid/stat), or 0. */
static char proc_state(long pid)
{
    char path[64], buf[512], *p;
    FILE *f;
    size_t n;

    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    if ((f = fopen(path, "r")) == NULL)
        return 0;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = 0;
    p = strrchr(buf, ')');
    return p != NULL && p[1] == ' ' ? p[2] : 0;
}

/* vrb_rma outsider (3 ranks, one MR per region, RTM_VERBS_MR_WRITE=1, no
 * eager RDMA rings): rank 0 exposes region A for writing to every rank
 * (their QPs get REMOTE_WRITE) and revokes it (they lose it again); then
 * exposes region B for writing to the group {0, 2} only. Rank 2 writes B
 * (its key works) and leaks the key to rank 1, outside the group, which
 * puts with it: B's MR would take the key from any QP, but rank 1's QP no
 * longer admits writes, so the target refuses (remote access error) and
 * the job ends; a put that completes prints FAIL. */
static int mode_outsider(void)
{
    char *mem = itest_malloc(REGION);
    unsigned char blob[RTM_RMA_KEY_MAX];
    rtm_rma_region_t a = NULL, b = NULL;
    rtm_comm_t sub;
    rtm_rma_key_t key;
    rtm_msg_status_t st;
    size_t len = sizeof(blob);
    char v = 9, sync = 1;

    memset(mem, 0, REGION);
    if (rank == 0) {
        CHECK_RTM(rtm_rma_expose(RTM_COMM_WORLD, mem, SLOT, RTM_RMA_READ | RTM_RMA_WRITE, &a));
        CHECK_RTM(rtm_rma_revoke(&a));
    }
    CHECK_RTM(rtm_comm_split(RTM_COMM_WORLD, rank == 1 ? 1 : 0, rank, &sub));
    if (rank == 0) {
        CHECK_RTM(rtm_rma_expose(sub, mem + SLOT, SLOT, RTM_RMA_READ | RTM_RMA_WRITE, &b));
        CHECK_RTM(rtm_rma_key_pack(b, 1, blob, &len));   /* sub rank 1: world rank 2 */
        CHECK_RTM(rtm_send(blob, len, 2, TAG_KEY, RTM_COMM_WORLD));
        CHECK_RTM(rtm_recv(&sync, 1, 2, TAG_SYNC, RTM_COMM_WORLD, NULL));
        if (mem[SLOT] != 9)
            TH_FAIL("rank 2's put (in the group) did not land");
    } else if (rank == 2) {
        CHECK_RTM(rtm_recv(blob, sizeof(blob), 0, TAG_KEY, RTM_COMM_WORLD, &st));
        CHECK_RTM(rtm_rma_key_unpack(sub, 0, blob, st.count, &key));
        CHECK_RTM(rtm_rma_put(sub, 0, &key, 0, &v, 1));
        CHECK_RTM(rtm_rma_flush(sub, 0));
        CHECK_RTM(rtm_send(&sync, 1, 0, TAG_SYNC, RTM_COMM_WORLD));
        CHECK_RTM(rtm_send(blob, st.count, 1, TAG_KEY, RTM_COMM_WORLD));   /* the leak */
    } else {
        put_with_leaked_key(2, v, "(outside the group) puts with a key rank 0 gave rank 2");
    }
    wait_for_the_end("outsider");
    return 1;
}

/* vrb_rma rndvflush (2 ranks, SOFTIB_CMA=0 so reads are answered by the
 * owner's process): rank 0 sends rank 1 a rendezvous message and stops
 * itself (SIGSTOP), so rank 1's RDMA Read of it is held back; rank 1
 * flushes rank 0, which must return (a flush waits for one-sided
 * operations only) with the receive still incomplete; then rank 1
 * continues rank 0 and the message arrives whole. */
static int mode_rndvflush(void)
{
    size_t len = (size_t)1 << 20;
    char *big = itest_malloc(len);
    long pid = (long)getpid();
    rtm_request_t req;
    int flag = 0;

    if (rank == 0) {
        itest_fill(big, len, 99);
        CHECK_RTM(rtm_send(&pid, sizeof(pid), 1, TAG_SYNC, RTM_COMM_WORLD));
        CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
        CHECK_RTM(rtm_isend(big, len, 1, TAG_KEY, RTM_COMM_WORLD, &req));   /* the RTS */
        raise(SIGSTOP);
        CHECK_RTM(rtm_wait(&req, NULL));
    } else if (rank == 1) {
        uint64_t before;

        CHECK_RTM(rtm_recv(&pid, sizeof(pid), 0, TAG_SYNC, RTM_COMM_WORLD, NULL));
        CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
        for (double end = itest_now() + 30; proc_state(pid) != 'T';)
            if (itest_now() > end)
                TH_FAIL("rank 0 (pid %ld) did not stop", pid);
        before = wrs(0);
        CHECK_RTM(rtm_irecv(big, len, 0, TAG_KEY, RTM_COMM_WORLD, &req));
        for (double end = itest_now() + 30; wrs(0) == before; rtm_progress())
            if (itest_now() > end)
                TH_FAIL("no RDMA Read of the rendezvous message was posted");
        CHECK_RTM(rtm_rma_flush(RTM_COMM_WORLD, 0));
        CHECK_RTM(rtm_test(&req, &flag, NULL));
        if (flag)
            TH_FAIL("the message arrived from a stopped rank");
        printf("vrb_rma: rank 1 flushed rank 0 with a rendezvous read from it held back\n");
        kill((pid_t)pid, SIGCONT);
        CHECK_RTM(rtm_wait(&req, NULL));
        itest_check(big, len, 99, "the rendezvous message");
    }
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    free(big);
    return itest_finish();
}

/* vrb_rma stuckbind | stuckinv (2 ranks, windows): rank 1 stops itself
 * (SIGSTOP: softib's helper thread stops too, so nothing of rank 0's is
 * acknowledged); rank 0 sends it a message, whose WR cannot complete, then
 * exposes a region to it (the bind queues behind the send) or revokes one
 * exposed before (the invalidate does). After RTM_VERBS_CONNECT_TIMEOUT the
 * job must end with the line naming the stuck bind or invalidate, without
 * freeing the window or region the queued WR names; returning from the
 * expose or revoke prints FAIL. */
static int mode_stuck(const char *mode)
{
    int inv = !strcmp(mode, "stuckinv");
    char *mem = itest_malloc(REGION);
    rtm_rma_region_t reg = NULL;
    long pid = (long)getpid();
    rtm_status_t st;
    char one = 1;

    memset(mem, 0, REGION);
    if (inv)
        CHECK_RTM(rtm_rma_expose(RTM_COMM_WORLD, mem, REGION, RTM_RMA_READ | RTM_RMA_WRITE,
                                 &reg));
    if (rank == 1) {
        CHECK_RTM(rtm_send(&pid, sizeof(pid), 0, TAG_SYNC, RTM_COMM_WORLD));
        CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
        raise(SIGSTOP);
        for (double end = itest_now() + 30; itest_now() < end;)
            rtm_progress();
        TH_FAIL("rank 1 was continued: the job should have ended (%s)", mode);
    }
    CHECK_RTM(rtm_recv(&pid, sizeof(pid), 1, TAG_SYNC, RTM_COMM_WORLD, NULL));
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    for (double end = itest_now() + 30; proc_state(pid) != 'T';)
        if (itest_now() > end)
            TH_FAIL("rank 1 (pid %ld) did not stop", pid);
    CHECK_RTM(rtm_send(&one, 1, 1, TAG_SYNC, RTM_COMM_WORLD));   /* never acknowledged */
    if (inv) {
        printf("vrb_rma: rank 0 revokes while rank 1 is stopped\n");
        st = rtm_rma_revoke(&reg);
        TH_FAIL("a revoke whose invalidate cannot complete returned %s", rtm_strerror(st));
    }
    printf("vrb_rma: rank 0 exposes while rank 1 is stopped\n");
    st = rtm_rma_expose(RTM_COMM_WORLD, mem, REGION, RTM_RMA_READ | RTM_RMA_WRITE, &reg);
    TH_FAIL("an expose whose bind cannot complete returned %s (%s)", rtm_strerror(st),
            st != RTM_OK ? rtm_last_error() : "");
    return 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ops";
    rtm_rma_region_t reg = NULL;
    rtm_rma_key_t key;
    uint64_t res;

    itest_begin("vrb_rma");
    EXPECT_STATUS(rtm_rma_expose(RTM_COMM_WORLD, &res, 8, RTM_RMA_READ, &reg),
                  RTM_ERR_NOT_INITIALIZED);
    memset(&key, 0, sizeof(key));
    EXPECT_STATUS(rtm_rma_atomic(RTM_COMM_WORLD, 0, &key, 0, RTM_RMA_FADD, 1, 0, &res),
                  RTM_ERR_NOT_INITIALIZED);
    EXPECT_STATUS(rtm_rma_flush(RTM_COMM_WORLD, 0), RTM_ERR_NOT_INITIALIZED);
    itest_init("vrb_rma");
    rank = th_rank;
    size = th_size;
    if (!strcmp(mode, "ops"))
        return mode_ops(argc > 2 ? argv[2] : "atomics");
    if (!strcmp(mode, "fadd") && argc > 2 && size == 2)
        return mode_fadd(atol(argv[2]));
    if (!strcmp(mode, "rndvflush") && size == 2)
        return mode_rndvflush();
    if (!strcmp(mode, "gets") && argc > 2 && size == 2)
        return mode_gets(atol(argv[2]));
    if ((!strcmp(mode, "stuckbind") || !strcmp(mode, "stuckinv")) && size == 2)
        return mode_stuck(mode);
    if (!strcmp(mode, "outsider") && size == 3)
        return mode_outsider();
    if ((!strcmp(mode, "nokey") && size == 3) ||
        ((!strcmp(mode, "revoked") || !strcmp(mode, "forged")) && size == 2))
        return mode_fault(mode);
    TH_FAIL("usage: vrb_rma ops [atomics|noatomics|readonly|none] | nokey (3 ranks) | revoked | forged "
            "| fadd N | gets N | rndvflush | stuckbind | stuckinv (2 ranks) | outsider (3 ranks)");
    return 1;
}
