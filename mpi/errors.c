/*
 * MPI error classes, strings and error handlers. An error is raised once,
 * by the function that detects it, on the communicator it concerns; the
 * default handler (MPI_ERRORS_ARE_FATAL) prints one line naming the rank,
 * host, MPI function and error, then ends the job through rtm_abort.
 */
#include "config.h"

#include "mpi_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const class_strings[MPI_ERR_LASTCODE + 1] = {
    [MPI_SUCCESS] = "MPI_SUCCESS: no error",
    [MPI_ERR_BUFFER] = "MPI_ERR_BUFFER: invalid buffer pointer",
    [MPI_ERR_COUNT] = "MPI_ERR_COUNT: invalid count argument",
    [MPI_ERR_TYPE] = "MPI_ERR_TYPE: invalid datatype",
    [MPI_ERR_TAG] = "MPI_ERR_TAG: invalid tag",
    [MPI_ERR_COMM] = "MPI_ERR_COMM: invalid communicator",
    [MPI_ERR_RANK] = "MPI_ERR_RANK: invalid rank",
    [MPI_ERR_REQUEST] = "MPI_ERR_REQUEST: invalid request",
    [MPI_ERR_ROOT] = "MPI_ERR_ROOT: invalid root",
    [MPI_ERR_GROUP] = "MPI_ERR_GROUP: invalid group",
    [MPI_ERR_OP] = "MPI_ERR_OP: invalid reduce operation",
    [MPI_ERR_TOPOLOGY] = "MPI_ERR_TOPOLOGY: invalid communicator topology",
    [MPI_ERR_DIMS] = "MPI_ERR_DIMS: invalid dimension argument",
    [MPI_ERR_ARG] = "MPI_ERR_ARG: invalid argument",
    [MPI_ERR_UNKNOWN] = "MPI_ERR_UNKNOWN: unknown error",
    [MPI_ERR_TRUNCATE] = "MPI_ERR_TRUNCATE: message truncated",
    [MPI_ERR_OTHER] = "MPI_ERR_OTHER: known error not in this list",
    [MPI_ERR_INTERN] = "MPI_ERR_INTERN: internal error",
    [MPI_ERR_IN_STATUS] = "MPI_ERR_IN_STATUS: error code is in status",
    [MPI_ERR_PENDING] = "MPI_ERR_PENDING: pending request",
    [MPI_ERR_ACCESS] = "MPI_ERR_ACCESS: permission denied",
    [MPI_ERR_AMODE] = "MPI_ERR_AMODE: invalid access mode",
    [MPI_ERR_ASSERT] = "MPI_ERR_ASSERT: invalid assert argument",
    [MPI_ERR_BAD_FILE] = "MPI_ERR_BAD_FILE: invalid file name",
    [MPI_ERR_BASE] = "MPI_ERR_BASE: invalid base",
    [MPI_ERR_CONVERSION] = "MPI_ERR_CONVERSION: data conversion error",
    [MPI_ERR_DISP] = "MPI_ERR_DISP: invalid displacement",
    [MPI_ERR_DUP_DATAREP] = "MPI_ERR_DUP_DATAREP: data representation already defined",
    [MPI_ERR_FILE_EXISTS] = "MPI_ERR_FILE_EXISTS: file exists",
    [MPI_ERR_FILE_IN_USE] = "MPI_ERR_FILE_IN_USE: file in use",
    [MPI_ERR_FILE] = "MPI_ERR_FILE: invalid file handle",
    [MPI_ERR_INFO_KEY] = "MPI_ERR_INFO_KEY: invalid info key",
    [MPI_ERR_INFO_NOKEY] = "MPI_ERR_INFO_NOKEY: key not defined in info",
    [MPI_ERR_INFO_VALUE] = "MPI_ERR_INFO_VALUE: invalid info value",
    [MPI_ERR_INFO] = "MPI_ERR_INFO: invalid info object",
    [MPI_ERR_IO] = "MPI_ERR_IO: I/O error",
    [MPI_ERR_KEYVAL] = "MPI_ERR_KEYVAL: invalid attribute key",
    [MPI_ERR_LOCKTYPE] = "MPI_ERR_LOCKTYPE: invalid lock type",
    [MPI_ERR_NAME] = "MPI_ERR_NAME: invalid service name",
    [MPI_ERR_NO_MEM] = "MPI_ERR_NO_MEM: out of memory",
    [MPI_ERR_NOT_SAME] = "MPI_ERR_NOT_SAME: arguments differ between processes",
    [MPI_ERR_NO_SPACE] = "MPI_ERR_NO_SPACE: no space left",
    [MPI_ERR_NO_SUCH_FILE] = "MPI_ERR_NO_SUCH_FILE: no such file",
    [MPI_ERR_PORT] = "MPI_ERR_PORT: invalid port name",
    [MPI_ERR_QUOTA] = "MPI_ERR_QUOTA: quota exceeded",
    [MPI_ERR_READ_ONLY] = "MPI_ERR_READ_ONLY: read-only file or file system",
    [MPI_ERR_RMA_CONFLICT] = "MPI_ERR_RMA_CONFLICT: conflicting accesses to a window",
    [MPI_ERR_RMA_SYNC] = "MPI_ERR_RMA_SYNC: wrong synchronization of RMA calls",
    [MPI_ERR_SERVICE] = "MPI_ERR_SERVICE: invalid service name",
    [MPI_ERR_SIZE] = "MPI_ERR_SIZE: invalid size",
    [MPI_ERR_SPAWN] = "MPI_ERR_SPAWN: error spawning processes",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] =
        "MPI_ERR_UNSUPPORTED_OPERATION: operation not supported by this implementation",
    [MPI_ERR_WIN] = "MPI_ERR_WIN: invalid window",
    [MPI_ERR_RMA_RANGE] = "MPI_ERR_RMA_RANGE: target memory outside the window",
    [MPI_ERR_RMA_ATTACH] = "MPI_ERR_RMA_ATTACH: memory cannot be attached",
    [MPI_ERR_RMA_SHARED] = "MPI_ERR_RMA_SHARED: memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "MPI_ERR_RMA_FLAVOR: wrong window flavor",
    [MPI_T_ERR_INVALID] = "MPI_T_ERR_INVALID: invalid tool-interface use",
    [MPI_ERR_LASTCODE] = "MPI_ERR_LASTCODE: last error code",
};

