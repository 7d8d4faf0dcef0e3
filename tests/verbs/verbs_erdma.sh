#!/bin/bash
# Eager RDMA fast path (issue 5): small messages written into the receiver's
# per-peer ring by RDMA Write, the rest by Send/Recv or RDMA Read, in order.
#  1. protocol programs of verbs_protocols.sh with the fast path on from the
#     first message (RTM_VERBS_ERDMA_THRESHOLD=1): order (4 ranks) and
#     unexpected (2); verbs_protocols.sh runs them all with the default
#     threshold (16);
#  2. vrb_erdma_order: floods of small messages with larger eager and
#     rendezvous ones interleaved, a receiver that lets the rings fill, exact
#     order and content checked; the debug log must show messages carried by
#     ring writes AND Sends in between (both paths, one order), with rings
#     of 4 KiB, too small for the flood (the default 256 KiB ring holds
#     nearly all of it); once more with 2-slot rings of 4 KiB slots (falls back to Send/Recv all the time; the
#     writes too large to go inline take bounce buffers), and with the fast
#     path off (no ring at all);
#  3. vrb_erdma_window: windows of messages to every peer at once. 4 ranks,
#     16 messages of 256 B per peer (a 4-rank MPI_Alltoall of 64 ints), and
#     2 ranks, 64 of 8 B (osu_p2p's bandwidth window): with the default ring
#     nearly all of them (>= 90% once the ring is set up) must go by RDMA
#     Write, the ring's cells holding the whole window; before, 256 B did
#     not fit a 256 B slot and 32 slots held half a window, so such traffic
#     went by Send/Recv through the peer's receive queue (issue 17's
#     alltoall gap). Then lengths of 1..8000 B in windows of 64 (writes of
#     every size sharing a ring, wrapping at its end), every byte checked.
#  4. CQ polls per progress call (issue 17): 2 ranks exchanging 8 B messages
#     one at a time, every message by ring write (RTM_VERBS_ERDMA_THRESHOLD=1).
#     The design polls the CQ at 1 in VRB_CQ_POLL_EVERY (16) calls, and at
#     every call for VRB_CQ_HOT_PASSES (1024) after each receive completion
#     (the few Sends before the ring); so each rank's polls less 1024 per
#     receive completion must stay below 1 in 4 of its progress calls, at any
#     speed. Before, every call polled it. With the fast path off every call
#     from the first receive completion on must poll it (the peer sends by
#     Send: the CQ is the only way its messages arrive).
. "$top_srcdir/tests/verbs/verbs_lib.sh"
failed=0
log=$VRB_TMP/log
ORDER="$top_builddir/tests/verbs/vrb_erdma_order"

echo "== RTM_VERBS_ERDMA_THRESHOLD=1: protocol programs"
for run in order:4 unexpected:2; do
    RTM_VERBS_ERDMA_THRESHOLD=1 vrb_run "${run#*:}" "$ITEST_BIN/${run%:*}" || failed=1
done

# erdma_order MODE N WANT_RINGS [ENV...]: run the order program, check its
# verdict and whether ring writes and interleaved Sends happened
erdma_order() {
    local mode=$1 n=$2 want=$3 writes sends
    shift 3
    echo "== vrb_erdma_order, $n ranks, $mode"
    env "$@" RTM_LOG_LEVEL=debug LD_PRELOAD="$VRB_PRELOAD" \
        timeout -k 5 60 "$RTRUN" -n "$n" --oversubscribe "$ORDER" 1000 >"$log" 2>&1 || {
        echo "FAIL: $mode: rtrun exit $?" >&2; grep -v debug "$log" | tail -n 20 >&2
        failed=1; return; }
    grep -c 'received intact and in order' "$log" | grep -q '^1$' || {
        echo "FAIL: $mode: no verdict from the receiver" >&2; failed=1; }
    writes=$(sed -n 's/.*eager RDMA ring of rank [0-9]*: \([0-9]*\) messages by RDMA Write, \([0-9]*\) by Send.*/\1/p' "$log" |
             awk '{s += $1} END {print s + 0}')
    sends=$(sed -n 's/.*eager RDMA ring of rank [0-9]*: \([0-9]*\) messages by RDMA Write, \([0-9]*\) by Send.*/\2/p' "$log" |
            awk '{s += $1} END {print s + 0}')
    echo "  | $(grep -h 'vrb_erdma_order:' "$log" | tr '\n' ' ')"
    echo "  | ring writes delivered: $writes, Sends interleaved with them: $sends"
    if [ "$want" = yes ] && { [ "$writes" -lt 500 ] || [ "$sends" -lt 100 ]; }; then
        echo "FAIL: $mode: expected both paths in use (>= 500 ring writes, >= 100 Sends)" >&2
        failed=1
    fi
    if [ "$want" = no ] && grep -q 'eager RDMA ring' "$log"; then
        echo "FAIL: $mode: a ring was set up with the fast path off" >&2
        failed=1
    fi
}
erdma_order "a ring of 4 x 1 KiB" 3 yes RTM_VERBS_ERDMA_SLOTS=4 RTM_VERBS_ERDMA_SLOT_SIZE=1K
erdma_order "2 slots of 4 KiB" 2 yes RTM_VERBS_ERDMA_SLOTS=2 RTM_VERBS_ERDMA_SLOT_SIZE=4K \
    RTM_VERBS_ERDMA_THRESHOLD=1
