#!/bin/sh
# rma_fence (windows, attributes, errors, Put/Get/Accumulate in fence
# epochs, inline and large data) as a singleton and on 2, 3 and 4 ranks.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in ${RTMTEST_NP:-1 2 3 4}; do
    run_np "$np" rma_fence
done
