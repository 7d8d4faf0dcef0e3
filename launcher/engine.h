/*
 * The host-side job engine: what rtrun and rtd both do for the ranks of
 * their own host. It starts them (spawn, binding, PMIx fork set-up), reaps
 * them, reads their stdout and stderr, reads the PMIx server's events,
 * signals them, and runs the one poll loop of the process over a signalfd,
 * the event pipe, the ranks' pipes and whatever the program adds (tree
 * connections, stdin).
 *
 * The program plugs its differences in through rtrun_engine_ops_t: rtrun
 * writes a rank's output out and judges a failed rank, rtd sends both up
 * the tree. One thread owns the engine; PMIx's thread only writes events
 * to the pipe (pmix_server.h).
 */
#ifndef RTM_LAUNCHER_ENGINE_H
#define RTM_LAUNCHER_ENGINE_H

#include "launcher/bind.h"
#include "launcher/job.h"
#include "launcher/pmix_server.h"
#include "rtmsg.h"

#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct rtrun_engine rtrun_engine_t;

/* Callbacks; ctx is the program's, as given to rtrun_engine_init. */
typedef struct rtrun_engine_ops {
    /* An event from the PMIx server (a rank connected, finalized, aborted;
     * a fence or direct-modex request in multi-host jobs). */
    void (*on_pmix_event)(void *ctx, const rtrun_pmix_event_t *ev);
    /* A signal from the signalfd; SIGCHLD included (call rtrun_engine_reap). */
    void (*on_signal)(void *ctx, int sig);
    /* A local rank was reaped: the events it caused were read first, its
     * state is EXITED and its output drained. */
    void (*on_rank_exit)(void *ctx, rtrun_rank_t *rk, int wstatus);
    /* A child that is no local rank was reaped (a launch agent). */
    void (*on_other_exit)(void *ctx, pid_t pid, int wstatus);
    /* Output of a local rank (stream 1: stdout, 2: stderr); eof = 1 once,
     * with no data, when the pipe ends. Return nonzero to stop reading
     * this pipe for now (the program's queue is full). */
    int (*on_output)(void *ctx, int rank, int stream, const char *data, size_t len, int eof);
    /* A local rank started; stdin_fd is its stdin pipe (rank 0) or -1. */
    void (*on_rank_started)(void *ctx, rtrun_rank_t *rk, int stdin_fd);
    /* Before each poll: return 0 to end the loop, else add the program's
     * fds (rtrun_engine_poll_add) and deadlines (rtrun_engine_wake_at). */
    int (*prepare)(void *ctx, rtrun_engine_t *eng, double now);
    /* One of the program's fds polled ready (tag as given to poll_add). */
    void (*on_fd)(void *ctx, int tag, int fd, short revents);
    /* After each round (deadlines), poll errors excepted. */
    void (*after_poll)(void *ctx, double now);
    /* poll failed with errno err: return nonzero to end the loop. */
    int (*on_poll_error)(void *ctx, int err);
} rtrun_engine_ops_t;

/* One entry of the poll set: what it is for. */
typedef struct rtrun_engine_pollent {
    int kind;   /* ENGINE_FD_* in engine.c */
    int arg;    /* output: 2 * rank + stream - 1; program: its tag */
} rtrun_engine_pollent_t;

struct rtrun_engine {
    const rtrun_engine_ops_t *ops;
    void               *ctx;
    rtrun_job_t        *job;
    /* Which ranks are this host's: all of them (a one-host rtrun), or
     * those with node_id == self_host. */
    int                 all_local;
    int                 self_host;
    /* How to start the ranks (set by the program before start_rank). */
    rtrun_topo_t       *topo;
    const char         *prog_path;
    char              **prog_argv;
    char              **env_vars;      /* -x style (rtrun_env_build) */
    size_t              nenv_vars;
    int                 report_bindings;
    /* What the engine owns. */
    int                 signal_fd;
    int                 event_pipe[2];
    char                tmpdir[PATH_MAX];
    int                 pmix_started;
    int                 job_registered;
    int                *out_fd;        /* per rank: stdout pipe, -1 if none (yet, any more) */
    int                *err_fd;
    int                 output_paused; /* this round, do not poll the ranks' pipes */
    int                 stopping;      /* dispatch nothing more; the loop ends */
    /* The poll set of the current round. */
    struct pollfd          *pfds;
    rtrun_engine_pollent_t *ents;
    int                     npfds, cap_pfds;
    double                  wake;
};

