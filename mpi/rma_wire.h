/*
 * The one-sided engine's messages (mpi/rma.c): what an origin sends a
 * target on the window's hidden communicator. Kept apart from the engine so
 * the target's checks of what arrives (rma_wire.c) build alone, for the
 * fuzz target tests/fuzz/fuzz_rma_hdr.c.
 */
#ifndef RTMPI_RMA_WIRE_H
#define RTMPI_RMA_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* Message tags on the hidden communicator. Data and replies of operation
 * `seq` (counted per origin-target pair) use their own tag so a receive
 * names exactly its message. */
#define RMA_TAG_HDR   1
#define RMA_TAG_POST  2
#define RMA_TAG_KEY   3    /* window creation: a rank's key for one peer (win.c) */
#define RMA_TAG_DATA  16
#define RMA_SEQ_MASK  0xfffffu
static inline int rma_tag(uint32_t seq, int reply)
{
    return RMA_TAG_DATA + (int)((seq & RMA_SEQ_MASK) << 1) + reply;
}

enum rma_kind {
    RMA_PUT = 1, RMA_GET, RMA_ACC, RMA_GACC, RMA_CAS,
    RMA_LOCK, RMA_UNLOCK, RMA_FLUSH, RMA_COMPLETE,
};

/* rma_hdr_t.flags */
#define RMA_F_INLINE  1u    /* runs and data follow the header in its message */
#define RMA_F_FENCE   2u    /* issued in a fence epoch: counted for the fence */
#define RMA_F_EXCL    4u    /* lock/unlock: exclusive */
#define RMA_F_NOCHECK 8u    /* unlock of a lock taken with MPI_MODE_NOCHECK */

typedef struct rma_hdr {
    uint32_t kind;
    uint32_t seq;
    uint32_t flags;
    int32_t  op;        /* accumulates: a predefined MPI_Op */
    int32_t  basic;     /* nruns == 0: the basic type of the target data */
    uint32_t nruns;     /* 0: the target data is one byte range at disp */
    int64_t  disp;      /* bytes from the target's base (dynamic: an address) */
    int64_t  bytes;     /* bytes of target data */
    int64_t  dbytes;    /* bytes of data the origin sends (CAS: value, compare) */
} rma_hdr_t;

/* A run of the target datatype (rtmpi_dtype_walk), relative to disp. */
typedef struct rma_run {
    int64_t disp;
    int64_t len;
    int32_t basic;
    int32_t pad;
} rma_run_t;

/* Header messages are at most this long (a receive of this size is posted
 * for them); bigger payloads travel as their own message. */
#define RMA_HDR_MAX 4096

/* Where the data of an inline message starts: after the header and its
 * runs, 16-byte aligned. */
static inline size_t rma_data_off(uint32_t nruns)
{
    return (sizeof(rma_hdr_t) + (size_t)nruns * sizeof(rma_run_t) + 15) & ~(size_t)15;
}

/* The target's checks of a header message of `got` bytes, and of the run
 * list that follows it (inline: in the same message; else received on its
 * own once the header passed): NULL when it is one this library's origin
 * sends, else what is wrong with it. Nothing is read through a message
 * before it passed, so a corrupt one ends the job with that reason instead
 * of reading or writing outside the window or the message. */
const char *rma_hdr_invalid(const rma_hdr_t *h, size_t got);
const char *rma_runs_invalid(const rma_hdr_t *h, const rma_run_t *runs);

#endif
