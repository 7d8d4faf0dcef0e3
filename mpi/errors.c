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

/* One text per class, each its own: the class name, then what went wrong
 * in the words a user needs to find it (the message raised with an error
 * adds the detail: which argument, rank or peer). */
static const char *const class_strings[MPI_ERR_LASTCODE + 1] = {
    [MPI_SUCCESS] = "MPI_SUCCESS: no error",
    [MPI_ERR_BUFFER] = "MPI_ERR_BUFFER: the buffer pointer is not valid (NULL with a non-zero count?)",
    [MPI_ERR_COUNT] = "MPI_ERR_COUNT: the count is not valid (negative, or too large)",
    [MPI_ERR_TYPE] = "MPI_ERR_TYPE: the datatype is not valid (null, freed, or not committed)",
    [MPI_ERR_TAG] = "MPI_ERR_TAG: the tag is not valid (negative, or above MPI_TAG_UB)",
    [MPI_ERR_COMM] = "MPI_ERR_COMM: the communicator is not valid (null or freed)",
    [MPI_ERR_RANK] = "MPI_ERR_RANK: invalid rank (not a rank of the communicator)",
    [MPI_ERR_REQUEST] = "MPI_ERR_REQUEST: the request handle is not valid (null, freed, or already completed)",
    [MPI_ERR_ROOT] = "MPI_ERR_ROOT: the root rank is outside the communicator",
    [MPI_ERR_GROUP] = "MPI_ERR_GROUP: the group is not valid",
    [MPI_ERR_OP] = "MPI_ERR_OP: the reduction operation is not valid or not defined for this datatype",
    [MPI_ERR_TOPOLOGY] = "MPI_ERR_TOPOLOGY: the communicator has no topology of the kind this call needs",
    [MPI_ERR_DIMS] = "MPI_ERR_DIMS: the dimensions are not valid for this topology",
    [MPI_ERR_ARG] = "MPI_ERR_ARG: an argument is not valid (the message names it)",
    [MPI_ERR_UNKNOWN] = "MPI_ERR_UNKNOWN: an error the library cannot classify",
    [MPI_ERR_TRUNCATE] = "MPI_ERR_TRUNCATE: the message is longer than the receive buffer",
    [MPI_ERR_OTHER] = "MPI_ERR_OTHER: an error no other class describes (the message says what failed)",
    [MPI_ERR_INTERN] = "MPI_ERR_INTERN: an internal error of the MPI library",
    [MPI_ERR_IN_STATUS] = "MPI_ERR_IN_STATUS: see the MPI_ERROR field of each status",
    [MPI_ERR_PENDING] = "MPI_ERR_PENDING: the request has not completed yet",
    [MPI_ERR_ACCESS] = "MPI_ERR_ACCESS: permission denied for the file",
    [MPI_ERR_AMODE] = "MPI_ERR_AMODE: the file access mode is not valid",
    [MPI_ERR_ASSERT] = "MPI_ERR_ASSERT: the assert argument of the RMA call is not valid",
    [MPI_ERR_BAD_FILE] = "MPI_ERR_BAD_FILE: the file name is not valid",
    [MPI_ERR_BASE] = "MPI_ERR_BASE: the base address is not one MPI_Alloc_mem returned",
    [MPI_ERR_CONVERSION] = "MPI_ERR_CONVERSION: a data representation conversion failed",
    [MPI_ERR_DISP] = "MPI_ERR_DISP: the displacement is not valid",
    [MPI_ERR_DUP_DATAREP] = "MPI_ERR_DUP_DATAREP: this data representation name is already registered",
    [MPI_ERR_FILE_EXISTS] = "MPI_ERR_FILE_EXISTS: the file exists already",
    [MPI_ERR_FILE_IN_USE] = "MPI_ERR_FILE_IN_USE: the file is open in another process",
    [MPI_ERR_FILE] = "MPI_ERR_FILE: the file handle is not valid",
    [MPI_ERR_INFO_KEY] = "MPI_ERR_INFO_KEY: the info key is empty or longer than MPI_MAX_INFO_KEY",
    [MPI_ERR_INFO_NOKEY] = "MPI_ERR_INFO_NOKEY: the info object has no such key",
    [MPI_ERR_INFO_VALUE] = "MPI_ERR_INFO_VALUE: the info value is empty or longer than MPI_MAX_INFO_VAL",
    [MPI_ERR_INFO] = "MPI_ERR_INFO: the info object is not valid",
    [MPI_ERR_IO] = "MPI_ERR_IO: an I/O operation failed",
    [MPI_ERR_KEYVAL] = "MPI_ERR_KEYVAL: the attribute key value is not valid",
    [MPI_ERR_LOCKTYPE] = "MPI_ERR_LOCKTYPE: the lock type is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE",
    [MPI_ERR_NAME] = "MPI_ERR_NAME: no port is published under this service name",
    [MPI_ERR_NO_MEM] = "MPI_ERR_NO_MEM: memory could not be allocated",
    [MPI_ERR_NOT_SAME] = "MPI_ERR_NOT_SAME: the processes of a collective call passed different arguments",
    [MPI_ERR_NO_SPACE] = "MPI_ERR_NO_SPACE: no space left on the device",
    [MPI_ERR_NO_SUCH_FILE] = "MPI_ERR_NO_SUCH_FILE: the file does not exist",
    [MPI_ERR_PORT] = "MPI_ERR_PORT: the port name is not valid",
    [MPI_ERR_QUOTA] = "MPI_ERR_QUOTA: the disk quota is exceeded",
    [MPI_ERR_READ_ONLY] = "MPI_ERR_READ_ONLY: the file or file system is read-only",
    [MPI_ERR_RMA_CONFLICT] = "MPI_ERR_RMA_CONFLICT: conflicting accesses to the same window location",
    [MPI_ERR_RMA_SYNC] = "MPI_ERR_RMA_SYNC: an RMA call outside an access or exposure epoch",
    [MPI_ERR_SERVICE] = "MPI_ERR_SERVICE: the service name could not be published or unpublished",
    [MPI_ERR_SIZE] = "MPI_ERR_SIZE: the size argument is not valid",
    [MPI_ERR_SPAWN] = "MPI_ERR_SPAWN: the processes could not be spawned",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "MPI_ERR_UNSUPPORTED_DATAREP: this data representation is not supported",
    [MPI_ERR_UNSUPPORTED_OPERATION] =
        "MPI_ERR_UNSUPPORTED_OPERATION: this library does not implement the operation",
    [MPI_ERR_WIN] = "MPI_ERR_WIN: the window is not valid",
    [MPI_ERR_RMA_RANGE] = "MPI_ERR_RMA_RANGE: the target location lies outside the window",
    [MPI_ERR_RMA_ATTACH] = "MPI_ERR_RMA_ATTACH: the memory cannot be attached to the window",
    [MPI_ERR_RMA_SHARED] = "MPI_ERR_RMA_SHARED: the memory cannot be shared between the processes",
    [MPI_ERR_RMA_FLAVOR] = "MPI_ERR_RMA_FLAVOR: the window is not of the flavor this call needs",
    [MPI_T_ERR_INVALID] = "MPI_T_ERR_INVALID: invalid use of the MPI tool interface",
    [MPI_T_ERR_MEMORY] = "MPI_T_ERR_MEMORY: out of memory in the MPI tool interface",
    [MPI_T_ERR_NOT_INITIALIZED] = "MPI_T_ERR_NOT_INITIALIZED: the MPI tool interface is not initialized (call MPI_T_init_thread first)",
    [MPI_T_ERR_CANNOT_INIT] = "MPI_T_ERR_CANNOT_INIT: the MPI tool interface cannot be initialized now",
    [MPI_T_ERR_INVALID_INDEX] = "MPI_T_ERR_INVALID_INDEX: the variable, category or enumeration index is out of range",
    [MPI_T_ERR_INVALID_ITEM] = "MPI_T_ERR_INVALID_ITEM: the enumeration item index is out of range",
    [MPI_T_ERR_INVALID_NAME] = "MPI_T_ERR_INVALID_NAME: no variable or category has this name",
    [MPI_T_ERR_INVALID_HANDLE] = "MPI_T_ERR_INVALID_HANDLE: the tool interface handle is not valid (null, freed, or of another session)",
    [MPI_T_ERR_OUT_OF_HANDLES] = "MPI_T_ERR_OUT_OF_HANDLES: no more tool interface handles can be allocated",
    [MPI_T_ERR_OUT_OF_SESSIONS] = "MPI_T_ERR_OUT_OF_SESSIONS: no more performance variable sessions can be created",
    [MPI_T_ERR_INVALID_SESSION] = "MPI_T_ERR_INVALID_SESSION: the performance variable session is not valid (null or freed)",
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = "MPI_T_ERR_CVAR_SET_NOT_NOW: the control variable cannot be set at this moment",
    [MPI_T_ERR_CVAR_SET_NEVER] = "MPI_T_ERR_CVAR_SET_NEVER: the control variable cannot be set again in this process",
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = "MPI_T_ERR_PVAR_NO_STARTSTOP: the performance variable cannot be started or stopped (it is continuous)",
    [MPI_T_ERR_PVAR_NO_WRITE] = "MPI_T_ERR_PVAR_NO_WRITE: the performance variable cannot be written or reset",
    [MPI_T_ERR_PVAR_NO_ATOMIC] = "MPI_T_ERR_PVAR_NO_ATOMIC: the performance variable cannot be read and reset atomically",
    [MPI_ERR_LASTCODE] = "MPI_ERR_LASTCODE: the last predefined error code (not an error raised)",
};

