/*
 * rtrun --check: rtm_check (launcher/rtm_check.c) on every host of the
 * job the same options describe (--host, --hostfile, the allocation), each
 * started through the launch agent as rtd would be (ssh by default,
 * "{host}" in the agent replaced by the host's name, else the name
 * appended), this host directly. Each host's table is printed under its
 * name. With two hosts or more, the links are checked next: a job of
 * rtm_linkcheck (launcher/rtm_linkcheck.c), one rank per host, started by
 * this same rtrun with the same hosts and launch agent, measures every pair
 * on the job's transport. The exit code is 1 when a check failed on any
 * host or link, 2 when a host could not be checked at all.
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

/* PROG (rtm_check, rtm_linkcheck) beside this rtrun (same build or install). */
static int beside_path(char *buf, size_t len, const char *prog)
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
    if ((size_t)snprintf(buf, len, "%s/%s", self, prog) >= len)
        return -1;
    return access(buf, X_OK);
}

static int self_path(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);

    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return 0;
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

/* The link check: rtrun --host H1:1,H2:1,... --npernode 1 rtm_linkcheck.
 * Its exit: 0 every link passed, 1 a link failed a check, 2 it could not
 * run (a host unreachable at all: rtrun's own message says which). */
static int run_links(const rtrun_opts_t *opts)
{
    char self[PATH_MAX], prog[PATH_MAX];
    size_t cap = 64, used = 0;
    char *hosts;
    pid_t pid;
    int st;

    if (self_path(self, sizeof(self)) != 0 ||
        beside_path(prog, sizeof(prog), "rtm_linkcheck") != 0) {
        rtrun_say("--check: no rtm_linkcheck beside rtrun (%s): the links are not checked", prog);
        return 2;
    }
    for (size_t i = 0; i < opts->nhosts; i++)
        cap += strlen(opts->hosts[i].name) + 3;
    hosts = malloc(cap);
    if (hosts == NULL) {
        rtrun_say("--check: out of memory for the host list");
        return 2;
    }
    for (size_t i = 0; i < opts->nhosts; i++)
        used += (size_t)snprintf(hosts + used, cap - used, "%s%s:1", i ? "," : "",
                                 opts->hosts[i].name);
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        char *argv[16];
        int a = 0;

        argv[a++] = self;
        argv[a++] = "--host";
        argv[a++] = hosts;
        argv[a++] = "--npernode";
        argv[a++] = "1";
        argv[a++] = "--bind-to";
        argv[a++] = "none";
        if (opts->launch_agent != NULL) {
            argv[a++] = "--launch-agent";
            argv[a++] = (char *)opts->launch_agent;
        }
        argv[a++] = prog;
        argv[a] = NULL;
        execv(self, argv);
        _exit(127);
    }
    free(hosts);
    if (pid < 0 || waitpid(pid, &st, 0) != pid) {
        rtrun_say("--check: cannot start the link check");
        return 2;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) > 1) {
        rtrun_say("--check: the link check did not finish (exit %d): a pair of hosts could "
                  "not connect; its message above names them",
                  WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
        return 2;
    }
    return WEXITSTATUS(st);
}

int rtrun_check_main(const rtrun_opts_t *opts)
{
    char prog[PATH_MAX];
    const char *agent = opts->launch_agent ? opts->launch_agent : "ssh";
    int worst = 0, ranks = opts->npernode > 0 ? opts->npernode : 0;

    if (beside_path(prog, sizeof(prog), "rtm_check") != 0) {
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
    if (opts->nhosts >= 2) {
        int r = run_links(opts);

        worst = r > worst ? r : worst;
    }
    return worst;
}
