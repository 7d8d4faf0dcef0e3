#!/bin/bash
# The one-sided tests (rma_fence, rma_passive, rma_pscw) at 3 ranks over
# tcp (RTM_TRANSPORTS=self,tcp: shm off) and over verbs on softib: the
# engine runs on the binding's point-to-point, so every transport carries
# it. A hang meets rtrun's --timeout.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
failed=0

run() {
    local prog=$1 rc
    shift
    echo "== $prog at 3 ranks, $*"
    env "$@" "$RTRUN" -n 3 --oversubscribe --timeout 120 "$prog_dir/$prog"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL: $prog at 3 ranks with $* exited $rc" >&2
        failed=1
    fi
}

if "$top_builddir/rtm_info" 2>/dev/null | grep -qE '^ +tcp +tcp:'; then
    for p in rma_fence rma_passive rma_pscw; do
        run "$p" RTM_TRANSPORTS=self,tcp
    done
else
    echo "SKIP (tcp): rtm_info lists no tcp transport in this build"
fi
if t_softib_preload; then
    sib_dir=$(mktemp -d /tmp/rtm-rma.XXXXXX) || exit 1
    trap 'rm -rf "$sib_dir"' EXIT
    for p in rma_fence rma_passive rma_pscw; do
        run "$p" RTM_TRANSPORTS=self,verbs SOFTIB_DIR="$sib_dir" LD_PRELOAD="$T_SOFTIB_PRELOAD"
    done
else
    echo "SKIP (verbs): libsoftib is not built"
fi
exit $failed