/* Error handler table, grown as needed: 1 = fatal, 2 = return, then user
 * handlers. A user handler is counted: one reference for its handle (until
 * MPI_Errhandler_free) and one for each communicator that uses it (set,
 * inherited at creation, or handed out by MPI_Comm_get_errhandler, which
 * the caller frees); its slot is reused only once nothing refers to it, so
 * a communicator never ends up calling a handler created after its own. */
typedef struct errhandler {
    int refs;                            /* 0: free slot */
    MPI_Comm_errhandler_function *fn;
} errhandler_t;

static errhandler_t *errhandlers;
static int nerrhandlers;   /* slots in use or ever used */
static int errhandlers_cap;

/* Error classes and codes added by MPI_Add_error_class/_code, numbered
 * from MPI_ERR_LASTCODE + 1 up: their class and the string set for them. */
typedef struct user_code {
    int   errclass;
    char *string;
} user_code_t;

static user_code_t *user_codes;
static int nuser_codes, user_codes_cap;

void rtmpi_errhandler_init(void)
{
}

/* Frees the tables (MPI_Finalize, after the communicators). */
void rtmpi_errors_finalize(void)
{
    for (int i = 0; i < nuser_codes; i++)
        free(user_codes[i].string);
    free(user_codes);
    user_codes = NULL;
    nuser_codes = user_codes_cap = 0;
    free(errhandlers);
    errhandlers = NULL;
    nerrhandlers = errhandlers_cap = 0;
}