/* Error handler table: 1 = fatal, 2 = return, then user handlers. */
#define MAX_ERRHANDLERS 64
static struct {
    int in_use;
    MPI_Comm_errhandler_function *fn;
} errhandlers[MAX_ERRHANDLERS] = {
    [MPI_ERRORS_ARE_FATAL] = { 1, NULL },
    [MPI_ERRORS_RETURN]    = { 1, NULL },
};

void rtmpi_errhandler_init(void)
{
}

int rtmpi_class_of(rtm_status_t status)
{
    switch (status) {
    case RTM_OK:                  return MPI_SUCCESS;
    case RTM_ERR_INVALID_ARG:     return MPI_ERR_ARG;
    case RTM_ERR_NOT_INITIALIZED:
    case RTM_ERR_FINALIZED:
    case RTM_ERR_ALREADY_INITIALIZED: return MPI_ERR_OTHER;
    case RTM_ERR_NO_MEMORY:       return MPI_ERR_NO_MEM;
    case RTM_ERR_RANK:            return MPI_ERR_RANK;
    case RTM_ERR_TAG:             return MPI_ERR_TAG;
    case RTM_ERR_COUNT:           return MPI_ERR_COUNT;
    case RTM_ERR_COMM:            return MPI_ERR_COMM;
    case RTM_ERR_BUFFER:          return MPI_ERR_BUFFER;
    case RTM_ERR_REQUEST:         return MPI_ERR_REQUEST;
    case RTM_ERR_TRUNCATE:        return MPI_ERR_TRUNCATE;
    case RTM_ERR_IN_STATUS:       return MPI_ERR_IN_STATUS;
    case RTM_ERR_PENDING:         return MPI_ERR_PENDING;
    case RTM_ERR_CANCELED:        return MPI_SUCCESS;   /* reported by Test_cancelled */
    case RTM_ERR_NOT_SUPPORTED:   return MPI_ERR_UNSUPPORTED_OPERATION;
    case RTM_ERR_INTERNAL:        return MPI_ERR_INTERN;
    default:                      return MPI_ERR_OTHER;
    }
}

/* "PMPI_Send" -> "MPI_Send": users call the MPI_ name. */
static const char *user_name(const char *fn)
{
    return (fn[0] == 'P' && fn[1] == 'M') ? fn + 1 : fn;
}

