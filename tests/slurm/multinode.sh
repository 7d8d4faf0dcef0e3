#!/bin/bash
# rtrun across the nodes of a 2-node Slurm cluster this test starts
# (slurm_multi_up in tests/slurm/cluster.sh: one slurmd per network
# namespace, the controller in a third "login" namespace):
# - sbatch -N2: the batch script on node 1 runs rtrun with no -n and no
#   launch agent; rtrun takes 4 slots from the allocation, finds its own node
#   by its Slurm name and starts the rtd of node 2 through srun (the default
#   agent inside an allocation); a 4-rank pingpong runs across both nodes
#   (tcp between them, shm within each). Then --launch-agent still wins.
# - salloc -N2 from the login host, which is not a node of the allocation:
#   rtrun starts an rtd on each node through srun, in a chain (--fanout 1):
#   node 2's rtd is started by node 1's, through srun inside its step.
# Nothing may be left running on the nodes afterwards.
. "$top_srcdir/tests/extpmix/lib.sh"
. "$top_srcdir/tests/slurm/cluster.sh"

[ -x "$RTRUN" ] || { echo "FAIL: the launcher is not built: $RTRUN" >&2; exit 1; }
[ -x "$ITEST_BIN/pingpong" ] || { echo "FAIL: $ITEST_BIN/pingpong is not built" >&2; exit 1; }
slurm_multi_up 2
N1=${SLURM_NODES[0]} N2=${SLURM_NODES[1]}
failed=0
fail() {
    echo "FAIL: $*" >&2
    failed=1
}

# check_job WHAT OUT PROG: 4 ranks passed, on both nodes, tcp between the
# nodes; and the rtds that were started through srun (args: node names)
check_job() {
    local what=$1 out=$2 prog=$3 node
    shift 3
    grep -q "^$prog: PASS with 4 ranks" "$out" || fail "$what: no \"$prog: PASS with 4 ranks\" line"
    grep -qE "reaches rank [0-9]+ \($N2\) over tcp" "$out" || fail "$what: no rank reached a rank on $N2 over tcp"
    grep -qE "reaches rank [0-9]+ \($N1\) over tcp" "$out" || fail "$what: no rank reached a rank on $N1 over tcp"
    grep -qE "reaches rank [0-9]+ \(.*\) over shm" "$out" || fail "$what: the two ranks of a node did not use shm"
    for node in "$@"; do
        grep -qE "started rtd for host $node \(pid [0-9]+\) through \"srun " "$out" ||
            fail "$what: no rtd started on $node through srun"
    done
    if grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" "$out"; then
        fail "$what: sanitizer report"
    fi
}

# nothing of ours left on the nodes (slurmd itself stays)
check_clean() {
    local what=$1 i ns p left
    for i in $(seq 1 50); do
        left=""
        for ns in "${SLURM_NODE_NS[@]}" "$SLURM_LOGIN"; do
            for p in $(ip netns pids "$ns"); do
                case $(cat /proc/$p/comm 2>/dev/null) in
                slurmd | slurmctld | slurmscriptd | slurmstepd | "") ;;
                *) left="$left $(cat /proc/$p/comm 2>/dev/null)($p in $ns)" ;;
                esac
            done
        done
        [ -z "$left" ] && return 0
        sleep 0.1
    done
    fail "$what: left running:$left"
}

# 1. sbatch -N2: rtrun in the batch script (on node 1)
cat >"$SLURM_DIR/job.sh" <<JOB
#!/bin/bash
echo "batch script on \$SLURMD_NODENAME, allocation \$SLURM_JOB_NODELIST (\$SLURM_TASKS_PER_NODE tasks)"
RTM_LOG_LEVEL=debug "$RTRUN" "$ITEST_BIN/pingpong" 1M
echo "rtrun exit \$?"
# an explicit launch agent still wins over srun
"$RTRUN" --launch-agent "/bin/false {host}" -n 4 true
echo "rtrun with /bin/false exit \$?"
JOB
chmod +x "$SLURM_DIR/job.sh"
out=$SLURM_DIR/sbatch.out
echo "+ sbatch -N2 --ntasks-per-node=2 --overcommit --wait job.sh"
start=$(date +%s.%N)
env $EXTPMIX_ENV timeout -k 5 120 $SLURM_CLIENT sbatch --quiet --wait -N2 --ntasks-per-node=2 \
    --overcommit --time=2 -o "$out" "$SLURM_DIR/job.sh"
rc=$?
echo "  (exit $rc after $(t_elapsed "$start") s)"
grep -v 'debug: ' "$out"
[ $rc = 0 ] || fail "sbatch: exit code $rc"
grep -q "^batch script on $N1, allocation " "$out" || fail "sbatch: the batch script did not run on $N1"
grep -q "^rtrun exit 0" "$out" || fail "sbatch: rtrun did not exit 0"
check_job sbatch "$out" pingpong "$N2"
grep -q "started rtd for host $N1 " "$out" && fail "sbatch: an rtd was started on rtrun's own node $N1"
grep -q "^rtrun with /bin/false exit [1-9]" "$out" || fail "sbatch: rtrun --launch-agent /bin/false did not fail"
grep -q "cannot start rtd on host $N2 with launch agent \"/bin/false {host}\"" "$out" ||
    fail "sbatch: --launch-agent did not replace srun"
check_clean sbatch

# 2. salloc -N2 from the login host: an rtd on each node, both through
# srun; --fanout 1 makes a chain, so node 1's rtd starts node 2's with srun
# from inside its own job step
out=$SLURM_DIR/salloc.out
echo "+ salloc -N2 --ntasks-per-node=2 --overcommit rtrun --fanout 1 order"
start=$(date +%s.%N)
env $EXTPMIX_ENV RTM_LOG_LEVEL=debug timeout -k 5 120 $SLURM_CLIENT salloc --quiet -N2 \
    --ntasks-per-node=2 --overcommit --time=2 "$RTRUN" --fanout 1 "$ITEST_BIN/order" >"$out" 2>&1
rc=$?
echo "  (exit $rc after $(t_elapsed "$start") s)"
grep -v 'debug: ' "$out"
[ $rc = 0 ] || fail "salloc: exit code $rc"
check_job salloc "$out" order "$N1" "$N2"
check_clean salloc

[ $failed = 0 ] && echo PASS
exit $failed
