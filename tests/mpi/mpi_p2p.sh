#!/bin/sh
# mpi_p2p on 1 (singleton), 2, 3 and 4 ranks.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in 1 2 3 4; do
    run_np $np mpi_p2p
done
