/*
 * The mpi_f08 module's helpers (issue 16, MPI 3.1 section 17.2): choice
 * buffers arrive as CFI descriptors (TS 29113 / Fortran 2018, TYPE(*),
 * DIMENSION(..)), the operators on handles, and the routines that differ
 * from their mpif.h entry points.
 *
 * A buffer that is a contiguous array (or a scalar, an assumed-size array,
 * an empty section) is passed by its address. A non-contiguous section:
 *  - RTM_F08_ADDR (MPI_Get_address, MPI_Free_mem): the first element's
 *    address, as the standard says;
 *  - RTM_F08_PACK / PACK_IN (blocking routines): copied into a contiguous
 *    temporary before the call and, unless the C argument is const, back
 *    after it (the whole section, so what the call does not write keeps
 *    its value);
 *  - RTM_F08_CONTIG with a (count, datatype) pair of this process
 *    (nonblocking and persistent point-to-point, MPI_Ibcast, the send side
 *    of MPI_Igather(v) / Iallgather(v) / Ineighbor_allgather(v), the
 *    receive side of MPI_Iscatter(v)): when the datatype's extent is
 *    the element's size, the call gets one hindexed-block datatype over
 *    the section's first `count` elements instead (no copy; the request
 *    holds the type, which is freed here at once);
 *  - otherwise (other nonblocking routines, one-sided, window memory, the
 *    Bsend buffer, or a datatype that does not fit one element): refused
 *    with MPI_ERR_BUFFER and a line on stderr that says why.
 */
#include "config.h"

#include "fortran_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#if RTM_F08

/* Elements of the section (SIZE_MAX for an assumed-size array); 1 when it
 * is contiguous in Fortran order, or its elements have no bytes (a section
 * of CHARACTER(LEN=0): nothing to copy, whatever the strides say, and the
 * copy's size must not be divided by a zero length). */
static int f08_contiguous(const CFI_cdesc_t *d, size_t *nelem)
{
    size_t n = 1;
    CFI_index_t expect = (CFI_index_t)d->elem_len;
    int contig = 1;

    for (int r = 0; r < d->rank; r++) {
        CFI_index_t ext = d->dim[r].extent;
        if (ext < 0) {           /* assumed size: contiguous by definition */
            *nelem = SIZE_MAX;
            return 1;
        }
        n *= (size_t)ext;
        if (ext > 1 && d->dim[r].sm != expect)
            contig = 0;
        expect *= ext;
    }
    *nelem = n;
    return n == 0 || d->elem_len == 0 ? 1 : contig;
}

/* Copies the n elements of section d into (to_flat) or out of flat. */
static void f08_copy(const CFI_cdesc_t *d, char *flat, size_t n, int to_flat)
{
    CFI_index_t idx[CFI_MAX_RANK] = {0};
    char *base = d->base_addr;
    size_t len = d->elem_len;

    for (size_t k = 0; k < n; k++) {
        ptrdiff_t off = 0;
        for (int r = 0; r < d->rank; r++)
            off += (ptrdiff_t)idx[r] * (ptrdiff_t)d->dim[r].sm;
        if (to_flat)
            memcpy(flat + k * len, base + off, len);
        else
            memcpy(base + off, flat + k * len, len);
        for (int r = 0; r < d->rank; r++) {
            if (++idx[r] < d->dim[r].extent)
                break;
            idx[r] = 0;
        }
    }
}

static int f08_refuse(const char *fn, const char *arg, const char *why)
{
    fprintf(stderr, "rtmsg: %s (mpi_f08): %s is a non-contiguous array section, %s; "
            "pass a contiguous array (or describe the layout with a derived datatype)\n",
            fn, arg, why);
    return rtm_f_error(fn, MPI_ERR_BUFFER);
}

static void f08_buf_init(rtm_f08_buf_t *b, CFI_cdesc_t *d, int mode, MPI_Fint *count,
                         MPI_Fint *datatype)
{
    memset(b, 0, sizeof(*b));
    b->d = d;
    b->mode = mode;
    b->ptr = d ? d->base_addr : NULL;
    b->countp = count;
    b->typep = datatype;
    b->ctype = MPI_DATATYPE_NULL;
}

