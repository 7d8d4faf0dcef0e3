# Sourced by the tests/mpi/*.sh drivers: runs one MPI test program as a
# singleton and under rtrun with several rank counts. tests/lib.sh has what
# every test shares.
. "${top_srcdir:?}/tests/lib.sh"
prog_dir="$top_builddir/tests/mpi"

# run_np NP PROG [ARGS...]: NP 1 runs the program directly (singleton).
run_np() {
    np=$1; shift
    prog="$prog_dir/$1"; shift
    if [ "$np" -eq 1 ]; then
        "$prog" "$@"
    else
        "$RTRUN" -n "$np" --oversubscribe --timeout 120 "$prog" "$@"
    fi
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL: $(basename "$prog") $* with $np rank(s) exited $rc" >&2
        exit 1
    fi
}

require_rtrun() {
    [ -x "$RTRUN" ] || t_skip "rtrun not built ($RTRUN)"
}

# run_everywhere PROG: PROG (in tests/mpi) as a singleton, at 2 and 3 ranks
# on shm, at 2 ranks over tcp (RTM_TRANSPORTS=self,tcp) and over verbs on
# softib, each bounded (rtrun's --timeout, or timeout for the singleton);
# a transport not built is skipped with a line saying so. Exits 1 if any
# run failed, 0 otherwise.
run_everywhere() {
    local prog=$prog_dir/$1 name=$1 failed=0 sib_dir=

    _run_one() {
        local np=$1 rc
        shift
        echo "== $np rank(s)${*:+, $*}"
        if [ "$np" -eq 1 ]; then
            env "$@" timeout -k 5 120 "$prog"
        else
            env "$@" "$RTRUN" -n "$np" --oversubscribe --timeout 120 "$prog"
        fi
        rc=$?
        if [ $rc -ne 0 ]; then
            echo "FAIL: $name at $np rank(s)${*:+ with $*} exited $rc" >&2
            failed=1
        fi
    }
    _run_one 1
    _run_one 2
    _run_one 3
    if "$top_builddir/rtm_info" 2>/dev/null | grep -qE '^ +tcp +tcp:'; then
        _run_one 2 RTM_TRANSPORTS=self,tcp
    else
        echo "SKIP (tcp): rtm_info lists no tcp transport in this build"
    fi
    if t_softib_preload; then
        sib_dir=$(mktemp -d "/tmp/rtm-$name.XXXXXX") || exit 1
        _run_one 2 RTM_TRANSPORTS=self,verbs SOFTIB_DIR="$sib_dir" LD_PRELOAD="$T_SOFTIB_PRELOAD"
        rm -rf "$sib_dir"
    else
        echo "SKIP (verbs): libsoftib is not built"
    fi
    exit $failed
}
