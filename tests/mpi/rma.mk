# tests/mpi/rma.mk: (issue 15) tests of one-sided communication written with the RMA engine; included by Makefile.am.
check_PROGRAMS += tests/mpi/rma_fence
tests_mpi_rma_fence_LDADD = librtmsg.la
tests_mpi_rma_fence_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/rma_fence.sh
INTEGRATION_TESTS += tests/mpi/rma_fence.sh
check_PROGRAMS += tests/mpi/rma_passive
tests_mpi_rma_passive_LDADD = librtmsg.la
tests_mpi_rma_passive_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/rma_passive.sh
INTEGRATION_TESTS += tests/mpi/rma_passive.sh
check_PROGRAMS += tests/mpi/rma_pscw
tests_mpi_rma_pscw_LDADD = librtmsg.la
tests_mpi_rma_pscw_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/rma_pscw.sh
INTEGRATION_TESTS += tests/mpi/rma_pscw.sh
dist_noinst_SCRIPTS += tests/mpi/rma_tl.sh
INTEGRATION_TESTS += tests/mpi/rma_tl.sh
check_PROGRAMS += tests/mpi/rma_shm
tests_mpi_rma_shm_LDADD = librtmsg.la
tests_mpi_rma_shm_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/rma_shm.sh
INTEGRATION_TESTS += tests/mpi/rma_shm.sh
check_PROGRAMS += tests/mpi/rma_rdma
tests_mpi_rma_rdma_LDADD = librtmsg.la
tests_mpi_rma_rdma_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/rma_rdma.sh
INTEGRATION_TESTS += tests/mpi/rma_rdma.sh
check_PROGRAMS += tests/mpi/rma_locks
tests_mpi_rma_locks_LDADD = librtmsg.la
tests_mpi_rma_locks_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/rma_locks.sh
INTEGRATION_TESTS += tests/mpi/rma_locks.sh
# One-sided across two namespace hosts (tcp and verbs on softib); its C
# code runs under the sanitizers in the drivers above.
dist_noinst_SCRIPTS += tests/multihost/rma.sh
MULTIHOST_TESTS += tests/multihost/rma.sh
NO_SANITIZER_TESTS += tests/multihost/rma.sh
