#!/bin/sh
# rma_passive (fetch-and-add contention, compare-and-swap, exclusive and
# shared locks, flushes, request-based operations) on 1, 2, 3 and 4 ranks.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in ${RTMTEST_NP:-1 2 3 4}; do
    run_np "$np" rma_passive
done
