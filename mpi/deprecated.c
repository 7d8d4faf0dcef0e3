/*
 * The MPI-1 names removed in MPI 3.0 that Open MPI 4.1 and MPICH 4.0 still
 * provide and old codes still call: thin wrappers over their MPI 3.1
 * replacements (mpi.h declares them deprecated). MPI_Attr_* and
 * MPI_Keyval_* live with the attributes (attr.c).
 */
#include "config.h"

#include "mpi_impl.h"

int PMPI_Address(void *location, MPI_Aint *address)
{
    return PMPI_Get_address(location, address);
}
RTMPI_WEAK(Address)

int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    MPI_Aint lb;

    if (!extent)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "extent is NULL");
    return PMPI_Type_get_extent(datatype, &lb, extent);
}
RTMPI_WEAK(Type_extent)

int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_Aint extent;

    if (!displacement)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "displacement is NULL");
    return PMPI_Type_get_extent(datatype, displacement, &extent);
}
RTMPI_WEAK(Type_lb)

int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_Aint lb, extent;
    int rc;

    if (!displacement)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "displacement is NULL");
    rc = PMPI_Type_get_extent(datatype, &lb, &extent);
    if (rc == MPI_SUCCESS)
        *displacement = lb + extent;
    return rc;
}
RTMPI_WEAK(Type_ub)

int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                     MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return PMPI_Type_create_struct(count, array_of_blocklengths, array_of_displacements,
                                   array_of_types, newtype);
}
RTMPI_WEAK(Type_struct)

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    return PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}
RTMPI_WEAK(Type_hvector)

int PMPI_Type_hindexed(int count, int array_of_blocklengths[],
                       MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                       MPI_Datatype *newtype)
{
    return PMPI_Type_create_hindexed(count, array_of_blocklengths, array_of_displacements,
                                     oldtype, newtype);
}
RTMPI_WEAK(Type_hindexed)

/* MPI_Handler_function and MPI_Comm_errhandler_function are the same type
 * (void (MPI_Comm *, int *, ...)): an MPI-1 handler is a communicator one. */
int PMPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_create_errhandler(function, errhandler);
}
RTMPI_WEAK(Errhandler_create)

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return PMPI_Comm_set_errhandler(comm, errhandler);
}
RTMPI_WEAK(Errhandler_set)

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_get_errhandler(comm, errhandler);
}
RTMPI_WEAK(Errhandler_get)

/* MPI_NULL_COPY_FN: the attribute is not copied. */
int rtm_mpi_null_copy_fn(MPI_Comm oldcomm, int keyval, void *extra_state,
                         void *attribute_val_in, void *attribute_val_out, int *flag)
{
    (void)oldcomm; (void)keyval; (void)extra_state; (void)attribute_val_in;
    (void)attribute_val_out;
    *flag = 0;
    return MPI_SUCCESS;
}

/* MPI_NULL_DELETE_FN: nothing to do. */
int rtm_mpi_null_delete_fn(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state)
{
    (void)comm; (void)keyval; (void)attribute_val; (void)extra_state;
    return MPI_SUCCESS;
}

/* MPI_DUP_FN: the copy gets the same value (MPI_COMM_DUP_FN). */
int rtm_mpi_dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                   void *attribute_val_out, int *flag)
{
    return MPI_COMM_DUP_FN(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out,
                           flag);
}
