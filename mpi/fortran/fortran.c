/*
 * The Fortran binding (mpif.h and the mpi module, issue 16): the helpers
 * of the generated entry points (bindings.c), and the entry points the
 * generator leaves to this file: those that return a value, take a string
 * with its own length argument, pass attribute values (INTEGER of
 * MPI_ADDRESS_KIND in Fortran, void * in C), or take Fortran callbacks.
 *
 * Callbacks. A Fortran user op or error handler has the C callback's
 * calling convention already (every argument by reference, handles are
 * ints), so the C library calls it directly. Attribute copy/delete
 * functions and generalized-request callbacks take values in C and
 * references in Fortran: they go through the trampolines below, with the
 * Fortran functions in a small record passed as the extra_state. The
 * keyval records live until MPI_FINALIZE (an attribute may outlive its
 * keyval's MPI_*_FREE_KEYVAL); a generalized request's until its free_fn
 * has run.
 */
#include "config.h"

#include "fortran_impl.h"

#include <pthread.h>
#include <stdint.h>

MPI_Fint rtm_mpi_f_bottom_;
MPI_Fint rtm_mpi_f_in_place_;
MPI_Fint rtm_mpi_f_st_ignore_[MPI_F_STATUS_SIZE];
MPI_Fint rtm_mpi_f_sts_ignore_[MPI_F_STATUS_SIZE];
MPI_Fint rtm_mpi_f_unweighted_[1];
MPI_Fint rtm_mpi_f_weights_empty_[1];

/* ---- Helpers ---------------------------------------------------------------- */

int rtm_f_error(const char *fn, int errclass)
{
    (void)fn;
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, errclass);
    return errclass;
}

void rtm_f_status_in(const MPI_Fint *f, MPI_Status *c)
{
    memset(c, 0, sizeof(*c));
    if (f && !RTM_F_IS_STATUS_IGNORE(f))
        MPI_Status_f2c(f, c);
}

void rtm_f_status_out(const MPI_Status *c, MPI_Fint *f)
{
    if (f && !RTM_F_IS_STATUS_IGNORE(f))
        MPI_Status_c2f(c, f);
}

MPI_Status *rtm_f_statuses_alloc(int n, MPI_Status *stack)
{
    if (n <= RTM_F_STACK) {
        memset(stack, 0, sizeof(*stack) * RTM_F_STACK);
        return stack;
    }
    return calloc((size_t)n, sizeof(MPI_Status));
}

void rtm_f_statuses_in(const MPI_Fint *f, MPI_Status *c, int n)
{
    for (int i = 0; i < n; i++)
        MPI_Status_f2c(f + (size_t)i * MPI_F_STATUS_SIZE, &c[i]);
}

void rtm_f_statuses_out(const MPI_Status *c, MPI_Fint *f, int n)
{
    if (n == MPI_UNDEFINED)
        return;
    for (int i = 0; i < n; i++)
        MPI_Status_c2f(&c[i], f + (size_t)i * MPI_F_STATUS_SIZE);
}

MPI_Request *rtm_f_requests_in(const MPI_Fint *f, int n, MPI_Request *stack)
{
    MPI_Request *c = n <= RTM_F_STACK ? stack : malloc((size_t)n * sizeof(MPI_Request));

    if (!c)
        return NULL;
    for (int i = 0; i < n; i++)
        c[i] = MPI_Request_f2c(f[i]);
    return c;
}

void rtm_f_requests_out(MPI_Fint *f, const MPI_Request *c, int n)
{
    for (int i = 0; i < n; i++)
        f[i] = MPI_Request_c2f(c[i]);
}

void rtm_f_indices(MPI_Fint *idx, int n)
{
    if (n == MPI_UNDEFINED)
        return;
    for (int i = 0; i < n; i++)
        idx[i] += 1;
}

void rtm_f_logicals(MPI_Fint *a, int n)
{
    for (int i = 0; i < n; i++)
        a[i] = a[i] ? RTM_F_TRUE : RTM_F_FALSE;
}

