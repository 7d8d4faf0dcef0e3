# tests/mpi/collfix.mk: (issue 14) tests of this part of the MPI binding; included by Makefile.am.
# mpi_collfix: NULL buffers with zero counts and MPI_IN_PLACE in every
# collective, argument errors every rank sees (MPI_ERRORS_RETURN) and those
# only one rank sees (the default handler ends the job), many nonblocking
# collectives in flight at once. One driver runs every mode.
check_PROGRAMS += tests/mpi/mpi_collfix
tests_mpi_mpi_collfix_LDADD = librtmsg.la
tests_mpi_mpi_collfix_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/mpi_collfix.sh
INTEGRATION_TESTS += tests/mpi/mpi_collfix.sh