int rtmpi_err_lastused(void)
{
    return MPI_ERR_LASTCODE + nuser_codes;
}

static int user_handler(MPI_Errhandler eh)
{
    return eh > MPI_ERRORS_RETURN && eh < nerrhandlers && errhandlers[eh].refs > 0;
}

void rtmpi_errhandler_retain(MPI_Errhandler eh)
{
    if (user_handler(eh))
        errhandlers[eh].refs++;
}

void rtmpi_errhandler_release(MPI_Errhandler eh)
{
    if (user_handler(eh) && --errhandlers[eh].refs == 0)
        errhandlers[eh].fn = NULL;
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

/* The text of a predefined class or of an added class or code. */
static const char *error_text(int code)
{
    if (code >= 0 && code <= MPI_ERR_LASTCODE && class_strings[code])
        return class_strings[code];
    if (code > MPI_ERR_LASTCODE && code <= rtmpi_err_lastused()) {
        const char *s = user_codes[code - MPI_ERR_LASTCODE - 1].string;

        return s ? s : "";
    }
    return "unknown error";
}

/* Calls handler eh for the object whose handle is *obj (a communicator or,
 * one-sided, a window: both handles are ints and their handler functions
 * have one signature), or ends the job under MPI_ERRORS_ARE_FATAL. */
static int invoke_eh(MPI_Errhandler eh, int *obj, const char *fn, int errclass,
                     const char *detail)
{
    if (eh == MPI_ERRORS_RETURN)
        return errclass;
    if (user_handler(eh)) {
        int code = errclass;

        errhandlers[eh].fn(obj, &code);
        return errclass;
    }

    char line[1024];
    const char *what = error_text(errclass);

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

static int invoke(MPI_Comm comm, const char *fn, int errclass, const char *detail)
{
    /* A communicator freed while requests hold it keeps its handler. */
    rtmpi_comm_t *c = rtmpi_state.initialized && !rtmpi_state.finalized
                    ? rtmpi_comm_obj(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm)
                    : NULL;
    MPI_Errhandler eh = c ? c->errhandler : MPI_ERRORS_ARE_FATAL;
    MPI_Comm ucomm = c && comm != MPI_COMM_NULL ? comm : MPI_COMM_WORLD;

    return invoke_eh(eh, &ucomm, fn, errclass, detail);
}

int rtmpi_error_win(MPI_Win win, MPI_Errhandler eh, const char *fn, int errclass,
                    const char *fmt, ...)
{
    char detail[768];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    if (errclass <= MPI_SUCCESS || errclass > rtmpi_err_lastused())
        errclass = MPI_ERR_INTERN;
    return invoke_eh(eh, &win, fn, errclass, detail);
}

int rtmpi_errhandler_valid(MPI_Errhandler eh)
{
    return eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN || user_handler(eh);
}

int rtmpi_error(MPI_Comm comm, const char *fn, int errclass, const char *fmt, ...)
{
    char detail[768];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    if (errclass <= MPI_SUCCESS || errclass > rtmpi_err_lastused())
        errclass = MPI_ERR_INTERN;
    return invoke(comm, fn, errclass, detail);
}

int rtmpi_error_rtm(MPI_Comm comm, const char *fn, rtm_status_t status)
{
    const char *detail = rtm_last_error();
    int errclass = rtmpi_class_of(status);

    /* A status with no class of its own (a lost peer, PMIx, a timeout):
     * the class text says nothing of it, so the status's words come first. */
    if (errclass == MPI_ERR_OTHER)
        return rtmpi_error(comm, fn, errclass, "%s%s%s", rtm_strerror(status),
                           detail && detail[0] ? ": " : "", detail ? detail : "");
    return rtmpi_error(comm, fn, errclass, "%s",
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
    if (errorcode < 0 || errorcode > rtmpi_err_lastused())
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG,
                           "error code %d is not an MPI error code", errorcode);
    if (!errorclass)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "errorclass is NULL");
    *errorclass = errorcode <= MPI_ERR_LASTCODE
                ? errorcode : user_codes[errorcode - MPI_ERR_LASTCODE - 1].errclass;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Error_class)

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    if (!string || !resultlen)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "string or resultlen is NULL");
    if (errorcode < 0 || errorcode > rtmpi_err_lastused() ||
        (errorcode <= MPI_ERR_LASTCODE && !class_strings[errorcode]))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG,
                           "error code %d is not an MPI error code", errorcode);
    snprintf(string, MPI_MAX_ERROR_STRING, "%s", error_text(errorcode));
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}
RTMPI_WEAK(Error_string)

