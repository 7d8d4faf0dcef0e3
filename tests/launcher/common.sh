# Sourced by the launcher's tests: rtrun on small PMIx client programs, its
# output and exit code checked, and nothing left behind. Needs RTRUN and
# top_builddir (set by the test harness; defaults let a test run by hand
# from the build dir). tests/lib.sh has what every test shares.
: "${top_builddir:=$(pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/lib.sh"
PROBE=$top_builddir/tests/launcher/pmix_probe
# rtrun takes its hosts from a Slurm or PBS allocation it runs in; these
# tests are about this host alone (hostfile.sh sets allocations itself).
unset SLURM_JOB_NODELIST SLURM_NODELIST SLURM_TASKS_PER_NODE SLURM_JOB_CPUS_PER_NODE PBS_NODEFILE
[ -x "$RTRUN" ] || t_skip "no rtrun at $RTRUN"
[ -x "$PROBE" ] || t_skip "no $PROBE (make check builds it)"

# A mark in the ranks' environment (rtrun -x, see rtrun_x) finds any
# process a test left behind; the test's own processes do not carry it.
MARK="launcher-test-$$-$RANDOM"
RTRUN_X="-x LAUNCHER_TEST_MARK=$MARK"
OUT=$(mktemp /tmp/launcher-test.XXXXXX)
ERR=$(mktemp /tmp/launcher-test.XXXXXX)
failures=0

marked_pids() {
    t_marked_pids "LAUNCHER_TEST_MARK=$MARK"
}

cleanup() {
    for p in $(marked_pids); do
        kill -9 "$p" 2>/dev/null
    done
    rm -f "$OUT" "$ERR"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    echo "--- stdout:" >&2; cat "$OUT" >&2
    echo "--- stderr:" >&2; cat "$ERR" >&2
    failures=$((failures + 1))
}

# run EXPECTED_RC rtrun-args...: runs $RTRUN, output in $OUT/$ERR, rc in $rc,
# elapsed seconds (float) in $elapsed.
run() {
    local want=$1 t0 t1
    shift
    t0=$(date +%s.%N)
    "$RTRUN" $RTRUN_X "$@" >"$OUT" 2>"$ERR" </dev/null
    rc=$?
    t1=$(date +%s.%N)
    elapsed=$(echo "$t1 - $t0" | bc)
    [ "$rc" = "$want" ] || fail "rtrun $*: exit code $rc, expected $want"
}

expect_out() { grep -q -- "$1" "$OUT" || fail "stdout lacks \"$1\""; }
expect_err() { grep -q -- "$1" "$ERR" || fail "stderr lacks \"$1\""; }
# The bound tells "ended promptly" from "waited for the ranks": the ranks
# left running would sleep 60 s, so a generous bound (the tests use 20 s,
# for a loaded 2-core machine under ASan) still catches a job that hangs.
expect_within() {
    [ "$(echo "$elapsed < $1" | bc)" = 1 ] || fail "took ${elapsed}s, more than $1 s"
}

# No rank or child of one survives; processes exit asynchronously after
# SIGKILL, so give them a moment.
expect_no_orphans() {
    local left i
    for i in 1 2 3 4 5 6 7 8 9 10; do
        left=$(marked_pids)
        [ -z "$left" ] && return 0
        sleep 0.2
    done
    fail "processes left behind: $(for p in $left; do cat /proc/$p/cmdline 2>/dev/null | tr '\0' ' '; echo; done)"
}

finish() {
    if [ "$failures" -gt 0 ]; then
        echo "$failures check(s) failed"
        exit 1
    fi
    echo "all checks passed"
    exit 0
}
