#!/bin/sh
# A mixed C/Fortran program (tests/fortran/f_mixed.f90 + f_mixed.c):
# handles cross the boundary both ways (MPI_*_f2c / c2f, Status_c2f/f2c),
# on 1 to 4 ranks. The C half is built with mpicc, linked by mpifort.
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/fortran/flib.sh"
f_cc f_mixed_c.o "$fsrc/f_mixed.c"
f_build f_mixed "$fsrc/f_mixed.f90" "$ftmp/f_mixed_c.o"
for np in 1 2 3 4; do
    f_run "$np" f_mixed
done
exit $failed
