#!/bin/sh
# The build-tree mpicc/mpicxx: -show/--showme, --showme:compile/link, and
# a program compiled with each runs.
. "$top_srcdir/tests/mpi/common.sh"
mpicc="$top_builddir/tests/mpi/mpicc"
mpicxx="$top_builddir/tests/mpi/mpicxx"
tmp=$(mktemp -d /tmp/rtm-mpicc.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$mpicc" --showme:compile | grep -q -- "-I$top_srcdir/include" || fail "--showme:compile"
"$mpicc" --showme:link | grep -q -- "-lrtmsg" || fail "--showme:link"
"$mpicc" -show -o x x.c | grep -q -- "x.c .*-lrtmsg" || fail "-show"
"$mpicc" --showme -c x.c | grep -q -- "-lrtmsg" && fail "-c must not add link flags"
cat > "$tmp/hello.c" <<'SRC'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, size, sum;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sum %d\n", sum);
    MPI_Finalize();
    return sum == size * (size - 1) / 2 ? 0 : 1;
}
SRC
"$mpicc" -o "$tmp/hello" "$tmp/hello.c" || fail "mpicc could not build hello.c"
"$tmp/hello" | grep -q "sum 0" || fail "singleton hello"
if command -v c++ >/dev/null 2>&1; then
    cp "$tmp/hello.c" "$tmp/hello.cpp"
    "$mpicxx" -o "$tmp/hellocxx" "$tmp/hello.cpp" || fail "mpicxx could not build hello.cpp"
    "$tmp/hellocxx" | grep -q "sum 0" || fail "C++ singleton hello"
fi
if [ -x "$RTRUN" ]; then
    "$RTRUN" -n 3 --oversubscribe "$tmp/hello" | grep -q "sum 3" || fail "3-rank hello"
fi
