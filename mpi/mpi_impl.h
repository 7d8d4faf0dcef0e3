/*
 * Private state of the MPI binding (mpi/). The binding is a thin layer
 * over the native API (rtmsg.h) and runtime/binding.h, the one runtime
 * header it can see (mpi/local.mk gives it no other): communicators,
 * point-to-point and matching come from the runtime; datatypes, reduction
 * ops, attributes, topologies and collectives (schedules over
 * point-to-point) live here.
 *
 * Threading: like the runtime, the binding may be called from one thread at
 * a time (MPI_THREAD_SERIALIZED at most), so its tables take no locks.
 */
#ifndef RTMPI_IMPL_H
#define RTMPI_IMPL_H

#include "mpi.h"
#include "rtmsg.h"
#include "binding.h"   /* the runtime's one internal header for the binding */

#include <stddef.h>
#include <stdint.h>

/* Defines PMPI_name's weak alias MPI_name (profiling interface). */
#define RTMPI_STR(_x) #_x
#define RTMPI_WEAK(_name) _Pragma(RTMPI_STR(weak MPI_##_name = PMPI_##_name))

/* ---- Errors (errors.c) ---------------------------------------------------- */

/* Raises error class `errclass` on communicator `comm` (MPI_COMM_NULL: the
 * handler of MPI_COMM_WORLD) from MPI function `fn` ("PMPI_Send"): under
 * MPI_ERRORS_ARE_FATAL prints one line and ends the job; otherwise calls the
 * handler and returns errclass for the caller to return. */
