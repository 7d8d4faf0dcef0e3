#!/bin/sh
# The mpi_f08 module (tests/fortran/f_f08.f90): handle types, TYPE(MPI_Status),
# optional ierror, non-contiguous array sections, an mpi_f08 user op; on 1 to
# 4 ranks. Skips while mpifort has no mpi_f08.
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/fortran/flib.sh"
f_need_f08
f_build f_f08 "$fsrc/f_f08.f90"
for np in 1 2 3 4; do
    f_run "$np" f_f08
done
exit $failed
