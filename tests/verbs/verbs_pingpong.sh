#!/bin/bash
# Ping-pong 0 B .. 16 MiB over verbs on softib (RTM_TRANSPORTS=self,verbs),
# every byte checked, with 2, 3 and 4 ranks; sizes around the switch points
# (inline, eager limit, read chunk) included; then the ring of mixed sizes
# checking order and content, and the 8 B / 1 MiB figures.
. "$top_srcdir/tests/verbs/verbs_lib.sh"
failed=0
log=$VRB_TMP/log

# the sanitizer pass: 3 ranks only
for n in $(t_np "2 3 4" "3"); do
    RTM_LOG_LEVEL=debug vrb_run "$n" "$ITEST_BIN/pingpong" >"$log" 2>&1 || {
        failed=1; tail -n 30 "$log" >&2; continue; }
    grep -v 'DEBUG\|debug' "$log" | sed 's/^/  | /' | tail -n 5
    vrb_check_used "$log" "$n" || failed=1
    grep -q 'verbs: softib0\|verbs: .* port [0-9]' "$log" || {
        echo "FAIL: no verbs description in the log" >&2; failed=1; }
done
# inline limit (256 B with our 8 B + the runtime's 16 B header: 232 B of
# payload) and a moved eager limit: the driver variables add sizes around them
RTM_SHM_EAGER_LIMIT=232 vrb_run 2 "$ITEST_BIN/pingpong" 65536 || failed=1
RTM_VERBS_EAGER_LIMIT=1000 RTM_SHM_EAGER_LIMIT=1000 vrb_run 2 "$ITEST_BIN/pingpong" 1048576 || failed=1
# RoCE-style addressing (GIDs, GRH) instead of LIDs
SOFTIB_LINK=eth RTM_LOG_LEVEL=info vrb_run 2 "$ITEST_BIN/pingpong" 4194304 >"$log" 2>&1 || {
    failed=1; tail -n 30 "$log" >&2; }
grep -q 'RoCE GID\[1\]' "$log" || { echo "FAIL: RoCE v2 IPv4-mapped GID (index 1) not chosen" >&2;
    grep verbs "$log" >&2; failed=1; }
# ring of mixed eager/rendezvous messages, in order and intact
vrb_run 4 "$top_builddir/tests/tcp/tcp_pingpong" || failed=1
# figures (not a time limit)
vrb_run 2 "$top_builddir/tests/tcp/tcp_pingpong" bench || failed=1
exit $failed
