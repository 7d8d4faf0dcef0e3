#!/bin/sh
# mpi_idup (a nonblocking MPI_Comm_idup) as a singleton and on 2, 3 and 4
# ranks; run_np's rtrun --timeout fails an idup that deadlocks.
. "$top_srcdir/tests/mpi/common.sh"
t_job 60 "$prog_dir/mpi_idup" || t_die "mpi_idup as a singleton exited $?"
require_rtrun
for np in 2 3 4; do
    run_np "$np" mpi_idup
done
