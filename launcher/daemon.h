/*
 * The daemon tree of a multi-host job: rtrun is its root, one rtd per
 * remote host holding ranks is a node. Shared by rtrun and rtd: the wire
 * format, the job description every daemon gets, the tree shape, starting
 * children through the launch agent, and the routing of messages (fence
 * data up and down, direct-modex requests to the owning host, everything
 * else up to the root).
 *
 * Wire format: every message is a 24-byte header (6 x 32-bit, network
 * order: type, payload length, destination host, three arguments) and its
 * payload. Connections are TCP; a daemon writes without blocking (an
 * output queue per connection) and reads whole messages into a buffer.
 */
#ifndef RTM_LAUNCHER_DAEMON_H
#define RTM_LAUNCHER_DAEMON_H

#include "launcher/job.h"
#include "launcher/pmix_server.h"
#include "rtmsg.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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
} rtd_msg_type_t;

typedef struct rtd_hdr {
    uint32_t type;
    uint32_t len;
    int32_t  dst;   /* host index for routed messages, -1 otherwise */
    int32_t  a, b, c;
} rtd_hdr_t;

/* One TCP connection to a parent or child daemon. A child connection
 * also tracks the launch agent that started it. */
typedef struct rtd_conn {
    int    fd;         /* -1: not connected (yet, or any more) */
    int    host;       /* the peer's host index; -1 for rtrun (the root) */
    int    pos;        /* the peer's position in the tree */
    char  *in;         /* bytes read, not yet a whole message */
    size_t in_len, in_cap;
    char  *out;        /* bytes queued, not yet written */
    size_t out_off, out_len, out_cap;
    /* child side: */
    int    hello;      /* the child presented the token */
    pid_t  agent_pid;  /* the launch agent (or rtd itself when the agent execs it); 0: reaped */
    int    agent_stdin;   /* where the token went; closed once written */
    int    agent_err;  /* the agent's (and rtd's) stderr, read by the parent */
    char   errtext[2048]; /* the agent's last words, for a launch error */
    size_t errlen;
    double deadline;   /* the child must connect before this */
    int    lost;       /* reported lost already */
} rtd_conn_t;

/* What every daemon learns about the job (the JOB message). */
typedef struct rtd_jobdesc {
    rtrun_job_t *job;        /* with hosts[] and every rank; cores are chosen per host */
    int          root_host;  /* host index of rtrun, -1 when it holds no ranks */
    int          fanout;
    int          bind;       /* rtrun_bind_t as given (each host resolves its own) */
    int          map_by;     /* rtrun_map_by_t */
    int          report_bindings;
    char        *agent;      /* launch agent command, {host} to substitute */
    char        *rtd_path;
    char        *cwd;
    int          prog_argc;
    char       **prog_argv;  /* NULL-terminated */
    size_t       nenv;
    char       **env;        /* "VAR=VALUE" given to every rank */
} rtd_jobdesc_t;

rtm_status_t rtd_jobdesc_pack(const rtd_jobdesc_t *d, char **buf_p, size_t *len_p);
rtm_status_t rtd_jobdesc_unpack(const char *buf, size_t len, rtd_jobdesc_t *d_p);
/* Frees what unpack allocated (the job included). */
void rtd_jobdesc_free(rtd_jobdesc_t *d);
/* A job built by rtd_job_alloc (its hosts[] too). */
rtrun_job_t *rtd_job_alloc(int nprocs, int nhosts);
void rtd_job_free(rtrun_job_t *job);

/* Positions: 0 is rtrun; 1.. are the remote hosts holding ranks, in host
 * order. Position p's children are p*fanout+1 .. p*fanout+fanout. */
typedef struct rtd_tree {
    int  ndaemons;
    int  fanout;
    int *host_of_pos;   /* ndaemons entries; [0] = root_host (may be -1) */
    int *pos_of_host;   /* nhosts entries; -1 for a host without rtd */
} rtd_tree_t;

rtm_status_t rtd_tree_build(const rtrun_job_t *job, int root_host, int fanout, rtd_tree_t *t);
void rtd_tree_free(rtd_tree_t *t);
/* Whether position q is p or below p. */
int rtd_tree_in_subtree(const rtd_tree_t *t, int p, int q);

/* The daemon a node is: tree, connections, fence and modex state. */
typedef struct rtd_node {
    rtd_jobdesc_t     *desc;
    rtd_tree_t         tree;
    int                self_host;   /* -1 for a root without ranks */
    int                pos;
    int                has_local;   /* ranks run here (the PMIx server contributes) */
    rtd_conn_t         parent;      /* fd -1 at the root */
    rtd_conn_t        *children;
    int                nchildren;
    int                listen_fd;
    char               addrs[1024]; /* "a.b.c.d:port,..." the children connect back to */
    char               token[RTD_TOKEN_LEN + 1];
    const char        *job_blob;    /* the packed description, sent to every child */
    size_t             job_blob_len;
    /* the fence under way (fences are job-wide and never overlap) */
    int                fence_seq;
    rtrun_pmix_req_t  *fence_local;
    int                fence_local_in;
    int                fence_children_in;
    char              *fence_data;
    size_t             fence_len;
    /* direct modex requests of our ranks waiting for an answer */
    rtrun_pmix_req_t  *dmx_pending;
    int                dmx_next_id;
} rtd_node_t;

