/*
 * Attribute caching on communicators (keyvals with copy and delete
 * callbacks) and the predefined attributes (MPI_TAG_UB, MPI_HOST, ...).
 */
#include "config.h"

#include "mpi_impl.h"

#include <stdlib.h>

/* User keyvals start above the predefined attribute keys. */
#define FIRST_USER_KEYVAL 32
#define MAX_KEYVALS 1024

/* A keyval's slot: never used yet, live, or freed by MPI_Comm_free_keyval
 * (attributes still set with it keep its callbacks; the slot is never
 * reused). */
enum keyval_state { KEYVAL_UNUSED, KEYVAL_LIVE, KEYVAL_FREED };

static struct {
    enum keyval_state state;
    MPI_Comm_copy_attr_function *copy_fn;
    MPI_Comm_delete_attr_function *delete_fn;
    void *extra_state;
} keyvals[MAX_KEYVALS];
static int next_keyval = FIRST_USER_KEYVAL;

/* Values of the predefined attributes: Comm_get_attr hands out pointers. */
static int attr_tag_ub = RTM_TAG_UB;
static int attr_host = MPI_PROC_NULL;
static int attr_io = MPI_ANY_SOURCE;
static int attr_wtime_is_global = 0;
static int attr_appnum = 0;
static int attr_universe_size;
static int attr_lastusedcode = MPI_ERR_LASTCODE;

int MPI_COMM_DUP_FN(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                    void *attribute_val_in, void *attribute_val_out, int *flag)
{
    (void)oldcomm; (void)comm_keyval; (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int keyval_valid(int k)
{
    return k >= FIRST_USER_KEYVAL && k < next_keyval && keyvals[k].state != KEYVAL_UNUSED;
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                            int *comm_keyval, void *extra_state)
{
    RTMPI_ENTER();
    if (!comm_keyval)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "comm_keyval is NULL");
    if (next_keyval == MAX_KEYVALS)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM, "more than %d keyvals",
                           MAX_KEYVALS - FIRST_USER_KEYVAL);
    keyvals[next_keyval].state = KEYVAL_LIVE;
    keyvals[next_keyval].copy_fn = comm_copy_attr_fn;
    keyvals[next_keyval].delete_fn = comm_delete_attr_fn;
    keyvals[next_keyval].extra_state = extra_state;
    *comm_keyval = next_keyval++;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_create_keyval)

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    RTMPI_ENTER();
    if (!comm_keyval || !keyval_valid(*comm_keyval))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_KEYVAL, "invalid keyval");
    /* Attributes still set keep their callbacks: the slot is never reused,
     * only new set_attr calls with this key fail. */
    keyvals[*comm_keyval].state = KEYVAL_FREED;
    *comm_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_free_keyval)

static rtmpi_attr_t **find(rtmpi_comm_t *c, int keyval)
{
    rtmpi_attr_t **pp = &c->attrs;

    while (*pp && (*pp)->keyval != keyval)
        pp = &(*pp)->next;
    return pp;
}

static int delete_one(MPI_Comm comm, rtmpi_attr_t **pp)
{
    rtmpi_attr_t *a = *pp;
    int rc = MPI_SUCCESS;

    if (keyvals[a->keyval].delete_fn)
        rc = keyvals[a->keyval].delete_fn(comm, a->keyval, a->value,
                                          keyvals[a->keyval].extra_state);
    if (rc != MPI_SUCCESS)
        return rc;
    *pp = a->next;
    free(a);
    return MPI_SUCCESS;
}

