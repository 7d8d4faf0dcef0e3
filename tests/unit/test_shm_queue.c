/*
 * The shared queue of shm_fifo.h alone (RTM_SHM_QUEUE=shared): several
 * producer threads, each with its own sender state as a rank has, and one
 * consumer, on queues of several sizes. Every record must arrive whole,
 * byte for byte, and each producer's records in the order it sent them,
 * through wrap-around (SKIP records reserved with the record), a full queue
 * (the producers start before the consumer and must see -1) and the
 * one-line claim/commit path the runtime's eager send uses. Payload is
 * adversarial: the first word of every payload line looks like a valid
 * header, with the right stamp and a real producer, for the position that
 * line has one lap later, so a receiver that did not zero consumed lines
 * would deliver garbage. Also meant for ThreadSanitizer
 * (`make CFLAGS=-fsanitize=thread tests/unit/test_shm_queue`).
 *
 * Then the segment's geometry (shm_geom.c): RTM_SHM_QUEUE=auto keeps pair
 * rings up to 449 local ranks at the default budget and takes shared
 * queues from 450, sizes linear in the ranks.
 */
#include "config.h"

#include "common/rtconfig.h"
#include "transport/shm/shm.h"
#include "transport/shm/shm_config.h"
#include "transport/shm/shm_fifo.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#define PRODUCERS_MAX 8

static int failures;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);             \
            fprintf(stderr, __VA_ARGS__);                                    \
            fprintf(stderr, "\n");                                           \
            failures++;                                                      \
        }                                                                    \
    } while (0)

typedef struct producer {
    shm_fifo_tx_t  tx;            /* this producer's own view, as a rank's */
    unsigned       rank;          /* its local rank (1..n) */
    uint64_t       records;
    size_t         max_len;
    _Atomic int   *go;
    unsigned long  again;
    char           pad[64];
} producer_t;

typedef struct queue_test {
    shm_line_t       *lines;
    uint64_t          nlines;
    shm_queue_ctrl_t *ctrl;
    producer_t        prod[PRODUCERS_MAX];
    int               nprod;
    _Atomic int       go;
} queue_test_t;

static uint64_t prng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static size_t pick_len(uint64_t *rng, size_t max_len)
{
    uint64_t r = prng(rng);
    size_t len;

    switch (r % 4) {
    case 0:  len = (size_t)(r >> 8) % (SHM_LINE_DATA + 1); break;
    case 1:  len = ((size_t)(r >> 8) % 8 + 1) * SHM_LINE - SHM_REC_HDR + (size_t)(r >> 20) % 3 - 1; break;
    default: len = (size_t)(r >> 8) % (max_len + 1); break;
    }
    return len > max_len ? max_len : len;
}

static unsigned char pattern(unsigned rank, uint64_t n, size_t i)
{
    return (unsigned char)(n * 131u + i * 7u + rank * 17u + 1u);
}

/* Record n of producer `rank`: its number in the first 8 bytes, then the
 * pattern. Forged (rec: the record's position, known to a producer that
 * reserved before it filled): the first word of every further line is a
 * header valid for that line one lap on, naming the producer. */
static void fill(unsigned char *buf, unsigned rank, uint64_t n, size_t len, int forged,
                 uint64_t rec, uint64_t nlines)
{
    memcpy(buf, &n, len < 8 ? len : 8);
    for (size_t i = 8; i < len; i++)
        buf[i] = pattern(rank, n, i);
    for (uint64_t j = 1; forged && SHM_LINE * j - SHM_REC_HDR + 8 <= len; j++) {
        uint64_t fake = shm_rec_word(rec + j + nlines + ((uint64_t)rank << SHM_QUEUE_SRC_SHIFT),
                                     1, 8);

        memcpy(buf + SHM_LINE * j - SHM_REC_HDR, &fake, 8);
    }
}

/* How record n goes: 0 the one-line claim/commit (when it fits one line),
 * 1 reserve then write (forged payload), 2 shm_fifo_push. */
static int how(uint64_t n)
{
    return (int)(n % 3);
}

