#!/bin/sh
# mpi_coll, blocking and nonblocking, on 1 to 5 and 8 ranks: power-of-two
# and other sizes take different paths in every algorithm.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in 1 2 3 4 5 8; do
    run_np $np mpi_coll
    run_np $np mpi_coll nb
done
