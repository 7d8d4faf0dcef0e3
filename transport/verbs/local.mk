# transport/verbs: the verbs (RDMA) transport, built when libibverbs is
# found. Its tests run real jobs on softib (tests/softib) through LD_PRELOAD.
if HAVE_IBVERBS

VERBS_SOURCES = \
	transport/verbs/vrb.h \
	transport/verbs/vrb_am.c \
	transport/verbs/vrb_conn.c \
	transport/verbs/vrb_quiesce.c \
	transport/verbs/vrb_dev.c \
	transport/verbs/vrb_erdma.c \
	transport/verbs/vrb_iface.c \
	transport/verbs/vrb_rndv.c \
	transport/verbs/vrb_xrc.c

librtmsg_la_SOURCES += $(VERBS_SOURCES)

# vrb-mem: the rendezvous registration cache, device async events
librtmsg_la_SOURCES += \
	transport/verbs/vrb_async.c \
	transport/verbs/vrb_rcache.c \
	transport/verbs/vrb_rcache.h
librtmsg_la_CPPFLAGS += $(IBVERBS_CFLAGS)
librtmsg_la_LIBADD += $(IBVERBS_LIBS)

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

endif HAVE_IBVERBS

EXTRA_DIST += docs/verbs.md docs/transports/verbs.md
# vrb-mem
EXTRA_DIST += docs/transports/verbs-rcache.md
