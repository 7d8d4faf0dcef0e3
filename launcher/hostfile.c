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
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* FNV-1a of the name: host names are short and the index only needs an
 * even spread, not resistance to chosen inputs (the user writes the file). */
static size_t name_hash(const char *name, size_t len)
{
    uint64_t h = 14695981039346656037ull;

    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
    return (size_t)h;
}

/* The index slot holding name[0..len), or the empty slot where it goes. */
static size_t index_slot(rtrun_host_list_t *list, const char *name, size_t len)
{
    size_t mask = list->index_cap - 1, slot = name_hash(name, len) & mask;

    for (;;) {
        size_t e = list->index[slot];
        const char *have;

        if (e == 0)
            return slot;
        have = list->hosts[e - 1].name;
        list->compares++;
        if (strncmp(have, name, len) == 0 && have[len] == '\0')
            return slot;
        slot = (slot + 1) & mask;
    }
}

/* Room for one more entry and an index at most half full. */
static rtm_status_t host_list_grow(rtrun_host_list_t *list)
{
    if (list->nhosts == list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 16;
        rtrun_host_spec_t *grown = realloc(list->hosts, cap * sizeof(*grown));

        if (grown == NULL)
            return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for the host list");
        list->hosts = grown;
        list->cap = cap;
    }
    if (2 * (list->nhosts + 1) >= list->index_cap) {
        size_t cap = list->index_cap ? list->index_cap * 2 : 64;
        size_t *index = calloc(cap, sizeof(*index)), *old = list->index;

        if (index == NULL)
            return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for the host list");
        list->index = index;
        list->index_cap = cap;
        for (size_t i = 0; i < list->nhosts; i++) {
            const char *name = list->hosts[i].name;

            list->index[index_slot(list, name, strlen(name))] = i + 1;
        }
        free(old);
    }
    return RTM_OK;
}

long rtrun_host_list_find(rtrun_host_list_t *list, const char *name, size_t len)
{
    size_t e;

    if (list == NULL || name == NULL || list->index_cap == 0)
        return -1;
    e = list->index[index_slot(list, name, len)];
    return e == 0 ? -1 : (long)(e - 1);
}

rtm_status_t rtrun_host_list_add(rtrun_host_list_t *list, const char *name, size_t len,
                                 int slots, size_t *idx_p)
{
    rtrun_host_spec_t *h;
    rtm_status_t status;
    size_t slot;
    char *copy;

    if (list == NULL || name == NULL || len == 0 || slots < 0)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_host_list_add: bad argument");
    status = host_list_grow(list);
    if (status != RTM_OK)
        return status;
    slot = index_slot(list, name, len);
    if (list->index[slot] != 0) {
        h = &list->hosts[list->index[slot] - 1];
        if (slots > RTRUN_MAX_PROCS - h->slots)
            return rtm_error_set(RTM_ERR_INVALID_ARG, "host %s: more than %d slots in total",
                                 h->name, RTRUN_MAX_PROCS);
        h->slots += slots;
        if (idx_p != NULL)
            *idx_p = list->index[slot] - 1;
        return RTM_OK;
    }
    copy = strndup(name, len);
    if (copy == NULL)
        return rtm_error_set(RTM_ERR_NO_MEMORY, "out of memory for the host list");
    h = &list->hosts[list->nhosts];
    h->name = copy;
    h->slots = slots;
    list->index[slot] = ++list->nhosts;
    if (idx_p != NULL)
        *idx_p = list->nhosts - 1;
    return RTM_OK;
}

void rtrun_host_list_take(rtrun_host_list_t *list, rtrun_host_spec_t **hosts_p,
                          size_t *nhosts_p)
{
    *hosts_p = list->hosts;
    *nhosts_p = list->nhosts;
    list->hosts = NULL;
    list->nhosts = list->cap = 0;
    rtrun_host_list_free(list);
}

void rtrun_host_list_free(rtrun_host_list_t *list)
{
    if (list == NULL)
        return;
    rtrun_hosts_free(list->hosts, list->nhosts);
    free(list->index);
    memset(list, 0, sizeof(*list));
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
 * host's bookkeeping (book[i] for entry i). */
static rtm_status_t record_host(const hf_line_t *l, rtrun_host_list_t *list, hf_host_t **book,
                                size_t *book_cap)
{
    rtm_status_t status;
    size_t idx;

    status = rtrun_host_list_add(list, l->name, l->name_len, 0, &idx);
    if (status != RTM_OK)
        return status;
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
                               rtrun_host_list_t *list, hf_host_t **book, size_t *book_cap)
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
    return record_host(&l, list, book, book_cap);
}

rtm_status_t rtrun_hostfile_parse(const char *text, size_t len, const char *fname,
                                  rtrun_host_spec_t **hosts_p, size_t *nhosts_p)
{
    rtrun_host_list_t list = {0};
    size_t book_cap = 0, pos = 0;
    hf_host_t *book = NULL;
    rtm_status_t status = RTM_OK;
    int lineno = 0;

    if ((text == NULL && len > 0) || fname == NULL || hosts_p == NULL || nhosts_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_hostfile_parse: NULL argument");

    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t line_len = nl ? (size_t)(nl - (text + pos)) : len - pos;

        lineno++;
        status = parse_line(text + pos, line_len, fname, lineno, &list, &book, &book_cap);
        if (status != RTM_OK)
            goto err_free_hosts;
        pos += line_len + (nl ? 1 : 0);
    }
    if (list.nhosts == 0) {
        status = rtm_error_set(RTM_ERR_INVALID_ARG,
                               "%s: no hosts in the file (%d line%s, all blank or comments)",
                               fname, lineno, lineno == 1 ? "" : "s");
        goto err_free_hosts;
    }
    for (size_t i = 0; i < list.nhosts; i++)
        list.hosts[i].slots = book[i].given > 0 ? book[i].given + book[i].bare : 0;
    free(book);
    rtrun_host_list_take(&list, hosts_p, nhosts_p);
    return RTM_OK;

err_free_hosts:
    free(book);
    rtrun_host_list_free(&list);
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
    int fd;

    if (path == NULL || hosts_p == NULL || nhosts_p == NULL)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "rtrun_hostfile_read: NULL argument");
    /* O_NONBLOCK: opening a FIFO nobody writes to would wait forever;
     * what is not a regular file is refused before anything is read. */
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return rtm_error_set(RTM_ERR_INVALID_ARG, "cannot open hostfile %s: %s", path,
                             strerror(errno));
    if (fstat(fd, &st) != 0) {
        status = rtm_error_set(RTM_ERR_INVALID_ARG, "cannot examine hostfile %s: %s", path,
                               strerror(errno));
        close(fd);
        return status;
    }
    if (!S_ISREG(st.st_mode)) {
        const char *kind = S_ISDIR(st.st_mode)    ? "a directory"
                         : S_ISFIFO(st.st_mode)   ? "a FIFO (named pipe)"
                         : S_ISCHR(st.st_mode)    ? "a character device"
                         : S_ISBLK(st.st_mode)    ? "a block device"
                         : S_ISSOCK(st.st_mode)   ? "a socket"
                                                  : "not a regular file";

        close(fd);
        return rtm_error_set(RTM_ERR_INVALID_ARG,
                             "hostfile %s is %s: give a regular file listing the hosts", path,
                             kind);
    }
    if (fcntl(fd, F_SETFL, 0) != 0 || (f = fdopen(fd, "r")) == NULL) {
        status = rtm_error_set(RTM_ERR_INVALID_ARG, "cannot read hostfile %s: %s", path,
                               strerror(errno));
        close(fd);
        return status;
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
