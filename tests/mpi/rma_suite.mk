# tests/mpi/rma_suite.mk: (issue 15) the one-sided conformance suite, checked against Open MPI and MPICH; included by Makefile.am.
#
# Each program passes under Open MPI 4.1 and MPICH 4.0: tests/mpi/rmas_peers.sh
# builds and runs them there. RMA_SUITE_PENDING: the drivers that do not pass against
# librtmsg yet: built and shipped, not run by make check (run one by hand:
# make check TESTS=tests/mpi/rmas_sync.sh). A driver moves to
# RMA_SUITE_TESTS, which INTEGRATION_TESTS runs, once it passes.
RMA_SUITE_PROGS = tests/mpi/rmas_sync tests/mpi/rmas_acc tests/mpi/rmas_dtype tests/mpi/rmas_win
RMA_SUITE_PENDING =
RMA_SUITE_TESTS = tests/mpi/rmas_sync.sh tests/mpi/rmas_acc.sh tests/mpi/rmas_dtype.sh tests/mpi/rmas_win.sh
check_PROGRAMS += $(RMA_SUITE_PROGS)
noinst_HEADERS += tests/mpi/rmas_common.h
tests_mpi_rmas_sync_LDADD = librtmsg.la
tests_mpi_rmas_sync_LDFLAGS = $(MPITEST_LINK_FLAGS)
tests_mpi_rmas_acc_LDADD = librtmsg.la
tests_mpi_rmas_acc_LDFLAGS = $(MPITEST_LINK_FLAGS)
tests_mpi_rmas_dtype_LDADD = librtmsg.la
tests_mpi_rmas_dtype_LDFLAGS = $(MPITEST_LINK_FLAGS)
tests_mpi_rmas_win_LDADD = librtmsg.la
tests_mpi_rmas_win_LDFLAGS = $(MPITEST_LINK_FLAGS)
EXTRA_DIST += $(RMA_SUITE_PENDING) tests/mpi/rmas_lib.sh tests/mpi/rmas_peers.sh
dist_noinst_SCRIPTS += $(RMA_SUITE_TESTS)
INTEGRATION_TESTS += $(RMA_SUITE_TESTS)
