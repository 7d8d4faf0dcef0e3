/*
 * Job-state reports (report.h): the launcher's side. The ask is a PMIx
 * event to this host's ranks naming a directory in the job's temp dir
 * (mode 0700, the job's user only); each rank writes its answer there
 * (runtime/state.c). The summary groups the ranks by what they wait in and
 * follows who waits for whom, from the header lines of every answer; the
 * JSON file is the answers' JSON bodies, one per rank, and the ranks that
 * did not answer.
 */
#include "config.h"

#include "launcher/report.h"
#include "launcher/iof.h"
#include "common/error.h"
#include "common/state_ask.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pmix.h>
#include <pmix_server.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the ask ---- */

static void notify_done(pmix_status_t status, void *cbdata)
{
    (void)status;
    (void)cbdata;
}

rtm_status_t rtrun_report_ask(rtrun_report_t *rep, const char *tmpdir, const char *nspace,
                              unsigned seq, int nprocs, double now)
{
    pmix_info_t info[2];
    pmix_proc_t source;
    pmix_status_t rc;
    uint32_t seq32 = seq;
    int n;

    if (rep == NULL || tmpdir == NULL || nspace == NULL || nprocs <= 0)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_report_ask: bad argument");
    rtrun_report_end(rep);
    rep->answers = calloc((size_t)nprocs, sizeof(char *));
    rep->asked = calloc((size_t)nprocs, 1);
    if (rep->answers == NULL || rep->asked == NULL) {
        rtrun_report_end(rep);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for a job-state report");
    }
    rep->nprocs = nprocs;
    rep->seq = seq;
    rep->deadline = now + RTRUN_REPORT_WAIT_SEC;
    n = snprintf(rep->dir, sizeof(rep->dir), "%s/state.%u", tmpdir, seq);
    if (n < 0 || (size_t)n >= sizeof(rep->dir) || mkdir(rep->dir, 0700) != 0) {
        rtm_status_t st = rtm_error_set(RTM_ERR_INTERNAL, "cannot create %s: %s", rep->dir,
                                        strerror(errno));

        rep->dir[0] = '\0';
        rtrun_report_end(rep);
        return st;
    }
    rep->active = 1;
    PMIX_INFO_LOAD(&info[0], RTM_STATE_KEY_DIR, rep->dir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], RTM_STATE_KEY_SEQ, &seq32, PMIX_UINT32);
    /* This host's clients: a remote host's rtd asks its own. */
    /* The source is the launcher, not a rank: the server does not notify
     * the source of an event, and nspace:WILDCARD would be every rank. */
    PMIX_LOAD_PROCID(&source, "rtm-launcher", 0);
    rc = PMIx_Notify_event(RTM_STATE_EVENT, &source, PMIX_RANGE_LOCAL, info, 2, notify_done,
                           NULL);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED)
        return rtm_error_set(RTM_ERR_PMIX, "cannot ask the ranks for their state: "
                             "PMIx_Notify_event: %s", PMIx_Error_string(rc));
    return RTM_OK;
}

/* The whole of a small file; NULL on any error. */
static char *read_file(const char *path, size_t *len_p)
{
    FILE *f = fopen(path, "r");
    char *buf = NULL;
    size_t cap = 0, len = 0;

    if (f == NULL)
        return NULL;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            size_t ncap = cap ? cap * 2 : 16384;
            char *g = realloc(buf, ncap);

            if (g == NULL) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = g;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);

        len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    buf[len] = '\0';
    *len_p = len;
    return buf;
}

int rtrun_report_collect(rtrun_report_t *rep)
{
    DIR *d;
    struct dirent *e;
    int found = 0;

    if (rep == NULL || !rep->active || rep->dir[0] == '\0' || (d = opendir(rep->dir)) == NULL)
        return 0;
    while ((e = readdir(d)) != NULL) {
        char path[PATH_MAX + 300], *end;
        long r = strtol(e->d_name, &end, 10);
        size_t len;
        char *text;

        if (end == e->d_name || strcmp(end, RTM_STATE_SUFFIX) != 0 || r < 0 ||
            r >= rep->nprocs || rep->answers[r] != NULL)
            continue;
        snprintf(path, sizeof(path), "%s/%s", rep->dir, e->d_name);
        text = read_file(path, &len);
        if (text == NULL)
            continue;
        rep->answers[r] = text;
        found++;
    }
    closedir(d);
    return found;
}

