/*
 * Micro-benchmark of the shm transport alone (no runtime): two forked
 * processes, pinned to CPUs 0 and 1 when there are two, drive rtm_tl_shm.
 *
 *   bench_shm lat [iters]          8 B (and 24 B) am_send ping-pong, half
 *                                  round trip in microseconds
 *   bench_shm floor [iters]        one shared cache line ping-pong, no
 *                                  transport: the physical floor
 *   bench_shm bw [frag]            per message size, one at a time: eager
 *                                  (one active message, copied into place,
 *                                  FIN), rendezvous copy through the rings
 *                                  (RTS, CTS, fragments of `frag` bytes the
 *                                  receiver copies into place, FIN) and
 *                                  rendezvous by CMA (RTS, one
 *                                  process_vm_readv, FIN)
 *
 * Environment: RTM_SHM_FIFO_SIZE etc. as for the library. Prints figures;
 * it is not a test.
 */
#include "config.h"

#include "transport/transport.h"
#include "transport/shm/shm_config.h"
#include "common/timer.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

enum { AM_PING = 1, AM_RTS = 2, AM_CTS = 3, AM_DATA = 4, AM_FIN = 5 };

typedef struct shared {
    _Atomic int   count;
    _Atomic int   gen;
    size_t        blob_len[2];
    unsigned char blob[2][RTM_TL_ADDR_MAX];
    uint64_t      buf_addr;    /* rank 0's source buffer, for CMA */
    int           pid0;
} shared_t;

static shared_t *sh;
static int rank;
static rtm_tl_iface_t *iface;
static rtm_tl_ep_t *ep;
static rtm_tl_caps_t caps;

/* receive state */
static volatile uint64_t got[8];
static unsigned char *dst;
static uint64_t rts_addr;

static void barrier(void)
{
    int gen = atomic_load(&sh->gen);

    if (atomic_fetch_add(&sh->count, 1) == 1) {
        atomic_store(&sh->count, 0);
        atomic_fetch_add(&sh->gen, 1);
    } else {
        while (atomic_load(&sh->gen) == gen)
            if (iface)
                rtm_tl_shm.progress(iface);
    }
}

static void am_cb(void *arg, int src, unsigned am_id, const void *data, size_t len)
{
    (void)arg;
    (void)src;
    if (am_id == AM_DATA) {
        uint64_t off;

        memcpy(&off, data, 8);
        memcpy(dst + off, (const char *)data + 16, len - 16);
    } else if (am_id == AM_RTS) {
        memcpy(&rts_addr, data, 8);
    }
    got[am_id]++;
}

/* No peer is lost in a benchmark: say so and stop. */
static void peer_failed(void *arg, int peer, rtm_status_t status, const char *msg)
{
    (void)arg;
    fprintf(stderr, "bench_shm: peer %d failed (%d): %s\n", peer, (int)status, msg);
    exit(1);
}

static void xsend(unsigned am_id, const void *hdr, size_t hdr_len, const void *p, size_t len)
{
    while (rtm_tl_shm.am_send(ep, am_id, hdr, hdr_len, p, len) == RTM_ERR_AGAIN)
        rtm_tl_shm.progress(iface);
}

/* Spin, then yield as the runtime's blocking calls do (RTM_POLL_SPIN):
 * the machine this runs on is usually shared. */
static void wait_for(unsigned am_id, uint64_t n)
{
    for (unsigned spins = 0; got[am_id] < n; spins++) {
        if (rtm_tl_shm.progress(iface) == 0 && spins > 2000)
            sched_yield();
    }
}

