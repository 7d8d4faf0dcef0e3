# Sourced by the tests/mpi/*.sh drivers: runs one MPI test program as a
# singleton and under rtrun with several rank counts.
prog_dir="${top_builddir:?}/tests/mpi"
RTRUN="${RTRUN:-$top_builddir/rtrun}"

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
    if [ ! -x "$RTRUN" ]; then
        echo "SKIP: rtrun not built ($RTRUN)"
        exit 77
    fi
}
