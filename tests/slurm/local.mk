# tests/slurm/ and tests/extpmix/: rtmsg programs (tests/integration's,
# built by tests/local.mk) under PMIx servers that are not rtrun's, and rtrun
# inside a scheduler's allocation. The Slurm tests each start a one-node
# cluster of their own (tests/slurm/cluster.sh, ~2 s; multinode.sh a 2-node
# one on network namespaces) and skip (77) when
# Slurm is missing or cannot start here; openmpi.sh skips without mpirun.
SCHED_TEST_DRIVERS = \
	tests/slurm/srun_pmix.sh \
	tests/slurm/sbatch_rtrun.sh \
	tests/slurm/salloc_rtrun.sh \
	tests/slurm/multinode.sh \
	tests/extpmix/openmpi.sh \
	tests/extpmix/keys.sh
dist_noinst_SCRIPTS += $(SCHED_TEST_DRIVERS) tests/slurm/cluster.sh tests/extpmix/lib.sh
SCHED_TESTS += $(SCHED_TEST_DRIVERS)

# A minimal PMIx server that describes the job with keys missing or typed
# differently (tests/extpmix/keys.sh).
check_PROGRAMS += tests/extpmix/pmix_mini_server
tests_extpmix_pmix_mini_server_SOURCES = tests/extpmix/pmix_mini_server.c
tests_extpmix_pmix_mini_server_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS)
tests_extpmix_pmix_mini_server_LDADD = $(PMIX_LIBS)
