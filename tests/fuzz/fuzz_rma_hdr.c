/*
 * Fuzz target: what a one-sided target receives from an origin (mpi/rma.c),
 * through the checks it makes before reading anything through it
 * (mpi/rma_wire.c): a header message, with its run list and data inline
 * or the run list as a message of its own.
 *
 * The input: u8 mode (bit 0: the run list comes as its own message, after
 * a header message of exactly a header), then the message bytes (at most
 * RMA_HDR_MAX: the receive the target posts is that long). For what the
 * checks accept, the target's later reads are replayed here: every run lies
 * within the target bytes the header names, the runs' data within the
 * origin data that came, and the inline data within the message.
 */
#include "mpi/rma_wire.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static void replay(const rma_hdr_t *h, const rma_run_t *runs, size_t data_avail)
{
    int64_t lo = 0, hi = h->bytes, used = 0;

    if (h->nruns) {
        lo = INT64_MAX;
        hi = INT64_MIN;
        for (uint32_t i = 0; i < h->nruns; i++) {
            FZ_CHECK(runs[i].len >= 0);
            if (runs[i].disp < lo)
                lo = runs[i].disp;
            if (runs[i].disp + runs[i].len > hi)   /* no overflow: checked ranges */
                hi = runs[i].disp + runs[i].len;
            used += runs[i].len;
        }
        FZ_CHECK(used == h->bytes);
    }
    FZ_CHECK(h->bytes >= 0 && h->dbytes >= 0);
    /* what scatter/accumulate/compare read of the origin's data */
    if (h->kind == RMA_PUT || h->kind == RMA_ACC)
        FZ_CHECK((uint64_t)h->bytes <= (uint64_t)h->dbytes);
    if (h->kind == RMA_CAS)
        FZ_CHECK((uint64_t)2 * (uint64_t)h->bytes <= (uint64_t)h->dbytes);
    FZ_CHECK((uint64_t)h->dbytes <= data_avail || !(h->flags & RMA_F_INLINE));
    (void)lo;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in_t in = fz_in(data, size);
    int separate = fz_u8(&in) & 1;
    size_t n = in.left;
    const char *bad;

    if (n > RMA_HDR_MAX)
        return 0;
    /* the target's receive buffer: 16-byte aligned, RMA_HDR_MAX long */
    union {
        rma_hdr_t h;
        _Alignas(16) unsigned char raw[RMA_HDR_MAX];
    } *m = calloc(1, sizeof(*m));

    if (m == NULL)
        return 0;
    memcpy(m->raw, in.p, n);
    if (separate) {
        /* a header message of exactly a header, then the runs on their own */
        size_t got = n < sizeof(rma_hdr_t) ? n : sizeof(rma_hdr_t);

        bad = rma_hdr_invalid(&m->h, got);
        if (bad == NULL) {
            FZ_CHECK(got == sizeof(rma_hdr_t));
            if (m->h.flags & RMA_F_INLINE) {
                /* then a whole inline message: no runs and no data */
                FZ_CHECK(m->h.nruns == 0 && m->h.dbytes == 0);
                free(m);
                return 0;
            }
            size_t rb = (size_t)m->h.nruns * sizeof(rma_run_t);
            /* the runs' receive is exactly rb long: only a full list arrives */
            if (rb <= n - got) {
                rma_run_t *runs = fz_dup(m->raw + got, rb ? rb : 1);

                if (runs && (m->h.nruns == 0 || rma_runs_invalid(&m->h, runs) == NULL))
                    replay(&m->h, runs, 0);
                free(runs);
            }
        }
    } else {
        bad = rma_hdr_invalid(&m->h, n);
        if (bad == NULL && (m->h.flags & RMA_F_INLINE)) {
            const rma_run_t *runs = (const rma_run_t *)(const void *)(m->raw + sizeof(rma_hdr_t));

            FZ_CHECK(rma_data_off(m->h.nruns) + (size_t)m->h.dbytes == n);
            if (rma_runs_invalid(&m->h, runs) == NULL)
                replay(&m->h, runs, n - rma_data_off(m->h.nruns));
        } else if (bad == NULL) {
            FZ_CHECK(n == sizeof(rma_hdr_t));
        }
    }
    if (bad)
        FZ_CHECK(bad[0] != '\0');
    free(m);
    return 0;
}
