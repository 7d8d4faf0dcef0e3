# Shared by the integration and fault test drivers (sourced, not run): jobs
# of the tests/integration programs over every rank count, and the checks of
# a job that loses a rank. tests/lib.sh has what every test shares.
. "$top_srcdir/tests/lib.sh"

ITEST_BIN=$top_builddir/tests/integration
FAULT_BIN=$top_builddir/tests/fault
# rank counts every integration program runs with; RTMTEST_NP overrides.
# The sanitizer pass leaves out 4: 3 already has a rank with two peers, an
# odd rank out and a non-power-of-two world.
ITEST_NP=$(t_np "1 2 3 4" "1 2 3")
# bound for one job; the harness bounds the whole driver too
ITEST_JOB_TIMEOUT=${ITEST_JOB_TIMEOUT:-150}

# itest_run N PROG [ARGS...]: one job of N ranks; prints the command, its
# output, and a FAIL line naming the job when it does not exit 0.
itest_run() {
    local n=$1 prog=$2 rc start
    shift 2
    echo "+ $RTRUN -n $n --oversubscribe $prog $*"
    start=$(date +%s.%N)
    t_job "$ITEST_JOB_TIMEOUT" "$RTRUN" -n "$n" --oversubscribe "$prog" "$@"
    rc=$?
    printf '  (exit %d after %s s)\n' "$rc" "$(t_elapsed "$start")"
    if [ "$rc" -ne 0 ]; then
        if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
            echo "FAIL: $(basename "$prog") with $n ranks did not finish within ${ITEST_JOB_TIMEOUT} s" >&2
        else
            echo "FAIL: $(basename "$prog") with $n ranks exited $rc" >&2
        fi
        return 1
    fi
    return 0
}

# itest_run_all PROG [ARGS...]: the program with every rank count in
# ITEST_NP; runs them all even after a failure, exits 1 if any failed.
itest_run_all() {
    local prog=$1 n failed=0
    shift
    t_require_rtrun
    for n in $ITEST_NP; do
        itest_run "$n" "$ITEST_BIN/$prog" "$@" || failed=1
    done
    return $failed
}

# The /dev/shm prefix rtrun and the shm transport use for a namespace.
itest_shm_prefix() {
    printf '/dev/shm/rtm-%s' "$(printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_')"
}

# fault_run MODE N VICTIM: a job of N ranks of tests/fault/fault_rank in
# which rank VICTIM dies as MODE says (selfkill, sibling, abort, exit).
# Checks that rtrun exits non-zero (exactly 7 for abort) within 5 s of the
# death, that its output names the dead rank (and the signal, exit code or
# abort message), and that no rank process, /dev/shm segment or temp file
# is left behind. Returns 1 on any failure, naming it.
fault_run() {
    local mode=$1 n=$2 victim=$3 token out tmp rc died started ended delay failed=0
    local left shm_prefix nspace
    t_require_rtrun
    token="fault-$mode-$$-$RANDOM"
    out=$(mktemp)
    tmp=$(mktemp -d)
    echo "+ TMPDIR=$tmp $RTRUN -n $n --oversubscribe fault_rank $mode $victim $token"
    started=$(date +%s.%N)
    TMPDIR=$tmp timeout -k 5 60 "$RTRUN" -n "$n" --oversubscribe \
        "$FAULT_BIN/fault_rank" "$mode" "$victim" "$token" >"$out" 2>&1
    rc=$?
    FAULT_RUN_RC=$rc   # for the caller's own checks
    ended=$(date +%s.%N)
    sed 's/^/  | /' "$out"
    echo "  (rtrun exit $rc after $(t_elapsed "$started") s)"

    # rtrun may itself exit 137 (128 + SIGKILL) to mirror the rank's death:
    # only the time tells a timeout apart.
    if awk -v a="$started" -v b="$ended" 'BEGIN { exit !(b - a >= 59) }'; then
        echo "FAIL: $mode: the job did not end within 60 s of starting" >&2
        failed=1
    elif [ "$mode" = abort ] && [ "$rc" -ne 7 ]; then
        echo "FAIL: abort: rtrun exited $rc, expected the abort code 7" >&2
        failed=1
    elif [ "$rc" -eq 0 ]; then
        echo "FAIL: $mode: rtrun exited 0 although rank $victim died" >&2
        failed=1
    fi

    died=$(sed -n 's/^.*fault: victim.* at \([0-9.]*\)$/\1/p' "$out" | head -n 1)
    if [ -z "$died" ]; then
        echo "FAIL: $mode: the victim's last words (with its time of death) are missing from the output" >&2
        failed=1
    else
        delay=$(awk -v a="$died" -v b="$ended" 'BEGIN { printf "%.2f", b - a }')
        echo "  job ended $delay s after rank $victim died"
        if awk -v d="$delay" 'BEGIN { exit !(d > 5.0) }'; then
            echo "FAIL: $mode: the job ended $delay s after rank $victim died (limit 5 s)" >&2
            failed=1
        fi
    fi

    # rtrun's report: the rank, and how it died. Our own lines start with
    # "fault:" and never contain "rank".
    if ! grep -v '^fault:' "$out" | grep -qiE "rank[^0-9a-z]{0,3}$victim([^0-9]|\$)"; then
        echo "FAIL: $mode: rtrun's output does not name rank $victim" >&2
        failed=1
    fi
    case $mode in
    selfkill|sibling|stream)
        if ! grep -v '^fault:' "$out" | grep -qiE 'SIGKILL|signal 9|killed'; then
            echo "FAIL: $mode: rtrun's output does not say the rank was killed by SIGKILL" >&2
            failed=1
        fi ;;
    exit)
        if ! grep -v '^fault:' "$out" | grep -qiE '(code|status|exited( with)?)[^0-9]{0,3}3([^0-9]|$)'; then
            echo "FAIL: exit: rtrun's output does not give the exit code 3" >&2
            failed=1
        fi ;;
    abort)
        if ! grep -q -- "$token" "$out"; then
            echo "FAIL: abort: the abort message \"$token\" is not in the output" >&2
            failed=1
        fi ;;
    esac

    left=$(pgrep -f -- "$token" || true)
    if [ -n "$left" ]; then
        echo "FAIL: $mode: processes left after rtrun exited: $(echo $left)" >&2
        ps -o pid,ppid,stat,args -p "$(echo $left | tr ' ' ',')" >&2 || true
        kill -9 $left 2>/dev/null
        failed=1
    fi
    nspace=$(sed -n 's/^fault: nspace=\([^ ]*\) .*/\1/p' "$out" | head -n 1)
    if [ -n "$nspace" ]; then
        shm_prefix=$(itest_shm_prefix "$nspace")
        if ls -d "$shm_prefix"* >/dev/null 2>&1; then
            echo "FAIL: $mode: shared memory left behind: $(ls -d "$shm_prefix"*)" >&2
            rm -f "$shm_prefix"*
            failed=1
        fi
    else
        echo "  (PMIX_NAMESPACE not visible to the ranks: /dev/shm not checked for this job)"
    fi
    if [ -n "$(ls -A "$tmp")" ]; then
        echo "FAIL: $mode: files left in the job's TMPDIR $tmp:" >&2
        ls -lA "$tmp" >&2
        failed=1
    fi
    # FAULT_RUN_OUT=FILE keeps rtrun's output for the caller's own checks
    [ -n "${FAULT_RUN_OUT:-}" ] && cp "$out" "$FAULT_RUN_OUT"
    rm -rf "$tmp" "$out"
    return $failed
}
