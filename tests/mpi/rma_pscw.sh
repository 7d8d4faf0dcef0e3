#!/bin/sh
# rma_pscw (post/start/complete/wait/test, derived datatypes on both
# sides, shared and dynamic windows) on 1, 2, 3 and 4 ranks.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in ${RTMTEST_NP:-1 2 3 4}; do
    run_np "$np" rma_pscw
done
