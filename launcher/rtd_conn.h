/*
 * One TCP connection of the daemon tree, to a parent or a child daemon:
 * a daemon writes without blocking (an output queue per connection) and
 * reads whole messages (rtd_wire.h) into an input buffer. A child
 * connection also tracks the launch agent that started it.
 */
#ifndef RTM_LAUNCHER_RTD_CONN_H
#define RTM_LAUNCHER_RTD_CONN_H

#include "launcher/rtd_wire.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct rtd_conn {
    int    fd;         /* -1: not connected (yet, or any more) */
    int    host;       /* the peer's host index; -1 for rtrun (the root) */
    int    pos;        /* the peer's position in the tree */
    char  *in;         /* bytes read, not yet a whole message */
    size_t in_len, in_cap;
    char  *out;        /* bytes queued, not yet written */
    size_t out_off, out_len, out_cap;
    /* child side: */
    int    hello;      /* the child proved the job secret */
    pid_t  agent_pid;  /* the launch agent (or rtd itself when the agent execs it); 0: reaped */
    int    agent_stdin;   /* where the job secret went */
    int    agent_err;  /* the agent's (and rtd's) stderr, read by the parent */
    char   errtext[2048]; /* the agent's last words, for a launch error */
    size_t errlen;
    double deadline;   /* the child must connect before this */
    int    lost;       /* reported lost already */
} rtd_conn_t;

/* An unconnected connection (every fd -1). */
void rtd_conn_init(rtd_conn_t *c);
/* Queue a message and try to write it now. */
void rtd_conn_send(rtd_conn_t *c, uint32_t type, int dst, int a, int b, int cc,
                   const void *payload, size_t len);
/* Write what the queue holds (non-blocking). Returns -1 on a broken connection. */
int rtd_conn_flush(rtd_conn_t *c);
/* Read what the socket holds. Returns -1 at EOF or error. */
int rtd_conn_fill(rtd_conn_t *c);
/* The next whole message, or 0 when none; -1 on a protocol error. The
 * payload points into the connection's buffer and stays valid until the
 * next call. */
int rtd_conn_next(rtd_conn_t *c, rtd_hdr_t *h, const char **payload_p);
/* Forget that message (its payload pointer goes stale). */
void rtd_conn_consume(rtd_conn_t *c, const rtd_hdr_t *h);
void rtd_conn_close(rtd_conn_t *c);
/* Whether the connection has queued bytes to write (poll for POLLOUT). */
static inline int rtd_conn_wants_write(const rtd_conn_t *c)
{
    return c->out_len > c->out_off;
}

/* Non-loopback IPv4 addresses of this host ("a,b,c"; 127.0.0.1 if none). */
void rtd_local_addrs(char *buf, size_t len);
/* The child's side of the handshake on p, its connection to the parent
 * (rtd_wire.h): HELLO, the parent's CHALLENGE checked, PROOF queued.
 * 0: the parent proved the secret; -1 (why in err), also at `until`. */
int rtd_conn_join(rtd_conn_t *p, const rtm_secret_t *secret, int host, double until, char *err,
                  size_t errlen);
/* Connect to one of "a:port,b:port" (in order), each attempt bounded. */
int rtd_connect_any(const char *addrs, double timeout_sec, char *err, size_t errlen);

#endif
