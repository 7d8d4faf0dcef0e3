/*
 * Attribute caching on communicators and datatypes (keyvals with copy and
 * delete callbacks) and the predefined attributes (MPI_TAG_UB, MPI_HOST, ...).
 *
 * An object's attributes are a list in the order they were set (a
 * communicator's in rtmpi_comm_t.attrs, a datatype's in the table below,
 * by handle). A delete callback may set, get or delete other attributes of
 * the same object, or its own: an attribute is unlinked before its
 * callback runs and nothing is held across a callback, so the list may
 * change under it. MPI_COMM_SELF's attributes are deleted at the very start
 * of MPI_Finalize in the reverse order of setting (MPI 3.1 section 8.7.1).
 */
#include "config.h"

#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

/* User keyvals start above the predefined attribute keys. */
#define FIRST_USER_KEYVAL 32

/* Window keyvals keep their callbacks in the communicator members: the
 * types are the same (MPI_Win and MPI_Comm are both int). */
enum keyval_kind { KV_COMM = 1, KV_TYPE, KV_WIN };

/* A keyval is counted: one reference for its handle (until *_free_keyval)
 * and one per attribute set with it, which keeps its callbacks; the slot is
 * reused once nothing refers to it. The table grows as needed. */
typedef struct keyval {
    int refs;            /* 0: free slot */
    int freed;           /* the handle was freed: no new attribute */
    enum keyval_kind kind;
    union {
        MPI_Comm_copy_attr_function *comm;
        MPI_Type_copy_attr_function *type;
    } copy_fn;
    union {
        MPI_Comm_delete_attr_function *comm;
        MPI_Type_delete_attr_function *type;
    } delete_fn;
    void *extra_state;
} keyval_t;

static keyval_t *keyvals;
static int nkeyvals = FIRST_USER_KEYVAL, keyvals_cap;

/* Attributes of datatypes, by handle: the list of handle h is
 * type_attrs[h / TYPE_ATTRS_CHUNK][h % TYPE_ATTRS_CHUNK]. Chunks never move,
 * so a list's address stays valid while lists of newer handles are added
 * (MPI_Type_dup copying into a new handle's list, callbacks creating types). */
#define TYPE_ATTRS_CHUNK 256
static rtmpi_attr_t ***type_attrs;
static int type_attrs_nchunks;

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

int MPI_TYPE_DUP_FN(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                    void *attribute_val_in, void *attribute_val_out, int *flag)
{
    (void)oldtype; (void)type_keyval; (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

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
    case MPI_LASTUSEDCODE:
        attr_lastusedcode = rtmpi_err_lastused();
        return &attr_lastusedcode;
    default:                  return NULL;
    }
}

/* ---- Keyvals ---------------------------------------------------------------- */

/* A live keyval of `kind` (its handle not freed when `live`). */
static keyval_t *keyval_get(int k, enum keyval_kind kind, int live)
{
    if (k < FIRST_USER_KEYVAL || k >= nkeyvals || keyvals[k].refs == 0 ||
        keyvals[k].kind != kind || (live && keyvals[k].freed))
        return NULL;
    return &keyvals[k];
}

static void keyval_release(int k)
{
    if (--keyvals[k].refs == 0)
        memset(&keyvals[k], 0, sizeof(keyvals[k]));
}

/* A new keyval of proto's kind and callbacks in *keyval_p (named what in the
 * error when NULL). */
static int keyval_new(const char *fn, keyval_t *proto, int *keyval_p, const char *what)
{
    int k = 0;

    if (!keyval_p)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "%s is NULL", what);

    for (int i = FIRST_USER_KEYVAL; i < nkeyvals && !k; i++)
        if (keyvals[i].refs == 0)
            k = i;
    if (!k) {
        if (nkeyvals >= keyvals_cap) {
            int cap = keyvals_cap ? keyvals_cap * 2 : 2 * FIRST_USER_KEYVAL;
            keyval_t *t = realloc(keyvals, (size_t)cap * sizeof(*t));

            if (!t)
                return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM,
                                   "out of memory for a keyval");
            memset(t + keyvals_cap, 0, (size_t)(cap - keyvals_cap) * sizeof(*t));
            keyvals = t;
            keyvals_cap = cap;
        }
        k = nkeyvals++;
    }
    keyvals[k] = *proto;
    keyvals[k].refs = 1;
    *keyval_p = k;
    return MPI_SUCCESS;
}