static void *producer(void *arg)
{
    producer_t *p = arg;
    unsigned char *buf = malloc(p->max_len + 8);
    uint64_t rng = 0x9e3779b97f4a7c15ull * (p->rank + 1);

    while (!atomic_load(p->go))
        sched_yield();
    for (uint64_t n = 0; n < p->records; n++) {
        size_t len = pick_len(&rng, p->max_len), hdr_len = len >= 16 ? 16 : 0;
        uint64_t pos, skip;

        if (how(n) == 0 && len <= SHM_LINE_DATA) {
            /* the runtime's direct eager path: claim, fill in place, commit */
            shm_line_t *line;

            while (shm_fifo_line_claim(&p->tx, &line, &pos) != 0) {
                p->again++;
                sched_yield();
            }
            fill(line->data, p->rank, n, len, 0, 0, 0);
            shm_fifo_line_commit(&p->tx, line, pos, (unsigned)(n % 16), len);
        } else if (how(n) == 1) {
            while (shm_queue_reserve(&p->tx, shm_rec_lines(len), &pos, &skip) != 0) {
                p->again++;
                sched_yield();
            }
            fill(buf, p->rank, n, len, 1, pos + skip, p->tx.mask + 1);
            shm_queue_write(&p->tx, pos, skip, (unsigned)(n % 16), buf, hdr_len, buf + hdr_len,
                            len - hdr_len);
        } else {
            fill(buf, p->rank, n, len, 0, 0, 0);
            while (shm_fifo_push(&p->tx, (unsigned)(n % 16), buf, hdr_len, buf + hdr_len,
                                 len - hdr_len) != 0) {
                p->again++;
                sched_yield();
            }
        }
    }
    free(buf);
    return NULL;
}

static void check_record(const queue_test_t *t, const shm_fifo_rx_t *rx, unsigned src,
                         uint64_t word, const unsigned char *data, uint64_t *next,
                         unsigned char *expect)
{
    size_t len = (size_t)(word & SHM_REC_LEN_MAX);
    uint64_t n = 0, seq;

    CHECK(src >= 1 && src <= (unsigned)t->nprod, "record from rank %u", src);
    if (src < 1 || src > (unsigned)t->nprod)
        return;
    seq = next[src]++;
    memcpy(&n, data, len < 8 ? len : 8);
    if (len >= 8)
        CHECK(n == seq, "rank %u: record %llu arrived, expected %llu", src,
              (unsigned long long)n, (unsigned long long)seq);
    CHECK(((word >> 24) & 0x7f) == seq % 16, "rank %u record %llu: am_id %u", src,
          (unsigned long long)seq, (unsigned)((word >> 24) & 0x7f));
    fill(expect, src, seq, len, how(seq) == 1, rx->pos, t->nlines);
    CHECK(memcmp(expect, data, len) == 0, "rank %u record %llu (%zu B): bytes differ", src,
          (unsigned long long)seq, len);
}

