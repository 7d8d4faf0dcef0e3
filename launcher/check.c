/*
 * rtrun --check: rtm_check (launcher/rtm_check.c) on every host of the
 * job the same options describe (--host, --hostfile, the allocation), each
 * started through the launch agent as rtd would be (ssh by default,
 * "{host}" in the agent replaced by the host's name, else the name
 * appended), this host directly. Each host's table is printed under its
 * name; the exit code is 1 when a check failed on any host, 2 when a host
 * could not be checked at all.
 */
#include "config.h"

#include "launcher/check.h"
#include "launcher/iof.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* rtm_check beside this rtrun (same build or install). */
static int check_path(char *buf, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    char *slash;

    if (n <= 0)
        return -1;
    self[n] = '\0';
    slash = strrchr(self, '/');
    if (slash == NULL)
        return -1;
    *slash = '\0';
    if ((size_t)snprintf(buf, len, "%s/rtm_check", self) >= len)
        return -1;
    return access(buf, X_OK);
}

/* Single quotes for /bin/sh. */
static void sh_quote(char *out, size_t len, const char *s)
{
    size_t o = 0;

    if (o + 1 < len)
        out[o++] = '\'';
    for (; *s && o + 5 < len; s++) {
        if (*s == '\'') {
            memcpy(out + o, "'\\''", 4);
            o += 4;
        } else {
            out[o++] = *s;
        }
    }
    if (o + 1 < len)
        out[o++] = '\'';
    out[o] = '\0';
}

static int is_this_host(const char *name)
{
    char me[256] = "";

    gethostname(me, sizeof(me) - 1);
    return strcmp(name, "localhost") == 0 || strcmp(name, me) == 0 ||
           (strncmp(name, me, strlen(name)) == 0 && me[strlen(name)] == '.');
}

static int run_one(const char *agent, const char *host, const char *prog, int ranks)
{
    char cmd[2 * PATH_MAX + 4096], qhost[512], qprog[PATH_MAX + 16], tail[PATH_MAX + 600];
    const char *at;
    int st;

    sh_quote(qhost, sizeof(qhost), host != NULL ? host : "");
    sh_quote(qprog, sizeof(qprog), prog);
    if (ranks > 0)
        snprintf(tail, sizeof(tail), "%s%s%s -n %d", qprog, host ? " --name " : "",
                 host ? qhost : "", ranks);
    else
        snprintf(tail, sizeof(tail), "%s%s%s", qprog, host ? " --name " : "", host ? qhost : "");
    if (host == NULL || is_this_host(host)) {
        snprintf(cmd, sizeof(cmd), "%s", tail);
    } else if ((at = strstr(agent, "{host}")) != NULL) {
        snprintf(cmd, sizeof(cmd), "%.*s%s%s %s", (int)(at - agent), agent, host, at + 6, tail);
    } else {
        snprintf(cmd, sizeof(cmd), "%s %s %s", agent, qhost, tail);
    }
    fflush(stdout);
    st = system(cmd);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) > 1) {
        rtrun_say("--check: host %s could not be checked (%s exited %d)", host ? host : "here",
                  cmd, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        return 2;
    }
    return WEXITSTATUS(st);
}

int rtrun_check_main(const rtrun_opts_t *opts)
{
    char prog[PATH_MAX];
    const char *agent = opts->launch_agent ? opts->launch_agent : "ssh";
    int worst = 0, ranks = opts->npernode > 0 ? opts->npernode : 0;

    if (check_path(prog, sizeof(prog)) != 0) {
        rtrun_say("--check: no rtm_check beside rtrun (%s)", prog);
        return 2;
    }
    if (opts->nhosts == 0)
        return run_one(agent, NULL, prog, ranks);
    for (size_t i = 0; i < opts->nhosts; i++) {
        int r = run_one(agent, opts->hosts[i].name, prog,
                        ranks > 0 ? ranks : opts->hosts[i].slots);

        worst = r > worst ? r : worst;
    }
    return worst;
}
