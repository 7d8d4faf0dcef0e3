/*
 * SOFTIB_PIN=1 (pin.c): after the process changes the pages under a
 * registered range (munmap + mmap at the same address, mmap MAP_FIXED over
 * it, madvise(MADV_DONTNEED), mremap away), an RDMA READ through the MR
 * still returns what the range held at that moment -- the pages an HCA
 * would have pinned -- while without SOFTIB_PIN it returns the new content.
 * And SOFTIB_MEMLOCK=1: registered pages count against RLIMIT_MEMLOCK.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "t_common.h"

#define LEN 8192

enum change { UNMAP_MAP, MAP_FIXED_OVER, DONTNEED, MREMAP_AWAY };
static const char *change_name[] = {"munmap+mmap", "mmap MAP_FIXED over", "madvise DONTNEED",
                                    "mremap away + mmap"};

/* Returns the first byte an RDMA READ gets after the change. */
static int read_after(enum change how)
{
    struct t_dev d;
    struct ibv_cq *acq, *bcq;
    struct ibv_qp *a, *b;
    struct ibv_qp_init_attr ia;
    struct t_conn c = t_conn_default();
    struct ibv_mr *smr, *dmr;
    struct ibv_wc wc;
    char *src, *dst, *away = NULL;
    int got;

    t_dev_open(&d);
    acq = t_cq(&d, 16);
    bcq = t_cq(&d, 16);
    memset(&ia, 0, sizeof(ia));
    ia.send_cq = ia.recv_cq = acq;
    ia.qp_type = IBV_QPT_RC;
    ia.cap.max_send_wr = ia.cap.max_recv_wr = 8;
    ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
    a = ibv_create_qp(d.pd, &ia);
    ia.send_cq = ia.recv_cq = bcq;
    b = ibv_create_qp(d.pd, &ia);
    CHECK(a && b, "create qps");
    c.access = IBV_ACCESS_REMOTE_READ;
    CHECK(t_connect(a, d.lid, b->qp_num, &c) == 0, "connect a");
    CHECK(t_connect(b, d.lid, a->qp_num, &c) == 0, "connect b");

    src = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    dst = malloc(LEN);
    CHECK(src != MAP_FAILED && dst, "buffers");
    memset(src, 'A', LEN);
    smr = ibv_reg_mr(d.pd, src, LEN, IBV_ACCESS_REMOTE_READ);
    dmr = ibv_reg_mr(d.pd, dst, LEN, IBV_ACCESS_LOCAL_WRITE);
    CHECK(smr && dmr, "reg_mr");

    switch (how) {
    case UNMAP_MAP:
        CHECK(munmap(src, LEN) == 0, "munmap");
        CHECK(mmap(src, LEN, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == src, "mmap");
        break;
    case MAP_FIXED_OVER:
        CHECK(mmap(src, LEN, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == src, "mmap");
        break;
    case DONTNEED:
        CHECK(madvise(src, LEN, MADV_DONTNEED) == 0, "madvise");
        break;
    case MREMAP_AWAY:
        away = mmap(NULL, LEN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(away != MAP_FAILED, "mmap");
        CHECK(mremap(src, LEN, LEN, MREMAP_MAYMOVE | MREMAP_FIXED, away) == away,
                  "mremap");
        CHECK(mmap(src, LEN, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == src, "mmap");
        break;
    }
    memset(src, 'B', LEN);
    memset(dst, 0, LEN);
    EXPECT(t_post_send(a, IBV_WR_RDMA_READ, dmr, dst, LEN, (uintptr_t)src, smr->rkey, 1) == 0,
            "post read");
    CHECK(t_poll(acq, &wc, 3000), "no read completion");
    EXPECT(wc.status == IBV_WC_SUCCESS, "read: %s", ibv_wc_status_str(wc.status));
    got = dst[0];
    for (int i = 1; i < LEN; i++)
        if (dst[i] != got) {
            EXPECT(0, "%s: mixed content at %d", change_name[how], i);
            break;
        }
    ibv_dereg_mr(smr);
    ibv_dereg_mr(dmr);
    ibv_destroy_qp(a);
    ibv_destroy_qp(b);
    ibv_destroy_cq(acq);
    ibv_destroy_cq(bcq);
    t_dev_close(&d);
    munmap(src, LEN);
    if (away)
        munmap(away, LEN);
    free(dst);
    return got;
}

/* SOFTIB_MEMLOCK=1: registrations count against RLIMIT_MEMLOCK, whole
 * pages, as the kernel counts pinned memory; deregistration gives back. */
static void test_memlock(void)
{
    struct rlimit old, rl;
    struct t_dev d;
    struct ibv_mr *a, *b;
    long pg = sysconf(_SC_PAGESIZE);
    char *buf = aligned_alloc((size_t)pg, (size_t)pg * 8);

    th_case = "SOFTIB_MEMLOCK";
    CHECK(buf && getrlimit(RLIMIT_MEMLOCK, &old) == 0, "setup");
    rl = old;
    rl.rlim_cur = (rlim_t)pg * 4;
    CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0, "setrlimit");
    setenv("SOFTIB_MEMLOCK", "1", 1);
    t_dev_open(&d);
    a = ibv_reg_mr(d.pd, buf, (size_t)pg * 3, IBV_ACCESS_LOCAL_WRITE);
    EXPECT(a != NULL, "3 pages under a 4-page limit");
    b = ibv_reg_mr(d.pd, buf + pg * 3, (size_t)pg + 1, IBV_ACCESS_LOCAL_WRITE);
    EXPECT(b == NULL && errno == ENOMEM, "2 more pages over the limit: ENOMEM");
    if (a)
        ibv_dereg_mr(a);
    b = ibv_reg_mr(d.pd, buf, (size_t)pg * 4, IBV_ACCESS_LOCAL_WRITE);
    EXPECT(b != NULL, "after deregistration the pages count no more");
    if (b)
        ibv_dereg_mr(b);
    t_dev_close(&d);
    unsetenv("SOFTIB_MEMLOCK");
    setrlimit(RLIMIT_MEMLOCK, &old);
    free(buf);
}

int main(void)
{
    for (int how = UNMAP_MAP; how <= MREMAP_AWAY; how++) {
        int got;

        th_case = change_name[how];
        unsetenv("SOFTIB_PIN");
        got = read_after(how);
        EXPECT(got == 'B', "without SOFTIB_PIN the read returns the new content, got '%c'",
                got);
        setenv("SOFTIB_PIN", "1", 1);
        got = read_after(how);
        EXPECT(got == 'A', "with SOFTIB_PIN=1 the read returns the pinned (old) content, "
                "got '%c'", got);
    }
    test_memlock();
    return t_finish();
}
