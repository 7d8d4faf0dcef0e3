/*
 * Starting a node's children: one rtd per child host through the launch
 * agent (the job secret on its stdin, its stderr read by the parent), and
 * admitting their connections back, each of which must prove the secret
 * (rtd_wire.h) -- concurrently, each handshake bounded by
 * RTD_HS_DEADLINE_SEC, at most RTD_PENDING_MAX at once.
 */
#ifndef RTM_LAUNCHER_RTD_LAUNCH_H
#define RTM_LAUNCHER_RTD_LAUNCH_H

#include "launcher/rtd_node.h"
#include "rtmsg.h"

#include <stddef.h>
#include <sys/types.h>

/* Listen, and start every child through the launch agent. */
rtm_status_t rtd_node_launch_children(rtd_node_t *n);
/* Accept new connections and advance the handshakes under way (never
 * blocks); one that proved the secret becomes the connection of its child. */
void rtd_node_accept(rtd_node_t *n);
/* Refuse the handshakes past their deadline (the loop calls it each round;
 * rtd_node_next_deadline includes theirs). */
void rtd_node_expire_pending(rtd_node_t *n, double now);
/* A child launch agent exited (pid reaped with wstatus); returns the child
 * or NULL if pid is not one of ours. */
rtd_conn_t *rtd_node_agent_exited(rtd_node_t *n, pid_t pid, int wstatus);
/* Read the agents' stderr: relayed to ours once the child is connected,
 * kept for the launch error before. */
void rtd_node_read_agent_err(rtd_node_t *n, rtd_conn_t *c);
/* Describe why a child is lost / could not start, in buf. */
void rtd_node_child_error(rtd_node_t *n, rtd_conn_t *c, const char *what, char *buf, size_t len);
/* The child is lost (its connection closed, its agent exited, ...): mark
 * it, describe why in buf (rtd_node_child_error) and close it. Returns 0,
 * doing nothing, when it was reported lost before. */
int rtd_node_child_lost(rtd_node_t *n, rtd_conn_t *c, const char *what, char *buf, size_t len);
/* "its launch agent (pid P) exited with code C" (or killed by signal S). */
void rtd_describe_agent_exit(pid_t pid, int wstatus, char *buf, size_t len);
/* Whether the child missed its deadline to connect back; its agent is
 * then killed and its last words read (the caller reports it lost). */
int rtd_node_child_late(rtd_node_t *n, rtd_conn_t *c, double now);
/* The earliest deadline of the children still to connect; 0: none. */
double rtd_node_next_deadline(const rtd_node_t *n);
/* Launch agents not reaped yet; SIGKILL their process groups. */
int rtd_node_agents_left(const rtd_node_t *n);
void rtd_node_kill_agents(rtd_node_t *n);

/* Whether `name` is the network namespace this process runs in
 * (/run/netns/<name> is our /proc/self/ns/net): how the tests' hosts
 * tell "this host" apart, since they all share one hostname. */
int rtd_is_own_netns(const char *name);

#endif
