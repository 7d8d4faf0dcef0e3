/*
 * MPI_Type_match_size: the predefined type of a type class and a size in
 * bytes. The sized Fortran types answer (MPI_INTEGER4, MPI_REAL8, ...), as
 * in MPICH; their sizes are gfortran's, so the answer matches a Fortran
 * variable of that kind and the C type of that size alike.
 */
#include "config.h"

#include "mpi_impl.h"

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
