#!/bin/sh
# An mpi_f08 entry point given a non-contiguous section of zero-length
# elements (tests/fortran/f_f08zero.c, a C program calling the f08 entry
# points with a CFI descriptor, linked by mpifort): no division by the
# element length. Skips while mpifort has no mpi_f08.
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/fortran/flib.sh"
f_need_f08
f_cc f_f08zero.o "$fsrc/f_f08zero.c"
f_build f_f08zero "$ftmp/f_f08zero.o"
for np in $(t_np "1 2" "1"); do
    f_run "$np" f_f08zero
done
exit $failed
