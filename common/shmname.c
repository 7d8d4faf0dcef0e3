/* Names of a job's files in /dev/shm (shmname.h). */
#include "config.h"

#include "common/shmname.h"

#include <stdio.h>

static int name_char_ok(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '-';
}

void rtm_name_sanitize(const char *in, char *out, size_t len)
{
    size_t i;

    if (len == 0)
        return;
    for (i = 0; in[i] != '\0' && i + 1 < len; i++)
        out[i] = name_char_ok(in[i]) ? in[i] : '_';
    out[i] = '\0';
}

int rtm_job_shm_name(const char *nspace, const char *what, char *buf, size_t len)
{
    char clean[256];
    int n;

    rtm_name_sanitize(nspace, clean, sizeof(clean));
    n = snprintf(buf, len, "/rtm-%s-%s", clean, what);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}
