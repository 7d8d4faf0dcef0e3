# tests/mpi/mpit.mk: (issue 14) tests of this part of the MPI binding; included by Makefile.am.

# MPI_T: every control and performance variable and category, cvar writes,
# counters after known traffic (2 ranks over shm and tcp).
check_PROGRAMS += tests/mpi/mpi_mpit
tests_mpi_mpi_mpit_LDADD = librtmsg.la
tests_mpi_mpi_mpit_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/mpi_mpit.sh
INTEGRATION_TESTS += tests/mpi/mpi_mpit.sh
