/*
 * tcp transport, private declarations: wire formats, the interface and the
 * per-peer connection (which is also the endpoint the runtime holds).
 *
 * One TCP connection carries both directions between two ranks. It is
 * opened lazily, by the first am_send to a peer, to an address taken from
 * the peer's modex blob (tcp_addr_hdr_t).
 *
 * Connection rule (simultaneous connects). Between ranks lo < hi:
 *   - a connection opened by lo always wins. lo writes its HELLO and may
 *     send data right behind it; hi accepts it (ACK) whatever it was doing,
 *     and if hi had an attempt of its own, closes that one.
 *   - a connection opened by hi is accepted by lo only if lo has no
 *     connection or attempt of its own to hi; otherwise lo answers NACK and
 *     closes it, and hi waits for lo's connection (already on its way).
 *   - hi writes no data on a connection it opened until lo's ACK arrives.
 * So data is only ever written on the one connection that survives; what
 * was queued meanwhile stays in the sender's buffer and leaves, in order,
 * once that connection is confirmed. Nothing is lost or reordered.
 *
 * Authentication (docs/security.md, "Rank-to-rank tcp"). Before either
 * side reads a frame, both prove knowledge of the job secret by a keyed
 * challenge-response: the connecting side's HELLO carries its fresh
 * nonce; the accepting side answers CHALLENGE with its own nonce and
 * HMAC-SHA-256(secret, "acceptor", both ranks, job size, both nonces);
 * the connecting side checks it and sends PROOF, the same MAC with the
 * "connector" label; only then does the accepting side apply the rule
 * above (ACK or NACK). A replayed HELLO meets a new nonce, a replayed
 * PROOF an old one; a stranger is refused (logged once, with its address)
 * before it is tied to any rank, and nothing it sent is ever parsed as a
 * frame. The parse and check of one handshake message is tcp_hs_check(),
 * a pure function (tests/fuzz).
 *
 * Orderly close: close() flushes what is queued, sends BYE, shuts down the
 * sending side and reads (discarding) until the peer does the same. An EOF
 * or reset on a connection whose peer sent no BYE is that peer's failure.
 */
#ifndef RTM_TRANSPORT_TCP_H
#define RTM_TRANSPORT_TCP_H

#include "transport/transport.h"
#include "common/secret.h"

#include <netinet/in.h>
#include <sys/epoll.h>
#include <stddef.h>
#include <stdint.h>

#define TCP_AM_MAX        (64u * 1024u)   /* largest header + payload of one message */
#define TCP_MAX_ADDRS     16              /* addresses published per rank */
#define TCP_HOST_MAX      64
#define TCP_ADDR_MAGIC    0x70637472u     /* "rtcp" */
#define TCP_ADDR_VERSION  1u
#define TCP_HS_MAGIC      0x73687472u     /* "rths" */
#define TCP_HS_VERSION    2u              /* 2: challenge-response */
#define TCP_FRAME_CHECK   0x5452u         /* "RT": catches a desynchronized stream */
#define TCP_ACCEPT_SLOTS  64              /* accepted sockets still in their handshake */
#define TCP_HS_DEADLINE_MS 60000          /* longest handshake of an accepted socket */
#define TCP_CLOSE_WAIT_MS 10000           /* close(): longest wait for peers' BYE/EOF */
#define TCP_WAIT_PEER_MS  30000           /* hi refused by lo: longest wait for lo's connection */

/*
 * Address blob published through PMIx ("rtm.tl.tcp"): 88 bytes of header,
 * then naddrs entries of 8 bytes (at most 88 + 16 * 8 = 216 bytes).
 *   0  magic      u32  TCP_ADDR_MAGIC
 *   4  version    u16  TCP_ADDR_VERSION
 *   6  naddrs     u16  1..TCP_MAX_ADDRS
 *   8  port       u16  listening port, network byte order (same for all addresses)
 *  10  reserved   u16
 *  12  world_rank i32
 *  16  job_tag    u32  hash of the PMIx namespace
 *  20  reserved   u32
 *  24  hostname   64 chars, NUL-terminated (for error messages)
 */
typedef struct tcp_addr_hdr {
    uint32_t magic;
    uint16_t version;
    uint16_t naddrs;
    uint16_t port;
    uint16_t reserved;
    int32_t  world_rank;
    uint32_t job_tag;
    uint32_t reserved2;
    char     hostname[TCP_HOST_MAX];
} tcp_addr_hdr_t;

/* One published address: 8 bytes. */
typedef struct tcp_addr_entry {
    uint32_t ipv4;          /* network byte order */
    uint8_t  prefix_len;    /* of its subnet, to prefer an address on a shared subnet */
    uint8_t  reserved[3];
} tcp_addr_entry_t;

