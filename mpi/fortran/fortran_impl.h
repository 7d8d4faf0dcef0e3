/*
 * The Fortran binding's helpers (mpi/fortran/fortran.c), shared by the
 * generated entry points (bindings.c) and the hand-written ones.
 *
 * Conventions of gfortran on x86_64 that the binding relies on:
 *  - every argument by reference, external names lower case with one
 *    trailing underscore (mpi_send_, also for names with underscores);
 *  - a CHARACTER argument adds a hidden size_t length after all the
 *    others, one per CHARACTER argument, in order;
 *  - INTEGER and LOGICAL are 4 bytes (MPI_Fint), .TRUE. is 1, .FALSE. 0;
 *    INTEGER(KIND=8) is MPI_Aint / MPI_Count / MPI_Offset;
 *  - COMMON /x/ is the global symbol x_, which is how the special
 *    addresses (MPI_BOTTOM, MPI_STATUS_IGNORE, ...) are recognised.
 */
#ifndef RTM_MPI_FORTRAN_IMPL_H
#define RTM_MPI_FORTRAN_IMPL_H

/* The MPI-1 functions are bound too (old Fortran codes call them). */
#define RTMPI_NO_DEPRECATION_WARNINGS 1
#include <mpi.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define RTM_F_TRUE  1
#define RTM_F_FALSE 0
/* Arrays of requests and statuses up to this long are converted on the
 * stack; longer ones are allocated. */
#define RTM_F_STACK 16

#define RTM_F_STR(_x) #_x
#define RTM_F_WEAK(_n) _Pragma(RTM_F_STR(weak mpi_##_n##_ = pmpi_##_n##_))

/* The COMMON blocks of mpif.h / the mpi module (sizes as declared there). */
extern MPI_Fint rtm_mpi_f_bottom_;
extern MPI_Fint rtm_mpi_f_in_place_;
extern MPI_Fint rtm_mpi_f_st_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint rtm_mpi_f_sts_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint rtm_mpi_f_unweighted_[1];
extern MPI_Fint rtm_mpi_f_weights_empty_[1];

#define RTM_F_BUF(_p) \
    ((const void *)(_p) == (const void *)&rtm_mpi_f_bottom_ ? MPI_BOTTOM : \
     (const void *)(_p) == (const void *)&rtm_mpi_f_in_place_ ? MPI_IN_PLACE : (void *)(_p))
#define RTM_F_WEIGHTS(_p) \
    ((_p) == rtm_mpi_f_unweighted_ ? MPI_UNWEIGHTED : \
     (_p) == rtm_mpi_f_weights_empty_ ? MPI_WEIGHTS_EMPTY : (_p))
/* Either IGNORE is taken for the other: the standard keeps them apart only
 * for type checking. */
#define RTM_F_IS_STATUS_IGNORE(_s) \
    ((_s) == rtm_mpi_f_st_ignore_ || (_s) == rtm_mpi_f_sts_ignore_ || \
     (_s) == MPI_F_STATUS_IGNORE || (_s) == MPI_F_STATUSES_IGNORE)
#define RTM_F_IS_STATUSES_IGNORE(_s) RTM_F_IS_STATUS_IGNORE(_s)

/* Raises errclass on MPI_COMM_WORLD's error handler for Fortran function
 * fn; returns errclass (for ierror). */
int rtm_f_error(const char *fn, int errclass);

/* Statuses: a Fortran status is mpi.h's MPI_F_STATUS_SIZE integers. */
void rtm_f_status_in(const MPI_Fint *f, MPI_Status *c);
void rtm_f_status_out(const MPI_Status *c, MPI_Fint *f);
/* n statuses: `stack` (RTM_F_STACK of them) when they fit, else malloc;
 * NULL when out of memory. */
MPI_Status *rtm_f_statuses_alloc(int n, MPI_Status *stack);
/* The first n (none if n is MPI_UNDEFINED) back to Fortran. */
/* Copies the program's n Fortran statuses into c (MPI_ERROR included). */
void rtm_f_statuses_in(const MPI_Fint *f, MPI_Status *c, int n);
void rtm_f_statuses_out(const MPI_Status *c, MPI_Fint *f, int n);

