/*
 * The shm transport's load signal: is the host busy (more runnable tasks
 * than CPUs)? A copy through the rings needs the sender and the receiver on
 * a core at once; a CMA read needs only the receiver. On a busy host the
 * sender is often off its core while the receiver waits for the next
 * fragment, so the CMA threshold drops (RTM_SHM_CMA_THRESHOLD_BUSY).
 *
 * The sample is the kernel's count of runnable tasks now (4th field of
 * /proc/loadavg, "running/total"; the reader counts itself), read with one
 * pread of a descriptor opened at wireup, at most every SHM_LOAD_SAMPLE_S,
 * smoothed over about four samples. The 1-minute load average would lag a
 * minute behind a change of load.
 */
#include "config.h"

#include "transport/shm/shm.h"
#include "common/log.h"
#include "common/timer.h"
#include "transport/shm/shm_config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SHM_LOAD_SAMPLE_S 0.01
#define SHM_LOAD_PATH     "/proc/loadavg"

/* Runnable tasks in the text of /proc/loadavg ("0.50 0.60 0.70 3/250 123"),
 * or -1 when it is not in that form. */
int shm_load_parse(const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    long n = 0;
    int fields = 0, digits = 0;

    /* skip three load averages */
    while (p < end && fields < 3) {
        while (p < end && *p != ' ')
            p++;
        while (p < end && *p == ' ')
            p++;
        fields++;
    }
    if (fields < 3)
        return -1;
    while (p < end && *p >= '0' && *p <= '9' && n < 1000000) {
        n = n * 10 + (*p - '0');
        p++;
        digits++;
    }
    if (digits == 0 || p >= end || *p != '/')
        return -1;
    return (int)n;
}

void shm_load_open(shm_iface_t *iface)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);

    iface->load_cpus = cpus > 0 ? (int)cpus : 1;
    iface->load_runnable = -1.0;
    iface->load_busy = shm_config.load == 2;
    iface->load_fd = -1;
    if (shm_config.load != 0)
        return;
    iface->load_fd = open(SHM_LOAD_PATH, O_RDONLY | O_CLOEXEC);
    if (iface->load_fd < 0)
        rtm_debug("shm: cannot open %s; the host counts as quiet for the CMA threshold",
                  SHM_LOAD_PATH);
}

void shm_load_close(shm_iface_t *iface)
{
    if (iface->load_fd >= 0) {
        close(iface->load_fd);
        iface->load_fd = -1;
    }
}

/* No allocation, lock or log: once per rendezvous message received. */
int shm_load_busy(shm_iface_t *iface)
{
    char buf[128];
    double now;
    ssize_t n;
    int running;

    if (shm_config.load != 0 || iface->load_fd < 0)
        return shm_config.load == 2;
    now = rtm_time_now();
    if (iface->load_runnable >= 0 && now - iface->load_sampled < SHM_LOAD_SAMPLE_S)
        return iface->load_busy;
    iface->load_sampled = now;
    n = pread(iface->load_fd, buf, sizeof(buf) - 1, 0);
    running = n > 0 ? shm_load_parse(buf, (size_t)n) : -1;
    if (running < 0)
        return iface->load_busy;
    if (iface->load_runnable < 0)
        iface->load_runnable = running;
    else
        iface->load_runnable = 0.75 * iface->load_runnable + 0.25 * running;
    iface->load_busy = iface->load_runnable > (double)iface->load_cpus;
    iface->load_samples++;
    iface->load_busy_samples += (uint64_t)iface->load_busy;
    return iface->load_busy;
}
