/*
 * The stale-registration test (issue 5): rank 0 sends rendezvous messages
 * to rank 1 from a buffer, then frees or remaps that buffer, gets new
 * memory at the same address with different content and sends again; rank 1
 * must receive the new content. Rank 1 does the same to the buffer it
 * receives into, so both sides' registrations are put to the test.
 *
 * Each round sends twice from the old buffer (the second send finds the
 * registration in the cache), changes the memory, sends once more:
 *   munmap+mmap      munmap, then mmap at the same address
 *   map_fixed        mmap MAP_FIXED over the live buffer
 *   mremap           mremap the pages elsewhere, mmap new ones in place
 *   dontneed         madvise(MADV_DONTNEED): fresh zero pages, refilled
 *   malloc           free + malloc of the same size (glibc: mmapped chunk),
 *                    used only when it returns the same address
 *   brk              sbrk(+n) / sbrk(-n) / sbrk(+n), when nothing else moved
 *                    the break meanwhile
 * On softib run with SOFTIB_PIN=1: an MR then keeps the pages it had, as on
 * an HCA, so a stale registration delivers the old bytes and is caught.
 */
#include "config.h"

#include "rtmsg.h"
#include "../integration/itest.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define MSG_LEN ((size_t)(256 * 1024 + 100))    /* rendezvous; not page-sized */
#define MAP_LEN ((size_t)(256 * 1024 + 4096))

static int rank;
static uint32_t seed = 1;

static void *map_at(void *addr)
{
    void *p = mmap(addr, MAP_LEN, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | (addr != NULL ? MAP_FIXED : 0), -1, 0);

    if (p == MAP_FAILED || (addr != NULL && p != addr))
        TH_FAIL("mmap at %p failed", addr);
    return p;
}

/* One message: rank 0 sends buf filled with `s`, rank 1 receives into buf
 * and checks it. */
static void xfer(void *buf, uint32_t s, const char *what)
{
    if (rank == 0) {
        itest_fill(buf, MSG_LEN, s);
        CHECK_RTM(rtm_send(buf, MSG_LEN, 1, (int)s, RTM_COMM_WORLD));
    } else {
        rtm_msg_status_t st;
        char label[128];

        memset(buf, 0xee, MSG_LEN);
        CHECK_RTM(rtm_recv(buf, MSG_LEN, 0, (int)s, RTM_COMM_WORLD, &st));
        CHECK(st.count == MSG_LEN, "%s: received %zu bytes, expected %zu", what,
               (size_t)st.count, MSG_LEN);
        snprintf(label, sizeof(label), "%s (seed %u)", what, s);
        itest_check(buf, MSG_LEN, s, label);
    }
}

/* Twice from the buffer as it is, so its registration is cached. */
static void warm(void *buf, const char *what)
{
    xfer(buf, seed++, what);
    xfer(buf, seed++, what);
}

static void round_mmap(int how, const char *what)
{
    char *buf = map_at(NULL);

    warm(buf, what);
    switch (how) {
    case 0:     /* munmap + mmap */
        if (munmap(buf, MAP_LEN) != 0)
            TH_FAIL("munmap");
        map_at(buf);
        break;
    case 1:     /* MAP_FIXED over the live mapping */
        map_at(buf);
        break;
    case 2: {   /* mremap away, new pages in place */
        void *away = mmap(NULL, MAP_LEN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        if (away == MAP_FAILED ||
            mremap(buf, MAP_LEN, MAP_LEN, MREMAP_MAYMOVE | MREMAP_FIXED, away) != away)
            TH_FAIL("mremap");
        map_at(buf);
        munmap(away, MAP_LEN);
        break;
    }
    case 3:     /* the kernel drops the pages; the next touch gets new ones */
        if (madvise(buf, MAP_LEN, MADV_DONTNEED) != 0)
            TH_FAIL("madvise");
        break;
    }
    xfer(buf, seed++, what);
    munmap(buf, MAP_LEN);
}

static void round_malloc(void)
{
    char *buf = malloc(MAP_LEN), *again;
    int same;

    if (buf == NULL)
        TH_FAIL("malloc");
    warm(buf, "free+malloc");
    free(buf);
    again = malloc(MAP_LEN);
    if (again == NULL)
        TH_FAIL("malloc");
    same = again == buf;
    /* both ranks must run the same number of messages */
    xfer(again, seed++, same ? "free+malloc (same address)" : "free+malloc (new address)");
    free(again);
    if (rank == 0)
        printf("vrb_stale: free+malloc %s the same address\n", same ? "returned" : "did not return");
}

static void round_brk(void)
{
    char *base = sbrk(0), *buf;
    int ok = 0;

    buf = sbrk((intptr_t)MAP_LEN);
    if (buf != (void *)-1 && buf == base) {
        warm(buf, "brk");
        /* shrink only if nobody grew the break meanwhile */
        if (sbrk(0) == buf + MAP_LEN && sbrk(-(intptr_t)MAP_LEN) != (void *)-1 &&
            sbrk((intptr_t)MAP_LEN) == buf)
            ok = 1;
    } else {
        buf = malloc(MAP_LEN);
        if (buf == NULL)
            TH_FAIL("malloc");
        warm(buf, "brk (unavailable)");
    }
    xfer(buf, seed++, ok ? "brk shrink+grow" : "brk (not shrunk)");
    if (rank == 0)
        printf("vrb_stale: brk shrink+grow %s\n", ok ? "done" : "not possible here");
    if (ok && sbrk(0) == buf + MAP_LEN)
        sbrk(-(intptr_t)MAP_LEN);
    else if (!ok && buf != base)
        free(buf);
}

int main(int argc, char **argv)
{
    static const char *names[] = {"munmap+mmap", "map_fixed", "mremap", "dontneed"};
    int size, rounds = argc > 1 ? atoi(argv[1]) : 1;

    itest_begin("vrb_stale");
    CHECK_RTM(rtm_init());
    CHECK_RTM(rtm_comm_rank(RTM_COMM_WORLD, &rank));
    CHECK_RTM(rtm_comm_size(RTM_COMM_WORLD, &size));
    th_rank = rank;
    th_size = size;
    if (size != 2)
        TH_FAIL("run with 2 ranks");
    for (int r = 0; r < rounds; r++) {
        for (int how = 0; how < 4; how++)
            round_mmap(how, names[how]);
        round_malloc();
        round_brk();
    }
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    if (rank == 0)
        printf("vrb_stale: %u messages, all received with the content of the moment\n",
               seed - 1);
    CHECK_RTM(rtm_finalize());
    return 0;
}