int rtmpi_error(MPI_Comm comm, const char *fn, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same for a native status; the detail comes from rtm_last_error(). */
int rtmpi_error_rtm(MPI_Comm comm, const char *fn, rtm_status_t status);
/* The MPI error class for a native status. */
int rtmpi_class_of(rtm_status_t status);
void rtmpi_errhandler_init(void);
/* Error handlers are counted (errors.c): a communicator holds one reference
 * to its handler from creation (inherited) or set_errhandler until it is
 * freed or changes it. Predefined handlers are not counted. */
void rtmpi_errhandler_retain(MPI_Errhandler eh);
void rtmpi_errhandler_release(MPI_Errhandler eh);
/* The largest error class or code in use (MPI_LASTUSEDCODE). */
int rtmpi_err_lastused(void);
void rtmpi_errors_finalize(void);

/* ---- Fortran handles (handles.c) ------------------------------------------ */

/* Forgets the Fortran integer of a message MPI_Imrecv consumes. */
void rtmpi_message_forget(MPI_Message message);
void rtmpi_handles_finalize(void);

/* Entry check of every function that needs an initialized library: one
 * load and a branch on the hot paths (`live`); rtmpi_check_init tells why. */
int rtmpi_check_init(const char *fn);
#define RTMPI_ENTER() \
    do { \
        if (__builtin_expect(!rtmpi_state.live, 0)) \
            return rtmpi_check_init(__func__); \
    } while (0)

struct rtmpi_state {
    int live;          /* initialized and not finalized */
    int initialized;
    int finalized;
    int thread_level;
    int world_rank;
    int world_size;
};
extern struct rtmpi_state rtmpi_state;

/* ---- Datatypes (datatype.c) ----------------------------------------------
 *
 * A type's typemap is a short list of segments. A segment is one contiguous
 * run of bytes of one basic type (disp, len), or, when `rep` >= 0, that run
 * (or one element of a child type) repeated over up to RTMPI_REP_LOOPS
 * nested loops of (count, stride) kept in the type's `reps`. So contiguous,
 * vector and hvector types and their nestings cost O(1) memory whatever
 * their counts, irregular types (indexed, struct) cost one segment per
 * non-empty block, and zero-length blocks are not in the map. Only
 * datatype.c reads segments; everything else goes through rtmpi_dtype_walk,
 * rtmpi_pack/unpack and rtmpi_dtype_contig. */

#define RTMPI_REP_LOOPS 4

typedef struct rtmpi_seg {
    MPI_Aint disp;
    MPI_Aint len;       /* bytes of the run; with a child: the child's size */
    int      basic;     /* predefined basic type of the run's elements */
    int      rep;       /* -1: the run once; else index in the type's reps */
} rtmpi_seg_t;

struct rtmpi_dtype;

/* A segment repeated: the run (child NULL), or one element of child, at
 * disp + sum over k of i_k * stride[k], i_k < count[k], loop 0 innermost. */
typedef struct rtmpi_rep {
    struct rtmpi_dtype *child;   /* holds a reference */
    int       nloops;
    MPI_Count count[RTMPI_REP_LOOPS];
    MPI_Aint  stride[RTMPI_REP_LOOPS];
} rtmpi_rep_t;

/* What a constructor was called with (MPI_Type_get_contents); the types
 * are held by reference. */
typedef struct rtmpi_dtcontents {
    int       nints, naints, ntypes;
    int      *ints;
    MPI_Aint *aints;
    struct rtmpi_dtype **types;
} rtmpi_dtcontents_t;

typedef struct rtmpi_dtype {
    int         in_use;       /* the handle is valid */
    int         refcount;     /* handle + operations in flight + types built on it */
    int         predefined;
    int         committed;
    int         combiner;
    MPI_Datatype handle;      /* 0 for the objects a constructor makes inside */
    MPI_Count   size;         /* bytes of data in one element */
    MPI_Aint    lb, extent;
    unsigned char lb_mark, ub_mark;   /* lb / lb + extent are explicit markers of the
                                 type map (MPI 3.1 4.1.6): set by resized, kept by
                                 every type built on one that has them */
    MPI_Aint    true_lb, true_ub;
    MPI_Aint    align;        /* largest alignment of its basic types */
    int         basic;        /* the one basic type of every element, or
                                 RTMPI_BASIC_MIXED */
    int         contig;       /* one element's data is one byte range, in order,
                                 starting at segs[0].disp */
    int         direct;       /* committed, and `count` elements at buf are one byte
                                 range at buf + direct_off for every count (the
                                 communication fast paths' one test; 0 only costs
                                 the general path) */
    MPI_Aint    direct_off;
    MPI_Count   nbasic;       /* basic elements in one element */
    int         nsegs, nreps;
    rtmpi_seg_t *segs;
    rtmpi_rep_t *reps;
    rtmpi_dtcontents_t contents;
    char        name[MPI_MAX_OBJECT_NAME];
} rtmpi_dtype_t;

/* rtmpi_dtype_t.basic of a type whose elements are of several basic types
 * (no predefined reduction applies to it). */
#define RTMPI_BASIC_MIXED (-1)

void rtmpi_dtype_init(void);
void rtmpi_dtype_finalize(void);

extern rtmpi_dtype_t **rtmpi_types;   /* by handle (datatype.c) */
extern int rtmpi_ntypes;

/* NULL when the handle is invalid. */
static inline rtmpi_dtype_t *rtmpi_dtype_get(MPI_Datatype dt)
{
    rtmpi_dtype_t *d;

    /* one unsigned compare refuses negative handles too; slot 0
     * (MPI_DATATYPE_NULL) is always NULL */
    if ((unsigned)dt >= (unsigned)rtmpi_ntypes)
        return NULL;
    d = rtmpi_types[dt];
    return d && d->in_use ? d : NULL;
}
/* The object even after its handle was freed (operations hold a reference). */
rtmpi_dtype_t *rtmpi_dtype_obj(MPI_Datatype dt);
/* Checks a datatype argument of a communication call (valid and committed). */
static inline int rtmpi_dtype_check(MPI_Datatype dt, rtmpi_dtype_t **dtp)
{
    rtmpi_dtype_t *d = rtmpi_dtype_get(dt);

    if (!d || !d->committed)
        return MPI_ERR_TYPE;
    *dtp = d;
    return MPI_SUCCESS;
}
/* Marks d committed and sets its fast-path fields (direct, direct_off). */
void rtmpi_dtype_commit(rtmpi_dtype_t *d);
/* 1 when count elements of d are fewer bytes than MPI_Count holds, and the
 * addresses they touch (from the buffer's) fit MPI_Aint: what every call
 * that multiplies a count by a size or an extent checks first. */
int rtmpi_dtype_count_fits(const rtmpi_dtype_t *d, MPI_Count count);
/* A committed type of `bytes` MPI_BYTEs (a count beyond int), without
 * contents: the binding's own (MPI_Type_free frees it). */
int rtmpi_dtype_bytes_new(MPI_Count bytes, MPI_Datatype *newtype);
void rtmpi_dtype_retain(MPI_Datatype dt);
void rtmpi_dtype_release(MPI_Datatype dt);
/* 1 when `count` elements at buf occupy one contiguous byte range, which then
 * starts at buf + *offset_p. */
static inline int rtmpi_dtype_contig(const rtmpi_dtype_t *d, MPI_Count count,
                                     MPI_Aint *offset_p)
{
    if (d->nsegs == 0 || count == 0) {
        *offset_p = 0;
        return 1;
    }
    if (d->contig && (count == 1 || d->size == d->extent)) {
        *offset_p = d->segs[0].disp;
        return 1;
    }
    return 0;
}
/* buf + off, for a buffer that type displacements address: with MPI_BOTTOM
 * or the scratch of a type of absolute addresses, buf alone is no address
 * of any object (NULL, or scratch minus an address, which may wrap); only
 * the sum is. Computed in integers, so that no out-of-object pointer is
 * ever formed (C gives pointer arithmetic outside an object no meaning). */
static inline void *rtmpi_addr(const void *buf, MPI_Aint off)
{
    return (void *)((uintptr_t)buf + (uintptr_t)off);
}
/* Visits the contiguous runs of `count` elements of d in typemap order (the
 * order pack writes them): fn(disp, len, basic, arg) with disp in bytes from
 * the buffer's address and len in bytes, all of one basic type (for the pair
 * types of MAXLOC/MINLOC: basic is the pair type, and a run holds
 * rtmpi_run_elems(basic, len) pairs laid out as C lays out the pair's
 * struct). Stops at the first nonzero return of fn and returns it; 0 when
 * every run was visited. Whatever represents a type, this stays the one way
 * to read its typemap outside datatype.c. */
typedef int rtmpi_dtype_walk_fn(MPI_Aint disp, MPI_Aint len, int basic, void *arg);
int rtmpi_dtype_walk(const rtmpi_dtype_t *d, MPI_Count count, rtmpi_dtype_walk_fn *fn,
                     void *arg);
/* Pack/unpack `count` elements; unpack stops after `bytes` bytes of input.
 * Neither allocates. */
void rtmpi_pack(const void *buf, MPI_Count count, const rtmpi_dtype_t *d, void *out);
void rtmpi_unpack(const void *in, size_t bytes, void *buf, MPI_Count count,
                  const rtmpi_dtype_t *d);
/* Bytes of data of one element of a predefined type (for a pair type the
 * sum of its members: 12 for MPI_DOUBLE_INT). */
size_t rtmpi_basic_size(int basic);
/* Elements of basic type `basic` that begin in a run of `len` bytes the
 * walk visited (MPI_SHORT_INT's members are two runs: the first begins it). */
size_t rtmpi_run_elems(int basic, MPI_Aint len);

/* ---- Reduction ops (op.c) ------------------------------------------------- */

int rtmpi_op_check(MPI_Op op);
/* A nonblocking collective holds its op: freed meanwhile, it still applies
 * and its slot is not reused until released (op.c). */
void rtmpi_op_retain(MPI_Op op);
void rtmpi_op_release(MPI_Op op);
int rtmpi_op_commutative(MPI_Op op);
/* inout[i] = in[i] op inout[i]; returns MPI_ERR_OP when the op does not
 * apply to the datatype. */
int rtmpi_op_apply(MPI_Op op, const void *in, void *inout, MPI_Count count,
                   MPI_Datatype dt);
/* Checks that op applies to dt without applying it. */
int rtmpi_op_valid_for(MPI_Op op, MPI_Datatype dt);
void rtmpi_op_init(void);

/* ---- Communicators and groups (comm.c, group.c) -------------------------- */

typedef struct rtmpi_attr {
    struct rtmpi_attr *next;
    int   keyval;
    void *value;
} rtmpi_attr_t;

typedef struct rtmpi_topo {
    int  kind;            /* MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH */
    int  ndims;
    int *dims, *periods, *coords;
    int  indegree, outdegree, weighted;
    int *sources, *sourceweights, *dests, *destweights;
    int  nnodes, nedges;  /* MPI_GRAPH: the whole graph, as MPI_Graph_create had it */
    int *index, *edges;
} rtmpi_topo_t;

/* An intercommunicator's own group and bridge (intercomm.h). */
struct rtmpi_inter;

/* On an intercommunicator (inter != NULL) size and world_ranks are the
 * remote group's, the ranks point-to-point names (MPI_Comm_size is
 * inter->local_size), rank is this process's rank in its own group, and
 * coll is the bridge: a native intracommunicator of both groups. */
typedef struct rtmpi_comm {
    int            in_use;      /* 0 once MPI_Comm_free'd (the object may live on) */
    int            refs;        /* requests holding it: destroyed at free once 0 */
    rtm_comm_t     pt2pt;       /* user messages */
    rtm_comm_t     coll;        /* hidden duplicate: collectives never match user messages */
    int            rank, size;
    int           *world_ranks; /* world rank of each rank (the group) */
    struct rtmpi_inter *inter;  /* NULL on an intracommunicator */
    MPI_Info       info;        /* MPI_Comm_set_info's hints (a copy), or MPI_INFO_NULL */
    MPI_Errhandler errhandler;
    rtmpi_attr_t  *attrs;
    rtmpi_topo_t  *topo;
    unsigned       coll_seq;    /* collective instance count: the tag of the next one */
    struct coll_shm *shm;       /* shared-memory collectives' segment (coll_shm.c), or NULL */
    int            shm_state;   /* coll_shm.c: not tried yet, in use, off, being made */
    char           name[MPI_MAX_OBJECT_NAME];
} rtmpi_comm_t;

extern rtmpi_comm_t **rtmpi_comms;   /* by handle (comm.c) */
extern int rtmpi_ncomms;

/* NULL when invalid. */
static inline rtmpi_comm_t *rtmpi_comm_get(MPI_Comm comm)
{
    rtmpi_comm_t *c;

    /* slot 0 (MPI_COMM_NULL) is always NULL */
    if ((unsigned)comm >= (unsigned)rtmpi_ncomms)
        return NULL;
    c = rtmpi_comms[comm];
    return c && c->in_use ? c : NULL;
}
/* The object even after MPI_Comm_free, while requests hold it; NULL when
 * the handle names nothing. */
static inline rtmpi_comm_t *rtmpi_comm_obj(MPI_Comm comm)
{
    return comm > 0 && comm < rtmpi_ncomms ? rtmpi_comms[comm] : NULL;
}
/* A request of the binding's own (rtmpi_req_alloc) holds its communicator,
 * so an MPI_Comm_free while it is pending or persistent leaves the object,
 * its native communicators and its error handler alive and its handle
 * unused until the request is released. */
void rtmpi_comm_retain(MPI_Comm comm);
void rtmpi_comm_release(MPI_Comm comm);
int rtmpi_comm_init(void);
void rtmpi_comm_finalize(void);
/* Wraps native communicator `pt2pt` (taking ownership) into a new handle. */
int rtmpi_comm_wrap(rtm_comm_t pt2pt, const char *fn, MPI_Comm parent, MPI_Comm *newcomm_p);
void rtmpi_topo_free(rtmpi_topo_t *t);
rtmpi_topo_t *rtmpi_topo_copy(const rtmpi_topo_t *t);
int rtmpi_attrs_copy(MPI_Comm oldcomm, rtmpi_comm_t *from, rtmpi_comm_t *to);
int rtmpi_attrs_delete_all(MPI_Comm comm, rtmpi_comm_t *c);
/* Deletes MPI_COMM_SELF's attributes, the last set first (MPI_Finalize's
 * first step). */
void rtmpi_attrs_finalize_self(void);
/* Frees the keyvals and datatype attributes left (MPI_Finalize). */
void rtmpi_attrs_finalize(void);
/* Datatype attributes (attr.c), hooked into Type_dup and Type_free: copy
 * (on failure *newtype is freed) and delete them; both raise their error
 * and return it. */
int rtmpi_type_dup_attrs(const char *fn, MPI_Datatype oldtype, MPI_Datatype *newtype);
int rtmpi_type_free_attrs(const char *fn, MPI_Datatype dt);

int rtmpi_group_new(int n, const int *world_ranks, MPI_Group *group_p);
void rtmpi_group_finalize(void);
/* Frees the info objects the program left (MPI_Finalize: no MPI_Info call
 * is allowed after it). */
void rtmpi_info_finalize(void);

/* ---- Requests (request.c, pt2pt.c) ----------------------------------------
 *
 * An MPI request is a runtime request (runtime/binding.h): the handle names
 * the runtime's object and carries its generation in the top bits, so a
 * stale copy of a handle (its request completed and was freed, the object
 * maybe reused since) is refused with MPI_ERR_REQUEST, never acted on. The
 * binding's words in the request: binding[0] the communicator, binding[1]
 * NULL for a plain contiguous send or receive (the fast path: the runtime's
 * request is all there is), else the rtmpi_request_t below that does the
 * work (persistent, packed, buffered, PROC_NULL, matched-probe and
 * collective requests), the runtime request then being a binding_req_new
 * that gives it its handle. */

typedef enum rtmpi_req_kind {
    RTMPI_REQ_SEND,
    RTMPI_REQ_RECV,
    RTMPI_REQ_COLL,     /* a nonblocking collective: `sched` does the work */
    RTMPI_REQ_DONE,
    RTMPI_REQ_GREQ,     /* a generalized request: `greq` has its callbacks */
} rtmpi_req_kind_t;

/* MPI's four send modes (pt2pt.c). A ready send goes as a standard one
 * (its receive is posted); a buffered one is copied into the attached
 * buffer and sent from there as a standard one. Receives take
 * RTMPI_SEND_STANDARD where a mode is asked for. */
typedef enum rtmpi_send_mode {
    RTMPI_SEND_STANDARD,
    RTMPI_SEND_SYNC,      /* completes once the receive has matched */
    RTMPI_SEND_READY,
    RTMPI_SEND_BUFFERED,
} rtmpi_send_mode_t;

struct rtmpi_sched;
struct rtmpi_greq;

typedef struct rtmpi_request {
    rtmpi_req_kind_t kind;
    int            persistent;
    int            active;       /* persistent: started and not yet completed */
    int            complete;     /* status below is final */
    int            freed;        /* MPI_Request_free'd while in flight */
    int            bsend;        /* buffer is a slot of the attached Bsend buffer */
    MPI_Comm       comm;
    rtm_comm_t     ncomm;        /* native communicator the operation runs on */
    rtm_request_t  native;
    /* the user's buffer when the data is (un)packed through `packbuf` */
    void          *buf;
    int            count;
    MPI_Datatype   dtype;
    void          *packbuf;
    size_t         packbytes;
    /* persistent arguments */
    int            peer, tag;
    rtmpi_send_mode_t mode;
    struct rtmpi_sched *sched;
    struct rtmpi_greq *greq;     /* RTMPI_REQ_GREQ (grequest.c) */
    MPI_Status     status;
    struct rtmpi_request *next_orphan;
    binding_req_t *handle;       /* the runtime request its MPI handle names, if any */
} rtmpi_request_t;

#define RTMPI_HANDLE_ADDR_MASK ((((uintptr_t)1) << BINDING_REQ_ADDR_BITS) - 1)
#define RTMPI_HANDLE_GEN_MASK  ((((uintptr_t)1) << (64 - BINDING_REQ_ADDR_BITS)) - 1)

static inline MPI_Request rtmpi_handle(const binding_req_t *rq)
{
    return (MPI_Request)(void *)((uintptr_t)rq |
                                 ((uintptr_t)rq->gen & RTMPI_HANDLE_GEN_MASK)
                                 << BINDING_REQ_ADDR_BITS);
}

/* The request a handle (not MPI_REQUEST_NULL) names; NULL when it is stale.
 * (A generation of 16 bits: a copy kept across 65536 reuses of its object
 * would pass.) */
static inline binding_req_t *rtmpi_handle_req(MPI_Request h)
{
    uintptr_t v = (uintptr_t)(void *)h;
    binding_req_t *rq = (binding_req_t *)(v & RTMPI_HANDLE_ADDR_MASK);

    return ((uintptr_t)rq->gen & RTMPI_HANDLE_GEN_MASK) == v >> BINDING_REQ_ADDR_BITS ? rq : NULL;
}

/* A handle already checked by rtmpi_handle_req. */
static inline binding_req_t *rtmpi_handle_req_checked(MPI_Request h)
{
    return (binding_req_t *)((uintptr_t)(void *)h & RTMPI_HANDLE_ADDR_MASK);
}

static inline struct rtmpi_request *rtmpi_rq_ext(const binding_req_t *rq)
{
    return (struct rtmpi_request *)rq->binding[1];
}

static inline MPI_Comm rtmpi_rq_comm(const binding_req_t *rq)
{
    return (MPI_Comm)(intptr_t)rq->binding[0];
}

/* The fast path's request: the runtime's alone. */
static inline MPI_Request rtmpi_handle_fast(binding_req_t *rq, MPI_Comm comm)
{
    rq->binding[0] = (uintptr_t)(intptr_t)comm;
    return rtmpi_handle(rq);
}

/* Gives r (rtmpi_req_alloc'ed) a handle; MPI_ERR_NO_MEM when out of memory. */
int rtmpi_handle_new(rtmpi_request_t *r, MPI_Request *request_p);

struct rtmpi_request *rtmpi_req_alloc(rtmpi_req_kind_t kind, MPI_Comm comm);
void rtmpi_req_release(rtmpi_request_t *r);
/* Starts a send/recv on native communicator ncomm into request r (which the
 * caller allocated); handles packing. Returns an MPI error class. */
int rtmpi_p2p_start(rtmpi_request_t *r, rtmpi_req_kind_t kind, const void *buf, int count,
                    MPI_Datatype dt, int peer, int tag, rtm_comm_t ncomm,
                    rtmpi_send_mode_t mode);
/* 1 when r is complete (r->status final). */
int rtmpi_req_poll(rtmpi_request_t *r);
/* Drives the runtime and the binding's own schedules and orphans once;
 * returns the number of events seen. */
int rtmpi_progress(void);
/* Blocks until r completes. */
void rtmpi_req_wait_complete(rtmpi_request_t *r);
void rtmpi_status_set(MPI_Status *st, const rtm_msg_status_t *ns);
void rtmpi_status_empty(MPI_Status *st);
void rtmpi_status_copy(MPI_Status *dst, const MPI_Status *src);
void rtmpi_orphan_add(rtmpi_request_t *r);
void rtmpi_requests_finalize(void);
/* Generalized requests (grequest.c): 1 when r is complete (its status
 * filled by the query callback); the free callback at release; the cancel
 * callback. */
int rtmpi_greq_poll(rtmpi_request_t *r);
/* A poll function for a generalized request of the library's own: called
 * with poll_state by every completion call that finds it not complete,
 * until MPI_Grequest_complete (grequest.c) */
void rtmpi_greq_set_poll(MPI_Request request, int (*poll_fn)(void *), void *poll_state);
void rtmpi_greq_release(rtmpi_request_t *r);
int rtmpi_greq_cancel(rtmpi_request_t *r);
/* MPI_Request_free of a generalized request: its handle stays valid for
 * MPI_Grequest_complete, which then frees it. */
void rtmpi_greq_free(rtmpi_request_t *r);
/* Buffered sends (bsend.c): packs the message into a slot of the attached
 * buffer and starts sending it from there (MPI_SUCCESS, or the error the
 * handler returned); the send completes on its own. */
int rtmpi_bsend_start(const char *fn, const void *buf, int count, rtmpi_dtype_t *d, int dest,
                      int tag, MPI_Comm comm, rtmpi_comm_t *c);
/* Frees the slot of a buffered send's request. */
void rtmpi_bsend_release(rtmpi_request_t *r);
/* Waits until every buffered message has left the attached buffer. */
int rtmpi_bsend_detach_all(void);

/* ---- One-sided communication (win.c, rma.c, win_impl.h) ------------------ */

/* Raises errclass on window `win` through its handler eh (errors.c). */
int rtmpi_error_win(MPI_Win win, MPI_Errhandler eh, const char *fn, int errclass,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int rtmpi_errhandler_valid(MPI_Errhandler eh);
/* Window keyvals and attributes (attr.c); the set/get/delete ones return an
 * error class (MPI_ERR_KEYVAL: not a window keyval) and raise nothing. */
int rtmpi_win_keyval_create(MPI_Win_copy_attr_function *copy_fn,
                            MPI_Win_delete_attr_function *delete_fn, int *keyval,
                            void *extra_state);
int rtmpi_win_keyval_free(int *keyval);
int rtmpi_win_attr_set(MPI_Win win, rtmpi_attr_t **head, int keyval, void *value);
int rtmpi_win_attr_get(rtmpi_attr_t **head, int keyval, void *value, int *flag);
int rtmpi_win_attr_delete(MPI_Win win, rtmpi_attr_t **head, int keyval);
int rtmpi_win_attrs_delete_all(MPI_Win win, rtmpi_attr_t **head);
/* Windows that exist: while nonzero the blocking paths drive
 * rtmpi_progress (so a target blocked anywhere serves one-sided
 * operations) instead of the runtime's own waits. */
extern int rtmpi_rma_nactive;
/* binding_rma_flush calls of the one-sided engine (MPI_T rtm_rma_flushes) */
extern uint64_t rtmpi_rma_flushes;
/* Blocking collectives this rank ran through a communicator's shared-memory
 * segment (coll_shm.c; MPI_T's rtm_coll_shm_calls). */
extern uint64_t rtmpi_coll_shm_calls;
int rtmpi_rma_progress(void);
/* Frees the windows the program left (MPI_Finalize, collective). */
void rtmpi_win_finalize(void);

/* ---- Collectives (coll_sched.c, coll_*.c) --------------------------------- */

int rtmpi_sched_progress_all(void);
int rtmpi_sched_active(void);
int rtmpi_sched_poll(struct rtmpi_sched *s);
int rtmpi_sched_error(struct rtmpi_sched *s);
void rtmpi_sched_free(struct rtmpi_sched *s);
/* Frees the scratch blocks kept between collectives (MPI_Finalize). */
void rtmpi_sched_finalize(void);

/* 1 when the binding has work of its own to drive (collective schedules,
 * one-sided windows to serve): blocking calls then poll rtmpi_progress
 * rather than block in the runtime's own waits. */
static inline int rtmpi_own_work(void)
{
    return rtmpi_rma_nactive || rtmpi_sched_active();
}

#endif
