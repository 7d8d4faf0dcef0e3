/*
 * Fuzz target: the packed key of an exposed region, as a peer sends it
 * (runtime/rma_key.c, rma_key_parse; the runtime's rtm_rma_key_unpack
 * calls it first). For what it accepts: the region does not wrap, the
 * rights granted are known ones within those asked, the transport key lies within the blob
 * and fits an unpacked key, the name is printable, and packing the parsed
 * fields again gives the same bytes (nothing in an accepted key is
 * ignored).
 */
#include "runtime/rma_key.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t again[RTM_RMA_KEY_MAX];
    size_t again_len = sizeof(again);
    rma_key_view_t v;

    if (rma_key_parse(data, size, &v) != RTM_OK)
        return 0;
    FZ_CHECK(v.len > 0 && v.addr + v.len > v.addr);
    FZ_CHECK(v.rights != 0 && (v.asked & ~7u) == 0 && (v.rights & ~v.asked) == 0);
    FZ_CHECK(v.tl_key_len > 0 && v.tl_key_len <= RMA_KEY_TL_MAX);
    FZ_CHECK(v.tl_key == data + RMA_KEY_HDR && RMA_KEY_HDR + v.tl_key_len == size);
    FZ_CHECK(strlen(v.tl_name) >= 1 && strlen(v.tl_name) <= RMA_KEY_TL_NAME);
    for (size_t i = 0; v.tl_name[i]; i++)
        FZ_CHECK(v.tl_name[i] > 0x20 && v.tl_name[i] < 0x7f);
    FZ_CHECK(rma_key_pack(again, &again_len, v.addr, v.len, v.rights, v.asked, v.tl_name,
                          v.tl_key, v.tl_key_len) == RTM_OK);
    FZ_CHECK(again_len == size && memcmp(again, data, size) == 0);
    return 0;
}
