# tests/mpi/probe.mk: (issue 14) tests of this part of the MPI binding; included by Makefile.am.
# A probe or receive for a message sent behind more blocking sends than the
# eager credits, on shm, tcp and verbs (softib), and the non-overtaking order.
check_PROGRAMS += tests/mpi/mpi_probe_credits
tests_mpi_mpi_probe_credits_LDADD = librtmsg.la
tests_mpi_mpi_probe_credits_LDFLAGS = $(MPITEST_LINK_FLAGS)
dist_noinst_SCRIPTS += tests/mpi/mpi_probe.sh
INTEGRATION_TESTS += tests/mpi/mpi_probe.sh
