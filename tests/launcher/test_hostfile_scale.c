/*
 * Unit test: reading a hostfile and mapping the job cost time linear in the
 * number of hosts, and a hostfile that is not a regular file is refused at
 * once.
 *  - The work of the host index is counted: adding N distinct hosts, then
 *    each again, compares few names per entry (a scan compares N/2).
 *  - A size ratio, not a time: parsing and mapping 10 times as many hosts
 *    (each listed twice, so lookups of known names count) may take at most
 *    60 times the CPU time (linear: ~10-20 with cache effects; the
 *    quadratic code took ~100, and minutes: a CPU-time timer at twice the
 *    allowed ratio ends the test failed instead of waiting).
 *  - A FIFO, a directory and /dev/null as hostfile are refused with a
 *    message naming what they are; the FIFO must not block (an alarm ends
 *    the test if it does, rather than hanging).
 */
#include "config.h"

#include "launcher/hostfile.h"
#include "launcher/job.h"
#include "tests/harness.h"

#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define SMALL 20000
#define RATIO_MAX 60.0

static double cpu_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* n hosts "hI slots=1", then each again as "hI" */
static char *make_text(int n, size_t *len_p)
{
    size_t cap = (size_t)n * 40 + 1, len = 0;
    char *text = malloc(cap);

    CHECK(text != NULL, "out of memory");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "host%d slots=1\n", i);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "host%d\n", i);
    *len_p = len;
    return text;
}

/* CPU seconds to parse and map n hosts, the best of `runs` runs. */
static double parse_and_map(int n, int runs)
{
    size_t len;
    char *text = make_text(n, &len);
    double best = -1;

    for (int run = 0; run < runs; run++) {
        rtrun_opts_t opts;
        rtrun_job_t *job = NULL;
        double t0 = cpu_now(), dt;

        memset(&opts, 0, sizeof(opts));
        opts.nprocs = 1;
        CHECK(rtrun_hostfile_parse(text, len, "big.txt", &opts.hosts, &opts.nhosts) == RTM_OK,
              "parse of %d hosts: %s", n, rtm_last_error());
        EXPECT(opts.nhosts == (size_t)n && opts.hosts[n - 1].slots == 2,
               "%d hosts: got %zu, last with %d slots", n, opts.nhosts,
               opts.hosts[n - 1].slots);
        CHECK(rtrun_job_map(&opts, "thishost", 2, &job) == RTM_OK, "map of %d hosts: %s", n,
              rtm_last_error());
        dt = cpu_now() - t0;
        rtrun_job_free(job);
        rtrun_hosts_free(opts.hosts, opts.nhosts);
        if (best < 0 || dt < best)
            best = dt;
    }
    free(text);
    return best;
}

static void on_cpu_limit(int sig)
{
    (void)sig;
    static const char msg[] = "FAIL test_hostfile_scale: 10x the hosts took more than twice the allowed ratio of CPU time: not linear\n";
    (void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
    _exit(1);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "FAIL test_hostfile_scale: reading a FIFO as hostfile blocked\n";
    (void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
    _exit(1);
}

static void expect_refused(const char *path, const char *what)
{
    rtrun_host_spec_t *hosts = NULL;
    size_t nhosts = 0;

    EXPECT(rtrun_hostfile_read(path, &hosts, &nhosts) == RTM_ERR_INVALID_ARG &&
           hosts == NULL && strstr(rtm_last_error(), path) && strstr(rtm_last_error(), what),
           "%s: expected a refusal saying \"%s\", got \"%s\"", path, what, rtm_last_error());
}

int main(void)
{
    rtrun_host_list_t list = {0};
    char name[32], dir[] = "/tmp/test_hostfile_scale.XXXXXX", fifo[64];
    double small, big;

    th_name = "test_hostfile_scale";
    /* Memory from the heap and kept there: the best of 3 runs of either
     * size then pays no page faults (with glibc's sliding mmap threshold
     * the small size reused its pages and the large one faulted in fresh
     * ones every run, which is no property of the code). */
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);

    /* the index's work: names compared per add */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < 100000; i++) {
            snprintf(name, sizeof(name), "n%d", i);
            CHECK(rtrun_host_list_add(&list, name, strlen(name), 1, NULL) == RTM_OK, "add: %s",
                  rtm_last_error());
        }
    }
    EXPECT(list.nhosts == 100000 && list.hosts[99999].slots == 2, "%zu hosts", list.nhosts);
    EXPECT(rtrun_host_list_find(&list, "n77", 3) == 77 && rtrun_host_list_find(&list, "n", 1) < 0,
           "find");
    EXPECT(list.compares <= 4ul * 200000ul, "%lu names compared for 200000 adds (linear: < 2 per add)",
           list.compares);
    printf("index: %lu names compared for 200000 adds\n", list.compares);
    rtrun_host_list_free(&list);

    /* parse + map, a size ratio */
    small = parse_and_map(SMALL, 3);
    /* quadratic code would take minutes: past twice the allowed ratio (CPU
     * time of this process, as measured), the test ends failed */
    {
        double limit = 3 * 2 * RATIO_MAX * (small > 1e-3 ? small : 1e-3);
        struct itimerval it = {.it_value = {.tv_sec = (time_t)limit,
                                            .tv_usec = (suseconds_t)((limit - (double)(time_t)limit) * 1e6)}};

        signal(SIGPROF, on_cpu_limit);
        setitimer(ITIMER_PROF, &it, NULL);
        big = parse_and_map(10 * SMALL, 3);
        memset(&it, 0, sizeof(it));
        setitimer(ITIMER_PROF, &it, NULL);
    }
    printf("parse+map: %d hosts %.4f s CPU, %d hosts %.4f s CPU: ratio %.1f (linear ~10, limit %.0f)\n",
           SMALL, small, 10 * SMALL, big, small > 0 ? big / small : 0.0, RATIO_MAX);
    EXPECT(big <= RATIO_MAX * (small > 1e-4 ? small : 1e-4),
           "10x the hosts took %.1fx the CPU time (limit %.0f): not linear", big / small,
           RATIO_MAX);

    /* not regular files */
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
    signal(SIGALRM, on_alarm);
    alarm(60);
    expect_refused(fifo, "FIFO");
    alarm(0);
    expect_refused(dir, "directory");
    expect_refused("/dev/null", "character device");
    unlink(fifo);
    rmdir(dir);
    TH_RETURN();
}