static int keyval_free(const char *fn, int *keyval, enum keyval_kind kind)
{
    if (!keyval || !keyval_get(*keyval, kind, 1))
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_KEYVAL, "invalid keyval %d",
                           keyval ? *keyval : MPI_KEYVAL_INVALID);
    /* Attributes still set keep it (and its callbacks) until deleted. */
    keyvals[*keyval].freed = 1;
    keyval_release(*keyval);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* ---- Attribute lists, of any object ------------------------------------------ */

static rtmpi_attr_t **find(rtmpi_attr_t **head, int keyval)
{
    rtmpi_attr_t **pp = head;

    while (*pp && (*pp)->keyval != keyval)
        pp = &(*pp)->next;
    return pp;
}

/* The delete callback of attribute (keyval, value) of object `obj`. */
static int call_delete(int obj, int keyval, void *value)
{
    const keyval_t *kv = &keyvals[keyval];

    if (kv->kind != KV_TYPE)
        return kv->delete_fn.comm ? kv->delete_fn.comm(obj, keyval, value, kv->extra_state)
                                  : MPI_SUCCESS;
    return kv->delete_fn.type ? kv->delete_fn.type(obj, keyval, value, kv->extra_state)
                              : MPI_SUCCESS;
}

/* Deletes *pp: unlinked first, so its callback may change the list. When
 * the callback fails the attribute goes back (at the end of the list). */
static int delete_one(int obj, rtmpi_attr_t **head, rtmpi_attr_t **pp)
{
    rtmpi_attr_t *a = *pp;
    int rc;

    *pp = a->next;
    a->next = NULL;
    rc = call_delete(obj, a->keyval, a->value);
    if (rc != MPI_SUCCESS) {
        *find(head, -1) = a;   /* the list's end */
        return rc;
    }
    keyval_release(a->keyval);
    free(a);
    return MPI_SUCCESS;
}

/* Deletes every attribute, the last set first; stops at a failing callback. */
static int delete_all(int obj, rtmpi_attr_t **head)
{
    while (*head) {
        rtmpi_attr_t **pp = head;
        int rc;

        while ((*pp)->next)
            pp = &(*pp)->next;
        if ((rc = delete_one(obj, head, pp)))
            return rc;
    }
    return MPI_SUCCESS;
}

static int attr_set(int obj, rtmpi_attr_t **head, int keyval, void *value)
{
    rtmpi_attr_t **pp = find(head, keyval);

    if (*pp) {
        /* The old value's callback first; it may change the list. */
        int rc = call_delete(obj, keyval, (*pp)->value);

        if (rc)
            return rc;
        pp = find(head, keyval);
        if (*pp) {
            (*pp)->value = value;
            return MPI_SUCCESS;
        }
    }
    rtmpi_attr_t *a = malloc(sizeof(*a));
    if (!a)
        return MPI_ERR_NO_MEM;
    a->keyval = keyval;
    a->value = value;
    a->next = NULL;
    keyvals[keyval].refs++;
    *pp = a;
    return MPI_SUCCESS;
}

/* Copies the attributes of `oldobj` whose copy callback says so. The list
 * is read as it was when the copy began (a callback may change it). */
