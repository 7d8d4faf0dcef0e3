#!/bin/bash
# A long wait backs off, a yielding wait yields (runtime/progress.c), checked
# by the counters each rank logs at close, not by time: rank 0 waits at
# least 1.5 s for rank 1 (idle_backoff.c), so with a core of its own
# (RTM_IDLE_WAIT=spin) it must have yielded (after 50 ms) and slept (after
# 0.5 s); forced to yield, it must have yielded as well.
. "$top_srcdir/tests/integration/lib.sh"

t_require_rtrun
failed=0
# counters POLICY: "yields sleeps" of rank 0
counters() {
    local out
    out=$(RTM_IDLE_WAIT=$1 RTM_LOG_LEVEL=debug itest_run 2 "$ITEST_BIN/idle_backoff" 2>&1)
    rc=$?
    printf '%s\n' "$out" | grep -v '\] debug: ' | head -20 >&2
    printf '%s\n' "$out" | grep 'idle waits: ' >&2
    [ $rc -eq 0 ] || { echo "FAIL: RTM_IDLE_WAIT=$1: the job exited $rc" >&2; return 1; }
    printf '%s\n' "$out" | sed -n 's/^\[[^]]*:0\] debug: idle waits: \([0-9]*\) yields, \([0-9]*\) back-off sleeps.*/\1 \2/p'
}
c=$(counters spin) || failed=1
read -r y s <<<"$c"
if [ -z "${y:-}" ] || [ "$y" -eq 0 ] || [ "$s" -eq 0 ]; then
    echo "FAIL: RTM_IDLE_WAIT=spin, a 1.5 s wait: rank 0 yielded ${y:-?} times and slept ${s:-?} times; expected both > 0"
    failed=1
fi
c=$(counters yield) || failed=1
read -r y s <<<"$c"
if [ -z "${y:-}" ] || [ "$y" -eq 0 ]; then
    echo "FAIL: RTM_IDLE_WAIT=yield: rank 0 never yielded"
    failed=1
fi
[ $failed -eq 0 ] && echo "PASS: long waits back off, yielding waits yield"
exit $failed
