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
for np in 1 2 3; do
    run_np $np mpi_nomem
done
# A message arriving unexpected at a rank with no memory left ends the job
# with a line that says so (runtime/peer.c, peer_no_memory), not a crash in
# the abort path or a "corrupt message".
err=$(mktemp)
trap 'rm -f "$err"' EXIT
"$RTRUN" -n 2 --oversubscribe --timeout 120 "$prog_dir/mpi_nomem" unexpected 2>"$err"
rc=$?
cat "$err" >&2
if [ $rc -eq 0 ]; then
    echo "FAIL: mpi_nomem unexpected: the job succeeded although rank 1 had no memory" >&2
    exit 1
fi
grep -q "rank 1 ([^)]*): out of memory: no room to hold a 1024-byte message from rank 0" "$err" || {
    echo "FAIL: mpi_nomem unexpected: no out-of-memory line naming both ranks" >&2; exit 1; }
if grep -qiE "signal|corrupt|timed out|timeout" "$err"; then
    echo "FAIL: mpi_nomem unexpected: the job did not end by the out-of-memory path" >&2
    exit 1
fi
echo "mpi_nomem unexpected: PASS (the job ended naming the message it could not keep)"
