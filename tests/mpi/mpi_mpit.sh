#!/bin/sh
# mpi_mpit: MPI_T as a singleton, then on 2 ranks over shm, over shm with 4
# eager credits (credit stalls) and over tcp (when the build has it).
# RTM_MPI_BCAST_LARGE is set so the program sees a row's value come from
# the environment.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
export RTM_MPI_BCAST_LARGE=256K
run_np 1 mpi_mpit
(export RTM_TRANSPORTS=self,shm; run_np 2 mpi_mpit) || exit 1
(export RTM_TRANSPORTS=self,shm RTM_EAGER_CREDITS=4; run_np 2 mpi_mpit) || exit 1
if "$top_builddir/rtm_info" 2>/dev/null | grep -qE '^ +tcp +tcp:'; then
    (export RTM_TRANSPORTS=self,tcp; run_np 2 mpi_mpit) || exit 1
else
    echo "mpi_mpit: no tcp transport in this build: tcp run skipped"
fi
