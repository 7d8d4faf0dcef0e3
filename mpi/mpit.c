/*
 * The MPI tool information interface, MPI_T (MPI 3.1 chapter 14).
 *
 * Control variables are the config rows (common/rtconfig.h), generated
 * from the registered tables in registration order: index i is the i-th
 * row of all tables, its name, type and doc the row's own, so MPI_T cannot
 * drift from rtm_info and docs/config.md. What a row does not say (how
 * verbose it is, whether it may change once the library runs) is in
 * cvar_policies below: a row left out there is constant in a running
 * rank, which is the safe default for a new row.
 *
 * A variable is written only while the runtime runs (rtm_init re-reads
 * every row from the environment, so an earlier write would be lost:
 * MPI_T_ERR_CVAR_SET_NOT_NOW before MPI_Init; the environment sets a row
 * for init), and only the rows read at each use, whose change is safe at
 * any moment; every other row answers MPI_T_ERR_CVAR_SET_NEVER.
 *
 * Categories: "rtmsg" (index 0) holds one category per config table
 * (component), each with its rows and its performance variables.
 *
 * Performance variables are what the runtime counts (runtime/binding.h
 * binding_counter): per transport of the build, matched messages and bytes
 * sent and received, and how many of them went by rendezvous (COUNTER);
 * for the rank, unexpected messages held (LEVEL) and the most held at once
 * (HIGHWATERMARK), eager sends that waited for a credit (COUNTER), the idle
 * policy (STATE, an enumeration). Counters are per handle: stopped when
 * allocated, they count from 0 what happens while started, and may be
 * reset or written; the others are continuous and read-only.
 *
 * No MPI_T call invokes an error handler: each returns its MPI_T_ERR_*
 * class and leaves a sentence in rtm_last_error(). Not thread-safe, like
 * the rest of the binding (MPI_THREAD_SERIALIZED at most).
 */
#include "config.h"

#include "mpi_impl.h"
#include "binding.h"
#include "common/error.h"
#include "common/log.h"
#include "common/rtconfig.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MPI_T_init_thread calls not yet matched by MPI_T_finalize. */
static int mpit_refs;

