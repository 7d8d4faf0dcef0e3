# tests/fortran/local.mk: (issue 16) Fortran tests and the Fortran examples; included by Makefile.am.
# The programs are not built by make: each driver compiles its program
# with the build-tree mpifort (tests/mpi/mpifort, from mpi/fortran/) as a
# user would, and skips when that wrapper is not there. examples/fortran/
# (pi through mpif.h, jacobi through mpi_f08) are plain MPI programs built
# the same way by f_pi.sh and f_jacobi.sh.
EXTRA_DIST += \
	tests/fortran/flib.sh \
	tests/fortran/f_mpifh.f \
	tests/fortran/f_usempi.f90 \
	tests/fortran/f_mixed.f90 \
	tests/fortran/f_mixed.c \
	tests/fortran/f_f08.f90 \
	tests/fortran/f_f08x.f90 \
	tests/fortran/f_f08zero.c \
	examples/fortran/pi.f \
	examples/fortran/jacobi.f90
dist_noinst_SCRIPTS += \
	tests/fortran/f_mpifh.sh \
	tests/fortran/f_usempi.sh \
	tests/fortran/f_mixed.sh \
	tests/fortran/f_pi.sh \
	tests/fortran/f_jacobi.sh \
	tests/fortran/f_f08.sh \
	tests/fortran/f_f08x.sh \
	tests/fortran/f_f08zero.sh
INTEGRATION_TESTS += \
	tests/fortran/f_mpifh.sh \
	tests/fortran/f_usempi.sh \
	tests/fortran/f_mixed.sh \
	tests/fortran/f_pi.sh \
	tests/fortran/f_jacobi.sh \
	tests/fortran/f_f08.sh \
	tests/fortran/f_f08x.sh \
	tests/fortran/f_f08zero.sh
