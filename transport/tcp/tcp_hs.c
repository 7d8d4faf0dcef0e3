/*
 * tcp transport: the handshake messages (tcp.h) built, MAC'd and checked.
 * Pure functions: no socket, no state, no log, so a fuzz target can feed
 * tcp_hs_check() any bytes (tests/fuzz).
 */
#include "config.h"

#include "transport/tcp/tcp.h"

#include <stdio.h>
#include <string.h>

/* The bytes a MAC covers: a label naming the protocol and the side, the
 * connector's and acceptor's ranks, the job size and both nonces, each
 * integer little-endian whatever the host. */
#define HS_LABEL     "rtmsg tcp handshake v2"
#define HS_MAC_INPUT (sizeof(HS_LABEL) + 1 + 3 * 4 + 2 * RTM_AUTH_NONCE_LEN)

static unsigned char *put_le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
    return p + 4;
}

static void hs_mac_input(unsigned role, int rank_c, int rank_a, int world_size,
                         const unsigned char *nonce_c, const unsigned char *nonce_a,
                         unsigned char *in)
{
    unsigned char *p = in;

    memcpy(p, HS_LABEL, sizeof(HS_LABEL));   /* with its NUL */
    p += sizeof(HS_LABEL);
    *p++ = (unsigned char)role;
    p = put_le32(p, (uint32_t)rank_c);
    p = put_le32(p, (uint32_t)rank_a);
    p = put_le32(p, (uint32_t)world_size);
    memcpy(p, nonce_c, RTM_AUTH_NONCE_LEN);
    p += RTM_AUTH_NONCE_LEN;
    memcpy(p, nonce_a, RTM_AUTH_NONCE_LEN);
}

void tcp_hs_mac(const rtm_secret_t *secret, unsigned role, int rank_c, int rank_a,
                int world_size, const unsigned char *nonce_c, const unsigned char *nonce_a,
                unsigned char *mac)
{
    unsigned char in[HS_MAC_INPUT];

    hs_mac_input(role, rank_c, rank_a, world_size, nonce_c, nonce_a, in);
    rtm_auth_mac(secret, in, sizeof(in), mac);
}

static int hs_mac_ok(const rtm_secret_t *secret, unsigned role, int rank_c, int rank_a,
                     int world_size, const unsigned char *nonce_c, const unsigned char *nonce_a,
                     const unsigned char *mac)
{
    unsigned char in[HS_MAC_INPUT];

    hs_mac_input(role, rank_c, rank_a, world_size, nonce_c, nonce_a, in);
    return rtm_auth_mac_ok(secret, in, sizeof(in), mac);
}

void tcp_hs_fill(tcp_hs_t *hs, unsigned type, int world_rank, int world_size, int peer_rank,
                 const char *hostname)
{
    memset(hs, 0, sizeof(*hs));
    hs->magic = TCP_HS_MAGIC;
    hs->type = (uint8_t)type;
    hs->version = TCP_HS_VERSION;
    hs->world_rank = world_rank;
    hs->world_size = world_size;
    hs->peer_rank = peer_rank;
    snprintf(hs->hostname, sizeof(hs->hostname), "%s", hostname ? hostname : "?");
}

tcp_hs_verdict_t tcp_hs_check(const tcp_hs_expect_t *want, const void *buf, size_t len,
                              tcp_hs_t *hs_p)
{
    tcp_hs_t hs;
    int ok = 1;

    if (want == NULL || want->secret == NULL || buf == NULL || len < sizeof(hs))
        return TCP_HS_SHORT;
    memcpy(&hs, buf, sizeof(hs));
    if (hs.magic != TCP_HS_MAGIC || hs.version != TCP_HS_VERSION)
        return TCP_HS_NOT_OURS;
    if (hs.type != want->type &&
        !(want->type == TCP_HS_ACK && hs.type == TCP_HS_NACK))
        return TCP_HS_WRONG_TYPE;
    if (hs.world_size != want->world_size || hs.peer_rank != want->world_rank)
        return TCP_HS_WRONG_JOB;
    if (hs.world_rank < 0 || hs.world_rank >= want->world_size ||
        hs.world_rank == want->world_rank || (want->peer >= 0 && hs.world_rank != want->peer))
        return TCP_HS_BAD_RANK;
    switch (hs.type) {
    case TCP_HS_CHALLENGE:
        /* the acceptor's proof: we connected, the sender accepted */
        ok = want->nonce_c != NULL &&
             hs_mac_ok(want->secret, TCP_HS_ROLE_ACCEPTOR, want->world_rank, hs.world_rank,
                       want->world_size, want->nonce_c, hs.nonce, hs.mac);
        break;
    case TCP_HS_PROOF:
        /* the connector's proof: the sender connected, we accepted */
        ok = want->nonce_c != NULL && want->nonce_a != NULL &&
             hs_mac_ok(want->secret, TCP_HS_ROLE_CONNECTOR, hs.world_rank, want->world_rank,
                       want->world_size, want->nonce_c, want->nonce_a, hs.mac);
        break;
    default:
        break;
    }
    if (!ok)
        return TCP_HS_BAD_MAC;
    hs.hostname[TCP_HOST_MAX - 1] = '\0';
    if (hs_p != NULL)
        *hs_p = hs;
    return TCP_HS_OK;
}

const char *tcp_hs_verdict_str(tcp_hs_verdict_t verdict)
{
    switch (verdict) {
    case TCP_HS_OK:         return "a valid handshake";
    case TCP_HS_SHORT:      return "a truncated handshake";
    case TCP_HS_NOT_OURS:   return "not a librtmsg tcp handshake (bad magic or version)";
    case TCP_HS_WRONG_TYPE: return "a handshake message out of order";
    case TCP_HS_WRONG_JOB:  return "a handshake for another job or rank";
    case TCP_HS_BAD_RANK:   return "a handshake claiming an impossible or unexpected rank";
    case TCP_HS_BAD_MAC:    return "a handshake that does not prove the job secret";
    }
    return "an unknown handshake verdict";
}
