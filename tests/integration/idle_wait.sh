#!/bin/bash
# RTM_IDLE_WAIT: what a blocking wait does once it has spun RTM_POLL_SPIN
# empty polls. auto must spin when every rank of the host has a CPU (a
# yielding rank loses its core to other load: Reduce 8 B was 60x slower than
# Open MPI's under load) and yield when the ranks outnumber the CPUs (a
# spinning rank would hold the core its peer needs); spin and yield force it.
# The CPUs are limited with taskset, so the check does not depend on the
# machine's size. RTM_POLL_SPIN=0 makes the first empty poll of a wait
# decide, and the debug line names the decision and its inputs.
set -u
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/lib.sh"
prog=$top_builddir/examples/ring
out=$(mktemp /tmp/rtm-idle-wait.XXXXXX)
trap 'rm -f "$out"' EXIT

t_need taskset
[ -x "$prog" ] || t_die "$prog is not built"
ncpu=$(nproc)
failed=0

# check CPUS POLICY EXPECTED: run 2 ranks on the CPUs listed, expect each
# rank's debug line to start with "idle waits EXPECTED".
check() {
    local cpus=$1 policy=$2 want=$3 n
    echo "+ RTM_IDLE_WAIT=$policy taskset -c $cpus rtrun -n 2 ring"
    RTM_IDLE_WAIT=$policy RTM_POLL_SPIN=0 RTM_LOG_LEVEL=debug \
        timeout -k 5 60 taskset -c "$cpus" "$RTRUN" -n 2 --oversubscribe "$prog" >"$out" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        cat "$out"
        echo "FAIL: the job (RTM_IDLE_WAIT=$policy, CPUs $cpus) exited $rc"
        failed=1
        return
    fi
    grep "idle waits" "$out"
    n=$(grep -c "idle waits $want" "$out")
    if [ "$n" -ne 2 ]; then
        echo "FAIL: RTM_IDLE_WAIT=$policy on CPUs $cpus: expected both ranks to '$want', $n did"
        failed=1
    fi
}

check 0 auto yield        # 2 ranks, 1 CPU: oversubscribed
check 0 spin spin         # forced, even so
if [ "$ncpu" -ge 2 ]; then
    check 0,1 auto spin   # a CPU each (rtrun binds each rank to its core)
    check 0,1 yield yield # forced
else
    echo "(one CPU: the 2-CPU cases are not run)"
fi
[ $failed -eq 0 ] && echo "PASS: idle waits follow RTM_IDLE_WAIT and the host's CPUs"
exit $failed
