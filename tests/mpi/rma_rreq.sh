#!/bin/bash
# rma_rreq: an Rput/Rget issued by RDMA completes by its own MPI_Test,
# MPI_Wait or MPI_Testall (or a flush of its target), and progress on other
# requests never flushes for it (MPI_T rtm_rma_flushes): verbs on softib
# (RDMA: one flush per completion), tcp (messages: none) and shm (CMA
# where the kernel allows it: at most one).
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
failed=0

run() {   # run LABEL ENV...
    local label=$1 rc
    shift
    echo "== rma_rreq, $label"
    env "$@" "$RTRUN" -n 2 --oversubscribe --timeout 120 "$prog_dir/rma_rreq" >"$log" 2>&1
    rc=$?
    cat "$log"
    if [ $rc -ne 0 ]; then
        echo "FAIL: rma_rreq on $label exited $rc" >&2
        failed=1
    fi
}

tmp=$(mktemp -d /tmp/rtm-rmarreq.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
log=$tmp/log
if t_softib_preload; then
    run "verbs (softib)" SOFTIB_DIR="$tmp" LD_PRELOAD="$T_SOFTIB_PRELOAD" \
        RTM_TRANSPORTS=self,verbs RMA_RREQ_EXPECT=rdma
else
    echo "SKIP (verbs): libsoftib is not built"
fi
if "$top_builddir/rtm_info" 2>/dev/null | grep -qE '^ +tcp +tcp:'; then
    run tcp RTM_TRANSPORTS=self,tcp RMA_RREQ_EXPECT=none
fi
run shm
exit $failed
