/*
 * The check macros every C test uses (header only: include it, nothing to
 * link).
 *
 *   EXPECT(cond, fmt, ...)  a check that may fail and the test goes on: the
 *                           failure is printed and counted; th_exit_code()
 *                           (or TH_RETURN()) then ends the test with 1.
 *   CHECK(cond, fmt, ...)   a check the test cannot go on without: printed,
 *                           then th_fatal_hook (if set) and exit(1). A
 *                           multi-rank program sets the hook to end the whole
 *                           job (rtm_abort), so no peer hangs waiting.
 *   TH_FAIL(fmt, ...)       CHECK(0, ...) without an expression.
 *   TH_SKIP(fmt, ...)       the test cannot run here: "SKIP: ..." on stdout,
 *                           exit 77 (automake's skip code).
 *
 * Every failure is one line on stderr:
 *   FAIL <file>:<line>: <name> rank <r> of <n> [<case>]: <expression>: <message>
 * where the name, the rank and the case are printed only when the test set
 * them (th_name, th_rank/th_size, th_case), so a line says which program,
 * which process and which part of the test went wrong.
 */
#ifndef RTM_TESTS_HARNESS_H
#define RTM_TESTS_HARNESS_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TH_EXIT_SKIP 77

/* The state of the test. Weak definitions: every file of a test program
 * that includes this header shares one copy (a helper file's checks count
 * and print like the main file's), and no file has to define them. */
#define TH_SHARED __attribute__((weak))

TH_SHARED const char *th_name;         /* the program, e.g. "pingpong" */
TH_SHARED const char *th_case;         /* the part of the test running now */
TH_SHARED int th_rank = -1;            /* this process's rank; < 0: none */
TH_SHARED int th_size;                 /* ranks in the job; 0: not printed */
TH_SHARED int th_failures;             /* EXPECT failures so far */
/* Run by a fatal failure before exit(1), e.g. to abort the whole job. */
TH_SHARED void (*th_fatal_hook)(void);

__attribute__((format(printf, 4, 0)))
static inline void th_vreport(const char *file, int line, const char *expr, const char *fmt,
                              va_list ap)
{
    char who[160] = "", msg[1024];
    int n = 0;

    if (th_name != NULL)
        n += snprintf(who + n, sizeof(who) - (size_t)n, " %s", th_name);
    if (th_rank >= 0 && n < (int)sizeof(who))
        n += snprintf(who + n, sizeof(who) - (size_t)n, th_size > 0 ? " rank %d of %d" : " rank %d",
                      th_rank, th_size);
    if (th_case != NULL && n < (int)sizeof(who))
        snprintf(who + n, sizeof(who) - (size_t)n, " [%s]", th_case);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    fflush(stdout);
    fprintf(stderr, "FAIL %s:%d:%s%s %s%s%s\n", file, line, who, who[0] ? ":" : "",
            expr != NULL ? expr : "", expr != NULL ? ": " : "", msg);
    fflush(stderr);
}

__attribute__((format(printf, 4, 5)))
static inline void th_expect_failed(const char *file, int line, const char *expr,
                                    const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    th_vreport(file, line, expr, fmt, ap);
    va_end(ap);
    th_failures++;
}

__attribute__((noreturn, format(printf, 4, 5)))
static inline void th_check_failed(const char *file, int line, const char *expr,
                                   const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    th_vreport(file, line, expr, fmt, ap);
    va_end(ap);
    if (th_fatal_hook != NULL) {
        void (*hook)(void) = th_fatal_hook;

        th_fatal_hook = NULL;   /* a check failing inside the hook ends here */
        hook();
    }
    exit(1);
}

#define EXPECT(_cond, ...) \
    do { \
        if (!(_cond)) \
            th_expect_failed(__FILE__, __LINE__, #_cond, __VA_ARGS__); \
    } while (0)

#define CHECK(_cond, ...) \
    do { \
        if (!(_cond)) \
            th_check_failed(__FILE__, __LINE__, #_cond, __VA_ARGS__); \
    } while (0)

#define TH_FAIL(...) th_check_failed(__FILE__, __LINE__, NULL, __VA_ARGS__)

#define TH_SKIP(...) \
    do { \
        printf("SKIP: "); \
        printf(__VA_ARGS__); \
        printf("\n"); \
        fflush(stdout); \
        exit(TH_EXIT_SKIP); \
    } while (0)

/* The exit code of a test that ran to its end: 1 if any EXPECT failed,
 * printing how many; else 0. */
static inline int th_exit_code(void)
{
    if (th_failures > 0) {
        fprintf(stderr, "%s%s%d check(s) failed\n", th_name != NULL ? th_name : "",
                th_name != NULL ? ": " : "", th_failures);
        return 1;
    }
    return 0;
}

#define TH_RETURN() return th_exit_code()

#endif
