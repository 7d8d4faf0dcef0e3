#!/bin/sh
# mpi_icomm (intercommunicators and communicator creation) as a singleton
# and on 2, 3, 5 and 8 ranks: even and odd halves, groups of one.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in ${RTMTEST_NP:-1 2 3 5 8}; do
    run_np "$np" mpi_icomm
done
