#!/bin/sh
# mpi_handles (handle conversions, error classes, generalized requests,
# attributes, reference counting, tables without limits) on 1 (singleton),
# 2, 3 and 8 ranks.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in 1 2 3 8; do
    run_np $np mpi_handles
done
