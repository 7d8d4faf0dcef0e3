/*
 * MPI_Type_create_darray (MPI 3.1 4.1.4): the part of a global array a
 * process owns in a block, cyclic or undistributed decomposition over a
 * process grid in row-major order. Each dimension is at most two regular
 * runs of indices (a cyclic one: whole blocks every psize * darg indices,
 * then a shorter last block), so the type is built as a grid type
 * (dtype_grid) of O(ndims) segments whatever the array's size.
 */
#include "config.h"

#include "dtype_impl.h"

#include <limits.h>

/* The indices process coordinate `coord` owns in one dimension. */
static int dim_blocks(const char *fn, int k, int gsize, int distrib, int darg, int psize,
                      int coord, dtype_dim_block_t *blocks, int *nblocks_p)
{
    MPI_Count b, first;

    switch (distrib) {
    case MPI_DISTRIBUTE_NONE:
        if (psize != 1)
            return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                               "dimension %d is MPI_DISTRIBUTE_NONE over %d processes (must be 1)",
                               k, psize);
        blocks[0] = (dtype_dim_block_t){ 0, gsize, 1, 0 };
        *nblocks_p = 1;
        return MPI_SUCCESS;
    case MPI_DISTRIBUTE_BLOCK:
        b = darg == MPI_DISTRIBUTE_DFLT_DARG ? ((MPI_Count)gsize + psize - 1) / psize : darg;
        if (b <= 0 || b * psize < gsize)
            return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                               "dimension %d: blocks of %d over %d processes do not cover %d "
                               "elements", k, darg, psize, gsize);
        first = (MPI_Count)coord * b;
        *nblocks_p = 0;
        if (first < gsize) {
            blocks[0] = (dtype_dim_block_t){ first, gsize - first < b ? gsize - first : b, 1, 0 };
            *nblocks_p = 1;
        }
        return MPI_SUCCESS;
    case MPI_DISTRIBUTE_CYCLIC: {
        b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        if (b <= 0)
            return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                               "dimension %d: cyclic block size %d is not positive", k, darg);
        MPI_Count every = b * psize;

        first = (MPI_Count)coord * b;
        *nblocks_p = 0;
        if (first >= gsize)
            return MPI_SUCCESS;
        MPI_Count nk = (gsize - first + every - 1) / every;
        MPI_Count last = first + (nk - 1) * every;
        MPI_Count lastlen = gsize - last < b ? gsize - last : b;

        if (lastlen == b) {
            blocks[0] = (dtype_dim_block_t){ first, b, nk, every };
            *nblocks_p = 1;
        } else {
            int n = 0;

            if (nk > 1)
                blocks[n++] = (dtype_dim_block_t){ first, b, nk - 1, every };
            blocks[n++] = (dtype_dim_block_t){ last, lastlen, 1, 0 };
            *nblocks_p = n;
        }
        return MPI_SUCCESS;
    }
    default:
        return rtmpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "dimension %d: invalid distribution %d",
                           k, distrib);
    }
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    int nblocks[RTMPI_GRID_MAXDIMS], coords[RTMPI_GRID_MAXDIMS];
    dtype_dim_block_t blocks[RTMPI_GRID_MAXDIMS][2];
    rtmpi_dtype_t *old, *d;
    long long nprocs = 1;
    int rc;

    RTMPI_ENTER();
    if (!newtype)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "newtype is NULL");
    old = rtmpi_dtype_get(oldtype);
    if (!old)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_TYPE, "invalid datatype %d", oldtype);
    if (ndims <= 0 || ndims > RTMPI_GRID_MAXDIMS)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_DIMS, "ndims %d not in 1..%d", ndims,
                           RTMPI_GRID_MAXDIMS);
    if (!array_of_gsizes || !array_of_distribs || !array_of_dargs || !array_of_psizes)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "NULL array argument");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG, "invalid order %d", order);
    for (int k = 0; k < ndims; k++) {
        if (array_of_gsizes[k] <= 0 || array_of_psizes[k] <= 0)
            return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG,
                               "dimension %d: global size %d, processes %d must be positive", k,
                               array_of_gsizes[k], array_of_psizes[k]);
        nprocs *= array_of_psizes[k];
        if (nprocs > INT_MAX)
            break;
    }
    if (size <= 0 || nprocs != size)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_ARG,
                           "the process grid holds %lld processes, size is %d", nprocs, size);
    if (rank < 0 || rank >= size)
        return rtmpi_error(MPI_COMM_NULL, __func__, MPI_ERR_RANK, "rank %d not in 0..%d", rank,
                           size - 1);
    /* the process grid is in row-major order whatever the array's order */
    for (int k = ndims - 1, r = rank; k >= 0; k--) {
        coords[k] = r % array_of_psizes[k];
        r /= array_of_psizes[k];
    }
    for (int k = 0; k < ndims; k++) {
        rc = dim_blocks(__func__, k, array_of_gsizes[k], array_of_distribs[k], array_of_dargs[k],
                        array_of_psizes[k], coords[k], blocks[k], &nblocks[k]);
        if (rc)
            return rc;
    }
    rc = dtype_grid(ndims, array_of_gsizes, order, old, nblocks,
                    (const dtype_dim_block_t (*)[2])blocks, MPI_COMBINER_DARRAY, &d);
    if (rc == MPI_SUCCESS) {
        int ints[4 * RTMPI_GRID_MAXDIMS + 4], n = 0;

        ints[n++] = size;
        ints[n++] = rank;
        ints[n++] = ndims;
        for (int k = 0; k < ndims; k++)
            ints[n++] = array_of_gsizes[k];
        for (int k = 0; k < ndims; k++)
            ints[n++] = array_of_distribs[k];
        for (int k = 0; k < ndims; k++)
            ints[n++] = array_of_dargs[k];
        for (int k = 0; k < ndims; k++)
            ints[n++] = array_of_psizes[k];
        ints[n++] = order;
        if (dtype_set_contents(d, n, ints, 0, NULL, 1, &oldtype)) {
            dtype_put(d);
            rc = MPI_ERR_NO_MEM;
        } else {
            rc = dtype_handle_new(d, newtype);
        }
    }
    return dtype_finish(__func__, rc);
}
RTMPI_WEAK(Type_create_darray)
