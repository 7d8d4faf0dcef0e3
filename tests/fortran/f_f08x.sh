#!/bin/sh
# More of the mpi_f08 module (tests/fortran/f_f08x.f90): PMPI_ names and a
# Fortran profiler, nonblocking sections, refused sections, callbacks,
# TYPE(C_PTR) arguments, MPI_Sizeof; on 1 to 4 ranks. Skips while mpifort
# has no mpi_f08.
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/fortran/flib.sh"
f_need_f08
f_build f_f08x "$fsrc/f_f08x.f90"
for np in 1 2 3 4; do
    f_run "$np" f_f08x
done
exit $failed
