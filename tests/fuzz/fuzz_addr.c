/*
 * Fuzz target: the transport address blobs a rank reads from PMIx for a
 * peer (what the peer published with addr_pack), through each transport's
 * own reachable and ep_create: tcp (transport/tcp/tcp_iface.c) and shm
 * (transport/shm/shm_iface.c), on interfaces built by hand (rank 1 of 4;
 * tcp on 10.1.2.3/16, shm with ranks 0-2 on this host). The input: u8
 * transport (even: tcp, odd: shm), u8 peer % 4, then the blob. An endpoint
 * made from a blob holds only addresses it listed, its host name ends.
 */
#include "config.h"

#include "transport/shm/shm.h"
#include "tests/fuzz/fuzz_tcp.h"

#include <arpa/inet.h>

static void addr_tcp(int peer, const void *blob, size_t len)
{
    tcp_iface_t *iface = fz_iface_new();
    rtm_tl_ep_t *tl_ep;

    if (iface == NULL)
        return;
    iface->num_ifaddrs = 1;
    inet_pton(AF_INET, "10.1.2.3", &iface->ifaddrs[0].addr);
    iface->ifaddrs[0].prefix_len = 16;
    if (rtm_tl_tcp.reachable(&iface->super, peer, blob, len) &&
        rtm_tl_tcp.ep_create(&iface->super, peer, blob, len, &tl_ep) == RTM_OK) {
        tcp_ep_t *ep = tcp_ep_of(tl_ep);
        const tcp_addr_hdr_t *hdr = blob;

        FZ_CHECK(peer != FZ_RANK && ep->super.peer == peer);
        FZ_CHECK(ep->naddrs >= 0 && ep->naddrs <= hdr->naddrs && ep->naddrs <= TCP_MAX_ADDRS);
        for (int i = 0; i < ep->naddrs; i++)
            FZ_CHECK(ep->addrs[i].sin_family == AF_INET);
        FZ_CHECK(memchr(ep->hostname, '\0', sizeof(ep->hostname)) != NULL);
    }
    fz_iface_free(iface);
}

static void addr_shm(int peer, const void *blob, size_t len)
{
    static int local_peers[3] = {0, 1, 2};
    shm_iface_t *iface = calloc(1, sizeof(*iface));
    rtm_tl_ep_t *tl_ep;

    if (iface == NULL)
        return;
    iface->world_rank = FZ_RANK;
    iface->local_rank = 1;
    iface->local_size = 3;
    iface->local_peers = local_peers;
    iface->node_id = 0;
    snprintf(iface->hostname, sizeof(iface->hostname), "fuzzhost");
    iface->rx = calloc(2, sizeof(*iface->rx));
    iface->tx = calloc(3, sizeof(*iface->tx));
    iface->eps = calloc(3, sizeof(*iface->eps));
    if (iface->rx != NULL && iface->tx != NULL && iface->eps != NULL &&
        rtm_tl_shm.reachable(&iface->super, peer, blob, len) &&
        rtm_tl_shm.ep_create(&iface->super, peer, blob, len, &tl_ep) == RTM_OK) {
        FZ_CHECK(peer != FZ_RANK && peer < 3 && tl_ep->peer == peer);
        FZ_CHECK(tl_ep == &iface->eps[peer].super);
    }
    free(iface->rx);
    free(iface->tx);
    free(iface->eps);
    free(iface);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in_t in = fz_in(data, size);
    unsigned which = fz_u8(&in);
    int peer = fz_u8(&in) % 4;
    void *blob = fz_dup(in.p, in.left);   /* exactly the blob's bytes */

    if (blob == NULL)
        return 0;
    if (which % 2 == 0)
        addr_tcp(peer, in.left ? blob : NULL, in.left);
    else
        addr_shm(peer, in.left ? blob : NULL, in.left);
    free(blob);
    return 0;
}
