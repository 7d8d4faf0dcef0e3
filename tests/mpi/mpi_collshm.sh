#!/bin/sh
# mpi_collshm (tests/mpi/mpi_collshm.c): the shared-memory collectives'
# data and segments on 1 to 4 ranks; with RTM_MPI_COLL_SHM=0 (the point-to-
# point algorithms, no segment); over tcp alone (no segment, agreed); with
# the smallest chunk and every Allreduce
# split among the ranks (and through shared memory at every size, whatever
# RTM_MPI_ALLREDUCE_SHM_MAX says by default; Allgather too), so Bcast, Reduce,
# Allreduce and Allgather take many steps and writers run ahead of readers. Then the idle policy: 2 ranks forced to
# yield, a second of shm collectives (short waits, no transport traffic)
# must not have rank 0 sleep in the back-off of long waits (each wait's
# clock starts with the wait; before, the clock ran from the last transport
# event and every later short wait slept, e.g. Reduce 8 B took 450 us).
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
for np in $(t_np "1 2 3 4 8" "1 3"); do   # the sanitizer pass: 1 and 3
    run_np $np mpi_collshm data 1
done
RTM_MPI_COLL_SHM=0 run_np 3 mpi_collshm data 0
# no shm transport: rank 0 cannot make the segment, and all agree to go without
RTM_TRANSPORTS=self,tcp run_np 3 mpi_collshm data 0
for np in $(t_np "2 3" "3"); do
    RTM_MPI_COLL_SHM_CHUNK=4K RTM_MPI_ALLREDUCE_SHM_SPLIT=0 RTM_MPI_ALLREDUCE_SHM_MAX=1G \
        RTM_MPI_ALLGATHER_SHM_MAX=1G run_np $np mpi_collshm data 1
done
# 2 ranks: a Bcast of 256 KiB goes as one message (RTM_MPI_BCAST_SHM_MAX_PAIR,
# 32K), which the shm transport splits between its two ranks: each rank,
# receiving twice, splits reads; with the pair limit at 1G everything goes
# through the segment and no read is split. Both byte-checked, with Reduce
# of 1 MiB (point-to-point above RTM_MPI_REDUCE_SHM_MAX_PAIR).
pair_splits() {   # ENV...: prints rank 0's and rank 1's split reads, or "nocma"
    local out
    out=$(env "$@" RTM_LOG_LEVEL=debug "$RTRUN" -n 2 --timeout 120 "$prog_dir/mpi_collshm" pair 2>&1) || {
        printf '%s\n' "$out" | grep -v '\] debug: ' >&2
        echo "FAIL: mpi_collshm pair $* failed" >&2
        return 1
    }
    printf '%s\n' "$out" | grep 'reads split' >&2
    if printf '%s\n' "$out" | grep -q 'CMA refused\|CMA off\|CMA not probed (no peer'; then
        echo nocma
        return 0
    fi
    for r in 0 1; do
        printf '%s\n' "$out" |
            sed -n "s/^\[[^]]*:$r\] debug: shm: \([0-9]*\) reads split with their senders.*/\1/p"
    done | tr '\n' ' '
}
s=$(pair_splits RTM_SHM_CMA_SPLIT=64K) || exit 1
if [ "$s" = nocma ]; then
    echo "CMA unavailable: the pair split check is skipped"
else
    set -- $s
    if [ "${1:-0}" -lt 1 ] || [ "${2:-0}" -lt 1 ]; then
        echo "FAIL: 2-rank Bcast of 256 KiB: split reads ${1:-?} and ${2:-?}; want one message per Bcast, split" >&2
        exit 1
    fi
    s=$(pair_splits RTM_SHM_CMA_SPLIT=64K RTM_MPI_BCAST_SHM_MAX_PAIR=1G RTM_MPI_REDUCE_SHM_MAX_PAIR=1G) || exit 1
    set -- $s
    if [ "${1:-x}" != 0 ] || [ "${2:-x}" != 0 ]; then
        echo "FAIL: 2-rank Bcast and Reduce through the segment: split reads ${1:-?} and ${2:-?}; want none" >&2
        exit 1
    fi
fi
# A rank killed while the segment's file still has a name (rank 0 made it,
# rank 1 never attached) leaves no file: it is named /rtm-<nspace>-coll-*,
# which rtrun deletes at the end of the job. Before, /rtmpi-coll-* outlived
# the job.
out=$("$RTRUN" -n 2 --timeout 120 "$prog_dir/mpi_collshm" leak 2>&1)
rc=$?
seg=$(printf '%s\n' "$out" | sed -n 's/^segment \(\/dev\/shm\/[^ ]*\)$/\1/p' | head -n 1)
if [ $rc -eq 0 ] || [ -z "$seg" ]; then
    printf '%s\n' "$out" >&2
    echo "FAIL: mpi_collshm leak: want rank 1's exit 3 and the segment's name (rc $rc)" >&2
    exit 1
fi
if [ -e "$seg" ]; then
    rm -f "$seg"
    echo "FAIL: $seg outlived its job (rank 1 left while rank 0 held it)" >&2
    exit 1
fi
# The counters cover the whole job: under a sanitizer a rank's start or exit
# can keep the other waiting past 0.5 s, and that wait rightly sleeps.
if [ "${RTMTEST_SANITIZER_PASS:-0}" = 1 ]; then
    echo "PASS: mpi_collshm (the idle check runs without sanitizers only)"
    exit 0
fi
out=$(RTM_IDLE_WAIT=yield RTM_LOG_LEVEL=debug "$RTRUN" -n 2 --oversubscribe --timeout 120 \
      "$prog_dir/mpi_collshm" idle 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
    printf '%s\n' "$out" | grep -v '\] debug: ' >&2
    echo "FAIL: mpi_collshm idle exited $rc" >&2
    exit 1
fi
sleeps=$(printf '%s\n' "$out" |
         sed -n 's/^\[[^]]*:0\] debug: idle waits: [0-9]* yields, \([0-9]*\) back-off sleeps.*/\1/p')
if [ -z "$sleeps" ] || [ "$sleeps" -ne 0 ]; then
    printf '%s\n' "$out" | grep 'idle waits' >&2
    echo "FAIL: a second of short shm waits: rank 0 slept ${sleeps:-?} times in the back-off; want 0" >&2
    exit 1
fi
echo "PASS: mpi_collshm"
