# tests/mpi/rma.mk: (issue 15) tests of one-sided communication written with the RMA engine; included by Makefile.am.
