# mpi/fortran/local.mk: (issue 16) the Fortran bindings: C entry points, mpif.h, the mpi and mpi_f08 modules, mpifort; included by Makefile.am.
