# Sourced by the job-state report tests (tests/diag/diag_*.sh): a hung job
# under rtrun, its report checked line by line, its JSON parsed.
: "${top_builddir:=$(pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/lib.sh"
unset SLURM_JOB_NODELIST SLURM_NODELIST SLURM_TASKS_PER_NODE SLURM_JOB_CPUS_PER_NODE PBS_NODEFILE
HANG=$top_builddir/tests/diag/diag_hang
[ -x "$RTRUN" ] || t_skip "no rtrun at $RTRUN"
[ -x "$HANG" ] || t_skip "no $HANG (make check builds it)"
t_need python3

DIAG_DIR=$(mktemp -d /tmp/diag-test.XXXXXX)
OUT=$DIAG_DIR/out
ERR=$DIAG_DIR/err
MARK="diag-test-$$-$RANDOM"
diag_failures=0
trap 'for p in $(t_marked_pids "DIAG_TEST_MARK=$MARK"); do kill -9 "$p" 2>/dev/null; done; rm -rf "$DIAG_DIR"' EXIT

diag_fail() {
    echo "FAIL: $*" >&2
    echo "--- stdout:" >&2; cat "$OUT" >&2
    echo "--- stderr:" >&2; cat "$ERR" >&2
    diag_failures=$((diag_failures + 1))
}

# diag_run ARGS...: rtrun ARGS in DIAG_DIR (where the report files go),
# bounded; sets diag_rc.
diag_run() {
    (cd "$DIAG_DIR" && t_job 120 "$RTRUN" -x DIAG_TEST_MARK="$MARK" "$@") > "$OUT" 2> "$ERR"
    diag_rc=$?
}

# diag_expect_line TEXT: a line of rtrun's stderr holds TEXT (fixed string)
diag_expect_line() {
    grep -qF -- "$1" "$ERR" || diag_fail "no line with: $1"
}

# diag_json: the report's JSON file named in rtrun's output parses; echo its path
diag_json() {
    local f
    f=$(sed -n 's/^rtrun: full per-rank state: //p' "$ERR" | tail -1)
    if [ -z "$f" ] || [ ! -f "$f" ]; then
        diag_fail "no JSON report file named"
        return 1
    fi
    python3 -m json.tool "$f" > /dev/null || { diag_fail "$f does not parse"; return 1; }
    echo "$f"
}

diag_finish() {
    if [ "$diag_failures" -gt 0 ]; then
        echo "$diag_failures check(s) failed" >&2
        exit 1
    fi
    exit 0
}
