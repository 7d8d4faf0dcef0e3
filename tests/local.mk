# tests/: integration (multi-rank jobs under rtrun) and fault tests, and
# the sanitizer settings every test run uses. Unit tests and softib keep
# their rules with their components.

# Test programs link only the public API. -no-install: no libtool wrapper
# script, so a program can be started directly (the singleton test) or
# through the no_cma exec wrapper.
ITEST_LIBS = librtmsg.la
ITEST_LINK_FLAGS = $(AM_LDFLAGS) -no-install

ITEST_PROGS = \
	tests/integration/pingpong \
	tests/integration/wildcard \
	tests/integration/order \
	tests/integration/outstanding \
	tests/integration/completion \
	tests/integration/unexpected \
	tests/integration/selfsend \
	tests/integration/probe \
	tests/integration/truncate \
	tests/integration/cancel \
	tests/integration/comm \
	tests/integration/barrier \
	tests/integration/sendrecv \
	tests/integration/argcheck

check_PROGRAMS += $(ITEST_PROGS) tests/integration/no_cma tests/fault/fault_rank
noinst_HEADERS += tests/integration/itest.h

tests_integration_pingpong_LDADD = $(ITEST_LIBS)
tests_integration_pingpong_LDFLAGS = $(ITEST_LINK_FLAGS)
tests_integration_wildcard_LDADD = $(ITEST_LIBS)
tests_integration_wildcard_LDFLAGS = $(ITEST_LINK_FLAGS)
tests_integration_order_LDADD = $(ITEST_LIBS)
tests_integration_order_LDFLAGS = $(ITEST_LINK_FLAGS)
tests_integration_outstanding_LDADD = $(ITEST_LIBS)
tests_integration_outstanding_LDFLAGS = $(ITEST_LINK_FLAGS)
tests_integration_completion_LDADD = $(ITEST_LIBS)
tests_integration_completion_LDFLAGS = $(ITEST_LINK_FLAGS)
tests_integration_unexpected_LDADD = $(ITEST_LIBS)
tests_integration_unexpected_LDFLAGS = $(ITEST_LINK_FLAGS)
tests_integration_selfsend_LDADD = $(ITEST_LIBS)
tests_integration_selfsend_LDFLAGS = $(ITEST_LINK_FLAGS)
tests_integration_probe_LDADD = $(ITEST_LIBS)
tests_integration_probe_LDFLAGS = $(ITEST_LINK_FLAGS)
tests_integration_truncate_LDADD = $(ITEST_LIBS)
tests_integration_truncate_LDFLAGS = $(ITEST_LINK_FLAGS)
tests_integration_cancel_LDADD = $(ITEST_LIBS)
tests_integration_cancel_LDFLAGS = $(ITEST_LINK_FLAGS)
tests_integration_comm_LDADD = $(ITEST_LIBS)
tests_integration_comm_LDFLAGS = $(ITEST_LINK_FLAGS)
tests_integration_barrier_LDADD = $(ITEST_LIBS)
tests_integration_barrier_LDFLAGS = $(ITEST_LINK_FLAGS)
tests_integration_sendrecv_LDADD = $(ITEST_LIBS)
tests_integration_sendrecv_LDFLAGS = $(ITEST_LINK_FLAGS)
tests_integration_argcheck_LDADD = $(ITEST_LIBS)
tests_integration_argcheck_LDFLAGS = $(ITEST_LINK_FLAGS)
tests_fault_fault_rank_LDADD = $(ITEST_LIBS)
tests_fault_fault_rank_LDFLAGS = $(ITEST_LINK_FLAGS)
# no_cma links nothing of ours: it only installs a seccomp filter and execs.

# Drivers: each runs its program under $RTRUN with 1-4 ranks (lib.sh).
ITEST_DRIVERS = \
	tests/integration/pingpong.sh \
	tests/integration/pingpong_thresholds.sh \
	tests/integration/wildcard.sh \
	tests/integration/order.sh \
	tests/integration/outstanding.sh \
	tests/integration/completion.sh \
	tests/integration/unexpected.sh \
	tests/integration/selfsend.sh \
	tests/integration/probe.sh \
	tests/integration/truncate.sh \
	tests/integration/cancel.sh \
	tests/integration/comm.sh \
	tests/integration/barrier.sh \
	tests/integration/sendrecv.sh \
	tests/integration/argcheck.sh \
	tests/integration/singleton.sh \
	tests/integration/no_cma.sh \
	tests/integration/transports.sh \
	tests/fault/kill_rank.sh \
	tests/fault/abort.sh \
	tests/fault/exit_code.sh

TESTS += $(ITEST_DRIVERS)
dist_noinst_SCRIPTS += $(ITEST_DRIVERS)
EXTRA_DIST += tests/integration/lib.sh tests/lsan.supp tests/wrap.sh

# Sanitizer build: every process a test starts (rtrun and every rank)
# reports leaks with our suppressions (libpmix.so's own leaks only), and
# any UBSan finding ends the process with a stack trace.
if RTM_SANITIZERS
AM_TESTS_ENVIRONMENT += \
	ASAN_OPTIONS='detect_leaks=1:abort_on_error=0'; \
	LSAN_OPTIONS='suppressions=$(abs_top_srcdir)/tests/lsan.supp:print_suppressions=0'; \
	UBSAN_OPTIONS='halt_on_error=1:print_stacktrace=1'; \
	export ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS;
endif
