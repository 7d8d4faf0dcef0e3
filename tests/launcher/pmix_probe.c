/*
 * A small PMIx client that checks rtrun's PMIx server from the rank side.
 * Usage: pmix_probe MODE [ARGS]
 *   modex              job info + put/commit/fence/get of every peer's key
 *   exit CODE RANK     RANK exits with CODE after a fence; the others wait
 *   kill RANK          RANK SIGKILLs itself after a fence; the others wait
 *   abort CODE RANK    RANK calls PMIx_Abort(CODE); the others wait
 *   exitfirst CODE RANK RANK exits with CODE after a fence; the others exit
 *                      99 from their next fence (failed, or completed
 *                      without RANK)
 *   cutfirst CODE RANK RANK closes its PMIx connection after a fence, waits
 *                      until every other rank was reaped, then exits with
 *                      CODE; the others exit 99 from their next fence
 *                      (the failure RANK caused, reaped before its cause)
 *   finalexit CODE RANK every rank finalizes; RANK then exits with CODE, the
 *                      others print "rank N finished" once RANK was reaped
 *                      and exit 0 (a failure after finalize: the others are
 *                      let finish, their output not cut)
 *   nofinalize         PMIx_Init, fence, exit 0 without PMIx_Finalize
 *   shmfile RANK       create /dev/shm/rtm-<nspace>-<rank>, then as "kill RANK"
 *   sleep SECONDS      no PMIx; just sleep
 *   chatter LINES      no PMIx; print lines in small pieces
 */
#include "config.h"

#include "tests/harness.h"

#include <pmix.h>
#include <errno.h>
#include <signal.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

static pmix_proc_t me;

/* A failed check exits 99, not the harness's 1: the drivers expect exit
 * codes such as 1 (nofinalize, abort 256) from rtrun, which a probe that
 * failed a check must not be mistaken for. */
static void probe_fatal(void)
{
    exit(99);
}

static void probe_init(void)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);

    CHECK(rc == PMIX_SUCCESS, "PMIx_Init: %s", PMIx_Error_string(rc));
    th_rank = (int)me.rank;
}

static void probe_fence(void)
{
    pmix_info_t info;
    bool collect = true;
    pmix_status_t rc;

    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    CHECK(rc == PMIX_SUCCESS, "PMIx_Fence: %s", PMIx_Error_string(rc));
}

static pmix_value_t *get_key(pmix_rank_t rank, const char *key)
{
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    pmix_status_t rc;

    PMIX_LOAD_PROCID(&proc, me.nspace, rank);
    rc = PMIx_Get(&proc, key, NULL, 0, &val);
    CHECK(rc == PMIX_SUCCESS && val != NULL, "PMIx_Get(rank %u, %s): %s", rank, key,
          PMIx_Error_string(rc));
    return val;
}

static uint32_t get_u32(pmix_rank_t rank, const char *key)
{
    pmix_value_t *val = get_key(rank, key);
    uint32_t v;

    CHECK(val->type == PMIX_UINT32, "%s has type %d, expected uint32", key, (int)val->type);
    v = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    return v;
}

static uint16_t get_u16(pmix_rank_t rank, const char *key)
{
    pmix_value_t *val = get_key(rank, key);
    uint16_t v;

    CHECK(val->type == PMIX_UINT16, "%s has type %d, expected uint16", key, (int)val->type);
    v = val->data.uint16;
    PMIX_VALUE_RELEASE(val);
    return v;
}

static void mode_modex(void)
{
    char key[64], expect[64], host[256];
    pmix_value_t value, *val;
    uint32_t size, local_size;
    pmix_status_t rc;

    probe_init();
    size = get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
    CHECK(me.rank < size, "rank %u not below job size %u", me.rank, size);
    CHECK(get_u32(PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE) == size, "univ size != job size");
    local_size = get_u32(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE);
    CHECK(local_size == size, "local size %u != job size %u", local_size, size);
    CHECK(get_u16(me.rank, PMIX_LOCAL_RANK) == me.rank, "local rank != rank");
    CHECK(get_u16(me.rank, PMIX_NODE_RANK) == me.rank, "node rank != rank");
    val = get_key(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS);
    CHECK(val->type == PMIX_STRING, "local peers not a string");
    {
        char peers[4096] = "";
        for (uint32_t r = 0; r < size; r++)
            snprintf(peers + strlen(peers), sizeof(peers) - strlen(peers), "%s%u",
                     r ? "," : "", r);
        CHECK(strcmp(val->data.string, peers) == 0, "local peers \"%s\", expected \"%s\"",
              val->data.string, peers);
    }
    PMIX_VALUE_RELEASE(val);
    val = get_key(me.rank, PMIX_HOSTNAME);
    CHECK(val->type == PMIX_STRING, "hostname not a string");
    gethostname(host, sizeof(host));
    CHECK(strcmp(val->data.string, host) == 0, "hostname %s, expected %s", val->data.string,
          host);
    PMIX_VALUE_RELEASE(val);
    CHECK(getenv("PMIX_NAMESPACE") && strcmp(getenv("PMIX_NAMESPACE"), me.nspace) == 0,
          "PMIX_NAMESPACE env does not match");

    snprintf(expect, sizeof(expect), "value-of-rank-%u", me.rank);
    PMIX_VALUE_LOAD(&value, expect, PMIX_STRING);
    rc = PMIx_Put(PMIX_GLOBAL, "rtm.test.key", &value);
    PMIX_VALUE_DESTRUCT(&value);
    CHECK(rc == PMIX_SUCCESS, "PMIx_Put: %s", PMIx_Error_string(rc));
    rc = PMIx_Commit();
    CHECK(rc == PMIX_SUCCESS, "PMIx_Commit: %s", PMIx_Error_string(rc));
    probe_fence();
    for (uint32_t r = 0; r < size; r++) {
        snprintf(expect, sizeof(expect), "value-of-rank-%u", r);
        snprintf(key, sizeof(key), "rtm.test.key");
        val = get_key(r, key);
        CHECK(val->type == PMIX_STRING && strcmp(val->data.string, expect) == 0,
              "rank %u's key: wrong value", r);
        PMIX_VALUE_RELEASE(val);
    }
    probe_fence();
    printf("rank %u of %u: modex ok (nspace %s)\n", me.rank, size, me.nspace);
    fflush(stdout);
    rc = PMIx_Finalize(NULL, 0);
    CHECK(rc == PMIX_SUCCESS, "PMIx_Finalize: %s", PMIx_Error_string(rc));
}