/* Nothing opened yet, no job: safe to fini. */
void rtrun_engine_init(rtrun_engine_t *eng, const rtrun_engine_ops_t *ops, void *ctx);
/* The job whose local ranks the engine runs: all of them (all_local), or
 * those with node_id == self_host. Returns RTM_ERR_NO_MEMORY (message
 * set) when the per-rank tables cannot be had; the engine then knows no
 * rank. */
rtm_status_t rtrun_engine_attach_job(rtrun_engine_t *eng, rtrun_job_t *job, int all_local,
                                     int self_host);
/* Closes what the engine holds (the PMIx server is stopped and the temp
 * directory removed by the functions below, in the program's order). */
void rtrun_engine_fini(rtrun_engine_t *eng);

/* Block SIGCHLD, SIGINT, SIGTERM and SIGHUP (left alone when ignored, as
 * under nohup) and read them from a signalfd; ignore SIGPIPE. Call before
 * any thread starts (PMIx), so the threads inherit the mask. */
rtm_status_t rtrun_engine_open_signals(rtrun_engine_t *eng);
/* The pipe PMIx's callbacks write events to. */
rtm_status_t rtrun_engine_open_events(rtrun_engine_t *eng);
/* Create the job's temp directory, start the PMIx server in it and
 * register the job (see rtrun_pmix_server_start for the arguments). */
rtm_status_t rtrun_engine_start_pmix(rtrun_engine_t *eng, void *hwloc_topology,
                                     const char *host_name, int self_host, int prog_argc,
                                     char **prog_argv);
void rtrun_engine_stop_pmix(rtrun_engine_t *eng);
void rtrun_engine_remove_tmpdir(rtrun_engine_t *eng);

/* Whether the rank runs on this host. */
int rtrun_engine_rank_is_local(const rtrun_engine_t *eng, const rtrun_rank_t *rk);
/* Start one local rank (on_rank_started follows). */
rtm_status_t rtrun_engine_start_rank(rtrun_engine_t *eng, rtrun_rank_t *rk);
/* Signal every running local rank's process group. */
void rtrun_engine_signal_ranks(rtrun_engine_t *eng, int sig);
/* SIGKILL the process groups of every local rank ever started: what the
 * ranks left behind may hold their output open. */
void rtrun_engine_kill_leftovers(rtrun_engine_t *eng);
/* Running local ranks. */
int rtrun_engine_running_ranks(const rtrun_engine_t *eng);

/* Reap every child that exited (on_rank_exit / on_other_exit). */
void rtrun_engine_reap(rtrun_engine_t *eng);
/* Read the events waiting in the pipe (on_pmix_event for each). */
void rtrun_engine_drain_events(rtrun_engine_t *eng);
/* Read what the rank's pipes hold now (on_output). */
void rtrun_engine_drain_output(rtrun_engine_t *eng, int rank);
/* Whether some local rank's pipe is still open. */
int rtrun_engine_output_open(const rtrun_engine_t *eng);
/* Close the ranks' pipes; what they still hold is dropped. */
void rtrun_engine_close_output(rtrun_engine_t *eng);

/* The loop: rounds of prepare, poll, dispatch (PMIx events first, so an
 * exit is handled knowing whether the rank finalized; then signals, the
 * ranks' output, the program's fds in the order added), after_poll; until
 * prepare returns 0 or the engine is stopped. max_program_fds bounds what
 * prepare adds per round. */
rtm_status_t rtrun_engine_run(rtrun_engine_t *eng, int max_program_fds);
/* From a callback: dispatch nothing more this round, end the loop. */
void rtrun_engine_stop(rtrun_engine_t *eng);
/* From prepare: poll fd for events; on_fd(tag) when ready. */
void rtrun_engine_poll_add(rtrun_engine_t *eng, int fd, short events, int tag);
/* From prepare: wake up by time t at the latest (0: no deadline). */
void rtrun_engine_wake_at(rtrun_engine_t *eng, double t);

#endif
