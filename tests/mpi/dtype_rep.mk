# tests/mpi/dtype_rep.mk: (issue 14) tests of this part of the MPI binding; included by Makefile.am.

# The datatype representation: huge regular types in O(1) memory, counts up
# to the _x limits, pack/unpack and send/recv of nested types, pair types,
# envelope/contents of every combiner, darray.
check_PROGRAMS += tests/mpi/mpi_dtrep
tests_mpi_mpi_dtrep_LDADD = librtmsg.la
tests_mpi_mpi_dtrep_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/mpi_dtrep.sh
INTEGRATION_TESTS += tests/mpi/mpi_dtrep.sh

# Datatypes at the 64-bit limits: exact _x values, MPI_ERR_ARG where a size
# or extent would not fit, MPI_ERR_COUNT for byte counts beyond MPI_Count.
check_PROGRAMS += tests/mpi/mpi_dtovf
tests_mpi_mpi_dtovf_LDADD = librtmsg.la
tests_mpi_mpi_dtovf_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/mpi_dtovf.sh
INTEGRATION_TESTS += tests/mpi/mpi_dtovf.sh

# A message above INT_MAX bytes between 2 ranks and Sendrecv_replace of one
# (4.3 GiB at a time; skipped in the sanitizer pass, mpi_bigmsg.sh).
check_PROGRAMS += tests/mpi/mpi_bigmsg
tests_mpi_mpi_bigmsg_LDADD = librtmsg.la
tests_mpi_mpi_bigmsg_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/mpi_bigmsg.sh
INTEGRATION_TESTS += tests/mpi/mpi_bigmsg.sh