/* n Fortran requests as C ones, in `stack` or allocated (NULL: no memory). */
MPI_Request *rtm_f_requests_in(const MPI_Fint *f, int n, MPI_Request *stack);
void rtm_f_requests_out(MPI_Fint *f, const MPI_Request *c, int n);

/* 0-based indices C wrote become Fortran's 1-based ones (n may be
 * MPI_UNDEFINED). */
void rtm_f_indices(MPI_Fint *idx, int n);
/* LOGICALs C wrote as 0/nonzero become .FALSE./.TRUE. */
void rtm_f_logicals(MPI_Fint *a, int n);

/* A Fortran string as a C one (trailing blanks dropped), allocated: NULL
 * when out of memory. */
char *rtm_f_string_in(const char *f, size_t flen);
/* A C string into a Fortran one, truncated or padded with blanks. */
void rtm_f_string_out(const char *c, char *f, size_t flen);

/* ---- mpi_f08 (f08.c) ---- */

/* The mpi_f08 names of an entry point whose arguments are the mpif.h
 * ones: pmpi_<a>_ an alias of pmpi_<n>_, mpi_<a>_ a weak one. */
#define RTM_F08_ALIAS(_n, _a) \
    extern __typeof__(pmpi_##_n##_) pmpi_##_a##_ __attribute__((alias("pmpi_" #_n "_"))); \
    extern __typeof__(pmpi_##_n##_) mpi_##_a##_ __attribute__((weak, alias("pmpi_" #_n "_")))
#define RTM_F08_WEAK(_n) RTM_F_WEAK(_n)

/* Choice buffers of mpi_f08 come as CFI descriptors: gfortran's
 * ISO_Fortran_binding.h (with gcc's headers). Without it the mpi_f08
 * entry points with buffers are left out (there is no gfortran either). */
#if defined(__has_include)
#if __has_include(<ISO_Fortran_binding.h>)
#include <ISO_Fortran_binding.h>
#define RTM_F08 1
#endif
#endif
#ifndef RTM_F08
#define RTM_F08 0
#endif

#if RTM_F08
enum {
    RTM_F08_ADDR,      /* only the address is used */
    RTM_F08_CONTIG,    /* used after the call: must be contiguous */
    RTM_F08_PACK_IN,   /* blocking, read: a section is copied in */
    RTM_F08_PACK       /* blocking, written: copied in and back out */
};
typedef struct {
    void *ptr;               /* what the C call gets */
    void *tmp;               /* the copy of a section, or NULL */
    CFI_cdesc_t *d;
    size_t nelem;
    int mode;
    MPI_Fint *countp, *typep; /* (count, datatype) the call gets */
    MPI_Fint fcount, ftype;
    MPI_Datatype ctype;      /* a datatype over a section, to free */
} rtm_f08_buf_t;
/* fn's buffer arg d in the given mode; MPI_SUCCESS or the error raised. */
int rtm_f08_buf_in(const char *fn, const char *arg, CFI_cdesc_t *d, int mode,
                   rtm_f08_buf_t *b);
/* The same for a buffer that holds count of datatype: a section that is
 * too small to is refused (MPI_ERR_COUNT) rather than copied. */
int rtm_f08_buf_sized(const char *fn, const char *arg, CFI_cdesc_t *d, int mode,
                      MPI_Fint *count, MPI_Fint *datatype, rtm_f08_buf_t *b);
/* The same for a buffer kept after the call with its (count, datatype):
 * a section becomes a datatype (b->countp, b->typep). */
int rtm_f08_buf_typed(const char *fn, const char *arg, CFI_cdesc_t *d, MPI_Fint *count,
                      MPI_Fint *datatype, rtm_f08_buf_t *b);
/* After the call (done) or instead of it: copies back, frees. */
void rtm_f08_buf_out(rtm_f08_buf_t *b, int done);
#endif

#endif