/* A new error class or code of class `errclass` (itself for a class). */
static int code_new(const char *fn, int errclass, int *code_p)
{
    if (nuser_codes == user_codes_cap) {
        int cap = user_codes_cap ? user_codes_cap * 2 : 16;
        user_code_t *t = realloc(user_codes, (size_t)cap * sizeof(*t));

        if (!t)
            return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM,
                               "out of memory for a new error code");
        user_codes = t;
        user_codes_cap = cap;
    }
    int code = MPI_ERR_LASTCODE + 1 + nuser_codes;

    user_codes[nuser_codes].errclass = errclass < 0 ? code : errclass;
    user_codes[nuser_codes].string = NULL;
    nuser_codes++;
    *code_p = code;
    return MPI_SUCCESS;
}

/* 1 when `c` is an error class (predefined or added), not a code. */
static int is_class(int c)
{
    if (c >= 0 && c <= MPI_ERR_LASTCODE)
        return 1;
    return c > MPI_ERR_LASTCODE && c <= rtmpi_err_lastused() &&
           user_codes[c - MPI_ERR_LASTCODE - 1].errclass == c;
}

int PMPI_Add_error_class(int *errorclass)
{
    RTMPI_ENTER();
    if (!errorclass)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "errorclass is NULL");
    return code_new(__func__, -1, errorclass);
}
RTMPI_WEAK(Add_error_class)

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    RTMPI_ENTER();
    if (!errorcode)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "errorcode is NULL");
    if (errorclass == MPI_SUCCESS || !is_class(errorclass))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG,
                           "%d is not an error class (predefined, or from MPI_Add_error_class)",
                           errorclass);
    return code_new(__func__, errorclass, errorcode);
}
RTMPI_WEAK(Add_error_code)