_Static_assert(sizeof(tcp_addr_hdr_t) == 88, "address header is 88 bytes");
_Static_assert(sizeof(tcp_addr_entry_t) == 8, "address entry is 8 bytes");

/*
 * Handshake messages, the first bytes each way on a connection: 152 bytes
 * each (a multiple of 8, so the frames behind them stay 8-byte aligned in
 * the receive buffer). Connecting side C, accepting side A:
 *   C -> A  HELLO      nonce = C's challenge
 *   A -> C  CHALLENGE  nonce = A's challenge, mac = tcp_hs_mac(ACCEPTOR)
 *   C -> A  PROOF      mac = tcp_hs_mac(CONNECTOR)
 *   A -> C  ACK or NACK (the connection rule above)
 *   0  magic      u32  TCP_HS_MAGIC
 *   4  type       u8   TCP_HS_HELLO ... TCP_HS_NACK
 *   5  version    u8   TCP_HS_VERSION
 *   6  reserved   u16
 *   8  world_rank i32  of the sender
 *  12  world_size i32
 *  16  peer_rank  i32  the rank the sender means to talk to
 *  20  reserved   u32
 *  24  nonce      32 B (HELLO, CHALLENGE; zero otherwise)
 *  56  mac        32 B (CHALLENGE, PROOF; zero otherwise)
 *  88  hostname   64 chars, for error messages (not trusted)
 * Integers are in the sender's byte order; the MAC covers them in a fixed
 * little-endian form (tcp_hs.c).
 */
enum { TCP_HS_HELLO = 1, TCP_HS_CHALLENGE = 2, TCP_HS_PROOF = 3, TCP_HS_ACK = 4,
       TCP_HS_NACK = 5 };

typedef struct tcp_hs {
    uint32_t magic;
    uint8_t  type;
    uint8_t  version;
    uint16_t reserved;
    int32_t  world_rank;
    int32_t  world_size;
    int32_t  peer_rank;
    uint32_t reserved2;
    unsigned char nonce[RTM_AUTH_NONCE_LEN];
    unsigned char mac[RTM_AUTH_MAC_LEN];
    char     hostname[TCP_HOST_MAX];
} tcp_hs_t;

_Static_assert(sizeof(tcp_hs_t) == 152, "a handshake message is 152 bytes");
_Static_assert(sizeof(tcp_hs_t) % 8 == 0, "frames behind a handshake stay aligned");

/* Which side's proof a MAC is (bound into it, so one is never the other). */
enum { TCP_HS_ROLE_ACCEPTOR = 1, TCP_HS_ROLE_CONNECTOR = 2 };

/* What tcp_hs_check found. */
typedef enum tcp_hs_verdict {
    TCP_HS_OK = 0,
    TCP_HS_SHORT,        /* fewer bytes than a handshake message */
    TCP_HS_NOT_OURS,     /* bad magic or version: not this software's handshake */
    TCP_HS_WRONG_TYPE,   /* not the message expected at this step */
    TCP_HS_WRONG_JOB,    /* job size differs, or meant for another rank */
    TCP_HS_BAD_RANK,     /* claimed rank out of range, ours, or not the expected one */
    TCP_HS_BAD_MAC,      /* does not prove the job secret */
} tcp_hs_verdict_t;

/* What the receiver of a handshake message knows. */
typedef struct tcp_hs_expect {
    const rtm_secret_t  *secret;
    int                  world_rank;   /* the receiver */
    int                  world_size;
    unsigned             type;         /* the message expected at this step */
    int                  peer;         /* rank it must come from; -1: any (HELLO) */
    /* CHALLENGE: the receiver's HELLO nonce. PROOF: the sender's HELLO nonce. */
    const unsigned char *nonce_c;
    /* PROOF: the receiver's CHALLENGE nonce (CHALLENGE carries its own). */
    const unsigned char *nonce_a;
} tcp_hs_expect_t;

/*
 * Frame: 8 bytes of header, then `len` bytes (the runtime's header
 * immediately followed by its payload), then 0-7 bytes of padding up to a
 * multiple of 8, so every frame starts 8-byte aligned and the receiver
 * delivers messages in place, aligned, straight from its receive buffer.
 *   0  len    u32  header + payload bytes (<= TCP_AM_MAX), padding excluded
 *   4  am_id  u8   < RTM_TL_AM_ID_MAX
 *   5  type   u8   TCP_FRAME_AM, or TCP_FRAME_BYE (len 0: orderly close follows)
 *   6  check  u16  TCP_FRAME_CHECK
 * Fields are in the sender's byte order, like the runtime's headers.
 */
enum { TCP_FRAME_AM = 0, TCP_FRAME_BYE = 1 };

typedef struct tcp_frame_hdr {
    uint32_t len;
    uint8_t  am_id;
    uint8_t  type;
    uint16_t check;
} tcp_frame_hdr_t;

