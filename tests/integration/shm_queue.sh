#!/bin/bash
# Short existing tests through the shm transport's shared queues
# (RTM_SHM_QUEUE=shared, what auto takes past 449 local ranks), so the
# per-sender order, wildcard and probe matching, the credit protocol and the
# point-to-point collectives run with every rank's records interleaved in
# one queue per receiver: tests/integration order, probe and wildcard, and
# tests/mpi mpi_p2p, mpi_probe_credits and mpi_coll (with RTM_MPI_COLL_SHM=0,
# so the collectives' messages go through the queues too). The first job
# checks local rank 0's debug line says shared queues.
. "$top_srcdir/tests/integration/lib.sh"
t_require_rtrun
export RTM_SHM_QUEUE=shared
failed=0
np=$(t_np 4 3)
mpi_bin=$top_builddir/tests/mpi

out=$(RTM_LOG_LEVEL=debug itest_run "$np" "$ITEST_BIN/order" 2>&1) || failed=1
printf '%s\n' "$out" | grep -v '\] debug: '
printf '%s\n' "$out" | grep -q "debug: shm: segment .*: $np local ranks, $np shared queues of" ||
    { echo "FAIL: order at $np ranks: no 'shared queues' segment line" >&2; failed=1; }
itest_run 3 "$ITEST_BIN/probe" || failed=1
itest_run "$np" "$ITEST_BIN/wildcard" || failed=1
if [ -x "$mpi_bin/mpi_p2p" ]; then
    itest_run "$np" "$mpi_bin/mpi_p2p" || failed=1
    itest_run 3 "$mpi_bin/mpi_probe_credits" || failed=1
    RTM_MPI_COLL_SHM=0 itest_run "$np" "$mpi_bin/mpi_coll" || failed=1
else
    echo "SKIP (MPI): $mpi_bin/mpi_p2p not built"
fi
exit $failed
