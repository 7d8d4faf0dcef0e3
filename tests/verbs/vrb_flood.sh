#!/bin/bash
# SRQ exhaustion under a flood (issue 5): 3 senders post 2000 eager
# messages each at a receiver that sleeps first, with 2 credits per peer
# and softib NAKing the first 300 incoming sends of every rank with RNR
# (what an empty SRQ does). Everything must arrive, intact and in order
# (tests/verbs/vrb_flood.c checks each byte). Then the same flood into an
# SRQ of 4 buffers, over RC and over XRC.
. "$top_srcdir/tests/verbs/verbs_lib.sh"
failed=0
log=$VRB_TMP/log
RTM_VERBS_CREDITS=2 SOFTIB_FAULT=rnr=300 vrb_run 4 "$top_builddir/tests/verbs/vrb_flood" 2000 \
    >"$log" 2>&1 || failed=1
sed 's/^/  | /' "$log" | tail -n 15
if [ $failed = 0 ] && ! grep -q 'received intact and in order' "$log"; then
    echo "FAIL: the receiver did not report every message" >&2
    failed=1
fi

# A real SRQ exhaustion, RC and XRC: 4 receive buffers in all
# (RTM_VERBS_SRQ_DEPTH) for 3 senders of 2 credits each, so the HCA's RNR
# retries carry the flood -- and finalize too: a peer's last message may
# wait for a buffer that only the receiver's progress during the finalize
# fence reposts (without that, finalize hung 1 run in 10 and then failed).
for xrc in 0 1; do
    RTM_VERBS_XRC=$xrc RTM_VERBS_SRQ_DEPTH=4 RTM_VERBS_CREDITS=2 \
        vrb_run 4 "$top_builddir/tests/verbs/vrb_flood" 500 >"$log" 2>&1 || failed=1
    sed 's/^/  | /' "$log" | tail -n 2
    if ! grep -q 'received intact and in order' "$log"; then
        echo "FAIL: RTM_VERBS_XRC=$xrc, a 4-buffer SRQ: the receiver did not report every message" >&2
        failed=1
    fi
done
exit $failed
