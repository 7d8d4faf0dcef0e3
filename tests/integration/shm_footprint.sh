#!/bin/bash
# The shm segment grows linearly with the local ranks. Pair rings
# (RTM_SHM_QUEUE=pair, and auto at these sizes): a rank's n-1 incoming
# rings share RTM_SHM_RX_BUDGET, each the largest power of two of bytes
# within budget/(n-1) (at most RTM_SHM_FIFO_SIZE, at least 4 KiB). With a
# 32 KiB budget, 3, 5 and 9 ranks get rings of 16, 8 and 4 KiB (the floor):
# the rings take exactly n x 32 KiB (n-1 is a power of two), and the
# segment that size plus a header page, a page of rank records per 64 ranks,
# a page of split-read slots per rank and a 64 B control line per ring (a block of them per receiver, in 128 B
# units), page aligned; local rank 0's debug line "shm: segment ... of K
# KiB" must say so. At 9 ranks the rings are at their minimum (the largest
# active message 1016 B, the eager limit 760 B): tests/integration/alltoall
# sends every size class (eager, rendezvous through the ring, larger than
# the ring, CMA) from every rank to every other at once, byte-checked, and
# must not hang; then again with RTM_SHM_CMA=off, so that every rendezvous
# streams through the 4 KiB rings.
# Shared queues (RTM_SHM_QUEUE=shared, which auto takes past 449 ranks at
# the default budget), at 3 and 9 ranks: one queue per rank of the whole
# budget (32 KiB), a 256 B control block per rank: the segment is a header
# page, the rank records, a page of split-read slots per rank, the control
# blocks page aligned, and n x 32 KiB;
# the same all-to-all, and again with RTM_SHM_CMA=off (every rendezvous
# fragment through queues that 8 senders share).
. "$top_srcdir/tests/integration/lib.sh"
t_require_rtrun
budget_kib=32
out=$(mktemp)
trap 'rm -f "$out"' EXIT

pages_kib() {   # bytes rounded up to 4 KiB pages, in KiB
    echo $(( ($1 + 4095) / 4096 * 4 ))
}

# check_run MODE N [VAR=VALUE...]: alltoall at N ranks under RTM_SHM_QUEUE=MODE
# and the 32 KiB budget; the segment line checked against the formula.
check_run() {
    local mode=$1 n=$2 ring rings ctrl want line got got_ring what rc
    shift 2
    if [ "$mode" = shared ]; then
        ring=$((budget_kib * 1024)); rings=$n; ctrl=$((n * 256)); what="shared queues"
    else
        ring=$((256 * 1024))
        while [ $((ring * (n - 1))) -gt $((budget_kib * 1024)) ] && [ "$ring" -gt 4096 ]; do
            ring=$((ring / 2))
        done
        rings=$((n * (n - 1)))
        ctrl=$(( n * (((n - 1) * 64 + 127) / 128 * 128) )); what=rings
    fi
    want=$(( 4 + $(pages_kib $((n * 64))) + n * 4 + $(pages_kib "$ctrl") + rings * ring / 1024 ))
    echo "+ RTM_SHM_QUEUE=$mode RTM_SHM_RX_BUDGET=${budget_kib}K ${*:+$* }RTM_LOG_LEVEL=debug $RTRUN -n $n --oversubscribe alltoall"
    (
        export RTM_SHM_QUEUE="$mode" RTM_SHM_RX_BUDGET=${budget_kib}K RTM_LOG_LEVEL=debug
        for kv in "$@"; do export "${kv?}"; done
        t_job "$ITEST_JOB_TIMEOUT" "$RTRUN" -n "$n" --oversubscribe "$ITEST_BIN/alltoall"
    ) >"$out" 2>&1
    rc=$?
    grep -E 'alltoall|shm: segment|FAIL|rtrun:|error' "$out" | sed 's/^/  | /'
    if [ "$rc" != 0 ]; then
        t_fail "$mode, $n ranks${*:+, $*}: alltoall exited $rc"
        return
    fi
    line=$(grep -oE "shm: segment [^ ]+ of [0-9]+ KiB: $n local ranks, [0-9]+ $what of [0-9]+ KiB" "$out")
    [ -n "$line" ] || { t_fail "$mode, $n ranks: no segment line with $what in the debug log"; return; }
    got=$(echo "$line" | sed -E 's/.* of ([0-9]+) KiB:.*/\1/')
    got_ring=$(echo "$line" | sed -E 's/.* of ([0-9]+) KiB$/\1/')
    echo "  $mode, $n ranks: segment $got KiB, $what of $got_ring KiB; expected $want KiB, of $((ring / 1024)) KiB"
    [ "$got_ring" = $((ring / 1024)) ] || t_fail "$mode, $n ranks: $what of $got_ring KiB, expected $((ring / 1024))"
    [ "$got" = "$want" ] || t_fail "$mode, $n ranks: segment of $got KiB, expected $want"
    # linear: the rings or queues take no more than n x budget
    [ $((rings * ring)) -le $((n * budget_kib * 1024)) ] ||
        t_fail "$mode, $n ranks: $what take $((rings * ring)) B, over $n x ${budget_kib} KiB"
}

for n in $(t_np "3 5 9" "9"); do
    check_run pair "$n"
done
for n in $(t_np "3 9" "9"); do
    check_run shared "$n"
done
n=$(t_np "3 5 9" "9"); n=${n##* }
check_run pair "$n" RTM_SHM_CMA=off
check_run shared "$n" RTM_SHM_CMA=off
t_finish
