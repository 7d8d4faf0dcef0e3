#!/bin/sh
# mpi_stale: a stale request handle is refused with MPI_ERR_REQUEST (1 and
# 2 ranks); under MPI_ERRORS_ARE_FATAL it ends the job naming the class.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in 1 2; do
    run_np $np mpi_stale
done
out=$("$RTRUN" -n 2 --timeout 60 "$prog_dir/mpi_stale" fatal 2>&1)
rc=$?
if [ $rc -eq 0 ]; then
    echo "FAIL: MPI_Wait on a stale handle did not end the job; output was:" >&2
    printf '%s\n' "$out" >&2
    exit 1
fi
if ! printf '%s\n' "$out" | grep -q '^rank [01] (.*): MPI_Wait: MPI_ERR_REQUEST'; then
    echo "FAIL: no error line naming MPI_Wait and MPI_ERR_REQUEST; output was:" >&2
    printf '%s\n' "$out" >&2
    exit 1
fi
