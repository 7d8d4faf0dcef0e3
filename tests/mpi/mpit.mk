# tests/mpi/mpit.mk: (issue 14) tests of this part of the MPI binding; included by Makefile.am.
