/*
 * Wire formats of the runtime's protocol messages, documented once, here.
 * Every message travels as one transport active message: an id
 * (rtm_am_id_t), one of the headers below, then for EAGER and DATA the
 * payload bytes. All fields are in the sender's byte order: every transport
 * today links ranks of one architecture (little-endian x86_64/aarch64).
 *
 * Protocols (sizes are the payload, "limit" the peer transport's caps):
 *   eager       size <= eager_limit and the sender holds a credit:
 *               EAGER(match hdr + payload). Done at the sender at once.
 *               (runtime/eager.c)
 *   rendezvous  otherwise, and always for synchronous sends:
 *               sender: RTS(match hdr, size, sender request, address, rkey)
 *               receiver, once matched, either
 *                 get:  reads the sender's buffer (transport get), then FIN
 *                 copy: CTS(bytes wanted) -> sender streams DATA fragments
 *               The receiver chooses get when its transport can get, the RTS
 *               carries an rkey and size >= get_threshold; a failed get falls
 *               back to CTS, so the copy path is always available.
 *               (runtime/rndv.c)
 *   credits     each EAGER consumes one of the sender's credits to that
 *               peer; the receiver returns them once the message's buffer is
 *               released (on match), piggy-backed in match headers it sends
 *               to that peer or in an explicit CREDIT message.
 *               (runtime/credit.c)
 *   detached    a standard send of eager size that finds no credit: the
 *               sender copies it and completes the caller's send at once;
 *               the copy goes by rendezvous (an RTS needs no credit, so the
 *               receiver's matching sees it now). No message of its own:
 *               up to RTM_RTS_INLINE_MAX bytes the copy travels inside the
 *               RTS (RTM_RTS_F_INLINE) and the receiver answers FIN once it
 *               matched; larger ones go as any RTS. At most
 *               RTM_DETACHED_SENDS per peer are out. (runtime/proto.c)
 *   cancel      a send whose RTS is out and that waits for CTS or FIN:
 *               CANCEL(sender request) -> the receiver takes the RTS out of
 *               its unexpected queue if it is still there, and answers
 *               CANCEL_ACK(sender request, 1); else (matched: by a receive
 *               or a matched probe) CANCEL_ACK(.., 0), and the CTS or FIN
 *               comes, or came, as usual. A send not yet on the wire is
 *               cancelled where it waits; an eager one is complete at once
 *               and stays sent. (runtime/rndv.c)
 *
 * Request ids (sreq, rreq) are the id of a request in its owner's request
 * table (runtime/request.h: index and generation), never a pointer: the side
 * that gets one back checks it against its table before using it.
 */
#ifndef RTM_RUNTIME_WIRE_H
#define RTM_RUNTIME_WIRE_H

#include "transport/transport.h"

#include <stdint.h>

typedef enum rtm_am_id {
    RTM_AM_EAGER  = 1,
    RTM_AM_RTS    = 2,
    RTM_AM_CTS    = 3,
    RTM_AM_DATA   = 4,
    RTM_AM_FIN    = 5,
    RTM_AM_CREDIT = 6,
    RTM_AM_CANCEL = 7,
    RTM_AM_CANCEL_ACK = 8,
    RTM_AM_COUNT           /* one past the last id: size of the handler table */
} rtm_am_id_t;

/* Matching header, first in EAGER and RTS: 16 bytes. */
typedef struct rtm_match_hdr {
    uint32_t ctx;       /* matching context of the communicator */
    int32_t  src;       /* sender's rank in the communicator */
    int32_t  tag;
    uint16_t seq;       /* per ordered pair of world ranks; checks FIFO delivery */
    uint16_t credits;   /* eager credits handed back to the receiver */
} rtm_match_hdr_t;
_Static_assert(sizeof(rtm_match_hdr_t) == 16, "match header is 16 bytes");

/* RTS: 48 bytes + rkey_len bytes of packed remote key. */
typedef struct rtm_rts_hdr {
    rtm_match_hdr_t m;
    uint64_t        size;       /* message bytes */
    uint64_t        sreq;       /* sender's request id, echoed in CTS/FIN */
    uint64_t        addr;       /* sender's buffer */
    uint32_t        rkey_len;   /* 0: the sender exposes nothing, use CTS */
    uint32_t        flags;      /* RTM_RTS_F_* */
    uint8_t         rkey[RTM_TL_RKEY_MAX];
} rtm_rts_hdr_t;

#define RTM_RTS_HDR_BASE (sizeof(rtm_rts_hdr_t) - RTM_TL_RKEY_MAX)
/* The message's `size` bytes follow the header (rkey_len 0): a detached
 * send of at most RTM_RTS_INLINE_MAX bytes. The receiver keeps them with
 * the RTS, delivers them on match and answers FIN; no CTS, DATA or get. */
#define RTM_RTS_F_INLINE   1u
#define RTM_RTS_INLINE_MAX 256u
_Static_assert(RTM_RTS_HDR_BASE == 48, "RTS header is 48 bytes before the rkey");

/* CTS: 24 bytes. The receiver wants `len` bytes (less than the message
 * when truncated) streamed as DATA to rreq. */
typedef struct rtm_cts_hdr {
    uint64_t sreq;
    uint64_t rreq;
    uint64_t len;
} rtm_cts_hdr_t;
_Static_assert(sizeof(rtm_cts_hdr_t) == 24, "CTS header is 24 bytes");

/* DATA: 16 bytes + payload, placed at `offset` in the receive buffer. */
typedef struct rtm_data_hdr {
    uint64_t rreq;
    uint64_t offset;
} rtm_data_hdr_t;
_Static_assert(sizeof(rtm_data_hdr_t) == 16, "DATA header is 16 bytes");

/* FIN: 8 bytes. The receiver has read the sender's buffer. */
typedef struct rtm_fin_hdr {
    uint64_t sreq;
} rtm_fin_hdr_t;
_Static_assert(sizeof(rtm_fin_hdr_t) == 8, "FIN header is 8 bytes");

/* CANCEL: 16 bytes. The sender withdraws the message of its request sreq,
 * whose RTS it sent, if no receive has matched it yet. CANCEL_ACK: 16
 * bytes, the receiver's answer: cancelled 1 (the RTS is gone, nothing
 * else will come for sreq) or 0 (matched: CTS or FIN as usual). */
typedef struct rtm_cancel_hdr {
    uint64_t sreq;
    uint32_t ctx;        /* the RTS's matching context: where to look */
    uint32_t reserved;
} rtm_cancel_hdr_t;
_Static_assert(sizeof(rtm_cancel_hdr_t) == 16, "CANCEL header is 16 bytes");

typedef struct rtm_cancel_ack_hdr {
    uint64_t sreq;
    uint32_t cancelled;
    uint32_t reserved;
} rtm_cancel_ack_hdr_t;
_Static_assert(sizeof(rtm_cancel_ack_hdr_t) == 16, "CANCEL_ACK header is 16 bytes");

/* CREDIT: 4 bytes. */
typedef struct rtm_credit_hdr {
    uint32_t credits;
} rtm_credit_hdr_t;
_Static_assert(sizeof(rtm_credit_hdr_t) == 4, "CREDIT header is 4 bytes");

#endif
