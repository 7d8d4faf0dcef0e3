/*
 * A small PMIx client that checks rtrun's PMIx server from the rank side.
 * Usage: pmix_probe MODE [ARGS]
 *   modex              job info + put/commit/fence/get of every peer's key
 *   exit CODE RANK     RANK exits with CODE after a fence; the others wait
 *   kill RANK          RANK SIGKILLs itself after a fence; the others wait
 *   abort CODE RANK    RANK calls PMIx_Abort(CODE); the others wait
 *   nofinalize         PMIx_Init, fence, exit 0 without PMIx_Finalize
 *   shmfile RANK       create /dev/shm/rtm-<nspace>-<rank>, then as "kill RANK"
 *   sleep SECONDS      no PMIx; just sleep
 *   chatter LINES      no PMIx; print lines in small pieces
 */
#include "config.h"

#include "tests/harness.h"

#include <pmix.h>
#include <signal.h>
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
        fprintf(stderr, "usage: pmix_probe modex|exit C R|kill R|abort C R|nofinalize|shmfile R|sleep S|chatter N\n");
        return 2;
    }
    return 0;
}