/* Leading blanks go too, as Open MPI and MPICH do (the standard asks it
 * of info keys and values; a name that starts with a blank has no use). */
char *rtm_f_string_in(const char *f, size_t flen)
{
    size_t b = 0, e = flen;

    while (b < e && f[b] == ' ')
        b++;
    while (e > b && f[e - 1] == ' ')
        e--;
    char *c = malloc(e - b + 1);
    if (!c)
        return NULL;
    memcpy(c, f + b, e - b);
    c[e - b] = '\0';
    return c;
}

void rtm_f_string_out(const char *c, char *f, size_t flen)
{
    size_t n = strlen(c);

    if (n > flen)
        n = flen;
    memcpy(f, c, n);
    memset(f + n, ' ', flen - n);
}

/* ---- Environment ------------------------------------------------------------- */

static void records_free(void);

void pmpi_init_(MPI_Fint *ierr);
void pmpi_init_(MPI_Fint *ierr)
{
    int rc = MPI_Init(NULL, NULL);

    if (ierr)
        *ierr = rc;
}
RTM_F_WEAK(init)

void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    int rc = MPI_Init_thread(NULL, NULL, *required, provided);

    if (ierr)
        *ierr = rc;
}
RTM_F_WEAK(init_thread)

void pmpi_finalize_(MPI_Fint *ierr);
void pmpi_finalize_(MPI_Fint *ierr)
{
    int rc = MPI_Finalize();

    /* Finalize ran the delete callbacks of COMM_SELF's and COMM_WORLD's
     * attributes, the last users of the keyval records. */
    if (rc == MPI_SUCCESS)
        records_free();
    if (ierr)
        *ierr = rc;
}
RTM_F_WEAK(finalize)

/* MPI_PCONTROL(LEVEL) has no ierror argument. */
void pmpi_pcontrol_(MPI_Fint *level);
void pmpi_pcontrol_(MPI_Fint *level)
{
    MPI_Pcontrol(*level);
}
RTM_F_WEAK(pcontrol)

double pmpi_wtime_(void);
double pmpi_wtime_(void)
{
    return MPI_Wtime();
}
RTM_F_WEAK(wtime)

double pmpi_wtick_(void);
double pmpi_wtick_(void)
{
    return MPI_Wtick();
}
RTM_F_WEAK(wtick)

MPI_Aint pmpi_aint_add_(MPI_Aint *base, MPI_Aint *disp);
MPI_Aint pmpi_aint_add_(MPI_Aint *base, MPI_Aint *disp)
{
    return MPI_Aint_add(*base, *disp);
}
RTM_F_WEAK(aint_add)

MPI_Aint pmpi_aint_diff_(MPI_Aint *addr1, MPI_Aint *addr2);
MPI_Aint pmpi_aint_diff_(MPI_Aint *addr1, MPI_Aint *addr2)
{
    return MPI_Aint_diff(*addr1, *addr2);
}
RTM_F_WEAK(aint_diff)

/* Fortran cannot use the address C returns; BUFFER_ADDR is left alone. */
void pmpi_buffer_detach_(void *buffer_addr, MPI_Fint *size, MPI_Fint *ierr);
void pmpi_buffer_detach_(void *buffer_addr, MPI_Fint *size, MPI_Fint *ierr)
{
    void *addr = NULL;
    int rc = MPI_Buffer_detach(&addr, size);

    (void)buffer_addr;
    if (ierr)
        *ierr = rc;
}
RTM_F_WEAK(buffer_detach)

void pmpi_info_get_(MPI_Fint *info, const char *key, MPI_Fint *valuelen, char *value,
                    MPI_Fint *flag, MPI_Fint *ierr, size_t key_len, size_t value_len);
