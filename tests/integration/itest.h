/*
 * Helpers shared by the integration test programs (tests/integration/).
 *
 * The programs use only the public API (rtmsg.h). A failed check prints one
 * line saying which rank, which call or which byte went wrong, then ends the
 * whole job through rtm_abort(1, ...) so the other ranks don't hang waiting
 * for a peer that gave up; before rtm_init (or after rtm_finalize) it exits 1.
 *
 * Data is filled with a position- and seed-dependent pattern that does not
 * repeat every 256 bytes, so a shifted, stale or truncated copy is caught.
 */
#ifndef RTM_TESTS_ITEST_H
#define RTM_TESTS_ITEST_H

#include "rtmsg.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *itest_name = "itest";
static int itest_rank = -1;
static int itest_size = 0;

__attribute__((noreturn, format(printf, 1, 2)))
static void itest_fail(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: rank %d of %d: FAIL: %s\n", itest_name, itest_rank, itest_size,
            msg);
    fflush(stderr);
    fflush(stdout);
    if (rtm_initialized())
        rtm_abort(1, "integration test failed");
    exit(1);
}

/* A call that must succeed. */
#define CHECK(_call) \
    do { \
        rtm_status_t check_st_ = (_call); \
        if (check_st_ != RTM_OK) \
            itest_fail("%s:%d: %s returned %d (%s): %s", __FILE__, __LINE__, #_call, \
                       (int)check_st_, rtm_strerror(check_st_), rtm_last_error()); \
    } while (0)

/* A condition that must hold; the message says what was expected and got. */
#define EXPECT(_cond, ...) \
    do { \
        if (!(_cond)) { \
            char expect_msg_[768]; \
            snprintf(expect_msg_, sizeof(expect_msg_), __VA_ARGS__); \
            itest_fail("%s:%d: %s", __FILE__, __LINE__, expect_msg_); \
        } \
    } while (0)

/* A call that must fail with exactly `want`, leaving a message behind. */
#define EXPECT_STATUS(_call, _want) \
    do { \
        rtm_status_t exp_st_ = (_call); \
        if (exp_st_ != (_want)) \
            itest_fail("%s:%d: %s returned %d (%s), expected %d (%s); last error: %s", \
                       __FILE__, __LINE__, #_call, (int)exp_st_, rtm_strerror(exp_st_), \
                       (int)(_want), rtm_strerror(_want), rtm_last_error()); \
        if ((_want) != RTM_OK && \
            (rtm_last_error() == NULL || rtm_last_error()[0] == '\0')) \
            itest_fail("%s:%d: %s returned %s but rtm_last_error() is empty", \
                       __FILE__, __LINE__, #_call, rtm_strerror(exp_st_)); \
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
        itest_fail("%s: size %zu: byte at offset %zu expected 0x%02x got 0x%02x "
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
            itest_fail("%s: receive wrote past the end of its %zu-byte buffer: byte at "
                       "offset %zu expected canary 0x%02x got 0x%02x", what, off, off + i,
                       ITEST_CANARY, p[i]);
}

static inline void *itest_malloc(size_t len)
{
    void *p = malloc(len ? len : 1);

    if (p == NULL)
        itest_fail("out of memory allocating %zu bytes", len);
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

static inline void itest_init(const char *name)
{
    itest_name = name;
    setvbuf(stdout, NULL, _IOLBF, 0);
    CHECK(rtm_init());
    CHECK(rtm_comm_rank(RTM_COMM_WORLD, &itest_rank));
    CHECK(rtm_comm_size(RTM_COMM_WORLD, &itest_size));
}

/* Ends the test: a barrier so no rank finalizes while a peer still needs
 * it, then finalize; rank 0 prints one PASS line. */
static inline int itest_finish(void)
{
    CHECK(rtm_barrier(RTM_COMM_WORLD));
    CHECK(rtm_finalize());
    if (itest_rank == 0)
        printf("%s: PASS with %d rank%s\n", itest_name, itest_size, itest_size == 1 ? "" : "s");
    return 0;
}

#endif
