#!/bin/sh
# mpi_bottom (tests/mpi/mpi_bottom.c) as a singleton and on 2 and 3 ranks
# (an intercommunicator of unequal groups at 3); then its Reduce and
# Allreduce of MPI_BOTTOM with absolute addresses, the tree's and the large
# reduce-scatter + gather's (also under the sanitizers: see mpi_bottom.c).
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in 1 2 3; do
    run_np $np mpi_bottom
done
for np in 2 3; do
    run_np $np mpi_bottom reduce
    run_np $np mpi_bottom large
done
echo "PASS: mpi_bottom"