int PMPI_Add_error_string(int errorcode, const char *string)
{
    RTMPI_ENTER();
    if (!string)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "string is NULL");
    if (errorcode <= MPI_ERR_LASTCODE || errorcode > rtmpi_err_lastused())
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG,
                           "error code %d was not added by MPI_Add_error_class/_code "
                           "(predefined strings cannot be changed)", errorcode);
    size_t len = strlen(string);
    if (len >= MPI_MAX_ERROR_STRING)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG,
                           "the string is %zu characters long, MPI_MAX_ERROR_STRING is %d", len,
                           MPI_MAX_ERROR_STRING);
    char *copy = strdup(string);
    if (!copy)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM, "out of memory");
    user_code_t *u = &user_codes[errorcode - MPI_ERR_LASTCODE - 1];
    free(u->string);
    u->string = copy;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Add_error_string)

/* A handle that can be set on a communicator. */
static int errhandler_valid(MPI_Errhandler eh)
{
    return eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN || user_handler(eh);
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function,
                                MPI_Errhandler *errhandler)
{
    int h = 0;

    RTMPI_ENTER();
    if (!function || !errhandler)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "function or errhandler is NULL");
    for (int i = MPI_ERRORS_RETURN + 1; i < nerrhandlers && !h; i++)
        if (errhandlers[i].refs == 0)
            h = i;
    if (!h) {
        if (nerrhandlers == 0)
            nerrhandlers = MPI_ERRORS_RETURN + 1;
        if (nerrhandlers >= errhandlers_cap) {
            int cap = errhandlers_cap ? errhandlers_cap * 2 : 16;
            errhandler_t *t = realloc(errhandlers, (size_t)cap * sizeof(*t));

            if (!t)
                return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM,
                                   "out of memory for an error handler");
            memset(t + errhandlers_cap, 0, (size_t)(cap - errhandlers_cap) * sizeof(*t));
            errhandlers = t;
            errhandlers_cap = cap;
        }
        h = nerrhandlers++;
    }
    errhandlers[h].refs = 1;
    errhandlers[h].fn = function;
    *errhandler = h;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_create_errhandler)

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    RTMPI_ENTER();
    if (!errhandler || !errhandler_valid(*errhandler))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "invalid error handler");
    /* Communicators that use the handler keep it until they change it. */
    rtmpi_errhandler_release(*errhandler);
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
    rtmpi_errhandler_retain(errhandler);
    rtmpi_errhandler_release(c->errhandler);
    c->errhandler = errhandler;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_set_errhandler)

/* The handle handed out is a new reference: the caller frees it (MPI 3.1
 * section 8.3.1), as with Open MPI and MPICH. */
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    RTMPI_ENTER();
    rtmpi_comm_t *c = rtmpi_comm_get(comm);

    if (!c)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", comm);
    if (!errhandler)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "errhandler is NULL");
    rtmpi_errhandler_retain(c->errhandler);
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_get_errhandler)

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    RTMPI_ENTER();
    if (!rtmpi_comm_get(comm))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", comm);
    if (errorcode <= MPI_SUCCESS || errorcode > rtmpi_err_lastused())
        errorcode = MPI_ERR_UNKNOWN;
    rtmpi_error(comm, __func__, errorcode, "raised by the application");
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_call_errhandler)
