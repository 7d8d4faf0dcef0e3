#include "config.h"

#include "launcher/iof.h"

#include <errno.h>
#include <stdarg.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* Blocking write of an iovec array; waits when fd is non-blocking. */
static void write_iov(int fd, struct iovec *iov, int iovcnt)
{
    while (iovcnt > 0) {
        ssize_t n = writev(fd, iov, iovcnt);

        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) {
                struct pollfd pfd = {.fd = fd, .events = POLLOUT};

                poll(&pfd, 1, 100);
                continue;
            }
            return; /* EPIPE and the like: the reader is gone */
        }
        while (iovcnt > 0 && (size_t)n >= iov->iov_len) {
            n -= (ssize_t)iov->iov_len;
            iov++;
            iovcnt--;
        }
        if (iovcnt > 0) {
            iov->iov_base = (char *)iov->iov_base + n;
            iov->iov_len -= (size_t)n;
        }
    }
}

void rtrun_iof_write_all(int fd, const char *data, size_t len)
{
    struct iovec iov = {.iov_base = (void *)data, .iov_len = len};

    write_iov(fd, &iov, 1);
}

/* Longest message line, prefix and newline included. */
#define SAY_MAX_LINE 2048

static char say_prefix[32] = "rtrun: ";

void rtrun_say_init(const char *prog)
{
    snprintf(say_prefix, sizeof(say_prefix), "%s: ", prog);
}

void rtrun_say(const char *fmt, ...)
{
    char line[SAY_MAX_LINE];
    size_t prefix_len = strlen(say_prefix);
    va_list ap;
    int n;

    memcpy(line, say_prefix, prefix_len);
    va_start(ap, fmt);
    n = vsnprintf(line + prefix_len, sizeof(line) - prefix_len - 2, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    /* a longer message is cut, its newline kept */
    if ((size_t)n > sizeof(line) - prefix_len - 2)
        n = (int)(sizeof(line) - prefix_len - 2);
    n += (int)prefix_len;
    line[n++] = '\n';
    rtrun_iof_write_all(STDERR_FILENO, line, (size_t)n);
}

void rtrun_iof_stream_init(rtrun_iof_stream_t *s, int out_fd, int rank, int tag)
{
    memset(s, 0, sizeof(*s));
    s->out_fd = out_fd;
    s->rank = rank;
    s->tag = tag;
}

/* One line (or piece of one) in a single writev, prefix included. */
static void emit(rtrun_iof_stream_t *s, const char *data, size_t len, int add_newline)
{
    char prefix[24];
    struct iovec iov[3];
    int n = 0;

    if (s->tag && !s->mid_line) {
        iov[n].iov_base = prefix;
        iov[n].iov_len = (size_t)snprintf(prefix, sizeof(prefix), "[%d] ", s->rank);
        n++;
    }
    iov[n].iov_base = (void *)data;
    iov[n].iov_len = len;
    n++;
    if (add_newline) {
        iov[n].iov_base = (void *)"\n";
        iov[n].iov_len = 1;
        n++;
    }
    write_iov(s->out_fd, iov, n);
    s->mid_line = !(add_newline || (len > 0 && data[len - 1] == '\n'));
}

/* Write out every complete line in the buffer; keep the rest. */
static void emit_lines(rtrun_iof_stream_t *s)
{
    size_t start = 0;

    for (;;) {
        char *nl = memchr(s->buf + start, '\n', s->len - start);
        size_t line_len;

        if (nl == NULL)
            break;
        line_len = (size_t)(nl - (s->buf + start)) + 1;
        emit(s, s->buf + start, line_len, 0);
        start += line_len;
    }
    if (start > 0) {
        memmove(s->buf, s->buf + start, s->len - start);
        s->len -= start;
    }
    if (s->len >= RTRUN_IOF_MAX_LINE) {
        /* A line this long goes out in pieces rather than grow without bound. */
        emit(s, s->buf, s->len, 0);
        s->len = 0;
    }
}

void rtrun_iof_stream_feed(rtrun_iof_stream_t *s, const char *data, size_t len, int eof,
                           int end_partial)
{
    while (len > 0) {
        size_t room, n;

        if (s->cap - s->len < 4096) {
            size_t cap = s->cap ? s->cap * 2 : 16384;
            char *grown = realloc(s->buf, cap);

            if (grown == NULL) {
                /* Out of memory: pass the bytes on unsplit rather than lose them. */
                emit_lines(s);
                if (s->len > 0)
                    emit(s, s->buf, s->len, 0);
                s->len = 0;
                emit(s, data, len, 0);
                return;
            }
            s->buf = grown;
            s->cap = cap;
        }
        room = s->cap - s->len;
        n = len < room ? len : room;
        memcpy(s->buf + s->len, data, n);
        s->len += n;
        data += n;
        len -= n;
        emit_lines(s);
    }
    if (eof) {
        if (s->len > 0)
            emit(s, s->buf, s->len, end_partial);
        else if (s->mid_line && end_partial)
            emit(s, "", 0, 1);
        s->len = 0;
        free(s->buf);
        s->buf = NULL;
        s->cap = 0;
    }
}

void rtrun_iof_stream_close(rtrun_iof_stream_t *s)
{
    free(s->buf);
    s->buf = NULL;
    s->len = s->cap = 0;
}

void rtrun_iof_stdin_init(rtrun_iof_stdin_t *s, int src_fd, int dst_fd)
{
    s->src_fd = src_fd;
    s->dst_fd = dst_fd;
    s->off = s->len = 0;
    if (dst_fd < 0)
        s->src_fd = -1;
}

int rtrun_iof_stdin_wants_read(const rtrun_iof_stdin_t *s)
{
    return s->src_fd >= 0 && s->dst_fd >= 0 && s->len == 0;
}

int rtrun_iof_stdin_wants_write(const rtrun_iof_stdin_t *s)
{
    return s->dst_fd >= 0 && s->len > 0;
}

static void stdin_finish_if_done(rtrun_iof_stdin_t *s)
{
    /* EOF on rtrun's stdin and nothing left to pass on: rank 0 sees EOF. */
    if (s->src_fd < 0 && s->len == 0 && s->dst_fd >= 0) {
        close(s->dst_fd);
        s->dst_fd = -1;
    }
}

void rtrun_iof_stdin_on_readable(rtrun_iof_stdin_t *s)
{
    ssize_t n;

    if (s->src_fd < 0 || s->len > 0)
        return;
    n = read(s->src_fd, s->buf, sizeof(s->buf));
    if (n > 0) {
        s->off = 0;
        s->len = (size_t)n;
        rtrun_iof_stdin_on_writable(s);
        return;
    }
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    /* rtrun's stdin is not ours to close; just stop reading it */
    s->src_fd = -1;
    stdin_finish_if_done(s);
}

void rtrun_iof_stdin_on_writable(rtrun_iof_stdin_t *s)
{
    while (s->len > 0 && s->dst_fd >= 0) {
        ssize_t n = write(s->dst_fd, s->buf + s->off, s->len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n < 0) {
            /* rank 0 closed its stdin: drop the rest */
            rtrun_iof_stdin_close(s);
            return;
        }
        s->off += (size_t)n;
        s->len -= (size_t)n;
    }
    stdin_finish_if_done(s);
}

void rtrun_iof_stdin_close(rtrun_iof_stdin_t *s)
{
    if (s->dst_fd >= 0)
        close(s->dst_fd);
    s->dst_fd = -1;
    s->src_fd = -1;
    s->len = 0;
}
