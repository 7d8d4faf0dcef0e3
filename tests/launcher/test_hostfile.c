/* Unit test of the hostfile parser: both formats, and every malformed file
 * we could think of (each error must name the file and the line). */
#include "config.h"

#include "launcher/hostfile.h"
#include "tests/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static rtrun_host_spec_t *hosts;
static size_t nhosts;

static rtm_status_t parse(const char *text)
{
    hosts = NULL;
    nhosts = 0;
    return rtrun_hostfile_parse(text, strlen(text), "hosts.txt", &hosts, &nhosts);
}

static void release(void)
{
    rtrun_hosts_free(hosts, nhosts);
    hosts = NULL;
    nhosts = 0;
}

/* host i is `name` with `slots` */
static int host_is(size_t i, const char *name, int slots)
{
    return i < nhosts && strcmp(hosts[i].name, name) == 0 && hosts[i].slots == slots;
}

/* A malformed file: refused, nothing returned, message has every needle. */
#define EXPECT_BAD(_text, ...) \
    do { \
        const char *needles_[] = {__VA_ARGS__, NULL}; \
        rtm_status_t st_ = parse(_text); \
        EXPECT(st_ == RTM_ERR_INVALID_ARG && hosts == NULL && nhosts == 0, \
               "expected \"%s\" to be refused", _text); \
        if (st_ == RTM_OK) \
            release(); \
        for (int n_ = 0; st_ != RTM_OK && needles_[n_] != NULL; n_++) \
            EXPECT(strstr(rtm_last_error(), needles_[n_]) != NULL, \
                   "message \"%s\" lacks \"%s\"", rtm_last_error(), needles_[n_]); \
    } while (0)

