#!/bin/sh
# mpi_collfix (tests/mpi/mpi_collfix.c says what each mode checks):
# zero and args, blocking and nonblocking, as a singleton and on 2, 3 and 4
# ranks; many nonblocking collectives at once on 1, 2 and 4 ranks; then each
# fatal case on 3 ranks: the job must end with the one line of the default
# handler naming the rank that erred and its host, not hang (rtrun's
# --timeout would end it otherwise, and the line would be missing).
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in 1 2 3 4; do
    run_np $np mpi_collfix zero
    run_np $np mpi_collfix zero nb
    run_np $np mpi_collfix args
    run_np $np mpi_collfix args nb
done
for np in 1 2 4; do
    run_np $np mpi_collfix many 3000
done
host=$(hostname)
for c in "scatterv-root 0 MPI_Scatterv: MPI_ERR_COUNT" \
         "gather-inplace 1 MPI_Gather: MPI_ERR_BUFFER" \
         "ibcast-null 1 MPI_Ibcast: MPI_ERR_BUFFER"; do
    set -- $c
    name=$1 rank=$2
    shift 2
    want="rank $rank ($host): $*"
    out=$("$RTRUN" -n 3 --oversubscribe --timeout 120 "$prog_dir/mpi_collfix" fatal "$name" 2>&1)
    rc=$?
    if [ $rc -eq 0 ]; then
        echo "FAIL: fatal case $name: the job exited 0; output was:" >&2
        printf '%s\n' "$out" >&2
        exit 1
    fi
    if ! printf '%s\n' "$out" | grep -qF "$want"; then
        echo "FAIL: fatal case $name: no line '$want'; exit code $rc, output was:" >&2
        printf '%s\n' "$out" >&2
        exit 1
    fi
    if printf '%s\n' "$out" | grep -qi 'timeout\|timed out'; then
        echo "FAIL: fatal case $name: the job ran into rtrun's --timeout; output was:" >&2
        printf '%s\n' "$out" >&2
        exit 1
    fi
done
echo "PASS: mpi_collfix"
