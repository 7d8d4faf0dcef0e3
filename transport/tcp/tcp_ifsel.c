/*
 * Which local IPv4 addresses the tcp transport listens on and publishes.
 *
 * RTM_TCP_IF is a comma-separated list of interface names ("eth0") and
 * CIDR subnets ("10.0.0.0/8"); an address is used when it is up and any
 * entry matches it. Unset: every interface that is up except loopback.
 * Loopback reaches only this host, so it is used only when every rank of
 * the job is on this host; then, with RTM_TCP_IF unset, it is the only
 * address used (nothing leaves the host).
 */
#include "config.h"

#include "transport/tcp/tcp.h"
#include "common/error.h"
#include "common/log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int prefix_of(struct in_addr mask)
{
    uint32_t m = ntohl(mask.s_addr);
    int n = 0;

    while (m & 0x80000000u) {
        n++;
        m <<= 1;
    }
    return n;
}

int tcp_if_entry_match(const char *entry, size_t entry_len, const char *name,
                       struct in_addr addr)
{
    char buf[64];
    const char *slash;

    if (entry_len == 0 || entry_len >= sizeof(buf))
        return -1;
    memcpy(buf, entry, entry_len);
    buf[entry_len] = '\0';
    slash = strchr(buf, '/');
    if (slash != NULL) {
        struct in_addr net;
        char *end;
        long plen = strtol(slash + 1, &end, 10);
        uint32_t mask;

        buf[slash - buf] = '\0';
        if (slash[1] == '\0' || *end != '\0' || plen < 0 || plen > 32 ||
            inet_pton(AF_INET, buf, &net) != 1)
            return -1;
        mask = plen == 0 ? 0 : htonl(~0u << (32 - plen));
        return (addr.s_addr & mask) == (net.s_addr & mask);
    }
    if (strchr(buf, '.') != NULL && strspn(buf, "0123456789.") == entry_len)
        return -1;   /* a bare address: the user meant a subnet, say so */
    return strcmp(buf, name) == 0;
}

/* Every entry of spec must be well formed; 0 or an error naming the entry. */
static rtm_status_t spec_check(const char *spec)
{
    const char *p = spec;
    struct in_addr any = {0};

    while (*p != '\0') {
        size_t len = strcspn(p, ",");

        if (len > 0 && tcp_if_entry_match(p, len, "", any) < 0)
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "RTM_TCP_IF: \"%.*s\" is neither an interface name nor a "
                                 "subnet in CIDR form (e.g. eth0 or 10.0.0.0/8)",
                                 (int)len, p);
        p += len;
        if (*p == ',')
            p++;
    }
    return RTM_OK;
}

static int spec_matches(const char *spec, const char *name, struct in_addr addr)
{
    const char *p = spec;

    while (*p != '\0') {
        size_t len = strcspn(p, ",");

        if (len > 0 && tcp_if_entry_match(p, len, name, addr) > 0)
            return 1;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

rtm_status_t tcp_ifsel(const char *spec, int single_host, tcp_ifaddr_t *out, int max,
                       int *num_p)
{
    struct ifaddrs *ifa_list, *ifa;
    char found[256] = "";
    size_t found_len = 0;
    int n = 0, skipped_lo = 0;
    rtm_status_t status;

    if (spec == NULL)
        spec = "";
    status = spec_check(spec);
    if (status != RTM_OK)
        return status;
    if (getifaddrs(&ifa_list) != 0)
        return rtm_error_set(RTM_ERR_TRANSPORT, "tcp: cannot list network interfaces: %s",
                             strerror(errno));
    for (ifa = ifa_list; ifa != NULL; ifa = ifa->ifa_next) {
        struct in_addr addr;
        int lo;
        char text[INET_ADDRSTRLEN];

        if (ifa->ifa_addr == NULL || ifa->ifa_addr->sa_family != AF_INET ||
            !(ifa->ifa_flags & IFF_UP))
            continue;
        addr = ((struct sockaddr_in *)(void *)ifa->ifa_addr)->sin_addr;
        lo = (ifa->ifa_flags & IFF_LOOPBACK) || (ntohl(addr.s_addr) >> 24) == 127;
        inet_ntop(AF_INET, &addr, text, sizeof(text));
        if (found_len < sizeof(found))
            found_len += (size_t)snprintf(found + found_len, sizeof(found) - found_len, "%s%s %s",
                                          found_len ? ", " : "", ifa->ifa_name, text);
        if (spec[0] != '\0') {
            if (!spec_matches(spec, ifa->ifa_name, addr))
                continue;
            if (lo && !single_host) {
                skipped_lo = 1;
                continue;
            }
        } else if (lo != single_host) {
            continue;
        }
        if (n == max)
            continue;
        snprintf(out[n].name, sizeof(out[n].name), "%s", ifa->ifa_name);
        out[n].addr = addr;
        out[n].prefix_len = ifa->ifa_netmask
            ? (uint8_t)prefix_of(((struct sockaddr_in *)(void *)ifa->ifa_netmask)->sin_addr)
            : 32;
        out[n].loopback = (uint8_t)lo;
        n++;
    }
    freeifaddrs(ifa_list);
    if (skipped_lo)
        rtm_warn("RTM_TCP_IF=%s: loopback left out: the job spans several hosts", spec);
    if (n == 0)
        return rtm_error_set(RTM_ERR_UNREACHABLE,
                             "tcp: no usable IPv4 interface (RTM_TCP_IF=\"%s\"%s; up: %s); "
                             "set RTM_TCP_IF to the interfaces or subnets that reach the "
                             "other hosts",
                             spec, single_host ? "" : ", loopback excluded in a multi-host job",
                             found_len ? found : "none");
    *num_p = n;
    return RTM_OK;
}
