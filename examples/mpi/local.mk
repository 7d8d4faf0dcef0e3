# examples/mpi/: three small real MPI programs (plain MPI, no librtmsg
# calls), so they also build with any other MPI's mpicc. They are not part
# of the default build: tests/mpi-examples/examples.sh compiles them with the
# build-tree mpicc (tests/mpi/mpicc, a check script) and runs them under
# rtrun; each program checks its own result and prints PASS or FAIL.
EXTRA_DIST += \
	examples/mpi/jacobi.c \
	examples/mpi/samplesort.c \
	examples/mpi/pi.c
dist_noinst_SCRIPTS += tests/mpi-examples/examples.sh
INTEGRATION_TESTS += tests/mpi-examples/examples.sh
