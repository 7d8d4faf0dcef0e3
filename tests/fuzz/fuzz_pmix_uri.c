/*
 * Fuzz target: the PMIx server URI a rank reads from its environment
 * (PMIX_SERVER_URI*, runtime/pmix_sock.c), through rtm_pmix_uri_addr. The
 * input is the variable's value (cut at its first NUL). An accepted URI
 * gives an IPv4 or IPv6 address with a port of 1-65535, and the address
 * written back as a URI parses to the same one.
 */
#include "config.h"

#include "runtime/pmix_sock.h"
#include "tests/fuzz/fuzz.h"

#include <arpa/inet.h>
#include <netinet/in.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sockaddr_storage ss, again;
    char *uri = malloc(size + 1), back[128], host[INET6_ADDRSTRLEN];

    if (uri == NULL)
        return 0;
    memcpy(uri, data, size);
    uri[size] = '\0';
    if (rtm_pmix_uri_addr(uri, &ss) == 0) {
        FZ_CHECK(ss.ss_family == AF_INET || ss.ss_family == AF_INET6);
        if (ss.ss_family == AF_INET) {
            const struct sockaddr_in *a = (const void *)&ss;

            FZ_CHECK(a->sin_port != 0);
            FZ_CHECK(inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host)) != NULL);
            snprintf(back, sizeof(back), "x.0;tcp4://%s:%u", host, (unsigned)ntohs(a->sin_port));
        } else {
            const struct sockaddr_in6 *a = (const void *)&ss;

            FZ_CHECK(a->sin6_port != 0);
            FZ_CHECK(inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host)) != NULL);
            snprintf(back, sizeof(back), "x.0;tcp6://[%s]:%u", host,
                     (unsigned)ntohs(a->sin6_port));
        }
        FZ_CHECK(rtm_pmix_uri_addr(back, &again) == 0);
        FZ_CHECK(memcmp(&ss, &again, sizeof(ss)) == 0);
    }
    free(uri);
    return 0;
}
