# tests/mpi/f90.mk: (issue 14) Type_create_f90_* and Comm_idup tests; included by Makefile.am.
