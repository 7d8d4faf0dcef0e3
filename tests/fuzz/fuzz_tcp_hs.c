/*
 * Fuzz target: tcp_hs_check (transport/tcp/tcp_hs.c), the pure parse and
 * check of one tcp handshake message, under a fixed job secret. The input:
 *   u8 step (HELLO, CHALLENGE, PROOF or ACK expected), u8 receiver rank,
 *   u8 job size, u8 expected peer, 32 B nonce_c, 32 B nonce_a, u8 flip,
 *   then the message bytes.
 * Checked: a verdict is one of the enum; TCP_HS_OK only for a whole
 * message of this job from an allowed rank, and for CHALLENGE/PROOF only
 * with the MAC the secret gives. Then a valid message built from the same
 * fields must pass, and the same with one byte of what the MAC covers
 * flipped (byte `flip` of ranks, size, nonce, MAC, where the step uses
 * them) must not.
 */
#include "config.h"

#include "transport/tcp/tcp.h"
#include "tests/fuzz/fuzz.h"

static const rtm_secret_t secret = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                     17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30,
                                     31, 32}, 1};

static const unsigned steps[] = {TCP_HS_HELLO, TCP_HS_CHALLENGE, TCP_HS_PROOF, TCP_HS_ACK};

/* Offsets of the bytes a flip must be caught in: world_rank, world_size,
 * peer_rank (8..19), nonce and MAC (24..87). */
static size_t covered_offset(uint8_t flip)
{
    unsigned k = flip % (12u + 64u);

    return k < 12 ? 8 + k : 24 + (k - 12);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in_t in = fz_in(data, size);
    unsigned type = steps[fz_u8(&in) % 4];
    int world_size = 2 + fz_u8(&in) % 63;
    int me = fz_u8(&in) % world_size;
    int peer = (int)(fz_u8(&in) % (world_size + 1)) - 1;   /* -1: any */
    unsigned char nonce_c[RTM_AUTH_NONCE_LEN], nonce_a[RTM_AUTH_NONCE_LEN], mac[RTM_AUTH_MAC_LEN];
    uint8_t flip;
    tcp_hs_expect_t want;
    tcp_hs_verdict_t v;
    tcp_hs_t hs, good;
    int sender;

    for (size_t i = 0; i < sizeof(nonce_c); i++)
        nonce_c[i] = fz_u8(&in);
    for (size_t i = 0; i < sizeof(nonce_a); i++)
        nonce_a[i] = fz_u8(&in);
    flip = fz_u8(&in);
    if (type != TCP_HS_HELLO && peer < 0)
        peer = (me + 1) % world_size;   /* only HELLO comes from anyone */
    want = (tcp_hs_expect_t){&secret, me, world_size, type, peer, nonce_c,
                             type == TCP_HS_PROOF ? nonce_a : NULL};

    /* the rest of the input as the message */
    v = tcp_hs_check(&want, in.p, in.left, &hs);
    FZ_CHECK(v >= TCP_HS_OK && v <= TCP_HS_BAD_MAC);
    FZ_CHECK(tcp_hs_verdict_str(v) != NULL);
    if (v == TCP_HS_OK) {
        FZ_CHECK(in.left >= sizeof(tcp_hs_t));
        FZ_CHECK(hs.magic == TCP_HS_MAGIC && hs.version == TCP_HS_VERSION);
        FZ_CHECK(hs.world_size == world_size && hs.peer_rank == me);
        FZ_CHECK(hs.world_rank >= 0 && hs.world_rank < world_size && hs.world_rank != me);
        FZ_CHECK(peer < 0 || hs.world_rank == peer);
        FZ_CHECK(hs.hostname[TCP_HOST_MAX - 1] == '\0');
        if (hs.type == TCP_HS_CHALLENGE || hs.type == TCP_HS_PROOF) {
            if (hs.type == TCP_HS_CHALLENGE)
                tcp_hs_mac(&secret, TCP_HS_ROLE_ACCEPTOR, me, hs.world_rank, world_size,
                           nonce_c, hs.nonce, mac);
            else
                tcp_hs_mac(&secret, TCP_HS_ROLE_CONNECTOR, hs.world_rank, me, world_size,
                           nonce_c, nonce_a, mac);
            FZ_CHECK(memcmp(mac, hs.mac, sizeof(mac)) == 0);
        }
    }

    /* a valid message of this step from the expected (or some) peer ... */
    sender = peer >= 0 ? peer : (me + 1) % world_size;
    if (sender == me)
        return 0;
    tcp_hs_fill(&good, type, sender, world_size, me, "peer");
    if (type == TCP_HS_CHALLENGE) {
        memcpy(good.nonce, nonce_a, sizeof(good.nonce));
        tcp_hs_mac(&secret, TCP_HS_ROLE_ACCEPTOR, me, sender, world_size, nonce_c, nonce_a,
                   good.mac);
    } else if (type == TCP_HS_PROOF) {
        tcp_hs_mac(&secret, TCP_HS_ROLE_CONNECTOR, sender, me, world_size, nonce_c, nonce_a,
                   good.mac);
    }
    FZ_CHECK(tcp_hs_check(&want, &good, sizeof(good), NULL) == TCP_HS_OK);
    /* ... fails with any covered byte changed (for HELLO and ACK the nonce
     * and MAC are not checked, only the ranks and size) */
    {
        size_t off = covered_offset(flip);
        unsigned char *p = (unsigned char *)&good;

        if ((type == TCP_HS_HELLO || type == TCP_HS_ACK) && off >= 24)
            return 0;
        if (type == TCP_HS_PROOF && off >= 24 && off < 56)
            return 0;   /* PROOF's nonce field carries nothing (its MAC covers ours) */
        if (peer < 0 && off >= 8 && off < 12)
            return 0;   /* a HELLO may come from any other rank */
        p[off] ^= (unsigned char)(1u << (flip % 8));
        FZ_CHECK(tcp_hs_check(&want, &good, sizeof(good), NULL) != TCP_HS_OK);
    }
    return 0;
}