void pmpi_info_get_(MPI_Fint *info, const char *key, MPI_Fint *valuelen, char *value,
                    MPI_Fint *flag, MPI_Fint *ierr, size_t key_len, size_t value_len)
{
    char c_value[MPI_MAX_INFO_VAL + 1];
    int c_flag = 0, rc;
    char *c_key = rtm_f_string_in(key, key_len);

    if (!c_key) {
        rc = rtm_f_error("MPI_INFO_GET", MPI_ERR_NO_MEM);
    } else {
        /* What fits in VALUE, at most VALUELEN characters. */
        int len = *valuelen;
        if (len > 0 && (size_t)len > value_len)
            len = (int)value_len;
        if (len > MPI_MAX_INFO_VAL)
            len = MPI_MAX_INFO_VAL;
        rc = MPI_Info_get((MPI_Info)*info, c_key, len, c_value, &c_flag);
        if (rc == MPI_SUCCESS && c_flag)
            rtm_f_string_out(c_value, value, value_len);
        *flag = c_flag ? RTM_F_TRUE : RTM_F_FALSE;
        free(c_key);
    }
    if (ierr)
        *ierr = rc;
}
RTM_F_WEAK(info_get)

/* ---- Attributes ------------------------------------------------------------------
 *
 * A Fortran attribute value is an INTEGER(KIND=MPI_ADDRESS_KIND) (INTEGER
 * for the MPI-1 MPI_ATTR_*), stored as the bits of C's void *. The
 * predefined attributes are ints in C, returned to Fortran as their value
 * (MPI 3.1 section 17.2.7); MPI_WIN_BASE is the window's address and
 * MPI_WIN_SIZE an MPI_Aint. */

static MPI_Aint attr_value(int keyval, void *v, int is_win)
{
    if (is_win) {
        if (keyval == MPI_WIN_BASE)
            return (MPI_Aint)v;
        if (keyval == MPI_WIN_SIZE)
            return *(MPI_Aint *)v;
        if (keyval == MPI_WIN_DISP_UNIT || keyval == MPI_WIN_CREATE_FLAVOR ||
            keyval == MPI_WIN_MODEL)
            return *(int *)v;
        return (MPI_Aint)v;
    }
    if (keyval >= MPI_TAG_UB && keyval <= MPI_LASTUSEDCODE)
        return *(int *)v;
    return (MPI_Aint)v;
}

#define RTM_F_ATTR(_lname, _Name, _is_win) \
    void pmpi_##_lname##_set_attr_(MPI_Fint *h, MPI_Fint *keyval, MPI_Aint *val, \
                                   MPI_Fint *ierr); \
    void pmpi_##_lname##_set_attr_(MPI_Fint *h, MPI_Fint *keyval, MPI_Aint *val, \
                                   MPI_Fint *ierr) \
    { \
        int rc = MPI_##_Name##_set_attr(*h, *keyval, (void *)*val); \
        if (ierr) \
            *ierr = rc; \
    } \
    RTM_F_WEAK(_lname##_set_attr) \
    void pmpi_##_lname##_get_attr_(MPI_Fint *h, MPI_Fint *keyval, MPI_Aint *val, \
                                   MPI_Fint *flag, MPI_Fint *ierr); \
    void pmpi_##_lname##_get_attr_(MPI_Fint *h, MPI_Fint *keyval, MPI_Aint *val, \
                                   MPI_Fint *flag, MPI_Fint *ierr) \
    { \
        void *v = NULL; \
        int c_flag = 0; \
        int rc = MPI_##_Name##_get_attr(*h, *keyval, &v, &c_flag); \
        if (rc == MPI_SUCCESS && c_flag) \
            *val = attr_value(*keyval, v, _is_win); \
        *flag = c_flag ? RTM_F_TRUE : RTM_F_FALSE; \
        if (ierr) \
            *ierr = rc; \
    } \
    RTM_F_WEAK(_lname##_get_attr)

RTM_F_ATTR(comm, Comm, 0)
RTM_F_ATTR(type, Type, 0)
RTM_F_ATTR(win, Win, 1)

void pmpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *ierr);
void pmpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *ierr)
{
    int rc = MPI_Attr_put(*comm, *keyval, (void *)(MPI_Aint)*val);

    if (ierr)
        *ierr = rc;
}
RTM_F_WEAK(attr_put)

