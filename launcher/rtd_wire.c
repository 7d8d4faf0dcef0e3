/*
 * The daemon tree's message header (see rtd_wire.h for the layout).
 */
#include "config.h"

#include "launcher/rtd_wire.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

void rtd_hdr_pack(const rtd_hdr_t *h, void *out)
{
    uint32_t w[6];

    w[0] = htonl(h->type);
    w[1] = htonl(h->len);
    w[2] = htonl((uint32_t)h->dst);
    w[3] = htonl((uint32_t)h->a);
    w[4] = htonl((uint32_t)h->b);
    w[5] = htonl((uint32_t)h->c);
    memcpy(out, w, RTD_HDR_SIZE);
}

int rtd_hdr_unpack(const void *in, rtd_hdr_t *h_p)
{
    uint32_t w[6];
    rtd_hdr_t h;

    memcpy(w, in, RTD_HDR_SIZE);
    h.type = ntohl(w[0]);
    h.len = ntohl(w[1]);
    h.dst = (int32_t)ntohl(w[2]);
    h.a = (int32_t)ntohl(w[3]);
    h.b = (int32_t)ntohl(w[4]);
    h.c = (int32_t)ntohl(w[5]);
    if (h.len > RTD_MAX_PAYLOAD)
        return -1;
    *h_p = h;
    return 0;
}

/* ---- the handshake (rtd_wire.h) ------------------------------------------ */

#define HS_LABEL     "rtmsg daemon tree v1"
#define HS_MAC_INPUT (sizeof(HS_LABEL) + 1 + 4 + 2 * RTM_AUTH_NONCE_LEN)

void rtd_hs_mac(const rtm_secret_t *secret, unsigned role, int host,
                const unsigned char *nonce_c, const unsigned char *nonce_p, unsigned char *mac)
{
    unsigned char in[HS_MAC_INPUT], *p = in;
    uint32_t h = htonl((uint32_t)host);

    memcpy(p, HS_LABEL, sizeof(HS_LABEL));
    p += sizeof(HS_LABEL);
    *p++ = (unsigned char)role;
    memcpy(p, &h, 4);
    p += 4;
    memcpy(p, nonce_c, RTM_AUTH_NONCE_LEN);
    p += RTM_AUTH_NONCE_LEN;
    memcpy(p, nonce_p, RTM_AUTH_NONCE_LEN);
    rtm_auth_mac(secret, in, sizeof(in), mac);
}

static int hs_mac_ok(const rtm_secret_t *secret, unsigned role, int host,
                     const unsigned char *nonce_c, const unsigned char *nonce_p,
                     const unsigned char *mac)
{
    unsigned char want[RTM_AUTH_MAC_LEN];
    int ok;

    rtd_hs_mac(secret, role, host, nonce_c, nonce_p, want);
    ok = rtm_auth_mac_equal(want, mac);
    rtm_secret_wipe(want, sizeof(want));
    return ok;
}

rtd_hs_verdict_t rtd_hs_check(const rtd_hs_expect_t *want, const void *buf, size_t len,
                              rtd_hdr_t *h_p, unsigned char *nonce_p)
{
    const unsigned char *payload = (const unsigned char *)buf + RTD_HDR_SIZE;
    size_t need;
    rtd_hdr_t h;

    if (want == NULL || want->secret == NULL || buf == NULL || len < RTD_HDR_SIZE)
        return RTD_HS_SHORT;
    if (rtd_hdr_unpack(buf, &h) != 0)
        return RTD_HS_WRONG_LEN;
    if (h.type != want->type)
        return RTD_HS_WRONG_TYPE;
    need = want->type == RTD_MSG_HELLO       ? RTD_HELLO_LEN
           : want->type == RTD_MSG_CHALLENGE ? RTD_CHALLENGE_LEN
           : want->type == RTD_MSG_PROOF     ? RTD_PROOF_LEN
                                             : 0;
    if (need == 0 || h.len != need)
        return RTD_HS_WRONG_LEN;
    if (len < RTD_HDR_SIZE + need)
        return RTD_HS_SHORT;
    if (h.a < 0 || h.a >= want->nhosts || (want->host >= 0 && h.a != want->host))
        return RTD_HS_BAD_HOST;
    if (h.type == RTD_MSG_CHALLENGE &&
        (want->nonce_c == NULL ||
         !hs_mac_ok(want->secret, RTD_HS_ROLE_PARENT, h.a, want->nonce_c, payload,
                    payload + RTM_AUTH_NONCE_LEN)))
        return RTD_HS_BAD_MAC;
    if (h.type == RTD_MSG_PROOF &&
        (want->nonce_c == NULL || want->nonce_p == NULL ||
         !hs_mac_ok(want->secret, RTD_HS_ROLE_CHILD, h.a, want->nonce_c, want->nonce_p,
                    payload)))
        return RTD_HS_BAD_MAC;
    if (h_p != NULL)
        *h_p = h;
    if (nonce_p != NULL && h.type != RTD_MSG_PROOF)
        memcpy(nonce_p, payload, RTM_AUTH_NONCE_LEN);
    return RTD_HS_OK;
}

const char *rtd_hs_verdict_str(rtd_hs_verdict_t verdict)
{
    switch (verdict) {
    case RTD_HS_OK:         return "a valid handshake";
    case RTD_HS_SHORT:      return "a truncated handshake";
    case RTD_HS_WRONG_TYPE: return "not the handshake message due";
    case RTD_HS_WRONG_LEN:  return "a handshake message of the wrong length";
    case RTD_HS_BAD_HOST:   return "a handshake naming an impossible or unexpected host";
    case RTD_HS_BAD_MAC:    return "a handshake that does not prove the job secret";
    }
    return "an unknown handshake verdict";
}
