#!/bin/sh
# rma_shm: one-sided operations between ranks of one host on MPI_Win_allocate
# windows (done by the origin in the host segment): fetch-and-add while the
# target calls no MPI function, accumulate atomicity of doubles, MAXLOC
# pairs and a misaligned int under contention, a window where odd ranks go
# by messages (info rtmsg_win_shm=false) and even ranks directly, and
# load/store visibility after MPI_Win_sync. As a singleton and on 2, 4
# and 8 ranks.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in ${RTMTEST_NP:-1 2 4 8}; do
    run_np "$np" rma_shm
done
