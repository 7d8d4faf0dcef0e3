#!/bin/bash
# rma_rdma: MPI Put/Get as RDMA writes and reads on verbs (softib), proved
# by the transport's count of one-sided work requests (one per small
# operation; none on a window with info rtmsg_win_rdma=false; Gets only
# with rtmsg_win_rdma=read, or over XRC, which exposes regions read only),
# in full mesh, on demand and XRC; then over tcp (no count: messages) and
# shm (CMA: counted for MPI_Win_create; MPI_Win_allocate's host segment is
# loads and stores, none).
# Atomicity of Fetch_and_op/Accumulate under contention on every one.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
failed=0

run() {   # run NP LABEL ENV...
    local np=$1 label=$2 rc
    shift 2
    echo "== rma_rdma, $label, $np ranks"
    env "$@" "$RTRUN" -n "$np" --oversubscribe --timeout 120 "$prog_dir/rma_rdma"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL: rma_rdma on $label with $np ranks exited $rc" >&2
        failed=1
    fi
}

if t_softib_preload; then
    sib_dir=$(mktemp -d /tmp/rtm-rmardma.XXXXXX) || exit 1
    trap 'rm -rf "$sib_dir"' EXIT
    sib="SOFTIB_DIR=$sib_dir LD_PRELOAD=$T_SOFTIB_PRELOAD RTM_TRANSPORTS=self,verbs"
    for np in $(t_np "4" "3"); do
        # shellcheck disable=SC2086
        run "$np" "verbs (softib, full mesh)" $sib RTM_VERBS_CONN=fullmesh RMA_RDMA_EXPECT=rdma
    done
    # shellcheck disable=SC2086
    run 3 "verbs (softib, on demand)" $sib RTM_VERBS_CONN=ondemand RMA_RDMA_EXPECT=rdma
    # shellcheck disable=SC2086
    run 3 "verbs (softib, XRC)" $sib RTM_VERBS_CONN=fullmesh RTM_VERBS_XRC=1 RMA_RDMA_EXPECT=read
else
    echo "SKIP (verbs): libsoftib is not built"
fi
if "$top_builddir/rtm_info" 2>/dev/null | grep -qE '^ +tcp +tcp:'; then
    run 3 tcp RTM_TRANSPORTS=self,tcp RMA_RDMA_EXPECT=none
fi
# where the kernel refuses CMA, shm exposes nothing: messages
if RTM_TRANSPORTS=self,shm RTM_LOG_LEVEL=info "$RTRUN" -n 2 --oversubscribe --timeout 60 \
        "$top_builddir/tests/verbs/vrb_rma" ops none 2>&1 | grep -q 'CMA refused\|CMA off'; then
    run 3 "shm without CMA" RMA_RDMA_EXPECT=none
else
    run 3 "shm (CMA)" RMA_RDMA_EXPECT=rdma RMA_RDMA_EXPECT_ALLOC=none
fi
exit $failed
