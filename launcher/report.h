/*
 * Job-state reports (launcher/report.c): asking the ranks what they wait
 * for and turning their answers into one summary (common/state_ask.h has
 * the protocol). rtrun asks on --timeout (before anything is killed), on
 * SIGUSR1 and on `rtrun --report-state PID`; each rtd asks its own ranks
 * when the tree tells it to and sends the answers up.
 */
#ifndef RTM_LAUNCHER_REPORT_H
#define RTM_LAUNCHER_REPORT_H

#include "launcher/job.h"
#include "rtmsg.h"

#include <limits.h>
#include <stddef.h>

/* How long ranks get to answer. A rank waiting in the library answers
 * within a poll or two; this only bounds a rank that computes, or is
 * stopped, so the report (and a --timeout) is not held up by it. */
#define RTRUN_REPORT_WAIT_SEC 5.0

typedef struct rtrun_report {
    int       active;
    unsigned  seq;          /* which ask (1, 2, ...) */
    double    deadline;     /* give up on ranks that did not answer */
    char      dir[PATH_MAX];/* where this host's ranks answer ("" before an ask) */
    char      why[160];     /* "timeout of 5 s expired", "SIGUSR1" */
    int       nprocs;
    char    **answers;      /* per rank: its answer file's text, NULL: none yet */
    unsigned char *asked;   /* per rank: was running when asked */
} rtrun_report_t;

/* Starts ask `seq` of this host's ranks: a fresh directory under tmpdir,
 * then a PMIx event to the local clients of nspace. asked[r] marks the
 * ranks expected to answer (the caller sets it for remote ones too). */
rtm_status_t rtrun_report_ask(rtrun_report_t *rep, const char *tmpdir, const char *nspace,
                              unsigned seq, int nprocs, double now);
/* Reads the answers this host's ranks wrote since the last call; returns
 * the ranks newly answered. */
int  rtrun_report_collect(rtrun_report_t *rep);
/* An answer that came another way (an rtd, up the tree). */
void rtrun_report_set_answer(rtrun_report_t *rep, int rank, const char *text, size_t len);
/* Asked ranks that have not answered. */
int  rtrun_report_missing(const rtrun_report_t *rep);
/* Print the summary (rtrun_say lines) and write the JSON file; host_of(r)
 * names rank r's host, local_pid_of(r) gives its pid when it runs on this
 * host (else 0, for "did not answer" detail). json_path_p (may be NULL)
 * gets the file's path. Returns RTM_OK or the error writing the file. */
rtm_status_t rtrun_report_print(rtrun_report_t *rep, const rtrun_job_t *job,
                                const char *(*host_of)(void *arg, int rank),
                                int (*local_pid_of)(void *arg, int rank), void *arg,
                                char *json_path, size_t json_path_len);
/* Frees the answers and removes this host's answer directory. */
void rtrun_report_end(rtrun_report_t *rep);

/* `rtrun --report-state PID`: check that PID is an rtrun of this user (or
 * that we are root), send it SIGUSR1 and print the summary it writes.
 * Returns rtrun's exit code. */
int  rtrun_report_request(long pid);

/* Where the running rtrun leaves the summary of its last report for
 * --report-state: <dir>/rtm-state.<pid>.txt, dir = its working directory
 * if writable, else $TMPDIR or /tmp (the JSON goes beside it). */
void rtrun_report_paths(int pid, unsigned seq, char *json, size_t json_len, char *txt,
                        size_t txt_len);

#endif
