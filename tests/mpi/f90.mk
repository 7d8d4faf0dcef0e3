# tests/mpi/f90.mk: (issue 14) Type_create_f90_* and Comm_idup tests; included by Makefile.am.
check_PROGRAMS += tests/mpi/mpi_dtf90
tests_mpi_mpi_dtf90_LDADD = librtmsg.la
tests_mpi_mpi_dtf90_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/mpi_dtf90.sh
INTEGRATION_TESTS += tests/mpi/mpi_dtf90.sh
check_PROGRAMS += tests/mpi/mpi_idup
tests_mpi_mpi_idup_LDADD = librtmsg.la
tests_mpi_mpi_idup_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/mpi_idup.sh
INTEGRATION_TESTS += tests/mpi/mpi_idup.sh
