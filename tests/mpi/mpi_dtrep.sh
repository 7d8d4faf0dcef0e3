#!/bin/sh
# mpi_dtrep on 1 (singleton), 2 and 4 ranks.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in 1 2 4; do
    run_np $np mpi_dtrep
done
