# tests/mpi/topo.mk: (issue 14) tests of this part of the MPI binding; included by Makefile.am.
# Topologies (Cartesian, graph, distributed graph) and the neighbourhood
# collectives: one program (tests/mpi/mpi_topo.c), one driver over 1-8 ranks.
check_PROGRAMS += tests/mpi/mpi_topo
tests_mpi_mpi_topo_LDADD = librtmsg.la
tests_mpi_mpi_topo_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/mpi_topo.sh
INTEGRATION_TESTS += tests/mpi/mpi_topo.sh
