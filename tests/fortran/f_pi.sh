#!/bin/sh
# The Fortran pi example (examples/fortran/pi.f, mpif.h), built with
# mpifort as a user would, on 1 to 4 ranks; it checks its result against
# the closed form and prints PASS. With --corrupt it must print FAIL.
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/fortran/flib.sh"
f_build pi "$top_srcdir/examples/fortran/pi.f"
for np in 1 2 3 4; do
    f_run "$np" pi
done
f_run 3 pi 1000
f_run_bad 2 pi --corrupt
exit $failed
