/*
 * MPI_Type_get_envelope and MPI_Type_get_contents (MPI 3.1 4.1.13): the
 * constructor and the arguments every derived type keeps
 * (rtmpi_dtype_t.contents, filled by the constructors in datatype.c and
 * dtype_darray.c). A derived type among the returned ones is a new handle
 * of an equivalent object (same typemap, combiner and contents), which the
 * caller frees; a predefined one is itself.
 */
#include "config.h"

#include "dtype_impl.h"

#include <string.h>

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    RTMPI_ENTER();
    rtmpi_dtype_t *d = rtmpi_dtype_get(datatype);
    if (!d)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_TYPE, "invalid datatype %d", datatype);
    if (!num_integers || !num_addresses || !num_datatypes || !combiner)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "an output argument is NULL");
    *num_integers = d->contents.nints;
    *num_addresses = d->contents.naints;
    *num_datatypes = d->contents.ntypes;
    *combiner = d->combiner;
    return MPI_SUCCESS;
}
RTMPI_WEAK(Type_get_envelope)

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    RTMPI_ENTER();
    rtmpi_dtype_t *d = rtmpi_dtype_get(datatype);
    if (!d)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_TYPE, "invalid datatype %d", datatype);
    if (d->combiner == MPI_COMBINER_NAMED)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_TYPE,
                           "%s is a named datatype: it has no contents", d->name);
    const rtmpi_dtcontents_t *c = &d->contents;
    if (max_integers < c->nints || max_addresses < c->naints || max_datatypes < c->ntypes)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG,
                           "arrays of %d integers, %d addresses, %d datatypes are too small for "
                           "%d, %d, %d (MPI_Type_get_envelope gives the sizes)",
                           max_integers, max_addresses, max_datatypes, c->nints, c->naints,
                           c->ntypes);
    if ((c->nints && !array_of_integers) || (c->naints && !array_of_addresses) ||
        (c->ntypes && !array_of_datatypes))
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "an output array is NULL");

    MPI_Datatype types[c->ntypes ? c->ntypes : 1];
    for (int i = 0; i < c->ntypes; i++) {
        rtmpi_dtype_t *t = c->types[i];

        if (t->predefined) {
            types[i] = t->handle;
            continue;
        }
        rtmpi_dtype_t *n = dtype_clone(t);
        int rc = n ? dtype_handle_new(n, &types[i]) : MPI_ERR_NO_MEM;

        if (rc) {
            for (int j = 0; j < i; j++)
                if (!c->types[j]->predefined)
                    PMPI_Type_free(&types[j]);
            return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_NO_MEM,
                               "out of memory for the returned datatypes");
        }
    }
    if (c->nints)
        memcpy(array_of_integers, c->ints, (size_t)c->nints * sizeof(int));
    if (c->naints)
        memcpy(array_of_addresses, c->aints, (size_t)c->naints * sizeof(MPI_Aint));
    if (c->ntypes)
        memcpy(array_of_datatypes, types, (size_t)c->ntypes * sizeof(MPI_Datatype));
    return MPI_SUCCESS;
}
RTMPI_WEAK(Type_get_contents)
