# tests/mpi/rma_suite.mk: (issue 15) the one-sided conformance suite, checked against Open MPI and MPICH; included by Makefile.am.
