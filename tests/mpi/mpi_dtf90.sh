#!/bin/sh
# mpi_dtf90 (MPI_Type_create_f90_*, MPI_Type_match_size) as a singleton and
# on 2 ranks. The singleton runs under timeout(1): a finalize that cannot
# free the f90 types never returns.
. "$top_srcdir/tests/mpi/common.sh"
t_job 60 "$prog_dir/mpi_dtf90" || t_die "mpi_dtf90 as a singleton exited $?"
require_rtrun
run_np 2 mpi_dtf90
