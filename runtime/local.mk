# runtime/: the library ranks link. Other components append their sources to
# librtmsg_la_SOURCES from their own local.mk.
lib_LTLIBRARIES += librtmsg.la
include_HEADERS += include/rtmsg.h
librtmsg_la_SOURCES = \
	runtime/comm.c \
	runtime/init.c \
	runtime/job.c \
	runtime/match.c \
	runtime/p2p.c \
	runtime/peer.c \
	runtime/progress.c \
	runtime/proto.h \
	runtime/recv.c \
	runtime/request.c \
	runtime/rndv.c \
	runtime/runtime.h \
	runtime/send.c \
	runtime/tl.c \
	transport/transport.h
librtmsg_la_CPPFLAGS = $(AM_CPPFLAGS) $(PMIX_CFLAGS) $(HWLOC_CFLAGS)
librtmsg_la_LIBADD = common/libcommon.la $(PMIX_LIBS) $(HWLOC_LIBS) -lpthread
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
tests_unit_test_match_SOURCES = tests/unit/test_match.c runtime/match.c runtime/request.c
tests_unit_test_match_LDADD = common/libcommon.la
tests_unit_test_config_SOURCES = tests/unit/test_config.c
tests_unit_test_config_LDADD = common/libcommon.la
UNIT_TESTS += tests/unit/test_match tests/unit/test_config tests/unit/config_doc.sh
EXTRA_DIST += tests/unit/config_doc.sh docs/config.md

# Idle waits spin or yield by oversubscription (RTM_IDLE_WAIT); rendezvous
# both ways on shm (RTM_RNDV_GET_BIDIR).
INTEGRATION_TESTS += tests/integration/idle_wait.sh tests/integration/rndv_bidir.sh
EXTRA_DIST += tests/integration/idle_wait.sh tests/integration/rndv_bidir.sh

# Transport choice per job shape (runtime/peer.c).
INTEGRATION_TESTS += tests/integration/transport_choice.sh
EXTRA_DIST += tests/integration/transport_choice.sh

# make install honours DESTDIR; the staged tree builds and runs a program.
INTEGRATION_TESTS += tests/integration/install.sh
EXTRA_DIST += tests/integration/install.sh
AM_TESTS_ENVIRONMENT += RTM_TEST_LDFLAGS='$(RTM_LDFLAGS)'; export RTM_TEST_LDFLAGS;
