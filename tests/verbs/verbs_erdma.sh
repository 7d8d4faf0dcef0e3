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
#     ring writes AND Sends in between (both paths, one order); once more with
#     2-slot rings of 4 KiB slots (falls back to Send/Recv all the time; the
#     writes too large to go inline take bounce buffers), and with the fast
#     path off (no ring at all).
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
erdma_order "default settings" 3 yes
erdma_order "2 slots of 4 KiB" 2 yes RTM_VERBS_ERDMA_SLOTS=2 RTM_VERBS_ERDMA_SLOT_SIZE=4K \
    RTM_VERBS_ERDMA_THRESHOLD=1
erdma_order "fast path off" 2 no RTM_VERBS_ERDMA_THRESHOLD=0
exit $failed
