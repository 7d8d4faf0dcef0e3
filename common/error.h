/*
 * Error detail for the public API: the function that detects a bad argument
 * records one sentence with rtm_error_set() and returns the status; the
 * caller reads it back with rtm_last_error().
 */
#ifndef RTM_COMMON_ERROR_H
#define RTM_COMMON_ERROR_H

#include "rtm_status.h"

rtm_status_t rtm_error_set(rtm_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void rtm_error_clear(void);

#endif
