/*
 * Handle conversions between C and Fortran (MPI 3.1 section 17.2.4):
 * MPI_*_c2f / MPI_*_f2c and MPI_Status_c2f / f2c.
 *
 * Handles that are small ints in C (communicators, groups, datatypes, ops,
 * infos, error handlers, windows) are their own Fortran integers: the
 * conversion is the identity both ways, and an invalid integer stays an
 * invalid handle that the next call taking it refuses.
 *
 * Requests and matched messages are pointers in C. Each one that is
 * converted gets a Fortran integer from a table (below) that grows as
 * needed and never has a fixed size; converting the same handle again gives
 * the same integer (a hash from handle to integer), so a Fortran loop that
 * tests a request converts it back and forth without growing anything.
 *  - A request's integer lives while the request does: a request handle
 *    carries its generation (mpi_impl.h), so a completed and freed
 *    request's handle is found stale. MPI_Request_f2c of a stale or
 *    unknown integer gives MPI_REQUEST_NULL (what a Fortran handle of a
 *    request MPI_Wait or MPI_Request_free completed must become) and frees
 *    the integer; integers of requests that went away without being asked
 *    for again are reclaimed by a sweep before the table grows, so the
 *    table stays in proportion to the requests alive.
 *  - A message's integer is freed when MPI_Mrecv/MPI_Imrecv consumes the
 *    message (rtmpi_message_forget, called by pt2pt.c before it frees
 *    the message). MPI_MESSAGE_NULL is 0, MPI_MESSAGE_NO_PROC 1.
 */
#include "config.h"

#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

/* Fortran integers of pointer handles: val[i] is the C handle's bits (0 for
 * a free slot); next[] chains a hash bucket, or the free list, through the
 * slot indices (0 ends a chain: slot 0 is the null handle, never used). */
typedef struct ftable {
    uintptr_t *val;
    int       *next;
    int       *bucket;      /* nbuckets heads (a power of two) */
    int        cap;         /* slots, reserved ones included */
    int        reserved;    /* slots 0..reserved-1 are predefined handles */
    int        free_head;
    int        live;
    int        (*stale)(uintptr_t v);   /* NULL: entries are removed explicitly */
} ftable_t;

static int request_stale(uintptr_t v)
{
    return rtmpi_handle_req((MPI_Request)(void *)v) == NULL;
}

static ftable_t requests = { .reserved = 1, .stale = request_stale };
static ftable_t messages = { .reserved = 2 };

static unsigned ft_hash(const ftable_t *t, uintptr_t v)
{
    uint64_t h = (uint64_t)v * 0x9e3779b97f4a7c15ull;

    return (unsigned)(h >> 32) & (unsigned)(t->cap - 1);
}

static int ft_find(const ftable_t *t, uintptr_t v)
{
    if (t->live == 0)
        return 0;
    for (int i = t->bucket[ft_hash(t, v)]; i; i = t->next[i])
        if (t->val[i] == v)
            return i;
    return 0;
}

static void ft_unlink(ftable_t *t, int idx)
{
    int *pp = &t->bucket[ft_hash(t, t->val[idx])];

    while (*pp != idx)
        pp = &t->next[*pp];
    *pp = t->next[idx];
    t->val[idx] = 0;
    t->next[idx] = t->free_head;
    t->free_head = idx;
    t->live--;
}

static void ft_link(ftable_t *t, int idx, uintptr_t v)
{
    unsigned b = ft_hash(t, v);

    t->val[idx] = v;
    t->next[idx] = t->bucket[b];
    t->bucket[b] = idx;
}

/* Doubles the table (64 slots at first) and rehashes it. */
static int ft_grow(ftable_t *t)
{
    int cap = t->cap ? t->cap * 2 : 64;
    uintptr_t *val = calloc((size_t)cap, sizeof(*val));
    int *next = calloc((size_t)cap, sizeof(*next));
    int *bucket = calloc((size_t)cap, sizeof(*bucket));

    if (!val || !next || !bucket || cap < 0) {
        free(val);
        free(next);
        free(bucket);
        return MPI_ERR_NO_MEM;
    }
    if (t->cap)
        memcpy(val, t->val, (size_t)t->cap * sizeof(*val));
    free(t->val);
    free(t->next);
    free(t->bucket);
    int old = t->cap;
    t->val = val;
    t->next = next;
    t->bucket = bucket;
    t->cap = cap;
    t->free_head = 0;
    /* Rehash the live slots; chain the free ones, lowest index first. */
    for (int i = cap - 1; i >= t->reserved; i--) {
        if (i < old && val[i])
            ft_link(t, i, val[i]);
        else {
            next[i] = t->free_head;
            t->free_head = i;
        }
    }
    return MPI_SUCCESS;
}

/* Frees the slots whose handle is gone; returns how many. */
static int ft_sweep(ftable_t *t)
{
    int n = 0;

    if (!t->stale)
        return 0;
    for (int i = t->reserved; i < t->cap; i++) {
        if (t->val[i] && t->stale(t->val[i])) {
            ft_unlink(t, i);
            n++;
        }
    }
    return n;
}

/* The integer of v (not 0), a new one if it has none; 0 out of memory. */
static int ft_get(ftable_t *t, uintptr_t v)
{
    int idx = ft_find(t, v);

    if (idx)
        return idx;
    if (!t->free_head) {
        /* Reclaim first; grow unless a quarter of the table came free. */
        int freed = ft_sweep(t);

        if ((freed == 0 || freed < t->cap / 4) && ft_grow(t) != MPI_SUCCESS && !t->free_head)
            return 0;
    }
    idx = t->free_head;
    t->free_head = t->next[idx];
    ft_link(t, idx, v);
    t->live++;
    return idx;
}

