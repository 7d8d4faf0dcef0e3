/*
 * What every libFuzzer target of tests/fuzz shares: the entry point's
 * prototype, a reader that cuts a structured input (counts, choices,
 * strings) out of the fuzzer's bytes, and FZ_CHECK for the invariants a
 * target checks on what a parser returned. A target is one .c file compiled
 * with the sources it exercises (tests/fuzz/local.mk); it keeps no state
 * from one input to the next, so every crash replays from its input alone.
 */
#ifndef RTM_TESTS_FUZZ_H
#define RTM_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* An invariant of the parser's result: a failure is a crash the fuzzer
 * reports and keeps (abort), with the check that failed. The line goes
 * where the sanitizers report, which stays open when the test closes
 * stderr (-close_fd_mask=2) to silence the parsers' own messages. */
void __sanitizer_report_error_summary(const char *error_summary);
#define FZ_STR2(x) #x
#define FZ_STR(x) FZ_STR2(x)
#define FZ_CHECK(cond)                                                              \
    do {                                                                            \
        if (!(cond)) {                                                              \
            __sanitizer_report_error_summary(__FILE__ ":" FZ_STR(__LINE__)          \
                                             ": fuzz check failed: " #cond);        \
            abort();                                                                \
        }                                                                           \
    } while (0)

/* The input, read front to back; past the end every read gives zeros. */
typedef struct fz_in {
    const uint8_t *p;
    size_t         left;
} fz_in_t;

static inline fz_in_t fz_in(const uint8_t *data, size_t size)
{
    fz_in_t in = {data, size};

    return in;
}

static inline uint8_t fz_u8(fz_in_t *in)
{
    if (in->left == 0)
        return 0;
    in->left--;
    return *in->p++;
}

static inline uint32_t fz_u32(fz_in_t *in)
{
    uint32_t v = 0;

    for (int i = 0; i < 4; i++)
        v |= (uint32_t)fz_u8(in) << (8 * i);
    return v;
}

/* Up to n bytes (fewer at the end); returns how many, *p_p points at them. */
static inline size_t fz_bytes(fz_in_t *in, size_t n, const uint8_t **p_p)
{
    if (n > in->left)
        n = in->left;
    *p_p = in->p;
    in->p += n;
    in->left -= n;
    return n;
}

/* A malloc'd, NUL-terminated copy of the bytes up to the next NUL (or the
 * end): strings as argv and the environment hold them. NULL: no memory. */
static inline char *fz_str(fz_in_t *in)
{
    const uint8_t *nul = in->left ? memchr(in->p, '\0', in->left) : NULL;
    size_t n = nul ? (size_t)(nul - in->p) : in->left;
    char *s = malloc(n + 1);

    if (s == NULL)
        return NULL;
    memcpy(s, in->p, n);
    s[n] = '\0';
    in->p += n + (nul ? 1 : 0);
    in->left -= n + (nul ? 1 : 0);
    return s;
}

/* A malloc'd copy of exactly the input's bytes: a buffer that ends where
 * the input does, so ASan sees a parser read one byte past it. */
static inline void *fz_dup(const uint8_t *data, size_t size)
{
    void *copy = malloc(size ? size : 1);

    if (copy != NULL && size > 0)
        memcpy(copy, data, size);
    return copy;
}

#endif