static int mpit_fail(int code, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int mpit_fail(int code, const char *fn, const char *fmt, ...)
{
    char detail[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    rtm_error_set(RTM_ERR_INVALID_ARG, "%s: %s", fn[0] == 'P' ? fn + 1 : fn, detail);
    return code;
}

#define MPIT_ENTER() \
    do { \
        if (mpit_refs == 0) \
            return mpit_fail(MPI_T_ERR_NOT_INITIALIZED, __func__, \
                             "the tool interface is not initialized (MPI_T_init_thread)"); \
    } while (0)

#define MPIT_NEED(_ptr) \
    do { \
        if ((_ptr) == NULL) \
            return mpit_fail(MPI_T_ERR_INVALID, __func__, "%s is NULL", #_ptr); \
    } while (0)

/* A string out-parameter (MPI 3.1 section 14.3.3): len NULL: nothing;
 * *len 0: *len is set to the length the whole string needs, terminator
 * included; otherwise at most *len - 1 characters and a terminator are
 * copied (when buf is not NULL) and *len is what was written, terminator
 * included. */
static void put_string(const char *src, char *buf, int *len)
{
    size_t n = strlen(src);

    if (len == NULL)
        return;
    if (*len <= 0) {
        *len = (int)n + 1;
        return;
    }
    if (n > (size_t)*len - 1)
        n = (size_t)*len - 1;
    if (buf != NULL) {
        memcpy(buf, src, n);
        buf[n] = '\0';
    }
    *len = (int)n + 1;
}

/* ---- Enumerations ---------------------------------------------------------- */

struct rtmpi_t_enum {
    const char *name;
    const char *choices;   /* "a|b|c": item i has value i */
};

/* One per ENUM row seen, made on first use so the handle stays the same;
 * the idle policy's for the STATE variable. A few rows have choices: the
 * table grows as needed. */
static struct rtmpi_t_enum **row_enums;
static int num_row_enums;
static struct rtmpi_t_enum idle_enum = {"rtm_idle_policy", "unresolved|spin|yield"};

static MPI_T_enum enum_for(const char *name, const char *choices)
{
    struct rtmpi_t_enum **grown;
    struct rtmpi_t_enum *e;

    for (int i = 0; i < num_row_enums; i++)
        if (row_enums[i]->choices == choices)
            return row_enums[i];
    e = malloc(sizeof(*e));
    grown = realloc(row_enums, (size_t)(num_row_enums + 1) * sizeof(*grown));
    if (e == NULL || grown == NULL) {
        free(e);
        if (grown != NULL)
            row_enums = grown;
        return MPI_T_ENUM_NULL;
    }
    row_enums = grown;
    e->name = name;
    e->choices = choices;
    row_enums[num_row_enums++] = e;
    return e;
}

static int enum_valid(MPI_T_enum e)
{
    if (e == &idle_enum)
        return 1;
    for (int i = 0; i < num_row_enums; i++)
        if (row_enums[i] == e)
            return 1;
    return 0;
}

static int choice_count(const char *choices)
{
    int n = 1;

    for (const char *p = choices; *p != '\0'; p++)
        n += *p == '|';
    return n;
}

/* Item i of "a|b|c" into buf. */
static void choice_name(const char *choices, int i, char *buf, size_t len)
{
    const char *p = choices;

    while (i-- > 0 && (p = strchr(p, '|')) != NULL)
        p++;
    snprintf(buf, len, "%.*s", p ? (int)strcspn(p, "|") : 0, p ? p : "");
}

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    MPIT_ENTER();
    if (!enum_valid(enumtype))
        return mpit_fail(MPI_T_ERR_INVALID_HANDLE, __func__, "not an enumeration handle");
    MPIT_NEED(num);
    *num = choice_count(enumtype->choices);
    put_string(enumtype->name, name, name_len);
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_enum_get_info)

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name,
                         int *name_len)
{
    char item[128];

    MPIT_ENTER();
    if (!enum_valid(enumtype))
        return mpit_fail(MPI_T_ERR_INVALID_HANDLE, __func__, "not an enumeration handle");
    if (index < 0 || index >= choice_count(enumtype->choices))
        return mpit_fail(MPI_T_ERR_INVALID_ITEM, __func__, "item %d of %s: it has %d", index,
                         enumtype->name, choice_count(enumtype->choices));
    MPIT_NEED(value);
    *value = index;
    choice_name(enumtype->choices, index, item, sizeof(item));
    put_string(item, name, name_len);
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_enum_get_item)

/* ---- Control variables ------------------------------------------------------ */

/* What a row does not say. scope LOCAL, ALL, ALL_EQ: read at each use,
 * so writable while the runtime runs (ALL: to be set on every rank to take
 * full effect; ALL_EQ: every rank must agree, as the collectives' switch
 * points pick one algorithm for all). Anything else,
 * and every row not listed: constant once the rank runs. */
typedef struct cvar_policy {
    const char *name;
    int         verbosity;
    int         scope;
} cvar_policy_t;

static const cvar_policy_t cvar_policies[] = {
    /* also copied to the logger's level when written (cvar_store) */
    {"RTM_LOG_LEVEL",            MPI_T_VERBOSITY_USER_BASIC,   MPI_T_SCOPE_LOCAL},
    {"RTM_TRANSPORTS",           MPI_T_VERBOSITY_USER_BASIC,   MPI_T_SCOPE_CONSTANT},
    {"RTM_EAGER_CREDITS",        MPI_T_VERBOSITY_TUNER_BASIC,  MPI_T_SCOPE_CONSTANT},
    /* progress.c reads it at each poll of a socket transport */
    {"RTM_NET_POLL_INTERVAL",    MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_LOCAL},
    /* rndv.c reads it at each rendezvous, on both sides (the sender
     * exposes its buffer from it, the receiver gets from it); where they
     * differ the transfer is a copy, as without it */
    {"RTM_RNDV_GET_BIDIR",       MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_ALL},
    /* the collectives read these when they build a schedule */
    {"RTM_MPI_COLL_SCRATCH",     MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_ALL_EQ},
    {"RTM_MPI_BCAST_LARGE",      MPI_T_VERBOSITY_TUNER_BASIC,  MPI_T_SCOPE_ALL_EQ},
    {"RTM_MPI_REDUCE_LARGE",     MPI_T_VERBOSITY_TUNER_BASIC,  MPI_T_SCOPE_ALL_EQ},
    {"RTM_MPI_ALLREDUCE_RING",   MPI_T_VERBOSITY_TUNER_BASIC,  MPI_T_SCOPE_ALL_EQ},
    {"RTM_MPI_ALLGATHER_RING",   MPI_T_VERBOSITY_TUNER_BASIC,  MPI_T_SCOPE_ALL_EQ},
    {"RTM_MPI_ALLTOALL_PAIRWISE", MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_SCOPE_ALL_EQ},
};

typedef struct cvar {
    const rtm_cfg_table_t *table;
    const rtm_cfg_row_t   *row;
} cvar_t;

static int cvar_count(void)
{
    int n = 0;

    for (const rtm_cfg_table_t *t = rtm_config_tables(); t != NULL; t = t->next)
        n += (int)t->num_rows;
    return n;
}

static int cvar_at(int index, cvar_t *cv)
{
    if (index < 0)
        return 0;
    for (const rtm_cfg_table_t *t = rtm_config_tables(); t != NULL; t = t->next) {
        if ((size_t)index < t->num_rows) {
            cv->table = t;
            cv->row = &t->rows[index];
            return 1;
        }
        index -= (int)t->num_rows;
    }
    return 0;
}

static const cvar_policy_t *cvar_policy(const rtm_cfg_row_t *row)
{
    for (size_t i = 0; i < sizeof(cvar_policies) / sizeof(cvar_policies[0]); i++)
        if (!strcmp(cvar_policies[i].name, row->name))
            return &cvar_policies[i];
    return NULL;
}

static int cvar_verbosity(const cvar_t *cv)
{
    const cvar_policy_t *p = cvar_policy(cv->row);

    if (p != NULL)
        return p->verbosity;
    return !strcmp(cv->table->component, "launcher") ? MPI_T_VERBOSITY_USER_DETAIL
                                                     : MPI_T_VERBOSITY_TUNER_DETAIL;
}

static int cvar_scope(const cvar_t *cv)
{
    const cvar_policy_t *p = cvar_policy(cv->row);

    return p != NULL ? p->scope : MPI_T_SCOPE_CONSTANT;
}

static int cvar_writable(const cvar_t *cv)
{
    int scope = cvar_scope(cv);

    return scope != MPI_T_SCOPE_CONSTANT && scope != MPI_T_SCOPE_READONLY;
}

static int int_fits(const rtm_cfg_row_t *row)
{
    return row->min >= INT_MIN && row->max <= INT_MAX;
}

static MPI_Datatype cvar_datatype(const rtm_cfg_row_t *row)
{
    switch (row->type) {
    case RTM_CFG_INT:    return int_fits(row) ? MPI_INT : MPI_COUNT;
    case RTM_CFG_SIZE:   return MPI_UNSIGNED_LONG_LONG;
    case RTM_CFG_STRING: return MPI_CHAR;
    case RTM_CFG_BOOL:
    case RTM_CFG_ENUM:   break;
    }
    return MPI_INT;
}

static void *cvar_field(const cvar_t *cv)
{
    return (char *)cv->table->values + cv->row->offset;
}

int PMPI_T_cvar_get_num(int *num_cvar)
{
    MPIT_ENTER();
    MPIT_NEED(num_cvar);
    *num_cvar = cvar_count();
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_cvar_get_num)

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
                         int *desc_len, int *bind, int *scope)
{
    cvar_t cv;

    MPIT_ENTER();
    if (!cvar_at(cvar_index, &cv))
        return mpit_fail(MPI_T_ERR_INVALID_INDEX, __func__,
                         "control variable %d: there are %d", cvar_index, cvar_count());
    if (enumtype != NULL && cv.row->type == RTM_CFG_ENUM &&
        enum_for(cv.row->name, cv.row->choices) == MPI_T_ENUM_NULL)
        return mpit_fail(MPI_T_ERR_MEMORY, __func__, "no memory for an enumeration");
    put_string(cv.row->name, name, name_len);
    put_string(cv.row->doc, desc, desc_len);
    if (verbosity != NULL)
        *verbosity = cvar_verbosity(&cv);
    if (datatype != NULL)
        *datatype = cvar_datatype(cv.row);
    if (enumtype != NULL)
        *enumtype = cv.row->type == RTM_CFG_ENUM ? enum_for(cv.row->name, cv.row->choices)
                                                 : MPI_T_ENUM_NULL;
    if (bind != NULL)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope != NULL)
        *scope = cvar_scope(&cv);
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_cvar_get_info)

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    cvar_t cv;

    MPIT_ENTER();
    MPIT_NEED(name);
    MPIT_NEED(cvar_index);
    for (int i = 0; cvar_at(i, &cv); i++) {
        if (!strcmp(cv.row->name, name)) {
            *cvar_index = i;
            return MPI_SUCCESS;
        }
    }
    return mpit_fail(MPI_T_ERR_INVALID_NAME, __func__, "no control variable is named \"%s\"",
                     name);
}
RTMPI_WEAK(T_cvar_get_index)

