/* This process's connection to its PMIx server (pmix_sock.h). */
#include "config.h"

#include "runtime/pmix_sock.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Longer than any URI OpenPMIx writes (its namespace is at most 255 B). */
#define URI_MAX 1024

/* "PORT" at the end of s (1-5 digits, 1..65535) */
static int parse_port(const char *s, in_port_t *port_p)
{
    unsigned v = 0;
    int n = 0;

    for (; s[n] >= '0' && s[n] <= '9'; n++) {
        if (n == 5)
            return -1;
        v = v * 10 + (unsigned)(s[n] - '0');
    }
    if (n == 0 || s[n] != '\0' || v == 0 || v > 65535)
        return -1;
    *port_p = htons((uint16_t)v);
    return 0;
}

/* host (an address literal of family) and port into *ss */
static int fill_addr(int family, const char *host, const char *port,
                     struct sockaddr_storage *ss)
{
    struct sockaddr_storage tmp;
    in_port_t p;

    memset(&tmp, 0, sizeof(tmp));
    if (parse_port(port, &p) != 0)
        return -1;
    if (family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)(void *)&tmp;

        a->sin_family = AF_INET;
        a->sin_port = p;
        if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
            return -1;
    } else {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)(void *)&tmp;

        a->sin6_family = AF_INET6;
        a->sin6_port = p;
        if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
            return -1;
    }
    *ss = tmp;
    return 0;
}

int rtm_pmix_uri_addr(const char *uri, struct sockaddr_storage *ss)
{
    char buf[URI_MAX];
    const char *semi;
    char *host, *colon;
    size_t len;
    int family;

    if (uri == NULL || ss == NULL)
        return -1;
    len = strnlen(uri, sizeof(buf));
    if (len == sizeof(buf) || (semi = strrchr(uri, ';')) == NULL)
        return -1;
    memcpy(buf, semi + 1, len - (size_t)(semi + 1 - uri) + 1);
    if (strncmp(buf, "tcp4://", 7) == 0)
        family = AF_INET;
    else if (strncmp(buf, "tcp6://", 7) == 0)
        family = AF_INET6;
    else
        return -1;
    host = buf + 7;
    if (family == AF_INET6 && host[0] == '[') {
        /* "[ADDR]:PORT" */
        char *close_br = strchr(++host, ']');

        if (close_br == NULL || close_br[1] != ':')
            return -1;
        *close_br = '\0';
        colon = close_br + 1;
    } else {
        /* "ADDR:PORT": the port after the last colon */
        colon = strrchr(host, ':');
        if (colon == NULL)
            return -1;
        *colon = '\0';
    }
    return fill_addr(family, host, colon + 1, ss);
}

static int same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    if (a->ss_family != b->ss_family)
        return 0;
    if (a->ss_family == AF_INET) {
        const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;

        return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
    }
    if (a->ss_family == AF_INET6) {
        const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;

        return x->sin6_port == y->sin6_port &&
               memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr)) == 0;
    }
    return 0;
}

int rtm_pmix_server_nodelay(void)
{
    /* every variable a client of some version may have used */
    static const char *const vars[] = {"PMIX_SERVER_URI41", "PMIX_SERVER_URI4",
                                       "PMIX_SERVER_URI3", "PMIX_SERVER_URI21",
                                       "PMIX_SERVER_URI2"};
    struct sockaddr_storage servers[sizeof(vars) / sizeof(vars[0])];
    int nservers = 0, set = 0;
    struct dirent *de;
    DIR *d;

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        struct sockaddr_storage ss;
        int dup = 0;

        if (rtm_pmix_uri_addr(getenv(vars[i]), &ss) != 0)
            continue;
        for (int j = 0; j < nservers; j++)
            dup |= same_addr(&servers[j], &ss);
        if (!dup)
            servers[nservers++] = ss;
    }
    if (nservers == 0)
        return 0;
    d = opendir("/proc/self/fd");
    if (d == NULL)
        return 0;
    while ((de = readdir(d)) != NULL) {
        struct sockaddr_storage peer;
        socklen_t plen = sizeof(peer);
        int fd, type = 0, one = 1;
        socklen_t tlen = sizeof(type);

        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        fd = atoi(de->d_name);
        if (fd == dirfd(d) ||
            getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) != 0 || type != SOCK_STREAM)
            continue;
        memset(&peer, 0, sizeof(peer));
        if (getpeername(fd, (struct sockaddr *)&peer, &plen) != 0)
            continue;
        for (int j = 0; j < nservers; j++) {
            if (same_addr(&servers[j], &peer) &&
                setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == 0) {
                set++;
                break;
            }
        }
    }
    closedir(d);
    return set;
}
