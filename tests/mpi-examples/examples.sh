#!/bin/bash
# The three example MPI programs in examples/mpi/ (jacobi, samplesort, pi),
# compiled with the build-tree mpicc exactly as a user would, then run as
# singletons and under rtrun on 1 to 4 ranks (jacobi also on 6: a 2 x 3 grid
# of ranks). Each program checks its own result and prints PASS or FAIL;
# every run must exit 0 and print PASS. Each is also run once with
# --corrupt, which must make it print FAIL and exit non-zero: the checks
# can fail.
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/lib.sh"
mpicc="$top_builddir/tests/mpi/mpicc"
src="$top_srcdir/examples/mpi"
job_timeout=60 # seconds per job; each takes well under 10 s on 2 busy cores

[ -x "$RTRUN" ] || t_skip "rtrun not built ($RTRUN)"
if [ ! -x "$mpicc" ]; then
    echo "FAIL: the build-tree mpicc is missing ($mpicc; 'make check' builds it)" >&2
    exit 1
fi
if [ -z "${LSAN_OPTIONS:-}" ] && [ -f "$top_srcdir/tests/lsan.supp" ]; then
    export LSAN_OPTIONS="suppressions=$top_srcdir/tests/lsan.supp:print_suppressions=0"
fi

tmp=$(mktemp -d /tmp/rtm-mpiex.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0

# With a sanitizer build of librtmsg the wrapper links with -fsanitize (the
# library needs the runtime); instrument the examples as well.
cflags="-std=c11 -O2 -Wall -Wextra -Werror"
case "$("$mpicc" --showme:link)" in
*-fsanitize=*)
    cflags="$cflags -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" ;;
esac
for prog in jacobi samplesort pi; do
    echo "+ $mpicc $cflags -o $prog $prog.c -lm"
    # shellcheck disable=SC2086 # cflags is a list of words
    if ! "$mpicc" $cflags -o "$tmp/$prog" "$src/$prog.c" -lm; then
        echo "FAIL: $mpicc could not build $prog.c" >&2
        exit 1
    fi
done

# run NP PROG [ARGS...]: NP 0 runs PROG directly (a singleton), otherwise
# under rtrun. Passes if the job exits 0 and rank 0 printed PASS.
run() {
    np=$1; prog=$2; shift 2
    where="on $np rank(s)"
    if [ "$np" -eq 0 ]; then
        where="as a singleton"
        set -- timeout -k 5 "$job_timeout" "$tmp/$prog" "$@"
    else
        set -- "$RTRUN" -n "$np" --oversubscribe --timeout "$job_timeout" "$tmp/$prog" "$@"
    fi
    start=$(date +%s.%N)
    "$@" > "$tmp/out" 2>&1
    rc=$?
    secs=$(echo "$start $(date +%s.%N)" | awk '{printf "%.2f", $2 - $1}')
    cat "$tmp/out"
    if [ $rc -eq 0 ] && grep -qx PASS "$tmp/out" && ! grep -q FAIL "$tmp/out"; then
        echo "ok: $prog $where in ${secs} s"
    else
        echo "FAIL: $* exited $rc after ${secs} s" >&2
        failed=1
    fi
}

# run_bad NP PROG [ARGS...]: with --corrupt the job must report FAIL, exit
# non-zero, and not crash.
run_bad() {
    np=$1; prog=$2; shift 2
    "$RTRUN" -n "$np" --oversubscribe --timeout "$job_timeout" "$tmp/$prog" "$@" --corrupt \
        > "$tmp/out" 2>&1
    rc=$?
    if [ $rc -eq 1 ] && grep -qx FAIL "$tmp/out"; then
        echo "ok: $prog --corrupt on $np ranks failed as it must"
    else
        cat "$tmp/out"
        echo "FAIL: $prog --corrupt on $np ranks exited $rc, expected 1 and FAIL" >&2
        failed=1
    fi
}

for prog in jacobi samplesort pi; do
    run 0 $prog
done
# the sanitizer pass: 1 and 3 ranks (t_np, tests/lib.sh); 6, the uneven
# blocks and --corrupt below run in both passes
for np in $(t_np "1 2 3 4" "1 3"); do
    run "$np" jacobi
    run "$np" samplesort
    run "$np" pi
done
run 6 jacobi
run 3 jacobi 17 11 60      # uneven blocks
run 4 samplesort 1000
run 3 pi 1000

run_bad 4 jacobi
run_bad 3 samplesort
run_bad 2 pi

exit $failed