static int attrs_copy(int oldobj, rtmpi_attr_t *const *from, rtmpi_attr_t **to)
{
    int n = 0;

    for (rtmpi_attr_t *a = *from; a; a = a->next)
        n++;
    if (n == 0)
        return MPI_SUCCESS;
    int *keys = malloc((size_t)n * sizeof(*keys));
    if (!keys)
        return MPI_ERR_NO_MEM;
    n = 0;
    for (rtmpi_attr_t *a = *from; a; a = a->next)
        keys[n++] = a->keyval;

    int rc = MPI_SUCCESS;
    rtmpi_attr_t **tail = find(to, -1);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        rtmpi_attr_t *a = *find((rtmpi_attr_t **)from, keys[i]);
        const keyval_t *kv = &keyvals[keys[i]];
        void *out = NULL;
        int flag = 0;

        if (!a)
            continue;   /* deleted by an earlier callback */
        if (kv->kind == KV_COMM && kv->copy_fn.comm)
            rc = kv->copy_fn.comm(oldobj, a->keyval, kv->extra_state, a->value, &out, &flag);
        else if (kv->kind == KV_TYPE && kv->copy_fn.type)
            rc = kv->copy_fn.type(oldobj, a->keyval, kv->extra_state, a->value, &out, &flag);
        if (rc != MPI_SUCCESS || !flag)
            continue;
        rtmpi_attr_t *n_ = malloc(sizeof(*n_));
        if (!n_) {
            rc = MPI_ERR_NO_MEM;
            break;
        }
        n_->keyval = a->keyval;
        n_->value = out;
        n_->next = NULL;
        keyvals[a->keyval].refs++;
        *tail = n_;
        tail = &n_->next;
    }
    free(keys);
    return rc;
}

/* ---- Communicators --------------------------------------------------------------- */

int rtmpi_attrs_delete_all(MPI_Comm comm, rtmpi_comm_t *c)
{
    return delete_all(comm, &c->attrs);
}

int rtmpi_attrs_copy(MPI_Comm oldcomm, rtmpi_comm_t *from, rtmpi_comm_t *to)
{
    return attrs_copy(oldcomm, &from->attrs, &to->attrs);
}

void rtmpi_attrs_finalize_self(void)
{
    rtmpi_comm_t *c = rtmpi_comm_get(MPI_COMM_SELF);

    /* A failing callback leaves its attribute; the others are still deleted. */
    while (c && c->attrs) {
        rtmpi_attr_t **pp = &c->attrs;

        while ((*pp)->next)
            pp = &(*pp)->next;
        if (delete_one(MPI_COMM_SELF, &c->attrs, pp) != MPI_SUCCESS) {
            /* It went back to the end of the list: drop it without a callback. */
            pp = &c->attrs;
            while ((*pp)->next)
                pp = &(*pp)->next;
            keyval_release((*pp)->keyval);
            free(*pp);
            *pp = NULL;
        }
    }
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                            int *comm_keyval, void *extra_state)
{
    RTMPI_ENTER();
    keyval_t kv = { .kind = KV_COMM, .extra_state = extra_state,
                    .copy_fn.comm = comm_copy_attr_fn, .delete_fn.comm = comm_delete_attr_fn };
    return keyval_new(__func__, &kv, comm_keyval, "comm_keyval");
}
RTMPI_WEAK(Comm_create_keyval)

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    RTMPI_ENTER();
    return keyval_free(__func__, comm_keyval, KV_COMM);
}
RTMPI_WEAK(Comm_free_keyval)

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    RTMPI_ENTER();
    rtmpi_comm_t *c = rtmpi_comm_get(comm);
    if (!c)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_COMM, "invalid communicator %d", comm);
    if (!keyval_get(comm_keyval, KV_COMM, 1))
        return rtmpi_error(comm, __func__, MPI_ERR_KEYVAL,
                           "keyval %d is not a communicator keyval of the application "
                           "(invalid, freed or predefined)", comm_keyval);
    int rc = attr_set(comm, &c->attrs, comm_keyval, attribute_val);
    return rc ? rtmpi_error(comm, __func__, rc, "the old value's delete callback failed "
                            "or out of memory") : MPI_SUCCESS;
}
RTMPI_WEAK(Comm_set_attr)

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
    if (!keyval_get(comm_keyval, KV_COMM, 0))
        return rtmpi_error(comm, __func__, MPI_ERR_KEYVAL, "invalid keyval %d", comm_keyval);
    rtmpi_attr_t **pp = find(&c->attrs, comm_keyval);
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
    if (!keyval_get(comm_keyval, KV_COMM, 0))
        return rtmpi_error(comm, __func__, MPI_ERR_KEYVAL, "invalid keyval %d", comm_keyval);
    rtmpi_attr_t **pp = find(&c->attrs, comm_keyval);
    if (!*pp)
        return rtmpi_error(comm, __func__, MPI_ERR_KEYVAL, "no attribute with keyval %d",
                           comm_keyval);
    int rc = delete_one(comm, &c->attrs, pp);
    return rc ? rtmpi_error(comm, __func__, rc, "the delete callback failed") : MPI_SUCCESS;
}
RTMPI_WEAK(Comm_delete_attr)

