/*
 * The gate in front of a PMIx server (rtrun's and every rtd's): which
 * process made a TCP connection to it, in the kernel's own view, before
 * the library reads one byte of it. OpenPMIx 4.2's native security
 * believes the uid a client writes into its connect message (over TCP no
 * peer credential exists), so a process of another user that fakes
 * getuid()/geteuid() in its own address space is taken for a rank; and a
 * connection the library refuses after reading it leaves its server
 * unusable (see pmix_gate.c). So the gate decides at accept(), which it
 * interposes for the library's listening sockets only:
 *
 *   the client's socket (found by its address through NETLINK_SOCK_DIAG)
 *   must belong to the job's user, and its inode must be held open by a
 *   local rank this process started, or a descendant of one (the fd
 *   tables under /proc). Anything else is closed unread and logged once,
 *   with the peer's address; the library never sees it.
 *
 * rtrun_pmix_gate_bind then ties an admitted connection to the rank it
 * claims at PMIx_Init (client_connected).
 */
#ifndef RTM_LAUNCHER_PMIX_GATE_H
#define RTM_LAUNCHER_PMIX_GATE_H

#include "rtmsg.h"

#include <sys/types.h>

/* The listening sockets open now: call right before PMIx_server_init. */
void rtrun_pmix_gate_before_listen(void);
/* After PMIx_server_init: the listening TCP sockets that appeared since
 * rtrun_pmix_gate_before_listen are the server's; from now on every
 * connection they accept is checked, and those already accepted are
 * checked now. who names this host in messages. */
rtm_status_t rtrun_pmix_gate_arm(const char *nspace, const char *who);
/* The job's local ranks (before any starts): nprocs ranks, all refused
 * until their pid is known. */
rtm_status_t rtrun_pmix_gate_set_ranks(int nprocs);
/* A local rank's process, once forked; pid 0 once reaped (a pid the
 * kernel may give to another process is never trusted). */
void rtrun_pmix_gate_rank_pid(int rank, pid_t pid);
/* client_connected for rank: whether the connection the library is
 * completing now is one the gate admitted for a process of that rank. */
int rtrun_pmix_gate_bind(int rank);
/* Connections refused so far (tests, and the teardown's choice). */
int rtrun_pmix_gate_refusals(void);
/* Tests only (tests/launcher/test_gate.c): when set, called by
 * rtrun_pmix_gate_admit after each look at the process table, so a test
 * can record a rank's pid at the moment a race would. NULL in rtrun. */
extern void (*rtrun_pmix_gate_test_after_look)(void);

#endif
