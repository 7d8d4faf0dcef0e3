/*
 * Fuzz target: rtd_hs_check (launcher/rtd_wire.c), the pure parse and
 * check of one daemon-tree handshake message, under a fixed job secret.
 * The input: u8 step (HELLO, CHALLENGE, PROOF expected), u8 host count,
 * u8 expected host, 32 B nonce_c, 32 B nonce_p, u8 flip, then the message.
 * Checked: RTD_HS_OK only for a whole message of the step's exact length,
 * a host in range (the expected one when given) and, for CHALLENGE and
 * PROOF, the MAC the secret gives; a valid message built from the fields
 * passes, and with one byte of its host, nonce or MAC flipped does not.
 */
#include "config.h"

#include "launcher/rtd_wire.h"
#include "tests/fuzz/fuzz.h"

#include <arpa/inet.h>

static const rtm_secret_t secret = {{9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 11, 12, 13, 14, 15, 16, 17,
                                     18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
                                     32}, 1};

static const uint32_t steps[] = {RTD_MSG_HELLO, RTD_MSG_CHALLENGE, RTD_MSG_PROOF};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in_t in = fz_in(data, size);
    uint32_t type = steps[fz_u8(&in) % 3];
    int nhosts = 1 + fz_u8(&in) % 64;
    int host = (int)(fz_u8(&in) % (nhosts + 1)) - 1;
    unsigned char nonce_c[RTM_AUTH_NONCE_LEN], nonce_p[RTM_AUTH_NONCE_LEN], got[RTM_AUTH_NONCE_LEN];
    unsigned char mac[RTM_AUTH_MAC_LEN], msg[RTD_HS_MSG_MAX];
    rtd_hs_expect_t want;
    rtd_hs_verdict_t v;
    rtd_hdr_t h;
    size_t len, off;
    uint8_t flip;
    int at;

    for (size_t i = 0; i < sizeof(nonce_c); i++)
        nonce_c[i] = fz_u8(&in);
    for (size_t i = 0; i < sizeof(nonce_p); i++)
        nonce_p[i] = fz_u8(&in);
    flip = fz_u8(&in);
    if (type != RTD_MSG_HELLO && host < 0)
        host = 0;
    want = (rtd_hs_expect_t){&secret, type, host, nhosts, nonce_c,
                             type == RTD_MSG_PROOF ? nonce_p : NULL};

    v = rtd_hs_check(&want, in.p, in.left, &h, got);
    FZ_CHECK(v >= RTD_HS_OK && v <= RTD_HS_BAD_MAC);
    FZ_CHECK(rtd_hs_verdict_str(v) != NULL);
    if (v == RTD_HS_OK) {
        FZ_CHECK(h.type == type && in.left >= RTD_HDR_SIZE + h.len);
        FZ_CHECK(h.len == (type == RTD_MSG_HELLO ? RTD_HELLO_LEN
                           : type == RTD_MSG_CHALLENGE ? RTD_CHALLENGE_LEN : RTD_PROOF_LEN));
        FZ_CHECK(h.a >= 0 && h.a < nhosts && (host < 0 || h.a == host));
        if (type == RTD_MSG_CHALLENGE) {
            rtd_hs_mac(&secret, RTD_HS_ROLE_PARENT, h.a, nonce_c, got, mac);
            FZ_CHECK(memcmp(mac, in.p + RTD_HDR_SIZE + RTM_AUTH_NONCE_LEN, sizeof(mac)) == 0);
        } else if (type == RTD_MSG_PROOF) {
            rtd_hs_mac(&secret, RTD_HS_ROLE_CHILD, h.a, nonce_c, nonce_p, mac);
            FZ_CHECK(memcmp(mac, in.p + RTD_HDR_SIZE, sizeof(mac)) == 0);
        }
    }

    /* a valid message of the step, then one covered byte flipped */
    at = host >= 0 ? host : 0;
    len = type == RTD_MSG_HELLO ? RTD_HELLO_LEN
          : type == RTD_MSG_CHALLENGE ? RTD_CHALLENGE_LEN : RTD_PROOF_LEN;
    h = (rtd_hdr_t){.type = type, .len = (uint32_t)len, .dst = -1, .a = at};
    rtd_hdr_pack(&h, msg);
    if (type == RTD_MSG_HELLO) {
        memcpy(msg + RTD_HDR_SIZE, nonce_c, RTM_AUTH_NONCE_LEN);
    } else if (type == RTD_MSG_CHALLENGE) {
        memcpy(msg + RTD_HDR_SIZE, nonce_p, RTM_AUTH_NONCE_LEN);
        rtd_hs_mac(&secret, RTD_HS_ROLE_PARENT, at, nonce_c, nonce_p,
                   msg + RTD_HDR_SIZE + RTM_AUTH_NONCE_LEN);
    } else {
        rtd_hs_mac(&secret, RTD_HS_ROLE_CHILD, at, nonce_c, nonce_p, msg + RTD_HDR_SIZE);
    }
    FZ_CHECK(rtd_hs_check(&want, msg, RTD_HDR_SIZE + len, NULL, NULL) == RTD_HS_OK);
    if (type == RTD_MSG_HELLO)
        return 0;   /* a HELLO proves nothing: its nonce is any */
    /* bytes 12..15: the host index; then the payload (nonce, MAC) */
    off = flip % (4 + len);
    off = off < 4 ? 12 + off : RTD_HDR_SIZE + (off - 4);
    msg[off] ^= (unsigned char)(1u << (flip % 8));
    FZ_CHECK(rtd_hs_check(&want, msg, RTD_HDR_SIZE + len, NULL, NULL) != RTD_HS_OK);
    return 0;
}