/* Set up the node (tree position, children slots). */
rtm_status_t rtd_node_init(rtd_node_t *n, rtd_jobdesc_t *desc, int self_host,
                           const char *job_blob, size_t job_blob_len, const char *token);
/* Listen, and start every child through the launch agent. */
rtm_status_t rtd_node_launch_children(rtd_node_t *n);
/* Pending fence and modex requests are answered with an error;
 * connections closed. */
void rtd_node_fini(rtd_node_t *n);

/* Queue a message and try to write it now. */
void rtd_conn_send(rtd_conn_t *c, uint32_t type, int dst, int a, int b, int cc,
                   const void *payload, size_t len);
/* Write what the queue holds (non-blocking). Returns -1 on a broken connection. */
int rtd_conn_flush(rtd_conn_t *c);
/* Read what the socket holds. Returns -1 at EOF or error. */
int rtd_conn_fill(rtd_conn_t *c);
/* The next whole message, or 0 when none. The payload points into the
 * connection's buffer and stays valid until the next call. */
int rtd_conn_next(rtd_conn_t *c, rtd_hdr_t *h, const char **payload_p);
/* Forget that message (its payload pointer goes stale). */
void rtd_conn_consume(rtd_conn_t *c, const rtd_hdr_t *h);
void rtd_conn_close(rtd_conn_t *c);

/* Send a message towards the root (to the parent; the root handles it). */
void rtd_node_up(rtd_node_t *n, uint32_t type, int a, int b, int c, const void *p, size_t len);
/* To every child. */
void rtd_node_down(rtd_node_t *n, uint32_t type, int a, int b, int c, const void *p, size_t len);
/* Towards the daemon of host dst, hop by hop through the tree. */
void rtd_node_route(rtd_node_t *n, uint32_t type, int dst, int a, int b, int c, const void *p,
                    size_t len);

/* Handle one message that came from conn (the parent or a child).
 * Routing and fence/modex work happen here; returns 1 when the message
 * is for the caller itself (an up message at the root, KILL at an rtd):
 * the caller then handles it and calls rtd_conn_consume; 0 when handled
 * and consumed; -1 on a protocol error. */
int rtd_node_handle(rtd_node_t *n, rtd_conn_t *from, const rtd_hdr_t *h, const char *payload);

/* PMIx requests from the local server (see pmix_server.h). */
void rtd_node_fence_local(rtd_node_t *n, rtrun_pmix_req_t *req);
void rtd_node_dmodex_local(rtd_node_t *n, rtrun_pmix_req_t *req);
void rtd_node_dmodex_served(rtd_node_t *n, rtrun_pmix_req_t *req);
/* Hand a PMIx event from the event pipe to the tree when it is a fence or
 * direct-modex request (then returns 1); 0 for rank events, which the
 * caller handles. */
int rtd_node_pmix_request(rtd_node_t *n, const rtrun_pmix_event_t *ev);

/* A child connection that said hello on a fresh socket: find which child
 * it is. Called by rtd_node_accept. */
void rtd_node_accept(rtd_node_t *n);

/* A child launch agent exited (pid reaped with wstatus); returns the child
 * or NULL if pid is not one of ours. */
rtd_conn_t *rtd_node_agent_exited(rtd_node_t *n, pid_t pid, int wstatus);
/* Read the agents' stderr: relayed to ours once the child is connected,
 * kept for the launch error before. */
void rtd_node_read_agent_err(rtd_node_t *n, rtd_conn_t *c);
/* Describe why a child is lost / could not start, in buf. */
void rtd_node_child_error(rtd_node_t *n, rtd_conn_t *c, const char *what, char *buf, size_t len);

/* Non-loopback IPv4 addresses of this host ("a,b,c"; 127.0.0.1 if none). */
void rtd_local_addrs(char *buf, size_t len);
/* Random hex token. */
rtm_status_t rtd_make_token(char *buf, size_t len);
/* Whether `name` is the network namespace this process runs in
 * (/run/netns/<name> is our /proc/self/ns/net): how the tests' hosts
 * tell "this host" apart, since they all share one hostname. */
int rtd_is_own_netns(const char *name);
/* Connect to one of "a:port,b:port" (in order), each attempt bounded. */
int rtd_connect_any(const char *addrs, double timeout_sec, char *err, size_t errlen);

#endif
