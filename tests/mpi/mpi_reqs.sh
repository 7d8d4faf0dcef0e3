#!/bin/sh
# mpi_reqs (Ibsend, persistent send modes, Test/Wait-any/some edge cases,
# Sendrecv_replace of a vector type, MPI_Info_*) on 1, 2 and 3 ranks.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in 1 2 3; do
    run_np $np mpi_reqs
done
