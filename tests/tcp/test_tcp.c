/*
 * The tcp transport driven directly through rtm_tl_tcp by 2-4 forked
 * processes on 127.0.0.1 (no runtime, no PMIx: address blobs are exchanged
 * through a shared page, a counter barrier stands in for the fence):
 *   - interface selection (RTM_TCP_IF parsing, loopback only on one host)
 *   - argument checks
 *   - message sizes 0..am_max (every size near the ends), byte-checked, in
 *     order, late receiver so the sender sees RTM_ERR_AGAIN
 *   - a flood against a slow receiver: AGAIN, nothing lost or reordered
 *   - simultaneous connects (both sides send first, many rounds; 4 ranks
 *     all to all), one connection per pair, no loss, orderly close
 *   - a peer killed: the survivor gets RTM_ERR_TRANSPORT naming the rank
 */
#include "config.h"

#include "transport/tcp/tcp.h"
#include "common/error.h"
#include "transport/tcp/tcp_config.h"
#include "tests/harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NPROC_MAX 4

typedef struct shared {
    _Atomic int   barrier_count;
    _Atomic int   barrier_gen;
    _Atomic int   flag;
    size_t        blob_len[NPROC_MAX];
    unsigned char blob[NPROC_MAX][RTM_TL_ADDR_MAX];
} shared_t;

static shared_t *S;
static int nprocs;

enum { AM_SIZED = 1, AM_SEQ = 2 };

static struct {
    rtm_tl_iface_t *iface;
    rtm_tl_ep_t    *ep[NPROC_MAX];
    rtm_tl_caps_t   caps;
    uint64_t        next_size;
    uint64_t        seq_next[NPROC_MAX];
    int             in_cb;
} T;

static unsigned char pat[2 * TCP_AM_MAX];   /* pat[i] = i * 7 + 1 */

static size_t next_size(size_t size);

static void am_cb(void *arg, int src, unsigned am_id, const void *data, size_t len)
{
    const unsigned char *p = data;

    (void)arg;
    CHECK(!T.in_cb, "am_cb re-entered");
    CHECK(src >= 0 && src < nprocs && src != th_rank, "bad source %d", src);
    CHECK(((uintptr_t)data & 7) == 0, "data %p not 8-byte aligned", data);
    T.in_cb = 1;
    switch (am_id) {
    case AM_SIZED:
        CHECK(len == T.next_size, "message %llu arrived with %zu bytes (lost or reordered)",
              (unsigned long long)T.next_size, len);
        /* byte i of a message of size s is pat[i + s % 251] */
        CHECK(memcmp(p, pat + len % 251, len) == 0, "size %zu: payload differs", len);
        T.next_size = next_size(T.next_size);
        break;
    case AM_SEQ: {
        uint64_t seq;

        CHECK(len >= 8, "AM_SEQ of %zu bytes", len);
        memcpy(&seq, p, 8);
        CHECK(seq == T.seq_next[src], "from %d: seq %llu, expected %llu (lost or reordered)",
              src, (unsigned long long)seq, (unsigned long long)T.seq_next[src]);
        CHECK(memcmp(p + 8, pat + seq % 251, len - 8) == 0, "from %d seq %llu: payload differs",
              src, (unsigned long long)seq);
        T.seq_next[src]++;
        break;
    }
    default:
        CHECK(0, "unknown am_id %u", am_id);
    }
    T.in_cb = 0;
}

static void barrier(int progress)
{
    int gen = atomic_load(&S->barrier_gen);

    if (atomic_fetch_add(&S->barrier_count, 1) == nprocs - 1) {
        atomic_store(&S->barrier_count, 0);
        atomic_fetch_add(&S->barrier_gen, 1);
    } else {
        while (atomic_load(&S->barrier_gen) == gen) {
            if (progress)
                rtm_tl_tcp.progress(T.iface);
            else
                sched_yield();
        }
    }
}

static int failed_calls, failed_peer = -1;

static void peer_failed(void *arg, int peer, rtm_status_t status, const char *msg)
{
    (void)arg;
    CHECK(status == RTM_ERR_TRANSPORT && strstr(msg, "lost") != NULL,
          "peer_failed(%d, %d, %s)", peer, (int)status, msg);
    failed_calls++;
    failed_peer = peer;
}

