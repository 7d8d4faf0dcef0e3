#!/bin/sh
# mpi_errstr: every error class's MPI_Error_string, as a singleton and on 2 ranks.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in 1 2; do
    run_np $np mpi_errstr
done
