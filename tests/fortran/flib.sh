# shellcheck shell=sh disable=SC2034 # fsrc and failed are for the drivers
# Sourced by the tests/fortran/*.sh drivers: builds a Fortran MPI program
# with mpifort and runs it on 1 to 4 ranks. By default the build-tree
# wrapper and rtrun; MPIFORT / MPICC / FRUN point them at another MPI so
# the programs themselves can be checked on a peer, e.g.
#   MPIFORT=mpifort.openmpi MPICC=mpicc.openmpi \
#   FRUN="mpirun.openmpi --oversubscribe --allow-run-as-root" sh f_mpifh.sh
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/lib.sh"
: "${MPIFORT:=$top_builddir/tests/mpi/mpifort}"
: "${MPICC:=$top_builddir/tests/mpi/mpicc}"
fsrc="$top_srcdir/tests/fortran"
job_timeout=60 # seconds per job; each takes a second or two

# The bindings land separately (mpi/fortran/), and need gfortran: without
# the wrapper there is nothing to test yet, which is not a failure.
command -v "$MPIFORT" >/dev/null 2>&1 || t_skip "no Fortran wrapper ($MPIFORT)"
if [ -z "${FRUN:-}" ]; then
    [ -x "$RTRUN" ] || t_skip "rtrun not built ($RTRUN)"
fi

ftmp=$(mktemp -d /tmp/rtm-fort.XXXXXX) || exit 1
trap 'rm -rf "$ftmp"' EXIT
failed=0

# gfortran 10 and later reject one external called with different
# argument types in one file, which every mpif.h program does (a choice
# buffer of INTEGER here, REAL there); the flag makes that a warning, as
# MPICH's wrapper does. Only passed when the compiler knows it.
f_mismatch_flag() {
    printf '      end\n' > "$ftmp/probe.f"
    if "$MPIFORT" -fallow-argument-mismatch -c -o "$ftmp/probe.o" "$ftmp/probe.f" \
        >/dev/null 2>&1; then
        echo "-fallow-argument-mismatch"
    fi
}

# f_build OUT ARGS...: $MPIFORT -o $ftmp/OUT ARGS..., or the test fails.
f_build() {
    out=$1; shift
    echo "+ $MPIFORT -o $out $*"
    "$MPIFORT" -o "$ftmp/$out" "$@" || t_die "$MPIFORT could not build $out"
}

# f_cc OBJ SRC: the C half of a program, $MPICC -c into $ftmp/OBJ (strict
# warnings; instrumented like the library when that is a sanitizer build),
# or the test fails.
f_cc() {
    command -v "$MPICC" >/dev/null 2>&1 || t_die "no C wrapper ($MPICC)"
    cflags="-std=c11 -O2 -Wall -Wextra -Werror"
    # with a sanitizer build the wrapper links the runtime: instrument C too
    case "$("$MPICC" --showme:link 2>/dev/null)" in
    *-fsanitize=*)
        cflags="$cflags -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" ;;
    esac
    echo "+ $MPICC $cflags -c $(basename "$2")"
    # shellcheck disable=SC2086 # cflags is a list of words
    "$MPICC" $cflags -c -o "$ftmp/$1" "$2" || t_die "$MPICC could not build $(basename "$2")"
}

# f_launch NP PROG [ARGS...]: the job's exit code; its output in $ftmp/out.
f_launch() {
    np=$1; prog=$2; shift 2
    if [ -n "${FRUN:-}" ]; then
        # shellcheck disable=SC2086 # FRUN is a command and its options
        t_job "$job_timeout" $FRUN -n "$np" "$ftmp/$prog" "$@" > "$ftmp/out" 2>&1
    else
        "$RTRUN" -n "$np" --oversubscribe --timeout "$job_timeout" "$ftmp/$prog" "$@" \
            > "$ftmp/out" 2>&1
    fi
}

# f_run NP PROG [ARGS...]: passes when the job exits 0, prints a line
# PASS and no FAIL.
f_run() {
    np=$1; prog=$2
    start=$(date +%s.%N)
    f_launch "$@"
    rc=$?
    cat "$ftmp/out"
    if [ $rc -eq 0 ] && grep -qx PASS "$ftmp/out" && ! grep -q FAIL "$ftmp/out"; then
        echo "ok: $prog on $np rank(s) in $(t_elapsed "$start") s"
    else
        echo "FAIL: $prog on $np rank(s) exited $rc" >&2
        failed=1
    fi
}

# f_run_bad NP PROG [ARGS...]: the job must print FAIL and exit non-zero
# (a program told to corrupt its result must notice).
f_run_bad() {
    np=$1; prog=$2
    f_launch "$@"
    rc=$?
    shift 2
    if [ $rc -ne 0 ] && grep -qx FAIL "$ftmp/out"; then
        echo "ok: $prog $* on $np rank(s) failed as it must"
    else
        cat "$ftmp/out"
        echo "FAIL: $prog $* on $np rank(s) exited $rc, expected non-zero and FAIL" >&2
        failed=1
    fi
}

# f_need_f08: skips unless $MPIFORT compiles a program that uses mpi_f08
# (the module comes after mpif.h and mpi in the bindings).
f_need_f08() {
    printf 'program p\n    use mpi_f08\n    type(MPI_Comm) :: c\n    c = MPI_COMM_WORLD\nend program p\n' \
        > "$ftmp/probe08.f90"
    "$MPIFORT" -o "$ftmp/probe08" "$ftmp/probe08.f90" >/dev/null 2>&1 ||
        t_skip "$MPIFORT has no mpi_f08 module"
}