static void fill_params(rtm_tl_params_t *params, int local_size)
{
    static int peers[NPROC_MAX] = {0, 1, 2, 3};

    memset(params, 0, sizeof(*params));
    params->world_rank = th_rank;
    params->world_size = nprocs;
    params->local_rank = th_rank;
    params->local_size = local_size;
    params->local_peers = peers;
    params->nspace = "test.tcp";
    params->hostname = "testhost";
    params->am_cb = am_cb;
    params->peer_failed = peer_failed;
}

/* open, publish, "fence", endpoints to everyone (no connection yet) */
static void tsetup(void)
{
    rtm_tl_params_t params;
    size_t len = RTM_TL_ADDR_MAX;

    memset(&T, 0, sizeof(T));
    CHECK(rtm_config_register(&tcp_config_table) == RTM_OK, "%s", rtm_last_error());
    fill_params(&params, nprocs);
    CHECK(rtm_tl_tcp.open(&params, &T.iface) == RTM_OK, "open: %s", rtm_last_error());
    CHECK(rtm_tl_tcp.addr_pack(T.iface, S->blob[th_rank], &len) == RTM_OK, "%s", rtm_last_error());
    S->blob_len[th_rank] = len;
    barrier(0);
    for (int p = 0; p < nprocs; p++) {
        if (p == th_rank)
            continue;
        CHECK(rtm_tl_tcp.reachable(T.iface, p, S->blob[p], S->blob_len[p]), "peer %d", p);
        CHECK(rtm_tl_tcp.ep_create(T.iface, p, S->blob[p], S->blob_len[p], &T.ep[p]) == RTM_OK,
              "ep_create %d: %s", p, rtm_last_error());
    }
    rtm_tl_tcp.query(T.iface, &T.caps);
}

static void tteardown(void)
{
    barrier(1);
    for (int p = 0; p < nprocs; p++)
        if (T.ep[p] != NULL)
            rtm_tl_tcp.ep_destroy(T.ep[p]);
    rtm_tl_tcp.close(T.iface);
}

static unsigned long send_retry(int peer, unsigned am_id, const void *hdr, size_t hdr_len,
                                const void *payload, size_t len)
{
    unsigned long again = 0;
    rtm_status_t st;

    while ((st = rtm_tl_tcp.am_send(T.ep[peer], am_id, hdr, hdr_len, payload, len)) ==
           RTM_ERR_AGAIN) {
        again++;
        atomic_store(&S->flag, 1);   /* a late receiver may start reading now */
        rtm_tl_tcp.progress(T.iface);
    }
    CHECK(st == RTM_OK, "am_send of %zu+%zu B: %s", hdr_len, len, rtm_last_error());
    return again;
}

static void msleep(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

static int run(const char *name, int n, void (*body)(void), unsigned expect_killed)
{
    pid_t pids[NPROC_MAX];
    int failed = 0;

    nprocs = n;
    memset(S, 0, sizeof(*S));
    fflush(NULL);
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            th_rank = i;
            alarm(60);
            body();
            exit(0);
        }
    }
    for (int i = 0; i < n; i++) {
        int st;

        waitpid(pids[i], &st, 0);
        if ((expect_killed >> i) & 1) {
            if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) {
                fprintf(stderr, "FAIL %s: rank %d should have died by SIGKILL\n", name, i);
                failed = 1;
            }
        } else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "FAIL %s: rank %d %s %d\n", name, i,
                    WIFSIGNALED(st) ? "died by signal" : "exited with",
                    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            failed = 1;
        }
    }
    printf("%s %s\n", failed ? "FAIL" : "ok  ", name);
    fflush(stdout);
    return failed;
}

/* --- interface selection ------------------------------------------------ */

