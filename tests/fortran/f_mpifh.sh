#!/bin/sh
# The mpif.h binding (tests/fortran/f_mpifh.f, fixed form), built with
# mpifort and run on 1 to 4 ranks; the program checks its data itself.
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/fortran/flib.sh"
# shellcheck disable=SC2046 # an empty flag or one word
f_build f_mpifh $(f_mismatch_flag) "$fsrc/f_mpifh.f"
for np in 1 2 3 4; do
    f_run "$np" f_mpifh
done
exit $failed