static void setup(const char *nspace)
{
    int peers[2] = {0, 1};
    rtm_tl_params_t params;
    size_t len = RTM_TL_ADDR_MAX;
    cpu_set_t set;

    if (sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
        CPU_ZERO(&set);
        CPU_SET(rank, &set);
        sched_setaffinity(0, sizeof(set), &set);
    }
    rtm_config_register(&shm_config_table);
    memset(&params, 0, sizeof(params));
    params.world_rank = rank;
    params.world_size = 2;
    params.local_rank = rank;
    params.local_size = 2;
    params.local_peers = peers;
    params.nspace = nspace;
    params.hostname = "bench";
    params.am_cb = am_cb;
    params.peer_failed = peer_failed;
    if (rtm_tl_shm.open(&params, &iface) != RTM_OK) {
        fprintf(stderr, "open: %s\n", rtm_last_error());
        exit(1);
    }
    rtm_tl_shm.addr_pack(iface, sh->blob[rank], &len);
    sh->blob_len[rank] = len;
    barrier();
    if (rtm_tl_shm.wireup(iface) != RTM_OK ||
        rtm_tl_shm.ep_create(iface, 1 - rank, sh->blob[1 - rank], sh->blob_len[1 - rank],
                             &ep) != RTM_OK) {
        fprintf(stderr, "wireup: %s\n", rtm_last_error());
        exit(1);
    }
    rtm_tl_shm.query(iface, &caps);
}

/* The physical floor, for comparison in the same run: one shared cache
 * line handed back and forth, no transport. */
static void bench_floor(long iters)
{
    enum { REPS = 21 };
    _Atomic uint64_t *line = (_Atomic uint64_t *)(void *)((char *)sh + 4096 - 64);
    double t[REPS];
    int cmp_double(const void *a, const void *b);

    for (int rep = 0; rep < REPS; rep++) {
        double t0;

        barrier();
        atomic_store(line, 0);
        barrier();
        t0 = rtm_time_now();
        for (uint64_t i = 0; i < (uint64_t)iters; i++) {
            if (rank == 0) {
                atomic_store_explicit(line, 2 * i + 1, memory_order_release);
                while (atomic_load_explicit(line, memory_order_acquire) != 2 * i + 2)
                    ;
            } else {
                while (atomic_load_explicit(line, memory_order_acquire) != 2 * i + 1)
                    ;
                atomic_store_explicit(line, 2 * i + 2, memory_order_release);
            }
        }
        t[rep] = (rtm_time_now() - t0) / (double)iters / 2 * 1e6;
    }
    qsort(t, REPS, sizeof(t[0]), cmp_double);
    if (rank == 0)
        printf("floor (one line, no transport): half round trip best %.3f us, median %.3f us\n",
               t[0], t[REPS / 2]);
}

int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* The machine is shared and noisy: many short runs, report best and median. */
static void bench_lat(long iters)
{
    enum { REPS = 21 };
    static const size_t sizes[] = {8, 24, 56};
    unsigned char msg[64] = {0};

    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        double t[REPS];

        for (int rep = 0; rep < REPS; rep++) {
            double t0;
            uint64_t base = got[AM_PING];

            barrier();
            t0 = rtm_time_now();
            for (long i = 0; i < iters; i++) {
                if (rank == 0) {
                    xsend(AM_PING, msg, sizes[s], NULL, 0);
                    wait_for(AM_PING, base + (uint64_t)i + 1);
                } else {
                    wait_for(AM_PING, base + (uint64_t)i + 1);
                    xsend(AM_PING, msg, sizes[s], NULL, 0);
                }
            }
            t[rep] = (rtm_time_now() - t0) / (double)iters / 2 * 1e6;
        }
        qsort(t, REPS, sizeof(t[0]), cmp_double);
        if (rank == 0)
            printf("lat %3zu B: half round trip best %.3f us, median %.3f us (%d runs of %ld)\n",
                   sizes[s], t[0], t[REPS / 2], REPS, iters);
    }
}