static void body_ifsel(void)
{
    struct in_addr lo, ten;
    rtm_tl_params_t params;
    rtm_tl_iface_t *iface;
    char desc[512];

    inet_pton(AF_INET, "127.0.0.1", &lo);
    inet_pton(AF_INET, "10.1.2.3", &ten);
    CHECK(tcp_if_entry_match("lo", 2, "lo", lo) == 1, "name");
    CHECK(tcp_if_entry_match("eth0", 4, "lo", lo) == 0, "other name");
    CHECK(tcp_if_entry_match("10.0.0.0/8", 10, "eth0", ten) == 1, "cidr");
    CHECK(tcp_if_entry_match("10.2.0.0/16", 11, "eth0", ten) == 0, "cidr mismatch");
    CHECK(tcp_if_entry_match("0.0.0.0/0", 9, "eth0", ten) == 1, "/0");
    CHECK(tcp_if_entry_match("10.0.0.0/33", 11, "eth0", ten) < 0, "/33 accepted");
    CHECK(tcp_if_entry_match("10.0.0/8x", 9, "eth0", ten) < 0, "junk accepted");
    CHECK(tcp_if_entry_match("10.1.2.3", 8, "eth0", ten) < 0, "bare address accepted");

    nprocs = 2;
    th_rank = 0;
    /* one host, default: loopback only */
    unsetenv("RTM_TCP_IF");
    CHECK(rtm_config_register(&tcp_config_table) == RTM_OK, "%s", rtm_last_error());
    fill_params(&params, 2);
    CHECK(rtm_tl_tcp.open(&params, &iface) == RTM_OK, "open: %s", rtm_last_error());
    rtm_tl_tcp.describe(iface, desc, sizeof(desc));
    CHECK(strstr(desc, "127.0.0.1") != NULL, "describe: %s", desc);
    printf("    %s\n", desc);
    rtm_tl_tcp.close(iface);
    rtm_tl_tcp.describe(NULL, desc, sizeof(desc));
    printf("    %s\n", desc);

    setenv("RTM_TCP_IF", "127.0.0.0/8", 1);
    CHECK(rtm_config_register(&tcp_config_table) == RTM_OK, "%s", rtm_last_error());
    CHECK(rtm_tl_tcp.open(&params, &iface) == RTM_OK, "open: %s", rtm_last_error());
    rtm_tl_tcp.close(iface);

    setenv("RTM_TCP_IF", "lo,10.0.0.0/99", 1);
    CHECK(rtm_config_register(&tcp_config_table) == RTM_OK, "%s", rtm_last_error());
    CHECK(rtm_tl_tcp.open(&params, &iface) == RTM_ERR_INVALID_ARG, "bad CIDR accepted");
    CHECK(strstr(rtm_last_error(), "10.0.0.0/99") != NULL, "error: %s", rtm_last_error());

    setenv("RTM_TCP_IF", "nosuchif0", 1);
    CHECK(rtm_config_register(&tcp_config_table) == RTM_OK, "%s", rtm_last_error());
    CHECK(rtm_tl_tcp.open(&params, &iface) == RTM_ERR_UNREACHABLE, "nosuchif0 accepted");
    printf("    RTM_TCP_IF=nosuchif0: %s\n", rtm_last_error());

    /* two hosts: loopback never */
    setenv("RTM_TCP_IF", "lo", 1);
    CHECK(rtm_config_register(&tcp_config_table) == RTM_OK, "%s", rtm_last_error());
    fill_params(&params, 1);
    CHECK(rtm_tl_tcp.open(&params, &iface) == RTM_ERR_UNREACHABLE,
          "loopback used in a multi-host job");
    unsetenv("RTM_TCP_IF");
}

/* --- argument checks, every size ---------------------------------------- */

/* Every size where framing can go wrong (0..8 KiB: every padding, every
 * split of a frame across reads; the last 4 KiB up to am_max), and a prime
 * stride in between: 0.3 GB instead of the 2.1 GB of all 65537 sizes. */
static size_t next_size(size_t size)
{
    if (size < 8192 || size >= TCP_AM_MAX - 4096)
        return size + 1;
    return size + 97 < TCP_AM_MAX - 4096 ? size + 97 : TCP_AM_MAX - 4096;
}

