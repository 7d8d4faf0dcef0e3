#!/bin/sh
# The Fortran 2-D Jacobi example (examples/fortran/jacobi.f90, mpi_f08),
# built with mpifort, on 1 to 4 ranks and an uneven 17 x 11 grid; it
# checks the converged grid against the closed form and prints PASS. With
# --corrupt it must print FAIL. Skips while mpifort has no mpi_f08.
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/fortran/flib.sh"
f_need_f08
f_build jacobi "$top_srcdir/examples/fortran/jacobi.f90"
for np in 1 2 3 4; do
    f_run "$np" jacobi
done
f_run 3 jacobi 17 11
f_run_bad 4 jacobi --corrupt
exit $failed
