# tests/mpi/: MPI programs built against the in-tree mpi.h and librtmsg;
# the .sh drivers run them as singletons and under rtrun.
MPITEST_LINK_FLAGS = $(AM_LDFLAGS) -no-install
MPITEST_PROGS = \
	tests/mpi/mpi_p2p \
	tests/mpi/mpi_coll \
	tests/mpi/mpi_dtype \
	tests/mpi/mpi_comm \
	tests/mpi/mpi_errors \
	tests/mpi/mpi_reqs \
	tests/mpi/mpi_osu_api \
	tests/mpi/mpi_nomem \
	tests/mpi/mpi_stale
check_PROGRAMS += $(MPITEST_PROGS)
noinst_HEADERS += tests/mpi/mpitest.h
dist_noinst_SCRIPTS += tests/mpi/common.sh

tests_mpi_mpi_p2p_LDADD = librtmsg.la
tests_mpi_mpi_p2p_LDFLAGS = $(MPITEST_LINK_FLAGS)
tests_mpi_mpi_coll_LDADD = librtmsg.la
tests_mpi_mpi_coll_LDFLAGS = $(MPITEST_LINK_FLAGS)
tests_mpi_mpi_dtype_LDADD = librtmsg.la
tests_mpi_mpi_dtype_LDFLAGS = $(MPITEST_LINK_FLAGS)
tests_mpi_mpi_comm_LDADD = librtmsg.la
tests_mpi_mpi_comm_LDFLAGS = $(MPITEST_LINK_FLAGS)
tests_mpi_mpi_errors_LDADD = librtmsg.la
tests_mpi_mpi_errors_LDFLAGS = $(MPITEST_LINK_FLAGS)
tests_mpi_mpi_reqs_LDADD = librtmsg.la
tests_mpi_mpi_reqs_LDFLAGS = $(MPITEST_LINK_FLAGS)
tests_mpi_mpi_osu_api_LDADD = librtmsg.la
tests_mpi_mpi_osu_api_LDFLAGS = $(MPITEST_LINK_FLAGS)
tests_mpi_mpi_nomem_LDADD = librtmsg.la
tests_mpi_mpi_nomem_LDFLAGS = $(MPITEST_LINK_FLAGS)
tests_mpi_mpi_stale_LDADD = librtmsg.la
tests_mpi_mpi_stale_LDFLAGS = $(MPITEST_LINK_FLAGS)

# Fault injection: malloc fails while a test arms it (LD_PRELOAD).
check_LTLIBRARIES += tests/mpi/libfailmalloc.la
tests_mpi_libfailmalloc_la_SOURCES = tests/mpi/failmalloc.c
tests_mpi_libfailmalloc_la_LDFLAGS = -module -avoid-version -rpath /nowhere

MPITEST_DRIVERS = \
	tests/mpi/mpi_p2p.sh \
	tests/mpi/mpi_coll.sh \
	tests/mpi/mpi_dtype.sh \
	tests/mpi/mpi_comm.sh \
	tests/mpi/mpi_errors.sh \
	tests/mpi/mpi_reqs.sh \
	tests/mpi/mpi_osu_api.sh \
	tests/mpi/mpi_wrappers.sh \
	tests/mpi/mpi_includes.sh \
	tests/mpi/mpi_nomem.sh \
	tests/mpi/mpi_stale.sh
dist_noinst_SCRIPTS += $(MPITEST_DRIVERS)
INTEGRATION_TESTS += $(MPITEST_DRIVERS)

# Every error class's MPI_Error_string (issue 12).
check_PROGRAMS += tests/mpi/mpi_errstr
tests_mpi_mpi_errstr_LDADD = librtmsg.la
tests_mpi_mpi_errstr_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/mpi_errstr.sh
INTEGRATION_TESTS += tests/mpi/mpi_errstr.sh

# mpi.h and the Fortran binding declare nothing the libraries do not
# define, and no MPI function is a stub (issue 14).
dist_noinst_SCRIPTS += tests/mpi/mpi_decls.sh
INTEGRATION_TESTS += tests/mpi/mpi_decls.sh

# Collectives whose counts overflow in products with p or the extent
# (issue 14): MPI_ERR_COUNT at every rank that sees the arguments.
check_PROGRAMS += tests/mpi/mpi_collovf
tests_mpi_mpi_collovf_LDADD = librtmsg.la
tests_mpi_mpi_collovf_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/mpi_collovf.sh
INTEGRATION_TESTS += tests/mpi/mpi_collovf.sh
