/*
 * librtmsg — native message-passing API.
 *
 * Semantics follow MPI point-to-point where the two overlap: messages are
 * byte buffers matched by (communicator, source, tag); messages between two
 * ranks on one communicator never overtake each other; a receive buffer
 * smaller than the matched message yields RTM_ERR_TRUNCATE in the status,
 * never an overflow.
 *
 * Every function returns rtm_status_t (0 on success, negative on error) and
 * validates its arguments. The message that goes with the last error of the
 * calling thread is available from rtm_last_error(). Output parameters
 * (ending in _p) are written only on success.
 *
 * Threading: the library may be called from one thread at a time
 * (MPI_THREAD_SERIALIZED); it starts no thread of its own.
 */
#ifndef RTMSG_H
#define RTMSG_H

#include "rtm_status.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RTM_VERSION_MAJOR 0
#define RTM_VERSION_MINOR 1
#define RTM_VERSION_PATCH 0

/* Communicators are small integer handles. */
typedef int rtm_comm_t;
#define RTM_COMM_NULL  (-1)
#define RTM_COMM_WORLD 0
#define RTM_COMM_SELF  1

#define RTM_ANY_SOURCE (-1)
#define RTM_ANY_TAG    (-1)
#define RTM_PROC_NULL  (-2)
#define RTM_UNDEFINED  (-32766)          /* color for rtm_comm_split: no new comm */
#define RTM_TAG_UB     0x7fffffff        /* largest valid tag */

#define RTM_COMM_TYPE_SHARED 1           /* rtm_comm_split_type: ranks of one host */

/* What a completed receive (or probe) reports. */
typedef struct rtm_msg_status {
    int          source;     /* rank in the communicator */
    int          tag;
    size_t       count;      /* bytes delivered (probe: bytes in the message) */
    rtm_status_t error;      /* RTM_OK, RTM_ERR_TRUNCATE, RTM_ERR_CANCELED, ... */
    int          cancelled;  /* 1 when the request was canceled */
} rtm_msg_status_t;

#define RTM_STATUS_IGNORE   ((rtm_msg_status_t *)0)
#define RTM_STATUSES_IGNORE ((rtm_msg_status_t *)0)

/* Nonblocking operations return a request; wait/test free it on completion
 * and set the handle to RTM_REQUEST_NULL. */
typedef struct rtm_request *rtm_request_t;
#define RTM_REQUEST_NULL ((rtm_request_t)0)

/* A message taken out of matching by rtm_improbe, received by rtm_imrecv. */
typedef struct rtm_request *rtm_message_t;
#define RTM_MESSAGE_NULL    ((rtm_message_t)0)
#define RTM_MESSAGE_NO_PROC ((rtm_message_t)1)   /* probe matched RTM_PROC_NULL */

/* Send modes (rtm_isend_mode). */
typedef enum rtm_send_mode {
    RTM_SEND_STANDARD = 0,
    RTM_SEND_SYNC     = 1,   /* completes only once the receive has matched */
} rtm_send_mode_t;

/* Environment */
rtm_status_t rtm_init(void);
rtm_status_t rtm_finalize(void);
int          rtm_initialized(void);   /* 1 between rtm_init and rtm_finalize */
int          rtm_finalized(void);     /* 1 after rtm_finalize */
/* Ends the whole job: every rank exits; the launcher reports code and message. */
void         rtm_abort(int code, const char *message) __attribute__((noreturn));
double       rtm_wtime(void);         /* seconds, monotonic */
double       rtm_wtick(void);
/* rtm_strerror, rtm_last_error: rtm_status.h */
const char  *rtm_hostname(void);
const char  *rtm_version_string(void);
/* Drive communication once; returns the number of events processed (>= 0). */
int          rtm_progress(void);

/* Communicators */
rtm_status_t rtm_comm_rank(rtm_comm_t comm, int *rank_p);
rtm_status_t rtm_comm_size(rtm_comm_t comm, int *size_p);
/* Rank in RTM_COMM_WORLD of `rank` in `comm`. */
rtm_status_t rtm_comm_world_rank(rtm_comm_t comm, int rank, int *world_rank_p);
rtm_status_t rtm_comm_dup(rtm_comm_t comm, rtm_comm_t *newcomm_p);
rtm_status_t rtm_comm_split(rtm_comm_t comm, int color, int key, rtm_comm_t *newcomm_p);
rtm_status_t rtm_comm_split_type(rtm_comm_t comm, int split_type, int key,
                                 rtm_comm_t *newcomm_p);