static int run(uint64_t nlines, int nprod, uint64_t records)
{
    queue_test_t t;
    pthread_t thr[PRODUCERS_MAX];
    shm_fifo_rx_t rx;
    uint64_t next[PRODUCERS_MAX + 1] = {0}, total = 0, got = 0;
    unsigned char *expect;
    unsigned long again = 0;
    size_t max_len = (size_t)(nlines / 4) * SHM_LINE - SHM_REC_HDR;
    int before = failures;

    memset(&t, 0, sizeof(t));
    t.nlines = nlines;
    t.nprod = nprod;
    t.lines = aligned_alloc(SHM_LINE, nlines * SHM_LINE);
    t.ctrl = aligned_alloc(SHM_LINE, sizeof(*t.ctrl));
    memset(t.lines, 0, nlines * SHM_LINE);
    memset(t.ctrl, 0, sizeof(*t.ctrl));
    for (uint64_t l = 0; l < nlines; l++)   /* payload bytes of no use to anyone */
        memset(t.lines[l].data, 0xff, SHM_LINE_DATA);
    atomic_init(&t.go, 0);
    memset(&rx, 0, sizeof(rx));
    rx.lines = t.lines;
    rx.tail = &t.ctrl->tail;
    rx.mask = nlines - 1;
    for (int i = 0; i < nprod; i++) {
        producer_t *p = &t.prod[i];

        p->rank = (unsigned)i + 1;
        p->records = records;
        p->max_len = max_len;
        p->go = &t.go;
        p->tx.lines = t.lines;
        p->tx.tail = &t.ctrl->tail;
        p->tx.qhead = &t.ctrl->head;
        p->tx.mask = nlines - 1;
        p->tx.src_pos = (uint64_t)p->rank << SHM_QUEUE_SRC_SHIFT;
        pthread_create(&thr[i], NULL, producer, p);
        total += records;
    }
    expect = malloc(max_len + 8);
    atomic_store(&t.go, 1);
    /* let the producers fill the queue before the first record is taken */
    while (atomic_load_explicit(&t.ctrl->head, memory_order_relaxed) + max_len / SHM_LINE + 2 <
               nlines && atomic_load_explicit(&t.ctrl->head, memory_order_relaxed) < total)
        sched_yield();
    while (got < total && failures == before) {
        shm_line_t *line;
        uint64_t word;
        unsigned src;

        while ((line = shm_queue_peek(&rx, &word, &src)) == NULL)
            sched_yield();
        check_record(&t, &rx, src, word, line->data, next, expect);
        shm_queue_release(&rx, word);
        got++;
    }
    if (failures != before) {
        fprintf(stderr, "FAIL queue of %llu lines, %d producers\n", (unsigned long long)nlines,
                nprod);
        exit(1);
    }
    for (int i = 0; i < nprod; i++) {
        pthread_join(thr[i], NULL);
        again += t.prod[i].again;
        CHECK(next[i + 1] == records, "rank %d: %llu records", i + 1,
              (unsigned long long)next[i + 1]);
    }
    CHECK(atomic_load(&t.ctrl->head) == rx.pos && atomic_load(&t.ctrl->tail) == rx.pos,
          "head %llu, tail %llu, consumer at %llu", (unsigned long long)atomic_load(&t.ctrl->head),
          (unsigned long long)atomic_load(&t.ctrl->tail), (unsigned long long)rx.pos);
    CHECK(again > 0, "the producers never found the queue full");
    /* every line holds zero or a header of the last lap, valid nowhere in
     * the next: the receiver finds nothing at any position of it */
    for (uint64_t l = 0; l < nlines; l++) {
        shm_fifo_rx_t probe = rx;
        uint64_t word = 0;
        unsigned src;

        probe.pos = rx.pos + l;
        CHECK(shm_queue_peek(&probe, &word, &src) == NULL && probe.pos == rx.pos + l,
              "a record at position %llu after the last: word %#llx",
              (unsigned long long)probe.pos, (unsigned long long)word);
    }
    printf("ok   queue of %llu lines, %d producers: %llu records up to %zu B, %llu laps, %lu "
           "full-queue retries\n", (unsigned long long)nlines, nprod,
           (unsigned long long)total, max_len, (unsigned long long)(rx.pos / nlines), again);
    free(expect);
    free(t.lines);
    free(t.ctrl);
    return failures != before;
}

/* One producer, one consumer, in turns: push a record of `lines` lines and
 * take everything there is. */
static void push_take(shm_fifo_tx_t *tx, shm_fifo_rx_t *rx, uint64_t lines)
{
    static unsigned char buf[16 * SHM_LINE];
    shm_line_t *line;
    uint64_t word;
    unsigned src;

    CHECK(shm_fifo_push(tx, 2, buf, 8, buf + 8, lines * SHM_LINE - SHM_REC_HDR - 8) == 0,
          "push of %llu lines", (unsigned long long)lines);
    while ((line = shm_queue_peek(rx, &word, &src)) != NULL)
        shm_queue_release(rx, word);
}

