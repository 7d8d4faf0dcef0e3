#!/bin/sh
# Calls that run out of memory part way leave nothing behind: a failed
# request allocation in MPI_Bsend releases its slot of the attached buffer
# (mpi/pt2pt.c), a failed MPI_Info_dup frees its half copy (mpi/info.c;
# tests/mpi/mpi_nomem.c). malloc is made to fail by tests/mpi/failmalloc.c,
# preloaded; under ASan it must come before the ASan runtime, which then
# must not insist on being first (it still serves every allocation).
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
shim="$top_builddir/tests/mpi/.libs/libfailmalloc.so"
if [ ! -f "$shim" ]; then
    echo "FAIL: $shim is not built" >&2
    exit 1
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}"
for np in 1 2; do
    run_np $np mpi_nomem
done
