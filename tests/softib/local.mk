# tests/softib: the tests of softib (the emulator itself is softib/, built by
# softib/local.mk). See softib/README.md.
if HAVE_IBVERBS

# softib's own tests: exact statuses and errnos, linked straight to libsoftib
check_LTLIBRARIES += tests/softib/libsoftib_test.la
tests_softib_libsoftib_test_la_SOURCES = tests/softib/t_common.c tests/softib/t_common.h
tests_softib_libsoftib_test_la_CFLAGS = $(AM_CFLAGS) $(IBVERBS_CFLAGS)

SOFTIB_TESTS = \
	tests/softib/t_qp_state \
	tests/softib/t_wc_errors \
	tests/softib/t_ops \
	tests/softib/t_two_proc \
	tests/softib/t_xrc \
	tests/softib/t_pin \
	tests/softib/t_async \
	tests/softib/t_psn_resend \
	tests/softib/t_direct_resend \
	tests/softib/t_mw \
	tests/softib/t_mw_two_proc \
	tests/softib/t_caps
check_PROGRAMS += $(SOFTIB_TESTS)
UNIT_TESTS += $(SOFTIB_TESTS)
SOFTIB_TEST_LDADD = tests/softib/libsoftib_test.la softib/libsoftib.la
tests_softib_t_qp_state_CFLAGS = $(AM_CFLAGS) $(IBVERBS_CFLAGS)
tests_softib_t_qp_state_LDADD = $(SOFTIB_TEST_LDADD)
tests_softib_t_wc_errors_CFLAGS = $(AM_CFLAGS) $(IBVERBS_CFLAGS)
tests_softib_t_wc_errors_LDADD = $(SOFTIB_TEST_LDADD)
tests_softib_t_ops_CFLAGS = $(AM_CFLAGS) $(IBVERBS_CFLAGS)
tests_softib_t_ops_LDADD = $(SOFTIB_TEST_LDADD)
tests_softib_t_two_proc_CFLAGS = $(AM_CFLAGS) $(IBVERBS_CFLAGS)
tests_softib_t_two_proc_LDADD = $(SOFTIB_TEST_LDADD)
tests_softib_t_xrc_CFLAGS = $(AM_CFLAGS) $(IBVERBS_CFLAGS)
tests_softib_t_xrc_LDADD = $(SOFTIB_TEST_LDADD)
tests_softib_t_pin_CFLAGS = $(AM_CFLAGS) $(IBVERBS_CFLAGS)
tests_softib_t_pin_LDADD = $(SOFTIB_TEST_LDADD)
tests_softib_t_async_CFLAGS = $(AM_CFLAGS) $(IBVERBS_CFLAGS)
tests_softib_t_async_LDADD = $(SOFTIB_TEST_LDADD) -lpthread
tests_softib_t_psn_resend_CFLAGS = $(AM_CFLAGS) $(IBVERBS_CFLAGS)
tests_softib_t_psn_resend_LDADD = $(SOFTIB_TEST_LDADD)
tests_softib_t_direct_resend_CFLAGS = $(AM_CFLAGS) $(IBVERBS_CFLAGS)
tests_softib_t_direct_resend_LDADD = $(SOFTIB_TEST_LDADD)
tests_softib_t_mw_CFLAGS = $(AM_CFLAGS) $(IBVERBS_CFLAGS)
tests_softib_t_mw_LDADD = $(SOFTIB_TEST_LDADD)
tests_softib_t_mw_two_proc_CFLAGS = $(AM_CFLAGS) $(IBVERBS_CFLAGS)
tests_softib_t_mw_two_proc_LDADD = $(SOFTIB_TEST_LDADD)
tests_softib_t_caps_CFLAGS = $(AM_CFLAGS) $(IBVERBS_CFLAGS)
tests_softib_t_caps_LDADD = $(SOFTIB_TEST_LDADD)

# acceptance: unmodified Debian tools under LD_PRELOAD (acceptance.sh)
SOFTIB_ACCEPTANCE = \
	tests/softib/tools_info.sh \
	tests/softib/rc_pingpong.sh \
	tests/softib/srq_pingpong.sh \
	tests/softib/ud_pingpong.sh \
	tests/softib/xsrq_pingpong.sh \
	tests/softib/perftest_send_lat.sh \
	tests/softib/perftest_send_bw.sh \
	tests/softib/perftest_write_lat.sh \
	tests/softib/perftest_write_bw.sh \
	tests/softib/perftest_read_lat.sh \
	tests/softib/perftest_read_bw.sh
INTEGRATION_TESTS += $(SOFTIB_ACCEPTANCE)
# other verbs stacks, unmodified, through softib-run (Debian's UCX, Open MPI,
# MPICH; skip 77 where one is missing; UCX's need root for the device node)
SOFTIB_PEER_TESTS = \
	tests/softib/softib_run.sh \
	tests/softib/ucx_perftest.sh \
	tests/softib/peer_openmpi_openib.sh \
	tests/softib/peer_openmpi_ucx.sh \
	tests/softib/peer_mpich.sh
INTEGRATION_TESTS += $(SOFTIB_PEER_TESTS)
dist_noinst_SCRIPTS += $(SOFTIB_PEER_TESTS)
# two network namespaces over a veth pair (root)
MULTIHOST_TESTS += tests/softib/netns_rc_pingpong.sh tests/softib/netns_ucx_perftest.sh \
	tests/softib/netns_peers.sh
# foreign stacks over softib's TCP path, which netns_rc_pingpong.sh runs under
# the sanitizers (docs/testing.md)
NO_SANITIZER_TESTS += tests/softib/netns_peers.sh tests/softib/netns_ucx_perftest.sh
dist_noinst_SCRIPTS += $(SOFTIB_ACCEPTANCE) tests/softib/netns_rc_pingpong.sh tests/softib/netns_ucx_perftest.sh \
	tests/softib/netns_peers.sh

endif HAVE_IBVERBS

EXTRA_DIST += tests/softib/acceptance.sh tests/softib/peer_mpi_lib.sh tests/softib/peer_mpi.c
