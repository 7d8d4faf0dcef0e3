# transport/verbs: the verbs (RDMA) transport, built when libibverbs is
# found, as a module librtmsg loads at run time (transport/registry.c) from
# $(tlmoduledir) = <libdir>/rtmsg, or from beside librtmsg.so in the build
# tree. librtmsg itself does not link libibverbs, so one installed build runs
# on hosts without rdma-core (rtm_info says why verbs is absent there).
#
# The module links librtmsg.la and uses only what librtmsg exports (rtm_*:
# rtm_log_emit/rtm_log_level, rtm_error_set/rtm_last_error, rtm_verbs_config):
# common/'s one copy, so the module logs at the job's level and reads the
# configuration the runtime loaded. It does not link common/libcommon.la,
# which would give it a second log level and a second, never-loaded config.
# It exports its ops table only. Its tests run real jobs on softib
# (tests/softib) through LD_PRELOAD, which interposes libibverbs for the
# module as it did for librtmsg.
if HAVE_IBVERBS

VERBS_SOURCES = \
	transport/verbs/vrb.h \
	transport/verbs/vrb_addr.c \
	transport/verbs/vrb_addr.h \
	transport/verbs/vrb_am.c \
	transport/verbs/vrb_async.c \
	transport/verbs/vrb_conn.c \
	transport/verbs/vrb_quiesce.c \
	transport/verbs/vrb_dev.c \
	transport/verbs/vrb_erdma.c \
	transport/verbs/vrb_iface.c \
	transport/verbs/vrb_rcache.c \
	transport/verbs/vrb_rcache.h \
	transport/verbs/vrb_rndv.c \
	transport/verbs/vrb_rma.c \
	transport/verbs/vrb_state.c \
	transport/verbs/vrb_xrc.c

tlmodule_LTLIBRARIES = librtmsg-verbs.la
librtmsg_verbs_la_SOURCES = $(VERBS_SOURCES)
librtmsg_verbs_la_CPPFLAGS = $(AM_CPPFLAGS) $(IBVERBS_CFLAGS) $(HWLOC_CFLAGS)
librtmsg_verbs_la_LIBADD = librtmsg.la $(IBVERBS_LIBS) $(HWLOC_LIBS) -lpthread
librtmsg_verbs_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared \
	-export-symbols-regex '^rtm_tl_verbs$$'
# libtool relinks the module against the installed librtmsg: install that
# first, also under make -j. (Through a variable: a literal rule of that name
# would make automake drop its own install rule.)
tlmodule_install = install-tlmoduleLTLIBRARIES
$(tlmodule_install): install-libLTLIBRARIES

# Integration: real jobs under rtrun on softib with RTM_TRANSPORTS=self,verbs.
# verbs_ondemand{,2}.sh repeat the protocol programs with on-demand connections;
# verbs_conn.sh checks connection set-up itself (crossing requests, QP counts
# of a sparse pattern, a peer that never answers).
VERBS_TESTS = \
	tests/verbs/verbs_pingpong.sh \
	tests/verbs/verbs_protocols.sh \
	tests/verbs/verbs_ondemand.sh \
	tests/verbs/verbs_ondemand2.sh \
	tests/verbs/verbs_conn.sh \
	tests/verbs/verbs_xrc.sh \
	tests/verbs/verbs_xrc2.sh
check_PROGRAMS += tests/verbs/vrb_conn
# The scaling table of docs/transports/verbs.md, from the transport's own sizes.
noinst_PROGRAMS += transport/verbs/vrb_sizes
transport_verbs_vrb_sizes_SOURCES = transport/verbs/vrb_sizes.c
transport_verbs_vrb_sizes_CPPFLAGS = $(AM_CPPFLAGS) $(IBVERBS_CFLAGS)
tests_verbs_vrb_conn_LDADD = librtmsg.la
tests_verbs_vrb_conn_LDFLAGS = $(AM_LDFLAGS) -no-install
INTEGRATION_TESTS += $(VERBS_TESTS)
# a link that drops every packet: the job ends with the peer and QP named
FAULT_TESTS += tests/verbs/verbs_wc_error.sh
dist_noinst_SCRIPTS += $(VERBS_TESTS) tests/verbs/verbs_wc_error.sh tests/verbs/verbs_lib.sh

# vrb-mem: registration cache and fault tests (programs, the malicious-peer
# module of the rkey test, drivers)
check_PROGRAMS += tests/verbs/vrb_stale tests/verbs/vrb_rkey tests/verbs/vrb_flood \
	tests/verbs/vrb_kill
