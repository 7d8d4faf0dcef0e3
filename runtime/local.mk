# runtime/: the library ranks link. Other components append their sources to
# librtmsg_la_SOURCES from their own local.mk.
lib_LTLIBRARIES += librtmsg.la
include_HEADERS += include/rtmsg.h
# One file per concern, each with its private header next to it; the
# include graph is a DAG (tests/unit/runtime_layers.sh), lowest first:
#   wire.h, req (request table), match (queues), ctxid (context ids),
#   tl.h + rt.h (process state), job (PMIx), peer, credit, eager, rndv,
#   proto (the dispatcher), am (handler table), progress, comm, p2p, init.
librtmsg_la_SOURCES = \
	runtime/am.c runtime/am.h \
	runtime/comm.c runtime/comm.h \
	runtime/credit.c runtime/credit.h \
	runtime/ctxid.c runtime/ctxid.h \
	runtime/eager.c runtime/eager.h \
	runtime/init.c \
	runtime/job.c runtime/job.h \
	runtime/pmix_sock.c runtime/pmix_sock.h \
	runtime/match.c runtime/match.h \
	runtime/p2p.c \
	runtime/peer.c runtime/peer.h \
	runtime/progress.c runtime/progress.h \
	runtime/proto.c runtime/proto.h \
	runtime/request.c runtime/request.h \
	runtime/rma.c \
	runtime/rma_key.c runtime/rma_key.h \
	runtime/rndv.c runtime/rndv.h \
	runtime/state.c runtime/state.h \
	runtime/rt.h \
	runtime/runtime.h \
	runtime/tl.c runtime/tl.h \
	runtime/wire.h \
	transport/transport.h
librtmsg_la_CPPFLAGS = $(AM_CPPFLAGS) $(PMIX_CFLAGS) $(HWLOC_CFLAGS)
librtmsg_la_LIBADD = runtime/librtmcfg.la common/libcommon.la $(PMIX_LIBS) $(HWLOC_LIBS) -lpthread
# Every component's config rows (a table per component, registered with
# common's parser): data only, so rtrun, rtd, rtm_info and the unit tests
# link them without the components. rt_config.c lists them all.
noinst_LTLIBRARIES += runtime/librtmcfg.la
runtime_librtmcfg_la_SOURCES = \
	runtime/rt_config.c runtime/rt_config.h \
	transport/shm/shm_config.c transport/shm/shm_config.h \
	transport/tcp/tcp_config.c transport/tcp/tcp_config.h \
	transport/verbs/vrb_config.c transport/verbs/vrb_config.h \
	mpi/mpi_config.c mpi/mpi_config.h \
	launcher/launcher_config.c launcher/launcher_config.h
# Only the public API is exported (rtm_*, MPI_*, PMPI_*): internal names
# such as job_init must not clash with an application's own symbols.
librtmsg_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 \
	-export-symbols-regex '^(rtm_|MPI_|PMPI_|MPIX_)'

bin_PROGRAMS += rtm_info
rtm_info_SOURCES = runtime/rtm_info.c
rtm_info_CPPFLAGS = $(AM_CPPFLAGS) $(PMIX_CFLAGS) $(HWLOC_CFLAGS) $(IBVERBS_CFLAGS)
rtm_info_LDADD = librtmsg.la $(PMIX_LIBS) $(HWLOC_LIBS)

# Unit tests of runtime and common logic. They compile the sources they test
# (librtmsg exports only the public API).
check_PROGRAMS += tests/unit/test_match tests/unit/test_config
# matching links match.c alone: no global state, no protocol, no stubs
tests_unit_test_match_SOURCES = tests/unit/test_match.c runtime/match.c
tests_unit_test_match_LDADD = common/libcommon.la
# context-id slots, linked alone
check_PROGRAMS += tests/unit/test_ctxid
tests_unit_test_ctxid_SOURCES = tests/unit/test_ctxid.c runtime/ctxid.c
# active-message dispatch on corrupt messages: the protocol modules, the
# job (PMIx) stubbed in the test
check_PROGRAMS += tests/unit/test_am
tests_unit_test_am_SOURCES = tests/unit/test_am.c runtime/am.c runtime/credit.c \
	runtime/eager.c runtime/match.c runtime/peer.c runtime/request.c runtime/rndv.c
