/*
 * The tcp endpoint's part of a job-state report (ops.ep_state): the
 * connection's state and the bytes queued in its send ring. Read on the
 * slow path of a report only.
 */
#include "config.h"

#include "transport/tcp/tcp.h"

#include <stdio.h>

static const char *tcp_conn_state_name(tcp_conn_state_t s)
{
    switch (s) {
    case TCP_CONN_IDLE:       return "idle";
    case TCP_CONN_CONNECTING: return "connecting";
    case TCP_CONN_WAIT_CHALLENGE: return "waiting for the peer's challenge";
    case TCP_CONN_WAIT_ACK:   return "waiting for the handshake ack";
    case TCP_CONN_WAIT_PEER:  return "waiting for the peer's connection";
    case TCP_CONN_UP:         return "up";
    case TCP_CONN_CLOSED:     return "closed";
    case TCP_CONN_FAILED:     return "failed";
    }
    return "unknown";
}

size_t tcp_ep_state(rtm_tl_ep_t *tl_ep, char *buf, size_t len)
{
    tcp_ep_t *ep = tcp_ep_of(tl_ep);
    int n;

    if (buf == NULL || len == 0)
        return 0;
    buf[0] = '\0';
    if (ep == NULL)
        return 0;
    n = snprintf(buf, len, "\"connection\":\"%s\",\"fd\":%d,\"tx_queued_bytes\":%llu,"
                 "\"tx_ring_bytes\":%llu,\"rx_unparsed_bytes\":%zu,\"waiting_writable\":%d",
                 tcp_conn_state_name(ep->state), ep->fd,
                 (unsigned long long)(ep->tx_tail - ep->tx_head),
                 (unsigned long long)(ep->tx_mask + 1), ep->rx_tail - ep->rx_head,
                 ep->tx_polling);
    return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
}
