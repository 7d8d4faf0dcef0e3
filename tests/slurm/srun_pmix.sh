#!/bin/bash
# rtmsg programs launched by `srun --mpi=pmix` on a one-node Slurm cluster
# this test starts (tests/slurm/cluster.sh): Slurm's PMIx server, not
# rtrun's, gives the ranks the job's shape and exchanges their addresses.
# Checks the data (pingpong byte for byte up to 1 MiB, the order test's
# sequences), that all 4 ranks saw one node of 4 and talked over shared
# memory, with the addresses collected at the fence and fetched one by one
# (direct modex, RTM_PMIX_COLLECT=0); and that tasks started by srun without
# a PMIx server fail with a message saying so instead of running as
# unrelated singletons.
. "$top_srcdir/tests/extpmix/lib.sh"
. "$top_srcdir/tests/slurm/cluster.sh"

for p in pingpong order; do
    [ -x "$ITEST_BIN/$p" ] || { echo "FAIL: $ITEST_BIN/$p is not built" >&2; exit 1; }
done
slurm_cluster_up
out=$SLURM_DIR/job.out
failed=0

# srun_job NP PROG [ARGS]: one job step, debug log on; output in $out.
srun_job() {
    local np=$1 prog=$2 rc start
    shift 2
    echo "+ srun --mpi=pmix -n $np --overcommit $(basename "$prog") $*"
    start=$(date +%s.%N)
    env $EXTPMIX_ENV RTM_LOG_LEVEL=debug timeout -k 5 90 \
        srun --mpi=pmix -n "$np" --overcommit --kill-on-bad-exit=1 --time=2 \
        "$prog" "$@" >"$out" 2>&1
    rc=$?
    extpmix_show "$out"
    echo "  (exit $rc after $(t_elapsed "$start") s)"
    if [ $rc -ne 0 ]; then
        echo "FAIL: $(basename "$prog") with $np ranks under srun --mpi=pmix exited $rc" >&2
        return 1
    fi
    extpmix_check_job "$(basename "$prog")" "$np" "$out"
}

srun_job 4 "$ITEST_BIN/pingpong" 1M || failed=1
srun_job 4 "$ITEST_BIN/order" || failed=1
RTM_PMIX_COLLECT=0 srun_job 4 "$ITEST_BIN/pingpong" 64K || failed=1

# Without --mpi=pmix the tasks have no PMIx server: four singletons that
# each "pass" alone would hide a broken launch. They must fail and say why.
echo "+ srun --mpi=none -n 2 --overcommit pingpong 1K (must fail)"
env $EXTPMIX_ENV timeout -k 5 60 srun --mpi=none -n 2 --overcommit --time=1 \
    "$ITEST_BIN/pingpong" 1K >"$out" 2>&1
rc=$?
extpmix_show "$out"
if [ $rc -eq 0 ]; then
    echo "FAIL: 2 tasks started by srun without PMIx exited 0 (ran as singletons?)" >&2
    failed=1
elif ! grep -q -- "--mpi=pmix" "$out"; then
    echo "FAIL: tasks started by srun without PMIx did not say to use srun --mpi=pmix" >&2
    failed=1
fi
left=$(extpmix_marked_pids)
[ -z "$left" ] || { echo "FAIL: processes left: $(echo $left)" >&2; kill -9 $left; failed=1; }
exit $failed