/* A handle names one row; live handles are listed, so a freed or made-up
 * one is refused without being read. */
struct rtmpi_t_cvar_handle {
    int index;
    int count;
};

static MPI_T_cvar_handle *cvar_handles;
static int num_cvar_handles, max_cvar_handles;

static int cvar_handle_find(MPI_T_cvar_handle h)
{
    for (int i = 0; h != MPI_T_CVAR_HANDLE_NULL && i < num_cvar_handles; i++)
        if (cvar_handles[i] == h)
            return i;
    return -1;
}

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count)
{
    MPI_T_cvar_handle h;
    cvar_t cv;

    (void)obj_handle;   /* every variable is MPI_T_BIND_NO_OBJECT */
    MPIT_ENTER();
    if (!cvar_at(cvar_index, &cv))
        return mpit_fail(MPI_T_ERR_INVALID_INDEX, __func__,
                         "control variable %d: there are %d", cvar_index, cvar_count());
    MPIT_NEED(handle);
    MPIT_NEED(count);
    if (num_cvar_handles == max_cvar_handles) {
        int max = max_cvar_handles ? 2 * max_cvar_handles : 16;
        MPI_T_cvar_handle *grown = realloc(cvar_handles, (size_t)max * sizeof(*grown));

        if (grown == NULL)
            return mpit_fail(MPI_T_ERR_OUT_OF_HANDLES, __func__, "no memory for a handle");
        cvar_handles = grown;
        max_cvar_handles = max;
    }
    h = malloc(sizeof(*h));
    if (h == NULL)
        return mpit_fail(MPI_T_ERR_MEMORY, __func__, "no memory for a handle");
    h->index = cvar_index;
    if (cv.row->type == RTM_CFG_STRING) {
        const char *s = *(const char *const *)cvar_field(&cv);

        h->count = (int)strlen(s ? s : "") + 1;
    } else {
        h->count = 1;
    }
    cvar_handles[num_cvar_handles++] = h;
    *handle = h;
    *count = h->count;
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_cvar_handle_alloc)

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    int i;

    MPIT_ENTER();
    MPIT_NEED(handle);
    i = cvar_handle_find(*handle);
    if (i < 0)
        return mpit_fail(MPI_T_ERR_INVALID_HANDLE, __func__, "not a control variable handle");
    free(cvar_handles[i]);
    cvar_handles[i] = cvar_handles[--num_cvar_handles];
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_cvar_handle_free)

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    const void *field;
    cvar_t cv;

    MPIT_ENTER();
    if (cvar_handle_find(handle) < 0 || !cvar_at(handle->index, &cv))
        return mpit_fail(MPI_T_ERR_INVALID_HANDLE, __func__, "not a control variable handle");
    MPIT_NEED(buf);
    field = cvar_field(&cv);
    switch (cv.row->type) {
    case RTM_CFG_BOOL:
    case RTM_CFG_ENUM:
        *(int *)buf = *(const int *)field;
        break;
    case RTM_CFG_INT:
        if (int_fits(cv.row))
            *(int *)buf = (int)*(const long *)field;
        else
            *(MPI_Count *)buf = *(const long *)field;
        break;
    case RTM_CFG_SIZE:
        *(unsigned long long *)buf = *(const size_t *)field;
        break;
    case RTM_CFG_STRING:
        snprintf(buf, (size_t)handle->count, "%s",
                 *(const char *const *)field ? *(const char *const *)field : "");
        break;
    }
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_cvar_read)

