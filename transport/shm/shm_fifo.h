/*
 * Per-pair single-producer/single-consumer ring in the job's shared segment.
 *
 * Every ordered pair (sender, receiver) of local ranks owns one ring. Only
 * the sender writes the ring's data lines; only the receiver writes the
 * ring's control line. No atomic read-modify-write anywhere: the sender
 * publishes a record with one release store of its header word, the
 * receiver frees space with one release store of its position.
 *
 * Ring layout: the data, nlines lines of 64 B (nlines a power of two), at a
 * line-aligned place in the segment (shm_seg.c); apart from it, one
 * shm_fifo_ctrl_t line written by the receiver only: tail = absolute line
 * position it has consumed up to. The control lines of the rings into one
 * rank sit together in the segment's control area, in a block only that
 * rank writes, so a ring costs its data and 64 B, not a page more.
 *
 * Record layout (contiguous in the ring, starts on a line, never wraps):
 *
 *   byte 0..7     header word (shm_rec_word), stored last with release:
 *                   bits  0..23  len: bytes of hdr||payload that follow
 *                                (SKIP: number of lines skipped)
 *                   bits 24..30  am_id (SHM_AM_SKIP = 127: wrap marker)
 *                   bit  31      valid
 *                   bits 32..63  stamp: low 32 bits of the record's
 *                                absolute line position
 *   byte 8..      the runtime's header then the payload, contiguous, so the
 *                 receiver hands the runtime a pointer into the ring
 *   padding to the next 64 B line
 *
 *   A record of up to 56 bytes of hdr||payload (SHM_LINE_DATA) is one cache
 *   line: the 16 B match header and a payload of up to 40 B travel in the
 *   same 64 B as the flag that says they are there, written once by the
 *   sender and polled by the receiver on a line nobody else writes.
 *
 * Validity. The receiver at absolute line position C accepts the line when
 * the valid bit is set and the stamp equals (uint32_t)C. A stale header
 * left from the previous lap carries stamp C - nlines and is rejected. A
 * stale *payload* line could hold any user bytes, so the sender keeps, per
 * ring, one byte per line saying whether the line's current content is
 * known to be harmless at a record boundary (zero, or a header written in
 * the previous lap); before it publishes a record ending at line E whose
 * content is not known harmless, it first stores a zero header word at E
 * (the "sentinel"). In steady small-message traffic every line was a header
 * one lap ago, so the fast path writes exactly one line.
 *
 * Wrap: a record that does not fit before the end of the data area is
 * preceded by a SKIP record covering the rest of the lap; the record itself
 * goes to line 0. Space accounting: the sender may use lines up to
 * tail + nlines - 1 (one line kept free for the sentinel).
 */
#ifndef RTM_TRANSPORT_SHM_FIFO_H
#define RTM_TRANSPORT_SHM_FIFO_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SHM_LINE          64u
#define SHM_LINE_SHIFT    6u
#define SHM_REC_HDR       8u                       /* header word */
#define SHM_LINE_DATA     (SHM_LINE - SHM_REC_HDR) /* 56 B of data in a 1-line record */
#define SHM_AM_SKIP       127u
#define SHM_REC_LEN_MAX   ((1u << 24) - 1)

#define SHM_WORD_VALID    (UINT64_C(1) << 31)

typedef struct shm_fifo_ctrl {
    _Atomic uint64_t tail;                 /* receiver-written */
    char             pad[SHM_LINE - sizeof(uint64_t)];
} shm_fifo_ctrl_t;

typedef struct shm_line {
    _Atomic uint64_t word;
    unsigned char    data[SHM_LINE_DATA];
} shm_line_t;

_Static_assert(sizeof(shm_line_t) == SHM_LINE, "a record line is one cache line");
_Static_assert(sizeof(shm_fifo_ctrl_t) == SHM_LINE, "control block is one line");

