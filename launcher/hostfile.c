/*
 * Hostfile parser: the formats are described in hostfile.h. The parser works
 * on the whole text (unit tests hand it strings); rtrun_hostfile_read only
 * loads the file.
 */
#include "config.h"

#include "launcher/hostfile.h"
#include "common/error.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A hostfile larger than this is not a hostfile (a binary given by mistake,
 * /dev/zero): refuse it rather than read it all. 64 MiB holds millions of
 * hosts. */
#define HOSTFILE_MAX_BYTES (64u << 20)

int rtrun_host_name_ok(const char *name, size_t len)
{
    if (name == NULL || len == 0 || len > RTRUN_HOST_NAME_MAX || name[0] == '-' ||
        name[0] == '.')
        return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];

        if (!(isalnum(c) || c == '.' || c == '-' || c == '_'))
            return 0;
    }
    return 1;
}

void rtrun_hosts_free(rtrun_host_spec_t *hosts, size_t nhosts)
{
    if (hosts == NULL)
        return;
    for (size_t i = 0; i < nhosts; i++)
        free(hosts[i].name);
    free(hosts);
}

rtm_status_t rtrun_hosts_add(rtrun_host_spec_t **hosts, size_t *nhosts, const char *name,
                             size_t len, int slots)
{
    rtrun_host_spec_t *grown;
    char *copy;

    if (hosts == NULL || nhosts == NULL || name == NULL || len == 0 || slots < 0)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_hosts_add: bad argument");
    for (size_t i = 0; i < *nhosts; i++) {
        if (strlen((*hosts)[i].name) == len && memcmp((*hosts)[i].name, name, len) == 0) {
            if (slots > RTRUN_MAX_PROCS - (*hosts)[i].slots)
                return rtm_error_set(RTM_ERR_INVALID_ARG,
                                     "host %s: more than %d slots in total", (*hosts)[i].name,
                                     RTRUN_MAX_PROCS);
            (*hosts)[i].slots += slots;
            return RTM_OK;
        }
    }
    copy = strndup(name, len);
    if (copy == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for the host list");
    grown = realloc(*hosts, (*nhosts + 1) * sizeof(*grown));
    if (grown == NULL) {
        free(copy);
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for the host list");
    }
    grown[*nhosts].name = copy;
    grown[*nhosts].slots = slots;
    *hosts = grown;
    (*nhosts)++;
    return RTM_OK;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* A slot count: all digits, 1..RTRUN_MAX_PROCS. */
static int parse_count(const char *s, size_t len, int *count_p)
{
    long v = 0;

    if (len == 0)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
        if (v > RTRUN_MAX_PROCS)
            return -1;
    }
    if (v < 1)
        return -1;
    *count_p = (int)v;
    return 0;
}

/* Per-host bookkeeping while parsing: bare lines are counted apart from the
 * counted ones, so a host given only bare keeps "slots not given". */
typedef struct hf_host {
    int given;   /* sum of the counts of its counted lines */
    int bare;    /* lines without a count */
} hf_host_t;

/* What one line says: its host and the slot count, if any. */
typedef struct hf_line {
    const char *fname;
    int         lineno;
    const char *name;
    size_t      name_len;
    int         count;
    int         have_count;
    int         colon;     /* the count came as HOST:N */
} hf_line_t;

/* The next blank-separated word in [*pp, end), moving *pp past it. */
static size_t next_word(const char **pp, const char *end, const char **word_p)
{
    const char *p = *pp;

    while (p < end && is_blank(*p))
        p++;
    *word_p = p;
    while (p < end && !is_blank(*p))
        p++;
    *pp = p;
    return (size_t)(p - *word_p);
}

/* The host word: "name" or "name:N". */
static rtm_status_t parse_host_word(const char *word, size_t word_len, hf_line_t *l)
{
    const char *colon = memchr(word, ':', word_len);

    l->name = word;
    l->name_len = colon ? (size_t)(colon - word) : word_len;
    if (l->name_len > RTRUN_HOST_NAME_MAX)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "%s:%d: host name of %zu characters: at most %d are allowed",
                             l->fname, l->lineno, l->name_len, RTRUN_HOST_NAME_MAX);
    if (!rtrun_host_name_ok(word, l->name_len))
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "%s:%d: \"%.*s\": not a host name (letters, digits, '.', '-' and '_'; expected HOST, HOST:SLOTS or HOST slots=SLOTS)",
                             l->fname, l->lineno, (int)l->name_len, word);
    if (colon == NULL)
        return RTM_OK;
    if (parse_count(colon + 1, word_len - l->name_len - 1, &l->count) != 0)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "%s:%d: \"%.*s\": the count after ':' must be an integer from 1 to %d",
                             l->fname, l->lineno, (int)word_len, word, RTRUN_MAX_PROCS);
    l->have_count = 1;
    l->colon = 1;
    return RTM_OK;
}

