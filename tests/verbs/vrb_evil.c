/*
 * A malicious peer for the rkey least-privilege test (vrb_rkey.sh), built
 * as a module preloaded into the ranks ahead of the verbs library. It wraps
 * ibv_open_device and replaces the context's post_send and poll_cq (which
 * ibv_post_send / ibv_poll_cq call), so the verbs transport runs unchanged
 * and knows nothing of it -- as a peer running modified code would.
 *
 * When the transport posts its first RDMA Read (the rendezvous of the
 * message it was shown: remote address A, length L, rkey K), the module
 * remembers (QP, A, L, K) and, as VRB_EVIL says, posts a read of its own on
 * the same QP into a scratch buffer:
 *   within     64 bytes at A, at once (while exposed): must succeed, which
 *              shows the module's reads work at all
 *   beyond     64 bytes at A + L, at once: must fail (remote access error)
 *   after_fin  64 bytes at A, when the program calls vrb_evil_now() (after
 *              the sender finished the message): must fail
 * Its completion is taken out of what the transport polls; the module
 * prints one line "vrb_evil: <mode> read ...: <ibv_wc_status_str>" on stderr
 * and ends the process with exit code 42 (the test reads the line).
 *
 * Two more modes fake a device async event instead (vrb_async.sh), from
 * the moment of that first read: ibv_get_async_event returns it once, and
 * its ibv_ack_async_event goes no further:
 *   cq_err     IBV_EVENT_CQ_ERR on the CQ the transport polls
 *   qp_fatal   IBV_EVENT_QP_FATAL on the QP of the read
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
#define EVIL_LEN   64

static int (*orig_post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **);
static int (*orig_poll_cq)(struct ibv_cq *, int, struct ibv_wc *);
static struct ibv_qp *seen_qp;
static uint64_t seen_addr;
static uint32_t seen_len, seen_rkey;
static struct ibv_mr *scratch_mr;
static char scratch[4096];
static const char *mode;
static struct ibv_cq *seen_cq;
static int inject;                  /* a fake async event is due */
static struct ibv_async_event fake; /* the one handed out */

static int post_evil(uint64_t raddr)
{
    struct ibv_send_wr wr, *bad;
    struct ibv_sge sge;

    if (scratch_mr == NULL)
        scratch_mr = ibv_reg_mr(seen_qp->pd, scratch, sizeof(scratch), IBV_ACCESS_LOCAL_WRITE);
    if (scratch_mr == NULL) {
        fprintf(stderr, "vrb_evil: cannot register the scratch buffer\n");
        _exit(43);
    }
    memset(&sge, 0, sizeof(sge));
    sge.addr = (uintptr_t)scratch;
    sge.length = EVIL_LEN;
    sge.lkey = scratch_mr->lkey;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = EVIL_WR_ID;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_READ;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = raddr;
    wr.wr.rdma.rkey = seen_rkey;
    fprintf(stderr, "vrb_evil: %s: reading %d bytes at 0x%llx (shown 0x%llx + %u, rkey 0x%x)\n",
            mode, EVIL_LEN, (unsigned long long)raddr, (unsigned long long)seen_addr, seen_len,
            seen_rkey);
    return orig_post_send(seen_qp, &wr, &bad);
}

static int evil_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
    int rc = orig_post_send(qp, wr, bad);

    if (rc == 0 && seen_qp == NULL && wr->opcode == IBV_WR_RDMA_READ && mode != NULL) {
        seen_qp = qp;
        seen_addr = wr->wr.rdma.remote_addr;
        seen_len = wr->sg_list[0].length;
        seen_rkey = wr->wr.rdma.rkey;
        if (!strcmp(mode, "within"))
            rc = post_evil(seen_addr);
        else if (!strcmp(mode, "beyond"))
            rc = post_evil(seen_addr + seen_len);
        else if (!strcmp(mode, "cq_err") || !strcmp(mode, "qp_fatal"))
            inject = 1;
        if (rc != 0) {
            fprintf(stderr, "vrb_evil: %s: post_send failed (%d)\n", mode, rc);
            _exit(43);
        }
    }
    return rc;
}

static int evil_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
    int got = orig_poll_cq(cq, n, wc);

    seen_cq = cq;
    for (int i = 0; i < got; i++) {
        if (wc[i].wr_id != EVIL_WR_ID)
            continue;
        fprintf(stderr, "vrb_evil: %s read of %d bytes at %s: %s\n", mode, EVIL_LEN,
                !strcmp(mode, "beyond") ? "the end of the shown buffer"
                                        : "the start of the shown buffer",
                ibv_wc_status_str(wc[i].status));
        fflush(stderr);
        _exit(42);
    }
    return got;
}

/* after_fin: the program calls this once the sender is done. */
__attribute__((visibility("default"))) int vrb_evil_now(void)
{
    if (seen_qp == NULL || mode == NULL || strcmp(mode, "after_fin"))
        return -1;
    return post_evil(seen_addr);
}

__attribute__((visibility("default")))
int ibv_get_async_event(struct ibv_context *ctx, struct ibv_async_event *ev)
{
    int (*real)(struct ibv_context *, struct ibv_async_event *) =
        (int (*)(struct ibv_context *, struct ibv_async_event *))dlsym(RTLD_NEXT,
                                                                       "ibv_get_async_event");

    if (inject == 1 && seen_cq != NULL) {
        inject = 2;
        memset(&fake, 0, sizeof(fake));
        if (!strcmp(mode, "cq_err")) {
            fake.event_type = IBV_EVENT_CQ_ERR;
            fake.element.cq = seen_cq;
        } else {
            fake.event_type = IBV_EVENT_QP_FATAL;
            fake.element.qp = seen_qp;
        }
        fprintf(stderr, "vrb_evil: %s: injecting async event \"%s\"\n", mode,
                ibv_event_type_str(fake.event_type));
        *ev = fake;
        return 0;
    }
    return real != NULL ? real(ctx, ev) : -1;
}

__attribute__((visibility("default")))
void ibv_ack_async_event(struct ibv_async_event *ev)
{
    void (*real)(struct ibv_async_event *) =
        (void (*)(struct ibv_async_event *))dlsym(RTLD_NEXT, "ibv_ack_async_event");

    if (inject == 2 && ev->event_type == fake.event_type &&
        ev->element.cq == fake.element.cq)
        return;   /* ours: the device never raised it */
    if (real != NULL)
        real(ev);
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
    mode = getenv("VRB_EVIL");
    orig_post_send = ctx->ops.post_send;
    orig_poll_cq = ctx->ops.poll_cq;
    ctx->ops.post_send = evil_post_send;
    ctx->ops.poll_cq = evil_poll_cq;
    return ctx;
}