/* ---- Windows (mpi/win.c raises the errors) ----------------------------------------- */

int rtmpi_win_keyval_create(MPI_Win_copy_attr_function *copy_fn,
                            MPI_Win_delete_attr_function *delete_fn, int *keyval,
                            void *extra_state)
{
    keyval_t kv = { .kind = KV_WIN, .extra_state = extra_state,
                    .copy_fn.comm = copy_fn, .delete_fn.comm = delete_fn };
    return keyval_new("MPI_Win_create_keyval", &kv, keyval, "win_keyval");
}

int rtmpi_win_keyval_free(int *keyval)
{
    return keyval_free("MPI_Win_free_keyval", keyval, KV_WIN);
}

int rtmpi_win_attr_set(MPI_Win win, rtmpi_attr_t **head, int keyval, void *value)
{
    if (!keyval_get(keyval, KV_WIN, 1))
        return MPI_ERR_KEYVAL;
    return attr_set(win, head, keyval, value);
}

int rtmpi_win_attr_get(rtmpi_attr_t **head, int keyval, void *value, int *flag)
{
    if (!keyval_get(keyval, KV_WIN, 0))
        return MPI_ERR_KEYVAL;
    rtmpi_attr_t **pp = find(head, keyval);
    *flag = *pp != NULL;
    if (*pp)
        *(void **)value = (*pp)->value;
    return MPI_SUCCESS;
}

int rtmpi_win_attr_delete(MPI_Win win, rtmpi_attr_t **head, int keyval)
{
    if (!keyval_get(keyval, KV_WIN, 0))
        return MPI_ERR_KEYVAL;
    rtmpi_attr_t **pp = find(head, keyval);
    if (!*pp)
        return MPI_ERR_KEYVAL;
    return delete_one(win, head, pp);
}

int rtmpi_win_attrs_delete_all(MPI_Win win, rtmpi_attr_t **head)
{
    return delete_all(win, head);
}

/* ---- Datatypes --------------------------------------------------------------------- */

/* The attribute list of datatype dt (valid); with `create`, made if it is
 * not there yet (NULL when out of memory). */
static rtmpi_attr_t **type_list(MPI_Datatype dt, int create)
{
    int c = dt / TYPE_ATTRS_CHUNK;

    if (c < type_attrs_nchunks && type_attrs[c])
        return &type_attrs[c][dt % TYPE_ATTRS_CHUNK];
    if (!create)
        return NULL;
    if (c >= type_attrs_nchunks) {
        int n = type_attrs_nchunks ? type_attrs_nchunks : 4;
        while (n <= c)
            n *= 2;
        rtmpi_attr_t ***t = realloc(type_attrs, (size_t)n * sizeof(*t));
        if (!t)
            return NULL;
        memset(t + type_attrs_nchunks, 0, (size_t)(n - type_attrs_nchunks) * sizeof(*t));
        type_attrs = t;
        type_attrs_nchunks = n;
    }
    type_attrs[c] = calloc(TYPE_ATTRS_CHUNK, sizeof(*type_attrs[c]));
    return type_attrs[c] ? &type_attrs[c][dt % TYPE_ATTRS_CHUNK] : NULL;
}

int rtmpi_type_dup_attrs(const char *fn, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    rtmpi_attr_t **from = type_list(oldtype, 0), **to;
    int rc;

    if (!from || !*from)
        return MPI_SUCCESS;
    if (!(to = type_list(*newtype, 1)))
        rc = MPI_ERR_NO_MEM;
    else
        rc = attrs_copy(oldtype, from, to);
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    PMPI_Type_free(newtype);
    return rtmpi_error(MPI_COMM_NULL, fn, rc, "copying the attributes of datatype %d failed",
                       oldtype);
}

