#!/bin/bash
# Which transports a job opens: when self and shm reach every rank (all on
# one host), verbs and tcp are not opened at all, so no rank pays their
# set-up or polls a socket in its progress loop; when shm is taken out,
# tcp carries the local traffic instead.
. "$top_srcdir/tests/integration/lib.sh"
t_require_rtrun
failed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

RTM_LOG_LEVEL=debug itest_run 3 "$ITEST_BIN/pingpong" 64K >"$out" 2>&1 || failed=1
for t in tcp verbs; do
    if ! grep -q "transport $t not opened: every rank is reached already" "$out"; then
        if grep -q "transport $t opened" "$out"; then
            echo "FAIL: an all-local job opened $t although shm reaches every rank" >&2
            failed=1
        fi
    fi
done
if ! grep -qE "rank 0 reaches rank 1 \(.*\) over shm" "$out"; then
    echo "FAIL: rank 0 did not reach rank 1 over shm in an all-local job" >&2
    failed=1
fi
if grep -q "transport tcp opened" "$out"; then
    echo "FAIL: tcp was opened in an all-local job" >&2
    failed=1
fi

if "$top_builddir/rtm_info" 2>/dev/null | grep -qE '^ +tcp +tcp:'; then
    RTM_LOG_LEVEL=debug RTM_TRANSPORTS=self,tcp itest_run 2 "$ITEST_BIN/pingpong" 64K >"$out" 2>&1 || failed=1
    if ! grep -qE "rank 0 reaches rank 1 \(.*\) over tcp" "$out"; then
        echo "FAIL: with RTM_TRANSPORTS=self,tcp rank 0 did not reach rank 1 over tcp" >&2
        failed=1
    fi
fi
[ $failed -eq 0 ] || { echo "--- output of the last job:"; cat "$out"; }
exit $failed
