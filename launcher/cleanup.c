#include "config.h"

#include "launcher/cleanup.h"
#include "launcher/job.h"
#include "common/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

int rtrun_cleanup_shm_name_matches(const char *name, const char *nspace)
{
    char sanitized[256];
    size_t len;
    char next;

    rtrun_job_sanitize(nspace, sanitized, sizeof(sanitized));
    if (strncmp(name, "rtm-", 4) != 0)
        return 0;
    len = strlen(sanitized);
    if (strncmp(name + 4, sanitized, len) != 0)
        return 0;
    next = name[4 + len];
    return next == '\0' || next == '-' || next == '_' || next == '.';
}

int rtrun_cleanup_shm(const char *nspace)
{
    DIR *dir = opendir("/dev/shm");
    struct dirent *de;
    int removed = 0;

    if (dir == NULL)
        return 0;
    while ((de = readdir(dir)) != NULL) {
        if (!rtrun_cleanup_shm_name_matches(de->d_name, nspace))
            continue;
        if (unlinkat(dirfd(dir), de->d_name, 0) != 0 && errno != ENOENT) {
            rtm_warn("cannot remove /dev/shm/%s: %s", de->d_name, strerror(errno));
            continue;
        }
        rtm_debug("removed /dev/shm/%s", de->d_name);
        removed++;
    }
    closedir(dir);
    return removed;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    if (remove(path) != 0 && errno != ENOENT)
        rtm_warn("cannot remove %s: %s", path, strerror(errno));
    return 0;
}

void rtrun_cleanup_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The pid in "<prefix><pid><sep>..." when `sep` follows the digits. */
static pid_t pid_after(const char *name, const char *prefix, const char *seps)
{
    size_t plen = strlen(prefix);
    char *end;
    long pid;

    if (strncmp(name, prefix, plen) != 0 || name[plen] < '0' || name[plen] > '9')
        return -1;
    pid = strtol(name + plen, &end, 10);
    if (pid <= 1 || strchr(seps, *end) == NULL)
        return -1;
    return (pid_t)pid;
}

/* Gone: no such process, or a zombie (it exited; its parent, often init
 * for a daemon whose rtrun died, has not reaped it yet). */
static int pid_is_gone(pid_t pid)
{
    char path[64], buf[256], *close_paren;
    ssize_t n;
    int fd;

    if (kill(pid, 0) != 0 && errno == ESRCH)
        return 1;
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    /* "pid (comm) S ...": the state follows the last ')' */
    close_paren = strrchr(buf, ')');
    return close_paren != NULL && close_paren[1] == ' ' && close_paren[2] == 'Z';
}

int rtrun_cleanup_stale(const char *hostname)
{
    char shm_prefix[300], host[256];
    DIR *dir;
    struct dirent *de;
    int removed = 0;

    /* Temp dirs: /tmp/rtrun.<pid>.XXXXXX (the pid is the rtrun's). */
    dir = opendir(RTRUN_TMPDIR_PARENT);
    if (dir != NULL) {
        while ((de = readdir(dir)) != NULL) {
            char path[512];
            pid_t pid = pid_after(de->d_name, RTRUN_TMPDIR_PREFIX, ".");

            if (pid < 0 || !pid_is_gone(pid))
                continue;
            snprintf(path, sizeof(path), "%s/%s", RTRUN_TMPDIR_PARENT, de->d_name);
            rtm_info("removing %s, left by rtrun pid %d which is gone", path, (int)pid);
            rtrun_cleanup_tree(path);
            removed++;
        }
        closedir(dir);
    }

    /* Segments: /dev/shm/rtm-rtm.<host>.<pid>-... of this host's rtruns. */
    rtrun_job_sanitize(hostname, host, sizeof(host));
    snprintf(shm_prefix, sizeof(shm_prefix), "rtm-rtm.%.63s.", host);
    dir = opendir("/dev/shm");
    if (dir != NULL) {
        while ((de = readdir(dir)) != NULL) {
            pid_t pid = pid_after(de->d_name, shm_prefix, "-_.");

            if (pid < 0 || !pid_is_gone(pid))
                continue;
            if (unlinkat(dirfd(dir), de->d_name, 0) == 0) {
                rtm_info("removed /dev/shm/%s, left by rtrun pid %d which is gone",
                         de->d_name, (int)pid);
                removed++;
            }
        }
        closedir(dir);
    }
    return removed;
}
