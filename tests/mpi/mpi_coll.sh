#!/bin/sh
# mpi_coll, blocking and nonblocking, on 1 to 5 and 8 ranks: power-of-two
# and other sizes take different paths in every algorithm. Then, on 3 and 4
# ranks, every size once with the switch points at their extremes, so each
# collective runs both of its algorithms at every size (RTM_MPI_*, see
# docs/collectives.md).
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in 1 2 3 4 5 8; do
    run_np $np mpi_coll
    run_np $np mpi_coll nb
done
large_algs="RTM_MPI_BCAST_LARGE=1 RTM_MPI_REDUCE_LARGE=1 RTM_MPI_ALLREDUCE_RING=1 RTM_MPI_ALLGATHER_RING=1 RTM_MPI_ALLTOALL_PAIRWISE=1"
small_algs="RTM_MPI_BCAST_LARGE=1G RTM_MPI_REDUCE_LARGE=1G RTM_MPI_ALLREDUCE_RING=1G RTM_MPI_ALLGATHER_RING=1G RTM_MPI_ALLTOALL_PAIRWISE=1G"
# 3 ranks blocking, 4 ranks nonblocking (and without the scratch cache):
# a non-power-of-two and a power-of-two size, both entry points
for setting in "$large_algs" "$small_algs"; do
    # shellcheck disable=SC2086  # one word per variable
    env $setting sh -c ". \"$top_srcdir/tests/mpi/common.sh\"; run_np 3 mpi_coll" || exit 1
    env $setting RTM_MPI_COLL_SCRATCH=0 sh -c ". \"$top_srcdir/tests/mpi/common.sh\"; run_np 4 mpi_coll nb" || exit 1
done
# Alltoall(v,w) picks its algorithm by each rank's own view of its host
# (RTM_MPI_ALLTOALL_PAIRWISE_OVERSUB where the host is oversubscribed):
# rank 0 yielding (oversubscribed: every transfer posted at once), the
# others spinning (pairwise from 1 byte) must still meet, blocking and
# nonblocking, since both algorithms send the same messages.
for mode in "" nb; do
    "$RTRUN" -n 3 --oversubscribe --timeout 120 sh -c \
        'if [ "$PMIX_RANK" = 0 ]; then RTM_IDLE_WAIT=yield; else RTM_IDLE_WAIT=spin; fi
         export RTM_IDLE_WAIT RTM_MPI_ALLTOALL_PAIRWISE=1; exec "$1" $2' sh "$prog_dir/mpi_coll" "$mode" ||
        { echo "FAIL: mpi_coll $mode with rank 0 oversubscribed and the others not" >&2; exit 1; }
done