_Static_assert(sizeof(tcp_frame_hdr_t) == 8, "frame header is 8 bytes");

#define TCP_PAD8(n)    (((n) + 7u) & ~(size_t)7u)
#define TCP_FRAME_MAX  (sizeof(tcp_frame_hdr_t) + TCP_PAD8(TCP_AM_MAX))

/* A local address this rank listens on. */
typedef struct tcp_ifaddr {
    char           name[32];
    struct in_addr addr;
    uint8_t        prefix_len;
    uint8_t        loopback;
} tcp_ifaddr_t;

typedef enum tcp_conn_state {
    TCP_CONN_IDLE = 0,      /* no connection, no attempt */
    TCP_CONN_CONNECTING,    /* our non-blocking connect() in progress */
    TCP_CONN_WAIT_CHALLENGE,/* HELLO sent; no data before the peer proved the secret */
    TCP_CONN_WAIT_ACK,      /* hi: connected, HELLO sent, no data before ACK */
    TCP_CONN_WAIT_PEER,     /* hi: refused (NACK), lo's connection on its way */
    TCP_CONN_UP,            /* data flows both ways */
    TCP_CONN_CLOSED,        /* orderly close (BYE seen and EOF) */
    TCP_CONN_FAILED,        /* peer lost; err holds why */
} tcp_conn_state_t;

typedef struct tcp_iface tcp_iface_t;

/* A peer and its one connection; the runtime's endpoint is this object.
 * Made on first contact (ep_create, or the peer's HELLO), freed by close. */
typedef struct tcp_ep {
    rtm_tl_ep_t       super;         /* iface, peer (world rank) */
    /* hot fields first */
    int               fd;            /* connection (or our attempt), -1 if none */
    tcp_conn_state_t  state;
    unsigned char    *tx;            /* send ring: framed bytes not yet written */
    size_t            tx_mask;       /* ring size - 1 (a power of two) */
    uint64_t          tx_head;       /* bytes written to the socket */
    uint64_t          tx_tail;       /* bytes queued */
    int               tx_polling;    /* EPOLLOUT registered */
    unsigned char    *rx;            /* received bytes, frames parsed in place */
    size_t            rx_size;
    size_t            rx_head;       /* first byte not yet parsed */
    size_t            rx_tail;       /* end of received bytes */
    int               rx_need_hs;    /* handshake message due before frames: 0, CHALLENGE
                                      * or ACK (ACK or NACK) */
    unsigned char     hs_nonce[RTM_AUTH_NONCE_LEN];  /* our HELLO's challenge */

    /* connection setup */
    int               have_addr;     /* blob known (ep_create) */
    int               naddrs;
    struct sockaddr_in addrs[TCP_MAX_ADDRS];  /* in the order to try */
    int               next_addr;     /* next to try */
    uint64_t          wait_since_ms; /* WAIT_PEER: when lo refused us */
    int               bye_rcvd;
    int               bye_sent;      /* close(): 1 BYE queued, 2 and shut down */
    int               eof;
    char              hostname[TCP_HOST_MAX];
    char              err[256];      /* FAILED: what happened, for am_send */
} tcp_ep_t;

/* An accepted socket still in its handshake: HELLO due (stage 0), then
 * our CHALLENGE sent and PROOF due (stage 1). */
typedef struct tcp_accept_slot {
    int       fd;                    /* -1: free */
    int       stage;
    size_t    got;                   /* bytes of the message due, in `in` */
    uint64_t  since_ms;              /* accepted at */
    struct sockaddr_in from;         /* for the refusal message */
    tcp_hs_t  hello;                 /* stage 1: the HELLO */
    tcp_hs_t  in;
    unsigned char nonce_a[RTM_AUTH_NONCE_LEN];  /* our challenge */
} tcp_accept_slot_t;

struct tcp_iface {
    rtm_tl_iface_t     super;
    /* hot fields first */
    int                epfd;
    int                in_progress;   /* guards against re-entry from am_cb */
    int                closing;       /* close(): incoming messages are dropped */
    rtm_tl_am_cb_t     am_cb;
    void              *am_arg;
    void             (*peer_failed)(void *arg, int peer, rtm_status_t status, const char *msg);
    int                num_wait_peer; /* peers in WAIT_PEER (deadline checked) */

    int                world_rank;
    int                world_size;
    int                single_host;   /* every rank on this host: loopback allowed */
    uint32_t           job_tag;       /* hash of the namespace: catches another job's blob */
    rtm_secret_t       secret;        /* the job's (or, without one, the namespace's) */
    char               hostname[TCP_HOST_MAX];
    size_t             eager_limit;

    int                listen_fd;
    uint16_t           port;          /* network byte order */
    tcp_ifaddr_t       ifaddrs[TCP_MAX_ADDRS];
    int                num_ifaddrs;

