/*
 * The packed key of an exposed region (runtime/rma_key.c): what one rank
 * sends one peer so the peer can reach the region one-sided. Pure: packing
 * and checking bytes, no runtime state, so tests/fuzz/fuzz_rma_key.c links
 * it alone.
 *
 * Layout (host byte order: a job's ranks share one architecture):
 *   offset size
 *     0     4   magic      RMA_KEY_MAGIC ("RMK1")
 *     4     1   version    1
 *     5     1   rights     RTM_RMA_READ|WRITE|ATOMIC granted by the transport
 *                          (nonzero, within `asked`)
 *     6     1   tl_key_len bytes of the transport's key (1..RMA_KEY_TL_MAX)
 *     7     1   asked      the rights the owner exposed the region with (a
 *                          right asked but not granted -- atomics on shm --
 *                          is "not available" at the origin, not refused)
 *     8     8   addr       region start in the owner's address space
 *    16     8   len        region length (> 0, addr + len does not wrap)
 *    24     8   tl name    the transport the key is for, NUL-padded
 *    32   n     the transport's key (mem_key)
 *   = 32 + n bytes, exactly.
 */
#ifndef RTM_RUNTIME_RMA_KEY_H
#define RTM_RUNTIME_RMA_KEY_H

#include "rtmsg.h"

#include <stddef.h>
#include <stdint.h>

#define RMA_KEY_MAGIC   0x314b4d52u   /* "RMK1" */
#define RMA_KEY_VERSION 1
#define RMA_KEY_HDR     32
#define RMA_KEY_TL_MAX  64            /* RTM_TL_RKEY_MAX */
#define RMA_KEY_TL_NAME 8

/* What a key says, once checked. */
typedef struct rma_key_view {
    uint64_t       addr;
    uint64_t       len;
    unsigned       rights;
    unsigned       asked;
    char           tl_name[RMA_KEY_TL_NAME + 1];
    size_t         tl_key_len;
    const uint8_t *tl_key;        /* inside the checked blob */
} rma_key_view_t;

/* Pack into buf (*len_p in: size, out: bytes). RTM_ERR_INVALID_ARG when
 * the pieces do not fit the layout. */
rtm_status_t rma_key_pack(void *buf, size_t *len_p, uint64_t addr, uint64_t len,
                          unsigned rights, unsigned asked, const char *tl_name, const void *tl_key,
                          size_t tl_key_len);
/* Check a blob from a peer; RTM_OK and *view filled only if every field is
 * valid (RTM_ERR_INVALID_ARG with the reason otherwise). */
rtm_status_t rma_key_parse(const void *blob, size_t len, rma_key_view_t *view);

#endif
