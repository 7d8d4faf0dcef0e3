# transport/verbs: the verbs (RDMA) transport, built when libibverbs is
# found. Its tests run real jobs on softib (tests/softib) through LD_PRELOAD.
if HAVE_IBVERBS

VERBS_SOURCES = \
	transport/verbs/vrb.h \
	transport/verbs/vrb_am.c \
	transport/verbs/vrb_dev.c \
	transport/verbs/vrb_iface.c \
	transport/verbs/vrb_rndv.c

librtmsg_la_SOURCES += $(VERBS_SOURCES)
librtmsg_la_CPPFLAGS += $(IBVERBS_CFLAGS)
librtmsg_la_LIBADD += $(IBVERBS_LIBS)

# Integration: real jobs under rtrun on softib with RTM_TRANSPORTS=self,verbs.
VERBS_TESTS = \
	tests/verbs/verbs_pingpong.sh \
	tests/verbs/verbs_protocols.sh \
	tests/verbs/verbs_wc_error.sh
TESTS += $(VERBS_TESTS)
dist_noinst_SCRIPTS += $(VERBS_TESTS) tests/verbs/verbs_lib.sh

endif HAVE_IBVERBS

EXTRA_DIST += docs/verbs.md
