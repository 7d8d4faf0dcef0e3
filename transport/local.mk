# transport/: the transport contract (transport.h) and the self and shm
# transports; tcp and verbs have their own local.mk beside their sources.
# self, shm and tcp go into librtmsg; verbs is a module loaded at run time
# (transport/verbs/local.mk). The unit tests compile the same sources
# directly, so they exercise the transports without the runtime or PMIx.

# The status codes stand alone so the contract needs no public header.
include_HEADERS += include/rtm_status.h

SELF_SOURCES = \
	transport/self/self.c

SHM_SOURCES = \
	transport/shm/shm.h \
	transport/shm/shm_cma.c \
	transport/shm/shm_split.c \
	transport/shm/shm_fifo.h \
	transport/shm/shm_geom.c \
	transport/shm/shm_iface.c \
	transport/shm/shm_load.c \
	transport/shm/shm_seg.c \
	transport/shm/shm_state.c

librtmsg_la_SOURCES += $(SELF_SOURCES) $(SHM_SOURCES)
# what the runtime's eager send uses of shm: the direct path into the rings
librtmsg_la_SOURCES += transport/shm/shm_direct.h
# which transports exist here: the built-in ones and the modules
librtmsg_la_SOURCES += transport/registry.c transport/registry.h

# Unit tests: forked processes driving rtm_tl_shm / rtm_tl_self directly,
# exchanging addresses through a pipe instead of PMIx.
check_PROGRAMS += tests/unit/test_shm_ring tests/unit/test_shm_queue tests/unit/test_shm_fifo \
	tests/unit/test_shm_self
UNIT_TESTS += tests/unit/test_shm_ring tests/unit/test_shm_queue tests/unit/test_shm_fifo \
	tests/unit/test_shm_self
noinst_HEADERS += tests/unit/test_shm_util.h

# the ring alone, producer and consumer threads (also meant for TSan)
tests_unit_test_shm_ring_SOURCES = tests/unit/test_shm_ring.c transport/shm/shm_fifo.h
tests_unit_test_shm_ring_CFLAGS = $(AM_CFLAGS) -pthread
tests_unit_test_shm_ring_LDFLAGS = $(AM_LDFLAGS) -pthread
# the shared queue alone: producer threads and a consumer; and the
# segment's geometry (which mode auto picks, sizes)
tests_unit_test_shm_queue_SOURCES = tests/unit/test_shm_queue.c transport/shm/shm_fifo.h \
	transport/shm/shm_geom.c
tests_unit_test_shm_queue_CFLAGS = $(AM_CFLAGS) -pthread
tests_unit_test_shm_queue_LDFLAGS = $(AM_LDFLAGS) -pthread
tests_unit_test_shm_queue_LDADD = runtime/librtmcfg.la common/libcommon.la
tests_unit_test_shm_fifo_SOURCES = tests/unit/test_shm_fifo.c $(SHM_SOURCES)
tests_unit_test_shm_fifo_LDADD = runtime/librtmcfg.la common/libcommon.la
tests_unit_test_shm_self_SOURCES = tests/unit/test_shm_self.c $(SELF_SOURCES)
tests_unit_test_shm_self_LDADD = runtime/librtmcfg.la common/libcommon.la

# Micro-benchmark (prints figures; not a test): 8 B ping-pong half round
# trip through the rings, and ring copy vs CMA bandwidth by message size.
noinst_PROGRAMS += transport/shm/bench_shm
transport_shm_bench_shm_SOURCES = transport/shm/bench_shm.c $(SHM_SOURCES)
transport_shm_bench_shm_LDADD = runtime/librtmcfg.la common/libcommon.la

# Integration: the shm transport picks CMA or the ring copy by size and the
# host's load (RTM_SHM_LOAD forced), every byte checked.
INTEGRATION_TESTS += tests/integration/cma_load.sh
EXTRA_DIST += tests/integration/cma_load.sh
# Integration: short point-to-point, probe and collective tests through the
# shared queues (RTM_SHM_QUEUE=shared)
INTEGRATION_TESTS += tests/integration/shm_queue.sh
EXTRA_DIST += tests/integration/shm_queue.sh
