/*
 * Standard I/O forwarding. Each rank's stdout and stderr come through a
 * pipe (read by the engine, engine.h) or, for a remote rank, in messages
 * from its rtd; rtrun writes them out one whole line per write(), so lines
 * from different ranks never mix. rtrun's stdin goes to rank 0.
 */
#ifndef RTM_LAUNCHER_IOF_H
#define RTM_LAUNCHER_IOF_H

#include <stddef.h>

/* A line longer than this is written out in pieces. */
#define RTRUN_IOF_MAX_LINE (1024 * 1024)

typedef struct rtrun_iof_stream {
    int    out_fd;    /* where its lines go: rtrun's stdout or stderr */
    int    rank;
    int    tag;       /* prefix lines with "[rank] " */
    int    mid_line;  /* the last write ended without a newline */
    char  *buf;       /* the partial line not written yet */
    size_t len, cap;
} rtrun_iof_stream_t;

void rtrun_iof_stream_init(rtrun_iof_stream_t *s, int out_fd, int rank, int tag);
/* Drop what the stream holds. */
void rtrun_iof_stream_close(rtrun_iof_stream_t *s);
/* A rank's output as it arrives (read from its pipe by the engine, or in
 * messages from a remote rank's rtd): bytes in, whole lines out. At eof
 * the partial last line is written, ending it with a newline when
 * `end_partial` says so. */
void rtrun_iof_stream_feed(rtrun_iof_stream_t *s, const char *data, size_t len, int eof,
                           int end_partial);

/* rtrun's stdin to rank 0, through a small buffer so neither side blocks. */
typedef struct rtrun_iof_stdin {
    int    src_fd;   /* rtrun's stdin; -1 once at EOF or failed */
    int    dst_fd;   /* rank 0's stdin pipe; -1 once closed */
    char   buf[65536];
    size_t off, len;
} rtrun_iof_stdin_t;

void rtrun_iof_stdin_init(rtrun_iof_stdin_t *s, int src_fd, int dst_fd);
/* Whether to poll src for input / dst for room. */
int rtrun_iof_stdin_wants_read(const rtrun_iof_stdin_t *s);
int rtrun_iof_stdin_wants_write(const rtrun_iof_stdin_t *s);
void rtrun_iof_stdin_on_readable(rtrun_iof_stdin_t *s);
void rtrun_iof_stdin_on_writable(rtrun_iof_stdin_t *s);
/* Rank 0 is gone: stop forwarding. */
void rtrun_iof_stdin_close(rtrun_iof_stdin_t *s);

/* The program's own messages: "<prog>: <text>\n" to stderr in one write,
 * so they never split a rank's line. rtrun_say_init names the program
 * (rtrun, rtd) once at start. */
void rtrun_say_init(const char *prog);
void rtrun_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Write all of a buffer to fd (blocking until done; EPIPE is ignored). */
void rtrun_iof_write_all(int fd, const char *data, size_t len);

#endif