void rtrun_report_set_answer(rtrun_report_t *rep, int rank, const char *text, size_t len)
{
    char *copy;

    if (rep == NULL || !rep->active || rank < 0 || rank >= rep->nprocs ||
        rep->answers[rank] != NULL || (copy = malloc(len + 1)) == NULL)
        return;
    memcpy(copy, text, len);
    copy[len] = '\0';
    rep->answers[rank] = copy;
}

int rtrun_report_missing(const rtrun_report_t *rep)
{
    int n = 0;

    for (int r = 0; rep != NULL && rep->active && r < rep->nprocs; r++)
        n += rep->asked[r] && rep->answers[r] == NULL;
    return n;
}

void rtrun_report_end(rtrun_report_t *rep)
{
    if (rep == NULL)
        return;
    for (int r = 0; rep->answers != NULL && r < rep->nprocs; r++)
        free(rep->answers[r]);
    free(rep->answers);
    free(rep->asked);
    rep->answers = NULL;
    rep->asked = NULL;
    if (rep->dir[0] != '\0') {
        DIR *d = opendir(rep->dir);
        struct dirent *e;

        while (d != NULL && (e = readdir(d)) != NULL) {
            char path[PATH_MAX + 300];

            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "%s/%s", rep->dir, e->d_name);
            unlink(path);
        }
        if (d != NULL)
            closedir(d);
        rmdir(rep->dir);
        rep->dir[0] = '\0';
    }
    rep->active = 0;
    rep->nprocs = 0;
}

/* ---- one answer's header (common/state_ask.h) ---- */

typedef struct answer {
    int         ok;
    const char *what;      /* points into the answer (NUL-terminated in place) */
    const char *summary;
    const char *json;
    int         waits_for; /* -1: none */
} answer_t;

/* Splits the header lines in place. */
static void answer_parse(char *text, answer_t *a)
{
    char *line = text, *next;

    memset(a, 0, sizeof(*a));
    a->waits_for = -1;
    if (text == NULL || strncmp(text, RTM_STATE_MAGIC "\n", strlen(RTM_STATE_MAGIC) + 1) != 0)
        return;
    while (line != NULL && *line) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        if (strcmp(line, "json") == 0) {
            a->json = next != NULL ? next : "";
            break;
        }
        if (strncmp(line, "what ", 5) == 0)
            a->what = line + 5;
        else if (strncmp(line, "summary ", 8) == 0)
            a->summary = line + 8;
        else if (strncmp(line, "waits_for", 9) == 0 && line[9] == ' ')
            a->waits_for = atoi(line + 10);
        line = next;
    }
    a->ok = a->json != NULL && a->what != NULL && a->summary != NULL;
}

/* "0-3, 5, 7" into buf from a sorted list. */
static void rank_ranges(const int *ranks, int n, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; i < n && used + 24 < len; i++) {
        int j = i;

        while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
            j++;
        if (j > i)
            used += (size_t)snprintf(buf + used, len - used, "%s%d-%d", used ? ", " : "",
                                     ranks[i], ranks[j]);
        else
            used += (size_t)snprintf(buf + used, len - used, "%s%d", used ? ", " : "",
                                     ranks[i]);
        i = j;
    }
}

/* What a process that did not answer is doing, from /proc/PID/stat. */
static const char *proc_state_text(int pid)
{
    char path[64], buf[512], *p;
    FILE *f;

    if (pid <= 0)
        return NULL;
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    p = fgets(buf, sizeof(buf), f);
    fclose(f);
    if (p == NULL || (p = strrchr(buf, ')')) == NULL || p[1] != ' ')
        return NULL;
    switch (p[2]) {
    case 'T': return "stopped (SIGSTOP or a debugger): it cannot answer until continued";
    case 't': return "stopped by a debugger (tracing stop)";
    case 'R': return "running outside the library (computing?): it answers at its next wait";
    case 'S': return "sleeping outside the library (a system call of its own?)";
    case 'D': return "in uninterruptible sleep (I/O)";
    case 'Z': return "exited (zombie)";
    default:  return NULL;
    }
}

