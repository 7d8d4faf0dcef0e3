#!/bin/bash
# tests/tcp/tcp_pingpong under rtrun with 2, 3 and 4 ranks and
# RTM_TRANSPORTS=self,tcp: shm is off, so TCP over 127.0.0.1 carries every
# message between ranks (all ranks are on this host: loopback only).
# Checks the job used tcp (debug log). The 8 B / 1 MiB figures are a
# benchmark, not part of the test: rtrun -n 2 tests/tcp/tcp_pingpong bench
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/lib.sh"
PROG=$top_builddir/tests/tcp/tcp_pingpong
t_require_rtrun
export RTM_TRANSPORTS=self,tcp
unset RTM_TCP_IF
failed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

for n in $(t_np "2 3 4" "3"); do   # the sanitizer pass: 3 only
    echo "+ RTM_TRANSPORTS=$RTM_TRANSPORTS $RTRUN -n $n --oversubscribe $PROG"
    RTM_LOG_LEVEL=debug timeout -k 5 120 "$RTRUN" -n "$n" --oversubscribe "$PROG" >"$out" 2>&1
    rc=$?
    grep -v 'DEBUG\|debug' "$out" | grep -v '^\[.*\] \(transport\|rank [0-9]* reaches\)' | sed 's/^/  | /'
    if [ "$rc" -ne 0 ]; then
        echo "FAIL: tcp_pingpong with $n ranks exited $rc" >&2
        tail -n 30 "$out" >&2
        failed=1
        continue
    fi
    # every pair talked over tcp, none over anything else
    pairs=$(grep -c 'reaches rank [0-9]* (.*) over tcp' "$out")
    if [ "$pairs" -lt $((n * (n - 1) / 2)) ]; then
        echo "FAIL: $n ranks: only $pairs 'reaches rank ... over tcp' lines in the debug log" >&2
        grep 'reaches rank' "$out" >&2
        failed=1
    fi
    if grep -q 'reaches rank [0-9]* (.*) over shm' "$out"; then
        echo "FAIL: $n ranks: shm was used although RTM_TRANSPORTS=self,tcp" >&2
        failed=1
    fi
    if grep -qi 'lost\|error' <(grep -v -i debug "$out"); then
        echo "FAIL: $n ranks: errors in the output" >&2
        failed=1
    fi
done
exit $failed
