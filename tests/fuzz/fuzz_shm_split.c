/*
 * Fuzz target: what a rank takes from a local peer for a split read
 * (transport/shm/shm_split.c): the SHM_AM_SPLIT record, through
 * shm_split_check, and the slot word both ranks write, through
 * shm_split_claim, claimed from both ends until nothing is left. The
 * input: the 40-byte record, then a 64-bit word, then one byte per claim
 * choosing the side. Every range claimed lies in the message, no byte is
 * claimed twice, and the claims end.
 */
#include "config.h"

#include "transport/shm/shm.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    shm_split_req_t req;
    shm_split_claim_t c;
    uint64_t w, lo, hi;
    size_t i = sizeof(req) + sizeof(w);

    if (size < sizeof(req))
        return 0;
    if (shm_split_check(data, sizeof(req), &req) != 0)
        return 0;
    FZ_CHECK(req.slot < SHM_SPLIT_SLOTS && req.nchunks >= 2 && req.len > 0 &&
             req.chunk >= SHM_PAGE && req.chunk % SHM_PAGE == 0);
    FZ_CHECK((uint64_t)(req.nchunks - 1) * req.chunk < req.len &&
             req.len <= (uint64_t)req.nchunks * req.chunk);
    /* a record one byte short or long is refused */
    FZ_CHECK(shm_split_check(data, sizeof(req) - 1, &req) != 0);
    if (size < sizeof(req) + sizeof(w)) {
        /* the receiver's own fresh word */
        w = (uint64_t)req.gen << 32 | req.nchunks;
    } else {
        memcpy(&w, data + sizeof(req), sizeof(w));
    }
    /* [lo, hi): the bytes not yet claimed, as the word says */
    lo = ((w >> 16) & 0xffff) * req.chunk;
    hi = (w & 0xffff) * req.chunk;
    if (hi > req.len)
        hi = req.len;
    for (int n = 0; n < 64; n++) {
        int sender = i < size ? data[i++] & 1 : n & 1;

        if (!shm_split_claim(w, req.gen, req.nchunks, req.chunk, req.len, sender, &c))
            break;
        FZ_CHECK(c.chunks >= 1 && c.off < c.end && c.end <= req.len);
        FZ_CHECK((c.word >> 32) == req.gen);
        if (sender) {
            FZ_CHECK(c.end == hi && c.off >= lo);
            hi = c.off;
        } else {
            FZ_CHECK(c.off == lo && c.end <= hi);
            lo = c.end;
        }
        w = c.word;
    }
    /* each claim takes half of what is left: 64 leave nothing of 65535 chunks */
    FZ_CHECK(!shm_split_claim(w, req.gen, req.nchunks, req.chunk, req.len, 0, &c));
    return 0;
}
