/*
 * Fuzz target: rtrun's command line (launcher/cli.c: -n, --host, -x,
 * --map-by, --bind-to, --timeout, ...) and the job map it leads to
 * (launcher/job.c). The input is
 *   u8 ncores - 1, u16 length of a file text, that text, then argv[1..]
 *   as NUL-separated strings (argv[0] is "rtrun").
 * Every file the parser opens (--hostfile, whatever its name) reads the
 * file text: fopen is wrapped (-Wl,--wrap=fopen), so the target never
 * touches the real file system. The scheduler's variables are unset, so
 * the host list comes from the command line alone.
 */
#include "config.h"

#include "launcher/cli.h"
#include "launcher/hostfile.h"
#include "launcher/job.h"
#include "launcher/launcher_config.h"
#include "common/rtconfig.h"
#include "tests/fuzz/fuzz.h"

#define FZ_MAX_ARGS 64

static const char *file_text;
static size_t file_len;

FILE *__wrap_fopen(const char *path, const char *mode);
FILE *__real_fopen(const char *path, const char *mode);

FILE *__wrap_fopen(const char *path, const char *mode)
{
    (void)path;
    /* fmemopen refuses a zero size: an empty file is /dev/null */
    if (file_len == 0)
        return __real_fopen("/dev/null", mode);
    return fmemopen((void *)(uintptr_t)file_text, file_len, "r");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    static const char *const sched_vars[] = {
        "SLURM_JOB_NODELIST", "SLURM_NODELIST", "SLURM_TASKS_PER_NODE",
        "SLURM_JOB_CPUS_PER_NODE", "SLURM_JOB_ID", "SLURM_JOBID", "PBS_NODEFILE",
        "RTM_LAUNCH_AGENT",
    };

    (void)argc;
    (void)argv;
    for (size_t i = 0; i < sizeof(sched_vars) / sizeof(sched_vars[0]); i++)
        unsetenv(sched_vars[i]);
    rtm_config_register(&launcher_config_table);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in_t in = fz_in(data, size);
    char *args[FZ_MAX_ARGS + 1];
    int argc = 1, ncores = 1 + fz_u8(&in) % 64;
    size_t text_len = fz_u8(&in);
    const uint8_t *text;
    rtrun_opts_t opts;
    rtrun_job_t *job;

    text_len |= (size_t)fz_u8(&in) << 8;
    file_len = fz_bytes(&in, text_len, &text);
    file_text = (const char *)text;
    args[0] = strdup("rtrun");
    while (in.left > 0 && argc < FZ_MAX_ARGS)
        args[argc++] = fz_str(&in);
    args[argc] = NULL;
    for (int i = 0; i < argc; i++)
        if (args[i] == NULL)
            goto out;

    if (rtrun_cli_parse(argc, args, &opts) != RTM_OK)
        goto out;
    FZ_CHECK(opts.nprocs >= 0 && opts.nprocs <= RTRUN_MAX_PROCS);
    for (size_t i = 0; i < opts.nhosts; i++) {
        FZ_CHECK(rtrun_host_name_ok(opts.hosts[i].name, strlen(opts.hosts[i].name)));
        FZ_CHECK(opts.hosts[i].slots >= 0 && opts.hosts[i].slots <= RTRUN_MAX_PROCS);
    }
    if (opts.action == RTRUN_ACTION_RUN) {
        FZ_CHECK(opts.prog_argc >= 1 && opts.prog_argv >= args + 1 &&
                 opts.prog_argv + opts.prog_argc == args + argc);
        if (rtrun_job_map(&opts, "fuzzhost", ncores, &job) == RTM_OK) {
            int placed = 0;

            FZ_CHECK(job->nprocs >= 1 && job->nhosts >= 1);
            for (int h = 0; h < job->nhosts; h++) {
                FZ_CHECK(job->hosts[h].nranks >= 1);
                placed += job->hosts[h].nranks;
            }
            FZ_CHECK(placed == job->nprocs);
            for (int r = 0; r < job->nprocs; r++)
                FZ_CHECK(job->ranks[r].node_id >= 0 && job->ranks[r].node_id < job->nhosts &&
                         job->ranks[r].local_rank >= 0 &&
                         job->ranks[r].local_rank < job->hosts[job->ranks[r].node_id].nranks);
            rtrun_job_free(job);
        }
    }
    rtrun_cli_free(&opts);
out:
    for (int i = 0; i < argc; i++)
        free(args[i]);
    return 0;
}