/* The ranks that do not fail wait here until rtrun kills them. */
static void wait_forever(void)
{
    probe_fence();
    for (;;)
        pause();
}

/* Drop this rank's connection to its PMIx server as a death would, but
 * stay alive: shut down the socket connected to the server's port (its
 * URI, "nspace.rank;tcp4://127.0.0.1:PORT", is in the environment). */
static void cut_pmix_connection(void)
{
    const char *uri = getenv("PMIX_SERVER_URI41");
    const char *colon;
    int port, cut = 0;

    if (uri == NULL)
        uri = getenv("PMIX_SERVER_URI4");
    colon = uri != NULL ? strrchr(uri, ':') : NULL;
    CHECK(colon != NULL && strstr(uri, "tcp") != NULL, "no tcp server URI in the environment");
    port = atoi(colon + 1);
    for (int fd = 3; fd < 1024; fd++) {
        struct sockaddr_storage ss;
        socklen_t len = sizeof(ss);
        struct stat st;
        int peer_port = -1;

        if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode) ||
            getpeername(fd, (struct sockaddr *)&ss, &len) != 0)
            continue;
        if (ss.ss_family == AF_INET)
            peer_port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        else if (ss.ss_family == AF_INET6)
            peer_port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
        if (peer_port == port)
            cut += shutdown(fd, SHUT_RDWR) == 0;
    }
    CHECK(cut > 0, "no connection to the PMIx server (%s) found", uri);
}

/* RANK outlives the connection it cut until the launcher has reaped every
 * other rank: its own exit is reaped last. */
/* Every rank's pid, for the modes whose ranks wait for another's end:
 * published, then fenced so every rank can read every pid. */
static void publish_pid(void)
{
    pmix_value_t value;
    pmix_status_t rc;

    PMIX_VALUE_LOAD(&value, &(uint32_t){(uint32_t)getpid()}, PMIX_UINT32);
    rc = PMIx_Put(PMIX_GLOBAL, "rtm.test.pid", &value);
    PMIX_VALUE_DESTRUCT(&value);
    CHECK(rc == PMIX_SUCCESS && PMIx_Commit() == PMIX_SUCCESS, "PMIx_Put/Commit: %s",
          PMIx_Error_string(rc));
    probe_fence();
}

static pid_t peer_pid(pmix_rank_t rank)
{
    pmix_value_t *val = get_key(rank, "rtm.test.pid");
    pid_t pid;

    CHECK(val->type == PMIX_UINT32, "rank %u's pid has type %d", rank, (int)val->type);
    pid = (pid_t)val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    return pid;
}

static void mode_cutfirst(int code, pmix_rank_t cutter)
{
    uint32_t size;
    pid_t *pids;

    probe_init();
    size = get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
    publish_pid();
    if (me.rank != cutter) {
        /* Fails when the server lost the cutter during this fence; or, if
         * it lost it before, completes without it: a failure either way. */
        probe_fence();
        CHECK(0, "PMIx_Fence completed without rank %u", cutter);
    }
    pids = calloc(size, sizeof(*pids));
    CHECK(pids != NULL, "out of memory");
    for (uint32_t r = 0; r < size; r++) {
        if (r == cutter)
            continue;
        pids[r] = peer_pid(r);
    }
    cut_pmix_connection();
    for (uint32_t r = 0; r < size; r++) {
        struct timespec pause_ts = {0, 10000000};

        /* A zombie still answers kill(pid, 0); a reaped rank does not. */
        while (r != cutter && (kill(pids[r], 0) == 0 || errno != ESRCH))
            nanosleep(&pause_ts, NULL);
    }
    free(pids);
    exit(code);
}

