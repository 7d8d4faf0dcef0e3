# tests/fortran/local.mk: (issue 16) Fortran tests and the Fortran examples; included by Makefile.am.
