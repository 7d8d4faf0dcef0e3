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
