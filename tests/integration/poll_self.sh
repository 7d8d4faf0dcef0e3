#!/bin/bash
# The self transport is polled only while a self-send waits in it
# (RTM_TL_CAP_POLL_ON_WORK): a 2-rank ping-pong that never sends to itself
# polls shm on every pass and self never; a job that sends to itself polls
# self. Checked by the poll counters each rank logs at close (debug level),
# not by time.
set -u
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/lib.sh"
out=$(mktemp /tmp/rtm-poll-self.XXXXXX)
trap 'rm -f "$out"' EXIT
failed=0

# run NAME PROG ARGS...: the job's debug log in $out
run() {
    echo "+ rtrun -n 2 $*"
    RTM_LOG_LEVEL=debug timeout -k 5 120 "$RTRUN" -n 2 --oversubscribe "$@" >"$out" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        tail -n 30 "$out"
        echo "FAIL: $* exited $rc"
        failed=1
        return 1
    fi
    grep "polled" "$out"
}

if run "$top_builddir/tests/integration/pingpong"; then
    n=$(grep -c "transport self: polled 0 times" "$out")
    [ "$n" -eq 2 ] || { echo "FAIL: ping-pong: self polled on $((2 - n)) of 2 ranks"; failed=1; }
    n=$(grep "transport shm: polled" "$out" | awk '{ for (i = 1; i < NF; i++) if ($i == "polled") print $(i + 1) }' |
        awk '$1 > 1000' | wc -l)
    [ "$n" -eq 2 ] || { echo "FAIL: ping-pong: shm polled fewer than 1000 times on $((2 - n)) of 2 ranks"; failed=1; }
fi
if run "$top_builddir/tests/integration/selfsend"; then
    n=$(grep "transport self: polled" "$out" | awk '{ for (i = 1; i < NF; i++) if ($i == "polled") print $(i + 1) }' |
        awk '$1 > 0' | wc -l)
    [ "$n" -eq 2 ] || { echo "FAIL: self-sends: self never polled on $((2 - n)) of 2 ranks"; failed=1; }
fi
[ $failed -eq 0 ] && echo "PASS: self is polled only while a self-send waits"
exit $failed
