/*
 * Per-pair single-producer/single-consumer ring in the job's shared segment
 * (and, further down, the shared multi-producer queue that replaces the
 * rings past their floor: same records, "Shared queue").
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

/* Sender's private view of one ring (lives in the endpoint), or of the
 * receiver's shared queue (qhead != NULL, below). */
typedef struct shm_fifo_tx {
    shm_line_t       *lines;
    _Atomic uint64_t *tail;          /* receiver's published position */
    uint64_t          mask;          /* nlines - 1 */
    uint64_t          head;          /* next line position to write (a shared
                                      * queue: unused, qhead is its head) */
    uint64_t          cached_tail;   /* last tail read; refreshed only when short */
    unsigned char    *harmless;      /* per line: 1 = safe as a record boundary */
    _Atomic uint64_t *qhead;         /* shared queue: the head every sender reserves
                                      * from; NULL for a pair ring */
    uint64_t          src_pos;       /* shared queue: the sender's local rank << 16,
                                      * added to the position a header's stamp is
                                      * made of; 0 for a ring */
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
 * Shared queue (RTM_SHM_QUEUE=shared, or auto once the pair rings would
 * fall below their floor; shm.h has the segment's layout). One
 * multi-producer/single-consumer queue per receiving rank, in the same
 * record format as a ring, with three differences:
 *
 * - Senders reserve lines by a compare-and-swap of the queue's head (its
 *   own control line, shm_queue_ctrl_t), checked against the receiver's
 *   published tail; a record and the SKIP before it (when it would not fit
 *   before the lap end) are reserved together. A full queue: -1, nothing
 *   written. No line is kept free: there is no sentinel (below).
 * - The header word carries the sender's local rank: the stamp is made of
 *   the position plus tx->src_pos (its rank << 16), so bits 32..63 hold
 *   (uint32_t)position + (rank << 16): the receiver takes the stamp from the
 *   low 16 and the rank from the high 16 bits of their difference from its
 *   position. len keeps its 24 bits; a queue holds up to 65536 local ranks
 *   (shm_addr_t's width). The one-line claim hands out that sum as the
 *   record's position, so the commit is a ring's, unchanged.
 * - Before it publishes the new tail, the receiver zeroes the first word of
 *   every line of a record it consumed but the header's (the payload lines)
 *   and of the lines a SKIP passed over. So once the receiver has gone
 *   round a lap, every line holds zero or a header written in that lap,
 *   whose stamp is nlines behind the line's position in the next lap: not
 *   valid there (a queue has at most SHM_QUEUE_MAX_LINES < 2^16 lines, so
 *   the 16-bit stamp tells the laps apart). A line a sender reserved but
 *   has not written yet thus reads as not valid, and the receiver waits for
 *   it (other senders' later records wait behind it); payload bytes of an
 *   earlier lap never look like a header. A one-line record, the common
 *   small message, costs the receiver no store to the queue's data. No
 *   per-line bookkeeping at the senders.
 *
 * The CAS makes the queue safe for any number of producers, threads or
 * processes. Each producer's private state (cached_tail, head) is its own:
 * the runtime calls a transport from one thread at a time (the MPI binding
 * provides MPI_THREAD_SERIALIZED at most), so one shm_fifo_tx_t per peer
 * per process suffices. Records of one sender arrive in the order it
 * reserved them. A sender descheduled between its reservation and its
 * header store delays the queue's later records (every queue of this kind
 * has that window); it holds no lock and its process dying is a failed
 * peer as any other.
 */
#define SHM_QUEUE_SRC_SHIFT 16u   /* of the rank in src_pos */
#define SHM_QUEUE_MAX_LINES (1u << 15)   /* 2 MiB: the 16-bit stamp must tell laps apart */
#define SHM_QUEUE_SRC_MAX   0xffffu

typedef struct shm_queue_ctrl {
    _Atomic uint64_t head;                 /* senders' CAS */
    char             pad[2 * SHM_LINE - sizeof(uint64_t)];
    _Atomic uint64_t tail;                 /* receiver-written */
    char             pad2[2 * SHM_LINE - sizeof(uint64_t)];
} shm_queue_ctrl_t;

_Static_assert(sizeof(shm_queue_ctrl_t) == 4 * SHM_LINE,
               "head and tail in 128 B units of their own (adjacent-line prefetch)");

/* Reserve a record of `lines` lines (preceded by a SKIP of *skip_p lines
 * to the lap end when it would not fit before it): 0 with its first
 * position (the SKIP's, if any) in *pos_p, or -1 when the queue lacks
 * space. */
static inline int shm_queue_reserve(shm_fifo_tx_t *tx, uint64_t lines, uint64_t *pos_p,
                                    uint64_t *skip_p)
{
    const uint64_t nlines = tx->mask + 1;
    uint64_t pos = atomic_load_explicit(tx->qhead, memory_order_relaxed);

    for (;;) {
        const uint64_t off = pos & tx->mask;
        const uint64_t skip = (off + lines > nlines) ? nlines - off : 0;
        const uint64_t end = pos + skip + lines;

        /* the lines up to end were zeroed by the receiver before it
         * published a tail this far (acquire) */
        if (end - tx->cached_tail > nlines) {
            tx->cached_tail = atomic_load_explicit(tx->tail, memory_order_acquire);
            if (end - tx->cached_tail > nlines)
                return -1;
        }
        if (atomic_compare_exchange_weak_explicit(tx->qhead, &pos, end, memory_order_relaxed,
                                                  memory_order_relaxed)) {
            *pos_p = pos;
            *skip_p = skip;
            return 0;
        }
    }
}

/* Write and publish a record reserved by shm_queue_reserve (pos, skip). */
static inline void shm_queue_write(shm_fifo_tx_t *tx, uint64_t pos, uint64_t skip,
                                   unsigned am_id, const void *hdr, size_t hdr_len,
                                   const void *payload, size_t len)
{
    const size_t total = hdr_len + len;
    shm_line_t *line = &tx->lines[(pos + skip) & tx->mask];

    if (total <= SHM_LINE_DATA) {
        shm_copy_small(line->data, hdr, hdr_len);
        shm_copy_small(line->data + hdr_len, payload, len);
    } else {
        if (hdr_len > 0)
            memcpy(line->data, hdr, hdr_len);
        if (len > 0)
            memcpy(line->data + hdr_len, payload, len);
    }
    atomic_store_explicit(&line->word, shm_rec_word(pos + skip + tx->src_pos, am_id, total),
                          memory_order_release);
    if (skip > 0)
        atomic_store_explicit(&tx->lines[pos & tx->mask].word,
                              shm_rec_word(pos + tx->src_pos, SHM_AM_SKIP, skip),
                              memory_order_release);
}

/* Append one record to a shared queue: 0, or -1 when it lacks space
 * (nothing written). */
static inline int shm_queue_push(shm_fifo_tx_t *tx, unsigned am_id, const void *hdr,
                                 size_t hdr_len, const void *payload, size_t len)
{
    uint64_t pos, skip;

    if (shm_queue_reserve(tx, shm_rec_lines(hdr_len + len), &pos, &skip) != 0)
        return -1;
    shm_queue_write(tx, pos, skip, am_id, hdr, hdr_len, payload, len);
    return 0;
}

/* Zero the first word of lines 1 .. n - 1 from `line` (within one lap):
 * what the receiver leaves behind a record or a SKIP in a shared queue. */
static inline void shm_queue_zero_after(shm_line_t *line, uint64_t n)
{
    for (uint64_t i = 1; i < n; i++)
        atomic_store_explicit(&line[i].word, 0, memory_order_relaxed);
}

/* The next record of a shared queue, or NULL when there is none (yet: a
 * reserved line holds zero or last lap's header until its sender publishes
 * it). *word_p receives its header word, *src_p its sender's local rank. */
static inline shm_line_t *shm_queue_peek(shm_fifo_rx_t *rx, uint64_t *word_p, unsigned *src_p)
{
    for (;;) {
        shm_line_t *line = &rx->lines[rx->pos & rx->mask];
        uint64_t word = atomic_load_explicit(&line->word, memory_order_acquire);
        uint32_t d = (uint32_t)(word >> 32) - (uint32_t)rx->pos;

        if (!(word & SHM_WORD_VALID) || (d & 0xffffu) != 0)
            return NULL;
        if (((word >> 24) & 0x7f) != SHM_AM_SKIP) {
            *word_p = word;
            *src_p = d >> 16;
            return line;
        }
        /* the skipped lines were not written this lap: they hold zero or a
         * header of the last one, which must not survive another lap */
        shm_queue_zero_after(line, word & SHM_REC_LEN_MAX);
        rx->pos += word & SHM_REC_LEN_MAX;
        atomic_store_explicit(rx->tail, rx->pos, memory_order_release);
    }
}

/* Give a shared queue's record back: the first word of its payload lines
 * zeroed (the header line keeps its header, which the stamp rejects next
 * lap), then the tail published (release: a sender that reads it sees the
 * zeroes). */
static inline void shm_queue_release(shm_fifo_rx_t *rx, uint64_t word)
{
    const uint64_t lines = shm_rec_lines((size_t)(word & SHM_REC_LEN_MAX));
    shm_line_t *line = &rx->lines[rx->pos & rx->mask];

    shm_queue_zero_after(line, lines);   /* a record never wraps */
    rx->pos += lines;
    atomic_store_explicit(rx->tail, rx->pos, memory_order_release);
}

/* A pair ring's one-line claim (shm_fifo_line_claim without the queue). */
static inline int shm_ring_line_claim(shm_fifo_tx_t *tx, shm_line_t **line_p, uint64_t *pos_p)
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

/*
 * A one-line record written in place, for a sender that builds its bytes in
 * the ring (the runtime's eager send, shm_direct.h): shm_fifo_line_claim
 * gives the line whose data (SHM_LINE_DATA bytes) the record fills and its
 * position, or returns -1 when the ring lacks space (nothing written);
 * shm_fifo_line_commit then publishes len bytes of it. Nothing else is
 * appended in between. A line never wraps (one always fits before the end
 * of the data area). The same calls serve a shared queue: the claim is a
 * reservation (one compare-and-swap) and the position it gives carries the
 * sender's rank (src_pos), which the commit's stamp takes along: the commit
 * is the same for both, and in shared mode tx->head says nothing (qhead
 * does).
 * Hot path: no allocation, lock or log; a pair ring: no atomic
 * read-modify-write and one predicted branch more than the ring alone.
 */
static inline int shm_fifo_line_claim(shm_fifo_tx_t *tx, shm_line_t **line_p, uint64_t *pos_p)
{
    if (__builtin_expect(tx->qhead != NULL, 0)) {
        uint64_t skip;

        if (shm_queue_reserve(tx, 1, pos_p, &skip) != 0)
            return -1;
        *line_p = &tx->lines[*pos_p & tx->mask];   /* one line never needs a skip */
        *pos_p += tx->src_pos;
        return 0;
    }
    return shm_ring_line_claim(tx, line_p, pos_p);
}

static inline void shm_fifo_line_commit(shm_fifo_tx_t *tx, shm_line_t *line, uint64_t pos,
                                        unsigned am_id, size_t len)
{
    atomic_store_explicit(&line->word, shm_rec_word(pos, am_id, len), memory_order_release);
    tx->head = pos + 1;
}

/* Append a one-line record to a pair ring: hdr_len + len <= SHM_LINE_DATA.
 * Returns 0, or -1 when the ring lacks space (nothing written). */
static inline int shm_fifo_push_line(shm_fifo_tx_t *tx, unsigned am_id, const void *hdr,
                                     size_t hdr_len, const void *payload, size_t len)
{
    shm_line_t *line;
    uint64_t pos;

    if (shm_ring_line_claim(tx, &line, &pos) != 0)
        return -1;
    shm_copy_small(line->data, hdr, hdr_len);
    shm_copy_small(line->data + hdr_len, payload, len);
    shm_fifo_line_commit(tx, line, pos, am_id, hdr_len + len);
    return 0;
}

/*
 * Append one record to a ring or a shared queue. Returns 0, or -1 when it
 * lacks space (nothing written). Hot path: no allocation, lock or log; a
 * pair ring: no atomic read-modify-write.
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

    if (__builtin_expect(tx->qhead != NULL, 0))
        return shm_queue_push(tx, am_id, hdr, hdr_len, payload, len);
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
