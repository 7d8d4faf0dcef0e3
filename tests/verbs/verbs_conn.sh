#!/bin/bash
# Connection set-up of the verbs transport on softib:
# - all ranks send to all at once right after init (requests cross in every
#   pair): on demand, each rank must end with exactly one RC QP per peer
#   (the lower rank's request wins; nothing is lost or reordered);
# - a sparse pattern (the ring of `order`, 8 ranks) on demand creates only
#   the QPs it needs: ring neighbours plus the partners of the dissemination
#   barrier in rtm_finalize, fewer than the 7 of a full mesh;
# - RTM_VERBS_CONN=auto picks on demand above RTM_VERBS_FULLMESH_MAX;
# - on demand over RoCE-style addressing (GIDs, GRH on the UD datagrams);
# - a peer that never answers (rank 1 calls nothing for 20 s) ends the job
#   within RTM_VERBS_CONNECT_TIMEOUT with a message naming it.
. "$top_srcdir/tests/verbs/verbs_lib.sh"
failed=0
log=$VRB_TMP/log
prog=$top_builddir/tests/verbs/vrb_conn

for n in 4 8; do
    RTM_VERBS_CONN=ondemand RTM_LOG_LEVEL=debug vrb_run "$n" "$prog" >"$log" 2>&1 || {
        failed=1; tail -n 30 "$log" >&2; }
    grep 'vrb_conn:' "$log"
    vrb_check_qps "$log" "$n" $((n - 1)) || failed=1
    echo "  $n ranks: $(grep -c 'requests to and from rank .* crossed' "$log") crossed requests seen"
done

# ring of 8: which peers a rank talks to (ring and barrier partners)
n=8
want=$(for ((k = 1; k < n; k <<= 1)); do echo $((k % n)); echo $(((n - k) % n)); done | sort -u | wc -l)
RTM_VERBS_CONN=ondemand RTM_LOG_LEVEL=debug vrb_run "$n" "$ITEST_BIN/order" >"$log" 2>&1 || {
    failed=1; tail -n 30 "$log" >&2; }
echo "  ring of $n: every rank should hold $want RC QPs (a full mesh holds $((n - 1)))"
vrb_check_qps "$log" "$n" "$want" || failed=1

# auto: full mesh up to RTM_VERBS_FULLMESH_MAX ranks, on demand above
RTM_VERBS_FULLMESH_MAX=2 RTM_LOG_LEVEL=debug vrb_run 3 "$prog" >"$log" 2>&1 || {
    failed=1; tail -n 30 "$log" >&2; }
grep -q 'on-demand RC, ' "$log" || {
    echo "FAIL: RTM_VERBS_FULLMESH_MAX=2 with 3 ranks did not connect on demand" >&2; failed=1; }
RTM_LOG_LEVEL=debug vrb_run 3 "$prog" >"$log" 2>&1 || { failed=1; tail -n 30 "$log" >&2; }
grep -q 'RC full mesh, ' "$log" || {
    echo "FAIL: 3 ranks with the default RTM_VERBS_FULLMESH_MAX did not use a full mesh" >&2; failed=1; }
vrb_check_qps "$log" 3 2 || failed=1

# RoCE-style addressing: the handshake's UD datagrams need a GRH
SOFTIB_LINK=eth RTM_VERBS_CONN=ondemand RTM_LOG_LEVEL=info vrb_run 3 "$prog" >"$log" 2>&1 || {
    failed=1; tail -n 30 "$log" >&2; }
grep -q 'RoCE GID.*on-demand RC' "$log" || { echo "FAIL: no on-demand RoCE run" >&2; failed=1; }

# a peer that does not answer: the job ends, naming it, well before it wakes
# (rank 1 sleeps an hour: only the connect timeout can end the job within
# the job bound, however slow the machine)
RTM_VERBS_CONN=ondemand RTM_VERBS_CONNECT_TIMEOUT=2 vrb_run 2 "$prog" silent 3600 >"$log" 2>&1
rc=$?
if [ $rc -eq 0 ]; then
    echo "FAIL: a connection to a silent peer succeeded?" >&2; failed=1
elif ! grep -q 'rank 0 ([^)]*): verbs: rank 1 ([^)]*) did not answer [0-9]* connection requests' "$log"; then
    echo "FAIL: no message naming the silent peer:" >&2; tail -n 20 "$log" >&2; failed=1
else
    grep -m1 'did not answer' "$log" | sed 's/^/  | /'
fi
exit $failed
