#include "config.h"

#include "common/log.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

rtm_log_level_t rtm_log_level = RTM_LOG_WARN;

static char log_host[64];
static char log_prefix[128];

const char *rtm_log_hostname(void)
{
    if (log_host[0] == '\0') {
        if (gethostname(log_host, sizeof(log_host) - 1) != 0)
            strcpy(log_host, "unknown-host");
        log_host[sizeof(log_host) - 1] = '\0';
    }
    return log_host;
}

void rtm_log_set_hostname(const char *name)
{
    if (name != NULL && name[0] != '\0')
        snprintf(log_host, sizeof(log_host), "%s", name);
}

void rtm_log_set_identity(const char *component, int rank)
{
    char rank_str[16];

    if (rank >= 0)
        snprintf(rank_str, sizeof(rank_str), "%d", rank);
    else
        snprintf(rank_str, sizeof(rank_str), "-");
    snprintf(log_prefix, sizeof(log_prefix), "[%s:%d:%s]%s%s", rtm_log_hostname(),
             (int)getpid(), rank_str, component ? " " : "", component ? component : "");
}

void rtm_log_emit(rtm_log_level_t level, const char *fmt, ...)
{
    static const char *const level_names[] = {"error", "warning", "info", "debug", "trace"};
    char line[1024];
    int n;
    va_list ap;

    if (log_prefix[0] == '\0')
        rtm_log_set_identity(NULL, -1);
    n = snprintf(line, sizeof(line), "%s %s: ", log_prefix, level_names[level]);
    if (n < 0 || (size_t)n >= sizeof(line))
        n = 0;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    /* One write per line keeps lines from different ranks whole. */
    n = (int)strlen(line);
    line[n++] = '\n';
    if (write(STDERR_FILENO, line, (size_t)n) < 0) {
        /* nowhere left to report it */
    }
}
