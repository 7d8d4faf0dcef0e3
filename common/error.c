#include "config.h"

#include "common/error.h"
#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[512];

rtm_status_t rtm_error_set(rtm_status_t status, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(last_error, sizeof(last_error), fmt, ap);
    va_end(ap);
    rtm_debug("%s: %s", rtm_strerror(status), last_error);
    return status;
}

void rtm_error_clear(void)
{
    last_error[0] = '\0';
}

const char *rtm_last_error(void)
{
    return last_error;
}

const char *rtm_strerror(rtm_status_t status)
{
    switch (status) {
    case RTM_OK:                      return "success";
    case RTM_ERR_AGAIN:               return "resource temporarily unavailable";
    case RTM_ERR_INVALID_ARG:         return "invalid argument";
    case RTM_ERR_NOT_INITIALIZED:     return "librtmsg is not initialized (call rtm_init first)";
    case RTM_ERR_FINALIZED:           return "librtmsg was already finalized";
    case RTM_ERR_ALREADY_INITIALIZED: return "librtmsg is already initialized";
    case RTM_ERR_NO_MEMORY:           return "out of memory";
    case RTM_ERR_RANK:                return "invalid rank";
    case RTM_ERR_TAG:                 return "invalid tag";
    case RTM_ERR_COUNT:               return "invalid count";
    case RTM_ERR_COMM:                return "invalid communicator";
    case RTM_ERR_BUFFER:              return "invalid buffer";
    case RTM_ERR_REQUEST:             return "invalid request";
    case RTM_ERR_TRUNCATE:            return "message truncated: receive buffer too small";
    case RTM_ERR_IN_STATUS:           return "error code is in the status";
    case RTM_ERR_PENDING:             return "request pending";
    case RTM_ERR_CANCELED:            return "request canceled";
    case RTM_ERR_PMIX:                return "PMIx error";
    case RTM_ERR_TRANSPORT:           return "transport error";
    case RTM_ERR_UNREACHABLE:         return "peer unreachable";
    case RTM_ERR_NOT_SUPPORTED:       return "operation not supported";
    case RTM_ERR_TIMEOUT:             return "timed out";
    case RTM_ERR_INTERNAL:            return "internal error";
    case RTM_ERR_LAST:                break;
    }
    return "unknown error code";
}