void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *flag,
                    MPI_Fint *ierr);
void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *flag,
                    MPI_Fint *ierr)
{
    void *v = NULL;
    int c_flag = 0;
    int rc = MPI_Attr_get(*comm, *keyval, &v, &c_flag);

    if (rc == MPI_SUCCESS && c_flag)
        *val = (MPI_Fint)attr_value(*keyval, v, 0);
    *flag = c_flag ? RTM_F_TRUE : RTM_F_FALSE;
    if (ierr)
        *ierr = rc;
}
RTM_F_WEAK(attr_get)

/* ---- Callback records ----------------------------------------------------------- */

typedef void f_copy_fn(MPI_Fint *h, MPI_Fint *keyval, void *extra, void *in, void *out,
                       MPI_Fint *flag, MPI_Fint *ierr);
typedef void f_delete_fn(MPI_Fint *h, MPI_Fint *keyval, void *val, void *extra,
                         MPI_Fint *ierr);
typedef void f_query_fn(MPI_Aint *extra, MPI_Fint *status, MPI_Fint *ierr);
typedef void f_free_fn(MPI_Aint *extra, MPI_Fint *ierr);
typedef void f_cancel_fn(MPI_Aint *extra, MPI_Fint *complete, MPI_Fint *ierr);

typedef struct f_record {
    struct f_record *next;
    int              mpi1;     /* MPI_KEYVAL_CREATE: INTEGER values and extra_state */
    f_copy_fn       *copy;
    f_delete_fn     *del;
    MPI_Aint         extra;
} f_record_t;

static f_record_t *records;
static pthread_mutex_t records_lock = PTHREAD_MUTEX_INITIALIZER;

static f_record_t *record_new(void)
{
    f_record_t *r = calloc(1, sizeof(*r));

    if (!r)
        return NULL;
    pthread_mutex_lock(&records_lock);
    r->next = records;
    records = r;
    pthread_mutex_unlock(&records_lock);
    return r;
}

static void records_free(void)
{
    pthread_mutex_lock(&records_lock);
    while (records) {
        f_record_t *r = records;
        records = r->next;
        free(r);
    }
    pthread_mutex_unlock(&records_lock);
}

/* The predefined Fortran callbacks (EXTERNALs of mpif.h): callable as
 * Fortran subroutines, and recognised by the keyval constructors, which
 * give C the C callbacks instead. */
#define RTM_F_PREDEF(_lname, _copy) \
    void _lname##_null_copy_fn_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *extra, MPI_Aint *in, \
                                MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr); \
    void _lname##_null_copy_fn_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *extra, MPI_Aint *in, \
                                MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr) \
    { \
        (void)h; (void)k; (void)extra; (void)in; (void)out; \
        *flag = RTM_F_FALSE; \
        *ierr = MPI_SUCCESS; \
    } \
    void _lname##_dup_fn_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *extra, _copy *in, \
                          _copy *out, MPI_Fint *flag, MPI_Fint *ierr); \
    void _lname##_dup_fn_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *extra, _copy *in, \
                          _copy *out, MPI_Fint *flag, MPI_Fint *ierr) \
    { \
        (void)h; (void)k; (void)extra; \
        *out = *in; \
        *flag = RTM_F_TRUE; \
        *ierr = MPI_SUCCESS; \
    } \
    void _lname##_null_delete_fn_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *val, MPI_Aint *extra, \
                                  MPI_Fint *ierr); \
    void _lname##_null_delete_fn_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *val, MPI_Aint *extra, \
                                  MPI_Fint *ierr) \
    { \
        (void)h; (void)k; (void)val; (void)extra; \
        *ierr = MPI_SUCCESS; \
    }