int main(void)
{
    char *big;
    char path[] = "/tmp/test_hostfile.XXXXXX";
    int fd;

    th_name = "test_hostfile";
    /* Open MPI format, comments, blank lines, CRLF, tabs */
    EXPECT(parse("# cluster\n"
                 "node01 slots=4\n"
                 "\n"
                 "   \t\n"
                 "node02\tslots=2   # trailing comment\r\n"
                 "node03 slots=8 max_slots=16\n"
                 "node04 max-slots=2 slots=1\n") == RTM_OK, "openmpi: %s", rtm_last_error());
    EXPECT(nhosts == 4 && host_is(0, "node01", 4) && host_is(1, "node02", 2) &&
           host_is(2, "node03", 8) && host_is(3, "node04", 1), "openmpi hosts");
    release();

    /* MPICH format, no final newline */
    EXPECT(parse("a:2\nb.example.org:1\nc_d-e:3") == RTM_OK, "mpich: %s", rtm_last_error());
    EXPECT(nhosts == 3 && host_is(0, "a", 2) && host_is(1, "b.example.org", 1) &&
           host_is(2, "c_d-e", 3), "mpich hosts");
    release();

    /* bare host: slots not given (the host's cores, decided by the map) */
    EXPECT(parse("lonely\n") == RTM_OK && host_is(0, "lonely", 0), "bare host");
    release();

    /* repeated hosts add up, order of first appearance kept */
    EXPECT(parse("x slots=2\ny:1\nx:3\ny slots=1\n") == RTM_OK, "repeats");
    EXPECT(nhosts == 2 && host_is(0, "x", 5) && host_is(1, "y", 2), "repeats add up");
    release();
    EXPECT(parse("m\nm\n") == RTM_OK && nhosts == 1 && host_is(0, "m", 0),
           "bare repeats keep slots not given");
    release();
    EXPECT(parse("m slots=2\nm\n") == RTM_OK && host_is(0, "m", 3),
           "a bare line adds one slot to a counted host");
    release();
    /* a comment right after the name, '#' glued to it */
    EXPECT(parse("h1#comment\nh2:2# c\n") == RTM_OK && host_is(0, "h1", 0) &&
           host_is(1, "h2", 2), "glued comments");
    release();

    /* malformed counts */
    EXPECT_BAD("a slots=4\nb slots=abc\n", "hosts.txt:2:", "slots=abc", "positive integer");
    EXPECT_BAD("b slots=0\n", "hosts.txt:1:", "slots=0");
    EXPECT_BAD("b slots=-2\n", "hosts.txt:1:", "slots=-2");
    EXPECT_BAD("b slots=\n", "hosts.txt:1:", "slots=");
    EXPECT_BAD("b slots=4x\n", "hosts.txt:1:", "slots=4x");
    EXPECT_BAD("b slots=99999999999999999999\n", "hosts.txt:1:", "positive integer");
    EXPECT_BAD("b slots=65536\n", "hosts.txt:1:", "65535");
    EXPECT_BAD("b max_slots=x slots=1\n", "hosts.txt:1:", "max_slots=x");
    EXPECT_BAD("\n\nb:0\n", "hosts.txt:3:", "b:0");
    EXPECT_BAD("b:\n", "hosts.txt:1:", "b:");
    EXPECT_BAD("b:-1\n", "hosts.txt:1:");
    EXPECT_BAD("b:2x\n", "hosts.txt:1:", "b:2x");
    EXPECT_BAD("b:1:2\n", "hosts.txt:1:");
    EXPECT_BAD("b:2 slots=2\n", "hosts.txt:1:", "twice");
    EXPECT_BAD("b slots=2 slots=3\n", "hosts.txt:1:", "twice");
    /* the sum of repeated lines overflows */
    EXPECT_BAD("b slots=65535\nb slots=1\n", "hosts.txt:2:", "65535");
    /* garbage after the host */
    EXPECT_BAD("b slots=2 extra\n", "hosts.txt:1:", "\"extra\"");
    EXPECT_BAD("a b\n", "hosts.txt:1:", "\"b\"");
    EXPECT_BAD("b cpus=2\n", "hosts.txt:1:", "unknown keyword \"cpus\"");
    /* bad names */
    EXPECT_BAD(":4\n", "hosts.txt:1:", "not a host name");
    EXPECT_BAD("bad/name slots=1\n", "hosts.txt:1:", "bad/name");
    EXPECT_BAD("user@host\n", "hosts.txt:1:", "user@host");
    EXPECT_BAD("-n 4\n", "hosts.txt:1:", "-n");
    EXPECT_BAD("slots=4\n", "hosts.txt:1:");
    /* empty and comment-only files */
    EXPECT_BAD("", "hosts.txt", "no hosts");
    EXPECT_BAD("# nothing\n\n   # here\n", "hosts.txt", "no hosts", "3 lines");
    /* a NUL byte: not a text file */
    {
        static const char bin[] = "a:1\nb\0c:2\n";

        hosts = NULL;
        nhosts = 0;
        EXPECT(rtrun_hostfile_parse(bin, sizeof(bin) - 1, "hosts.txt", &hosts, &nhosts) ==
                   RTM_ERR_INVALID_ARG && strstr(rtm_last_error(), "hosts.txt:2:") &&
                   strstr(rtm_last_error(), "NUL"), "NUL byte: %s", rtm_last_error());
        if (hosts)
            release();
    }

    /* very long lines: a long comment is fine, a long name is not */
    big = malloc(200000);
    if (big == NULL)
        return 1;
    memset(big, ' ', 199990);
    memcpy(big, "ok:2 #", 6);
    strcpy(big + 199990, "\nz:1\n");
    EXPECT(parse(big) == RTM_OK && nhosts == 2 && host_is(1, "z", 1), "long comment line");
    release();
    memset(big, 'h', 300);
    strcpy(big + 300, " slots=1\n");
    EXPECT_BAD(big, "hosts.txt:1:", "300 characters");
    memset(big, 'h', 255);
    strcpy(big + 255, ":1\n");
    EXPECT(parse(big) == RTM_OK && nhosts == 1 && strlen(hosts[0].name) == 255,
           "255-character name");
    release();
    free(big);

    /* from a file; missing and unreadable files name the path */
    fd = mkstemp(path);
    EXPECT(fd >= 0, "mkstemp");
    if (fd >= 0) {
        static const char text[] = "f1 slots=2\nf2:1\n";

        EXPECT(write(fd, text, sizeof(text) - 1) == (ssize_t)(sizeof(text) - 1), "write");
        close(fd);
        EXPECT(rtrun_hostfile_read(path, &hosts, &nhosts) == RTM_OK && nhosts == 2 &&
               host_is(0, "f1", 2) && host_is(1, "f2", 1), "read file: %s", rtm_last_error());
        release();
        unlink(path);
        EXPECT(rtrun_hostfile_read(path, &hosts, &nhosts) == RTM_ERR_INVALID_ARG &&
               strstr(rtm_last_error(), path) &&
               strstr(rtm_last_error(), "No such file or directory"),
               "missing file: %s", rtm_last_error());
    }
    EXPECT(rtrun_hostfile_read("/tmp", &hosts, &nhosts) == RTM_ERR_INVALID_ARG &&
           strstr(rtm_last_error(), "/tmp") && strstr(rtm_last_error(), "directory"),
           "directory: %s", rtm_last_error());
    EXPECT(rtrun_hostfile_parse("a\n", 2, "f", NULL, &nhosts) == RTM_ERR_INVALID_ARG,
           "NULL out");
    EXPECT(rtrun_hostfile_read(NULL, &hosts, &nhosts) == RTM_ERR_INVALID_ARG, "NULL path");

    /* host-name rule shared with --host and the allocations */
    EXPECT(rtrun_host_name_ok("node-01.a_b", 11) && !rtrun_host_name_ok(".x", 2) &&
           !rtrun_host_name_ok("a b", 3) && !rtrun_host_name_ok("", 0), "name rule");

    if (th_failures > 0)
        TH_RETURN();
    printf("test_hostfile: all checks passed\n");
    return 0;
}
