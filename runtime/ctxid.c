/*
 * Context-id slots (see ctxid.h): a bitmask of the free ones. Finding the
 * lowest costs at most RTM_CTXID_WORDS word tests, whatever the number of
 * live communicators.
 */
#include "config.h"

#include "runtime/ctxid.h"

#include <string.h>

void ctxid_init(rtm_ctxid_mask_t *mask)
{
    memset(mask->free, 0xff, sizeof(mask->free));
    ctxid_take(mask, RTM_CTXID_SLOT_WORLD);
    ctxid_take(mask, RTM_CTXID_SLOT_SELF);
}

int ctxid_lowest(const rtm_ctxid_mask_t *mask)
{
    for (int w = 0; w < RTM_CTXID_WORDS; w++) {
        if (mask->free[w] != 0)
            return w * 64 + __builtin_ctzll(mask->free[w]);
    }
    return -1;
}

void ctxid_take(rtm_ctxid_mask_t *mask, int slot)
{
    mask->free[slot / 64] &= ~(UINT64_C(1) << (slot % 64));
}

void ctxid_release(rtm_ctxid_mask_t *mask, int slot)
{
    mask->free[slot / 64] |= UINT64_C(1) << (slot % 64);
}

int ctxid_is_free(const rtm_ctxid_mask_t *mask, int slot)
{
    return (mask->free[slot / 64] >> (slot % 64)) & 1;
}

void ctxid_and(rtm_ctxid_mask_t *into, const rtm_ctxid_mask_t *other)
{
    for (int w = 0; w < RTM_CTXID_WORDS; w++)
        into->free[w] &= other->free[w];
}
