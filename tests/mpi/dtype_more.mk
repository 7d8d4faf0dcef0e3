# tests/mpi/dtype_more.mk: (issue 14) tests of this part of the MPI binding; included by Makefile.am.
# Part dtmisc: more predefined datatypes and their ops, MPI_Type_match_size,
# external32, the MPI-1 names removed in MPI 3.0, the audit of mpi.h.
check_PROGRAMS += tests/mpi/mpi_dtmisc
tests_mpi_mpi_dtmisc_LDADD = librtmsg.la
tests_mpi_mpi_dtmisc_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/mpi_dtmisc.sh
INTEGRATION_TESTS += tests/mpi/mpi_dtmisc.sh
