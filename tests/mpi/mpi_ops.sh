#!/bin/sh
# mpi_ops (tests/mpi/mpi_ops.c): the op kernels as a singleton; then which
# path a 64 KiB MPI_Allreduce (and an Allgather of 64 KiB blocks) takes.
# RTM_IDLE_WAIT decides whether a rank
# counts its host as oversubscribed (yield: yes, spin: no); the job takes
# shared memory up to RTM_MPI_ALLREDUCE_SHM_MAX_OVERSUB (128K, or
# RTM_MPI_ALLREDUCE_SHM_MAX if larger) when rank 0
# does, whatever the others think, and the ring above
# RTM_MPI_ALLREDUCE_SHM_MAX (32K) otherwise. Ranks that disagree would
# hang (some in the segment, some in the ring) if each followed its own view.
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
run_np 1 mpi_ops
RTM_IDLE_WAIT=spin run_np 2 mpi_ops ring
RTM_IDLE_WAIT=yield run_np 2 mpi_ops shm
RTM_IDLE_WAIT=yield run_np 3 mpi_ops shm
# one view at rank 0, the other everywhere else
wrap="$prog_dir/mpi_ops"
for r0 in yield spin; do
    other=spin; want=shm
    [ $r0 = spin ] && { other=yield; want=ring; }
    "$RTRUN" -n 3 --oversubscribe --timeout 120 sh -c \
        'if [ "$PMIX_RANK" = 0 ]; then RTM_IDLE_WAIT=$1; else RTM_IDLE_WAIT=$2; fi
         export RTM_IDLE_WAIT; exec "$3" "$4"' sh $r0 $other "$wrap" $want ||
        { echo "FAIL: mpi_ops with RTM_IDLE_WAIT=$r0 at rank 0, $other elsewhere" >&2; exit 1; }
done
echo "PASS: mpi_ops"
