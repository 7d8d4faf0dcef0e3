/*
 * The daemon tree's messages that rtrun and rtd take for themselves (the
 * ones rtd_node_handle hands back: a rank started, its output, its exit,
 * its PMIx events, its job-state answer, a daemon's error and stdin acks
 * for rtrun; stdin, kill and job-state questions for rtd): the header's
 * fields and the payload checked against the job and turned into named
 * values. Pure, so a fuzz target runs it (tests/fuzz/fuzz_rtd_msg.c);
 * rtrun.c's on_remote and rtd.c's handle_buffered act on what it returns.
 */
#ifndef RTM_LAUNCHER_RTD_MSG_H
#define RTM_LAUNCHER_RTD_MSG_H

#include "launcher/rtd_wire.h"

#include <stddef.h>

typedef struct rtd_msg {
    int         type;       /* RTD_MSG_* */
    int         rank;       /* STARTED, IOF, EXIT, PMIXEV, STATE: in [0, nprocs) */
    int         pid;        /* STARTED: > 0 */
    int         stream;     /* IOF: 1 stdout, 2 stderr */
    int         eof;        /* IOF, STDIN: 0 or 1 */
    int         wstatus;    /* EXIT: the rank's wait status */
    int         connected;  /* EXIT: it had called PMIx_Init (0 or 1) */
    int         finalized;  /* EXIT: it had called PMIx_Finalize (0 or 1) */
    int         ev_type;    /* PMIXEV: RTRUN_PMIX_EV_CONNECTED .. RTRUN_PMIX_EV_LOST */
    int         ev_status;  /* PMIXEV */
    int         lost_host;  /* ERROR: the host lost, or -1 (any value: checked where used) */
    int         code;       /* ERROR: exit code */
    int         sig;        /* KILL: a signal number, 0 < sig < NSIG */
    unsigned    seq;        /* STATE, STATE_ASK: report number */
    size_t      acked;      /* STDIN_ACK: > 0 */
    const char *data;       /* IOF, PMIXEV, ERROR, STDIN, STATE: the payload */
    size_t      len;        /* its length (STDIN: at most RTD_STDIN_WINDOW) */
} rtd_msg_t;

/* Check the message h (payload: h->len bytes) of a job of nprocs ranks and
 * fill *m. 1: a message of the types above with every field in range; 0:
 * anything else, to be ignored (no daemon of this job sends it). */
int rtd_msg_decode(const rtd_hdr_t *h, const char *payload, int nprocs, rtd_msg_t *m);

#endif
