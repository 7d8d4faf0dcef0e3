/*
 * Unit test of the runtime's one-sided completions (runtime/rma.c) over a
 * stub transport, with this process as rank 0 of 3:
 *   - errors are kept per peer: an operation to rank 1 that completes with
 *     an error is reported by flush(1) (naming rank 1) and by a flush of
 *     RTM_ANY_SOURCE, never by flush(2); a flush clears what it reported;
 *   - flush(r) waits for the one-sided gets to r (the runtime counts them:
 *     a transport's flush covers puts and atomics only) and for what the
 *     transport has in flight to r, and for nothing to another rank: a get
 *     from rank 1 held back does not hold flush(2).
 * The stub completes operations in progress_once(), except the gets from
 * a rank whose gets are held.
 */
#include "config.h"

#include "runtime/binding.h"
#include "runtime/comm.h"
#include "runtime/peer.h"
#include "runtime/progress.h"
#include "runtime/rma_key.h"
#include "runtime/rt.h"
#include "tests/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rtm_runtime_t rtm_rt;

#define NRANKS 3
#define MAXOPS 64

static int world_ranks[NRANKS] = {0, 1, 2};
static rtm_comm_obj_t world = {.in_use = 1, .rank = 0, .size = NRANKS,
                               .world_ranks = world_ranks};
static rtm_peer_t peers[NRANKS];

/* ---- the stub transport ----------------------------------------------- */

typedef struct fake_ep {
    rtm_tl_ep_t super;
} fake_ep_t;

static fake_ep_t eps[NRANKS];
static struct {
    rtm_tl_comp_t *comp;
    int            peer;
    int            get;
} ops[MAXOPS];
static int nops;
static rtm_status_t fail_to[NRANKS];   /* the status operations to that rank complete with */
static int hold_gets_from = -1;        /* gets from this rank do not complete */
static long polls;

static rtm_status_t fake_op(rtm_tl_ep_t *ep, int get, rtm_tl_comp_t *comp)
{
    CHECK(nops < MAXOPS, "too many operations");
    ops[nops].comp = comp;
    ops[nops].peer = ep->peer;
    ops[nops].get = get;
    nops++;
    return RTM_OK;
}

static rtm_status_t fake_put(rtm_tl_ep_t *ep, const void *local, size_t len, uint64_t raddr,
                             const void *rkey, size_t rkey_len, rtm_tl_comp_t *comp)
{
    (void)local, (void)len, (void)raddr, (void)rkey, (void)rkey_len;
    return fake_op(ep, 0, comp);
}

static rtm_status_t fake_get(rtm_tl_ep_t *ep, void *local, rtm_tl_memh_t *memh, size_t len,
                             uint64_t raddr, const void *rkey, size_t rkey_len,
                             rtm_tl_comp_t *comp)
{
    (void)local, (void)memh, (void)len, (void)raddr, (void)rkey, (void)rkey_len;
    return fake_op(ep, 1, comp);
}

/* Puts (and atomics) in flight to ep's rank: what a transport's flush
 * waits for; gets are not its business. */
static rtm_status_t fake_flush(rtm_tl_ep_t *ep)
{
    for (int i = 0; i < nops; i++)
        if (ops[i].comp != NULL && ops[i].peer == ep->peer && !ops[i].get)
            return RTM_ERR_AGAIN;
    return RTM_OK;
}

static const rtm_tl_ops_t fake_ops = {
    RTM_TL_OPS_VERSION,
    .name  = "fake",
    .put   = fake_put,
    .get   = fake_get,
    .flush = fake_flush,
};

/* ---- what runtime/rma.c calls ----------------------------------------- */

rtm_status_t comm_get(rtm_comm_t comm, const char *func, rtm_comm_obj_t **obj_p)
{
    if (comm != RTM_COMM_WORLD)
        return rtm_error_set(RTM_ERR_COMM, "%s: no such communicator", func);
    *obj_p = &world;
    return RTM_OK;
}

rtm_status_t peer_connect(int peer)
{
    (void)peer;
    return RTM_OK;
}

/* Completes every operation not held; a flush that spins here long on a
 * held get is waiting for what it must not. */
int progress_once(void)
{
    int n = 0;

    if (++polls > 100000)
        TH_FAIL("a flush waits for an operation it must not wait for");
    for (int i = 0; i < nops; i++) {
        rtm_tl_comp_t *comp = ops[i].comp;

        if (comp == NULL || (ops[i].get && ops[i].peer == hold_gets_from))
            continue;
        ops[i].comp = NULL;
        comp->cb(comp, fail_to[ops[i].peer]);
        n++;
    }
    return n;
}

/* ---- the test ---------------------------------------------------------- */

