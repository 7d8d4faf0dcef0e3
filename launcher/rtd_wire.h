/*
 * The daemon tree's wire format: message types and the header every
 * message starts with.
 *
 * A message is a 24-byte header -- six 32-bit fields in network order:
 *     type, payload length, destination host (-1: not routed), a, b, c
 * -- followed by `length` payload bytes. The meaning of a, b, c and of
 * the payload per type is listed with rtd_msg_type_t.
 */
#ifndef RTM_LAUNCHER_RTD_WIRE_H
#define RTM_LAUNCHER_RTD_WIRE_H

#include "common/secret.h"

#include <stddef.h>
#include <stdint.h>

/* Largest payload accepted: a bigger length is a protocol error. */
#define RTD_MAX_PAYLOAD (256u * 1024 * 1024)
/* The header on the wire. */
#define RTD_HDR_SIZE 24
/* The job secret reaches an rtd as RTM_SECRET_HEX_LEN hex digits and a
 * newline on its stdin (never in argv). A child proves it to its parent,
 * and the parent to the child, before any other message:
 *   child -> parent  HELLO      a = host index; payload: nonce_c (32 B)
 *   parent -> child  CHALLENGE  a = host index; payload: nonce_p (32 B), then
 *                               rtd_hs_mac(PARENT) (32 B)
 *   child -> parent  PROOF      a = host index; payload: rtd_hs_mac(CHILD) (32 B)
 * and only then JOB. The MAC binds the role, the host index and both
 * nonces, so neither a recorded handshake nor a reflected one is of use. */
#define RTD_HELLO_LEN     RTM_AUTH_NONCE_LEN
#define RTD_CHALLENGE_LEN (RTM_AUTH_NONCE_LEN + RTM_AUTH_MAC_LEN)
#define RTD_PROOF_LEN     RTM_AUTH_MAC_LEN
#define RTD_HS_MSG_MAX    (RTD_HDR_SIZE + RTD_CHALLENGE_LEN)
/* rtrun's stdin bytes sent towards a remote rank 0 and not yet acked: a
 * rank that does not read its stdin makes rtrun stop reading, never makes
 * a daemon buffer without bound. */
#define RTD_STDIN_WINDOW (64u * 1024)

typedef enum rtd_msg_type {
    RTD_MSG_HELLO = 1,   /* child -> parent: a = host index; payload: nonce (above) */
    RTD_MSG_JOB,         /* parent -> child: payload: job description */
    RTD_MSG_STARTED,     /* up: a = rank, b = pid */
    RTD_MSG_IOF,         /* up: a = rank, b = 1 stdout / 2 stderr, c = 1 at EOF; payload: bytes */
    RTD_MSG_EXIT,        /* up: a = rank, b = wait status, c = connected | finalized << 1 */
    RTD_MSG_PMIXEV,      /* up: a = rank, b = event type, c = status; payload: message */
    RTD_MSG_ERROR,       /* up: a = host lost (-1: none), b = exit code; payload: text */
    RTD_MSG_FENCE_UP,    /* child -> parent: a = fence number; payload: data of the subtree */
    RTD_MSG_FENCE_DOWN,  /* down to all: a = fence number, b = status; payload: all data */
    RTD_MSG_DMX_REQ,     /* to dst host: a = asking host, b = request id, c = rank */
    RTD_MSG_DMX_RESP,    /* to dst host: a = request id, b = PMIx status; payload: data */
    RTD_MSG_KILL,        /* down to all: a = signal */
    RTD_MSG_STDIN,       /* to dst host (rank 0's): c = 1 at EOF; payload: rtrun's stdin */
    RTD_MSG_STDIN_ACK,   /* up: a = bytes of STDIN written to rank 0 (or dropped) */
    RTD_MSG_STATE_ASK,   /* down to all: a = report number (launcher/report.h) */
    RTD_MSG_STATE,       /* up: a = rank, b = report number; payload: the rank's answer */
    RTD_MSG_CHALLENGE,   /* parent -> child, after HELLO (above) */
    RTD_MSG_PROOF,       /* child -> parent, after CHALLENGE (above) */
} rtd_msg_type_t;

typedef struct rtd_hdr {
    uint32_t type;
    uint32_t len;
    int32_t  dst;   /* host index for routed messages, -1 otherwise */
    int32_t  a, b, c;
} rtd_hdr_t;

/* The header in its wire form (RTD_HDR_SIZE bytes at out). */
void rtd_hdr_pack(const rtd_hdr_t *h, void *out);
/* The header at in (RTD_HDR_SIZE bytes). Returns -1, leaving *h_p
 * unwritten, when the length exceeds RTD_MAX_PAYLOAD (a protocol error:
 * the stream cannot be resynchronised); 0 otherwise. */
int rtd_hdr_unpack(const void *in, rtd_hdr_t *h_p);

/* Which side a handshake MAC proves. */
enum { RTD_HS_ROLE_PARENT = 1, RTD_HS_ROLE_CHILD = 2 };

typedef enum rtd_hs_verdict {
    RTD_HS_OK = 0,
    RTD_HS_SHORT,        /* fewer bytes than the message needs */
    RTD_HS_WRONG_TYPE,   /* not the message due at this step */
    RTD_HS_WRONG_LEN,    /* a payload of the wrong size (4 GiB lengths end here) */
    RTD_HS_BAD_HOST,     /* host index out of range or not the expected one */
    RTD_HS_BAD_MAC,      /* does not prove the job secret */
} rtd_hs_verdict_t;

/* What the receiver of a handshake message knows. */
typedef struct rtd_hs_expect {
    const rtm_secret_t  *secret;
    uint32_t             type;      /* HELLO, CHALLENGE or PROOF */
    int                  host;      /* the host index it must carry; -1: any in [0, nhosts) */
    int                  nhosts;
    const unsigned char *nonce_c;   /* CHALLENGE, PROOF: the child's */
    const unsigned char *nonce_p;   /* PROOF: the parent's (CHALLENGE carries its own) */
} rtd_hs_expect_t;

/* MAC of role over (host index, nonce_c, nonce_p). */
void rtd_hs_mac(const rtm_secret_t *secret, unsigned role, int host,
                const unsigned char *nonce_c, const unsigned char *nonce_p, unsigned char *mac);
/* Parse and check one handshake message (header and payload, len bytes at
 * buf). Pure: no I/O, no log (tests/fuzz). On RTD_HS_OK the header goes
 * to *h_p and, for HELLO and CHALLENGE, the sender's nonce to nonce_p
 * (RTM_AUTH_NONCE_LEN bytes; either may be NULL). */
rtd_hs_verdict_t rtd_hs_check(const rtd_hs_expect_t *want, const void *buf, size_t len,
                              rtd_hdr_t *h_p, unsigned char *nonce_p);
const char      *rtd_hs_verdict_str(rtd_hs_verdict_t verdict);

#endif
