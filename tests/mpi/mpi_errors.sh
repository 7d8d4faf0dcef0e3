#!/bin/sh
# mpi_errors on 1 (singleton), 2, 3 and 4 ranks.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in 1 2 3 4; do
    run_np $np mpi_errors
done
# Under MPI_ERRORS_ARE_FATAL an invalid rank ends the job with one line
# naming the rank, host, function and error class.
out=$("$RTRUN" -n 2 --timeout 60 "$prog_dir/mpi_errors" fatal 2>&1)
rc=$?
if [ $rc -eq 0 ]; then
    echo "FAIL: the fatal error did not end the job" >&2
    exit 1
fi
if ! printf '%s\n' "$out" | grep -q '^rank 0 (.*): MPI_Send: MPI_ERR_RANK: invalid rank'; then
    echo "FAIL: no error line naming MPI_Send and MPI_ERR_RANK; output was:" >&2
    printf '%s\n' "$out" >&2
    exit 1
fi