int rtm_f08_buf_in(const char *fn, const char *arg, CFI_cdesc_t *d, int mode, rtm_f08_buf_t *b)
{
    size_t n;

    f08_buf_init(b, d, mode, NULL, NULL);
    if (!d)
        return rtm_f_error(fn, MPI_ERR_BUFFER);
    if (mode == RTM_F08_ADDR || f08_contiguous(d, &n))
        return MPI_SUCCESS;
    if (mode == RTM_F08_CONTIG)
        return f08_refuse(fn, arg, "which this routine cannot take (the library keeps "
                          "using the buffer after the call returns)");
    if (n > SIZE_MAX / d->elem_len)
        return rtm_f_error(fn, MPI_ERR_NO_MEM);
    b->tmp = malloc(n * d->elem_len + 1);
    if (!b->tmp)
        return rtm_f_error(fn, MPI_ERR_NO_MEM);
    b->nelem = n;
    f08_copy(d, b->tmp, n, 1);
    b->ptr = b->tmp;
    return MPI_SUCCESS;
}

int rtm_f08_buf_sized(const char *fn, const char *arg, CFI_cdesc_t *d, int mode,
                      MPI_Fint *count, MPI_Fint *datatype, rtm_f08_buf_t *b)
{
    size_t n;
    MPI_Aint lb, extent, tlb, textent;
    int rc;

    if (!d || mode == RTM_F08_CONTIG || f08_contiguous(d, &n) || *count <= 0)
        return rtm_f08_buf_in(fn, arg, d, mode, b);
    /* A section is copied: it must hold count of datatype (the end of the
     * last one), or the call would write past the copy. */
    rc = MPI_Type_get_extent((MPI_Datatype)*datatype, &lb, &extent);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_get_true_extent((MPI_Datatype)*datatype, &tlb, &textent);
    if (rc != MPI_SUCCESS) {
        f08_buf_init(b, d, mode, NULL, NULL);
        return rc;
    }
    double need = (double)tlb + (double)(*count - 1) * (double)extent + (double)textent;
    double have = (double)n * (double)d->elem_len;
    if (tlb < 0 || need > have) {
        f08_buf_init(b, d, mode, NULL, NULL);
        fprintf(stderr, "rtmsg: %s (mpi_f08): %s is an array section of %.0f bytes, "
                "%d of its datatype need %.0f\n", fn, arg, have, (int)*count, need);
        return rtm_f_error(fn, MPI_ERR_COUNT);
    }
    return rtm_f08_buf_in(fn, arg, d, mode, b);
}

int rtm_f08_buf_typed(const char *fn, const char *arg, CFI_cdesc_t *d, MPI_Fint *count,
                      MPI_Fint *datatype, rtm_f08_buf_t *b)
{
    size_t n;
    MPI_Aint lb = 0, extent = 0, *displs = NULL;
    int rc;

    f08_buf_init(b, d, RTM_F08_CONTIG, count, datatype);
    if (!d)
        return rtm_f_error(fn, MPI_ERR_BUFFER);
    if (f08_contiguous(d, &n) || *count <= 0)
        return MPI_SUCCESS;
    rc = MPI_Type_get_extent((MPI_Datatype)*datatype, &lb, &extent);
    if (rc != MPI_SUCCESS)
        return rc;
    if (lb != 0 || extent != (MPI_Aint)d->elem_len)
        return f08_refuse(fn, arg, "and the datatype's extent is not one element's size "
                          "(the library keeps using the buffer after the call returns, so "
                          "it cannot be copied)");
    if ((size_t)*count > n) {
        fprintf(stderr, "rtmsg: %s (mpi_f08): count %d is more than the %zu elements of the "
                "array section %s\n", fn, (int)*count, n, arg);
        return rtm_f_error(fn, MPI_ERR_COUNT);
    }
    displs = malloc((size_t)*count * sizeof(*displs));
    if (!displs)
        return rtm_f_error(fn, MPI_ERR_NO_MEM);
    {
        CFI_index_t idx[CFI_MAX_RANK] = {0};
        for (int k = 0; k < *count; k++) {
            ptrdiff_t off = 0;
            for (int r = 0; r < d->rank; r++)
                off += (ptrdiff_t)idx[r] * (ptrdiff_t)d->dim[r].sm;
            displs[k] = (MPI_Aint)off;
            for (int r = 0; r < d->rank; r++) {
                if (++idx[r] < d->dim[r].extent)
                    break;
                idx[r] = 0;
            }
        }
    }
    MPI_Datatype t = MPI_DATATYPE_NULL;
    rc = MPI_Type_create_hindexed_block(*count, 1, displs, (MPI_Datatype)*datatype, &t);
    free(displs);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_commit(&t);
    if (rc != MPI_SUCCESS) {
        if (t != MPI_DATATYPE_NULL)
            MPI_Type_free(&t);
        return rc;
    }
    b->ctype = t;
    b->fcount = 1;
    b->ftype = (MPI_Fint)t;
    b->countp = &b->fcount;
    b->typep = &b->ftype;
    return MPI_SUCCESS;
}