tests_verbs_vrb_stale_LDADD = librtmsg.la
tests_verbs_vrb_stale_LDFLAGS = $(AM_LDFLAGS) -no-install
tests_verbs_vrb_rkey_LDADD = librtmsg.la
tests_verbs_vrb_rkey_LDFLAGS = $(AM_LDFLAGS) -no-install
tests_verbs_vrb_flood_LDADD = librtmsg.la
tests_verbs_vrb_flood_LDFLAGS = $(AM_LDFLAGS) -no-install
tests_verbs_vrb_kill_LDADD = librtmsg.la
tests_verbs_vrb_kill_LDFLAGS = $(AM_LDFLAGS) -no-install
# the cache's unit test, on softib linked in (as softib's own tests are)
check_PROGRAMS += tests/verbs/test_rcache
tests_verbs_test_rcache_SOURCES = tests/verbs/test_rcache.c transport/verbs/vrb_rcache.c
tests_verbs_test_rcache_CPPFLAGS = $(AM_CPPFLAGS) $(IBVERBS_CFLAGS)
tests_verbs_test_rcache_LDADD = softib/libsoftib.la common/libcommon.la -lpthread
UNIT_TESTS += tests/verbs/test_rcache
# open against the contract: peer_failed required, *iface_p on success only
check_PROGRAMS += tests/verbs/test_vrb_open
tests_verbs_test_vrb_open_SOURCES = tests/verbs/test_vrb_open.c $(VERBS_SOURCES)
tests_verbs_test_vrb_open_CPPFLAGS = $(AM_CPPFLAGS) $(IBVERBS_CFLAGS) $(HWLOC_CFLAGS)
tests_verbs_test_vrb_open_LDADD = softib/libsoftib.la runtime/librtmcfg.la common/libcommon.la $(HWLOC_LIBS) -lpthread
UNIT_TESTS += tests/verbs/test_vrb_open
# the module: staged install loads it; absent, unloadable or of another ABI,
# the reason is said (rtm_info, RTM_TRANSPORTS naming verbs)
check_LTLIBRARIES += tests/verbs/libvrbfakemod.la
tests_verbs_libvrbfakemod_la_SOURCES = tests/verbs/vrb_fake_module.c
tests_verbs_libvrbfakemod_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared -rpath /nowhere
INTEGRATION_TESTS += tests/verbs/vrb_module.sh
dist_noinst_SCRIPTS += tests/verbs/vrb_module.sh
# a benchmark (prints figures), not a test
check_PROGRAMS += tests/verbs/vrb_rndv_bench
tests_verbs_vrb_rndv_bench_LDADD = librtmsg.la
tests_verbs_vrb_rndv_bench_LDFLAGS = $(AM_LDFLAGS) -no-install
check_LTLIBRARIES += tests/verbs/libvrbevil.la
tests_verbs_libvrbevil_la_SOURCES = tests/verbs/vrb_evil.c
tests_verbs_libvrbevil_la_CPPFLAGS = $(AM_CPPFLAGS) $(IBVERBS_CFLAGS)
tests_verbs_libvrbevil_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared -rpath /nowhere
tests_verbs_libvrbevil_la_LIBADD = $(IBVERBS_LIBS)
VRB_MEM_TESTS = \
	tests/verbs/vrb_stale.sh \
	tests/verbs/vrb_rkey.sh \
	tests/verbs/vrb_flood.sh \
	tests/verbs/vrb_kill.sh \
	tests/verbs/vrb_async.sh \
	tests/verbs/vrb_memlock.sh
FAULT_TESTS += $(VRB_MEM_TESTS)
dist_noinst_SCRIPTS += $(VRB_MEM_TESTS)

# erdma: the eager RDMA fast path (protocol programs with it forced on and
# off, order and content of ring writes mixed with Send/Recv and reads)
check_PROGRAMS += tests/verbs/vrb_erdma_order
tests_verbs_vrb_erdma_order_LDADD = librtmsg.la
tests_verbs_vrb_erdma_order_LDFLAGS = $(AM_LDFLAGS) -no-install
check_PROGRAMS += tests/verbs/vrb_erdma_window
tests_verbs_vrb_erdma_window_LDADD = librtmsg.la
tests_verbs_vrb_erdma_window_LDFLAGS = $(AM_LDFLAGS) -no-install
# least privilege: a ring's rkey is no use to a peer it was not offered to
check_PROGRAMS += tests/verbs/vrb_erdma_rkey
tests_verbs_vrb_erdma_rkey_LDADD = librtmsg.la
tests_verbs_vrb_erdma_rkey_LDFLAGS = $(AM_LDFLAGS) -no-install
check_LTLIBRARIES += tests/verbs/libvrberdmaevil.la
tests_verbs_libvrberdmaevil_la_SOURCES = tests/verbs/vrb_erdma_evil.c
tests_verbs_libvrberdmaevil_la_CPPFLAGS = $(AM_CPPFLAGS) $(IBVERBS_CFLAGS)
tests_verbs_libvrberdmaevil_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared -rpath /nowhere
tests_verbs_libvrberdmaevil_la_LIBADD = $(IBVERBS_LIBS)
INTEGRATION_TESTS += tests/verbs/verbs_erdma.sh
FAULT_TESTS += tests/verbs/verbs_erdma_rkey.sh
dist_noinst_SCRIPTS += tests/verbs/verbs_erdma.sh tests/verbs/verbs_erdma_rkey.sh
# lead: finalize waits for the last acknowledgements (vrb_quiesce.c)
INTEGRATION_TESTS += tests/verbs/vrb_finalize.sh
dist_noinst_SCRIPTS += tests/verbs/vrb_finalize.sh

# one-sided (issue 15 phase 2): put/get/atomics/rights/WR counts on verbs
# (windows, MRs, on demand), shm and tcp; and the key misuses that must end
# the job with a remote access error
check_PROGRAMS += tests/verbs/vrb_rma
tests_verbs_vrb_rma_LDADD = librtmsg.la
tests_verbs_vrb_rma_LDFLAGS = $(AM_LDFLAGS) -no-install
INTEGRATION_TESTS += tests/verbs/vrb_rma.sh
FAULT_TESTS += tests/verbs/vrb_rma_fault.sh
dist_noinst_SCRIPTS += tests/verbs/vrb_rma.sh tests/verbs/vrb_rma_fault.sh

endif HAVE_IBVERBS

EXTRA_DIST += docs/verbs.md docs/transports/verbs.md
# vrb-mem
EXTRA_DIST += docs/transports/verbs-rcache.md
