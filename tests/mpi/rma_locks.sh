#!/bin/sh
# rma_locks (exclusive read-modify-write by every rank on every target; a
# shared lock granted while an exclusive one waits) on 3 and 4 ranks on one
# host (shm: the lock words of the host segment), on 4 ranks over tcp
# (the targets' lock queues) and over verbs on softib (HCA lock words: RDMA
# atomics on each target's exposed word, no target CPU; rma_rdma counts
# their work requests); across hosts: tests/multihost/rma.sh.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in ${RTMTEST_NP:-$(t_np "3 4" "3")}; do
    run_np "$np" rma_locks
done
RTM_TRANSPORTS=self,tcp run_np 4 rma_locks
if t_softib_preload; then
    sib_dir=$(mktemp -d /tmp/rtm-rmalocks.XXXXXX) || exit 1
    trap 'rm -rf "$sib_dir"' EXIT
    SOFTIB_DIR=$sib_dir LD_PRELOAD=$T_SOFTIB_PRELOAD RTM_TRANSPORTS=self,verbs run_np 4 rma_locks
fi
