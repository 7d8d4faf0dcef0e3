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

#include <stddef.h>
#include <stdint.h>

/* Largest payload accepted: a bigger length is a protocol error. */
#define RTD_MAX_PAYLOAD (256u * 1024 * 1024)
/* The header on the wire. */
#define RTD_HDR_SIZE 24
/* Random job token, as hex (the rtd reads it on stdin, not argv). */
#define RTD_TOKEN_LEN 32
/* rtrun's stdin bytes sent towards a remote rank 0 and not yet acked: a
 * rank that does not read its stdin makes rtrun stop reading, never makes
 * a daemon buffer without bound. */
#define RTD_STDIN_WINDOW (64u * 1024)

typedef enum rtd_msg_type {
    RTD_MSG_HELLO = 1,   /* child -> parent: a = host index; payload: token */
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

#endif
