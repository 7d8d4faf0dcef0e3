/*
 * Unit test of a rank's environment and of what execve would refuse:
 *  - rtrun_env_build: -x VAR=VALUE with a 100 kB value is kept whole (no
 *    limit of our own: it used to fail above ~64 kB with "out of memory"),
 *    -x VAR takes rtrun's value, a repeated name replaces the earlier one;
 *  - rtrun_spawn refuses before forking, with a message that says why, an
 *    environment larger than sysconf(_SC_ARG_MAX) and one variable longer
 *    than the kernel's per-string limit; a 100 kB variable starts fine.
 */
#include "config.h"

#include "launcher/spawn.h"
#include "tests/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *filled(const char *name, size_t value_len)
{
    char *s = malloc(strlen(name) + value_len + 2);

    CHECK(s != NULL, "out of memory");
    sprintf(s, "%s=", name);
    memset(s + strlen(name) + 1, 'v', value_len);
    s[strlen(name) + 1 + value_len] = '\0';
    return s;
}

static const char *env_get(char **env, const char *name)
{
    size_t n = strlen(name);

    for (char **e = env; *e != NULL; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

/* rtrun_spawn of /bin/true with envp: its status, and the child reaped. */
static rtm_status_t spawn_true(char **envp, int *exit_p)
{
    char *argv[] = {"true", NULL};
    rtrun_spawn_req_t req = {.rank = 5, .path = "/bin/true", .argv = argv, .envp = envp};
    rtrun_spawn_fds_t fds;
    rtm_status_t status;
    pid_t pid;
    int ws;

    status = rtrun_spawn(&req, &pid, &fds);
    if (status != RTM_OK)
        return status;
    close(fds.stdout_r);
    close(fds.stderr_r);
    CHECK(waitpid(pid, &ws, 0) == pid, "waitpid");
    *exit_p = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    return RTM_OK;
}

int main(void)
{
    char *vars[3], **env = NULL, *one[2] = {NULL, NULL};
    long arg_max = sysconf(_SC_ARG_MAX);
    const char *v;
    int code = -1;

    th_name = "test_spawn";
    vars[0] = filled("RTMTEST_BIG", 100000);
    vars[1] = "RTMTEST_FROM_RTRUN";
    vars[2] = "RTMTEST_BIG=short";
    setenv("RTMTEST_FROM_RTRUN", "rtrun's value", 1);
    CHECK(rtrun_env_build(vars, 1, &env) == RTM_OK, "100 kB -x: %s", rtm_last_error());
    v = env_get(env, "RTMTEST_BIG");
    EXPECT(v != NULL && strlen(v) == 100000, "100 kB value: got %zu bytes", v ? strlen(v) : 0);
    EXPECT(spawn_true(env, &code) == RTM_OK && code == 0, "a 100 kB variable: %s, exit %d",
           rtm_last_error(), code);
    rtrun_env_free(env);
    CHECK(rtrun_env_build(vars, 3, &env) == RTM_OK, "three -x: %s", rtm_last_error());
    v = env_get(env, "RTMTEST_BIG");
    EXPECT(v != NULL && strcmp(v, "short") == 0, "the later -x RTMTEST_BIG=short wins");
    v = env_get(env, "RTMTEST_FROM_RTRUN");
    EXPECT(v != NULL && strcmp(v, "rtrun's value") == 0, "-x VAR forwards rtrun's value");
    rtrun_env_free(env);
    free(vars[0]);

    /* one string above the kernel's limit for one string (128 KiB) */
    one[0] = filled("RTMTEST_HUGE", 200000);
    EXPECT(spawn_true(one, &code) == RTM_ERR_INVALID_ARG &&
           strstr(rtm_last_error(), "rank 5") && strstr(rtm_last_error(), "RTMTEST_HUGE") &&
           strstr(rtm_last_error(), "E2BIG"),
           "a 200 kB variable: expected a refusal naming it, got \"%s\"", rtm_last_error());
    free(one[0]);

    /* in all, more than ARG_MAX: strings of 100 kB each */
    if (arg_max > 0) {
        size_t n = (size_t)arg_max / 100000 + 2;
        char **big = calloc(n + 1, sizeof(*big));

        CHECK(big != NULL, "out of memory");
        for (size_t i = 0; i < n; i++) {
            char name[32];

            snprintf(name, sizeof(name), "RTMTEST_PART%zu", i);
            big[i] = filled(name, 100000);
        }
        EXPECT(spawn_true(big, &code) == RTM_ERR_INVALID_ARG &&
               strstr(rtm_last_error(), "rank 5") && strstr(rtm_last_error(), "ARG_MAX"),
               "%zu x 100 kB (ARG_MAX %ld): expected a refusal naming ARG_MAX, got \"%s\"", n,
               arg_max, rtm_last_error());
        for (size_t i = 0; i < n; i++)
            free(big[i]);
        free(big);
    }
    TH_RETURN();
}