/* A header left in a line that SKIPs then pass over lap after lap: with a
 * 64-line queue its stamp is valid again 1024 laps on (65536 / 64), unless
 * the receiver zeroed the skipped lines. Lap 0 leaves a one-line record's
 * header at index 61; laps 1-1023 end in a SKIP over 60-63; lap 1024 then
 * reserves index 61 and has not written it: the receiver must not see a
 * record there. */
static void stale_skipped_header(void)
{
    shm_line_t *lines = aligned_alloc(SHM_LINE, 64 * SHM_LINE);
    shm_queue_ctrl_t *ctrl = aligned_alloc(SHM_LINE, sizeof(*ctrl));
    shm_fifo_tx_t tx;
    shm_fifo_rx_t rx;
    uint64_t pos = 0, skip = 0, word = 0;
    unsigned src;

    memset(lines, 0, 64 * SHM_LINE);
    memset(ctrl, 0, sizeof(*ctrl));
    memset(&tx, 0, sizeof(tx));
    memset(&rx, 0, sizeof(rx));
    tx.lines = rx.lines = lines;
    tx.tail = rx.tail = &ctrl->tail;
    tx.qhead = &ctrl->head;
    tx.mask = rx.mask = 63;
    tx.src_pos = (uint64_t)1 << SHM_QUEUE_SRC_SHIFT;
    for (int i = 0; i < 64; i++)   /* lap 0: one-line records at 0..63 */
        push_take(&tx, &rx, 1);
    push_take(&tx, &rx, 16);       /* lap 1 from 16 */
    for (int lap = 1; lap < 1024; lap++) {
        for (int i = 0; i < 11; i++)
            push_take(&tx, &rx, 4);            /* to 60 */
        push_take(&tx, &rx, 16);   /* SKIP 60-63, the record at 0-15 of the next lap */
    }
    for (int i = 0; i < 11; i++)
        push_take(&tx, &rx, 4);
    push_take(&tx, &rx, 1);        /* lap 1024 at 61 */
    CHECK(rx.pos == 1024 * 64 + 61, "consumer at %llu", (unsigned long long)rx.pos);
    CHECK(shm_queue_reserve(&tx, 1, &pos, &skip) == 0 && pos == rx.pos && skip == 0,
          "reserve at %llu", (unsigned long long)pos);
    CHECK(shm_queue_peek(&rx, &word, &src) == NULL,
          "a record at reserved, unwritten position %llu: word %#llx (lap 0's header)",
          (unsigned long long)rx.pos, (unsigned long long)word);
    printf("ok   a header left in skipped lines for 1024 laps is not taken for a record\n");
    free(lines);
    free(ctrl);
}

static void set_env_and_read(const char *queue, const char *budget, const char *seg_max)
{
    setenv("RTM_SHM_QUEUE", queue, 1);
    setenv("RTM_SHM_RX_BUDGET", budget, 1);
    setenv("RTM_SHM_SEG_MAX", seg_max, 1);
    CHECK(rtm_config_register(&shm_config_table) == RTM_OK, "config: %s", rtm_last_error());
}

