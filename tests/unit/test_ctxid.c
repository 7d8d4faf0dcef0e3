/*
 * Unit test of communicator context ids (runtime/ctxid.c), linked alone:
 * the reserved slots, the lowest free slot, agreement by AND over members,
 * recycling of a freed slot, a split's opt-outs, and exhaustion.
 */
#include "config.h"

#include "runtime/ctxid.h"
#include "tests/harness.h"

#include <stdio.h>
#include <string.h>

/* What comm.c does for a new communicator over members m[0..n-1], of which
 * those with joins[i] take the slot. */
static int agree(rtm_ctxid_mask_t *m, const int *joins, int n)
{
    rtm_ctxid_mask_t all = m[0];
    int slot;

    for (int i = 1; i < n; i++)
        ctxid_and(&all, &m[i]);
    slot = ctxid_lowest(&all);
    if (slot >= 0) {
        for (int i = 0; i < n; i++) {
            if (joins == NULL || joins[i])
                ctxid_take(&m[i], slot);
        }
    }
    return slot;
}

static void test_reserved(void)
{
    rtm_ctxid_mask_t m;

    ctxid_init(&m);
    EXPECT(!ctxid_is_free(&m, RTM_CTXID_SLOT_WORLD), "world's slot taken");
    EXPECT(!ctxid_is_free(&m, RTM_CTXID_SLOT_SELF), "self's slot taken");
    EXPECT(ctxid_lowest(&m) == 2, "first free slot is 2 (got %d)", ctxid_lowest(&m));
    EXPECT(ctxid_p2p(0) == 0 && ctxid_coll(0) == 1, "world: contexts 0 and 1");
    EXPECT(ctxid_p2p(1) == 2 && ctxid_coll(1) == 3, "self: contexts 2 and 3");
    EXPECT(ctxid_p2p(5) == 10 && ctxid_coll(5) == 11, "slot 5: contexts 10 and 11");
}

static void test_agreement(void)
{
    rtm_ctxid_mask_t m[3];

    for (int i = 0; i < 3; i++)
        ctxid_init(&m[i]);
    /* member 1 has slots 2 and 3 in use (communicators the others are not in) */
    ctxid_take(&m[1], 2);
    ctxid_take(&m[1], 3);
    EXPECT(agree(m, NULL, 3) == 4, "lowest slot free on every member");
    EXPECT(!ctxid_is_free(&m[0], 4) && !ctxid_is_free(&m[2], 4), "every member took it");
    EXPECT(ctxid_is_free(&m[0], 2), "member 0 still has slot 2 free");
    /* two members only (a sub-communicator): slot 2 is free for both */
    EXPECT(agree((rtm_ctxid_mask_t[]){m[0], m[2]}, NULL, 2) == 2,
           "a communicator of members 0 and 2 may use slot 2");
}

static void test_recycling(void)
{
    rtm_ctxid_mask_t m[2];
    int slot = -1;

    ctxid_init(&m[0]);
    ctxid_init(&m[1]);
    /* a long run of dup + free reuses one slot, so nothing grows */
    for (int i = 0; i < 100000; i++) {
        slot = agree(m, NULL, 2);
        if (slot != 2)
            break;
        ctxid_release(&m[0], slot);
        ctxid_release(&m[1], slot);
    }
    EXPECT(slot == 2, "dup + free keeps reusing slot 2 (got %d)", slot);
    /* freed out of order: the lowest comes back first */
    EXPECT(agree(m, NULL, 2) == 2, "a");
    EXPECT(agree(m, NULL, 2) == 3, "b");
    EXPECT(agree(m, NULL, 2) == 4, "c");
    ctxid_release(&m[0], 3);
    ctxid_release(&m[1], 3);
    EXPECT(agree(m, NULL, 2) == 3, "the freed slot 3 is the next one");
    /* a slot freed on one member only is not free for both */
    ctxid_release(&m[0], 4);
    EXPECT(agree(m, NULL, 2) == 5, "slot 4 still taken on member 1");
}

static void test_split_opt_out(void)
{
    rtm_ctxid_mask_t m[4];
    const int joins[4] = {1, 0, 1, 1};   /* member 1: RTM_UNDEFINED */

    for (int i = 0; i < 4; i++)
        ctxid_init(&m[i]);
    /* one split: members 0, 2 and 3 join (maybe in disjoint groups, all on slot 2) */
    EXPECT(agree(m, joins, 4) == 2, "split takes slot 2");
    EXPECT(ctxid_is_free(&m[1], 2), "the member that opted out keeps slot 2 free");
    EXPECT(agree(m, NULL, 4) == 3, "the next communicator of all four skips slot 2");
    EXPECT(agree((rtm_ctxid_mask_t[]){m[1]}, NULL, 1) == 2,
           "member 1 alone may still use slot 2");
}

static void test_exhaustion(void)
{
    rtm_ctxid_mask_t m;
    int n = 0;

    ctxid_init(&m);
    while (agree(&m, NULL, 1) >= 0)
        n++;
    EXPECT(n == RTM_CTXID_SLOTS - 2, "every slot but world's and self's used (%d)", n);
    EXPECT(ctxid_lowest(&m) == -1, "none free: -1");
    ctxid_release(&m, RTM_CTXID_SLOTS - 1);
    EXPECT(ctxid_lowest(&m) == RTM_CTXID_SLOTS - 1, "the last slot freed comes back");
}

int main(void)
{
    th_name = "test_ctxid";
    test_reserved();
    test_agreement();
    test_recycling();
    test_split_opt_out();
    test_exhaustion();
    if (th_failures > 0)
        TH_RETURN();
    printf("test_ctxid: all checks passed\n");
    return 0;
}
