/*
 * Fuzz target: the tcp transport's frame decoder (transport/tcp/tcp_am.c:
 * header checks, lengths, padding, reassembly across reads, BYE), fed what
 * a peer writes on an established connection (tests/fuzz/fuzz_tcp.h). The
 * input: u8 which peer (rank 0, 2 or 3), then the harness's records. Every
 * message delivered is whole and aligned (fz_am_cb); a corrupt stream ends
 * in the peer's failure, never a read out of the receive buffer.
 */
#include "config.h"

#include "tests/fuzz/fuzz_tcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int peers[3] = {0, 2, 3};
    fz_in_t in = fz_in(data, size);
    tcp_iface_t *iface = fz_iface_new();
    int peer = peers[fz_u8(&in) % 3];
    tcp_ep_t *ep;
    int fds[2];

    if (iface == NULL)
        return 0;
    ep = tcp_peer_get(iface, peer);
    if (ep == NULL || fz_socketpair(fds) != 0)
        goto out;
    if (fz_ep_attach(iface, ep, fds[0]) != 0) {
        close(fds[0]);
        close(fds[1]);
        goto out;
    }
    ep->state = TCP_CONN_UP;
    fz_feed(iface, fds[1], &in);
    FZ_CHECK(ep->state == TCP_CONN_UP || ep->state == TCP_CONN_FAILED ||
             ep->state == TCP_CONN_CLOSED);
    /* peer_failed: at most once per peer (the contract), and for good */
    FZ_CHECK(fz_failed_peers <= 1 && (fz_failed_peers == 0 || ep->state == TCP_CONN_FAILED));
    close(fds[1]);
out:
    fz_iface_free(iface);
    return 0;
}