int rtmpi_attrs_delete_all(MPI_Comm comm, rtmpi_comm_t *c)
{
    while (c->attrs) {
        int rc = delete_one(comm, &c->attrs);

        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}

int rtmpi_attrs_copy(MPI_Comm oldcomm, rtmpi_comm_t *from, rtmpi_comm_t *to)
{
    rtmpi_attr_t **tail = &to->attrs;

    for (rtmpi_attr_t *a = from->attrs; a; a = a->next) {
        void *out = NULL;
        int flag = 0, rc;

        if (!keyvals[a->keyval].copy_fn)
            continue;
        rc = keyvals[a->keyval].copy_fn(oldcomm, a->keyval, keyvals[a->keyval].extra_state,
                                        a->value, &out, &flag);
        if (rc != MPI_SUCCESS)
            return rc;
        if (!flag)
            continue;
        rtmpi_attr_t *n = malloc(sizeof(*n));
        if (!n)
            return MPI_ERR_NO_MEM;
        n->keyval = a->keyval;
        n->value = out;
        n->next = NULL;
        *tail = n;
        tail = &n->next;
    }
    return MPI_SUCCESS;
}

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    RTMPI_ENTER();
    rtmpi_comm_t *c = rtmpi_comm_get(comm);
    if (!c)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", comm);
    if (!keyval_valid(comm_keyval) || keyvals[comm_keyval].state != KEYVAL_LIVE)
        return rtmpi_error(comm, __func__, MPI_ERR_KEYVAL,
                           "keyval %d is invalid or predefined", comm_keyval);
    rtmpi_attr_t **pp = find(c, comm_keyval);
    if (*pp) {
        int rc = keyvals[comm_keyval].delete_fn
               ? keyvals[comm_keyval].delete_fn(comm, comm_keyval, (*pp)->value,
                                                keyvals[comm_keyval].extra_state)
               : MPI_SUCCESS;

        if (rc)
            return rtmpi_error(comm, __func__, rc, "the delete callback failed");
        (*pp)->value = attribute_val;
        return MPI_SUCCESS;
    }
    rtmpi_attr_t *a = malloc(sizeof(*a));
    if (!a)
        return rtmpi_error(comm, __func__, MPI_ERR_NO_MEM, "out of memory");
    a->keyval = comm_keyval;
    a->value = attribute_val;
    a->next = NULL;
    *pp = a;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_set_attr)

static int *predefined_attr(int keyval)
{
    switch (keyval) {
    case MPI_TAG_UB:          return &attr_tag_ub;
    case MPI_HOST:            return &attr_host;
    case MPI_IO:              return &attr_io;
    case MPI_WTIME_IS_GLOBAL: return &attr_wtime_is_global;
    case MPI_APPNUM:          return &attr_appnum;
    case MPI_UNIVERSE_SIZE:
        attr_universe_size = rtmpi_state.world_size;
        return &attr_universe_size;
    case MPI_LASTUSEDCODE:    return &attr_lastusedcode;
    default:                  return NULL;
    }
}

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    RTMPI_ENTER();
    rtmpi_comm_t *c = rtmpi_comm_get(comm);
    if (!c)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", comm);
    if (!attribute_val || !flag)
        return rtmpi_error(comm, __func__, MPI_ERR_ARG, "attribute_val or flag is NULL");
    int *pre = predefined_attr(comm_keyval);
    if (pre) {
        *(void **)attribute_val = pre;
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (!keyval_valid(comm_keyval))
        return rtmpi_error(comm, __func__, MPI_ERR_KEYVAL, "invalid keyval %d", comm_keyval);
    rtmpi_attr_t **pp = find(c, comm_keyval);
    *flag = *pp != NULL;
    if (*pp)
        *(void **)attribute_val = (*pp)->value;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Comm_get_attr)

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    RTMPI_ENTER();
    rtmpi_comm_t *c = rtmpi_comm_get(comm);
    if (!c)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", comm);
    if (!keyval_valid(comm_keyval))
        return rtmpi_error(comm, __func__, MPI_ERR_KEYVAL, "invalid keyval %d", comm_keyval);
    rtmpi_attr_t **pp = find(c, comm_keyval);
    if (!*pp)
        return rtmpi_error(comm, __func__, MPI_ERR_KEYVAL, "no attribute with keyval %d",
                           comm_keyval);
    int rc = delete_one(comm, pp);
    return rc ? rtmpi_error(comm, __func__, rc, "the delete callback failed") : MPI_SUCCESS;
}
RTMPI_WEAK(Comm_delete_attr)

/* MPI-1 names (deprecated, still in MPI 3.1). */
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    return PMPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}
RTMPI_WEAK(Keyval_create)

int PMPI_Keyval_free(int *keyval)
{
    return PMPI_Comm_free_keyval(keyval);
}
RTMPI_WEAK(Keyval_free)

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return PMPI_Comm_set_attr(comm, keyval, attribute_val);
}
RTMPI_WEAK(Attr_put)

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}
RTMPI_WEAK(Attr_get)

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return PMPI_Comm_delete_attr(comm, keyval);
}
RTMPI_WEAK(Attr_delete)