rtm_status_t rtm_comm_free(rtm_comm_t *comm_p);   /* sets *comm_p to RTM_COMM_NULL */
/* Node (host) index of a world rank, 0..nnodes-1. */
rtm_status_t rtm_world_node(int world_rank, int *node_p);

/* Point-to-point */
rtm_status_t rtm_send(const void *buf, size_t count, int dest, int tag, rtm_comm_t comm);
rtm_status_t rtm_ssend(const void *buf, size_t count, int dest, int tag, rtm_comm_t comm);
rtm_status_t rtm_recv(void *buf, size_t count, int source, int tag, rtm_comm_t comm,
                      rtm_msg_status_t *status);
rtm_status_t rtm_isend(const void *buf, size_t count, int dest, int tag, rtm_comm_t comm,
                       rtm_request_t *req_p);
rtm_status_t rtm_isend_mode(const void *buf, size_t count, int dest, int tag,
                            rtm_comm_t comm, rtm_send_mode_t mode, rtm_request_t *req_p);
rtm_status_t rtm_irecv(void *buf, size_t count, int source, int tag, rtm_comm_t comm,
                       rtm_request_t *req_p);
rtm_status_t rtm_sendrecv(const void *sendbuf, size_t sendcount, int dest, int sendtag,
                          void *recvbuf, size_t recvcount, int source, int recvtag,
                          rtm_comm_t comm, rtm_msg_status_t *status);

/* Completion. A NULL request handle (RTM_REQUEST_NULL) counts as complete
 * with an empty status. On completion the request is freed and *req set to
 * RTM_REQUEST_NULL. A receive that completed with an error (truncation) makes
 * wait return that error too; the waitall/testall/waitany variants return
 * RTM_ERR_IN_STATUS and set each status's error. */
rtm_status_t rtm_wait(rtm_request_t *req, rtm_msg_status_t *status);
rtm_status_t rtm_test(rtm_request_t *req, int *flag_p, rtm_msg_status_t *status);
rtm_status_t rtm_waitall(int count, rtm_request_t reqs[], rtm_msg_status_t statuses[]);
rtm_status_t rtm_testall(int count, rtm_request_t reqs[], int *flag_p,
                         rtm_msg_status_t statuses[]);
/* *index_p is -1 when every handle is RTM_REQUEST_NULL. */
rtm_status_t rtm_waitany(int count, rtm_request_t reqs[], int *index_p,
                         rtm_msg_status_t *status);
rtm_status_t rtm_testany(int count, rtm_request_t reqs[], int *index_p, int *flag_p,
                         rtm_msg_status_t *status);
/* Non-destructive test: the request stays valid. */
rtm_status_t rtm_request_get_status(rtm_request_t req, int *flag_p,
                                    rtm_msg_status_t *status);
/* Cancel a posted, unmatched receive at once. A send whose message no
 * receive (or matched probe) has taken yet is cancelled once its receiver
 * agrees: rtm_cancel asks and returns; the request then completes, cancelled
 * or sent (status.cancelled says which), without any call of the receiver's
 * beyond its progress. An eager send is complete when it returns and stays
 * sent; a matched receive or send completes normally. Wait on the request
 * afterwards. */
rtm_status_t rtm_cancel(rtm_request_t req);
/* Release a request without waiting: the operation still completes. */
rtm_status_t rtm_request_free(rtm_request_t *req);

rtm_status_t rtm_probe(int source, int tag, rtm_comm_t comm, rtm_msg_status_t *status);
rtm_status_t rtm_iprobe(int source, int tag, rtm_comm_t comm, int *flag_p,
                        rtm_msg_status_t *status);
/* Matched probe: the message is removed from matching and can only be
 * received through rtm_imrecv/rtm_mrecv with the returned handle. */
rtm_status_t rtm_improbe(int source, int tag, rtm_comm_t comm, int *flag_p,
                         rtm_message_t *msg_p, rtm_msg_status_t *status);
rtm_status_t rtm_mprobe(int source, int tag, rtm_comm_t comm, rtm_message_t *msg_p,
                        rtm_msg_status_t *status);
rtm_status_t rtm_imrecv(void *buf, size_t count, rtm_message_t *msg, rtm_request_t *req_p);
rtm_status_t rtm_mrecv(void *buf, size_t count, rtm_message_t *msg,
                       rtm_msg_status_t *status);

