#!/bin/bash
# rtrun inside a batch job: `sbatch` of a script that calls rtrun on a
# one-node Slurm cluster this test starts (tests/slurm/cluster.sh). rtrun
# takes its hosts and slots from the allocation (SLURM_JOB_NODELIST,
# SLURM_TASKS_PER_NODE): the job asks for 3 tasks with --overcommit on this
# 2-core node, so rtrun without -n must start 3 ranks (it would start 2 if
# it counted cores) and must refuse 4 without --oversubscribe. The ranks
# check their data (pingpong up to 1 MiB) and talk over shared memory.
. "$top_srcdir/tests/extpmix/lib.sh"
. "$top_srcdir/tests/slurm/cluster.sh"

[ -x "$RTRUN" ] || { echo "FAIL: the launcher is not built: $RTRUN" >&2; exit 1; }
[ -x "$ITEST_BIN/pingpong" ] || { echo "FAIL: $ITEST_BIN/pingpong is not built" >&2; exit 1; }
slurm_cluster_up
failed=0

cat >"$SLURM_DIR/batch.sh" <<EOS
#!/bin/bash
echo "batch: SLURM_JOB_NODELIST=\$SLURM_JOB_NODELIST SLURM_TASKS_PER_NODE=\$SLURM_TASKS_PER_NODE"
RTM_LOG_LEVEL=debug "$RTRUN" "$ITEST_BIN/pingpong" 1M >"$SLURM_DIR/rtrun.out" 2>&1
echo "batch: rtrun from the allocation exited \$?"
"$RTRUN" -n 4 "$ITEST_BIN/pingpong" 1K >"$SLURM_DIR/rtrun4.out" 2>&1
echo "batch: rtrun -n 4 exited \$?"
EOS
chmod +x "$SLURM_DIR/batch.sh"

echo "+ sbatch --wait -N1 -n 3 --overcommit batch.sh"
start=$(date +%s.%N)
env $EXTPMIX_ENV timeout -k 5 120 sbatch --wait --quiet -N1 -n 3 --overcommit --time=2 \
    -o "$SLURM_DIR/batch.out" "$SLURM_DIR/batch.sh"
rc=$?
echo "  (sbatch exit $rc after $(t_elapsed "$start") s)"
sed 's/^/  | /' "$SLURM_DIR/batch.out" 2>/dev/null
if [ $rc -ne 0 ]; then
    echo "FAIL: sbatch --wait exited $rc" >&2
    failed=1
fi
if ! grep -q "^batch: rtrun from the allocation exited 0" "$SLURM_DIR/batch.out" 2>/dev/null; then
    echo "FAIL: rtrun inside the batch job did not exit 0; its output:" >&2
    cat "$SLURM_DIR/rtrun.out" >&2 2>/dev/null
    failed=1
else
    extpmix_show "$SLURM_DIR/rtrun.out"
    extpmix_check_job pingpong 3 "$SLURM_DIR/rtrun.out" || failed=1
fi
if grep -q "^batch: rtrun -n 4 exited 0" "$SLURM_DIR/batch.out" 2>/dev/null; then
    echo "FAIL: rtrun -n 4 ran in an allocation of 3 slots without --oversubscribe" >&2
    failed=1
elif ! grep -q "slots" "$SLURM_DIR/rtrun4.out" 2>/dev/null; then
    echo "FAIL: rtrun -n 4 in an allocation of 3 slots did not say why it refused:" >&2
    cat "$SLURM_DIR/rtrun4.out" >&2 2>/dev/null
    failed=1
else
    sed 's/^/  | /' "$SLURM_DIR/rtrun4.out"
fi
exit $failed
