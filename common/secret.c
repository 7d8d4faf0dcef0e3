/*
 * The job secret and its MAC (see secret.h), on libsodium.
 */
#include "config.h"

#include "common/secret.h"
#include "common/error.h"

#include <sodium.h>
#include <string.h>

_Static_assert(RTM_AUTH_MAC_LEN == crypto_auth_hmacsha256_BYTES, "HMAC-SHA-256 is 32 bytes");
_Static_assert(RTM_SECRET_LEN == crypto_auth_hmacsha256_KEYBYTES, "the key is 32 bytes");

/* sodium_init is idempotent and thread-safe; randombytes needs it. */
static int sodium_ready(void)
{
    return sodium_init() >= 0;
}

rtm_status_t rtm_secret_make(rtm_secret_t *secret_p)
{
    if (secret_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_secret_make: NULL secret");
    if (!sodium_ready())
        return rtm_error_set(RTM_ERR_NOT_SUPPORTED, "libsodium failed to initialize: no "
                             "random source for the job secret");
    randombytes_buf(secret_p->key, sizeof(secret_p->key));
    secret_p->set = 1;
    return RTM_OK;
}

rtm_status_t rtm_secret_from_bytes(const void *bytes, size_t len, rtm_secret_t *secret_p)
{
    if (bytes == NULL || secret_p == NULL || len != RTM_SECRET_LEN)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "job secret of %zu bytes (expected %d)", len,
                             RTM_SECRET_LEN);
    memcpy(secret_p->key, bytes, RTM_SECRET_LEN);
    secret_p->set = 1;
    return RTM_OK;
}

rtm_status_t rtm_secret_from_hex(const char *hex, size_t len, rtm_secret_t *secret_p)
{
    rtm_secret_t s;
    size_t got = 0;

    if (hex == NULL || secret_p == NULL || len != RTM_SECRET_HEX_LEN)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "job secret of %zu hex digits (expected %d)",
                             len, RTM_SECRET_HEX_LEN);
    if (sodium_hex2bin(s.key, sizeof(s.key), hex, len, NULL, &got, NULL) != 0 ||
        got != RTM_SECRET_LEN) {
        sodium_memzero(&s, sizeof(s));
        return rtm_error_set(RTM_ERR_INVALID_ARG, "job secret: not %d hex digits",
                             RTM_SECRET_HEX_LEN);
    }
    s.set = 1;
    *secret_p = s;
    sodium_memzero(&s, sizeof(s));
    return RTM_OK;
}

rtm_status_t rtm_secret_to_hex(const rtm_secret_t *secret, char *buf, size_t len)
{
    if (secret == NULL || !secret->set || buf == NULL || len < RTM_SECRET_HEX_LEN + 1)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtm_secret_to_hex: no secret or buffer "
                             "of %zu bytes", len);
    sodium_bin2hex(buf, len, secret->key, sizeof(secret->key));
    return RTM_OK;
}

void rtm_secret_wipe(void *p, size_t len)
{
    if (p != NULL && len > 0)
        sodium_memzero(p, len);
}

int rtm_auth_nonce(unsigned char nonce[RTM_AUTH_NONCE_LEN])
{
    if (nonce == NULL || !sodium_ready())
        return -1;
    randombytes_buf(nonce, RTM_AUTH_NONCE_LEN);
    return 0;
}

void rtm_auth_mac(const rtm_secret_t *secret, const void *msg, size_t len,
                  unsigned char mac[RTM_AUTH_MAC_LEN])
{
    crypto_auth_hmacsha256(mac, msg, len, secret->key);
}

int rtm_auth_mac_ok(const rtm_secret_t *secret, const void *msg, size_t len,
                    const unsigned char mac[RTM_AUTH_MAC_LEN])
{
    unsigned char want[RTM_AUTH_MAC_LEN];
    int ok;

    if (secret == NULL || !secret->set || mac == NULL)
        return 0;
    crypto_auth_hmacsha256(want, msg, len, secret->key);
    ok = crypto_verify_32(want, mac) == 0;
    sodium_memzero(want, sizeof(want));
    return ok;
}

int rtm_auth_mac_equal(const unsigned char a[RTM_AUTH_MAC_LEN],
                       const unsigned char b[RTM_AUTH_MAC_LEN])
{
    return a != NULL && b != NULL && crypto_verify_32(a, b) == 0;
}
