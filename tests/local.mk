# tests/: integration (multi-rank jobs under rtrun) and fault tests, the
# check-<tier> targets, and the sanitizer settings every test run uses. Unit
# tests and softib keep their rules with their components; every test is in
# one tier variable (UNIT_TESTS, INTEGRATION_TESTS, FAULT_TESTS,
# MULTIHOST_TESTS, SCHED_TESTS; see docs/testing.md).

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
	tests/integration/argcheck \
	tests/integration/alltoall \
	tests/integration/window

check_PROGRAMS += $(ITEST_PROGS) tests/integration/no_cma tests/fault/fault_rank
noinst_HEADERS += tests/harness.h tests/integration/itest.h

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
tests_integration_window_LDADD = $(ITEST_LIBS)
tests_integration_window_LDFLAGS = $(ITEST_LINK_FLAGS)
tests_integration_alltoall_LDADD = $(ITEST_LIBS)
tests_integration_alltoall_LDFLAGS = $(ITEST_LINK_FLAGS)
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
	tests/integration/shm_footprint.sh
FAULT_DRIVERS = \
	tests/fault/kill_rank.sh \
	tests/fault/abort.sh \
	tests/fault/exit_code.sh \
	tests/fault/kill_transport.sh \
	tests/fault/shm_full.sh

INTEGRATION_TESTS += $(ITEST_DRIVERS)
FAULT_TESTS += $(FAULT_DRIVERS)
dist_noinst_SCRIPTS += $(ITEST_DRIVERS) $(FAULT_DRIVERS)
EXTRA_DIST += tests/lib.sh tests/integration/lib.sh tests/lsan.supp tests/wrap.sh

# Sanitizer build: every process a test starts (rtrun and every rank)
# reports leaks with our suppressions (libpmix.so's own leaks only), and
# any UBSan finding ends the process with a stack trace.
if RTM_SANITIZERS
AM_TESTS_ENVIRONMENT += \
	ASAN_OPTIONS='detect_leaks=1:abort_on_error=0'; \
	LSAN_OPTIONS='suppressions=$(abs_top_srcdir)/tests/lsan.supp:print_suppressions=0'; \
	UBSAN_OPTIONS='halt_on_error=1:print_stacktrace=1'; \
	RTMTEST_SANITIZER_PASS=1; \
	export ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS RTMTEST_SANITIZER_PASS;
endif

# One tier at a time: `make check-unit` runs the unit tier in parallel
# (one-process tests, no rtrun, no fixed ports: nothing they share), the
# other tiers one test at a time, as their multi-rank jobs oversubscribe the
# cores. UNIT_JOBS overrides the parallelism (default: four per core, as
# the unit tests spend much of their time yielding to their own processes).
# In a sanitizer build the tier targets leave out NO_SANITIZER_TESTS: tests
# whose subject is a shell script or the build system and whose C code paths
# other tests already run under the sanitizers (docs/testing.md, the rule);
# `make check` and TESTS=... still run them there.
NO_SANITIZER_TESTS = \
	tests/integration/install.sh \
	tests/mpi/mpi_wrappers.sh \
	tests/multihost/integration_a.sh \
	tests/multihost/integration_b.sh
if RTM_SANITIZERS
tier_filter = $(NO_SANITIZER_TESTS)
else
tier_filter =
endif
UNIT_JOBS = $$(( $$(nproc 2>/dev/null || echo 1) * 4 ))
tier_tests = $(filter-out $(tier_filter),$(1))
check-unit:
	@$(MAKE) $(AM_MAKEFLAGS) -j$(UNIT_JOBS) check TESTS='$(call tier_tests,$(UNIT_TESTS))'
check-integration:
	@$(MAKE) $(AM_MAKEFLAGS) -j1 check TESTS='$(call tier_tests,$(INTEGRATION_TESTS))'
check-fault:
	@$(MAKE) $(AM_MAKEFLAGS) -j1 check TESTS='$(call tier_tests,$(FAULT_TESTS))'
check-multihost:
	@$(MAKE) $(AM_MAKEFLAGS) -j1 check TESTS='$(call tier_tests,$(MULTIHOST_TESTS))'
check-sched:
	@$(MAKE) $(AM_MAKEFLAGS) -j1 check TESTS='$(call tier_tests,$(SCHED_TESTS))'
check-security:
	@$(MAKE) $(AM_MAKEFLAGS) -j1 check TESTS='$(call tier_tests,$(SECURITY_TESTS))'
check-fuzz:
	@$(MAKE) $(AM_MAKEFLAGS) -j1 check TESTS='$(call tier_tests,$(FUZZ_TESTS))'
# Tests some local.mk added to TESTS without a tier (scripts/run-tests runs
# them too, and says so); nothing when every test has its tier.
TIERED_TESTS = $(UNIT_TESTS) $(INTEGRATION_TESTS) $(FAULT_TESTS) $(MULTIHOST_TESTS) \
	$(SCHED_TESTS) $(SECURITY_TESTS) $(FUZZ_TESTS)
check-untiered:
	@untiered='$(filter-out $(TIERED_TESTS),$(TESTS))'; \
	if test -n "$$untiered"; then \
	  echo "tests in no tier (add them to a *_TESTS variable): $$untiered"; \
	  $(MAKE) $(AM_MAKEFLAGS) -j1 check TESTS="$$untiered"; \
	fi
.PHONY: check-unit check-integration check-fault check-multihost check-sched check-security \
	check-fuzz check-untiered