/* The new value (as the variable's MPI type) into the row's field, after
 * the parser's own checks of it. */
static int cvar_store(const char *fn, const cvar_t *cv, const void *buf)
{
    const rtm_cfg_row_t *row = cv->row;
    void *field = cvar_field(cv);
    char text[40];
    union { int i; long l; size_t sz; } v;

    switch (row->type) {
    case RTM_CFG_BOOL:
        snprintf(text, sizeof(text), "%d", *(const int *)buf);
        break;
    case RTM_CFG_ENUM:
        if (*(const int *)buf < 0 || *(const int *)buf >= choice_count(row->choices))
            return mpit_fail(MPI_T_ERR_INVALID, fn, "%s: %d is not an item of %s", row->name,
                             *(const int *)buf, row->choices);
        choice_name(row->choices, *(const int *)buf, text, sizeof(text));
        break;
    case RTM_CFG_INT:
        snprintf(text, sizeof(text), "%lld",
                 int_fits(row) ? (long long)*(const int *)buf : *(const MPI_Count *)buf);
        break;
    case RTM_CFG_SIZE:
        snprintf(text, sizeof(text), "%llu", *(const unsigned long long *)buf);
        break;
    case RTM_CFG_STRING:   /* no string row is writable (cvar_policies) */
        return mpit_fail(MPI_T_ERR_CVAR_SET_NEVER, fn, "%s cannot be set", row->name);
    }
    if (rtm_config_parse_value(row, text, &v) != RTM_OK)
        return mpit_fail(MPI_T_ERR_INVALID, fn, "%s", rtm_last_error());
    switch (row->type) {
    case RTM_CFG_BOOL:
    case RTM_CFG_ENUM: *(int *)field = v.i; break;
    case RTM_CFG_INT:  *(long *)field = v.l; break;
    case RTM_CFG_SIZE: *(size_t *)field = v.sz; break;
    case RTM_CFG_STRING: break;
    }
    /* the parser copies this row to the logger when it registers it */
    if (!strcmp(row->name, "RTM_LOG_LEVEL"))
        rtm_log_level = (rtm_log_level_t)v.i;
    return MPI_SUCCESS;
}

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    cvar_t cv;

    MPIT_ENTER();
    if (cvar_handle_find(handle) < 0 || !cvar_at(handle->index, &cv))
        return mpit_fail(MPI_T_ERR_INVALID_HANDLE, __func__, "not a control variable handle");
    MPIT_NEED(buf);
    if (!cvar_writable(&cv))
        return mpit_fail(MPI_T_ERR_CVAR_SET_NEVER, __func__,
                         "%s is read once, when the library starts: set it in the environment",
                         cv.row->name);
    if (rtm_finalized())
        return mpit_fail(MPI_T_ERR_CVAR_SET_NEVER, __func__,
                         "%s: the library is finalized", cv.row->name);
    if (!rtm_initialized())
        return mpit_fail(MPI_T_ERR_CVAR_SET_NOT_NOW, __func__,
                         "%s can be set once MPI_Init has run (it reads the environment "
                         "again); before, set it in the environment", cv.row->name);
    return cvar_store(__func__, &cv, buf);
}
RTMPI_WEAK(T_cvar_write)

/* ---- Performance variables -------------------------------------------------- */

typedef struct pvar {
    char              name[48];
    const char       *desc;
    const char       *category;   /* component name */
    int               var_class;
    MPI_Datatype      datatype;
    MPI_T_enum        enumtype;
    binding_counter_t counter;
    int               tl;           /* per_tl: the transport's index */
    int               per_tl;
    int               continuous;   /* also read-only */
    uint64_t        (*read)(void);  /* a count of the MPI layer's own, else NULL */
} pvar_t;

static const struct {
    binding_counter_t counter;
    const char       *what;
    const char       *desc;
} tl_pvars[] = {
    {BINDING_CTR_MSGS_SENT,  "msgs_sent",
     "Messages this rank sent over the transport (eager and rendezvous; control messages not counted)"},
    {BINDING_CTR_BYTES_SENT, "bytes_sent",
     "Payload bytes of the messages this rank sent over the transport"},
    {BINDING_CTR_MSGS_RECV,  "msgs_recv",
     "Messages this rank received over the transport (eager and rendezvous, matched or not yet)"},
    {BINDING_CTR_BYTES_RECV, "bytes_recv",
     "Payload bytes of the messages this rank received over the transport"},
    {BINDING_CTR_RNDV_SENT,  "rndv_sent",
     "Messages this rank sent over the transport by rendezvous (RTS, then get or CTS/DATA)"},
    {BINDING_CTR_RNDV_RECV,  "rndv_recv",
     "Messages this rank received over the transport by rendezvous"},
};
#define TL_PVARS ((int)(sizeof(tl_pvars) / sizeof(tl_pvars[0])))

