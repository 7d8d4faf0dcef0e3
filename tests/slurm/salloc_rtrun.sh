#!/bin/bash
# rtrun under salloc on a one-node Slurm cluster this test starts
# (tests/slurm/cluster.sh): `salloc -N1 rtrun -n 2` (explicit rank count),
# then `salloc -N1 -n 3 --overcommit rtrun` (ranks from the allocation's
# 3 slots on this 2-core node). The ranks check their data and talk over
# shared memory.
. "$top_srcdir/tests/extpmix/lib.sh"
. "$top_srcdir/tests/slurm/cluster.sh"

[ -x "$RTRUN" ] || { echo "FAIL: the launcher is not built: $RTRUN" >&2; exit 1; }
[ -x "$ITEST_BIN/pingpong" ] || { echo "FAIL: $ITEST_BIN/pingpong is not built" >&2; exit 1; }
slurm_cluster_up
out=$SLURM_DIR/salloc.out
failed=0

# salloc_job NP SALLOC_ARGS... -- RTRUN_ARGS...: one allocation running
# rtrun on pingpong 1M; checks NP ranks passed over shm.
salloc_job() {
    local np=$1 rc start salloc_args=() rtrun_args=()
    shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do salloc_args+=("$1"); shift; done
    shift
    rtrun_args=("$@")
    echo "+ salloc ${salloc_args[*]} rtrun ${rtrun_args[*]} pingpong 1M"
    start=$(date +%s.%N)
    env $EXTPMIX_ENV RTM_LOG_LEVEL=debug timeout -k 5 90 \
        salloc --quiet --time=2 "${salloc_args[@]}" \
        "$RTRUN" "${rtrun_args[@]}" "$ITEST_BIN/pingpong" 1M >"$out" 2>&1
    rc=$?
    extpmix_show "$out"
    echo "  (exit $rc after $(t_elapsed "$start") s)"
    if [ $rc -ne 0 ]; then
        echo "FAIL: salloc ${salloc_args[*]} rtrun ${rtrun_args[*]} exited $rc" >&2
        return 1
    fi
    extpmix_check_job pingpong "$np" "$out"
}

salloc_job 2 -N1 -- -n 2 --oversubscribe || failed=1
salloc_job 3 -N1 -n 3 --overcommit -- || failed=1
exit $failed