static void key_of(int rank, rtm_rma_key_t *key)
{
    unsigned char blob[RTM_RMA_KEY_MAX], tl_key[4] = {1, 2, 3, 4};
    size_t len = sizeof(blob);

    CHECK(rma_key_pack(blob, &len, 0x10000, 4096, RTM_RMA_READ | RTM_RMA_WRITE,
                       RTM_RMA_READ | RTM_RMA_WRITE, "fake", tl_key, sizeof(tl_key)) == RTM_OK,
          "pack");
    CHECK(binding_rma_key_unpack(RTM_COMM_WORLD, rank, blob, len, key) == RTM_OK,
          "unpack: %s", rtm_last_error());
}

static int pending(int peer, int get)
{
    int n = 0;

    for (int i = 0; i < nops; i++)
        n += ops[i].comp != NULL && ops[i].peer == peer && ops[i].get == get;
    return n;
}

int main(void)
{
    rtm_rma_key_t k1, k2;
    char buf[64] = {0};
    rtm_status_t st;

    rtm_rt.state = RT_READY;
    rtm_rt.world_rank = 0;
    rtm_rt.world_size = NRANKS;
    rtm_rt.peers = peers;
    rtm_rt.num_tls = 1;
    rtm_rt.tls[0].ops = &fake_ops;
    for (int r = 1; r < NRANKS; r++) {
        eps[r].super.peer = r;
        peers[r].tl = &rtm_rt.tls[0];
        peers[r].ep = &eps[r].super;
    }
    key_of(1, &k1);
    key_of(2, &k2);

    th_case = "errors per peer";
    fail_to[1] = RTM_ERR_TRANSPORT;
    CHECK(binding_rma_put(RTM_COMM_WORLD, 1, &k1, 0, buf, 8) == RTM_OK, "put to 1");
    CHECK(binding_rma_put(RTM_COMM_WORLD, 2, &k2, 0, buf, 8) == RTM_OK, "put to 2");
    st = binding_rma_flush(RTM_COMM_WORLD, 2);
    EXPECT(st == RTM_OK, "flush(2) after a failed put to 1: %s (%s)", rtm_strerror(st),
           st != RTM_OK ? rtm_last_error() : "");
    EXPECT(pending(2, 0) == 0, "flush(2) returned with a put to 2 in flight");
    st = binding_rma_flush(RTM_COMM_WORLD, 1);
    EXPECT(st == RTM_ERR_TRANSPORT && strstr(rtm_last_error(), "to rank 1 failed") != NULL,
           "flush(1): %s (%s)", rtm_strerror(st), rtm_last_error());
    EXPECT(binding_rma_flush(RTM_COMM_WORLD, 1) == RTM_OK, "a flush clears what it reported");
    CHECK(binding_rma_get(RTM_COMM_WORLD, 1, &k1, 0, buf, 8) == RTM_OK, "get from 1");
    EXPECT(binding_rma_flush(RTM_COMM_WORLD, 2) == RTM_OK, "flush(2) after a failed get from 1");
    st = binding_rma_flush(RTM_COMM_WORLD, RTM_ANY_SOURCE);
    EXPECT(st == RTM_ERR_TRANSPORT && strstr(rtm_last_error(), "to rank 1 failed") != NULL,
           "flush(any) after a failed get from 1: %s (%s)", rtm_strerror(st), rtm_last_error());
    EXPECT(binding_rma_flush(RTM_COMM_WORLD, 1) == RTM_OK, "flush(any) cleared rank 1's error");
    fail_to[1] = RTM_OK;

    th_case = "flush waits for its own peer's gets only";
    hold_gets_from = 1;
    CHECK(binding_rma_get(RTM_COMM_WORLD, 1, &k1, 0, buf, 8) == RTM_OK, "get from 1");
    CHECK(binding_rma_put(RTM_COMM_WORLD, 2, &k2, 0, buf, 8) == RTM_OK, "put to 2");
    polls = 0;
    EXPECT(binding_rma_flush(RTM_COMM_WORLD, 2) == RTM_OK, "flush(2) with a get from 1 held");
    EXPECT(pending(2, 0) == 0 && pending(1, 1) == 1, "flush(2) returned: put to 2 %d left, "
           "gets from 1 held %d", pending(2, 0), pending(1, 1));
    /* flush(1) must wait for that get (the stub's flush does not) */
    hold_gets_from = -1;   /* it completes at the next progress */
    polls = 0;
    EXPECT(binding_rma_flush(RTM_COMM_WORLD, 1) == RTM_OK && pending(1, 1) == 0 && polls > 0,
           "flush(1) returned before its get completed (polls %ld)", polls);
    if (th_failures == 0)
        printf("test_rma: all checks passed\n");
    return th_failures ? 1 : 0;
}
