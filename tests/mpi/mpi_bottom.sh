#!/bin/sh
# mpi_bottom (tests/mpi/mpi_bottom.c) as a singleton and on 2 and 3 ranks
# (an intercommunicator of unequal groups at 3).
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in 1 2 3; do
    run_np $np mpi_bottom
done
echo "PASS: mpi_bottom"
