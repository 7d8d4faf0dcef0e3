# launcher/: rtrun. The job map, spawner, PMIx server glue, stdio forwarding,
# binding and CLI live in a convenience library so rtd (the per-host daemon
# of the multi-host launcher) and the unit tests reuse them.
noinst_LTLIBRARIES += launcher/librtrun.la
launcher_librtrun_la_SOURCES = \
	launcher/bind.c launcher/bind.h \
	launcher/cleanup.c launcher/cleanup.h \
	launcher/cli.c launcher/cli.h \
	launcher/daemon.h \
	launcher/engine.c launcher/engine.h \
	launcher/rtd_conn.c launcher/rtd_conn.h \
	launcher/rtd_jobdesc.c launcher/rtd_jobdesc.h \
	launcher/rtd_launch.c launcher/rtd_launch.h \
	launcher/rtd_modex.c launcher/rtd_modex.h \
	launcher/rtd_msg.c launcher/rtd_msg.h \
	launcher/rtd_node.c launcher/rtd_node.h \
	launcher/rtd_tree.c launcher/rtd_tree.h \
	launcher/rtd_wire.c launcher/rtd_wire.h \
	launcher/iof.c launcher/iof.h \
	launcher/job.c launcher/job.h \
	launcher/pmix_server.c launcher/pmix_server.h \
	launcher/report.c launcher/report.h \
	launcher/check.c launcher/check.h \
	launcher/pmix_gate.c launcher/pmix_gate.h \
	launcher/pmix_gate_accept.c launcher/pmix_gate_accept.h \
	launcher/spawn.c launcher/spawn.h
launcher_librtrun_la_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS) $(HWLOC_CFLAGS)
launcher_librtrun_la_LIBADD = runtime/librtmcfg.la common/libcommon.la $(PMIX_LIBS) $(HWLOC_LIBS)

bin_PROGRAMS += rtrun
rtrun_SOURCES = launcher/rtrun.c
rtrun_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS) $(HWLOC_CFLAGS)
rtrun_LDADD = launcher/librtrun.la common/libcommon.la $(PMIX_LIBS) $(HWLOC_LIBS)

# rtm_check: the host checklist (docs/diagnostics.md); rtrun --check runs
# it on every host of a job.
bin_PROGRAMS += rtm_check
rtm_check_SOURCES = launcher/rtm_check.c transport/shm/shm_geom.c
rtm_check_CFLAGS = $(AM_CFLAGS) $(HWLOC_CFLAGS) $(IBVERBS_CFLAGS)
rtm_check_LDADD = runtime/librtmcfg.la common/libcommon.la $(HWLOC_LIBS) $(IBVERBS_LIBS)
# rtm_linkcheck: rtrun --check's link check across hosts (one rank per host,
# over librtmsg itself, so on the job's transport).
bin_PROGRAMS += rtm_linkcheck
rtm_linkcheck_SOURCES = launcher/rtm_linkcheck.c
rtm_linkcheck_LDADD = librtmsg.la

# rtd: the per-host daemon of multi-host jobs; rtrun starts the one next
# to its own executable (same path on every host, as with a shared install).
bin_PROGRAMS += rtd
rtd_SOURCES = launcher/rtd.c
rtd_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS) $(HWLOC_CFLAGS)
rtd_LDADD = launcher/librtrun.la common/libcommon.la $(PMIX_LIBS) $(HWLOC_LIBS)

# Tests: unit tests of the parser and the map, and integration scripts that
# run $RTRUN on small PMIx client programs.
check_PROGRAMS += tests/launcher/test_cli tests/launcher/test_map \
	tests/launcher/pmix_probe
tests_launcher_test_cli_SOURCES = tests/launcher/test_cli.c
tests_launcher_test_cli_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS) $(HWLOC_CFLAGS)
tests_launcher_test_cli_LDADD = launcher/librtrun.la common/libcommon.la $(PMIX_LIBS) $(HWLOC_LIBS)
tests_launcher_test_map_SOURCES = tests/launcher/test_map.c
tests_launcher_test_map_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS) $(HWLOC_CFLAGS)
tests_launcher_test_map_LDADD = launcher/librtrun.la common/libcommon.la $(PMIX_LIBS) $(HWLOC_LIBS)
tests_launcher_pmix_probe_SOURCES = tests/launcher/pmix_probe.c
tests_launcher_pmix_probe_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS)
tests_launcher_pmix_probe_LDADD = $(PMIX_LIBS)

LAUNCHER_TEST_SH = \
	tests/launcher/basic.sh \
	tests/launcher/modex.sh \
	tests/launcher/stdio.sh \
	tests/launcher/cli.sh
# ranks that die, abort, outlive --timeout or get signals; what is left
LAUNCHER_FAULT_SH = \
	tests/launcher/failure.sh \
	tests/launcher/abort.sh \
	tests/launcher/timeout.sh \
	tests/launcher/cleanup.sh \
	tests/launcher/signals.sh
