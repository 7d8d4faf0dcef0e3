# tests/mpi/ops.mk: (issue 13) the reduction kernels and the Allreduce
# algorithm on an oversubscribed host; included by Makefile.am.
# mpi_ops: every predefined op on every C type it takes against a plain
# loop (the kernels are vectorized, in blocks, with AVX-512/AVX2/SSE2
# clones), and which path a 64 KiB MPI_Allreduce takes (MPI_T's
# rtm_coll_shm_calls) when ranks see their host oversubscribed or not,
# all of them or only some.
check_PROGRAMS += tests/mpi/mpi_ops
tests_mpi_mpi_ops_LDADD = librtmsg.la
tests_mpi_mpi_ops_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/mpi_ops.sh
INTEGRATION_TESTS += tests/mpi/mpi_ops.sh
