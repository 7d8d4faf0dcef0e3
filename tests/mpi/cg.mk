# tests/mpi/cg.mk: (issue 13) bench/mpi/cg_loop.c, the HPCG-like loop of
# bench/compare-mpi.sh, built as a test program too: halo exchanges of all
# 26 neighbours and Allreduce in an application's pattern must converge to
# the exact solution at every rank count (tests/mpi/cg_loop.sh).
check_PROGRAMS += tests/mpi/cg_loop
tests_mpi_cg_loop_SOURCES = bench/mpi/cg_loop.c
tests_mpi_cg_loop_LDADD = librtmsg.la -lm
tests_mpi_cg_loop_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/cg_loop.sh
INTEGRATION_TESTS += tests/mpi/cg_loop.sh
