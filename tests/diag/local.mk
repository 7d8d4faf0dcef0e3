# tests/diag/: job-state reports (launcher/report.c, runtime/state.c) on
# hangs made on purpose, and rtm_check.
check_PROGRAMS += tests/diag/diag_hang
tests_diag_diag_hang_LDADD = librtmsg.la
tests_diag_diag_hang_LDFLAGS = $(AM_LDFLAGS) -no-install
dist_noinst_SCRIPTS += tests/diag/lib.sh
DIAG_TESTS = \
	tests/diag/diag_probe.sh \
	tests/diag/diag_recv.sh \
	tests/diag/diag_stopped.sh \
	tests/diag/diag_ondemand.sh \
	tests/diag/diag_verbs_cut.sh
FAULT_TESTS += $(DIAG_TESTS) tests/diag/check_host.sh
dist_noinst_SCRIPTS += tests/diag/check_host.sh tests/diag/check_netns.sh tests/diag/check_links.sh
MULTIHOST_TESTS += tests/diag/check_netns.sh tests/diag/diag_netns.sh tests/diag/check_links.sh
dist_noinst_SCRIPTS += tests/diag/diag_netns.sh
dist_noinst_SCRIPTS += $(DIAG_TESTS)