static uint64_t rma_flushes(void)
{
    return rtmpi_rma_flushes;
}

static uint64_t coll_shm_calls(void)
{
    return rtmpi_coll_shm_calls;
}

/* The rank's own variables, after the transports' (unsigned long long,
 * or MPI_INT values of enumtype where it is set). */
static const struct rank_pvar {
    const char       *name;
    const char       *desc;
    int               var_class;
    binding_counter_t counter;
    int               continuous;
    MPI_T_enum        enumtype;
    uint64_t        (*read)(void);
} rank_pvars[] = {
    {"rtm_unexpected_held",
     "Unexpected messages this rank holds now (arrived before a matching receive, not yet received)",
     MPI_T_PVAR_CLASS_LEVEL, BINDING_CTR_UNEXP_HELD, 1, NULL, NULL},
    {"rtm_unexpected_held_max",
     "The most unexpected messages this rank has held at once since MPI_Init",
     MPI_T_PVAR_CLASS_HIGHWATERMARK, BINDING_CTR_UNEXP_HELD_MAX, 1, NULL, NULL},
    {"rtm_credit_stalls",
     "Eager sends that found no credit to their peer and waited (the receiver had RTM_EAGER_CREDITS of them unreceived)",
     MPI_T_PVAR_CLASS_COUNTER, BINDING_CTR_CREDIT_STALLS, 0, NULL, NULL},
    {"rtm_rndv_copies",
     "Rendezvous messages this rank received by the copy path (it asked the sender to stream them: CTS), not by a get or inside the RTS",
     MPI_T_PVAR_CLASS_COUNTER, BINDING_CTR_RNDV_COPIES, 0, NULL, NULL},
    {"rtm_idle_policy",
     "What blocking waits do when idle (RTM_IDLE_WAIT, resolved at the first long wait)",
     MPI_T_PVAR_CLASS_STATE, BINDING_CTR_IDLE_POLICY, 1, &idle_enum, NULL},
    {"rtm_rma_flushes",
     "Flushes of a target's RDMA operations the one-sided engine made (MPI_Win_flush, unlock, fence, complete, or the wait or test of an Rput/Rget issued by RDMA; never a progress pass)",
     MPI_T_PVAR_CLASS_COUNTER, BINDING_CTR_COUNT, 0, NULL, rma_flushes},
    {"rtm_coll_shm_calls",
     "Blocking collectives this rank ran through its communicator's shared-memory segment (Barrier, Bcast, Reduce, Allreduce, Allgather, Alltoall among ranks of one host; docs/collectives.md), not by messages",
     MPI_T_PVAR_CLASS_COUNTER, BINDING_CTR_COUNT, 0, NULL, coll_shm_calls},
};
#define RANK_PVARS ((int)(sizeof(rank_pvars) / sizeof(rank_pvars[0])))

static int tl_count(void)
{
    int n = 0;

    while (binding_tl_name(n) != NULL)
        n++;
    return n;
}

static int pvar_count(void)
{
    return tl_count() * TL_PVARS + RANK_PVARS;
}

/* The category (component) a transport's variables belong to: its own
 * config table's, else the runtime's. */
static const char *tl_category(const char *tl)
{
    for (const rtm_cfg_table_t *t = rtm_config_tables(); t != NULL; t = t->next)
        if (!strcmp(t->component, tl))
            return t->component;
    return "runtime";
}

static int pvar_at(int index, pvar_t *pv)
{
    int per_tl = tl_count() * TL_PVARS;

    if (index < 0 || index >= pvar_count())
        return 0;
    memset(pv, 0, sizeof(*pv));
    pv->enumtype = MPI_T_ENUM_NULL;
    pv->datatype = MPI_UNSIGNED_LONG_LONG;
    pv->category = "runtime";
    if (index < per_tl) {
        const char *tl = binding_tl_name(index / TL_PVARS);
        int k = index % TL_PVARS;

        snprintf(pv->name, sizeof(pv->name), "rtm_%s_%s", tl, tl_pvars[k].what);
        pv->desc = tl_pvars[k].desc;
        pv->category = tl_category(tl);
        pv->var_class = MPI_T_PVAR_CLASS_COUNTER;
        pv->counter = tl_pvars[k].counter;
        pv->tl = index / TL_PVARS;
        pv->per_tl = 1;
        return 1;
    }
    const struct rank_pvar *r = &rank_pvars[index - per_tl];

    snprintf(pv->name, sizeof(pv->name), "%s", r->name);
    pv->desc = r->desc;
    pv->var_class = r->var_class;
    pv->counter = r->counter;
    pv->read = r->read;
    pv->continuous = r->continuous;
    if (r->enumtype) {
        pv->datatype = MPI_INT;
        pv->enumtype = r->enumtype;
    }
    return 1;
}