UNIT_TESTS += tests/launcher/test_cli tests/launcher/test_map
# The PMIx gate's verdict on real sockets and processes (pmix_gate.c).
check_PROGRAMS += tests/launcher/test_gate
tests_launcher_test_gate_SOURCES = tests/launcher/test_gate.c
tests_launcher_test_gate_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS)
tests_launcher_test_gate_LDADD = launcher/librtrun.la common/libcommon.la $(PMIX_LIBS) $(HWLOC_LIBS)
UNIT_TESTS += tests/launcher/test_gate
INTEGRATION_TESTS += $(LAUNCHER_TEST_SH)
FAULT_TESTS += $(LAUNCHER_FAULT_SH)
EXTRA_DIST += $(LAUNCHER_TEST_SH) $(LAUNCHER_FAULT_SH) tests/launcher/common.sh

# Multi-host tests: hosts are network namespaces made by tests/multihost/netns.sh
# (root needed, else they skip); rtd is started with `ip netns exec {host}`.
check_PROGRAMS += tests/multihost/mh_probe
tests_multihost_mh_probe_SOURCES = tests/multihost/mh_probe.c
tests_multihost_mh_probe_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS)
tests_multihost_mh_probe_LDADD = $(PMIX_LIBS)
MULTIHOST_TEST_SH = \
	tests/multihost/pmix.sh \
	tests/multihost/stdio_exit.sh \
	tests/multihost/uneven.sh \
	tests/multihost/integration_a.sh \
	tests/multihost/integration_b.sh \
	tests/multihost/failure.sh \
	tests/multihost/tree.sh \
	tests/multihost/ssh.sh
MULTIHOST_TESTS += $(MULTIHOST_TEST_SH)
EXTRA_DIST += $(MULTIHOST_TEST_SH) tests/multihost/netns.sh

# hosts helper: hostfiles and scheduler allocations (in librtrun, so rtd
# shares them), their unit tests and the --hostfile integration test.
launcher_librtrun_la_SOURCES += \
	launcher/hostfile.c launcher/hostfile.h \
	launcher/alloc.c launcher/alloc.h
check_PROGRAMS += tests/launcher/test_hostfile tests/launcher/test_alloc
tests_launcher_test_hostfile_SOURCES = tests/launcher/test_hostfile.c
tests_launcher_test_hostfile_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS) $(HWLOC_CFLAGS)
tests_launcher_test_hostfile_LDADD = launcher/librtrun.la common/libcommon.la $(PMIX_LIBS) $(HWLOC_LIBS)
tests_launcher_test_alloc_SOURCES = tests/launcher/test_alloc.c
tests_launcher_test_alloc_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS) $(HWLOC_CFLAGS)
tests_launcher_test_alloc_LDADD = launcher/librtrun.la common/libcommon.la $(PMIX_LIBS) $(HWLOC_LIBS)
UNIT_TESTS += tests/launcher/test_hostfile tests/launcher/test_alloc
INTEGRATION_TESTS += tests/launcher/hostfile.sh
MULTIHOST_TESTS += tests/launcher/hostfile_netns.sh
EXTRA_DIST += tests/launcher/hostfile.sh tests/launcher/hostfile_netns.sh

# The daemon tree's wire format: header round trip, oversized lengths,
# messages cut out of a buffer, the job description.
check_PROGRAMS += tests/launcher/test_wire
tests_launcher_test_wire_SOURCES = tests/launcher/test_wire.c
tests_launcher_test_wire_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS) $(HWLOC_CFLAGS)
tests_launcher_test_wire_LDADD = launcher/librtrun.la common/libcommon.la $(PMIX_LIBS) $(HWLOC_LIBS)
UNIT_TESTS += tests/launcher/test_wire

# Issue 12's hardening: linear hostfile reading and mapping (a work count
# and a size ratio), non-regular hostfiles refused; a rank's environment
# without a limit of our own and execve's limits said before the fork;
# degenerate command-line values.
check_PROGRAMS += tests/launcher/test_hostfile_scale tests/launcher/test_spawn
tests_launcher_test_hostfile_scale_SOURCES = tests/launcher/test_hostfile_scale.c
tests_launcher_test_hostfile_scale_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS) $(HWLOC_CFLAGS)
tests_launcher_test_hostfile_scale_LDADD = launcher/librtrun.la common/libcommon.la $(PMIX_LIBS) $(HWLOC_LIBS)
tests_launcher_test_spawn_SOURCES = tests/launcher/test_spawn.c
tests_launcher_test_spawn_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS) $(HWLOC_CFLAGS)
tests_launcher_test_spawn_LDADD = launcher/librtrun.la common/libcommon.la $(PMIX_LIBS) $(HWLOC_LIBS)
UNIT_TESTS += tests/launcher/test_hostfile_scale tests/launcher/test_spawn
INTEGRATION_TESTS += tests/launcher/degenerate.sh
EXTRA_DIST += tests/launcher/degenerate.sh
# A remote rank killed mid-stream over tcp: rtrun names it, not a survivor.
MULTIHOST_TESTS += tests/multihost/kill_stream.sh
EXTRA_DIST += tests/multihost/kill_stream.sh
