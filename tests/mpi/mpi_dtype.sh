#!/bin/sh
# mpi_dtype on 1 (singleton), 2, 3 and 4 ranks.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in 1 2 3 4; do
    run_np $np mpi_dtype
done
