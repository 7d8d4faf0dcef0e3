/*
 * Fuzz target: the job description a daemon gets in the tree's JOB message
 * (launcher/rtd_jobdesc.c), the payload bytes as its parent sent them. What
 * unpacks is a consistent job (every rank on a host of the job, argv and
 * the environment NULL-terminated) and packs back to a description that
 * unpacks to the same job.
 */
#include "config.h"

#include "launcher/rtd_jobdesc.h"
#include "tests/fuzz/fuzz.h"

static void check_desc(const rtd_jobdesc_t *d)
{
    const rtrun_job_t *job = d->job;

    FZ_CHECK(job != NULL && job->nprocs >= 1 && job->nhosts >= 1 && d->fanout >= 1);
    for (int r = 0; r < job->nprocs; r++)
        FZ_CHECK(job->ranks[r].node_id >= 0 && job->ranks[r].node_id < job->nhosts);
    FZ_CHECK(d->prog_argc >= 1 && d->prog_argv != NULL && d->prog_argv[0] != NULL &&
             d->prog_argv[d->prog_argc] == NULL);
    FZ_CHECK(d->nenv == 0 || (d->env != NULL && d->env[d->nenv] == NULL));
}

static int same_str(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtd_jobdesc_t d, again;
    char *buf;
    size_t len;

    if (rtd_jobdesc_unpack((const char *)data, size, &d) != RTM_OK)
        return 0;
    check_desc(&d);
    /* NULL entries of argv and env (a -1 length) do not pack: only what a
     * real rtrun packs is compared */
    for (int i = 0; i < d.prog_argc; i++)
        if (d.prog_argv[i] == NULL)
            goto out;
    for (size_t i = 0; i < d.nenv; i++)
        if (d.env[i] == NULL)
            goto out;
    FZ_CHECK(rtd_jobdesc_pack(&d, &buf, &len) == RTM_OK);
    FZ_CHECK(rtd_jobdesc_unpack(buf, len, &again) == RTM_OK);
    check_desc(&again);
    FZ_CHECK(again.job->nprocs == d.job->nprocs && again.job->nhosts == d.job->nhosts &&
             again.prog_argc == d.prog_argc && again.nenv == d.nenv &&
             same_str(again.agent, d.agent) && same_str(again.cwd, d.cwd) &&
             strcmp(again.job->nspace, d.job->nspace) == 0);
    for (int i = 0; i < d.prog_argc; i++)
        FZ_CHECK(same_str(again.prog_argv[i], d.prog_argv[i]));
    for (int r = 0; r < d.job->nprocs; r++)
        FZ_CHECK(again.job->ranks[r].node_id == d.job->ranks[r].node_id);
    rtd_jobdesc_free(&again);
    free(buf);
out:
    rtd_jobdesc_free(&d);
    return 0;
}