/* shm_seg_geometry: the mode auto picks and the sizes. */
static void geometry(void)
{
    static const struct {
        int      n;
        int      shared;
        uint64_t kib;        /* per ring or queue */
    } cases[] = {
        {2, 0, 256}, {8, 0, 256}, {9, 0, 128}, {64, 0, 16}, {128, 0, 8}, {449, 0, 4},
        {450, 1, 256}, {512, 1, 256}, {1000, 1, 256}, {4000, 1, 256}, {4096, 1, 128},
    };
    shm_seg_geom_t g;

    set_env_and_read("auto", "1792K", "1G");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t n = (uint64_t)cases[i].n, ctrl, want;

        shm_seg_geometry(cases[i].n, &g);
        ctrl = cases[i].shared ? n * 256 : n * (((n - 1) * 64 + 127) / 128 * 128);
        want = 4096 + (n * 64 + 4095) / 4096 * 4096 + n * 4096 + (ctrl + 4095) / 4096 * 4096 +
               (cases[i].shared ? n : n * (n - 1)) * cases[i].kib * 1024;
        CHECK(g.shared == cases[i].shared && g.fifo_lines * SHM_LINE == cases[i].kib * 1024 &&
              g.size == want, "%d ranks: %s, %llu KiB each, %llu B; expected %s, %llu KiB, "
              "%llu B", cases[i].n, g.shared ? "shared" : "pair",
              (unsigned long long)(g.fifo_lines * SHM_LINE / 1024), (unsigned long long)g.size,
              cases[i].shared ? "shared" : "pair", (unsigned long long)cases[i].kib,
              (unsigned long long)want);
        /* linear: the data at most n x budget; shared queues with 5 KiB a
         * rank for the rest (pair rings have a 64 B control line each) */
        CHECK(g.rings * g.fifo_lines * SHM_LINE <= n * 1792 * 1024 &&
              (!g.shared || g.size <= n * (1792 + 5) * 1024 + 8192),
              "%d ranks: %llu B is over n x budget", cases[i].n, (unsigned long long)g.size);
        printf("ok   geometry, %4d ranks, auto: %s, %llu x %llu KiB, segment %llu KiB\n",
               cases[i].n, g.shared ? "shared" : "pair", (unsigned long long)g.rings,
               (unsigned long long)(g.fifo_lines * SHM_LINE / 1024),
               (unsigned long long)(g.size / 1024));
    }
    /* forced: pair keeps the quadratic floor, shared holds at 2 ranks */
    set_env_and_read("pair", "1792K", "1G");
    shm_seg_geometry(1000, &g);
    CHECK(!g.shared && g.fifo_lines == SHM_MIN_FIFO_LINES && g.rings == 999000,
          "pair at 1000: %d, %llu lines", g.shared, (unsigned long long)g.fifo_lines);
    set_env_and_read("shared", "32K", "1G");
    shm_seg_geometry(3, &g);
    CHECK(g.shared && g.rings == 3 && g.fifo_lines * SHM_LINE == 32768 &&
          g.size == 3 * 4096 + 3 * 4096 + 3 * 32768, "shared at 3, 32K: %d, %llu lines, %llu B", g.shared,
          (unsigned long long)g.fifo_lines, (unsigned long long)g.size);
    /* RTM_SHM_SEG_MAX shrinks the queues too (1 MiB for 64 ranks: 8 KiB) */
    set_env_and_read("shared", "1792K", "1M");
    shm_seg_geometry(64, &g);
    CHECK(g.shared && g.fifo_lines * SHM_LINE == 8192 && g.size <= 1024 * 1024,
          "shared at 64 within 1M: %llu lines, %llu B", (unsigned long long)g.fifo_lines,
          (unsigned long long)g.size);
    /* a queue never passes SHM_QUEUE_MAX_LINES (2 MiB), whatever the rows allow */
    setenv("RTM_SHM_FIFO_SIZE", "1G", 1);
    set_env_and_read("shared", "1G", "1024G");
    shm_seg_geometry(4, &g);
    CHECK(g.shared && g.fifo_lines == SHM_QUEUE_MAX_LINES, "shared with 1G rows: %llu lines",
          (unsigned long long)g.fifo_lines);
    unsetenv("RTM_SHM_FIFO_SIZE");
    /* auto: a pair ring below the floor because of RTM_SHM_SEG_MAX -> shared */
    set_env_and_read("auto", "1792K", "16M");
    shm_seg_geometry(100, &g);
    CHECK(g.shared, "auto at 100 ranks within 16M: pair rings of %llu lines",
          (unsigned long long)g.fifo_lines);
    unsetenv("RTM_SHM_QUEUE");
    unsetenv("RTM_SHM_RX_BUDGET");
    unsetenv("RTM_SHM_SEG_MAX");
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    run(64, 3, 20000);       /* the 4 KiB floor: a record of up to 1 KiB, many wraps */
    run(256, 7, 10000);
    run(4096, 4, 10000);
    stale_skipped_header();
    geometry();
    return failures ? 1 : 0;
}
