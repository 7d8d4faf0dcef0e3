#!/bin/bash
# The same integration programs over another transport: RTM_TRANSPORTS=self,tcp
# takes shm out, so ranks of one host talk over loopback TCP (eager, then
# RTS/CTS rendezvous). Skips when this build has no tcp transport.
. "$top_srcdir/tests/integration/lib.sh"
t_require_rtrun
if ! "$top_builddir/rtm_info" 2>/dev/null | grep -qE '^ +tcp +tcp:'; then
    echo "SKIP: rtm_info lists no tcp transport in this build"
    exit 77
fi
export RTM_TRANSPORTS=self,tcp
failed=0
for n in 2 3; do
    itest_run $n "$ITEST_BIN/pingpong" 4M || failed=1
    itest_run $n "$ITEST_BIN/wildcard" || failed=1
done
itest_run 2 "$ITEST_BIN/order" || failed=1
itest_run 2 "$ITEST_BIN/unexpected" || failed=1
itest_run 2 "$ITEST_BIN/truncate" || failed=1
exit $failed
