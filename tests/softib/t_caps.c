/*
 * SOFTIB_CAPS: a device without atomics or memory windows, so a client's
 * "not available" paths can be tested on softib (librtmsg's verbs one-sided
 * code, tests/verbs/vrb_rma.sh). One process, one RC pair A -> B:
 *   default   atomic_cap IBV_ATOMIC_HCA, IBV_DEVICE_MEM_WINDOW_TYPE_2B and
 *             max_mw > 0 (ibv_query_device and _ex); a type 2 window is
 *             allocated; a fetch-and-add completes with the old value
 *   noatomic  atomic_cap IBV_ATOMIC_NONE; posting an atomic: EINVAL, with
 *             bad_wr naming it, and nothing completes
 *   nomw      no window capability flags, max_mw 0; ibv_alloc_mw: NULL,
 *             errno EOPNOTSUPP
 *   atomic_be atomic_cap still HCA; a fetch-and-add's old value lands
 *             big-endian, the word is updated in host order
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "t_common.h"

static uint64_t lword, rword;

static int post_fadd(struct ibv_qp *qp, struct ibv_mr *lmr, struct ibv_mr *rmr,
                     struct ibv_send_wr **bad)
{
    struct ibv_send_wr wr;
    struct ibv_sge sge = {(uintptr_t)&lword, 8, lmr->lkey};

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = 7;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.atomic.remote_addr = (uintptr_t)&rword;
    wr.wr.atomic.compare_add = 5;
    wr.wr.atomic.rkey = rmr->rkey;
    return ibv_post_send(qp, &wr, bad);
}

int main(void)
{
    struct t_conn c = t_conn_default();
    struct ibv_device_attr da;
    struct ibv_device_attr_ex dx;
    struct ibv_send_wr *bad = NULL;
    struct ibv_mr *lmr, *rmr;
    struct ibv_cq *acq, *bcq;
    struct ibv_qp *a, *b;
    struct ibv_mw *mw;
    struct ibv_wc wc;
    struct t_dev d;
    int rc;

    th_name = "t_caps";
    unsetenv("SOFTIB_CAPS");
    t_dev_open(&d);
    lmr = ibv_reg_mr(d.pd, &lword, 8, IBV_ACCESS_LOCAL_WRITE);
    rmr = ibv_reg_mr(d.pd, &rword, 8, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
    CHECK(lmr && rmr, "ibv_reg_mr");
    acq = t_cq(&d, 16);
    bcq = t_cq(&d, 16);
    a = t_rc_qp(&d, acq, acq, 8, 8);
    b = t_rc_qp(&d, bcq, bcq, 8, 8);
    c.access = IBV_ACCESS_REMOTE_ATOMIC;
    CHECK(t_connect(a, d.lid, b->qp_num, &c) == 0 && t_connect(b, d.lid, a->qp_num, &c) == 0,
          "connect");

    th_case = "default";
    CHECK(ibv_query_device(d.ctx, &da) == 0, "ibv_query_device");
    EXPECT(da.atomic_cap == IBV_ATOMIC_HCA, "atomic_cap %d", (int)da.atomic_cap);
    EXPECT((da.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B) && da.max_mw > 0,
           "window caps 0x%x, max_mw %d", (unsigned)da.device_cap_flags, da.max_mw);
    mw = ibv_alloc_mw(d.pd, IBV_MW_TYPE_2);
    EXPECT(mw != NULL, "ibv_alloc_mw: %s", strerror(errno));
    if (mw)
        ibv_dealloc_mw(mw);
    rword = 37;
    EXPECT(post_fadd(a, lmr, rmr, &bad) == 0, "post fetch-and-add");
    EXPECT(t_poll(acq, &wc, 2000) == 1 && wc.status == IBV_WC_SUCCESS && lword == 37 &&
           rword == 42, "fetch-and-add: status %s, old %llu, now %llu",
           ibv_wc_status_str(wc.status), (unsigned long long)lword, (unsigned long long)rword);

    th_case = "noatomic";
    setenv("SOFTIB_CAPS", "noatomic", 1);
    CHECK(ibv_query_device(d.ctx, &da) == 0, "ibv_query_device");
    EXPECT(da.atomic_cap == IBV_ATOMIC_NONE, "atomic_cap %d", (int)da.atomic_cap);
    EXPECT(da.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B, "windows still there");
    memset(&dx, 0, sizeof(dx));
    CHECK(ibv_query_device_ex(d.ctx, NULL, &dx) == 0, "ibv_query_device_ex");
    EXPECT(dx.orig_attr.atomic_cap == IBV_ATOMIC_NONE, "_ex atomic_cap %d",
           (int)dx.orig_attr.atomic_cap);
    bad = NULL;
    rc = post_fadd(a, lmr, rmr, &bad);
    EXPECT(rc == EINVAL && bad != NULL && bad->wr_id == 7, "post atomic: %d (%s), bad_wr %p",
           rc, strerror(rc), (void *)bad);
    EXPECT(t_quiet(acq, 100), "a refused atomic completed");
    EXPECT(rword == 42, "the refused atomic changed the word (%llu)", (unsigned long long)rword);

    th_case = "nomw";
    setenv("SOFTIB_CAPS", "nomw", 1);
    CHECK(ibv_query_device(d.ctx, &da) == 0, "ibv_query_device");
    EXPECT(!(da.device_cap_flags & (IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_WINDOW_TYPE_2B)) &&
           da.max_mw == 0, "window caps 0x%x, max_mw %d", (unsigned)da.device_cap_flags,
           da.max_mw);
    EXPECT(da.atomic_cap == IBV_ATOMIC_HCA, "atomics gone too");
    errno = 0;
    mw = ibv_alloc_mw(d.pd, IBV_MW_TYPE_2);
    EXPECT(mw == NULL && errno == EOPNOTSUPP, "ibv_alloc_mw: %p, %s", (void *)mw,
           strerror(errno));
    unsetenv("SOFTIB_CAPS");

    th_case = "atomic_be";
    setenv("SOFTIB_CAPS", "atomic_be", 1);
    CHECK(ibv_query_device(d.ctx, &da) == 0, "ibv_query_device");
    EXPECT(da.atomic_cap == IBV_ATOMIC_HCA, "atomic_cap %d", (int)da.atomic_cap);
    rword = 37;
    EXPECT(post_fadd(a, lmr, rmr, &bad) == 0, "post fetch-and-add");
    EXPECT(t_poll(acq, &wc, 2000) == 1 && wc.status == IBV_WC_SUCCESS &&
           lword == htobe64(37) && rword == 42, "fetch-and-add: old value 0x%llx (big-endian 37 "
           "expected), now %llu", (unsigned long long)lword, (unsigned long long)rword);
    unsetenv("SOFTIB_CAPS");

    ibv_destroy_qp(a);
    ibv_destroy_qp(b);
    ibv_destroy_cq(acq);
    ibv_destroy_cq(bcq);
    ibv_dereg_mr(lmr);
    ibv_dereg_mr(rmr);
    t_dev_close(&d);
    return t_finish();
}
