/*
 * MPI environment: init/finalize, thread levels, versions, timers,
 * MPI_Alloc_mem.
 */
#include "config.h"

#include "mpi_impl.h"
#include "mpi_state.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rtmpi_state rtmpi_state;
static pthread_t main_thread;

static int init_common(const char *fn, int required, int *provided)
{
    rtm_status_t st;
    int rc;

    if (rtmpi_state.initialized || rtmpi_state.finalized)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_OTHER,
                           rtmpi_state.finalized ? "called after MPI_Finalize"
                                                 : "MPI is already initialized");
    st = rtm_init();
    if (st != RTM_OK)
        return rtmpi_error_rtm(MPI_COMM_NULL, fn, st);
    rtm_comm_rank(RTM_COMM_WORLD, &rtmpi_state.world_rank);
    rtm_comm_size(RTM_COMM_WORLD, &rtmpi_state.world_size);
    main_thread = pthread_self();
    /* The runtime serializes nothing itself: SERIALIZED is the most we give. */
    rtmpi_state.thread_level = required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE
                             : required > MPI_THREAD_SERIALIZED ? MPI_THREAD_SERIALIZED
                             : required;
    rtmpi_state.initialized = 1;
    rtmpi_state.live = 1;
    rtmpi_errhandler_init();
    rtmpi_dtype_init();
    rtmpi_op_init();
    rc = rtmpi_comm_init();
    if (rc != MPI_SUCCESS)
        return rtmpi_error(MPI_COMM_NULL, fn, rc, "cannot create MPI_COMM_WORLD/SELF");
    rtmpi_state_init();
    if (provided)
        *provided = rtmpi_state.thread_level;
    return MPI_SUCCESS;
}

int PMPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return init_common(__func__, MPI_THREAD_SINGLE, NULL);
}
RTMPI_WEAK(Init)

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    if (!provided)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "provided is NULL");
    return init_common(__func__, required, provided);
}
RTMPI_WEAK(Init_thread)

int PMPI_Initialized(int *flag)
{
    if (!flag)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "flag is NULL");
    *flag = rtmpi_state.initialized;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Initialized)

int PMPI_Finalized(int *flag)
{
    if (!flag)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "flag is NULL");
    *flag = rtmpi_state.finalized;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Finalized)

int PMPI_Finalize(void)
{
    rtm_status_t st;

    RTMPI_ENTER();
    rtmpi_call_enter(__func__, RTMPI_CALL_NONE, RTMPI_CALL_NONE, MPI_COMM_WORLD);
    /* MPI_COMM_SELF's attributes are deleted first, the last set first,
     * while the whole library still works (MPI 3.1 8.7.1): tools hook
     * finalization there. */
    rtmpi_attrs_finalize_self();
    /* Buffered sends must reach their destination before we leave. */
    rtmpi_bsend_detach_all();
    rtmpi_win_finalize();   /* windows left: freed (collective, like MPI_Win_free) */
    rtmpi_comm_finalize();
    rtmpi_requests_finalize();
    rtmpi_sched_finalize();
    rtmpi_dtype_finalize();
    rtmpi_group_finalize();
    rtmpi_info_finalize();
    rtmpi_attrs_finalize();
    rtmpi_errors_finalize();
    rtmpi_handles_finalize();
    st = rtm_finalize();
    rtmpi_state.finalized = 1;
    rtmpi_state.live = 0;
    if (st != RTM_OK)
        return rtmpi_error_rtm(MPI_COMM_NULL, __func__, st);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Finalize)

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    char msg[256];

    (void)comm;   /* the whole job ends whatever the communicator */
    snprintf(msg, sizeof(msg), "MPI_Abort called by rank %d (%s) with error code %d",
             rtmpi_state.world_rank, rtm_hostname(), errorcode);
    rtm_abort(errorcode, msg);
}
RTMPI_WEAK(Abort)

int PMPI_Query_thread(int *provided)
{
    RTMPI_ENTER();
    if (!provided)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "provided is NULL");
    *provided = rtmpi_state.thread_level;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Query_thread)

int PMPI_Is_thread_main(int *flag)
{
    RTMPI_ENTER();
    if (!flag)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "flag is NULL");
    *flag = pthread_equal(pthread_self(), main_thread) ? 1 : 0;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Is_thread_main)

int PMPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "version or subversion is NULL");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Get_version)

int PMPI_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "version or resultlen is NULL");
    snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "librtmsg %s (MPI %d.%d binding)",
             rtm_version_string(), MPI_VERSION, MPI_SUBVERSION);
    *resultlen = (int)strlen(version);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Get_library_version)

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    if (!name || !resultlen)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "name or resultlen is NULL");
    snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", rtm_hostname());
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Get_processor_name)

int PMPI_Pcontrol(const int level, ...)
{
    (void)level;   /* for profiling tools only */
    return MPI_SUCCESS;
}
RTMPI_WEAK(Pcontrol)

double PMPI_Wtime(void)
{
    return rtm_wtime();
}
RTMPI_WEAK(Wtime)

double PMPI_Wtick(void)
{
    return rtm_wtick();
}
RTMPI_WEAK(Wtick)

/* Memory allocation (MPI 3.1 section 8.2): plain malloc, no info key is used. */
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    (void)info;
    RTMPI_ENTER();
    if (size < 0 || !baseptr)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "invalid size or baseptr");
    void *p = malloc(size ? (size_t)size : 1);
    if (!p)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM, "cannot allocate %ld bytes",
                           (long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Alloc_mem)

int PMPI_Free_mem(void *base)
{
    free(base);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Free_mem)
