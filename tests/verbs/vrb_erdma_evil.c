/*
 * A peer that misuses an eager RDMA ring key, for the least-privilege test
 * of the fast path (verbs_erdma_rkey.sh). Preloaded into every rank ahead of
 * the verbs library, it wraps ibv_open_device and replaces the context's
 * post_send and poll_cq, so the transport runs unchanged and knows nothing.
 *
 * Every rank: the first RDMA Write the transport posts (a message into the
 * ring a peer offered it) has its remote address and rkey saved to the file
 * VRB_ERDMA_EVIL_FILE. When the program calls vrb_erdma_evil_now(), the
 * module reads that file and, at the next post_send of the transport (the
 * program sends to the ring's owner right after), posts an 8-byte RDMA Write
 * of zeros at the start of that ring on the same QP:
 *   - from the rank the ring was offered to, it must succeed (shows the
 *     module's writes are real);
 *   - from a third rank, which was offered no ring, it must fail with a
 *     remote access error.
 * The module prints "vrb_erdma_evil: write ...: <ibv_wc_status_str>" and ends
 * the process with exit code 42 (the test reads the line). Zeros at the
 * start of a consumed slot are harmless: that slot's next message has a
 * higher sequence number.
 */
#include "config.h"

#include <dlfcn.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EVIL_WR_ID 0x4000000000000bad   /* bit 62: no transport WR has it */

static int (*orig_post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **);
static int (*orig_poll_cq)(struct ibv_cq *, int, struct ibv_wc *);
static int saved, armed;
static uint64_t ring_addr;
static uint32_t ring_rkey;
static struct ibv_mr *scratch_mr;
static uint64_t scratch;

static void save_ring(const struct ibv_send_wr *wr)
{
    const char *path = getenv("VRB_ERDMA_EVIL_FILE");
    char tmp[4096];
    FILE *f;

    if (path == NULL || snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid()) >= (int)sizeof(tmp))
        return;
    f = fopen(tmp, "w");
    if (f == NULL)
        return;
    fprintf(f, "%llx %x\n", (unsigned long long)wr->wr.rdma.remote_addr, wr->wr.rdma.rkey);
    fclose(f);
    rename(tmp, path);   /* the reader sees all or nothing */
}

static int post_evil(struct ibv_qp *qp)
{
    struct ibv_send_wr wr, *bad;
    struct ibv_sge sge;

    scratch_mr = ibv_reg_mr(qp->pd, &scratch, sizeof(scratch), IBV_ACCESS_LOCAL_WRITE);
    if (scratch_mr == NULL) {
        fprintf(stderr, "vrb_erdma_evil: cannot register the scratch buffer\n");
        _exit(43);
    }
    memset(&sge, 0, sizeof(sge));
    sge.addr = (uintptr_t)&scratch;
    sge.length = sizeof(scratch);
    sge.lkey = scratch_mr->lkey;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = EVIL_WR_ID;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = ring_addr;
    wr.wr.rdma.rkey = ring_rkey;
    fprintf(stderr, "vrb_erdma_evil: writing 8 bytes at 0x%llx (rkey 0x%x) through QP 0x%x\n",
            (unsigned long long)ring_addr, ring_rkey, qp->qp_num);
    return orig_post_send(qp, &wr, &bad);
}

static int evil_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
    int rc;

    if (armed == 1) {
        armed = 2;
        if (post_evil(qp) != 0) {
            fprintf(stderr, "vrb_erdma_evil: post_send failed\n");
            _exit(43);
        }
    }
    rc = orig_post_send(qp, wr, bad);
    if (rc == 0 && !saved && wr->opcode == IBV_WR_RDMA_WRITE) {
        saved = 1;
        save_ring(wr);
    }
    return rc;
}

static int evil_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
    int got = orig_poll_cq(cq, n, wc);

    for (int i = 0; i < got; i++) {
        if (wc[i].wr_id != EVIL_WR_ID)
            continue;
        fprintf(stderr, "vrb_erdma_evil: write into the ring with its rkey: %s\n",
                ibv_wc_status_str(wc[i].status));
        fflush(stderr);
        _exit(42);
    }
    return got;
}

/* The program calls this right before it sends to the ring's owner. */
__attribute__((visibility("default"))) int vrb_erdma_evil_now(void)
{
    const char *path = getenv("VRB_ERDMA_EVIL_FILE");
    unsigned long long addr;
    unsigned rkey;
    FILE *f = path != NULL ? fopen(path, "r") : NULL;
    int ok;

    if (f == NULL)
        return -1;
    ok = fscanf(f, "%llx %x", &addr, &rkey) == 2;
    fclose(f);
    if (!ok)
        return -1;
    ring_addr = addr;
    ring_rkey = rkey;
    armed = 1;
    return 0;
}

__attribute__((visibility("default")))
struct ibv_context *ibv_open_device(struct ibv_device *device)
{
    struct ibv_context *(*real)(struct ibv_device *) =
        (struct ibv_context *(*)(struct ibv_device *))dlsym(RTLD_NEXT, "ibv_open_device");
    struct ibv_context *ctx;

    if (real == NULL)
        return NULL;
    ctx = real(device);
    if (ctx == NULL)
        return NULL;
    orig_post_send = ctx->ops.post_send;
    orig_poll_cq = ctx->ops.poll_cq;
    ctx->ops.post_send = evil_post_send;
    ctx->ops.poll_cq = evil_poll_cq;
    return ctx;
}