/* One keyword after the host: slots=N, max_slots=N (checked, ignored). */
static rtm_status_t parse_keyword(const char *kw, size_t kw_len, int *have_slots_kw,
                                  hf_line_t *l)
{
    const char *eq = memchr(kw, '=', kw_len);
    int n;

    if (eq == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "%s:%d: \"%.*s\" after the host name: expected slots=N (one host per line)",
                             l->fname, l->lineno, (int)kw_len, kw);
    if ((size_t)(eq - kw) == 5 && strncmp(kw, "slots", 5) == 0) {
        if (*have_slots_kw || l->colon)
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "%s:%d: the slot count of %.*s is given twice", l->fname,
                                 l->lineno, (int)l->name_len, l->name);
        if (parse_count(eq + 1, kw_len - 6, &n) != 0)
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "%s:%d: %.*s: expected a positive integer (1 to %d)", l->fname,
                                 l->lineno, (int)kw_len, kw, RTRUN_MAX_PROCS);
        l->count = n;
        l->have_count = 1;
        *have_slots_kw = 1;
        return RTM_OK;
    }
    if ((size_t)(eq - kw) == 9 &&
        (strncmp(kw, "max_slots", 9) == 0 || strncmp(kw, "max-slots", 9) == 0)) {
        /* accepted for Open MPI hostfiles; rtrun caps nothing but the
         * total (--oversubscribe), so the value is only checked */
        if (parse_count(eq + 1, kw_len - 10, &n) != 0)
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "%s:%d: %.*s: expected a positive integer (1 to %d)", l->fname,
                                 l->lineno, (int)kw_len, kw, RTRUN_MAX_PROCS);
        return RTM_OK;
    }
    return rtm_error_set(RTM_ERR_INVALID_ARG,
                         "%s:%d: unknown keyword \"%.*s\" (expected slots=N or max_slots=N)",
                         l->fname, l->lineno, (int)(eq - kw), kw);
}

/* Add the line's host to the list and its count (or bare line) to the
 * host's bookkeeping. */
static rtm_status_t record_host(const hf_line_t *l, rtrun_host_spec_t **hosts, size_t *nhosts,
                                hf_host_t **book, size_t *book_cap)
{
    rtm_status_t status;
    size_t idx;

    status = rtrun_hosts_add(hosts, nhosts, l->name, l->name_len, 0);
    if (status != RTM_OK)
        return status;
    /* the entry just found or made */
    for (idx = 0; idx < *nhosts; idx++) {
        if (strlen((*hosts)[idx].name) == l->name_len &&
            memcmp((*hosts)[idx].name, l->name, l->name_len) == 0)
            break;
    }
    if (idx >= *book_cap) {
        size_t cap = *book_cap ? *book_cap * 2 : 16;
        hf_host_t *grown = realloc(*book, cap * sizeof(*grown));

        if (grown == NULL)
            return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory reading %s", l->fname);
        memset(grown + *book_cap, 0, (cap - *book_cap) * sizeof(*grown));
        *book = grown;
        *book_cap = cap;
    }
    if (l->have_count) {
        if (l->count > RTRUN_MAX_PROCS - (*book)[idx].given - (*book)[idx].bare)
            return rtm_error_set(RTM_ERR_INVALID_ARG,
                                 "%s:%d: host %.*s: more than %d slots in total", l->fname,
                                 l->lineno, (int)l->name_len, l->name, RTRUN_MAX_PROCS);
        (*book)[idx].given += l->count;
    } else {
        if ((*book)[idx].bare >= RTRUN_MAX_PROCS)
            return rtm_error_set(RTM_ERR_INVALID_ARG, "%s:%d: host %.*s: listed too often",
                                 l->fname, l->lineno, (int)l->name_len, l->name);
        (*book)[idx].bare++;
    }
    return RTM_OK;
}

