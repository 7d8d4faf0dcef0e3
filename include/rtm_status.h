/*
 * librtmsg status codes: the one status type every layer returns (the
 * public API, the runtime, the transports, common/). Included by rtmsg.h;
 * the transport contract (transport/transport.h) includes this header alone,
 * so a transport sees the status codes without the public API.
 */
#ifndef RTM_STATUS_H
#define RTM_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. RTM_ERR_AGAIN is flow control, not an error. */
typedef enum rtm_status {
    RTM_OK                  = 0,
    RTM_ERR_AGAIN           = -1,  /* resource busy, try again after progress */
    RTM_ERR_INVALID_ARG     = -2,  /* an argument is invalid (see rtm_last_error) */
    RTM_ERR_NOT_INITIALIZED = -3,  /* called before rtm_init */
    RTM_ERR_FINALIZED       = -4,  /* called after rtm_finalize */
    RTM_ERR_ALREADY_INITIALIZED = -5,
    RTM_ERR_NO_MEMORY       = -6,
    RTM_ERR_RANK            = -7,  /* rank out of range for the communicator */
    RTM_ERR_TAG             = -8,  /* tag negative or above RTM_TAG_UB */
    RTM_ERR_COUNT           = -9,  /* byte count invalid */
    RTM_ERR_COMM            = -10, /* invalid or freed communicator */
    RTM_ERR_BUFFER          = -11, /* NULL buffer with a non-zero count */
    RTM_ERR_REQUEST         = -12, /* invalid request handle */
    RTM_ERR_TRUNCATE        = -13, /* message longer than the receive buffer */
    RTM_ERR_IN_STATUS       = -14, /* see the error field of each status */
    RTM_ERR_PENDING         = -15, /* request not complete (waitall with errors) */
    RTM_ERR_CANCELED        = -16, /* request was canceled */
    RTM_ERR_PMIX            = -17, /* the PMIx server failed or refused */
    RTM_ERR_TRANSPORT       = -18, /* a transport failed (I/O error, lost peer) */
    RTM_ERR_UNREACHABLE     = -19, /* no transport reaches the peer */
    RTM_ERR_NOT_SUPPORTED   = -20,
    RTM_ERR_TIMEOUT         = -21,
    RTM_ERR_INTERNAL        = -22,
    RTM_ERR_LAST            = -23
} rtm_status_t;

/* A status in words, and the detail of the calling thread's last error
 * (common/error.c; both part of the public API through rtmsg.h). */
const char *rtm_strerror(rtm_status_t status);
const char *rtm_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
