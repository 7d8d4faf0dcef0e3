#!/bin/sh
# mpi_handles (handle conversions, error classes, generalized requests,
# attributes, reference counting, tables without limits) on 1 (singleton),
# 2, 3 and 8 ranks.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
# glibc fills freed (and new) blocks with this byte's complement: a read of
# freed memory (attribute lists of a table that moved) gives garbage, not
# the old values, in the plain build too.
MALLOC_PERTURB_=165
export MALLOC_PERTURB_
for np in 1 2 3 8; do
    run_np $np mpi_handles
done
