# tests/mpi/intercomm.mk: (issue 14) tests of this part of the MPI binding; included by Makefile.am.
check_PROGRAMS += tests/mpi/mpi_icomm
tests_mpi_mpi_icomm_LDADD = librtmsg.la
tests_mpi_mpi_icomm_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/mpi_icomm.sh
INTEGRATION_TESTS += tests/mpi/mpi_icomm.sh
