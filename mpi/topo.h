/*
 * What the neighbourhood collectives (coll_neighbor.c) need of a
 * communicator's topology (topo.c): this rank's neighbours in the order
 * MPI 3.1 section 7.6 gives the blocks of their buffers.
 */
#ifndef RTMPI_TOPO_H
#define RTMPI_TOPO_H

#include "mpi_impl.h"

/* The number of neighbours this rank (rank `rank` of a communicator with
 * topology t) receives from and sends to. */
void rtmpi_topo_degrees(const rtmpi_topo_t *t, int rank, int *nin_p, int *nout_p);

/* The rank of in-neighbour k (rtmpi_topo_source) and of out-neighbour k
 * (rtmpi_topo_dest), 0 <= k < the degree above, in block order:
 *   Cartesian: for each dimension, the neighbour in the negative direction,
 *     then the one in the positive direction (displacement 1); sources and
 *     destinations are the same, MPI_PROC_NULL where a non-periodic grid
 *     ends;
 *   graph: MPI_Graph_neighbors of this rank, for both;
 *   distributed graph: the sources, the destinations of
 *     MPI_Dist_graph_neighbors. */
int rtmpi_topo_source(const rtmpi_topo_t *t, int rank, int k);
int rtmpi_topo_dest(const rtmpi_topo_t *t, int rank, int k);

#endif
