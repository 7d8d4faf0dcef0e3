# tests/mpi/bottom.mk: (issue 14) tests of this part of the MPI binding; included by Makefile.am.
# mpi_bottom: MPI_BOTTOM with absolute byte displacements as the buffer of
# the "w" collectives (neighbourhood, intra and inter Alltoallw), found by
# mpi4py's test_cco_ngh_buf (testNeighborAlltoallwBottom).
check_PROGRAMS += tests/mpi/mpi_bottom
tests_mpi_mpi_bottom_LDADD = librtmsg.la
tests_mpi_mpi_bottom_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/mpi_bottom.sh
INTEGRATION_TESTS += tests/mpi/mpi_bottom.sh