    tcp_ep_t         **peers;         /* by world rank, NULL before first contact */
    tcp_accept_slot_t  accepts[TCP_ACCEPT_SLOTS];
    int                num_accepts;
    uint64_t           accepts_check_ms;  /* next look for handshakes past their deadline */
    /* simultaneous connects resolved (for tests and the debug log) */
    unsigned long      stat_refused;    /* lo: a hi's connection refused (NACK) */
    unsigned long      stat_replaced;   /* hi: own attempt dropped for lo's */
};

_Static_assert(offsetof(tcp_ep_t, super) == 0, "the base comes first");
_Static_assert(offsetof(struct tcp_iface, super) == 0, "the base comes first");

static inline tcp_iface_t *tcp_iface_of(rtm_tl_iface_t *tl_iface)
{
    return (tcp_iface_t *)(void *)tl_iface;
}

static inline tcp_ep_t *tcp_ep_of(rtm_tl_ep_t *tl_ep)
{
    return (tcp_ep_t *)(void *)tl_ep;
}

/* The interface an endpoint belongs to. */
static inline tcp_iface_t *tcp_ep_iface(const tcp_ep_t *ep)
{
    return tcp_iface_of(ep->super.iface);
}

/* epoll_event.data.u64: kind in the top byte, index below. */
enum { TCP_EV_LISTEN = 1, TCP_EV_ACCEPT = 2, TCP_EV_PEER = 3 };
#define TCP_EV(kind, index) (((uint64_t)(kind) << 56) | (uint64_t)(uint32_t)(index))

/* tcp_ifsel.c: which local IPv4 addresses to use (RTM_TCP_IF) */
rtm_status_t tcp_ifsel(const char *spec, int single_host, tcp_ifaddr_t *out, int max,
                       int *num_p);
/* Does interface (name, addr) match one RTM_TCP_IF entry? -1: entry malformed. */
int          tcp_if_entry_match(const char *entry, size_t entry_len, const char *name,
                                struct in_addr addr);

/* tcp_hs.c: handshake messages, pure (no I/O, no state, no log) */
void             tcp_hs_fill(tcp_hs_t *hs, unsigned type, int world_rank, int world_size,
                             int peer_rank, const char *hostname);
/* The MAC of role over (connector rank, acceptor rank, job size, nonces). */
void             tcp_hs_mac(const rtm_secret_t *secret, unsigned role, int rank_c, int rank_a,
                            int world_size, const unsigned char *nonce_c,
                            const unsigned char *nonce_a, unsigned char *mac);
/* Parse and check len bytes as the message `want` describes; the message
 * is copied to *hs_p (may be NULL) only when the verdict is TCP_HS_OK. */
tcp_hs_verdict_t tcp_hs_check(const tcp_hs_expect_t *want, const void *buf, size_t len,
                              tcp_hs_t *hs_p);
const char      *tcp_hs_verdict_str(tcp_hs_verdict_t verdict);

/* tcp_conn.c: connection setup, the rule above, failure, orderly close */
tcp_ep_t *tcp_peer_get(tcp_iface_t *iface, int peer);
rtm_status_t tcp_conn_start(tcp_ep_t *ep);
void         tcp_conn_connected(tcp_ep_t *ep);
/* The handshake message rx_need_hs names, whole at buf (CHALLENGE, or ACK/NACK). */
void         tcp_conn_hs_reply(tcp_ep_t *ep, const void *buf);
void         tcp_listen_ready(tcp_iface_t *iface);
void         tcp_accept_ready(tcp_iface_t *iface, int slot);
void         tcp_conn_fail(tcp_ep_t *ep, const char *what, int err);
void         tcp_conn_eof(tcp_ep_t *ep);
void         tcp_check_wait_peer(tcp_iface_t *iface);
void         tcp_check_accepts(tcp_iface_t *iface, uint64_t now);
void         tcp_close_all(tcp_iface_t *iface);
void         tcp_set_pollout(tcp_ep_t *ep, int on);
uint64_t     tcp_now_ms(void);

/* tcp_am.c: framing, send ring, receive reassembly, progress */
int          tcp_tx_flush(tcp_ep_t *ep);
int          tcp_progress(rtm_tl_iface_t *tl_iface);
int          tcp_dispatch(tcp_iface_t *iface, const struct epoll_event *ev);
rtm_status_t tcp_am_send(rtm_tl_ep_t *tl_ep, unsigned am_id, const void *hdr, size_t hdr_len,
                         const void *payload, size_t len);
rtm_status_t tcp_send_frame_raw(tcp_ep_t *ep, unsigned type);

/* tcp_state.c: ops.ep_state */
size_t       tcp_ep_state(rtm_tl_ep_t *tl_ep, char *buf, size_t len);

#endif