RTM_F_PREDEF(mpi_comm, MPI_Aint)
RTM_F_PREDEF(mpi_type, MPI_Aint)
RTM_F_PREDEF(mpi_win, MPI_Aint)
RTM_F_PREDEF(mpi, MPI_Fint)

/* C's copy and delete callbacks for a keyval made in Fortran. Comm, type
 * and window callbacks differ only in the handle's C type, an int for all
 * three, so one pair serves them. */
static int copy_tramp(int h, int keyval, void *extra_state, void *in, void *out, int *flag)
{
    f_record_t *r = extra_state;
    MPI_Fint fh = h, fk = keyval, fflag = RTM_F_FALSE, ierr = MPI_SUCCESS;

    if (r->mpi1) {
        MPI_Fint fextra = (MPI_Fint)r->extra, fin = (MPI_Fint)(MPI_Aint)in, fout = 0;
        r->copy(&fh, &fk, &fextra, &fin, &fout, &fflag, &ierr);
        *(void **)out = (void *)(MPI_Aint)fout;
    } else {
        MPI_Aint ain = (MPI_Aint)in, aout = 0;
        r->copy(&fh, &fk, &r->extra, &ain, &aout, &fflag, &ierr);
        *(void **)out = (void *)aout;
    }
    *flag = fflag != 0;
    return ierr;
}

static int delete_tramp(int h, int keyval, void *val, void *extra_state)
{
    f_record_t *r = extra_state;
    MPI_Fint fh = h, fk = keyval, ierr = MPI_SUCCESS;

    if (r->mpi1) {
        MPI_Fint fextra = (MPI_Fint)r->extra, fval = (MPI_Fint)(MPI_Aint)val;
        r->del(&fh, &fk, &fval, &fextra, &ierr);
    } else {
        MPI_Aint aval = (MPI_Aint)val;
        r->del(&fh, &fk, &aval, &r->extra, &ierr);
    }
    return ierr;
}

/* The record of a Fortran keyval, or NULL with *c_copy / *c_del set when
 * both callbacks are predefined ones (C needs no record then). */
static int keyval_record(void (*copy)(void), void (*del)(void), void (*null_copy)(void),
                         void (*dup)(void), void (*null_del)(void), int mpi1, MPI_Aint extra,
                         f_record_t **rec)
{
    *rec = NULL;
    if ((copy == null_copy || copy == dup) && del == null_del)
        return MPI_SUCCESS;
    f_record_t *r = record_new();
    if (!r)
        return MPI_ERR_NO_MEM;
    r->mpi1 = mpi1;
    r->copy = copy == null_copy ? NULL : (f_copy_fn *)copy;
    r->del = del == null_del ? NULL : (f_delete_fn *)del;
    r->extra = extra;
    *rec = r;
    return MPI_SUCCESS;
}

