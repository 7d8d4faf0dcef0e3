#!/bin/bash
# rma_rdma: MPI Put/Get as RDMA writes and reads on verbs (softib), proved
# by the transport's count of one-sided work requests (one per small
# operation; none on a window with info rtmsg_win_rdma=false; Gets only
# with rtmsg_win_rdma=read, or over XRC, which exposes regions read only),
# in full mesh, on demand, XRC and on a device without memory windows (one
# MR per window: read only, Gets, unless RTM_VERBS_MR_WRITE=1); then over tcp (no count: messages) and
# shm (CMA: counted for MPI_Win_create; MPI_Win_allocate's host segment is
# loads and stores, none).
# Atomicity of Fetch_and_op/Accumulate/MAX/REPLACE/CAS under contention on
# every one. Accumulates of 8-byte elements: one RDMA atomic each where the
# window is HCA-atomic (verbs with atomics to every rank, itself included:
# full mesh, on demand, one MR with RTM_VERBS_MR_WRITE=1), messages
# elsewhere (XRC, SOFTIB_CAPS=noatomic, read-only MRs, tcp, shm).
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
failed=0

run() {   # run NP LABEL ENV...
    local np=$1 label=$2 rc
    shift 2
    echo "== rma_rdma, $label, $np ranks"
    env "$@" "$RTRUN" -n "$np" --oversubscribe --timeout 120 "$prog_dir/rma_rdma" \
        >"$log" 2>&1
    rc=$?
    grep -v ' debug: ' "$log"
    if [ $rc -ne 0 ]; then
        echo "FAIL: rma_rdma on $label with $np ranks exited $rc" >&2
        failed=1
    fi
}

tmp=$(mktemp -d /tmp/rtm-rmardma.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
log=$tmp/log
if t_softib_preload; then
    sib="SOFTIB_DIR=$tmp LD_PRELOAD=$T_SOFTIB_PRELOAD RTM_TRANSPORTS=self,verbs"
    for np in $(t_np "4" "3"); do
        # shellcheck disable=SC2086
        run "$np" "verbs (softib, full mesh)" $sib RTM_VERBS_CONN=fullmesh RMA_RDMA_EXPECT=rdma \
            RMA_RDMA_EXPECT_ATOMIC=hca RTM_LOG_LEVEL=debug
        # least privilege at exposure: read, write and atomics by a memory
        # window per peer (and one for the rank's own loopback QP), read
        # only where the window's info said rtmsg_win_rdma=read
        for want in 'rights rwa, by a type 2 window per peer' 'rights r, by a type 2 window per peer' \
                'HCA-atomic window' 'loopback QP'; do
            if ! grep -q "$want" "$log"; then
                echo "FAIL: no '$want' in the log" >&2
                failed=1
            fi
        done
    done
    # shellcheck disable=SC2086
    run 3 "verbs (softib, on demand)" $sib RTM_VERBS_CONN=ondemand RMA_RDMA_EXPECT=rdma \
        RMA_RDMA_EXPECT_ATOMIC=hca
    # a device without atomics (atomic_cap IBV_ATOMIC_NONE): messages, exact
    # shellcheck disable=SC2086
    run 3 "verbs (softib, no atomics)" $sib SOFTIB_CAPS=noatomic RMA_RDMA_EXPECT=rdma
    # XRC exposes regions read only: accumulates are messages
    # shellcheck disable=SC2086
    run 3 "verbs (softib, XRC)" $sib RTM_VERBS_CONN=fullmesh RTM_VERBS_XRC=1 RMA_RDMA_EXPECT=read
    # a device without type 2 memory windows: one MR per window, exposed
    # read only (its key would let any holder write: Puts go by messages),
    # unless RTM_VERBS_MR_WRITE=1 accepts that
    # shellcheck disable=SC2086
    run 2 "verbs (softib without memory windows)" $sib SOFTIB_CAPS=nomw RMA_RDMA_EXPECT=read
    # shellcheck disable=SC2086
    run 2 "verbs (softib without memory windows, RTM_VERBS_MR_WRITE=1)" $sib SOFTIB_CAPS=nomw \
        RTM_VERBS_MR_WRITE=1 RMA_RDMA_EXPECT=rdma RMA_RDMA_EXPECT_ATOMIC=hca
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