void rtm_f08_buf_out(rtm_f08_buf_t *b, int done)
{
    if (b->tmp) {
        if (done && b->mode == RTM_F08_PACK)
            f08_copy(b->d, b->tmp, b->nelem, 0);
        free(b->tmp);
        b->tmp = NULL;
    }
    if (b->ctype != MPI_DATATYPE_NULL) {
        MPI_Type_free(&b->ctype);
        b->ctype = MPI_DATATYPE_NULL;
    }
}

/* MPI_F_sync_reg: nothing to do; the call itself tells the compiler the
 * buffer may have changed. */
void pmpi_f_sync_reg_f08ts_(CFI_cdesc_t *buf);
void pmpi_f_sync_reg_f08ts_(CFI_cdesc_t *buf)
{
    (void)buf;
}
RTM_F08_WEAK(f_sync_reg_f08ts)

/* MPI_Sizeof (mpi and mpi_f08): the element size of the descriptor. */
void pmpi_sizeof_f08ts_(CFI_cdesc_t *x, MPI_Fint *size, MPI_Fint *ierr);
void pmpi_sizeof_f08ts_(CFI_cdesc_t *x, MPI_Fint *size, MPI_Fint *ierr)
{
    int rc = MPI_SUCCESS;

    if (!x || x->elem_len > INT_MAX)
        rc = rtm_f_error("MPI_Sizeof", MPI_ERR_ARG);
    else
        *size = (MPI_Fint)x->elem_len;
    if (ierr)
        *ierr = rc;
}
RTM_F08_WEAK(sizeof_f08ts)

#endif /* RTM_F08 */

/* ---- Operators on handles ----------------------------------------------- */

#define RTM_F08_CMP(_k) \
    MPI_Fint rtm_f08_##_k##_eq_(const MPI_Fint *a, const MPI_Fint *b); \
    MPI_Fint rtm_f08_##_k##_eq_(const MPI_Fint *a, const MPI_Fint *b) \
    { \
        return *a == *b ? RTM_F_TRUE : RTM_F_FALSE; \
    } \
    MPI_Fint rtm_f08_##_k##_ne_(const MPI_Fint *a, const MPI_Fint *b); \
    MPI_Fint rtm_f08_##_k##_ne_(const MPI_Fint *a, const MPI_Fint *b) \
    { \
        return *a != *b ? RTM_F_TRUE : RTM_F_FALSE; \
    }
RTM_F08_CMP(comm)
RTM_F08_CMP(datatype)
RTM_F08_CMP(group)
RTM_F08_CMP(op)
RTM_F08_CMP(info)
RTM_F08_CMP(errhandler)
RTM_F08_CMP(request)
RTM_F08_CMP(message)
RTM_F08_CMP(win)

/* MPI_Buffer_detach: buffer_addr is TYPE(C_PTR) in mpi_f08 and receives
 * the buffer's address. */
void pmpi_buffer_detach_f08_(void **buffer_addr, MPI_Fint *size, MPI_Fint *ierr);
void pmpi_buffer_detach_f08_(void **buffer_addr, MPI_Fint *size, MPI_Fint *ierr)
{
    void *addr = NULL;
    int sz = 0;
    int rc = MPI_Buffer_detach(&addr, &sz);

    if (rc == MPI_SUCCESS) {
        *buffer_addr = addr;
        *size = sz;
    }
    if (ierr)
        *ierr = rc;
}
RTM_F08_WEAK(buffer_detach_f08)
