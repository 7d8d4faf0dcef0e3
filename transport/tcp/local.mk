# transport/tcp: the TCP transport (any host; no RDMA NIC needed). Its
# sources go into librtmsg; the unit test compiles them directly, so it
# drives the transport without the runtime or PMIx.

TCP_SOURCES = \
	transport/tcp/tcp.h \
	transport/tcp/tcp_am.c \
	transport/tcp/tcp_conn.c \
	transport/tcp/tcp_hs.c \
	transport/tcp/tcp_iface.c \
	transport/tcp/tcp_ifsel.c \
	transport/tcp/tcp_state.c

librtmsg_la_SOURCES += $(TCP_SOURCES)

# Unit/functional test: forked processes driving rtm_tl_tcp directly on
# 127.0.0.1, addresses exchanged through shared memory instead of PMIx.
check_PROGRAMS += tests/tcp/test_tcp
UNIT_TESTS += tests/tcp/test_tcp
tests_tcp_test_tcp_SOURCES = tests/tcp/test_tcp.c $(TCP_SOURCES)
tests_tcp_test_tcp_LDADD = runtime/librtmcfg.la common/libcommon.la

# Integration: real jobs under rtrun with RTM_TRANSPORTS=self,tcp (shm off,
# TCP carries everything on one host): ping-pong 0..16 MiB byte-checked,
# ordering, and the 8 B / 1 MiB figures.
check_PROGRAMS += tests/tcp/tcp_pingpong
tests_tcp_tcp_pingpong_LDADD = librtmsg.la
tests_tcp_tcp_pingpong_LDFLAGS = $(AM_LDFLAGS) -no-install
INTEGRATION_TESTS += tests/tcp/tcp_pingpong.sh
dist_noinst_SCRIPTS += tests/tcp/tcp_pingpong.sh

# RTM_TRANSPORTS naming a transport that is absent or unknown here: said
# once, with the reason and the transports really available.
INTEGRATION_TESTS += tests/tcp/tl_absent.sh
dist_noinst_SCRIPTS += tests/tcp/tl_absent.sh
