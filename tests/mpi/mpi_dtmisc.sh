#!/bin/sh
# mpi_dtmisc (more predefined types and their ops, MPI_Type_match_size,
# external32, the MPI-1 names, the audit calls) on 1, 2, 3 and 8 ranks,
# with the type sizes a gfortran program prints when gfortran is there;
# then the audit of mpi.h against the library:
#   - what stays out (MPI-IO, dynamic processes, external data
#     representations, MPI 4) is not declared;
#   - an old code calling the MPI-1 names builds with deprecation warnings
#     through mpicc, fails under -Werror, and builds clean with
#     -DRTMPI_NO_DEPRECATION_WARNINGS.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
tmp=$(mktemp -d /tmp/rtm-dtmisc.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# gfortran's storage sizes (bytes) of INTEGER, REAL, DOUBLE PRECISION,
# COMPLEX, DOUBLE COMPLEX, LOGICAL, CHARACTER, INTEGER(1), (2), (8), (16),
# REAL(16), COMPLEX(16), then the integer value of .TRUE.: the order
# mpi_dtmisc.c checks them in.
sizes=
if command -v gfortran >/dev/null 2>&1; then
    cat > "$tmp/sizes.f90" <<'SRC'
program sizes
  integer :: i; real :: r; double precision :: d; complex :: c; double complex :: z
  logical :: l; character :: ch; integer(1) :: i1; integer(2) :: i2; integer(8) :: i8
  integer(16) :: i16; real(16) :: r16; complex(16) :: c32
  l = .true.
  write (*, '(A,13(I0,","),I0)') 'gfortran=', storage_size(i) / 8, storage_size(r) / 8, &
      storage_size(d) / 8, storage_size(c) / 8, storage_size(z) / 8, storage_size(l) / 8, &
      storage_size(ch) / 8, storage_size(i1) / 8, storage_size(i2) / 8, storage_size(i8) / 8, &
      storage_size(i16) / 8, storage_size(r16) / 8, storage_size(c32) / 8, transfer(l, 0)
end program
SRC
    if gfortran -o "$tmp/sizes" "$tmp/sizes.f90" && sizes=$("$tmp/sizes"); then
        echo "gfortran sizes: $sizes"
    else
        fail "gfortran is installed but the size probe did not build or run"
    fi
else
    echo "gfortran not installed: the sizes are checked against the x86_64 ABI" \
         "facts in mpi_dtmisc.c only"
fi
for np in 1 2 3 8; do
    run_np $np mpi_dtmisc $sizes
done

# That every declared function is in the library: mpi_decls.sh.

# What stays out is not declared (docs/mpi.md, "Not supported"): neither as
# a function nor as a macro (comments do not count).
{ ${CC:-cc} -E -P -I"$top_srcdir/include" "$top_srcdir/include/mpi.h"
  ${CC:-cc} -E -dM -I"$top_srcdir/include" "$top_srcdir/include/mpi.h"; } > "$tmp/names"
for name in MPI_File_open MPI_File_read MPI_File_set_view MPI_Comm_spawn \
        MPI_Comm_spawn_multiple MPI_Comm_accept MPI_Comm_connect MPI_Open_port \
        MPI_Close_port MPI_Publish_name MPI_Lookup_name MPI_Comm_join MPI_Comm_get_parent \
        MPI_Register_datarep MPI_REAL2 MPI_COMPLEX4 MPI_Session_init MPI_Isendrecv \
        MPI_Psend_init MPI_Comm_create_from_group MPI_LB MPI_UB MPI_2COMPLEX \
        MPI_2DOUBLE_COMPLEX MPI_LOGICAL1 MPI_LOGICAL8 MPI_COMBINER_HVECTOR_INTEGER; do
    if grep -qw "$name" "$tmp/names"; then
        fail "mpi.h declares $name, which is not provided"
    fi
done

# An old code: warnings, not errors, unless it asks for them.
cat > "$tmp/old.c" <<'SRC'
#include <mpi.h>
int main(int argc, char **argv)
{
    int x = 0, key;
    MPI_Aint a, e;
    MPI_Datatype t;
    MPI_Errhandler h;
    MPI_Init(&argc, &argv);
    MPI_Address(&x, &a);
    MPI_Type_extent(MPI_INT, &e);
    MPI_Type_hvector(2, 1, 8, MPI_INT, &t);
    MPI_Type_free(&t);
    MPI_Errhandler_get(MPI_COMM_WORLD, &h);
    MPI_Errhandler_set(MPI_COMM_WORLD, h);
    MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &key, 0);
    MPI_Attr_put(MPI_COMM_WORLD, key, &x);
    MPI_Attr_delete(MPI_COMM_WORLD, key);
    MPI_Keyval_free(&key);
    MPI_Finalize();
    return a != 0 && e == (MPI_Aint)sizeof(int) ? 0 : 1;
}
SRC
mpicc="$top_builddir/tests/mpi/mpicc"
"$mpicc" -std=c11 -Wall -o "$tmp/old" "$tmp/old.c" 2> "$tmp/old.err" ||
    { cat "$tmp/old.err" >&2; fail "an old code calling MPI-1 names does not build"; }
grep -q "MPI_Address is an MPI-1 name; use MPI_Get_address" "$tmp/old.err" ||
    { cat "$tmp/old.err" >&2; fail "no deprecation warning naming the replacement of MPI_Address"; }
for name in MPI_Type_extent MPI_Type_hvector MPI_Errhandler_set MPI_Attr_put MPI_NULL_COPY_FN; do
    grep -q "$name is an MPI-1 name" "$tmp/old.err" || fail "no deprecation warning for $name"
done
"$tmp/old" || fail "the old code built with mpicc does not run"
if "$mpicc" -std=c11 -Wall -Werror -o "$tmp/old2" "$tmp/old.c" 2>/dev/null; then
    fail "-Werror did not turn the deprecation warnings into errors"
fi
"$mpicc" -std=c11 -Wall -Wextra -Werror -DRTMPI_NO_DEPRECATION_WARNINGS -o "$tmp/old3" \
    "$tmp/old.c" || fail "-DRTMPI_NO_DEPRECATION_WARNINGS does not silence them"
cp "$tmp/old.c" "$tmp/old.cc"
"$top_builddir/tests/mpi/mpicxx" -Wall -o "$tmp/oldxx" "$tmp/old.cc" 2> "$tmp/oldxx.err" ||
    { cat "$tmp/oldxx.err" >&2; fail "the old code does not build as C++ with mpicxx"; }
grep -q "MPI_Attr_put is an MPI-1 name" "$tmp/oldxx.err" || fail "no deprecation warning in C++"
echo "mpi_dtmisc: PASS"