static void bench_bw(size_t frag)
{
    static const size_t sizes[] = {4096, 8192, 16384, 32768, 65536, 131072, 262144,
                                   524288, 1 << 20, 4 << 20, 16 << 20, 64 << 20};
    size_t max = 64 << 20;
    unsigned char *src = aligned_alloc(4096, max);

    dst = aligned_alloc(4096, max);
    memset(src, 1, max);
    memset(dst, 2, max);
    if (frag == 0 || frag > caps.am_max - 16)
        frag = caps.am_max - 16;
    if (rank == 0) {
        sh->buf_addr = (uint64_t)(uintptr_t)src;
        sh->pid0 = getpid();
        printf("bw: fragments of %zu B, rings of %zu B; best of 7 runs each, GB/s, one message at a time\n",
               frag, shm_config.fifo_size);
        printf("%10s %10s %10s %10s   (GB/s)\n", "size", "eager", "rndv copy", "rndv CMA");
    }
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t size = sizes[s];
        long iters = (long)((size_t)32 << 20) / (long)size;
        double best[3] = {1e30, 1e30, 1e30};

        if (iters > 20000)
            iters = 20000;
        if (iters < 4)
            iters = 4;
        /* interleave the paths so that all see the same background load */
        for (int rep = 0; rep < 21; rep++) {
            int mode = rep % 3;   /* 0 eager, 1 rendezvous copy, 2 CMA */
            uint64_t base_rts = got[AM_RTS], base_cts = got[AM_CTS], base_fin = got[AM_FIN];
            uint64_t base_data = got[AM_DATA];
            double t0;

            if (mode == 0 && size > frag)
                continue;
            barrier();
            t0 = rtm_time_now();
            for (long i = 0; i < iters; i++) {
                uint64_t hdr[2] = {0, 0};

                if (rank == 0) {
                    if (mode == 0) {
                        xsend(AM_DATA, hdr, 16, src, size);
                    } else {
                        hdr[0] = (uint64_t)(uintptr_t)src;
                        xsend(AM_RTS, hdr, 16, NULL, 0);
                    }
                    if (mode == 1) {
                        wait_for(AM_CTS, base_cts + (uint64_t)i + 1);
                        for (size_t off = 0; off < size; off += frag) {
                            size_t n = size - off < frag ? size - off : frag;

                            hdr[0] = off;
                            xsend(AM_DATA, hdr, 16, src + off, n);
                        }
                    }
                    wait_for(AM_FIN, base_fin + (uint64_t)i + 1);
                } else {
                    if (mode == 0) {
                        wait_for(AM_DATA, base_data + (uint64_t)i + 1);
                    } else if (mode == 1) {
                        uint64_t want;

                        wait_for(AM_RTS, base_rts + (uint64_t)i + 1);
                        want = got[AM_DATA] + (size + frag - 1) / frag;
                        xsend(AM_CTS, hdr, 16, NULL, 0);
                        wait_for(AM_DATA, want);
                    } else {
                        struct iovec l = {dst, size};
                        struct iovec r;

                        wait_for(AM_RTS, base_rts + (uint64_t)i + 1);
                        r.iov_base = (void *)(uintptr_t)rts_addr;
                        r.iov_len = size;
                        if (process_vm_readv(sh->pid0, &l, 1, &r, 1, 0) != (ssize_t)size) {
                            perror("process_vm_readv");
                            exit(1);
                        }
                    }
                    xsend(AM_FIN, hdr, 8, NULL, 0);
                }
            }
            if (rtm_time_now() - t0 < best[mode])
                best[mode] = rtm_time_now() - t0;
        }
        if (rank == 0) {
            char eager[32] = "-";

            if (best[0] < 1e30)
                snprintf(eager, sizeof(eager), "%.2f", (double)size * (double)iters / best[0] / 1e9);
            printf("%10zu %10s %10.2f %10.2f\n", size, eager,
                   (double)size * (double)iters / best[1] / 1e9,
                   (double)size * (double)iters / best[2] / 1e9);
        }
    }
    free(src);
    free(dst);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "lat";
    char nspace[64];
    pid_t child;
    int st;

    sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        return 1;
    memset(sh, 0, 4096);
    snprintf(nspace, sizeof(nspace), "bench.%d", (int)getpid());
    setvbuf(stdout, NULL, _IOLBF, 0);
    child = fork();
    rank = child == 0 ? 1 : 0;
    setup(nspace);
    if (strcmp(mode, "floor") == 0)
        bench_floor(argc > 2 ? atol(argv[2]) : 100000);
    else if (strcmp(mode, "bw") == 0)
        bench_bw(argc > 2 ? (size_t)atol(argv[2]) : 0);
    else
        bench_lat(argc > 2 ? atol(argv[2]) : 100000);
    barrier();
    rtm_tl_shm.close(iface);
    if (child == 0)
        _exit(0);
    waitpid(child, &st, 0);
    return 0;
}