/* Sender's private view of one ring (lives in the endpoint). */
typedef struct shm_fifo_tx {
    shm_line_t       *lines;
    _Atomic uint64_t *tail;          /* receiver's published position */
    uint64_t          mask;          /* nlines - 1 */
    uint64_t          head;          /* next line position to write */
    uint64_t          cached_tail;   /* last tail read; refreshed only when short */
    unsigned char    *harmless;      /* per line: 1 = safe as a record boundary */
} shm_fifo_tx_t;

/* Receiver's private view of one ring (lives in the interface). */
typedef struct shm_fifo_rx {
    shm_line_t       *lines;
    _Atomic uint64_t *tail;
    uint64_t          mask;
    uint64_t          pos;           /* next line position to read */
    int               src;           /* sender's world rank */
} shm_fifo_rx_t;

static inline uint64_t shm_rec_word(uint64_t pos, unsigned am_id, size_t len)
{
    return ((uint64_t)(uint32_t)pos << 32) | SHM_WORD_VALID | ((uint64_t)am_id << 24) |
           (uint64_t)len;
}

static inline uint64_t shm_rec_lines(size_t len)
{
    return (SHM_REC_HDR + len + SHM_LINE - 1) >> SHM_LINE_SHIFT;
}

/* Copy a few bytes (a one-line record's header or payload) with fixed-size
 * moves the compiler turns into loads and stores, instead of a call to
 * memcpy for every small message. The tail move overlaps the last full one. */