int PMPI_T_pvar_get_num(int *num_pvar)
{
    MPIT_ENTER();
    MPIT_NEED(num_pvar);
    *num_pvar = pvar_count();
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_pvar_get_num)

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                         int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype,
                         char *desc, int *desc_len, int *bind, int *readonly,
                         int *continuous, int *atomic)
{
    pvar_t pv;

    MPIT_ENTER();
    if (!pvar_at(pvar_index, &pv))
        return mpit_fail(MPI_T_ERR_INVALID_INDEX, __func__,
                         "performance variable %d: there are %d", pvar_index, pvar_count());
    put_string(pv.name, name, name_len);
    put_string(pv.desc, desc, desc_len);
    if (verbosity != NULL)
        *verbosity = pv.per_tl || pv.var_class == MPI_T_PVAR_CLASS_STATE
                   ? MPI_T_VERBOSITY_TUNER_DETAIL : MPI_T_VERBOSITY_TUNER_BASIC;
    if (var_class != NULL)
        *var_class = pv.var_class;
    if (datatype != NULL)
        *datatype = pv.datatype;
    if (enumtype != NULL)
        *enumtype = pv.enumtype;
    if (bind != NULL)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly != NULL)
        *readonly = pv.continuous;
    if (continuous != NULL)
        *continuous = pv.continuous;
    if (atomic != NULL)
        *atomic = !pv.continuous;   /* readreset: one thread, nothing between */
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_pvar_get_info)

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    pvar_t pv;

    MPIT_ENTER();
    MPIT_NEED(name);
    MPIT_NEED(pvar_index);
    for (int i = 0; pvar_at(i, &pv); i++) {
        if (pv.var_class == var_class && !strcmp(pv.name, name)) {
            *pvar_index = i;
            return MPI_SUCCESS;
        }
    }
    return mpit_fail(MPI_T_ERR_INVALID_NAME, __func__,
                     "no performance variable of class %d is named \"%s\"", var_class, name);
}
RTMPI_WEAK(T_pvar_get_index)

/* A handle's value: a continuous variable's is the runtime's; a counter's
 * is what it counted while started, from 0 or the value written. */
struct rtmpi_t_pvar_handle {
    struct rtmpi_t_pvar_session *session;
    int      index;
    pvar_t   pv;
    int      started;
    uint64_t accum;   /* counted before the last start, or written */
    uint64_t base;    /* the runtime's count at the last start */
};

struct rtmpi_t_pvar_session {
    MPI_T_pvar_handle *handles;
    int                num, max;
};

static MPI_T_pvar_session *sessions;
static int num_sessions, max_sessions;

static int session_find(MPI_T_pvar_session s)
{
    for (int i = 0; s != MPI_T_PVAR_SESSION_NULL && i < num_sessions; i++)
        if (sessions[i] == s)
            return i;
    return -1;
}

static int handle_find(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    for (int i = 0; i < s->num; i++)
        if (s->handles[i] == h)
            return i;
    return -1;
}

static uint64_t pvar_now(const pvar_t *pv)
{
    if (pv->read)
        return pv->read();
    return binding_counter(pv->counter, pv->tl);
}

static uint64_t handle_value(MPI_T_pvar_handle h)
{
    if (h->pv.continuous)
        return pvar_now(&h->pv);
    return h->accum + (h->started ? pvar_now(&h->pv) - h->base : 0);
}

static void handle_put(MPI_T_pvar_handle h, void *buf)
{
    uint64_t v = handle_value(h);

    if (h->pv.datatype == MPI_INT)
        *(int *)buf = (int)v;
    else
        *(unsigned long long *)buf = v;
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    MPI_T_pvar_session s;

    MPIT_ENTER();
    MPIT_NEED(session);
    if (num_sessions == max_sessions) {
        int max = max_sessions ? 2 * max_sessions : 8;
        MPI_T_pvar_session *grown = realloc(sessions, (size_t)max * sizeof(*grown));

        if (grown == NULL)
            return mpit_fail(MPI_T_ERR_OUT_OF_SESSIONS, __func__, "no memory for a session");
        sessions = grown;
        max_sessions = max;
    }
    s = calloc(1, sizeof(*s));
    if (s == NULL)
        return mpit_fail(MPI_T_ERR_MEMORY, __func__, "no memory for a session");
    sessions[num_sessions++] = s;
    *session = s;
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_pvar_session_create)

static void session_destroy(int i)
{
    MPI_T_pvar_session s = sessions[i];

    for (int h = 0; h < s->num; h++)
        free(s->handles[h]);
    free(s->handles);
    free(s);
    sessions[i] = sessions[--num_sessions];
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    int i;

    MPIT_ENTER();
    MPIT_NEED(session);
    i = session_find(*session);
    if (i < 0)
        return mpit_fail(MPI_T_ERR_INVALID_SESSION, __func__, "not a session");
    session_destroy(i);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_pvar_session_free)

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    MPI_T_pvar_handle h;
    pvar_t pv;

    (void)obj_handle;   /* every variable is MPI_T_BIND_NO_OBJECT */
    MPIT_ENTER();
    if (session_find(session) < 0)
        return mpit_fail(MPI_T_ERR_INVALID_SESSION, __func__, "not a session");
    if (!pvar_at(pvar_index, &pv))
        return mpit_fail(MPI_T_ERR_INVALID_INDEX, __func__,
                         "performance variable %d: there are %d", pvar_index, pvar_count());
    MPIT_NEED(handle);
    MPIT_NEED(count);
    if (session->num == session->max) {
        int max = session->max ? 2 * session->max : 8;
        MPI_T_pvar_handle *grown = realloc(session->handles, (size_t)max * sizeof(*grown));

        if (grown == NULL)
            return mpit_fail(MPI_T_ERR_OUT_OF_HANDLES, __func__, "no memory for a handle");
        session->handles = grown;
        session->max = max;
    }
    h = calloc(1, sizeof(*h));
    if (h == NULL)
        return mpit_fail(MPI_T_ERR_MEMORY, __func__, "no memory for a handle");
    h->session = session;
    h->index = pvar_index;
    h->pv = pv;
    h->started = pv.continuous;
    session->handles[session->num++] = h;
    *handle = h;
    *count = 1;
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_pvar_handle_alloc)

