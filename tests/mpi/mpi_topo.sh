#!/bin/sh
# mpi_topo (tests/mpi/mpi_topo.c) as a singleton and on 2, 3, 4, 6 and 8
# ranks: periodic dimensions of size 1 and 2 (a neighbour twice), grids
# with MPI_PROC_NULL ends, square and non-square grids, graphs and
# distributed graphs whose multi-edges pair up across ranks.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in 1 2 3 4 6 8; do
    run_np $np mpi_topo
done
