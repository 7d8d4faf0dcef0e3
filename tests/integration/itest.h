/*
 * Helpers shared by the integration test programs (tests/integration/).
 *
 * The programs use only the public API (rtmsg.h) and the checks of
 * tests/harness.h: CHECK (fatal), EXPECT (counted), TH_FAIL, plus CHECK_RTM
 * (a call that must return RTM_OK) and EXPECT_STATUS (one that must fail with
 * a given status) below. A failed check prints one line saying which rank,
 * which call or which byte went wrong, then ends the whole job through
 * rtm_abort(1, ...).
 *
 * Data is filled with a position- and seed-dependent pattern that does not
 * repeat every 256 bytes, so a shifted, stale or truncated copy is caught.
 */
#ifndef RTM_TESTS_ITEST_H
#define RTM_TESTS_ITEST_H

#include "rtmsg.h"
#include "tests/harness.h"

#include <stdint.h>
#include <time.h>

/* A failed check ends the whole job, so the other ranks don't hang waiting
 * for a peer that gave up; before rtm_init (or after rtm_finalize) the
 * process just exits 1. */
static inline void itest_abort_job(void)
{
    fflush(stdout);
    if (rtm_initialized())
        rtm_abort(1, "integration test failed");
}

/* A call that must succeed. */
#define CHECK_RTM(_call) \
    do { \
        rtm_status_t check_st_ = (_call); \
        if (check_st_ != RTM_OK) \
            th_check_failed(__FILE__, __LINE__, #_call, "returned %d (%s): %s", \
                            (int)check_st_, rtm_strerror(check_st_), rtm_last_error()); \
    } while (0)

/* A call that must fail with exactly `want`, leaving a message behind. */
#define EXPECT_STATUS(_call, _want) \
    do { \
        rtm_status_t exp_st_ = (_call); \
        if (exp_st_ != (_want)) \
            th_check_failed(__FILE__, __LINE__, #_call, \
                            "returned %d (%s), expected %d (%s); last error: %s", \
                            (int)exp_st_, rtm_strerror(exp_st_), (int)(_want), \
                            rtm_strerror(_want), rtm_last_error()); \
        if ((_want) != RTM_OK && \
            (rtm_last_error() == NULL || rtm_last_error()[0] == '\0')) \
            th_check_failed(__FILE__, __LINE__, #_call, \
                            "returned %s but rtm_last_error() is empty", \
                            rtm_strerror(exp_st_)); \
    } while (0)

static inline uint8_t itest_pattern(uint32_t seed, size_t off)
{
    uint64_t x = (uint64_t)off * 0x9E3779B97F4A7C15ull + (uint64_t)seed * 0xD1B54A32D192ED03ull;

    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return (uint8_t)x;
}

static inline void itest_fill(void *buf, size_t len, uint32_t seed)
{
    uint8_t *p = buf;

    for (size_t i = 0; i < len; i++)
        p[i] = itest_pattern(seed, i);
}

/* Checks len bytes against the pattern; on a mismatch fails naming what,
 * the size, the first bad offset, expected/got and how many bytes differ. */
static inline void itest_check_from(const void *buf, size_t from, size_t len, uint32_t seed,
                                    const char *what)
{
    const uint8_t *p = buf;
    size_t first = 0, bad = 0;

    for (size_t i = from; i < len; i++) {
        if (p[i] != itest_pattern(seed, i)) {
            if (bad == 0)
                first = i;
            bad++;
        }
    }
    if (bad)
        TH_FAIL("%s: size %zu: byte at offset %zu expected 0x%02x got 0x%02x "
                   "(%zu of %zu bytes differ)", what, len, first,
                   itest_pattern(seed, first), p[first], bad, len);
}

static inline void itest_check(const void *buf, size_t len, uint32_t seed, const char *what)
{
    itest_check_from(buf, 0, len, seed, what);
}

#define ITEST_CANARY 0xA5
#define ITEST_CANARY_LEN 256

/* The canary after a receive buffer must survive every receive. */
static inline void itest_set_canary(void *buf, size_t off)
{
    memset((uint8_t *)buf + off, ITEST_CANARY, ITEST_CANARY_LEN);
}

static inline void itest_check_canary(const void *buf, size_t off, const char *what)
{
    const uint8_t *p = (const uint8_t *)buf + off;

    for (size_t i = 0; i < ITEST_CANARY_LEN; i++)
        if (p[i] != ITEST_CANARY)
            TH_FAIL("%s: receive wrote past the end of its %zu-byte buffer: byte at "
                       "offset %zu expected canary 0x%02x got 0x%02x", what, off, off + i,
                       ITEST_CANARY, p[i]);
}

static inline void *itest_malloc(size_t len)
{
    void *p = malloc(len ? len : 1);

    if (p == NULL)
        TH_FAIL("out of memory allocating %zu bytes", len);
    return p;
}

static inline void itest_sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    while (nanosleep(&ts, &ts) != 0)
        ;
}

static inline double itest_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Parses "64K"-style sizes (binary suffixes), as the RTM_* variables take
 * them; returns 0 when s is NULL or does not parse. */
static inline size_t itest_parse_size(const char *s)
{
    char *end;
    unsigned long long v;

    if (s == NULL || *s == '\0')
        return 0;
    v = strtoull(s, &end, 0);
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    if (*end == 'i' || *end == 'I')
        end++;
    if (*end == 'b' || *end == 'B')
        end++;
    return *end == '\0' ? (size_t)v : 0;
}

/* Names the program in every FAIL line and makes failed checks end the
 * job; for a program that calls the API before rtm_init itself. */
static inline void itest_begin(const char *name)
{
    th_name = name;
    th_fatal_hook = itest_abort_job;
    setvbuf(stdout, NULL, _IOLBF, 0);
}

/* itest_begin, rtm_init, and the rank and size every FAIL line shows. */
static inline void itest_init(const char *name)
{
    itest_begin(name);
    CHECK_RTM(rtm_init());
    CHECK_RTM(rtm_comm_rank(RTM_COMM_WORLD, &th_rank));
    CHECK_RTM(rtm_comm_size(RTM_COMM_WORLD, &th_size));
}

/* Ends the test: a barrier so no rank finalizes while a peer still needs
 * it, then finalize; rank 0 prints one PASS line. */
static inline int itest_finish(void)
{
    CHECK_RTM(rtm_barrier(RTM_COMM_WORLD));
    CHECK_RTM(rtm_finalize());
    if (th_rank == 0)
        printf("%s: PASS with %d rank%s\n", th_name, th_size, th_size == 1 ? "" : "s");
    return 0;
}

#endif