/* The checks every call on one handle makes: MPI_SUCCESS, or the code. */
static int handle_check(const char *fn, MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                        int all_ok)
{
    if (session_find(session) < 0)
        return mpit_fail(MPI_T_ERR_INVALID_SESSION, fn, "not a session");
    if (handle == MPI_T_PVAR_ALL_HANDLES && all_ok)
        return MPI_SUCCESS;
    if (handle == MPI_T_PVAR_ALL_HANDLES || handle_find(session, handle) < 0)
        return mpit_fail(MPI_T_ERR_INVALID_HANDLE, fn,
                         handle == MPI_T_PVAR_ALL_HANDLES
                             ? "MPI_T_PVAR_ALL_HANDLES is not accepted here"
                             : "not a handle of this session");
    return MPI_SUCCESS;
}

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    int rc, i;

    MPIT_ENTER();
    MPIT_NEED(handle);
    rc = handle_check(__func__, session, *handle, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    i = handle_find(session, *handle);
    free(session->handles[i]);
    session->handles[i] = session->handles[--session->num];
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_pvar_handle_free)

static void handle_start(MPI_T_pvar_handle h)
{
    if (h->started)
        return;
    h->base = pvar_now(&h->pv);
    h->started = 1;
}

static void handle_stop(MPI_T_pvar_handle h)
{
    if (!h->started)
        return;
    h->accum += pvar_now(&h->pv) - h->base;
    h->started = 0;
}

static void handle_set(MPI_T_pvar_handle h, uint64_t value)
{
    h->accum = value;
    h->base = pvar_now(&h->pv);
}

/* start (1) or stop (0) one handle, or every one of the session that can. */
static int pvar_startstop(const char *fn, MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                          int start)
{
    int rc = handle_check(fn, session, handle, 1);

    if (rc != MPI_SUCCESS)
        return rc;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        for (int i = 0; i < session->num; i++) {
            if (!session->handles[i]->pv.continuous) {
                if (start)
                    handle_start(session->handles[i]);
                else
                    handle_stop(session->handles[i]);
            }
        }
        return MPI_SUCCESS;
    }
    if (handle->pv.continuous)
        return mpit_fail(MPI_T_ERR_PVAR_NO_STARTSTOP, fn,
                         "%s is continuous: it cannot be started or stopped", handle->pv.name);
    if (start)
        handle_start(handle);
    else
        handle_stop(handle);
    return MPI_SUCCESS;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    MPIT_ENTER();
    return pvar_startstop(__func__, session, handle, 1);
}
RTMPI_WEAK(T_pvar_start)

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    MPIT_ENTER();
    return pvar_startstop(__func__, session, handle, 0);
}
RTMPI_WEAK(T_pvar_stop)

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    int rc;

    MPIT_ENTER();
    rc = handle_check(__func__, session, handle, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    MPIT_NEED(buf);
    handle_put(handle, buf);
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_pvar_read)

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    int rc;

    MPIT_ENTER();
    rc = handle_check(__func__, session, handle, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    MPIT_NEED(buf);
    if (handle->pv.continuous)
        return mpit_fail(MPI_T_ERR_PVAR_NO_WRITE, __func__, "%s is read-only",
                         handle->pv.name);
    handle_set(handle, *(const unsigned long long *)buf);
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_pvar_write)

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    int rc;

    MPIT_ENTER();
    rc = handle_check(__func__, session, handle, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        for (int i = 0; i < session->num; i++)
            if (!session->handles[i]->pv.continuous)
                handle_set(session->handles[i], 0);
        return MPI_SUCCESS;
    }
    if (handle->pv.continuous)
        return mpit_fail(MPI_T_ERR_PVAR_NO_WRITE, __func__, "%s is read-only: it cannot be reset",
                         handle->pv.name);
    handle_set(handle, 0);
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_pvar_reset)

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    int rc;

    MPIT_ENTER();
    rc = handle_check(__func__, session, handle, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    MPIT_NEED(buf);
    if (handle->pv.continuous)
        return mpit_fail(MPI_T_ERR_PVAR_NO_WRITE, __func__, "%s is read-only: it cannot be reset",
                         handle->pv.name);
    handle_put(handle, buf);
    handle_set(handle, 0);
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_pvar_readreset)

/* ---- Categories ---------------------------------------------------------------- */

/* 0: "rtmsg", holding the others; 1..: the config tables, in order. */
static int table_count(void)
{
    int n = 0;

    for (const rtm_cfg_table_t *t = rtm_config_tables(); t != NULL; t = t->next)
        n++;
    return n;
}

static int cat_count(void)
{
    return 1 + table_count();
}

static const rtm_cfg_table_t *cat_table(int index)
{
    const rtm_cfg_table_t *t = rtm_config_tables();

    if (index < 1)
        return NULL;
    while (t != NULL && --index > 0)
        t = t->next;
    return t;
}

/* The members of category `index` of one kind (0 cvars, 1 pvars, 2
 * categories): how many, and the first len of them into indices. */