int rtmpi_type_free_attrs(const char *fn, MPI_Datatype dt)
{
    rtmpi_attr_t **head = type_list(dt, 0);
    int rc = head ? delete_all(dt, head) : MPI_SUCCESS;

    return rc ? rtmpi_error(MPI_COMM_NULL, fn, rc, "a delete callback of an attribute of "
                            "datatype %d failed", dt) : MPI_SUCCESS;
}

/* Frees what is left without callbacks (MPI_Finalize). */
void rtmpi_attrs_finalize(void)
{
    for (int c = 0; c < type_attrs_nchunks; c++) {
        for (int i = 0; type_attrs[c] && i < TYPE_ATTRS_CHUNK; i++) {
            while (type_attrs[c][i]) {
                rtmpi_attr_t *a = type_attrs[c][i];

                type_attrs[c][i] = a->next;
                free(a);
            }
        }
        free(type_attrs[c]);
    }
    free(type_attrs);
    type_attrs = NULL;
    type_attrs_nchunks = 0;
    free(keyvals);
    keyvals = NULL;
    keyvals_cap = 0;
    nkeyvals = FIRST_USER_KEYVAL;
}

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn,
                            int *type_keyval, void *extra_state)
{
    RTMPI_ENTER();
    keyval_t kv = { .kind = KV_TYPE, .extra_state = extra_state,
                    .copy_fn.type = type_copy_attr_fn, .delete_fn.type = type_delete_attr_fn };
    return keyval_new(__func__, &kv, type_keyval, "type_keyval");
}
RTMPI_WEAK(Type_create_keyval)

int PMPI_Type_free_keyval(int *type_keyval)
{
    RTMPI_ENTER();
    return keyval_free(__func__, type_keyval, KV_TYPE);
}
RTMPI_WEAK(Type_free_keyval)

#define CHECK_TYPE(_dt) \
    do { \
        if (!rtmpi_dtype_get(_dt)) \
            return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_TYPE, "invalid datatype %d", _dt); \
    } while (0)

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    RTMPI_ENTER();
    CHECK_TYPE(datatype);
    if (!keyval_get(type_keyval, KV_TYPE, 1))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_KEYVAL,
                           "keyval %d is not a datatype keyval (invalid or freed)", type_keyval);
    rtmpi_attr_t **head = type_list(datatype, 1);
    if (!head)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM, "out of memory");
    int rc = attr_set(datatype, head, type_keyval, attribute_val);
    return rc ? rtmpi_error(MPI_COMM_NULL, __func__, rc, "the old value's delete callback "
                            "failed or out of memory") : MPI_SUCCESS;
}
RTMPI_WEAK(Type_set_attr)

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    RTMPI_ENTER();
    CHECK_TYPE(datatype);
    if (!attribute_val || !flag)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "attribute_val or flag is NULL");
    if (!keyval_get(type_keyval, KV_TYPE, 0))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_KEYVAL, "invalid datatype keyval %d",
                           type_keyval);
    rtmpi_attr_t **head = type_list(datatype, 0), **pp = head ? find(head, type_keyval) : NULL;
    *flag = pp && *pp;
    if (*flag)
        *(void **)attribute_val = (*pp)->value;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Type_get_attr)

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    RTMPI_ENTER();
    CHECK_TYPE(datatype);
    if (!keyval_get(type_keyval, KV_TYPE, 0))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_KEYVAL, "invalid datatype keyval %d",
                           type_keyval);
    rtmpi_attr_t **head = type_list(datatype, 0), **pp = head ? find(head, type_keyval) : NULL;
    if (!pp || !*pp)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_KEYVAL,
                           "datatype %d has no attribute with keyval %d", datatype, type_keyval);
    int rc = delete_one(datatype, head, pp);
    return rc ? rtmpi_error(MPI_COMM_NULL, __func__, rc, "the delete callback failed")
              : MPI_SUCCESS;
}
RTMPI_WEAK(Type_delete_attr)

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