static void body_every_size(void)
{
    static unsigned char buf[TCP_AM_MAX];
    unsigned long again = 0;
    struct timespec t0, t1;

    tsetup();
    CHECK(T.caps.am_max == TCP_AM_MAX, "am_max %zu", T.caps.am_max);
    CHECK(!(T.caps.flags & (RTM_TL_CAP_GET | RTM_TL_CAP_LOCAL)), "flags %#x", T.caps.flags);
    CHECK(T.caps.eager_limit + 64 <= T.caps.am_max, "eager %zu", T.caps.eager_limit);
    if (th_rank == 0) {
        size_t len = 8;
        unsigned char small[8];

        CHECK(rtm_tl_tcp.am_send(T.ep[1], AM_SIZED, NULL, 0, buf, TCP_AM_MAX + 1) ==
              RTM_ERR_INVALID_ARG, "oversized am_send accepted");
        CHECK(rtm_tl_tcp.am_send(T.ep[1], RTM_TL_AM_ID_MAX, NULL, 0, buf, 1) ==
              RTM_ERR_INVALID_ARG, "am_id too large accepted");
        CHECK(rtm_tl_tcp.addr_pack(T.iface, small, &len) == RTM_ERR_INVALID_ARG, "tiny addr_pack");
        CHECK(!rtm_tl_tcp.reachable(T.iface, 0, S->blob[0], S->blob_len[0]), "reaches itself");
        CHECK(!rtm_tl_tcp.reachable(T.iface, 1, NULL, 0), "reaches without address");
        CHECK(!rtm_tl_tcp.reachable(T.iface, 1, S->blob[1], 40), "short address");
        CHECK(!rtm_tl_tcp.reachable(T.iface, 1, S->blob[0], S->blob_len[0]), "wrong rank's blob");

        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (size_t size = 0; size <= TCP_AM_MAX; size = next_size(size)) {
            size_t hdr_len = size < 48 ? size / 2 : 40;

            /* header and payload from separate buffers, like the runtime */
            memcpy(buf, pat + size % 251, hdr_len);
            again += send_retry(1, AM_SIZED, buf, hdr_len, pat + size % 251 + hdr_len,
                                size - hdr_len);
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        atomic_store(&S->flag, 1);
        CHECK(again > 0, "never saw RTM_ERR_AGAIN with a late receiver");
        printf("    rank 0: messages of 0..%u B in %.2f s, %lu AGAIN retries\n", TCP_AM_MAX,
               (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, again);
    } else {
        /* late: no reading until the sender has met a full socket (or sent
         * everything without, which fails above), however fast it runs */
        while (!atomic_load(&S->flag))
            msleep(1);
        while (T.next_size <= TCP_AM_MAX)
            rtm_tl_tcp.progress(T.iface);
    }
    tteardown();
}

/* --- flood against a slow receiver -------------------------------------- */

static void body_flood(void)
{
    enum { M = 300000 };
    static unsigned char buf[4096];
    unsigned long again = 0;

    /* from the higher rank to the lower: its connection waits for the ACK
     * before any data, with the flood already queued behind it */
    tsetup();
    if (th_rank == 1) {
        for (uint64_t seq = 0; seq < M; seq++) {
            size_t len = 8 + (seq * 37) % ((seq % 100) == 0 ? 4000 : 120);

            memcpy(buf, &seq, 8);
            again += send_retry(0, AM_SEQ, buf, 8, pat + seq % 251, len - 8);
        }
        atomic_store(&S->flag, 1);
        CHECK(again > 0, "never saw RTM_ERR_AGAIN");
        printf("    rank 1: %d messages to rank 0, %lu AGAIN retries\n", M, again);
    } else {
        uint64_t polls = 0;

        /* the flood meets a full socket before the first read, on a fast
         * machine or a slow one; then the reads stay slow */
        while (!atomic_load(&S->flag))
            msleep(1);
        while (T.seq_next[1] < M) {
            rtm_tl_tcp.progress(T.iface);
            if (++polls % 100 == 0)
                msleep(1);   /* slow receiver */
        }
    }
    tteardown();
}

/* --- simultaneous connects ---------------------------------------------- */

static void body_simultaneous(void)
{
    enum { ROUNDS = 40, M = 200 };
    static unsigned char buf[2048];
    unsigned long refused = 0, replaced = 0;

    for (int round = 0; round < ROUNDS; round++) {
        int done;
        uint64_t sent[NPROC_MAX] = {0};

        tsetup();
        barrier(0);   /* everyone sends first, at once: every pair connects both ways */
        do {
            done = 1;
            for (int p = 0; p < nprocs; p++) {
                if (p == th_rank)
                    continue;
                if (sent[p] < M) {
                    uint64_t seq = sent[p];
                    size_t len = 8 + (seq * 13 + (uint64_t)round) % 1500;
                    rtm_status_t st;

                    memcpy(buf, &seq, 8);
                    st = rtm_tl_tcp.am_send(T.ep[p], AM_SEQ, buf, 8, pat + seq % 251, len - 8);
                    CHECK(st == RTM_OK || st == RTM_ERR_AGAIN, "to %d: %s", p, rtm_last_error());
                    if (st == RTM_OK)
                        sent[p]++;
                    done = 0;
                }
                if (T.seq_next[p] < M)
                    done = 0;
            }
            rtm_tl_tcp.progress(T.iface);
        } while (!done);
        /* exactly one connection per pair survives */
        for (int p = 0; p < nprocs; p++) {
            if (p == th_rank)
                continue;
            CHECK(tcp_ep_of(T.ep[p])->state == TCP_CONN_UP, "round %d: to %d state %d", round, p,
                  tcp_ep_of(T.ep[p])->state);
        }
        refused += ((tcp_iface_t *)(void *)T.iface)->stat_refused;
        replaced += ((tcp_iface_t *)(void *)T.iface)->stat_replaced;
        tteardown();
    }
    printf("    rank %d: %lu connections refused (as the lower rank), %lu own attempts "
           "replaced (as the higher)\n", th_rank, refused, replaced);
    /* both sides connected first: the race must have happened, or this
     * test did not test it */
    if (th_rank == 0)
        CHECK(refused > 0, "rank 0 never refused a simultaneous connection in %d rounds", ROUNDS);
    if (th_rank == nprocs - 1)
        CHECK(replaced > 0, "rank %d never replaced its own attempt in %d rounds", th_rank, ROUNDS);
}

/* --- a peer killed ------------------------------------------------------ */

static void body_killed(int sender_side)
{
    static unsigned char buf[TCP_AM_MAX];
    rtm_status_t st = RTM_OK;
    uint64_t seq = 0;

    tsetup();
    if (th_rank == 1) {
        /* take a few messages, then die without a word */
        while (T.seq_next[0] < 100)
            rtm_tl_tcp.progress(T.iface);
        atomic_store(&S->flag, 1);
        raise(SIGKILL);
    }
    while (st == RTM_OK || st == RTM_ERR_AGAIN) {
        if (sender_side || seq < 100) {
            memcpy(buf, &seq, 8);
            st = rtm_tl_tcp.am_send(T.ep[1], AM_SEQ, buf, 8, pat + seq % 251,
                                    sender_side ? 1000 : 0);
            if (st == RTM_OK)
                seq++;
        } else if (atomic_load(&S->flag)) {
            /* receiving side: the failure is found by progress alone, then
             * reported by the next send */
            for (int i = 0; i < 1000; i++)
                rtm_tl_tcp.progress(T.iface);
            msleep(1);
            st = rtm_tl_tcp.am_send(T.ep[1], AM_SEQ, buf, 8, NULL, 0);
            continue;
        }
        rtm_tl_tcp.progress(T.iface);
    }
    CHECK(st == RTM_ERR_TRANSPORT, "am_send returned %d: %s", (int)st, rtm_last_error());
    CHECK(strstr(rtm_last_error(), "rank 0 (testhost)") != NULL &&
          strstr(rtm_last_error(), "rank 1 (testhost)") != NULL &&
          strstr(rtm_last_error(), "lost") != NULL, "error: %s", rtm_last_error());
    printf("    rank 0 after %llu messages: %s\n", (unsigned long long)seq, rtm_last_error());
    CHECK(failed_calls == 1 && failed_peer == 1,
          "the runtime was told once that rank 1 is lost (%d calls, peer %d)", failed_calls,
          failed_peer);
    /* stays failed, and close does not hang on the dead peer */
    CHECK(rtm_tl_tcp.am_send(T.ep[1], AM_SEQ, buf, 8, NULL, 0) == RTM_ERR_TRANSPORT, "again");
    rtm_tl_tcp.close(T.iface);
}

static void body_killed_send(void)
{
    body_killed(1);
}

static void body_killed_recv(void)
{
    body_killed(0);
}

int main(void)
{
    int failed = 0;

    for (size_t i = 0; i < sizeof(pat); i++)
        pat[i] = (unsigned char)(i * 7 + 1);
    S = mmap(NULL, sizeof(*S), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (S == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    /* the error lines of the killed tests are expected; keep them visible */
    unsetenv("RTM_TCP_IF");
    failed |= run("interface selection (RTM_TCP_IF)", 1, body_ifsel, 0);
    failed |= run("sizes 0..am_max, late receiver", 2, body_every_size, 0);
    failed |= run("flood from the higher rank, slow receiver: AGAIN, no loss", 2, body_flood, 0);
    failed |= run("simultaneous connects, 2 ranks x 40 rounds", 2, body_simultaneous, 0);
    failed |= run("simultaneous connects, 4 ranks all to all x 40 rounds", 4, body_simultaneous,
                  0);
    failed |= run("peer killed while we send", 2, body_killed_send, 1u << 1);
    failed |= run("peer killed while we only receive", 2, body_killed_recv, 1u << 1);
    munmap(S, sizeof(*S));
    return failed ? 1 : 0;
}