/* Fortran's DUP_FN when a record is needed for the delete callback. */
static int copy_dup_value(int h, int keyval, void *extra_state, void *in, void *out, int *flag)
{
    (void)h; (void)keyval; (void)extra_state;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

#define RTM_F_KEYVAL(_lname, _Name, _pre) \
    void pmpi_##_lname##_create_keyval_(void (*copy)(void), void (*del)(void), \
                                        MPI_Fint *keyval, MPI_Aint *extra, MPI_Fint *ierr); \
    void pmpi_##_lname##_create_keyval_(void (*copy)(void), void (*del)(void), \
                                        MPI_Fint *keyval, MPI_Aint *extra, MPI_Fint *ierr) \
    { \
        void (*nc)(void) = (void (*)(void))_pre##_null_copy_fn_; \
        void (*dp)(void) = (void (*)(void))_pre##_dup_fn_; \
        void (*nd)(void) = (void (*)(void))_pre##_null_delete_fn_; \
        f_record_t *r; \
        int rc = keyval_record(copy, del, nc, dp, nd, 0, *extra, &r); \
        if (rc != MPI_SUCCESS) \
            rc = rtm_f_error("MPI_" #_Name "_CREATE_KEYVAL", rc); \
        else if (!r) \
            rc = MPI_##_Name##_create_keyval(copy == dp ? _Name##_DUP_C : NULL, NULL, \
                                             keyval, (void *)*extra); \
        else \
            rc = MPI_##_Name##_create_keyval( \
                copy == dp ? copy_dup_value : r->copy ? copy_tramp : NULL, \
                r->del ? delete_tramp : NULL, keyval, r); \
        if (ierr) \
            *ierr = rc; \
    } \
    RTM_F_WEAK(_lname##_create_keyval)

#define Comm_DUP_C MPI_COMM_DUP_FN
#define Type_DUP_C MPI_TYPE_DUP_FN
#define Win_DUP_C  MPI_WIN_DUP_FN
RTM_F_KEYVAL(comm, Comm, mpi_comm)
RTM_F_KEYVAL(type, Type, mpi_type)
RTM_F_KEYVAL(win, Win, mpi_win)

void pmpi_keyval_create_(void (*copy)(void), void (*del)(void), MPI_Fint *keyval,
                         MPI_Fint *extra, MPI_Fint *ierr);
void pmpi_keyval_create_(void (*copy)(void), void (*del)(void), MPI_Fint *keyval,
                         MPI_Fint *extra, MPI_Fint *ierr)
{
    void (*nc)(void) = (void (*)(void))mpi_null_copy_fn_;
    void (*dp)(void) = (void (*)(void))mpi_dup_fn_;
    void (*nd)(void) = (void (*)(void))mpi_null_delete_fn_;
    f_record_t *r;
    int rc = keyval_record(copy, del, nc, dp, nd, 1, *extra, &r);

    if (rc != MPI_SUCCESS)
        rc = rtm_f_error("MPI_KEYVAL_CREATE", rc);
    else if (!r)
        rc = MPI_Comm_create_keyval(copy == dp ? MPI_COMM_DUP_FN : NULL, NULL, keyval,
                                    (void *)(MPI_Aint)*extra);
    else
        rc = MPI_Comm_create_keyval(copy == dp ? copy_dup_value : r->copy ? copy_tramp : NULL,
                                    r->del ? delete_tramp : NULL, keyval, r);
    if (ierr)
        *ierr = rc;
}
RTM_F_WEAK(keyval_create)

/* ---- Ops and error handlers: the Fortran function is the C callback ---------- */

void pmpi_op_create_(void (*fn)(void), MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr);
void pmpi_op_create_(void (*fn)(void), MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr)
{
    int rc = MPI_Op_create((MPI_User_function *)fn, *commute != 0, op);

    if (ierr)
        *ierr = rc;
}
RTM_F_WEAK(op_create)

#define RTM_F_ERRH(_lname, _cfn, _type) \
    void pmpi_##_lname##_(void (*fn)(void), MPI_Fint *errhandler, MPI_Fint *ierr); \
    void pmpi_##_lname##_(void (*fn)(void), MPI_Fint *errhandler, MPI_Fint *ierr) \
    { \
        int rc = _cfn((_type *)fn, errhandler); \
        if (ierr) \
            *ierr = rc; \
    } \
    RTM_F_WEAK(_lname)

RTM_F_ERRH(comm_create_errhandler, MPI_Comm_create_errhandler, MPI_Comm_errhandler_function)
RTM_F_ERRH(win_create_errhandler, MPI_Win_create_errhandler, MPI_Win_errhandler_function)
RTM_F_ERRH(errhandler_create, MPI_Errhandler_create, MPI_Handler_function)

/* ---- Generalized requests ---------------------------------------------------- */

typedef struct f_greq {
    f_query_fn  *query;
    f_free_fn   *free_fn;
    f_cancel_fn *cancel;
    MPI_Aint     extra;
} f_greq_t;

static int greq_query(void *extra_state, MPI_Status *status)
{
    f_greq_t *g = extra_state;
    MPI_Fint fst[MPI_F_STATUS_SIZE], ierr = MPI_SUCCESS;

    MPI_Status_c2f(status, fst);
    g->query(&g->extra, fst, &ierr);
    MPI_Status_f2c(fst, status);
    return ierr;
}

static int greq_free(void *extra_state)
{
    f_greq_t *g = extra_state;
    MPI_Fint ierr = MPI_SUCCESS;

    g->free_fn(&g->extra, &ierr);
    free(g);
    return ierr;
}

static int greq_cancel(void *extra_state, int complete)
{
    f_greq_t *g = extra_state;
    MPI_Fint fc = complete ? RTM_F_TRUE : RTM_F_FALSE, ierr = MPI_SUCCESS;

    g->cancel(&g->extra, &fc, &ierr);
    return ierr;
}

void pmpi_grequest_start_(f_query_fn *query, f_free_fn *free_fn, f_cancel_fn *cancel,
                          MPI_Aint *extra, MPI_Fint *request, MPI_Fint *ierr);
void pmpi_grequest_start_(f_query_fn *query, f_free_fn *free_fn, f_cancel_fn *cancel,
                          MPI_Aint *extra, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request c_req = MPI_REQUEST_NULL;
    int rc;
    f_greq_t *g = NULL;

    if (!query || !free_fn || !cancel) {
        rc = rtm_f_error("MPI_GREQUEST_START", MPI_ERR_ARG);
    } else if (!(g = malloc(sizeof(*g)))) {
        rc = rtm_f_error("MPI_GREQUEST_START", MPI_ERR_NO_MEM);
    } else {
        g->query = query;
        g->free_fn = free_fn;
        g->cancel = cancel;
        g->extra = *extra;
        rc = MPI_Grequest_start(greq_query, greq_free, greq_cancel, g, &c_req);
        if (rc == MPI_SUCCESS)
            *request = MPI_Request_c2f(c_req);
        else
            free(g);
    }
    if (ierr)
        *ierr = rc;
}
RTM_F_WEAK(grequest_start)

/* ---- MPI-1 functions with INTEGER addresses ------------------------------------
 *
 * An address does not fit a default INTEGER on x86_64: it is truncated, as
 * in Open MPI; differences of two truncated addresses are still right when
 * they are under 2 GiB, which is how old codes use them. */

void pmpi_address_(void *location, MPI_Fint *address, MPI_Fint *ierr);
void pmpi_address_(void *location, MPI_Fint *address, MPI_Fint *ierr)
{
    MPI_Aint a = 0;
    int rc = MPI_Address(RTM_F_BUF(location), &a);

    if (rc == MPI_SUCCESS)
        *address = (MPI_Fint)a;
    if (ierr)
        *ierr = rc;
}
RTM_F_WEAK(address)

#define RTM_F_EXTENT(_lname, _Name) \
    void pmpi_##_lname##_(MPI_Fint *datatype, MPI_Fint *v, MPI_Fint *ierr); \
    void pmpi_##_lname##_(MPI_Fint *datatype, MPI_Fint *v, MPI_Fint *ierr) \
    { \
        MPI_Aint a = 0; \
        int rc = MPI_##_Name(*datatype, &a); \
        if (rc == MPI_SUCCESS) \
            *v = (MPI_Fint)a; \
        if (ierr) \
            *ierr = rc; \
    } \
    RTM_F_WEAK(_lname)

RTM_F_EXTENT(type_extent, Type_extent)
RTM_F_EXTENT(type_lb, Type_lb)
RTM_F_EXTENT(type_ub, Type_ub)

void pmpi_type_hvector_(MPI_Fint *count, MPI_Fint *blocklength, MPI_Fint *stride,
                        MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr);
void pmpi_type_hvector_(MPI_Fint *count, MPI_Fint *blocklength, MPI_Fint *stride,
                        MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr)
{
    int rc = MPI_Type_hvector(*count, *blocklength, *stride, *oldtype, newtype);

    if (ierr)
        *ierr = rc;
}
RTM_F_WEAK(type_hvector)

/* INTEGER displacements as MPI_Aint ones: on the stack when few. */
static MPI_Aint *aints(const MPI_Fint *f, int n, MPI_Aint *stack)
{
    MPI_Aint *a = n <= RTM_F_STACK ? stack : malloc((size_t)n * sizeof(*a));

    if (a)
        for (int i = 0; i < n; i++)
            a[i] = f[i];
    return a;
}

void pmpi_type_hindexed_(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displs,
                         MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr);
void pmpi_type_hindexed_(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displs,
                         MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Aint stack[RTM_F_STACK], *d = NULL;
    int rc;

    if (*count < 0)
        rc = rtm_f_error("MPI_TYPE_HINDEXED", MPI_ERR_COUNT);
    else if (!(d = aints(displs, *count, stack)))
        rc = rtm_f_error("MPI_TYPE_HINDEXED", MPI_ERR_NO_MEM);
    else
        rc = MPI_Type_hindexed(*count, blocklengths, d, *oldtype, newtype);
    if (d != stack)
        free(d);
    if (ierr)
        *ierr = rc;
}
RTM_F_WEAK(type_hindexed)

void pmpi_type_struct_(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displs,
                       MPI_Fint *types, MPI_Fint *newtype, MPI_Fint *ierr);
void pmpi_type_struct_(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displs,
                       MPI_Fint *types, MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Aint stack[RTM_F_STACK], *d = NULL;
    int rc;

    if (*count < 0)
        rc = rtm_f_error("MPI_TYPE_STRUCT", MPI_ERR_COUNT);
    else if (!(d = aints(displs, *count, stack)))
        rc = rtm_f_error("MPI_TYPE_STRUCT", MPI_ERR_NO_MEM);
    else
        rc = MPI_Type_struct(*count, blocklengths, d, types, newtype);
    if (d != stack)
        free(d);
    if (ierr)
        *ierr = rc;
}
RTM_F_WEAK(type_struct)

/* ---- mpi_f08 names of the entry points above (same arguments) ---------- */

RTM_F08_ALIAS(init, init_f08);
RTM_F08_ALIAS(init_thread, init_thread_f08);
RTM_F08_ALIAS(finalize, finalize_f08);
RTM_F08_ALIAS(pcontrol, pcontrol_f08);
RTM_F08_ALIAS(info_get, info_get_f08);
RTM_F08_ALIAS(comm_set_attr, comm_set_attr_f08);
RTM_F08_ALIAS(comm_get_attr, comm_get_attr_f08);
RTM_F08_ALIAS(type_set_attr, type_set_attr_f08);
RTM_F08_ALIAS(type_get_attr, type_get_attr_f08);
RTM_F08_ALIAS(win_set_attr, win_set_attr_f08);
RTM_F08_ALIAS(win_get_attr, win_get_attr_f08);
RTM_F08_ALIAS(comm_create_keyval, comm_create_keyval_f08);
RTM_F08_ALIAS(type_create_keyval, type_create_keyval_f08);
RTM_F08_ALIAS(win_create_keyval, win_create_keyval_f08);
RTM_F08_ALIAS(op_create, op_create_f08);
RTM_F08_ALIAS(comm_create_errhandler, comm_create_errhandler_f08);
RTM_F08_ALIAS(win_create_errhandler, win_create_errhandler_f08);
RTM_F08_ALIAS(grequest_start, grequest_start_f08);
RTM_F08_ALIAS(attr_put, attr_put_f08);
RTM_F08_ALIAS(attr_get, attr_get_f08);
RTM_F08_ALIAS(keyval_create, keyval_create_f08);
