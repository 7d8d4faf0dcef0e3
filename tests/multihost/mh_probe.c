/*
 * A PMIx client for the multi-host tests: checks what the rtd daemons
 * serve across hosts. Usage: mh_probe MODE
 *   fence    put a key, fence with PMIX_COLLECT_DATA, read every peer's key
 *            and hostname; checks the job and local sizes
 *   dmodex   put a key, no fence: read the next and the previous rank's key
 *            (PMIx asks the owning host's rtd: direct modex), twice over
 *   nocollect  two fences without data collection, then a collecting one
 * Prints one "mh_probe rank R on HOST: ok" line per rank on success; a
 * failed check prints a FAIL line (tests/harness.h) and exits 1.
 */
#include "config.h"

#include "tests/harness.h"

#include <pmix.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pmix_proc_t me;


static uint32_t get_u32(pmix_rank_t rank, const char *key)
{
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    uint32_t v = 0;

    PMIX_LOAD_PROCID(&proc, me.nspace, rank);
    rc = PMIx_Get(&proc, key, NULL, 0, &val);
    CHECK(rc == PMIX_SUCCESS, "PMIx_Get(%s) failed: %s", key, PMIx_Error_string(rc));
    if (val->type == PMIX_UINT32)
        v = val->data.uint32;
    else if (val->type == PMIX_UINT16)
        v = val->data.uint16;
    else
        CHECK(0, "%s has type %s", key, PMIx_Data_type_string(val->type));
    PMIX_VALUE_RELEASE(val);
    return v;
}

static void put_key(void)
{
    pmix_value_t val;
    char text[64];
    pmix_status_t rc;

    snprintf(text, sizeof(text), "value-of-rank-%u", me.rank);
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_STRING;
    val.data.string = text;
    rc = PMIx_Put(PMIX_GLOBAL, "mh.key", &val);
    CHECK(rc == PMIX_SUCCESS, "PMIx_Put failed: %s", PMIx_Error_string(rc));
    rc = PMIx_Commit();
    CHECK(rc == PMIX_SUCCESS, "PMIx_Commit failed: %s", PMIx_Error_string(rc));
}

static void check_key(pmix_rank_t peer)
{
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    char want[64];
    pmix_status_t rc;

    snprintf(want, sizeof(want), "value-of-rank-%u", peer);
    PMIX_LOAD_PROCID(&proc, me.nspace, peer);
    rc = PMIx_Get(&proc, "mh.key", NULL, 0, &val);
    CHECK(rc == PMIX_SUCCESS, "PMIx_Get(mh.key of rank %u) failed: %s", peer,
          PMIx_Error_string(rc));
    CHECK(val->type == PMIX_STRING && strcmp(val->data.string, want) == 0,
          "rank %u's key is wrong", peer);
    PMIX_VALUE_RELEASE(val);
}

static void fence(int collect)
{
    pmix_info_t info;
    bool flag = collect != 0;
    pmix_status_t rc;

    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    CHECK(rc == PMIX_SUCCESS, "PMIx_Fence failed: %s", PMIx_Error_string(rc));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "fence";
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    char host[256] = "?";
    uint32_t size, local;
    pmix_status_t rc;

    th_name = "mh_probe";
    rc = PMIx_Init(&me, NULL, 0);
    CHECK(rc == PMIX_SUCCESS, "PMIx_Init failed: %s", PMIx_Error_string(rc));
    th_rank = (int)me.rank;
    size = get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
    local = get_u32(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE);
    CHECK(local >= 1 && local <= size, "local size %u, job size %u", local, size);
    PMIX_LOAD_PROCID(&proc, me.nspace, me.rank);
    if (PMIx_Get(&proc, PMIX_HOSTNAME, NULL, 0, &val) == PMIX_SUCCESS) {
        if (val->type == PMIX_STRING)
            snprintf(host, sizeof(host), "%s", val->data.string);
        PMIX_VALUE_RELEASE(val);
    }

    if (strcmp(mode, "fence") == 0) {
        put_key();
        fence(1);
        for (pmix_rank_t r = 0; r < size; r++)
            check_key(r);
    } else if (strcmp(mode, "dmodex") == 0) {
        put_key();
        for (int round = 0; round < 2; round++) {
            check_key((me.rank + 1) % size);
            check_key((me.rank + size - 1) % size);
        }
        fence(0); /* nobody leaves while a peer may still ask for its data */
    } else if (strcmp(mode, "nocollect") == 0) {
        fence(0);
        fence(0);
        put_key();
        fence(1);
        for (pmix_rank_t r = 0; r < size; r++)
            check_key(r);
    } else {
        CHECK(0, "unknown mode %s", mode);
    }
    printf("mh_probe rank %u on %s: ok (job size %u, local size %u)\n", me.rank, host, size,
           local);
    fflush(stdout);
    rc = PMIx_Finalize(NULL, 0);
    CHECK(rc == PMIX_SUCCESS, "PMIx_Finalize failed: %s", PMIx_Error_string(rc));
    return 0;
}