static inline void shm_copy_small(unsigned char *dst, const unsigned char *src, size_t n)
{
    if (n >= 8 && n <= 16) {
        /* the match header alone, or 8-16 bytes of payload: two moves */
        memcpy(dst, src, 8);
        memcpy(dst + n - 8, src + n - 8, 8);
    } else if (n >= 8) {
        size_t i;

        for (i = 0; i + 8 <= n; i += 8)
            memcpy(dst + i, src + i, 8);
        if (i < n)
            memcpy(dst + n - 8, src + n - 8, 8);
    } else if (n >= 4) {
        memcpy(dst, src, 4);
        memcpy(dst + n - 4, src + n - 4, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            dst[i] = src[i];
    }
}

/* Room for a record ending at line position `end`, whose boundary line
 * must be free too (the sentinel), and that line made harmless: 0, or -1
 * when the ring lacks space (nothing written). */
static inline int shm_fifo_room(shm_fifo_tx_t *tx, uint64_t end)
{
    const uint64_t nlines = tx->mask + 1;

    if (end + 1 - tx->cached_tail > nlines) {
        tx->cached_tail = atomic_load_explicit(tx->tail, memory_order_acquire);
        if (end + 1 - tx->cached_tail > nlines)
            return -1;
    }
    if (!tx->harmless[end & tx->mask]) {
        atomic_store_explicit(&tx->lines[end & tx->mask].word, 0, memory_order_relaxed);
        tx->harmless[end & tx->mask] = 1;
    }
    return 0;
}

/*
 * A one-line record written in place, for a sender that builds its bytes in
 * the ring (the runtime's eager send, shm_direct.h): shm_fifo_line_claim
 * gives the line whose data (SHM_LINE_DATA bytes) the record fills and its
 * position, or returns -1 when the ring lacks space (nothing written);
 * shm_fifo_line_commit then publishes len bytes of it. Nothing else is
 * appended in between. A line never wraps (one always fits before the end
 * of the data area).
 * Hot path: no allocation, lock, log or atomic read-modify-write.
 */
static inline int shm_fifo_line_claim(shm_fifo_tx_t *tx, shm_line_t **line_p, uint64_t *pos_p)
{
    const uint64_t pos = tx->head;
    const uint64_t i = pos & tx->mask;
    shm_line_t *line = &tx->lines[i];

    if (shm_fifo_room(tx, pos + 1) != 0)
        return -1;
    tx->harmless[i] = 1;   /* a header once committed */
    *line_p = line;
    *pos_p = pos;
    return 0;
}

static inline void shm_fifo_line_commit(shm_fifo_tx_t *tx, shm_line_t *line, uint64_t pos,
                                        unsigned am_id, size_t len)
{
    atomic_store_explicit(&line->word, shm_rec_word(pos, am_id, len), memory_order_release);
    tx->head = pos + 1;
}

/* Append a one-line record: hdr_len + len <= SHM_LINE_DATA. Returns 0, or
 * -1 when the ring lacks space (nothing written). */
static inline int shm_fifo_push_line(shm_fifo_tx_t *tx, unsigned am_id, const void *hdr,
                                     size_t hdr_len, const void *payload, size_t len)
{
    shm_line_t *line;
    uint64_t pos;

    if (shm_fifo_line_claim(tx, &line, &pos) != 0)
        return -1;
    shm_copy_small(line->data, hdr, hdr_len);
    shm_copy_small(line->data + hdr_len, payload, len);
    shm_fifo_line_commit(tx, line, pos, am_id, hdr_len + len);
    return 0;
}

/*
 * Append one record. Returns 0, or -1 when the ring lacks space (nothing
 * written). Hot path: no allocation, lock, log or atomic read-modify-write.
 */
static inline int shm_fifo_push(shm_fifo_tx_t *tx, unsigned am_id, const void *hdr,
                                size_t hdr_len, const void *payload, size_t len)
{
    const size_t total = hdr_len + len;
    const uint64_t nlines = tx->mask + 1;
    const uint64_t lines = shm_rec_lines(total);
    const uint64_t pos = tx->head;
    const uint64_t off = pos & tx->mask;
    const uint64_t skip = (off + lines > nlines) ? nlines - off : 0;
    const uint64_t rec = pos + skip;
    const uint64_t end = rec + lines;
    shm_line_t *line;

    if (lines == 1)
        return shm_fifo_push_line(tx, am_id, hdr, hdr_len, payload, len);
    /* end is the next record boundary; its line must be free too (sentinel) */
    if (shm_fifo_room(tx, end) != 0)
        return -1;

    line = &tx->lines[rec & tx->mask];
    if (hdr_len > 0)
        memcpy(line->data, hdr, hdr_len);
    if (len > 0)
        memcpy(line->data + hdr_len, payload, len);
    memset(&tx->harmless[(rec & tx->mask) + 1], 0, (size_t)(lines - 1));
    tx->harmless[rec & tx->mask] = 1;
    atomic_store_explicit(&line->word, shm_rec_word(rec, am_id, total), memory_order_release);

    if (skip > 0) {
        /* after the record: the receiver jumps over the tail only once the
         * record at line 0 is complete. Lines inside the skipped range keep
         * their old content, which may be payload: not harmless. */
        if (skip > 1)
            memset(&tx->harmless[off + 1], 0, (size_t)(skip - 1));
        tx->harmless[off] = 1;
        atomic_store_explicit(&tx->lines[off].word, shm_rec_word(pos, SHM_AM_SKIP, skip),
                              memory_order_release);
    }
    tx->head = end;
    return 0;
}

/*
 * The next record of a ring, or NULL when there is none. *word_p receives
 * its header word. The record stays valid until shm_fifo_release().
 */
static inline shm_line_t *shm_fifo_peek(shm_fifo_rx_t *rx, uint64_t *word_p)
{
    for (;;) {
        shm_line_t *line = &rx->lines[rx->pos & rx->mask];
        uint64_t word = atomic_load_explicit(&line->word, memory_order_acquire);

        if (!(word & SHM_WORD_VALID) || (uint32_t)(word >> 32) != (uint32_t)rx->pos)
            return NULL;
        if (((word >> 24) & 0x7f) != SHM_AM_SKIP) {
            *word_p = word;
            return line;
        }
        rx->pos += word & SHM_REC_LEN_MAX;
        atomic_store_explicit(rx->tail, rx->pos, memory_order_release);
    }
}

/* Give the record's lines back to the sender. */
static inline void shm_fifo_release(shm_fifo_rx_t *rx, uint64_t word)
{
    rx->pos += shm_rec_lines((size_t)(word & SHM_REC_LEN_MAX));
    atomic_store_explicit(rx->tail, rx->pos, memory_order_release);
}

#endif
