# tests/mpi/scancel.mk: (issue 14) MPI_Cancel of sends; included by Makefile.am.
# Unmatched sends are cancelled and never arrive, matched ones complete, on
# shm, tcp and verbs (softib).
check_PROGRAMS += tests/mpi/mpi_scancel
tests_mpi_mpi_scancel_LDADD = librtmsg.la
tests_mpi_mpi_scancel_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/mpi_scancel.sh
INTEGRATION_TESTS += tests/mpi/mpi_scancel.sh
