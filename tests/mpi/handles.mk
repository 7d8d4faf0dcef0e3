# tests/mpi/handles.mk: (issue 14) tests of this part of the MPI binding; included by Makefile.am.
# mpi_handles: Fortran handle conversions, added error classes and codes,
# counted error handlers, generalized requests, attribute fixes and
# datatype attributes, a persistent request of a freed type, handle tables
# without limits, MPI_COMM_SELF's attributes at MPI_Finalize.
check_PROGRAMS += tests/mpi/mpi_handles
tests_mpi_mpi_handles_LDADD = librtmsg.la
tests_mpi_mpi_handles_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/mpi_handles.sh
INTEGRATION_TESTS += tests/mpi/mpi_handles.sh
