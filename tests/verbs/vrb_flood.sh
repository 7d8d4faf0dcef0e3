#!/bin/bash
# SRQ exhaustion under a flood (issue 5): 3 senders post 2000 eager
# messages each at a receiver that sleeps first, with 2 credits per peer
# and softib NAKing the first 300 incoming sends of every rank with RNR
# (what an empty SRQ does). Everything must arrive, intact and in order
# (tests/verbs/vrb_flood.c checks each byte).
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
exit $failed