/* One line (without its '\n'); adds its host, if any, to the lists. */
static rtm_status_t parse_line(const char *line, size_t len, const char *fname, int lineno,
                               rtrun_host_spec_t **hosts, size_t *nhosts, hf_host_t **book,
                               size_t *book_cap)
{
    hf_line_t l = {.fname = fname, .lineno = lineno};
    const char *p = line, *end, *word;
    size_t word_len;
    int have_slots_kw = 0;
    rtm_status_t status;

    /* a comment runs to the end of the line */
    end = memchr(line, '#', len);
    if (end == NULL)
        end = line + len;
    if (memchr(line, '\0', (size_t)(end - line)) != NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "%s:%d: NUL byte in the line: this is not a text hostfile", fname,
                             lineno);
    word_len = next_word(&p, end, &word);
    if (word_len == 0)
        return RTM_OK; /* blank or comment only */
    status = parse_host_word(word, word_len, &l);
    while (status == RTM_OK && (word_len = next_word(&p, end, &word)) > 0)
        status = parse_keyword(word, word_len, &have_slots_kw, &l);
    if (status != RTM_OK)
        return status;
    return record_host(&l, hosts, nhosts, book, book_cap);
}

rtm_status_t rtrun_hostfile_parse(const char *text, size_t len, const char *fname,
                                  rtrun_host_spec_t **hosts_p, size_t *nhosts_p)
{
    rtrun_host_spec_t *hosts = NULL;
    size_t nhosts = 0, book_cap = 0, pos = 0;
    hf_host_t *book = NULL;
    rtm_status_t status = RTM_OK;
    int lineno = 0;

    if ((text == NULL && len > 0) || fname == NULL || hosts_p == NULL || nhosts_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_hostfile_parse: NULL argument");

    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t line_len = nl ? (size_t)(nl - (text + pos)) : len - pos;

        lineno++;
        status = parse_line(text + pos, line_len, fname, lineno, &hosts, &nhosts, &book,
                            &book_cap);
        if (status != RTM_OK)
            goto err_free_hosts;
        pos += line_len + (nl ? 1 : 0);
    }
    if (nhosts == 0) {
        status = rtm_error_set(RTM_ERR_INVALID_ARG,
                               "%s: no hosts in the file (%d line%s, all blank or comments)",
                               fname, lineno, lineno == 1 ? "" : "s");
        goto err_free_hosts;
    }
    for (size_t i = 0; i < nhosts; i++)
        hosts[i].slots = book[i].given > 0 ? book[i].given + book[i].bare : 0;
    free(book);
    *hosts_p = hosts;
    *nhosts_p = nhosts;
    return RTM_OK;

err_free_hosts:
    free(book);
    rtrun_hosts_free(hosts, nhosts);
    return status;
}

rtm_status_t rtrun_hostfile_read(const char *path, rtrun_host_spec_t **hosts_p,
                                 size_t *nhosts_p)
{
    FILE *f;
    char *text = NULL;
    size_t len = 0, cap = 0;
    rtm_status_t status;
    struct stat st;

    if (path == NULL || hosts_p == NULL || nhosts_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_hostfile_read: NULL argument");
    f = fopen(path, "r");
    if (f == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "cannot open hostfile %s: %s", path,
                             strerror(errno));
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return rtm_error_set(RTM_ERR_INVALID_ARG, "hostfile %s is a directory", path);
    }
    for (;;) {
        size_t n;

        if (len == cap) {
            char *grown;

            if (cap >= HOSTFILE_MAX_BYTES) {
                status = rtm_error_set(RTM_ERR_INVALID_ARG,
                                       "hostfile %s is larger than %u MiB: not a hostfile", path,
                                       HOSTFILE_MAX_BYTES >> 20);
                goto err_free_text;
            }
            cap = cap ? cap * 2 : 4096;
            grown = realloc(text, cap);
            if (grown == NULL) {
                status = rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory reading %s", path);
                goto err_free_text;
            }
            text = grown;
        }
        n = fread(text + len, 1, cap - len, f);
        len += n;
        if (n == 0) {
            if (ferror(f)) {
                status = rtm_error_set(RTM_ERR_INVALID_ARG, "cannot read hostfile %s: %s",
                                       path, strerror(errno));
                goto err_free_text;
            }
            break;
        }
    }
    fclose(f);
    status = rtrun_hostfile_parse(text, len, path, hosts_p, nhosts_p);
    free(text);
    return status;

err_free_text:
    free(text);
    fclose(f);
    return status;
}
