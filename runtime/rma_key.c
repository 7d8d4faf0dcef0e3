/*
 * Packing and checking exposed-region keys (runtime/rma_key.h). A key
 * comes from a peer: nothing in it is trusted before rma_key_parse says so.
 */
#include "config.h"

#include "runtime/rma_key.h"
#include "common/error.h"

#include <string.h>

#define RIGHTS_ALL (RTM_RMA_READ | RTM_RMA_WRITE | RTM_RMA_ATOMIC)

rtm_status_t rma_key_pack(void *buf, size_t *len_p, uint64_t addr, uint64_t len,
                          unsigned rights, unsigned asked, const char *tl_name,
                          const void *tl_key, size_t tl_key_len)
{
    uint8_t *b = buf;
    uint32_t magic = RMA_KEY_MAGIC;
    size_t name_len;

    if (buf == NULL || len_p == NULL || tl_name == NULL || tl_key == NULL || tl_key_len == 0 ||
        tl_key_len > RMA_KEY_TL_MAX || *len_p < RMA_KEY_HDR + tl_key_len || len == 0 ||
        addr + len < addr || rights == 0 || (asked & ~(unsigned)RIGHTS_ALL) != 0 ||
        (rights & ~asked) != 0 ||
        (name_len = strlen(tl_name)) == 0 || name_len > RMA_KEY_TL_NAME)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rma key pack: bad arguments (key of %zu B "
                             "into %zu B)", tl_key_len, len_p ? *len_p : 0);
    memset(b, 0, RMA_KEY_HDR);
    memcpy(b, &magic, 4);
    b[4] = RMA_KEY_VERSION;
    b[5] = (uint8_t)rights;
    b[6] = (uint8_t)tl_key_len;
    b[7] = (uint8_t)asked;
    memcpy(b + 8, &addr, 8);
    memcpy(b + 16, &len, 8);
    memcpy(b + 24, tl_name, name_len);
    memcpy(b + RMA_KEY_HDR, tl_key, tl_key_len);
    *len_p = RMA_KEY_HDR + tl_key_len;
    return RTM_OK;
}

rtm_status_t rma_key_parse(const void *blob, size_t len, rma_key_view_t *view)
{
    const uint8_t *b = blob;
    uint32_t magic;
    uint64_t addr, rlen;
    size_t n;

    if (blob == NULL || view == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rma key: NULL argument");
    if (len < RMA_KEY_HDR)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rma key: %zu B, shorter than its %d B "
                             "header", len, RMA_KEY_HDR);
    memcpy(&magic, b, 4);
    if (magic != RMA_KEY_MAGIC || b[4] != RMA_KEY_VERSION)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rma key: bad magic or version %u", b[4]);
    if (b[5] == 0 || (b[7] & ~RIGHTS_ALL) != 0 || (b[5] & ~b[7]) != 0)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rma key: bad rights 0x%x (asked 0x%x)", b[5],
                             b[7]);
    n = b[6];
    if (n == 0 || n > RMA_KEY_TL_MAX || len != RMA_KEY_HDR + n)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rma key: transport key of %zu B in a key of "
                             "%zu B", n, len);
    memcpy(&addr, b + 8, 8);
    memcpy(&rlen, b + 16, 8);
    if (rlen == 0 || addr + rlen < addr)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rma key: bad region (%llu B at %#llx)",
                             (unsigned long long)rlen, (unsigned long long)addr);
    /* the name: 1..8 printable bytes, then NULs only */
    for (int i = 0; i < RMA_KEY_TL_NAME; i++) {
        uint8_t c = b[24 + i];

        if (c == 0) {
            if (i == 0)
                return rtm_error_set(RTM_ERR_INVALID_ARG, "rma key: no transport name");
            for (int j = i; j < RMA_KEY_TL_NAME; j++)
                if (b[24 + j] != 0)
                    return rtm_error_set(RTM_ERR_INVALID_ARG, "rma key: bad transport name");
            break;
        }
        if (c < 0x21 || c > 0x7e)
            return rtm_error_set(RTM_ERR_INVALID_ARG, "rma key: bad transport name");
    }
    memset(view, 0, sizeof(*view));
    view->addr = addr;
    view->len = rlen;
    view->rights = b[5];
    view->asked = b[7];
    memcpy(view->tl_name, b + 24, RMA_KEY_TL_NAME);
    view->tl_name[RMA_KEY_TL_NAME] = '\0';
    view->tl_key_len = n;
    view->tl_key = b + RMA_KEY_HDR;
    return RTM_OK;
}
