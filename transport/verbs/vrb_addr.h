/*
 * verbs transport: what a peer sends before any connection exists, the
 * address blob it publishes through PMIx and the on-demand connection
 * datagram it sends over UD, and the checks that turn either into a
 * peer's address (vrb_addr.c). Pure: no libibverbs here, so the checks
 * run (and are fuzzed: tests/fuzz/fuzz_vrb_addr.c) without a device.
 */
#ifndef RTM_TRANSPORT_VERBS_VRB_ADDR_H
#define RTM_TRANSPORT_VERBS_VRB_ADDR_H

#include "transport/transport.h"

#include <stddef.h>
#include <stdint.h>

/*
 * Address blob published through PMIx (key rtm.tl.verbs), host byte order
 * (see runtime/proto.h: the job is one architecture):
 *
 *   offset size
 *     0     4   magic VRB_ADDR_MAGIC (also versions the layout)
 *     4     2   lid            IB: port LID; RoCE: 0
 *     6     1   port           port number used
 *     7     1   link           VRB_LINK_IB or VRB_LINK_ETH
 *     8    16   gid            RoCE: the chosen GID; IB: the port GID (unused
 *                              unless the peer needs a GRH)
 *    24     1   mtu            enum ibv_mtu of the port (active MTU)
 *    25     1   flags          VRB_ADDR_F_GRH: peers must address us with a GRH;
 *                              VRB_ADDR_F_ONDEMAND: we connect on demand
 *    26     2   credits        full mesh: receive buffers each peer may fill
 *    28     4   nqpn           number of entries in qpn[] (full mesh: world
 *                              size; on demand: 0)
 *    32    32   host           hostname, NUL-padded (truncated), for messages
 *    64     4   ud_qpn         on demand: our UD QP taking connection requests
 *    68  4*n    qpn[n]         full mesh: qpn[r] is our RC QP dedicated to
 *                              world rank r (0 for ourselves)
 *
 * With VRB_ADDR_F_XRC (RTM_VERBS_XRC=1) nqpn is 0 and vrb_addr_xrc_t
 * (12 bytes) follows at offset 68: 80 bytes whatever the job size.
 *
 * RTM_TL_ADDR_MAX (512) therefore bounds full mesh at VRB_FULLMESH_MAX ranks;
 * the on-demand blob is 68 bytes whatever the job size.
 */
#define VRB_ADDR_MAGIC  0x32425256u    /* "VRB2" */
#define VRB_LINK_IB     0
#define VRB_LINK_ETH    1
#define VRB_ADDR_F_GRH  0x01
#define VRB_ADDR_F_ONDEMAND 0x02
#define VRB_ADDR_F_XRC  0x04            /* XRC: vrb_addr_xrc_t follows */
#define VRB_HOST_LEN    32

typedef struct vrb_addr {
    uint32_t magic;
    uint16_t lid;
    uint8_t  port;
    uint8_t  link;
    uint8_t  gid[16];
    uint8_t  mtu;
    uint8_t  flags;
    uint16_t credits;
    uint32_t nqpn;
    char     host[VRB_HOST_LEN];
    uint32_t ud_qpn;
    uint32_t qpn[];
} vrb_addr_t;

#define VRB_FULLMESH_MAX ((RTM_TL_ADDR_MAX - (int)sizeof(vrb_addr_t)) / 4)

/* XRC part of the address blob (after vrb_addr_t, offset 68):
 *   +0  4  srqn        our XRC SRQ: senders name it in every Send and Read
 *   +4  4  node        our host's node id in the job (one INI QP per node)
 *   +8  4  local_size  ranks on our host (sizes the INI QP's send queue) */
typedef struct vrb_addr_xrc {
    uint32_t srqn;
    int32_t  node;
    uint32_t local_size;
} vrb_addr_xrc_t;

