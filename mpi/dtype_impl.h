/*
 * What the datatype files (datatype.c, dtype_envelope.c, dtype_darray.c)
 * share and nothing else sees: building a type's segments block by block,
 * object references, and the constructor's arguments kept for
 * MPI_Type_get_contents.
 */
#ifndef RTMPI_DTYPE_IMPL_H
#define RTMPI_DTYPE_IMPL_H

#include "mpi_impl.h"

#include <stdbool.h>

/* A type under construction: blocks are added in typemap order. */
typedef struct dtype_build {
    rtmpi_dtype_t *d;
    int segcap, repcap;
    bool any;          /* a block with count > 0 was added: lb/ub are set */
    bool anydata;      /* a block with data was added: true bounds, basic are set */
    bool lb_mark, ub_mark;   /* a block brought an explicit lb / ub marker */
    MPI_Aint lb, ub;
} dtype_build_t;

/* What a constructor returns when the new type's size, extent, bounds or
 * element count would not fit its 64-bit type (MPI_Count, MPI_Aint): the
 * type is refused, never wrapped. Neither MPI 3.1 nor the peers name a
 * class for it (Open MPI wraps, MPICH asserts); the arguments together are
 * invalid, so MPI_ERR_ARG. */
#define DTYPE_ERR_RANGE MPI_ERR_ARG

/* The end of a constructor: rc itself, reported (the range error with what
 * does not fit) unless MPI_SUCCESS. */
int dtype_finish(const char *fn, int rc);

/* Starts a type of constructor `combiner`; MPI_ERR_NO_MEM. */
int dtype_build_init(dtype_build_t *b, int combiner);
/* Adds one block: elements of `type` at disp + sum of i_k * stride[k],
 * i_k < count[k], over nloops (0..2) loops, loop 0 innermost.
 * MPI_ERR_NO_MEM, DTYPE_ERR_RANGE. */
int dtype_build_add(dtype_build_t *b, MPI_Aint disp, rtmpi_dtype_t *type, int nloops,
                    const MPI_Count *count, const MPI_Aint *stride);
/* Ends the construction: sizes and bounds; `pad` rounds the extent up to
 * the alignment as a C compiler pads a struct (not when an explicit upper
 * bound marker sets the bound). DTYPE_ERR_RANGE (the type
 * is dropped) when the extent or true extent does not fit MPI_Aint. */
int dtype_build_done(dtype_build_t *b, bool pad, rtmpi_dtype_t **d_p);
void dtype_build_abort(dtype_build_t *b);

/* Gives d a handle (d's reference becomes the handle's); on failure d is
 * released. */
int dtype_handle_new(rtmpi_dtype_t *d, MPI_Datatype *newtype);
void dtype_hold(rtmpi_dtype_t *d);
void dtype_put(rtmpi_dtype_t *d);
/* Keeps a constructor's arguments (types by handle, held by reference). */
int dtype_set_contents(rtmpi_dtype_t *d, int nints, const int *ints, int naints,
                       const MPI_Aint *aints, int ntypes, const MPI_Datatype *types);
/* A new object equivalent to d (same typemap, bounds, combiner and
 * contents), with one reference; NULL when out of memory. */
rtmpi_dtype_t *dtype_clone(const rtmpi_dtype_t *d);
/* A type of MPI_Type_create_f90_* (dtype_match.c): the named type base
 * under a new handle, predefined (MPI_Type_free refuses it; finalize frees
 * it), with the combiner and the (p, r) or (r) it was asked for as
 * contents. */
int dtype_f90_new(MPI_Datatype base, int combiner, int nints, const int *ints,
                  MPI_Datatype *newtype);

/* Grid types (subarray, darray): in dimension k the indices first + r *
 * every + i, i < len, r < repeat, of up to two such blocks, in increasing
 * order; dimension sizes `sizes`, C or Fortran order. The result spans the
 * whole array (lb 0, extent of the array), without contents or handle. */
#define RTMPI_GRID_MAXDIMS 32
typedef struct dtype_dim_block {
    MPI_Count first, len, repeat, every;
} dtype_dim_block_t;
int dtype_grid(int ndims, const int *sizes, int order, rtmpi_dtype_t *old, const int *nblocks,
               const dtype_dim_block_t (*blocks)[2], int combiner, rtmpi_dtype_t **d_p);

#endif
