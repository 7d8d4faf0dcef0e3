/*
 * MPI_Type_match_size: the predefined type of a type class and a size in
 * bytes. The sized Fortran types answer (MPI_INTEGER4, MPI_REAL8, ...), as
 * in MPICH; their sizes are gfortran's, so the answer matches a Fortran
 * variable of that kind and the C type of that size alike.
 *
 * MPI_Type_create_f90_integer/real/complex (MPI 3.1 17.1.9): the type of
 * the kind gfortran's SELECTED_INT_KIND(r) / SELECTED_REAL_KIND(p, r)
 * selects, as a handle of its own per (p, r) (its envelope gives back what
 * was asked), built over the sized type of that kind.
 */
#include "config.h"

#include "dtype_impl.h"

#include <string.h>

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const struct {
        int typeclass, size;
        MPI_Datatype type;
    } sized[] = {
        { MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1 },  { MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2 },
        { MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4 },  { MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8 },
#ifdef __SIZEOF_INT128__
        { MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16 },
#endif
        { MPI_TYPECLASS_REAL, 4, MPI_REAL4 },        { MPI_TYPECLASS_REAL, 8, MPI_REAL8 },
#ifdef __FLT128_MANT_DIG__
        { MPI_TYPECLASS_REAL, 16, MPI_REAL16 },
        { MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32 },
#endif
        { MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8 },  { MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16 },
    };

    RTMPI_ENTER();
    if (!datatype)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "datatype is NULL");
    if (typeclass != MPI_TYPECLASS_INTEGER && typeclass != MPI_TYPECLASS_REAL &&
        typeclass != MPI_TYPECLASS_COMPLEX)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG,
                           "typeclass %d is not MPI_TYPECLASS_INTEGER, _REAL or _COMPLEX",
                           typeclass);
    for (size_t i = 0; i < sizeof(sized) / sizeof(sized[0]); i++) {
        if (sized[i].typeclass == typeclass && sized[i].size == size) {
            *datatype = sized[i].type;
            return MPI_SUCCESS;
        }
    }
    return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG,
                       "no predefined %s type of %d bytes",
                       typeclass == MPI_TYPECLASS_INTEGER ? "integer"
                       : typeclass == MPI_TYPECLASS_REAL  ? "real" : "complex",
                       size);
}
RTMPI_WEAK(Type_match_size)

/* gfortran's kinds, smallest first: SELECTED_*_KIND picks the first that
 * is precise enough and has the range. REAL(10) is x87 extended precision,
 * MPI_LONG_DOUBLE's; the 16-byte kinds only where the C compiler has them
 * (else no kind fits, as with a compiler without them). */
static const struct {
    int range;
    MPI_Datatype type;
} int_kinds[] = {
    { 2, MPI_INTEGER1 }, { 4, MPI_INTEGER2 }, { 9, MPI_INTEGER4 }, { 18, MPI_INTEGER8 },
#ifdef __SIZEOF_INT128__
    { 38, MPI_INTEGER16 },
#endif
};

static const struct {
    int precision, range;
    MPI_Datatype real, complex;
} real_kinds[] = {
    { 6, 37, MPI_REAL4, MPI_COMPLEX8 },
    { 15, 307, MPI_REAL8, MPI_COMPLEX16 },
#if defined(__x86_64__) || defined(__i386__)
    { 18, 4931, MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX },
#endif
#ifdef __FLT128_MANT_DIG__
    { 33, 4931, MPI_REAL16, MPI_COMPLEX32 },
#endif
};

/* The handle made before for this combiner and these arguments: the
 * standard has the same (p, r) give the same type. Handles are never
 * reused, so the f90 types are among the handles above the named ones. */
static MPI_Datatype f90_find(int combiner, int nints, const int *ints)
{
    for (int i = RTMPI_N_PREDEFINED_TYPES; i < rtmpi_ntypes; i++) {
        const rtmpi_dtype_t *d = rtmpi_types[i];

        if (d && d->predefined && d->combiner == combiner && d->contents.nints == nints &&
            !memcmp(d->contents.ints, ints, (size_t)nints * sizeof(int)))
            return i;
    }
    return MPI_DATATYPE_NULL;
}

static int f90_type(const char *fn, MPI_Datatype base, int combiner, int nints,
                    const int *ints, MPI_Datatype *newtype)
{
    MPI_Datatype t = f90_find(combiner, nints, ints);
    int rc;

    if (t == MPI_DATATYPE_NULL && (rc = dtype_f90_new(base, combiner, nints, ints, &t)))
        return rtmpi_error(MPI_COMM_NULL, fn, rc, "out of memory for the type");
    *newtype = t;
    return MPI_SUCCESS;
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    RTMPI_ENTER();
    if (!newtype)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "newtype is NULL");
    /* r = MPI_UNDEFINED, or any r < 0, constrains nothing: the smallest kind,
     * as SELECTED_INT_KIND(r) answers (and Open MPI) */
    for (size_t i = 0; i < sizeof(int_kinds) / sizeof(int_kinds[0]); i++)
        if (r <= int_kinds[i].range)
            return f90_type(__func__, int_kinds[i].type, MPI_COMBINER_F90_INTEGER, 1, &r,
                            newtype);
    return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG,
                       "no integer kind has a range of %d decimal digits (at most %d)", r,
                       int_kinds[sizeof(int_kinds) / sizeof(int_kinds[0]) - 1].range);
}
RTMPI_WEAK(Type_create_f90_integer)

static int f90_real(const char *fn, int p, int r, int is_complex, MPI_Datatype *newtype)
{
    const int ints[2] = { p, r };

    if (!newtype)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "newtype is NULL");
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                           "p and r are both MPI_UNDEFINED (at most one may be)");
    for (size_t i = 0; i < sizeof(real_kinds) / sizeof(real_kinds[0]); i++)
        if ((p == MPI_UNDEFINED || p <= real_kinds[i].precision) &&
            (r == MPI_UNDEFINED || r <= real_kinds[i].range))
            return f90_type(fn, is_complex ? real_kinds[i].complex : real_kinds[i].real,
                            is_complex ? MPI_COMBINER_F90_COMPLEX : MPI_COMBINER_F90_REAL, 2,
                            ints, newtype);
    return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                       "no %s kind has a precision of %d digits and a range of %d (at most "
                       "%d and %d)", is_complex ? "complex" : "real", p, r,
                       real_kinds[sizeof(real_kinds) / sizeof(real_kinds[0]) - 1].precision,
                       real_kinds[sizeof(real_kinds) / sizeof(real_kinds[0]) - 1].range);
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    RTMPI_ENTER();
    return f90_real(__func__, p, r, 0, newtype);
}
RTMPI_WEAK(Type_create_f90_real)

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    RTMPI_ENTER();
    return f90_real(__func__, p, r, 1, newtype);
}
RTMPI_WEAK(Type_create_f90_complex)