/*
 * On-demand connection handshake, one UD datagram each way (vrb_conn.c):
 *
 *   offset size
 *     0     4   magic     VRB_CONN_MAGIC
 *     4     1   type      VRB_CONN_REQ or VRB_CONN_REP
 *     5     1   mtu       sender's port MTU (enum ibv_mtu); the path takes the smaller
 *     6     1   flags     VRB_ADDR_F_GRH: address the sender with a GRH
 *     7     1   link      VRB_LINK_*
 *     8     4   src       sender's world rank
 *    12     4   dst       receiver's world rank (a misdelivered datagram is dropped)
 *    16     4   qpn       sender's RC QP for this pair
 *    20     4   psn       first PSN the sender sends with
 *    24     4   peer_qpn  REP: the requester's QP this answers (a reply to an
 *                         older request is dropped); REQ: 0
 *    28     4   ud_qpn    sender's UD QP (where replies go)
 *    32     2   lid       sender's LID (IB)
 *    34     2   credits   receive buffers of the sender's SRQ granted to the receiver
 *    36    16   gid       sender's GID (RoCE, or IB with a GRH)
 *    52    32   host      sender's hostname, NUL-padded, for messages
 *    84     4   srqn      XRC: sender's XRC SRQ number
 *    88     4   node      XRC: sender's node id
 *    92     4   local_size XRC: ranks on the sender's host
 *   = 96 bytes
 *
 * XRC (vrb_xrc.c) reuses REQ/REP per pair of ranks, with qpn = the XRC TGT
 * QP that the sender's INI QP to the receiver's host reaches (the receiver
 * accepts that peer's messages from it) and psn 0; two more types connect a
 * rank's INI QP to one host:
 *   VRB_CONN_XREQ  qpn, psn: the sender's INI QP and its first PSN; "create
 *                  an XRC TGT QP in your host's domain for it"
 *   VRB_CONN_XREP  qpn: that TGT QP; peer_qpn: the INI QP it answers
 */
#define VRB_CONN_MAGIC 0x43425256u      /* "VRBC" */
#define VRB_CONN_REQ   1
#define VRB_CONN_REP   2
#define VRB_CONN_XREQ  3
#define VRB_CONN_XREP  4

typedef struct vrb_conn_msg {
    uint32_t magic;
    uint8_t  type;
    uint8_t  mtu;
    uint8_t  flags;
    uint8_t  link;
    int32_t  src;
    int32_t  dst;
    uint32_t qpn;
    uint32_t psn;
    uint32_t peer_qpn;
    uint32_t ud_qpn;
    uint16_t lid;
    uint16_t credits;
    uint8_t  gid[16];
    char     host[VRB_HOST_LEN];
    uint32_t srqn;
    int32_t  node;
    uint32_t local_size;
} vrb_conn_msg_t;

/* What a check needs to know of the receiving rank. */
typedef struct vrb_addr_self {
    int         world_rank;
    int         world_size;
    int         ondemand;     /* we connect on demand */
    int         xrc;          /* we use XRC */
    uint8_t     link;         /* VRB_LINK_* of our port */
    const char *host;         /* our host name, for messages */
} vrb_addr_self_t;

/* A peer's address, from its blob or its datagram. */
typedef struct vrb_peer_addr {
    char     host[VRB_HOST_LEN + 1];   /* NUL-terminated */
    uint16_t lid;
    uint8_t  flags;
    uint8_t  mtu;
    uint8_t  gid[16];
    uint32_t ud_qpn;
    uint32_t remote_qpn;   /* full mesh: its RC QP for us */
    uint16_t credits;      /* full mesh: its grant to us */
    uint32_t srqn;         /* XRC */
    int32_t  node;         /* XRC: in [0, world_size) */
    uint32_t local_size;   /* XRC */
} vrb_peer_addr_t;

/* The blob's size with nqpn QP numbers, and with or without the XRC part. */
static inline size_t vrb_addr_size(size_t nqpn, int xrc)
{
    return sizeof(vrb_addr_t) + 4 * nqpn + (xrc ? sizeof(vrb_addr_xrc_t) : 0);
}

/* Lay a blob out in buf (vrb_addr_size(a->nqpn, x != NULL) bytes, any
 * alignment): a, a->nqpn zero QP numbers, then *x if not NULL. */
void vrb_addr_write(void *buf, const vrb_addr_t *a, const vrb_addr_xrc_t *x);
/* Entry i of a written blob's qpn[]. */
void vrb_addr_write_qpn(void *buf, size_t i, uint32_t qpn);

/* Check the blob rank `peer` published (len bytes, any alignment) and fill
 * *out. 0: usable; 1: the peer is not reachable over verbs (other link
 * layer); -1: malformed or of another configuration, with
 * the error set naming the peer. */
int vrb_addr_parse(const vrb_addr_self_t *self, int peer, const void *blob, size_t len,
                   vrb_peer_addr_t *out);

/* Check a connection datagram (len bytes after the GRH, any alignment) and
 * copy it into *m. 0: for us, from a valid rank, of our link layer and of
 * a type our mode uses; -1: to be dropped. */
int vrb_conn_msg_parse(const vrb_addr_self_t *self, const void *data, size_t len,
                       vrb_conn_msg_t *m);

/* The peer address a valid datagram carries. */
void vrb_conn_msg_addr(const vrb_conn_msg_t *m, vrb_peer_addr_t *out);

#endif