/* ---- the summary ---- */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s != NULL && *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static FILE *open_out(const char *path, char *tmp, size_t tmp_len)
{
    int fd;

    snprintf(tmp, tmp_len, "%s.tmp", path);
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    return fd < 0 ? NULL : fdopen(fd, "w");
}

static int close_out(FILE *f, const char *tmp, const char *path)
{
    int bad = ferror(f);

    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static const char *out_dir(void)
{
    static char cwd[PATH_MAX];
    const char *t;

    if (getcwd(cwd, sizeof(cwd)) != NULL && access(cwd, W_OK) == 0)
        return cwd;
    t = getenv("TMPDIR");
    return t != NULL && t[0] == '/' && access(t, W_OK) == 0 ? t : "/tmp";
}

void rtrun_report_paths(int pid, unsigned seq, char *json, size_t json_len, char *txt,
                        size_t txt_len)
{
    const char *dir = out_dir();

    if (json != NULL)
        snprintf(json, json_len, "%s/rtm-state-%d-%u.json", dir, pid, seq);
    if (txt != NULL)
        snprintf(txt, txt_len, "%s/rtm-state-%d.txt", dir, pid);
}

/* One line to stderr (rtrun's) and to the text file. */
static void say2(FILE *txt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say2(FILE *txt, const char *fmt, ...)
{
    char line[4096];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    rtrun_say("%s", line);
    if (txt != NULL)
        fprintf(txt, "%s\n", line);
}

rtm_status_t rtrun_report_print(rtrun_report_t *rep, const rtrun_job_t *job,
                                const char *(*host_of)(void *arg, int rank),
                                int (*local_pid_of)(void *arg, int rank), void *arg,
                                char *json_path, size_t json_path_len)
{
    int n = rep != NULL ? rep->nprocs : 0;
    answer_t *ans;
    int *list, *done, nasked = 0, nans = 0;
    char path[PATH_MAX], txt_path[PATH_MAX], tmp[PATH_MAX + 8], tmp2[PATH_MAX + 8], ranges[512];
    FILE *jf, *tf;
    rtm_status_t status = RTM_OK;

    if (rep == NULL || !rep->active || job == NULL || host_of == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_report_print: no report");
    ans = calloc((size_t)n, sizeof(*ans));
    list = calloc((size_t)n, sizeof(int));
    done = calloc((size_t)n, sizeof(int));
    if (ans == NULL || list == NULL || done == NULL) {
        free(ans);
        free(list);
        free(done);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "no memory for the job-state summary");
    }
    for (int r = 0; r < n; r++) {
        answer_parse(rep->answers[r], &ans[r]);
        if (ans[r].ok)   /* a rank rtrun had not seen connect yet may answer too */
            rep->asked[r] = 1;
        nasked += rep->asked[r];
        nans += ans[r].ok;
    }
    rtrun_report_paths((int)getpid(), rep->seq, path, sizeof(path), txt_path, sizeof(txt_path));
    tf = open_out(txt_path, tmp2, sizeof(tmp2));
    if (tf != NULL)
        fprintf(tf, "seq %u\n", rep->seq);
    say2(tf, "job state (%s): %d of %d running rank%s answered", rep->why, nans, nasked,
         nasked == 1 ? "" : "s");

    /* Ranks grouped by what they wait in. */
    for (int r = 0; r < n; r++) {
        int k = 0;

        if (!ans[r].ok || done[r])
            continue;
        for (int s = r; s < n; s++) {
            if (ans[s].ok && !done[s] && strcmp(ans[s].what, ans[r].what) == 0) {
                list[k++] = s;
                done[s] = 1;
            }
        }
        rank_ranges(list, k, ranges, sizeof(ranges));
        say2(tf, "  %s: rank%s %s", ans[r].what, k == 1 ? "" : "s", ranges);
    }

    /* The wait-for chains: from every rank not yet shown, follow waits_for
     * while the next rank answered and is not shown yet. */
    memset(done, 0, (size_t)n * sizeof(int));
    for (int start = 0; start < n; start++) {
        char chain[4096];
        size_t used = 0;
        int r = start, steps = 0;

        if (!ans[start].ok || done[start])
            continue;
        chain[0] = '\0';
        while (r >= 0 && r < n && ans[r].ok && !done[r] && used + 64 < sizeof(chain)) {
            done[r] = start + 1;   /* this chain's mark */
            used += (size_t)snprintf(chain + used, sizeof(chain) - used, "%srank %d %s",
                                     steps ? "; " : "", r, ans[r].summary);
            steps++;
            r = ans[r].waits_for;
        }
        if (r >= 0 && r < n && used + 64 < sizeof(chain)) {
            if (ans[r].ok && done[r] == start + 1)
                snprintf(chain + used, sizeof(chain) - used,
                         " -- rank %d again: a cycle, nobody can move", r);
            else if (ans[r].ok)
                snprintf(chain + used, sizeof(chain) - used, " -- rank %d: above", r);
            else if (!ans[r].ok && rep->asked[r])
                snprintf(chain + used, sizeof(chain) - used,
                         " -- rank %d did not answer", r);
            else if (!rep->asked[r])
                snprintf(chain + used, sizeof(chain) - used,
                         " -- rank %d is not running", r);
        }
        if (steps > 1 || (r >= 0 && r < n))
            say2(tf, "wait-for chain: %s", chain);
        else
            say2(tf, "rank %d %s", start, ans[start].summary);
    }

    /* Who did not answer. */
    for (int r = 0; r < n; r++) {
        const char *st;

        if (!rep->asked[r] || ans[r].ok)
            continue;
        st = local_pid_of != NULL ? proc_state_text(local_pid_of(arg, r)) : NULL;
        say2(tf, "rank %d (%s) did not answer within %.0f s%s%s", r, host_of(arg, r),
             RTRUN_REPORT_WAIT_SEC, st ? ": " : "", st ? st : "");
    }

    jf = open_out(path, tmp, sizeof(tmp));
    if (jf == NULL) {
        status = rtm_error_set(RTM_ERR_INTERNAL, "cannot write %s: %s", path, strerror(errno));
        say2(tf, "%s", rtm_last_error());
    } else {
        int first = 1;

        fprintf(jf, "{\"nspace\":");
        json_str(jf, job->nspace);
        fprintf(jf, ",\"reason\":");
        json_str(jf, rep->why);
        fprintf(jf, ",\"seq\":%u,\"ranks_asked\":%d,\"ranks_answered\":%d,\n\"no_answer\":[",
                rep->seq, nasked, nans);
        for (int r = 0; r < n; r++) {
            const char *st;

            if (!rep->asked[r] || ans[r].ok)
                continue;
            st = local_pid_of != NULL ? proc_state_text(local_pid_of(arg, r)) : NULL;
            fprintf(jf, "%s{\"rank\":%d,\"host\":", first ? "" : ",", r);
            json_str(jf, host_of(arg, r));
            fprintf(jf, ",\"process\":");
            json_str(jf, st ? st : "unknown");
            fprintf(jf, "}");
            first = 0;
        }
        fprintf(jf, "],\n\"ranks\":[\n");
        first = 1;
        for (int r = 0; r < n; r++) {
            if (!ans[r].ok)
                continue;
            fprintf(jf, "%s%s", first ? "" : ",\n", ans[r].json);
            first = 0;
        }
        fprintf(jf, "]}\n");
        if (close_out(jf, tmp, path) != 0)
            status = rtm_error_set(RTM_ERR_INTERNAL, "cannot write %s: %s", path,
                                   strerror(errno));
        else
            say2(tf, "full per-rank state: %s", path);
    }
    if (tf != NULL)
        close_out(tf, tmp2, txt_path);
    if (json_path != NULL && json_path_len > 0)
        snprintf(json_path, json_path_len, "%s", path);
    free(ans);
    free(list);
    free(done);
    return status;
}

/* ---- rtrun --report-state PID ---- */

/* The seq line of a summary file, 0 if none. */
static unsigned txt_seq(const char *path)
{
    FILE *f = fopen(path, "r");
    unsigned seq = 0;

    if (f == NULL)
        return 0;
    if (fscanf(f, "seq %u", &seq) != 1)
        seq = 0;
    fclose(f);
    return seq;
}

int rtrun_report_request(long pid)
{
    char path[PATH_MAX], comm[64], cand[2][PATH_MAX + 64], cwd[PATH_MAX];
    struct stat st;
    unsigned before[2];
    FILE *f;
    ssize_t n;

    snprintf(path, sizeof(path), "/proc/%ld", pid);
    if (stat(path, &st) != 0) {
        rtrun_say("--report-state %ld: no such process", pid);
        return 1;
    }
    /* Only the job's user (or root) may ask: the report shows the job's
     * communication, and a signal to another user's process is refused
     * anyway; say so plainly instead. */
    if (getuid() != 0 && st.st_uid != getuid()) {
        rtrun_say("--report-state %ld: the process belongs to another user; only its user "
                  "or root may ask for its job's state", pid);
        return 1;
    }
    snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
    f = fopen(path, "r");
    if (f == NULL || fgets(comm, sizeof(comm), f) == NULL) {
        if (f != NULL)
            fclose(f);
        rtrun_say("--report-state %ld: cannot read %s", pid, path);
        return 1;
    }
    fclose(f);
    comm[strcspn(comm, "\n")] = '\0';
    if (strcmp(comm, "rtrun") != 0 && strcmp(comm, "lt-rtrun") != 0) {
        rtrun_say("--report-state %ld: process %ld is \"%s\", not rtrun; give the pid of the "
                  "rtrun that runs the job", pid, pid, comm);
        return 1;
    }
    /* Where that rtrun writes: its working directory, else /tmp. */
    snprintf(path, sizeof(path), "/proc/%ld/cwd", pid);
    n = readlink(path, cwd, sizeof(cwd) - 1);
    cwd[n > 0 ? n : 0] = '\0';
    snprintf(cand[0], sizeof(cand[0]), "%s/rtm-state-%ld.txt", cwd, pid);
    snprintf(cand[1], sizeof(cand[1]), "%s/rtm-state-%ld.txt",
             getenv("TMPDIR") && getenv("TMPDIR")[0] == '/' ? getenv("TMPDIR") : "/tmp", pid);
    before[0] = txt_seq(cand[0]);
    before[1] = txt_seq(cand[1]);
    if (kill((pid_t)pid, SIGUSR1) != 0) {
        rtrun_say("--report-state %ld: cannot signal it: %s", pid, strerror(errno));
        return 1;
    }
    for (int i = 0; i < (int)(RTRUN_REPORT_WAIT_SEC + 10) * 20; i++) {
        struct timespec ts = {0, 50 * 1000 * 1000};

        for (int c = 0; c < 2; c++) {
            if (cand[c][0] != '/' || txt_seq(cand[c]) <= before[c])
                continue;
            f = fopen(cand[c], "r");
            if (f != NULL) {
                char line[4096];

                if (fgets(line, sizeof(line), f) != NULL) /* the seq line */
                    while (fgets(line, sizeof(line), f) != NULL)
                        fputs(line, stdout);
                fclose(f);
                return 0;
            }
        }
        if (kill((pid_t)pid, 0) != 0) {
            rtrun_say("--report-state %ld: rtrun ended before it reported", pid);
            return 1;
        }
        nanosleep(&ts, NULL);
    }
    rtrun_say("--report-state %ld: no report within %.0f s (is its job still starting?)", pid,
              RTRUN_REPORT_WAIT_SEC + 10);
    return 1;
}