static int cat_members(int index, int kind, int len, int *indices)
{
    const rtm_cfg_table_t *t = cat_table(index);
    int n = 0;

    if (kind == 2) {
        if (index != 0)
            return 0;
        for (int c = 1; c < cat_count(); c++, n++)
            if (n < len)
                indices[n] = c;
        return n;
    }
    if (t == NULL)
        return 0;
    if (kind == 0) {
        int first = 0;

        for (const rtm_cfg_table_t *u = rtm_config_tables(); u != t; u = u->next)
            first += (int)u->num_rows;
        for (size_t r = 0; r < t->num_rows; r++, n++)
            if (n < len)
                indices[n] = first + (int)r;
        return n;
    }
    for (int p = 0; p < pvar_count(); p++) {
        pvar_t pv;

        if (pvar_at(p, &pv) && !strcmp(pv.category, t->component)) {
            if (n < len)
                indices[n] = p;
            n++;
        }
    }
    return n;
}

int PMPI_T_category_get_num(int *num_cat)
{
    MPIT_ENTER();
    MPIT_NEED(num_cat);
    *num_cat = cat_count();
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_category_get_num)

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc,
                             int *desc_len, int *num_cvars, int *num_pvars,
                             int *num_categories)
{
    const rtm_cfg_table_t *t;

    MPIT_ENTER();
    if (cat_index < 0 || cat_index >= cat_count())
        return mpit_fail(MPI_T_ERR_INVALID_INDEX, __func__, "category %d: there are %d",
                         cat_index, cat_count());
    t = cat_table(cat_index);
    put_string(t ? t->component : "rtmsg", name, name_len);
    put_string(t ? t->title : "librtmsg: one category per component", desc, desc_len);
    if (num_cvars != NULL)
        *num_cvars = cat_members(cat_index, 0, 0, NULL);
    if (num_pvars != NULL)
        *num_pvars = cat_members(cat_index, 1, 0, NULL);
    if (num_categories != NULL)
        *num_categories = cat_members(cat_index, 2, 0, NULL);
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_category_get_info)

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    MPIT_ENTER();
    MPIT_NEED(name);
    MPIT_NEED(cat_index);
    for (int c = 0; c < cat_count(); c++) {
        const rtm_cfg_table_t *t = cat_table(c);

        if (!strcmp(t ? t->component : "rtmsg", name)) {
            *cat_index = c;
            return MPI_SUCCESS;
        }
    }
    return mpit_fail(MPI_T_ERR_INVALID_NAME, __func__, "no category is named \"%s\"", name);
}
RTMPI_WEAK(T_category_get_index)

static int cat_get(const char *fn, int cat_index, int kind, int len, int indices[])
{
    MPIT_ENTER();
    if (cat_index < 0 || cat_index >= cat_count())
        return mpit_fail(MPI_T_ERR_INVALID_INDEX, fn, "category %d: there are %d", cat_index,
                         cat_count());
    if (len < 0 || (len > 0 && indices == NULL))
        return mpit_fail(MPI_T_ERR_INVALID, fn, "len %d with indices %p", len, (void *)indices);
    cat_members(cat_index, kind, len, indices);
    return MPI_SUCCESS;
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    return cat_get(__func__, cat_index, 0, len, indices);
}
RTMPI_WEAK(T_category_get_cvars)

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    return cat_get(__func__, cat_index, 1, len, indices);
}
RTMPI_WEAK(T_category_get_pvars)

int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    return cat_get(__func__, cat_index, 2, len, indices);
}
RTMPI_WEAK(T_category_get_categories)

int PMPI_T_category_changed(int *stamp)
{
    MPIT_ENTER();
    MPIT_NEED(stamp);
    /* categories only grow, by a table registered: its count stamps them */
    *stamp = cat_count();
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_category_changed)

/* ---- Life cycle ---------------------------------------------------------------- */

int PMPI_T_init_thread(int required, int *provided)
{
    if (provided == NULL)
        return mpit_fail(MPI_T_ERR_INVALID, __func__, "provided is NULL");
    if (mpit_refs == INT_MAX)
        return mpit_fail(MPI_T_ERR_CANNOT_INIT, __func__, "initialized too many times");
    /* the rows exist before MPI_Init; a bad RTM_* value is logged and its
     * row keeps its default (MPI_Init then fails on it) */
    binding_config_ready();
    mpit_refs++;
    /* the binding serializes nothing itself, as MPI_Init_thread says */
    *provided = required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE
              : required > MPI_THREAD_SERIALIZED ? MPI_THREAD_SERIALIZED : required;
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_init_thread)

int PMPI_T_finalize(void)
{
    MPIT_ENTER();
    if (--mpit_refs > 0)
        return MPI_SUCCESS;
    /* the last one: every handle and session goes */
    while (num_sessions > 0)
        session_destroy(num_sessions - 1);
    free(sessions);
    sessions = NULL;
    max_sessions = 0;
    for (int i = 0; i < num_cvar_handles; i++)
        free(cvar_handles[i]);
    free(cvar_handles);
    cvar_handles = NULL;
    num_cvar_handles = max_cvar_handles = 0;
    for (int i = 0; i < num_row_enums; i++)
        free(row_enums[i]);
    free(row_enums);
    row_enums = NULL;
    num_row_enums = 0;
    return MPI_SUCCESS;
}
RTMPI_WEAK(T_finalize)
