/*
 * This process's connection to its PMIx server, from the client's side.
 *
 * OpenPMIx 4.2's client connects over TCP without TCP_NODELAY. Its requests
 * are small (18 B to a few hundred) and some go two in a row with no reply
 * between (at finalize: deregister the event handler, then finalize), so
 * Nagle's algorithm held the second until the server's delayed ACK of the
 * first, 40 ms on Linux: two thirds of a 2-rank job's launch (65 -> 20 ms).
 */
#ifndef RTM_RUNTIME_PMIX_SOCK_H
#define RTM_RUNTIME_PMIX_SOCK_H

#include <sys/socket.h>

/* The server address of an OpenPMIx server URI (the PMIX_SERVER_URI*
 * variables): "NSPACE.RANK;tcp4://A.B.C.D:PORT" or
 * "NSPACE.RANK;tcp6://[ADDR]:PORT". 0 with *ss set; -1 for anything else
 * (ss untouched). */
int rtm_pmix_uri_addr(const char *uri, struct sockaddr_storage *ss);

/* Sets TCP_NODELAY on this process's TCP sockets connected to the server
 * the environment's PMIX_SERVER_URI* variables name. Returns how many. */
int rtm_pmix_server_nodelay(void);

#endif
