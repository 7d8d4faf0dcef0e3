/*
 * Unit test of runtime/pmix_sock.c, linked alone: the server address of
 * OpenPMIx server URIs (good and bad ones), and TCP_NODELAY set on exactly
 * the process's sockets connected to the server the environment names
 * (a real listener on 127.0.0.1 plays the server, a second one a socket of
 * the application's that must stay as it was).
 */
#include "config.h"

#include "runtime/pmix_sock.h"
#include "tests/harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void uri_ok(const char *uri, int family, const char *addr, unsigned port)
{
    struct sockaddr_storage ss;
    char got[INET6_ADDRSTRLEN] = "";
    unsigned gport = 0;

    if (rtm_pmix_uri_addr(uri, &ss) != 0) {
        EXPECT(0, "refused: %s", uri);
        return;
    }
    EXPECT(ss.ss_family == family, "%s: family %d", uri, ss.ss_family);
    if (ss.ss_family == AF_INET) {
        const struct sockaddr_in *a = (const void *)&ss;

        inet_ntop(AF_INET, &a->sin_addr, got, sizeof(got));
        gport = ntohs(a->sin_port);
    } else if (ss.ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const void *)&ss;

        inet_ntop(AF_INET6, &a->sin6_addr, got, sizeof(got));
        gport = ntohs(a->sin6_port);
    }
    EXPECT(strcmp(got, addr) == 0 && gport == port, "%s: got %s port %u", uri, got, gport);
}

static void uri_bad(const char *uri)
{
    struct sockaddr_storage ss;

    memset(&ss, 0x5a, sizeof(ss));
    EXPECT(rtm_pmix_uri_addr(uri, &ss) == -1, "accepted: %s", uri ? uri : "(null)");
    EXPECT(((unsigned char *)&ss)[0] == 0x5a, "%s: refused but written", uri ? uri : "(null)");
}

static int listener(struct sockaddr_in *addr)
{
    socklen_t len = sizeof(*addr);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    CHECK(fd >= 0, "socket: %s", strerror(errno));
    memset(addr, 0, sizeof(*addr));
    addr->sin_family = AF_INET;
    addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(bind(fd, (struct sockaddr *)addr, sizeof(*addr)) == 0 && listen(fd, 4) == 0 &&
              getsockname(fd, (struct sockaddr *)addr, &len) == 0,
          "listen: %s", strerror(errno));
    return fd;
}

static int connected(const struct sockaddr_in *addr)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    CHECK(fd >= 0 && connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0,
          "connect: %s", strerror(errno));
    return fd;
}

static int nodelay(int fd)
{
    int v = -1;
    socklen_t len = sizeof(v);

    CHECK(getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, &len) == 0, "getsockopt: %s",
          strerror(errno));
    return v;
}

int main(void)
{
    struct sockaddr_in srv, other;
    char uri[128], big[2048];
    int lsrv, lother, c1, c2, c3;

    th_name = "test_pmix_sock";
    uri_ok("rtm.vm.8810.rtrun.0;tcp4://127.0.0.1:37985", AF_INET, "127.0.0.1", 37985);
    uri_ok("slurm.pmix.1234.0;tcp4://10.1.2.3:1", AF_INET, "10.1.2.3", 1);
    uri_ok("a;b;tcp4://127.0.0.1:65535", AF_INET, "127.0.0.1", 65535);
    uri_ok("ns.0;tcp6://[::1]:4242", AF_INET6, "::1", 4242);
    uri_ok("ns.0;tcp6://fe80::1:4242", AF_INET6, "fe80::1", 4242);
    uri_bad(NULL);
    uri_bad("");
    uri_bad("no-semicolon tcp4://127.0.0.1:1");
    uri_bad("ns.0;");
    uri_bad("ns.0;tcp4://127.0.0.1");
    uri_bad("ns.0;tcp4://127.0.0.1:");
    uri_bad("ns.0;tcp4://127.0.0.1:0");
    uri_bad("ns.0;tcp4://127.0.0.1:65536");
    uri_bad("ns.0;tcp4://127.0.0.1:000001");
    uri_bad("ns.0;tcp4://127.0.0.1:-5");
    uri_bad("ns.0;tcp4://127.0.0.1:5x");
    uri_bad("ns.0;tcp4://localhost:5");
    uri_bad("ns.0;tcp4://[127.0.0.1]:5");
    uri_bad("ns.0;tcp6://[::1:5");
    uri_bad("ns.0;tcp6://[::1]5");
    uri_bad("ns.0;tcp6://[zz]:5");
    uri_bad("ns.0;udp4://127.0.0.1:5");
    uri_bad("ns.0;file:///tmp/x");
    memset(big, 'n', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    memcpy(big + sizeof(big) - 30, ";tcp4://127.0.0.1:5", 20);
    uri_bad(big); /* longer than any URI a server writes */

    /* The server's connection gets TCP_NODELAY, the application's other
     * socket does not, and nothing is set without a URI. */
    lsrv = listener(&srv);
    lother = listener(&other);
    c1 = connected(&srv);
    c2 = connected(&other);
    c3 = connected(&srv);
    EXPECT(nodelay(c1) == 0 && nodelay(c2) == 0, "TCP_NODELAY set before");
    unsetenv("PMIX_SERVER_URI41");
    unsetenv("PMIX_SERVER_URI4");
    unsetenv("PMIX_SERVER_URI3");
    unsetenv("PMIX_SERVER_URI21");
    unsetenv("PMIX_SERVER_URI2");
    EXPECT(rtm_pmix_server_nodelay() == 0, "set without a server named");
    setenv("PMIX_SERVER_URI2", "garbage", 1);
    EXPECT(rtm_pmix_server_nodelay() == 0, "set with a bad URI");
    snprintf(uri, sizeof(uri), "test.0;tcp4://127.0.0.1:%u", (unsigned)ntohs(srv.sin_port));
    setenv("PMIX_SERVER_URI41", uri, 1);
    setenv("PMIX_SERVER_URI4", uri, 1);
    EXPECT(rtm_pmix_server_nodelay() == 2, "not the two connections to the server");
    EXPECT(nodelay(c1) != 0 && nodelay(c3) != 0, "no TCP_NODELAY on the server's connection");
    EXPECT(nodelay(c2) == 0, "TCP_NODELAY set on a socket to another address");
    close(c1);
    close(c2);
    close(c3);
    close(lsrv);
    close(lother);
    TH_RETURN();
}
