/*
 * The job secret and the keyed challenge-response built on it
 * (docs/security.md, "The job secret").
 *
 * rtrun makes one random 256-bit secret per job. It reaches every rtd on
 * the stdin of its launch agent (hex, one line) and every rank as the
 * job-level PMIx key RTM_SECRET_PMIX_KEY; it is never in argv, in an
 * environment or in a file. Everything that listens for the job (the
 * ranks' tcp ports, the daemon tree) admits a peer only once the peer has
 * answered a fresh challenge with HMAC-SHA-256 under the secret, and
 * proves its own knowledge the same way, so a recorded handshake is of no
 * use to anyone. The crypto is libsodium's (a Debian package); this module
 * hides its header from the rest of the tree.
 */
#ifndef RTM_COMMON_SECRET_H
#define RTM_COMMON_SECRET_H

#include "rtm_status.h"

#include <stddef.h>

#define RTM_SECRET_LEN      32              /* bytes of key (256 bits) */
#define RTM_SECRET_HEX_LEN  (2 * RTM_SECRET_LEN)
#define RTM_AUTH_NONCE_LEN  32              /* a fresh challenge */
#define RTM_AUTH_MAC_LEN    32              /* HMAC-SHA-256 */
/* The job-level PMIx key (a byte object of RTM_SECRET_LEN bytes). */
#define RTM_SECRET_PMIX_KEY "rtm.job.secret"

typedef struct rtm_secret {
    unsigned char key[RTM_SECRET_LEN];
    int           set;      /* 0: no secret (key unused) */
} rtm_secret_t;

/* A fresh random secret. */
rtm_status_t rtm_secret_make(rtm_secret_t *secret_p);
/* The secret from raw bytes (exactly RTM_SECRET_LEN) or from
 * RTM_SECRET_HEX_LEN hex digits. */
rtm_status_t rtm_secret_from_bytes(const void *bytes, size_t len, rtm_secret_t *secret_p);
rtm_status_t rtm_secret_from_hex(const char *hex, size_t len, rtm_secret_t *secret_p);
/* RTM_SECRET_HEX_LEN hex digits and a NUL into buf (len > RTM_SECRET_HEX_LEN). */
rtm_status_t rtm_secret_to_hex(const rtm_secret_t *secret, char *buf, size_t len);
/* Overwrite memory that held a secret (not optimized away). */
void         rtm_secret_wipe(void *p, size_t len);

/* A fresh random challenge; -1 when there is no random source (the
 * caller refuses the connection: a guessable challenge admits replays). */
int  rtm_auth_nonce(unsigned char nonce[RTM_AUTH_NONCE_LEN]);
/* HMAC-SHA-256 of msg under the secret. */
void rtm_auth_mac(const rtm_secret_t *secret, const void *msg, size_t len,
                  unsigned char mac[RTM_AUTH_MAC_LEN]);
/* Whether mac is msg's MAC under the secret; constant time in the MAC. */
int  rtm_auth_mac_ok(const rtm_secret_t *secret, const void *msg, size_t len,
                     const unsigned char mac[RTM_AUTH_MAC_LEN]);

/* Whether two MACs are equal; constant time. */
int  rtm_auth_mac_equal(const unsigned char a[RTM_AUTH_MAC_LEN],
                        const unsigned char b[RTM_AUTH_MAC_LEN]);

#endif
