# tests/mpi/collshm.mk: the shared-memory collectives (mpi/coll_shm.c); included by Makefile.am.
check_PROGRAMS += tests/mpi/mpi_collshm
tests_mpi_mpi_collshm_LDADD = librtmsg.la
tests_mpi_mpi_collshm_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/mpi_collshm.sh
INTEGRATION_TESTS += tests/mpi/mpi_collshm.sh
