#!/bin/sh
# mpi_collovf: collectives whose counts overflow only in products with the
# number of ranks or the extent, or in sums; MPI_ERR_COUNT, not a crash;
# and a type of negative extent through the schedules, data checked.
# 3 ranks make Reduce_scatter_block's int product wrap to a positive
# number, 4 give both halves of the intercommunicator 2 processes.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in $(t_np "2 3 4" "3 4"); do
    run_np "$np" mpi_collovf
done
