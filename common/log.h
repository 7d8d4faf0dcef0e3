/*
 * Logging by level. The level test happens before any argument is
 * evaluated or formatted, so a disabled rtm_trace costs one branch.
 * Every line starts with "[host:pid:rank]" (rank "-" in the launcher).
 */
#ifndef RTM_COMMON_LOG_H
#define RTM_COMMON_LOG_H

#include <stdarg.h>

typedef enum rtm_log_level {
    RTM_LOG_ERROR = 0,
    RTM_LOG_WARN  = 1,
    RTM_LOG_INFO  = 2,
    RTM_LOG_DEBUG = 3,
    RTM_LOG_TRACE = 4,
} rtm_log_level_t;

extern rtm_log_level_t rtm_log_level;

/* Who is logging: set once the rank is known; rank < 0 prints "-". */
void rtm_log_set_identity(const char *component, int rank);
const char *rtm_log_hostname(void);
/* The host's name as the launcher calls it (a rank learns it from PMIx),
 * used from now on instead of gethostname(): one name per host in every
 * message, the launcher's and the ranks'. */
void rtm_log_set_hostname(const char *name);

void rtm_log_emit(rtm_log_level_t level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define rtm_log(_level, ...) \
    do { \
        if ((_level) <= rtm_log_level) \
            rtm_log_emit((_level), __VA_ARGS__); \
    } while (0)

#define rtm_error(...) rtm_log(RTM_LOG_ERROR, __VA_ARGS__)
#define rtm_warn(...)  rtm_log(RTM_LOG_WARN, __VA_ARGS__)
#define rtm_info(...)  rtm_log(RTM_LOG_INFO, __VA_ARGS__)
#define rtm_debug(...) rtm_log(RTM_LOG_DEBUG, __VA_ARGS__)
#define rtm_trace(...) rtm_log(RTM_LOG_TRACE, __VA_ARGS__)

#endif
