#!/bin/sh
# mpi_dtovf: datatypes at the 64-bit limits, in one process (nothing it
# checks involves a peer).
. "$top_srcdir/tests/mpi/common.sh"
for np in $(t_np 1); do
    run_np "$np" mpi_dtovf
done
