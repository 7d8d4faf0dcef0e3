#!/bin/bash
# The environment a job sees, as rtrun and the ranks read it through the
# config rows (runtime/rt_config.c and each component's table):
# - the test harness's own variables are not RTM_* names, so a job run with
#   the harness's environment prints no "unknown variable" warning, while a
#   misspelt row still gets one naming the row (from rtrun and rank 0 only);
# - a value outside a row's range ends rtm_init (and rtrun, for its own
#   rows) with a message naming the variable, the value and the range
#   (a negative RTM_POLL_SPIN used to be cast to unsigned).
. "$top_srcdir/tests/integration/lib.sh"
t_require_rtrun
failed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
prog=$ITEST_BIN/pingpong
fail() { echo "FAIL: $*" >&2; failed=1; }

# 1. the harness's environment, as make check exports it
env | grep -E '^RTM[A-Z]*_' | sed 's/=.*//' | sort | tr '\n' ' ' | sed 's/^/  RTM*_ variables set: /'
echo
itest_run 2 "$prog" 64 >"$out" 2>&1 || fail "a plain job failed"
if grep -q "unknown variable" "$out"; then
    fail "a job with the test harness's environment warns about unknown variables:"
    grep "unknown variable" "$out" >&2
fi

# 2. a misspelt row is still named, with the row it resembles, by rtrun and
#    by one rank of the job, not by every rank
RTM_EAGER_CREDIT=4 itest_run 3 "$prog" 64 >"$out" 2>&1 || fail "a job with RTM_EAGER_CREDIT failed"
warn='unknown variable RTM_EAGER_CREDIT in the environment (did you mean RTM_EAGER_CREDITS?)'
n=$(grep -cF "$warn" "$out")
if [ "$n" -lt 1 ] || [ "$n" -gt 2 ]; then
    fail "RTM_EAGER_CREDIT: $n warnings naming RTM_EAGER_CREDITS (want 1 from rtrun, 1 from rank 0)"
fi
if grep -F "$warn" "$out" | grep -qE '^\[[^]]*:[12]\]'; then
    fail "ranks other than 0 warned about RTM_EAGER_CREDIT"
fi

# 3. out of range: the job ends at init naming variable, value and range
if RTM_POLL_SPIN=-1 itest_run 2 "$prog" 64 >"$out" 2>&1; then
    fail "RTM_POLL_SPIN=-1 was accepted"
fi
grep -qF 'RTM_POLL_SPIN="-1" is out of range: expected 0..1000000000' "$out" ||
    fail "RTM_POLL_SPIN=-1: no message naming the variable, the value and the range"
if RTM_VERBS_ERDMA_SLOT_SIZE=16K itest_run 2 "$prog" 64 >"$out" 2>&1; then
    fail "RTM_VERBS_ERDMA_SLOT_SIZE=16K was accepted"
fi
grep -qF 'RTM_VERBS_ERDMA_SLOT_SIZE="16K" is out of range: expected 64..8K' "$out" ||
    fail "RTM_VERBS_ERDMA_SLOT_SIZE=16K: no message naming the range"

# 4. rtrun's own rows: rtrun refuses to start
RTM_LAUNCH_TIMEOUT=0 timeout -k 5 60 "$RTRUN" -n 1 "$prog" 64 >"$out" 2>&1
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "rtrun with RTM_LAUNCH_TIMEOUT=0 exited $rc"
grep -qF 'RTM_LAUNCH_TIMEOUT="0" is out of range: expected 1..86400' "$out" ||
    fail "RTM_LAUNCH_TIMEOUT=0: rtrun did not name the variable and the range"

# 5. rtm_info lists every component's rows, with their ranges
"$top_builddir/rtm_info" --params >"$out" 2>&1 || fail "rtm_info --params failed"
for c in common runtime shm tcp verbs mpi launcher; do
    grep -qE "^  $c \(" "$out" || fail "rtm_info lists no rows of $c"
done
grep -qF 'default: 64; range: 1..65535' "$out" || fail "rtm_info shows no range for RTM_EAGER_CREDITS"

[ $failed -eq 0 ] || { echo "--- output of the last command:"; cat "$out"; }
exit $failed