static int invoke(MPI_Comm comm, const char *fn, int errclass, const char *detail)
{
    rtmpi_comm_t *c = rtmpi_state.initialized && !rtmpi_state.finalized
                    ? rtmpi_comm_get(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm)
                    : NULL;
    MPI_Errhandler eh = c ? c->errhandler : MPI_ERRORS_ARE_FATAL;

    if (eh == MPI_ERRORS_RETURN)
        return errclass;
    if (eh > MPI_ERRORS_RETURN && eh < MAX_ERRHANDLERS && errhandlers[eh].fn) {
        MPI_Comm ucomm = c ? comm : MPI_COMM_WORLD;
        int code = errclass;

        if (ucomm == MPI_COMM_NULL)
            ucomm = MPI_COMM_WORLD;
        errhandlers[eh].fn(&ucomm, &code);
        return errclass;
    }

    char line[1024];
    const char *what = class_strings[errclass] ? class_strings[errclass] : "unknown error";

    if (rtmpi_state.initialized)
        snprintf(line, sizeof(line), "rank %d (%s): %s: %s%s%s", rtmpi_state.world_rank,
                 rtm_hostname(), user_name(fn), what, detail[0] ? ": " : "", detail);
    else
        snprintf(line, sizeof(line), "%s: %s%s%s", user_name(fn), what,
                 detail[0] ? ": " : "", detail);
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
    if (rtm_initialized())
        rtm_abort(errclass, line);
    exit(errclass);
}

int rtmpi_error(MPI_Comm comm, const char *fn, int errclass, const char *fmt, ...)
{
    char detail[768];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    if (errclass <= MPI_SUCCESS || errclass > MPI_ERR_LASTCODE)
        errclass = MPI_ERR_INTERN;
    return invoke(comm, fn, errclass, detail);
}

int rtmpi_error_rtm(MPI_Comm comm, const char *fn, rtm_status_t status)
{
    const char *detail = rtm_last_error();

    return rtmpi_error(comm, fn, rtmpi_class_of(status), "%s",
                       detail && detail[0] ? detail : rtm_strerror(status));
}

int rtmpi_check_init(const char *fn)
{
    if (rtmpi_state.finalized)
        return invoke(MPI_COMM_NULL, fn, MPI_ERR_OTHER, "called after MPI_Finalize");
    return invoke(MPI_COMM_NULL, fn, MPI_ERR_OTHER, "called before MPI_Init");
}

int PMPI_Error_class(int errorcode, int *errorclass)
{
    if (errorcode < 0 || errorcode > MPI_ERR_LASTCODE)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG,
                           "error code %d is not an MPI error code", errorcode);
    if (!errorclass)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "errorclass is NULL");
    *errorclass = errorcode;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Error_class)

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    if (!string || !resultlen)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "string or resultlen is NULL");
    if (errorcode < 0 || errorcode > MPI_ERR_LASTCODE || !class_strings[errorcode])
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG,
                           "error code %d is not an MPI error code", errorcode);
    snprintf(string, MPI_MAX_ERROR_STRING, "%s", class_strings[errorcode]);
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Error_string)

static int errhandler_valid(MPI_Errhandler eh)
{
    return eh > 0 && eh < MAX_ERRHANDLERS && errhandlers[eh].in_use;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function,
                                MPI_Errhandler *errhandler)
{
    RTMPI_ENTER();
    if (!function || !errhandler)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "function or errhandler is NULL");
    for (int i = MPI_ERRORS_RETURN + 1; i < MAX_ERRHANDLERS; i++) {
        if (!errhandlers[i].in_use) {
            errhandlers[i].in_use = 1;
            errhandlers[i].fn = function;
            *errhandler = i;
            return MPI_SUCCESS;
        }
    }
    return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM,
                       "more than %d error handlers", MAX_ERRHANDLERS - 3);
}
RTMPI_WEAK(Comm_create_errhandler)

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    RTMPI_ENTER();
    if (!errhandler || !errhandler_valid(*errhandler))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "invalid error handler");
    /* Communicators keep using a freed handler until they change it: the
     * slot is reused only when no communicator refers to it (never, here,
     * since slots are plentiful). */
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Errhandler_free)

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    RTMPI_ENTER();
    rtmpi_comm_t *c = rtmpi_comm_get(comm);

    if (!c)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", comm);
    if (!errhandler_valid(errhandler))
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "invalid error handler %d", errhandler);
    c->errhandler = errhandler;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_set_errhandler)

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    RTMPI_ENTER();
    rtmpi_comm_t *c = rtmpi_comm_get(comm);

    if (!c)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", comm);
    if (!errhandler)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "errhandler is NULL");
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_get_errhandler)

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    RTMPI_ENTER();
    if (!rtmpi_comm_get(comm))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", comm);
    if (errorcode <= MPI_SUCCESS || errorcode > MPI_ERR_LASTCODE)
        errorcode = MPI_ERR_UNKNOWN;
    rtmpi_error(comm, __func__, errorcode, "raised by the application");
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_call_errhandler)