/* Collectives */
rtm_status_t rtm_barrier(rtm_comm_t comm);

/* ---- One-sided memory (experimental: issue 15) ---------------------------
 *
 * A rank exposes a region of its memory to the ranks of a communicator with
 * rights (least privilege: only those asked are granted, checked at the
 * target where the transport can: verbs), gets one packed key per peer
 * (rtm_rma_key_pack) and sends each peer its own key with ordinary
 * messages. A peer unpacks it (rtm_rma_key_unpack checks every byte of it)
 * and puts, gets or does 64-bit atomics on the region by offset. The
 * operations are nonblocking: a put's buffer may be reused, a get's buffer
 * and an atomic's *result_p read, only after rtm_rma_flush to that rank,
 * which returns once every operation issued to it is complete at the
 * target. RTM_ERR_NOT_SUPPORTED means "not available on the transport that
 * reaches this rank" (tcp, self; atomics on shm): use messages instead.
 * After rtm_rma_revoke, a peer that uses a key of the region gets a remote
 * access error on verbs (the job ends, naming both ranks); shm cannot
 * enforce it (a same-user process may read the memory through ptrace
 * anyway). Everything is also in docs/architecture.md ("One-sided"). */
#define RTM_RMA_READ    1u       /* rights: get */
#define RTM_RMA_WRITE   2u       /* put */
#define RTM_RMA_ATOMIC  4u       /* atomics */
#define RTM_RMA_KEY_MAX 96       /* bytes of a packed key, at most */
#define RTM_RMA_FADD    1        /* *target += operand; result: old value */
#define RTM_RMA_CSWAP   2        /* if (*target == compare) *target = operand; result: old */

typedef struct rtm_rma_region *rtm_rma_region_t;
/* A peer's region, from its key; filled by rtm_rma_key_unpack only. */
typedef struct rtm_rma_key {
    uint64_t      addr;          /* in the owner's address space */
    uint64_t      len;
    unsigned      rights;        /* granted on the transport that reaches the owner */
    unsigned      asked;         /* exposed with (asked, not granted: "not available") */
    int           world_rank;    /* the owner */
    int           tl;            /* the runtime's transport index */
    unsigned      tl_key_len;
    unsigned char tl_key[64];
} rtm_rma_key_t;

/* Collective over comm (every rank calls it, for its own region). */
rtm_status_t rtm_rma_expose(rtm_comm_t comm, void *addr, size_t len, unsigned rights,
                            rtm_rma_region_t *reg_p);
/* The key for comm rank `rank` (*len_p in: size, out: bytes). */
rtm_status_t rtm_rma_key_pack(rtm_rma_region_t reg, int rank, void *blob, size_t *len_p);
/* Not collective; sets *reg_p to NULL. */
rtm_status_t rtm_rma_revoke(rtm_rma_region_t *reg_p);
rtm_status_t rtm_rma_key_unpack(rtm_comm_t comm, int rank, const void *blob, size_t len,
                                rtm_rma_key_t *key_p);
rtm_status_t rtm_rma_put(rtm_comm_t comm, int rank, const rtm_rma_key_t *key, uint64_t offset,
                         const void *buf, size_t len);
rtm_status_t rtm_rma_get(rtm_comm_t comm, int rank, const rtm_rma_key_t *key, uint64_t offset,
                         void *buf, size_t len);
/* offset 8-byte aligned; *result_p is written by the time the flush returns */
rtm_status_t rtm_rma_atomic(rtm_comm_t comm, int rank, const rtm_rma_key_t *key,
                            uint64_t offset, int op, uint64_t operand, uint64_t compare,
                            uint64_t *result_p);
/* rank RTM_ANY_SOURCE: every rank of comm. Returns the first error of an
 * operation to that rank (RTM_ANY_SOURCE: to any rank of comm) since it was
 * last flushed, never one of an operation to another rank. */
rtm_status_t rtm_rma_flush(rtm_comm_t comm, int rank);
/* Work requests (verbs; system calls on shm) the transport reaching comm
 * rank `rank` posted for one-sided operations so far: for tests. */
rtm_status_t rtm_rma_wr_count(rtm_comm_t comm, int rank, uint64_t *count_p);

#ifdef __cplusplus
}
#endif
#endif /* RTMSG_H */
