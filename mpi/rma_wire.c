/*
 * The target's checks of the one-sided engine's messages (rma_wire.h).
 * Its peers are processes of the same job, so a message that fails them
 * means a bug or corruption, never a user error: the engine ends the job
 * naming the sender and the reason.
 */
#include "rma_wire.h"

#include "mpi.h"

/* Lengths and displacements beyond this are refused: sums of two of them
 * stay far from int64_t's limits. */
#define RMA_WIRE_MAX ((int64_t)1 << 60)

static int accumulates(const rma_hdr_t *h)
{
    return h->kind == RMA_ACC || (h->kind == RMA_GACC && h->op != MPI_NO_OP);
}

static int basic_ok(int32_t basic)
{
    return basic > 0 && basic < RTMPI_N_PREDEFINED_TYPES;
}

const char *rma_hdr_invalid(const rma_hdr_t *h, size_t got)
{
    if (got < sizeof(*h))
        return "shorter than a header";
    switch (h->kind) {
    case RMA_LOCK:
    case RMA_UNLOCK:
    case RMA_FLUSH:
    case RMA_COMPLETE:
        if (got != sizeof(*h) || h->nruns || h->bytes || h->dbytes || (h->flags & RMA_F_INLINE))
            return "a synchronization message with data";
        return NULL;
    case RMA_PUT:
    case RMA_GET:
    case RMA_ACC:
    case RMA_GACC:
    case RMA_CAS:
        break;
    default:
        return "unknown kind";
    }
    if (h->bytes < 0 || h->bytes > RMA_WIRE_MAX || h->dbytes < 0 || h->dbytes > RMA_WIRE_MAX ||
        h->disp < -RMA_WIRE_MAX || h->disp > RMA_WIRE_MAX)
        return "a length or displacement out of range";
    if ((uint64_t)h->nruns > (uint64_t)h->bytes)
        return "more runs than bytes";
    int64_t want = h->kind == RMA_CAS ? 2 * h->bytes
                 : h->kind == RMA_GET || (h->kind == RMA_GACC && h->op == MPI_NO_OP) ? 0
                 : h->bytes;
    if (h->dbytes != want)
        return "origin data of the wrong length for its kind";
    if (h->kind == RMA_ACC || h->kind == RMA_GACC || h->kind == RMA_CAS) {
        if (h->op <= 0 || h->op > MPI_NO_OP)
            return "not a predefined operation";
        if (h->kind == RMA_CAS && h->op != MPI_REPLACE)
            return "compare-and-swap with an operation";
    }
    if (h->nruns == 0 && accumulates(h) && h->bytes > 0 && !basic_ok(h->basic))
        return "an accumulate of no predefined basic type";
    if (h->flags & RMA_F_INLINE) {
        if (rma_data_off(h->nruns) + (size_t)h->dbytes != got)
            return "an inline message whose length is not its header's";
    } else if (got != sizeof(*h)) {
        return "a header with trailing bytes";
    }
    return NULL;
}

const char *rma_runs_invalid(const rma_hdr_t *h, const rma_run_t *runs)
{
    int64_t sum = 0;

    for (uint32_t i = 0; i < h->nruns; i++) {
        const rma_run_t *r = &runs[i];

        if (r->len < 0 || r->len > RMA_WIRE_MAX || r->disp < -RMA_WIRE_MAX ||
            r->disp > RMA_WIRE_MAX)
            return "a run out of range";
        if (accumulates(h) && r->len > 0 && !basic_ok(r->basic))
            return "an accumulated run of no predefined basic type";
        sum += r->len;
        if (sum > h->bytes)
            return "runs longer than the header's bytes";
    }
    if (h->nruns && sum != h->bytes)
        return "runs shorter than the header's bytes";
    return NULL;
}