tests_unit_test_am_LDADD = runtime/librtmcfg.la common/libcommon.la
# one-sided completions per peer (runtime/rma.c over a stub transport)
check_PROGRAMS += tests/unit/test_rma
tests_unit_test_rma_SOURCES = tests/unit/test_rma.c runtime/rma.c runtime/rma_key.c
tests_unit_test_rma_LDADD = common/libcommon.la
UNIT_TESTS += tests/unit/test_rma
# the PMIx server's URI and TCP_NODELAY on its connection, linked alone
check_PROGRAMS += tests/unit/test_pmix_sock
tests_unit_test_pmix_sock_SOURCES = tests/unit/test_pmix_sock.c runtime/pmix_sock.c
UNIT_TESTS += tests/unit/test_pmix_sock
tests_unit_test_config_SOURCES = tests/unit/test_config.c
tests_unit_test_config_LDADD = runtime/librtmcfg.la common/libcommon.la
UNIT_TESTS += tests/unit/test_match tests/unit/test_config tests/unit/config_doc.sh
UNIT_TESTS += tests/unit/test_ctxid tests/unit/test_am tests/unit/layers.sh
EXTRA_DIST += tests/unit/layers.sh
EXTRA_DIST += tests/unit/config_doc.sh docs/config.md

# The runtime core's include and call graphs have no cycle.
UNIT_TESTS += tests/unit/runtime_layers.sh
EXTRA_DIST += tests/unit/runtime_layers.sh

# Idle waits spin or yield by oversubscription (RTM_IDLE_WAIT); rendezvous
# both ways on shm (RTM_RNDV_GET_BIDIR).
INTEGRATION_TESTS += tests/integration/idle_wait.sh tests/integration/rndv_bidir.sh
EXTRA_DIST += tests/integration/idle_wait.sh tests/integration/rndv_bidir.sh

# Only transports that can have work are polled (self only while a
# self-send waits: runtime/progress.c), checked by poll counters.
INTEGRATION_TESTS += tests/integration/poll_self.sh tests/integration/pmix_nodelay.sh
EXTRA_DIST += tests/integration/poll_self.sh tests/integration/pmix_nodelay.sh

# Long waits back off, yielding waits yield (runtime/progress.c).
check_PROGRAMS += tests/integration/idle_backoff
tests_integration_idle_backoff_LDADD = $(ITEST_LIBS)
tests_integration_idle_backoff_LDFLAGS = $(ITEST_LINK_FLAGS)
INTEGRATION_TESTS += tests/integration/idle_backoff.sh
EXTRA_DIST += tests/integration/idle_backoff.sh

# Communicator context ids are recycled (runtime/comm.c, runtime/ctxid.c).
check_PROGRAMS += tests/integration/comm_recycle
tests_integration_comm_recycle_LDADD = $(ITEST_LIBS)
tests_integration_comm_recycle_LDFLAGS = $(ITEST_LINK_FLAGS)
INTEGRATION_TESTS += tests/integration/comm_recycle.sh
EXTRA_DIST += tests/integration/comm_recycle.sh

# Transport choice per job shape (runtime/peer.c).
INTEGRATION_TESTS += tests/integration/transport_choice.sh
EXTRA_DIST += tests/integration/transport_choice.sh
# The environment through the config rows: no warning for the harness's
# own variables, one for a misspelt row, range errors (rtm_init, rtrun).
INTEGRATION_TESTS += tests/integration/config_env.sh
EXTRA_DIST += tests/integration/config_env.sh

# make install honours DESTDIR; the staged tree builds and runs a program.
INTEGRATION_TESTS += tests/integration/install.sh
EXTRA_DIST += tests/integration/install.sh
# (RTMTEST_, not RTM_: that prefix is the config rows', see docs/testing.md)
AM_TESTS_ENVIRONMENT += RTMTEST_LDFLAGS='$(RTM_LDFLAGS)'; export RTMTEST_LDFLAGS;
