/*
 * Context ids of communicators: which ones this process has free, and the
 * agreement on a new one. Every communicator takes one slot; slot s names
 * the two matching contexts 2s (user point-to-point) and 2s+1 (collectives
 * and management). Slots 0 and 1 are RTM_COMM_WORLD's and RTM_COMM_SELF's.
 *
 * A new communicator's slot: each member of the parent contributes its mask
 * of free slots, the masks are AND-reduced over the parent's members, and
 * the lowest slot free everywhere is taken by every member that joins a new
 * communicator (those that opt out of a split leave it free). Disjoint
 * communicators of one split share a slot harmlessly: no process belongs to
 * two of them. A freed communicator's slot is free again, so ids are
 * recycled and the matching table stays as large as the most communicators
 * alive at once. Pure logic (tests/unit/test_ctxid.c links ctxid.c alone).
 */
#ifndef RTM_RUNTIME_CTXID_H
#define RTM_RUNTIME_CTXID_H

#include <stdint.h>

/* Communicators alive at once in one process. */
#define RTM_CTXID_SLOTS 16384
#define RTM_CTXID_WORDS (RTM_CTXID_SLOTS / 64)

#define RTM_CTXID_SLOT_WORLD 0
#define RTM_CTXID_SLOT_SELF  1

typedef struct rtm_ctxid_mask {
    uint64_t free[RTM_CTXID_WORDS];   /* bit set: slot free */
} rtm_ctxid_mask_t;

/* Every slot free but WORLD's and SELF's. */
void ctxid_init(rtm_ctxid_mask_t *mask);
/* The lowest free slot of mask, or -1 if none is free. */
int  ctxid_lowest(const rtm_ctxid_mask_t *mask);
void ctxid_take(rtm_ctxid_mask_t *mask, int slot);
void ctxid_release(rtm_ctxid_mask_t *mask, int slot);
int  ctxid_is_free(const rtm_ctxid_mask_t *mask, int slot);
/* into &= other: slots free in both. */
void ctxid_and(rtm_ctxid_mask_t *into, const rtm_ctxid_mask_t *other);

/* The matching contexts of a slot. */
static inline uint32_t ctxid_p2p(int slot)
{
    return 2u * (uint32_t)slot;
}

static inline uint32_t ctxid_coll(int slot)
{
    return 2u * (uint32_t)slot + 1u;
}

#endif
