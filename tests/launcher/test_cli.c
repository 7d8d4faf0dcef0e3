/* Unit test of rtrun's argument parser: good and bad command lines. */
#include "config.h"

#include "launcher/cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define EXPECT(_cond, ...) \
    do { \
        if (!(_cond)) { \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__); \
            fprintf(stderr, "\n"); \
            failures++; \
        } \
    } while (0)

/* Parse a NULL-terminated list of words (argv[0] = "rtrun" added). */
static rtm_status_t parse(rtrun_opts_t *opts, char **words_p[], ...)
{
    static char *argv[64];
    int argc = 0;
    va_list ap;
    char *w;

    argv[argc++] = "rtrun";
    va_start(ap, words_p);
    while ((w = va_arg(ap, char *)) != NULL)
        argv[argc++] = w;
    va_end(ap);
    argv[argc] = NULL;
    *words_p = argv;
    return rtrun_cli_parse(argc, argv, opts);
}

/* A bad command line must fail and its message must name `needle`. */
#define EXPECT_BAD(_needle, ...) \
    do { \
        rtrun_opts_t o; \
        char **words; \
        rtm_status_t st = parse(&o, &words, __VA_ARGS__, (char *)NULL); \
        EXPECT(st == RTM_ERR_INVALID_ARG, "expected a usage error for \"%s\"", _needle); \
        if (st == RTM_OK) \
            rtrun_cli_free(&o); \
        else \
            EXPECT(strstr(rtm_last_error(), _needle) != NULL, \
                   "message \"%s\" does not name \"%s\"", rtm_last_error(), _needle); \
    } while (0)

int main(void)
{
    rtrun_opts_t o;
    char **w;

    /* the basic form */
    EXPECT(parse(&o, &w, "-n", "4", "prog", "a", "b", (char *)NULL) == RTM_OK, "-n 4 prog");
    EXPECT(o.action == RTRUN_ACTION_RUN && o.nprocs == 4, "nprocs 4");
    EXPECT(o.prog_argc == 3 && strcmp(o.prog_argv[0], "prog") == 0 &&
           strcmp(o.prog_argv[2], "b") == 0, "program argv");
    EXPECT(o.bind == RTRUN_BIND_DEFAULT && !o.oversubscribe && !o.tag_output &&
           o.timeout_sec == 0 && o.nhosts == 0, "defaults");
    rtrun_cli_free(&o);

    /* aliases and joined forms */
    EXPECT(parse(&o, &w, "-np", "3", "prog", (char *)NULL) == RTM_OK && o.nprocs == 3, "-np");
    rtrun_cli_free(&o);
    EXPECT(parse(&o, &w, "--np=5", "prog", (char *)NULL) == RTM_OK && o.nprocs == 5, "--np=");
    rtrun_cli_free(&o);
    EXPECT(parse(&o, &w, "-n2", "prog", (char *)NULL) == RTM_OK && o.nprocs == 2, "-n2");
    rtrun_cli_free(&o);

    /* every option */
    EXPECT(parse(&o, &w, "-n", "2", "-H", "localhost:4", "--oversubscribe", "-x", "FOO=bar",
                 "-x", "HOME", "--bind-to", "none", "--report-bindings", "--tag-output",
                 "--timeout", "30", "--", "-prog", "-n", "9", (char *)NULL) == RTM_OK,
           "all options");
    EXPECT(o.nhosts == 1 && strcmp(o.hosts[0].name, "localhost") == 0 && o.hosts[0].slots == 4,
           "host list");
    EXPECT(o.oversubscribe && o.report_bindings && o.tag_output && o.timeout_sec == 30 &&
           o.bind == RTRUN_BIND_NONE, "flags");
    EXPECT(o.nenv_vars == 2 && strcmp(o.env_vars[0], "FOO=bar") == 0 &&
           strcmp(o.env_vars[1], "HOME") == 0, "-x");
    EXPECT(o.prog_argc == 3 && strcmp(o.prog_argv[0], "-prog") == 0, "-- ends options");
    EXPECT(o.nprocs == 2, "program's -n is not rtrun's");
    rtrun_cli_free(&o);

    EXPECT(parse(&o, &w, "-n", "1", "--host=a,b:2", "--bind-to=core", "p", (char *)NULL) == RTM_OK,
           "--host=list");
    EXPECT(o.nhosts == 2 && o.hosts[0].slots == 0 && strcmp(o.hosts[1].name, "b") == 0 &&
           o.hosts[1].slots == 2 && o.bind == RTRUN_BIND_CORE, "host list parsed");
    rtrun_cli_free(&o);

    /* help and version need no program */
    EXPECT(parse(&o, &w, "--help", (char *)NULL) == RTM_OK && o.action == RTRUN_ACTION_HELP,
           "--help");
    rtrun_cli_free(&o);
    EXPECT(parse(&o, &w, "-V", (char *)NULL) == RTM_OK && o.action == RTRUN_ACTION_VERSION,
           "-V");
    rtrun_cli_free(&o);

    /* bad command lines name the argument */
    EXPECT_BAD("--bogus", "-n", "2", "--bogus", "prog");
    EXPECT_BAD("-n", "-n", "zero", "prog");
    EXPECT_BAD("-n", "-n", "0", "prog");
    EXPECT_BAD("-n", "-n", "70000", "prog");
    EXPECT_BAD("-n", "-n");
    EXPECT_BAD("-n N", "prog");
    EXPECT_BAD("no program", "-n", "2");
    EXPECT_BAD("--bind-to", "-n", "2", "--bind-to", "socket", "prog");
    EXPECT_BAD("--timeout", "-n", "2", "--timeout", "-1", "prog");
    EXPECT_BAD("--timeout", "-n", "2", "--timeout", "1.5x", "prog");
    EXPECT_BAD("-x", "-n", "2", "-x", "=VAL", "prog");
    EXPECT_BAD("-x", "-n", "2", "-x", "1BAD", "prog");
    EXPECT_BAD("--host", "-n", "2", "--host", "localhost:0", "prog");
    EXPECT_BAD("--host", "-n", "2", "--host", ":4", "prog");
    EXPECT_BAD("--host", "-n", "2", "--host", "localhost:", "prog");
    EXPECT_BAD("--oversubscribe", "-n", "2", "--oversubscribe=yes", "prog");

    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_cli: all checks passed\n");
    return 0;
}
