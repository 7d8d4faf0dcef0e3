#!/bin/bash
# mpi_scancel (MPI_Cancel of sends, MPI 3.1 3.8.4: an unmatched send is
# cancelled, its Wait returns and its receiver never sees it; a matched one
# completes) on shm as a singleton, at 2 and 3 ranks; over tcp; over verbs
# on softib. A hang meets rtrun's --timeout (or the singleton's timeout).
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
prog=$prog_dir/mpi_scancel
failed=0

# run NP [ENV...]: the program at NP ranks (1: a singleton), bounded
run() {
    local np=$1 rc
    shift
    echo "== $np rank(s)${*:+, $*}"
    if [ "$np" -eq 1 ]; then
        env "$@" timeout -k 5 120 "$prog"
    else
        env "$@" "$RTRUN" -n "$np" --oversubscribe --timeout 120 "$prog"
    fi
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL: mpi_scancel at $np rank(s)${*:+ with $*} exited $rc" >&2
        failed=1
    fi
}

run 1
run 2
run 3
if "$top_builddir/rtm_info" 2>/dev/null | grep -qE '^ +tcp +tcp:'; then
    run 2 RTM_TRANSPORTS=self,tcp
else
    echo "SKIP (tcp): rtm_info lists no tcp transport in this build"
fi
if t_softib_preload; then
    sib_dir=$(mktemp -d /tmp/rtm-scancel.XXXXXX) || exit 1
    trap 'rm -rf "$sib_dir"' EXIT
    run 2 RTM_TRANSPORTS=self,verbs SOFTIB_DIR="$sib_dir" LD_PRELOAD="$T_SOFTIB_PRELOAD"
else
    echo "SKIP (verbs): libsoftib is not built"
fi
exit $failed
