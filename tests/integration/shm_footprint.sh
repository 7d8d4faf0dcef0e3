#!/bin/bash
# The shm segment grows linearly with the local ranks: a rank's n-1
# incoming rings share RTM_SHM_RX_BUDGET, each the largest power of two of
# bytes within budget/(n-1) (at most RTM_SHM_FIFO_SIZE, at least 4 KiB).
# With a 32 KiB budget, 3, 5 and 9 ranks get rings of 16, 8 and 4 KiB (the
# floor): the rings take exactly n x 32 KiB (n-1 is a power of two), and
# the segment that size plus a header page, a page of rank records per 64
# ranks and a 64 B control line per ring (a block of them per receiver,
# in 128 B units), page aligned; local rank 0's
# debug line "shm: segment ... of K KiB" must say so. At 9 ranks the rings
# are at their minimum (the largest active message 1016 B, the eager limit
# 760 B): tests/integration/alltoall sends every size class (eager,
# rendezvous through the ring, larger than the ring, CMA) from every rank
# to every other at once, byte-checked, and must not hang; then again with
# RTM_SHM_CMA=off, so that every rendezvous streams through the 4 KiB rings.
. "$top_srcdir/tests/integration/lib.sh"
t_require_rtrun
budget_kib=32
out=$(mktemp)
trap 'rm -f "$out"' EXIT

pages_kib() {   # bytes rounded up to 4 KiB pages, in KiB
    echo $(( ($1 + 4095) / 4096 * 4 ))
}

for n in $(t_np "3 5 9" "9"); do
    ring=$((256 * 1024))
    while [ $((ring * (n - 1))) -gt $((budget_kib * 1024)) ] && [ "$ring" -gt 4096 ]; do
        ring=$((ring / 2))
    done
    rings=$((n * (n - 1)))
    ctrl=$(( n * (((n - 1) * 64 + 127) / 128 * 128) ))
    want=$(( 4 + $(pages_kib $((n * 64))) + $(pages_kib "$ctrl") + rings * ring / 1024 ))
    echo "+ RTM_SHM_RX_BUDGET=${budget_kib}K RTM_LOG_LEVEL=debug $RTRUN -n $n --oversubscribe alltoall"
    RTM_SHM_RX_BUDGET=${budget_kib}K RTM_LOG_LEVEL=debug \
        t_job "$ITEST_JOB_TIMEOUT" "$RTRUN" -n "$n" --oversubscribe "$ITEST_BIN/alltoall" >"$out" 2>&1
    rc=$?
    grep -E 'alltoall|shm: segment|FAIL|rtrun:' "$out" | sed 's/^/  | /'
    if [ "$rc" != 0 ]; then
        t_fail "alltoall with $n ranks exited $rc"
        continue
    fi
    line=$(grep -oE "shm: segment [^ ]+ of [0-9]+ KiB: $n local ranks, [0-9]+ rings of [0-9]+ KiB" "$out")
    [ -n "$line" ] || { t_fail "$n ranks: no segment line in the debug log"; continue; }
    got=$(echo "$line" | sed -E 's/.* of ([0-9]+) KiB:.*/\1/')
    got_ring=$(echo "$line" | sed -E 's/.* rings of ([0-9]+) KiB/\1/')
    echo "  $n ranks: segment $got KiB, rings of $got_ring KiB; expected $want KiB, rings of $((ring / 1024)) KiB"
    [ "$got_ring" = $((ring / 1024)) ] || t_fail "$n ranks: rings of $got_ring KiB, expected $((ring / 1024))"
    [ "$got" = "$want" ] || t_fail "$n ranks: segment of $got KiB, expected $want"
    # linear: the rings take no more than n x budget
    [ $((rings * ring)) -le $((n * budget_kib * 1024)) ] ||
        t_fail "$n ranks: rings take $((rings * ring)) B, over $n x ${budget_kib} KiB"
done

n=$(t_np "3 5 9" "9"); n=${n##* }
echo "+ RTM_SHM_RX_BUDGET=${budget_kib}K RTM_SHM_CMA=off $RTRUN -n $n --oversubscribe alltoall"
RTM_SHM_RX_BUDGET=${budget_kib}K RTM_SHM_CMA=off \
    t_job "$ITEST_JOB_TIMEOUT" "$RTRUN" -n "$n" --oversubscribe "$ITEST_BIN/alltoall" >"$out" 2>&1
rc=$?
sed 's/^/  | /' "$out"
[ "$rc" = 0 ] || t_fail "alltoall with $n ranks, CMA off, exited $rc"
t_finish