erdma_order "fast path off" 2 no RTM_VERBS_ERDMA_THRESHOLD=0

WINDOW="$top_builddir/tests/verbs/vrb_erdma_window"
# erdma_window N LEN WINDOW ROUNDS MIN_PERCENT: ring writes among ring
# writes + Sends after the rings were set up, summed over the ranks
erdma_window() {
    local n=$1 len=$2 win=$3 rounds=$4 want=$5 writes sends
    echo "== vrb_erdma_window, $n ranks, $len B, window $win"
    env RTM_LOG_LEVEL=debug LD_PRELOAD="$VRB_PRELOAD" timeout -k 5 60 \
        "$RTRUN" -n "$n" --oversubscribe "$WINDOW" "$len" "$win" "$rounds" >"$log" 2>&1 || {
        echo "FAIL: window $len B: rtrun exit $?" >&2; grep -v debug "$log" | tail -n 20 >&2
        failed=1; return; }
    grep -q 'vrb_erdma_window: .* intact' "$log" || {
        echo "FAIL: window $len B: no verdict" >&2; failed=1; return; }
    writes=$(sed -n 's/.*eager RDMA ring of rank [0-9]*: \([0-9]*\) messages by RDMA Write, \([0-9]*\) by Send.*/\1/p' "$log" |
             awk '{s += $1} END {print s + 0}')
    sends=$(sed -n 's/.*eager RDMA ring of rank [0-9]*: \([0-9]*\) messages by RDMA Write, \([0-9]*\) by Send.*/\2/p' "$log" |
            awk '{s += $1} END {print s + 0}')
    echo "  | ring writes delivered: $writes, Sends after the rings were set up: $sends"
    if [ "$want" -gt 0 ] && [ $((writes * 100)) -lt $((want * (writes + sends))) ]; then
        echo "FAIL: window $len B: fewer than $want% of the messages by ring write" >&2
        failed=1
    fi
    if [ $((writes + sends)) -eq 0 ]; then
        echo "FAIL: window $len B: no eager RDMA ring was set up" >&2
        failed=1
    fi
}
erdma_window 4 256 16 100 90
erdma_window 2 8 64 100 90
erdma_window 2 0 64 30 0

# cq_polls N ROUNDS MODE [ENV...]: CQ polls per progress call of each rank of
# a window-of-1 exchange of 8 B, from its close line. MODE paced: polls less
# 1024 per receive completion < 1/4 of the calls; every: every call from the
# first receive completion on polled
cq_polls() {
    local n=$1 rounds=$2 mode=$3 line calls polls recvs first r
    shift 3
    echo "== CQ polls per progress call, $n ranks, $rounds rounds of 8 B, $*"
    env "$@" RTM_LOG_LEVEL=debug LD_PRELOAD="$VRB_PRELOAD" timeout -k 5 120 \
        "$RTRUN" -n "$n" --oversubscribe "$WINDOW" 8 1 "$rounds" >"$log" 2>&1 || {
        echo "FAIL: cq polls: rtrun exit $?" >&2; grep -v debug "$log" | tail -n 20 >&2
        failed=1; return; }
    for ((r = 0; r < n; r++)); do
        line=$(grep -m1 "verbs: rank $r: [0-9]* progress calls polled the CQ" "$log")
        read -r calls polls recvs first < <(sed -n 's/.* \([0-9]*\) progress calls polled the CQ \([0-9]*\) times (\([0-9]*\) receive completions, the first at call \([0-9]*\)).*/\1 \2 \3 \4/p' <<<"$line")
        echo "  | ${line#*debug: }"
        if [ -z "$calls" ] || [ "$calls" -lt "$rounds" ]; then
            echo "FAIL: rank $r: no count of CQ polls, or fewer progress calls than rounds" >&2
            failed=1
        elif [ "$mode" = paced ] && [ $(((polls - 1024 * recvs) * 4)) -ge "$calls" ]; then
            echo "FAIL: rank $r: CQ polled at $polls of $calls progress calls ($recvs receive completions)" >&2
            failed=1
        elif [ "$mode" = every ] && [ $((calls - polls)) -ge "$first" ]; then
            echo "FAIL: rank $r: no ring, yet the CQ was polled at $polls of $calls progress calls (the first receive at call $first)" >&2
            failed=1
        fi
    done
}
cq_polls 2 4000 paced RTM_VERBS_ERDMA_THRESHOLD=1
cq_polls 2 2000 every RTM_VERBS_ERDMA_THRESHOLD=0
exit $failed
