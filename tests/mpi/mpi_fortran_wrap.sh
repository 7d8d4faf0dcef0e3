#!/bin/sh
# The Fortran binding (issue 16) through the build-tree mpifort: its
# options; programs through mpif.h in fixed form (.f) and free form (.f90)
# and through `use mpi`, as singletons and on 2 and 3 ranks; every C
# function of mpi.h has its Fortran entry point (mpi_x_ weak, pmpi_x_) and,
# unless removed in MPI 3.0, its mpi_f08 one (mpi_x_f08[ts]_, pmpi_x_f08[ts]_)
# or is listed as C-only; the generated files are those gen.py writes.
. "$top_srcdir/tests/mpi/common.sh"
mpifort="$top_builddir/tests/mpi/mpifort"
lib="$top_builddir/.libs/librtmsg_mpifh.so"
[ -x "$mpifort" ] || t_skip "configure found no gfortran: no mpifort, no mpi module"
require_rtrun
tmp=$(mktemp -d /tmp/rtm-mpifort.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# -- The wrapper's options.
"$mpifort" --showme:compile | grep -q -- "-I$top_srcdir/mpi/fortran" || fail "--showme:compile"
"$mpifort" --showme:compile | grep -q -- "-I$top_builddir/mpi/fortran/mod" ||
    fail "--showme:compile lacks the module directory"
"$mpifort" --showme:link | grep -q -- "-lrtmsg_mpifh -lrtmsg" || fail "--showme:link"
"$mpifort" -show -o x x.f90 | grep -q -- "x.f90 .*-lrtmsg_mpifh" || fail "-show"
"$mpifort" --showme -c x.f90 | grep -q -- "-lrtmsg" && fail "-c must not add link flags"
RTMSG_FC=my-fc "$mpifort" -show x.f90 | grep -q "^my-fc " || fail "RTMSG_FC is not used"

# -- Every C function has a Fortran entry point or is C-only.
syms="$top_srcdir/mpi/fortran/symbols.txt"
sed -n 's/^RTMPI_API\(_OLD\)\{0,1\}(\([A-Za-z_0-9]*\),.*/MPI_\2/p' "$top_srcdir/include/mpi.h" |
    sort -u > "$tmp/c_funcs"
[ "$(wc -l < "$tmp/c_funcs")" -gt 250 ] || fail "could not read mpi.h's functions"
for f in Wtime Wtick Aint_add Aint_diff; do echo "MPI_$f"; done >> "$tmp/c_funcs"
awk '{print $1}' "$syms" | sort -u > "$tmp/listed"
missing=$(sort -u "$tmp/c_funcs" | comm -23 - "$tmp/listed")
[ -z "$missing" ] || fail "not in symbols.txt (run make fortran-regen): $missing"
nm -D --defined-only "$lib" > "$tmp/nm" || fail "nm $lib"
n=0
n08=0
while read -r cname fname f08name where; do
    [ "$fname" = - ] && continue
    grep -q " W $fname\$" "$tmp/nm" || fail "$cname: no weak $fname in librtmsg_mpifh"
    grep -q " T p$fname\$" "$tmp/nm" || fail "$cname: no p$fname in librtmsg_mpifh"
    if [ "$f08name" != - ]; then
        grep -q " W $f08name\$" "$tmp/nm" || fail "$cname: no weak $f08name (mpi_f08)"
        grep -q " T p$f08name\$" "$tmp/nm" || fail "$cname: no p$f08name (mpi_f08)"
        n08=$((n08 + 1))
    fi
    n=$((n + 1))
done < "$syms"
[ "$n" -gt 250 ] || fail "only $n Fortran entry points"
[ "$n08" -gt 250 ] || fail "only $n08 mpi_f08 entry points"
echo "$n Fortran entry points ($n08 of them with mpi_f08 ones), $(grep -c ' - - ' "$syms") C-only functions"
for cb in mpi_comm_null_copy_fn_ mpi_comm_dup_fn_ mpi_type_null_delete_fn_ mpi_dup_fn_ \
          rtm_mpi_f_bottom_ rtm_mpi_f_in_place_ rtm_mpi_f_st_ignore_; do
    grep -q " $cb\$" "$tmp/nm" || fail "librtmsg_mpifh lacks $cb"
done
if command -v python3 >/dev/null 2>&1; then
    mkdir "$tmp/gen" && python3 "$top_srcdir/mpi/fortran/gen.py" "$top_srcdir" "$tmp/gen" ||
        fail "gen.py"
    for f in bindings.c mpif.h mpi_consts.h mpi_ifaces.h symbols.txt mpi_f08_consts.h \
             mpi_f08_ifaces.h; do
        cmp -s "$tmp/gen/$f" "$top_srcdir/mpi/fortran/$f" ||
            fail "mpi/fortran/$f is stale: run make fortran-regen"
    done
fi
# mpif.h is fixed form: nothing past column 72, no tabs.
awk 'length($0) > 72 || /\t/ { print FILENAME ":" FNR; bad = 1 } END { exit bad }' \
    "$top_srcdir/mpi/fortran/mpif.h" || fail "mpif.h is not fixed form"

# -- Programs: fixed-form mpif.h, free-form mpif.h, use mpi.
cat > "$tmp/pi.f90" <<'SRC'
program pi
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nprocs, i
  integer, parameter :: n = 100000
  double precision :: h, s, mypi, total
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  h = 1d0 / n
  s = 0d0
  do i = rank + 1, n, nprocs
    s = s + 4d0 / (1d0 + (h * (i - 0.5d0))**2)
  end do
  mypi = h * s
  call MPI_REDUCE(mypi, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (abs(total - 3.14159265358979d0) > 1d-8) then
      print *, 'FAIL: pi', total
      call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
    end if
    print '(a,f12.9)', 'pi ', total
  end if
  call MPI_FINALIZE(ierr)
end program pi
SRC
"$mpifort" -o "$tmp/f77" "$top_srcdir/tests/mpi/mpi_fortran_f77.f" 2> "$tmp/cc.log" ||
    { cat "$tmp/cc.log" >&2; fail "mpifort could not build mpi_fortran_f77.f"; }
"$mpifort" -o "$tmp/pi" "$tmp/pi.f90" 2> "$tmp/cc.log" ||
    { cat "$tmp/cc.log" >&2; fail "mpifort could not build pi.f90"; }
"$mpifort" -o "$tmp/mod" "$top_srcdir/tests/mpi/mpi_fortran_mod.f90" 2> "$tmp/cc.log" ||
    { cat "$tmp/cc.log" >&2; fail "mpifort could not build mpi_fortran_mod.f90"; }
prog_dir="$tmp"
for np in 1 2 3; do
    run_np "$np" f77
    run_np "$np" pi
    run_np "$np" mod
done
