/*
 * Hostfiles (--hostfile/--machinefile) in the two common formats, and the
 * host-list helpers shared with the allocation readers (alloc.h).
 *
 * One host per line, in either format, mixed freely:
 *   node01 slots=4            Open MPI; "max_slots=N" / "max-slots=N" is
 *   node01 slots=4 max_slots=8    accepted and ignored (rtrun has no cap
 *                                 other than --oversubscribe)
 *   node02:4                  MPICH
 *   node03                    no count: "slots not given", which means the
 *                             host's cores, as in Open MPI (rtrun counts the
 *                             cores of the host it runs on: say slots=N for a
 *                             host that has a different number)
 * '#' starts a comment anywhere on a line; blank lines are skipped; CR and
 * tabs count as spaces. A host listed on several lines gets the sum of its
 * counts, as in Open MPI and MPICH (a bare line for a host that has counted
 * lines too adds one slot); hosts keep the order of their first line.
 * Errors name the file and the line: "hosts.txt:3: slots=abc: expected a
 * positive integer".
 */
#ifndef RTM_LAUNCHER_HOSTFILE_H
#define RTM_LAUNCHER_HOSTFILE_H

#include "launcher/cli.h"
#include "rtmsg.h"

#include <stddef.h>

/* Longest host name accepted (rtrun_host_t.name holds it with its NUL). */
#define RTRUN_HOST_NAME_MAX 255

/* Parse the text of a hostfile; `fname` is only used in messages. On
 * success *hosts_p and *nhosts_p hold at least one host (free with
 * rtrun_hosts_free); an empty file (or only comments) is an error. */
rtm_status_t rtrun_hostfile_parse(const char *text, size_t len, const char *fname,
                                  rtrun_host_spec_t **hosts_p, size_t *nhosts_p);

/* Read and parse the file at `path` (errors name the path and strerror). */
rtm_status_t rtrun_hostfile_read(const char *path, rtrun_host_spec_t **hosts_p,
                                 size_t *nhosts_p);

/* Whether name[0..len) is a usable host name: letters, digits, '.', '-',
 * '_', at most RTRUN_HOST_NAME_MAX bytes, not starting with '-' or '.'. */
int rtrun_host_name_ok(const char *name, size_t len);

/* A host list being built, with a hash index of its names: finding the
 * entry of a name costs the same whatever the list's length, so reading
 * 200,000 hosts takes 10 times what 20,000 take (before, 100 times).
 * Zero-initialised is empty. */
typedef struct rtrun_host_list {
    rtrun_host_spec_t *hosts;
    size_t             nhosts;
    size_t             cap;          /* entries hosts has room for */
    size_t            *index;        /* open addressing: entry + 1, 0 = empty slot */
    size_t             index_cap;    /* a power of two, > 2 * nhosts */
    unsigned long      compares;     /* names compared so far: the tests count the work */
} rtrun_host_list_t;

/* Append name[0..len) with `slots` (0: not given), or add `slots` to the
 * entry of the same name already there; *idx_p (may be NULL): the entry's
 * index. */
rtm_status_t rtrun_host_list_add(rtrun_host_list_t *list, const char *name, size_t len,
                                 int slots, size_t *idx_p);
/* Hand the entries over (the list is then empty). */
void rtrun_host_list_take(rtrun_host_list_t *list, rtrun_host_spec_t **hosts_p,
                          size_t *nhosts_p);
void rtrun_host_list_free(rtrun_host_list_t *list);
/* The index of name[0..len) in the list, -1 if absent (compares counted). */
long rtrun_host_list_find(rtrun_host_list_t *list, const char *name, size_t len);

void rtrun_hosts_free(rtrun_host_spec_t *hosts, size_t nhosts);

#endif
