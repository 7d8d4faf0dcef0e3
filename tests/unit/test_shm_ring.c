/*
 * The ring of shm_fifo.h alone, producer and consumer in two threads of one
 * process (so ThreadSanitizer can check its memory ordering:
 * `make CFLAGS=-fsanitize=thread tests/unit/test_shm_ring`). Random record
 * sizes across several ring sizes exercise wrap-around, skip markers and the
 * sentinel that keeps stale payload from looking like a header: every record
 * must arrive whole, in order, byte for byte. Payload is adversarial: the
 * first word of every payload line looks like a valid header for the
 * position that line will have one lap later, so a ring that ever read a
 * stale payload line as a record boundary would deliver garbage.
 */
#include "config.h"

#include "transport/shm/shm_fifo.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>


typedef struct ring_test {
    shm_fifo_tx_t    tx;
    shm_fifo_rx_t    rx;
    _Atomic uint64_t tail;
    size_t           max_len;
    unsigned long    again;
    uint64_t         records;
} ring_test_t;

static uint64_t prng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Sizes biased to the interesting ones: one line, line boundaries, big. */
static size_t pick_len(uint64_t *rng, size_t max_len)
{
    uint64_t r = prng(rng);

    switch (r % 4) {
    case 0:  return (size_t)(r >> 8) % (SHM_LINE_DATA + 1);
    case 1:  return ((size_t)(r >> 8) % 8 + 1) * SHM_LINE - SHM_REC_HDR + (size_t)(r >> 20) % 3 - 1;
    default: return (size_t)(r >> 8) % (max_len + 1);
    }
}

static unsigned char pattern(uint64_t n, size_t i)
{
    return (unsigned char)(n * 131u + i * 7u + 1u);
}

/* Where the record will start (after a skip marker if it must wrap). */
static uint64_t predict_rec(const shm_fifo_tx_t *tx, size_t total)
{
    uint64_t lines = shm_rec_lines(total), off = tx->head & tx->mask, n = tx->mask + 1;

    return tx->head + (off + lines > n ? n - off : 0);
}

static void fill(unsigned char *buf, uint64_t n, size_t len, uint64_t rec, uint64_t nlines)
{
    memcpy(buf, &n, len < 8 ? len : 8);
    for (size_t i = 8; i < len; i++)
        buf[i] = pattern(n, i);
    for (uint64_t j = 1; SHM_LINE * j - SHM_REC_HDR + 8 <= len; j++) {
        uint64_t fake = shm_rec_word(rec + j + nlines, 0, 8);

        memcpy(buf + SHM_LINE * j - SHM_REC_HDR, &fake, 8);
    }
}

static void *producer(void *arg)
{
    ring_test_t *t = arg;
    unsigned char *buf = malloc(t->max_len + 2);
    uint64_t rng = 12345;

    for (uint64_t n = 0; n < t->records; n++) {
        size_t len = pick_len(&rng, t->max_len);
        size_t hdr_len = len < 16 ? len : 16;

        if (len > t->max_len)
            len = t->max_len;
        if (hdr_len > len)
            hdr_len = len;
        fill(buf, n, len, predict_rec(&t->tx, len), t->tx.mask + 1);
        while (shm_fifo_push(&t->tx, (unsigned)(n % 16), buf, hdr_len, buf + hdr_len,
                             len - hdr_len) != 0) {
            t->again++;
            sched_yield();   /* 2 cores shared with other work */
        }
    }
    free(buf);
    return NULL;
}

static int run(uint64_t nlines, uint64_t records)
{
    ring_test_t t;
    pthread_t thr;
    unsigned char *expect;
    uint64_t rng = 12345;
    int failed = 0;

    memset(&t, 0, sizeof(t));
    t.tx.lines = aligned_alloc(SHM_LINE, nlines * SHM_LINE);
    t.tx.harmless = malloc(nlines);
    memset(t.tx.lines, 0, nlines * SHM_LINE);
    memset(t.tx.harmless, 1, nlines);
    /* stale garbage everywhere must not matter: pre-fill payload bytes */
    for (uint64_t l = 0; l < nlines; l++)
        memset(t.tx.lines[l].data, 0xff, SHM_LINE_DATA);
    atomic_init(&t.tail, 0);
    t.tx.tail = t.rx.tail = &t.tail;
    t.tx.mask = t.rx.mask = nlines - 1;
    t.rx.lines = t.tx.lines;
    t.max_len = (size_t)(nlines / 4) * SHM_LINE - SHM_REC_HDR;
    t.records = records;
    expect = malloc(t.max_len + 8);
    pthread_create(&thr, NULL, producer, &t);
    for (uint64_t n = 0; n < records && !failed; n++) {
        size_t len = pick_len(&rng, t.max_len), hdr_len;
        shm_line_t *line;
        uint64_t word;
        const unsigned char *p;
        uint64_t seq = 0;

        if (len > t.max_len)
            len = t.max_len;
        hdr_len = len < 16 ? len : 16;
        (void)hdr_len;
        while ((line = shm_fifo_peek(&t.rx, &word)) == NULL)
            sched_yield();
        p = line->data;
        if ((word & SHM_REC_LEN_MAX) != len || ((word >> 24) & 0x7f) != n % 16) {
            fprintf(stderr, "FAIL ring %llu lines: record %llu: %llu B am %llu, expected %zu B\n",
                    (unsigned long long)nlines, (unsigned long long)n,
                    (unsigned long long)(word & SHM_REC_LEN_MAX),
                    (unsigned long long)((word >> 24) & 0x7f), len);
            failed = 1;
            break;
        }
        memcpy(&seq, p, len < 8 ? len : 8);
        if (len >= 8 && seq != n) {
            fprintf(stderr, "FAIL record %llu carries %llu\n", (unsigned long long)n,
                    (unsigned long long)seq);
            failed = 1;
        }
        fill(expect, n, len, t.rx.pos, nlines);
        for (size_t i = 0; i < len && !failed; i++) {
            if (p[i] != expect[i]) {
                fprintf(stderr, "FAIL record %llu: byte %zu differs\n", (unsigned long long)n, i);
                failed = 1;
            }
        }
        shm_fifo_release(&t.rx, word);
    }
    if (failed)
        exit(1);
    pthread_join(thr, NULL);
    printf("ok   ring of %llu lines: %llu records up to %zu B, %lu full-ring retries\n",
           (unsigned long long)nlines, (unsigned long long)records, t.max_len, t.again);
    free(expect);
    free(t.tx.lines);
    free(t.tx.harmless);
    return failed;
}

int main(void)
{
    int failed = 0;

    failed |= run(16, 300000);
    failed |= run(128, 200000);
    failed |= run(4096, 20000);
    return failed;
}