static void ft_destroy(ftable_t *t)
{
    free(t->val);
    free(t->next);
    free(t->bucket);
    t->val = NULL;
    t->next = t->bucket = NULL;
    t->cap = t->free_head = t->live = 0;
}

void rtmpi_handles_finalize(void)
{
    ft_destroy(&requests);
    ft_destroy(&messages);
}

void rtmpi_message_forget(MPI_Message message)
{
    int idx = ft_find(&messages, (uintptr_t)(void *)message);

    if (idx)
        ft_unlink(&messages, idx);
}

/* ---- Requests and messages ------------------------------------------------ */

MPI_Fint PMPI_Request_c2f(MPI_Request request)
{
    if (request == MPI_REQUEST_NULL)
        return 0;
    if (!rtmpi_handle_req(request)) {
        rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_REQUEST,
                    "the request handle is stale: its request completed and was freed");
        return 0;
    }
    int idx = ft_get(&requests, (uintptr_t)(void *)request);
    if (!idx)
        rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM,
                    "out of memory for the Fortran integer of a request");
    return idx;
}
RTMPI_WEAK(Request_c2f)

MPI_Request PMPI_Request_f2c(MPI_Fint request)
{
    if (request < requests.reserved || request >= requests.cap || !requests.val[request])
        return MPI_REQUEST_NULL;
    uintptr_t v = requests.val[request];
    if (request_stale(v)) {
        ft_unlink(&requests, request);
        return MPI_REQUEST_NULL;
    }
    return (MPI_Request)(void *)v;
}
RTMPI_WEAK(Request_f2c)

MPI_Fint PMPI_Message_c2f(MPI_Message message)
{
    if (message == MPI_MESSAGE_NULL)
        return 0;
    if (message == MPI_MESSAGE_NO_PROC)
        return 1;
    int idx = ft_get(&messages, (uintptr_t)(void *)message);
    if (!idx)
        rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM,
                    "out of memory for the Fortran integer of a message");
    return idx;
}
RTMPI_WEAK(Message_c2f)

MPI_Message PMPI_Message_f2c(MPI_Fint message)
{
    if (message == 1)
        return MPI_MESSAGE_NO_PROC;
    if (message < messages.reserved || message >= messages.cap || !messages.val[message])
        return MPI_MESSAGE_NULL;
    return (MPI_Message)(void *)messages.val[message];
}
RTMPI_WEAK(Message_f2c)

/* ---- Handles that are ints in C ------------------------------------------- */

#define RTMPI_INT_HANDLE(_Name, _type) \
    MPI_Fint PMPI_##_Name##_c2f(_type h) { return (MPI_Fint)h; } \
    RTMPI_WEAK(_Name##_c2f) \
    _type PMPI_##_Name##_f2c(MPI_Fint h) { return (_type)h; } \
    RTMPI_WEAK(_Name##_f2c)

RTMPI_INT_HANDLE(Comm, MPI_Comm)
RTMPI_INT_HANDLE(Group, MPI_Group)
RTMPI_INT_HANDLE(Type, MPI_Datatype)
RTMPI_INT_HANDLE(Op, MPI_Op)
RTMPI_INT_HANDLE(Info, MPI_Info)
RTMPI_INT_HANDLE(Errhandler, MPI_Errhandler)
RTMPI_INT_HANDLE(Win, MPI_Win)

/* ---- Statuses --------------------------------------------------------------
 *
 * A Fortran status is MPI_F_STATUS_SIZE integers: MPI_SOURCE, MPI_TAG,
 * MPI_ERROR (at MPI_F_SOURCE, MPI_F_TAG, MPI_F_ERROR), the cancelled flag,
 * then the received byte count in two integers (its bytes as in C). */

_Static_assert(sizeof(MPI_Status) <= MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "a C status fits a Fortran one");
_Static_assert(MPI_F_STATUS_SIZE == 6, "mpi.h's MPI_F_STATUS_SIZE");

MPI_Fint rtm_mpi_f_status_ignore[MPI_F_STATUS_SIZE];
MPI_Fint rtm_mpi_f_statuses_ignore[MPI_F_STATUS_SIZE];

int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    if (!c_status || !f_status || f_status == MPI_F_STATUS_IGNORE ||
        f_status == MPI_F_STATUSES_IGNORE)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG,
                           "c_status or f_status is NULL or an IGNORE constant");
    long long count = c_status->rtmpi_count;

    f_status[MPI_F_SOURCE] = c_status->MPI_SOURCE;
    f_status[MPI_F_TAG] = c_status->MPI_TAG;
    f_status[MPI_F_ERROR] = c_status->MPI_ERROR;
    f_status[3] = c_status->rtmpi_cancelled;
    memcpy(&f_status[4], &count, sizeof(count));
    return MPI_SUCCESS;
}
RTMPI_WEAK(Status_c2f)

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    if (!c_status || !f_status || f_status == MPI_F_STATUS_IGNORE ||
        f_status == MPI_F_STATUSES_IGNORE)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG,
                           "c_status or f_status is NULL or an IGNORE constant");
    long long count;

    c_status->MPI_SOURCE = f_status[MPI_F_SOURCE];
    c_status->MPI_TAG = f_status[MPI_F_TAG];
    c_status->MPI_ERROR = f_status[MPI_F_ERROR];
    c_status->rtmpi_cancelled = f_status[3];
    memcpy(&count, &f_status[4], sizeof(count));
    c_status->rtmpi_count = count;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Status_f2c)