static void mode_finalexit(int code, pmix_rank_t quitter)
{
    struct timespec pause_ts = {0, 1000000};
    pid_t pid = 0;
    pmix_status_t rc;

    probe_init();
    publish_pid();
    if (me.rank != quitter)
        pid = peer_pid(quitter);
    probe_fence();
    rc = PMIx_Finalize(NULL, 0);
    CHECK(rc == PMIX_SUCCESS, "PMIx_Finalize: %s", PMIx_Error_string(rc));
    if (me.rank == quitter)
        exit(code);
    /* A zombie still answers kill(pid, 0); a reaped rank does not. */
    while (kill(pid, 0) == 0 || errno != ESRCH)
        nanosleep(&pause_ts, NULL);
    printf("rank %u finished\n", me.rank);
    fflush(stdout);
    exit(0);
}

static void sanitize(const char *in, char *out, size_t len)
{
    size_t i;

    for (i = 0; in[i] && i + 1 < len; i++)
        out[i] = (isalnum((unsigned char)in[i]) || strchr("._-", in[i])) ? in[i] : '_';
    out[i] = '\0';
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    th_name = "pmix_probe";
    th_fatal_hook = probe_fatal;
    if (strcmp(mode, "modex") == 0) {
        mode_modex();
    } else if (strcmp(mode, "exit") == 0 && argc == 4) {
        probe_init();
        probe_fence();
        if (me.rank == (pmix_rank_t)atoi(argv[3]))
            exit(atoi(argv[2]));
        wait_forever();
    } else if ((strcmp(mode, "kill") == 0 || strcmp(mode, "shmfile") == 0) && argc == 3) {
        if (strcmp(mode, "shmfile") == 0) {
            char name[512], ns[300];
            int fd;

            sanitize(getenv("PMIX_NAMESPACE") ? getenv("PMIX_NAMESPACE") : "none", ns,
                     sizeof(ns));
            snprintf(name, sizeof(name), "/dev/shm/rtm-%s-%s", ns,
                     getenv("PMIX_RANK") ? getenv("PMIX_RANK") : "x");
            fd = open(name, O_CREAT | O_RDWR, 0600);
            CHECK(fd >= 0, "cannot create %s", name);
            close(fd);
            printf("created %s\n", name);
            fflush(stdout);
        }
        probe_init();
        probe_fence();
        if (me.rank == (pmix_rank_t)atoi(argv[2]))
            raise(SIGKILL);
        wait_forever();
    } else if (strcmp(mode, "abort") == 0 && argc == 4) {
        probe_init();
        probe_fence();
        if (me.rank == (pmix_rank_t)atoi(argv[3])) {
            PMIx_Abort(atoi(argv[2]), "probe abort: something went wrong", NULL, 0);
            for (;;)
                pause();
        }
        wait_forever();
    } else if (strcmp(mode, "exitfirst") == 0 && argc == 4) {
        probe_init();
        probe_fence();
        if (me.rank == (pmix_rank_t)atoi(argv[3]))
            exit(atoi(argv[2]));
        probe_fence();
        CHECK(0, "PMIx_Fence completed without rank %s", argv[3]);
    } else if (strcmp(mode, "finalexit") == 0 && argc == 4) {
        mode_finalexit(atoi(argv[2]), (pmix_rank_t)atoi(argv[3]));
    } else if (strcmp(mode, "cutfirst") == 0 && argc == 4) {
        mode_cutfirst(atoi(argv[2]), (pmix_rank_t)atoi(argv[3]));
    } else if (strcmp(mode, "nofinalize") == 0) {
        probe_init();
        probe_fence();
        exit(0);
    } else if (strcmp(mode, "sleep") == 0 && argc == 3) {
        sleep((unsigned)atoi(argv[2]));
    } else if (strcmp(mode, "chatter") == 0 && argc == 3) {
        const char *rank = getenv("PMIX_RANK") ? getenv("PMIX_RANK") : "?";
        int lines = atoi(argv[2]);
        struct timespec pause_ts = {0, 200000};

        for (int i = 0; i < lines; i++) {
            char piece[64];
            int n;

            /* A line in three writes, with a pause inside it: only rtrun's
             * line buffering keeps the lines of different ranks whole. */
            n = snprintf(piece, sizeof(piece), "rank %s line %d ", rank, i);
            (void)!write(STDOUT_FILENO, piece, (size_t)n);
            nanosleep(&pause_ts, NULL);
            (void)!write(STDOUT_FILENO, "aaaaaaaaaaaaaaaaaaaa", 20);
            nanosleep(&pause_ts, NULL);
            (void)!write(STDOUT_FILENO, " end\n", 5);
        }
        (void)!write(STDOUT_FILENO, "partial-", 8);
        (void)!write(STDOUT_FILENO, rank, strlen(rank));
    } else {
        fprintf(stderr, "usage: pmix_probe modex|exit C R|kill R|abort C R|exitfirst C R|cutfirst C R|finalexit C R|nofinalize|shmfile R|sleep S|chatter N\n");
        return 2;
    }
    return 0;
}
