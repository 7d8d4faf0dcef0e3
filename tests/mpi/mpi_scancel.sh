#!/bin/bash
# mpi_scancel (MPI_Cancel of sends, MPI 3.1 3.8.4: an unmatched send is
# cancelled, its Wait returns and its receiver never sees it; a matched one
# completes) on shm as a singleton, at 2 and 3 ranks; over tcp; over verbs
# on softib. A hang meets rtrun's --timeout (or the singleton's timeout).
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
run_everywhere mpi_scancel
