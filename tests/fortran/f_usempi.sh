#!/bin/sh
# The `use mpi` module (tests/fortran/f_usempi.f90, free form), built with
# mpifort and run on 1 to 4 ranks. Built without -fallow-argument-mismatch:
# the module's interfaces must take any choice buffer themselves.
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/fortran/flib.sh"
f_build f_usempi "$fsrc/f_usempi.f90"
for np in 1 2 3 4; do
    f_run "$np" f_usempi
done
exit $failed
