#!/bin/bash
# One-sided memory (issue 15 phase 2) through the native API: put, get,
# fetch-add and compare-and-swap with data and totals checked, rights and
# ranges refused at the origin, and exactly one work request per operation
# (tests/verbs/vrb_rma.c, mode ops):
#   verbs on softib with a type 2 window per peer (2 and 6 ranks), with one
#   MR per region (RTM_VERBS_MW=0, and a device without windows:
#   SOFTIB_CAPS=nomw: read only, puts and atomics "not available", unless
#   RTM_VERBS_MR_WRITE=1), connected on demand, and a device without atomics
#   (SOFTIB_CAPS=noatomic: atomics "not available"), a device that returns
#   the old value big-endian (SOFTIB_CAPS=atomic_be: the self-test finds it
#   and the values are swapped back), and XRC (regions
#   read only: puts and atomics "not available");
#   shm (CMA): puts and gets, atomics "not available"; shm without CMA
#   (RTM_SHM_CMA=off, or refused by the kernel): no key at all;
#   tcp: no one-sided at all, every key "not available".
. "$top_srcdir/tests/verbs/verbs_lib.sh"
prog="$top_builddir/tests/verbs/vrb_rma"
failed=0
run() {   # run LABEL N ENV... -- ARGS...
    local label=$1 n=$2 envs=()
    shift 2
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    echo "== $label ($n ranks)"
    t_job 60 env "${envs[@]}" LD_PRELOAD="$VRB_PRELOAD" RTM_LOG_LEVEL=debug "$RTRUN" -n "$n" --oversubscribe "$prog" "$@" >"$VRB_TMP/log" 2>&1
    local rc=$?
    grep -E '^vrb_rma|FAIL|exposes' "$VRB_TMP/log" | sed 's/^/  | /' | head -n 8
    if [ $rc -ne 0 ]; then
        echo "FAIL: $label with $n ranks exited $rc" >&2
        sed 's/^/  | /' "$VRB_TMP/log" | grep -v ' debug: ' | tail -n 20
        failed=1
    fi
}
run "verbs, type 2 windows" 2 RTM_VERBS_MW=1 -- ops atomics
if ! grep -q 'by a type 2 window per peer' "$VRB_TMP/log"; then
    echo "FAIL: verbs did not expose through type 2 windows on softib" >&2; failed=1
fi
run "verbs, type 2 windows" 6 RTM_VERBS_MW=1 -- ops atomics
run "verbs, one MR per region" 3 RTM_VERBS_MW=0 RTM_VERBS_MR_WRITE=1 -- ops atomics
if ! grep -q 'by one MR' "$VRB_TMP/log"; then
    echo "FAIL: RTM_VERBS_MW=0 did not expose through one MR" >&2; failed=1
fi
run "verbs, on demand" 3 RTM_VERBS_CONN=ondemand -- ops atomics
# without windows, one MR per region: read only unless RTM_VERBS_MR_WRITE=1
run "verbs, a device without windows" 2 SOFTIB_CAPS=nomw -- ops readonly
if ! grep -q 'by one MR' "$VRB_TMP/log"; then
    echo "FAIL: a device without type 2 windows did not fall back to one MR" >&2; failed=1
fi
run "verbs, a device without windows, RTM_VERBS_MR_WRITE=1" 2 SOFTIB_CAPS=nomw \
    RTM_VERBS_MR_WRITE=1 -- ops atomics
run "verbs, a device without atomics" 2 SOFTIB_CAPS=noatomic -- ops noatomics
# a device that returns the old value big-endian (softib's atomic_be): the
# self-test at the first atomic finds it and the values are swapped back
run "verbs, atomic replies big-endian" 3 SOFTIB_CAPS=atomic_be -- ops atomics
if ! grep -q 'atomic self-test on .*byte-swapped' "$VRB_TMP/log"; then
    echo "FAIL: the atomic self-test did not find the swapped replies" >&2; failed=1
fi
run "verbs, XRC (read only)" 3 RTM_VERBS_XRC=1 -- ops readonly
# shm one-sided needs CMA (process_vm_*): where ptrace rules refuse it,
# shm exposes nothing and every key is "not available"
if grep -q 'CMA refused\|CMA off' < <(RTM_TRANSPORTS=self,shm RTM_LOG_LEVEL=info \
        t_job 60 "$RTRUN" -n 2 --oversubscribe "$prog" ops none 2>&1); then
    run "shm without CMA" 2 RTM_TRANSPORTS=self,shm -- ops none
else
    run "shm (CMA)" 3 RTM_TRANSPORTS=self,shm -- ops noatomics
fi
run "shm with RTM_SHM_CMA=off" 2 RTM_TRANSPORTS=self,shm RTM_SHM_CMA=off -- ops none
run "tcp" 2 RTM_TRANSPORTS=self,tcp -- ops none
# the device's own count (softib's SOFTIB_STATS send_wr, summed over both
# ranks) for 200 fetch-adds against none: exactly 200 more work requests
wrs_of() {   # wrs_of N: send WRs both ranks posted in `vrb_rma fadd N`
    local dir=$VRB_TMP/stats$1
    mkdir -p "$dir"
    SOFTIB_STATS=$dir LD_PRELOAD="$VRB_PRELOAD" t_job 60 "$RTRUN" -n 2 --oversubscribe \
        "$prog" fadd "$1" >"$VRB_TMP/log" 2>&1 || { echo "FAIL: vrb_rma fadd $1" >&2; return 1; }
    cat "$dir"/* | awk '$1 == "send_wr" { n += $2 } END { print n + 0 }'
}
echo "== device work requests per fetch-add (SOFTIB_STATS)"
w0=$(wrs_of 0) && w200=$(wrs_of 200) || failed=1
echo "  send WRs: $w0 with no fetch-add, $w200 with 200"
if [ -n "$w0" ] && [ -n "$w200" ] && [ $((w200 - w0)) -ne 200 ]; then
    echo "FAIL: 200 fetch-adds took $((w200 - w0)) work requests at the device, expected 200" >&2
    failed=1
fi
# a flush waits for one-sided operations only: rank 1 flushes rank 0 while
# its rendezvous read of rank 0's message is held back (rank 0 stopped;
# before, the flush waited for the read until the QP's retries ran out)
run "verbs, flush with a rendezvous read held back" 2 SOFTIB_CMA=0 -- rndvflush
# a get's transfer state comes from a pool: 2000 gets (8 in flight at
# most) take one chunk of 16 states, where each took an allocation before
echo "== transfer states of 2000 gets (8 in flight at most)"
RTM_LOG_LEVEL=debug LD_PRELOAD="$VRB_PRELOAD" t_job 60 "$RTRUN" -n 2 --oversubscribe \
    "$prog" gets 2000 >"$VRB_TMP/log" 2>&1 || { echo "FAIL: vrb_rma gets 2000" >&2; failed=1; }
line=$(grep -o 'rank 1: [0-9]* gets used [0-9]* transfer states' "$VRB_TMP/log")
echo "  $line"
states=$(echo "$line" | awk '{ print $6 }')
if [ -z "$states" ] || [ "$states" -gt 16 ]; then
    echo "FAIL: 2000 gets took ${states:-an unknown number of} transfer states, expected 16 at most" >&2
    grep -v ' debug: ' "$VRB_TMP/log" | tail -n 10
    failed=1
fi
exit $failed
