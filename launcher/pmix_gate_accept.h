/*
 * Between the accept() interposer (pmix_gate_accept.c) and the gate
 * (pmix_gate.c). Both run in whichever thread accepts: no allocation is
 * assumed safe or unsafe here beyond what a normal thread may do.
 */
#ifndef RTM_LAUNCHER_PMIX_GATE_ACCEPT_H
#define RTM_LAUNCHER_PMIX_GATE_ACCEPT_H

/* Whether fd is one of the PMIx server's listening sockets. */
int rtrun_pmix_gate_is_listener(int fd);
/* The verdict on a socket just accepted on one: 0 admits it. */
int rtrun_pmix_gate_admit(int fd);
/* Called by the gate so the linker keeps the interposer in the program
 * (it is otherwise only referenced by libpmix). */
void rtrun_pmix_gate_accept_linked(void);

#endif
