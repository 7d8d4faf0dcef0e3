#!/bin/bash
# One-sided least privilege at the target (issue 15 phase 2), on verbs over
# softib (tests/verbs/vrb_rma.c): each run must end the job, non-zero and
# within its bound, with one line naming the failing rank and host, the
# operation, the peer rank and host, the QPs and "remote access error":
#   nokey   a rank uses a key rank 0 gave another rank (its type 2 window
#           is bound to that rank's QP only)
#   revoked a put with the key of a revoked region (windows, and one MR)
#   forged  an atomic on a region exposed without the atomic right (its QP
#           admits atomics for another region: the window, or the MR, has
#           no REMOTE_ATOMIC)
#   outsider (one MR per region, RTM_VERBS_MR_WRITE=1) a rank outside the
#           region's group puts with a leaked key: its QP lost the write
#           right when the region it had been given was revoked
# and, further down, a memory window bind or invalidate that cannot complete.
. "$top_srcdir/tests/verbs/verbs_lib.sh"
prog="$top_builddir/tests/verbs/vrb_rma"
failed=0
# ended MODE RC REGEX WHAT: the job of MODE ended on its own (exit RC not 0,
# not a timeout), no rank printed FAIL (the operation, or the call, returned),
# and the log has the line REGEX (WHAT names it)
ended() {
    local mode=$1 rc=$2 re=$3 what=$4
    if [ "$rc" -eq 0 ]; then
        echo "FAIL: $mode: the job succeeded" >&2; failed=1
    elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "FAIL: $mode: the job hung" >&2; failed=1
    fi
    if grep -q 'FAIL' "$VRB_TMP/log"; then
        echo "FAIL: $mode: the operation completed, or the call returned" >&2; failed=1
    fi
    if ! grep -qE "$re" "$VRB_TMP/log"; then
        echo "FAIL: $mode: no line naming $what" >&2
        sed 's/^/  | /' "$VRB_TMP/log" | tail -n 15
        failed=1
    fi
}
for run in "nokey 3 1 write" "revoked 2 1 write" "revoked 2 0 write" "forged 2 1 atomic" \
           "forged 2 0 atomic" "outsider 3 0 write"; do
    set -- $run
    mode=$1 n=$2 mw=$3 op=$4
    echo "== $mode, $n ranks, RTM_VERBS_MW=$mw (expect: remote access error)"
    start=$(date +%s)
    # one MR per region takes puts and atomics only with RTM_VERBS_MR_WRITE=1;
    # no eager RDMA rings, whose peers' QPs keep REMOTE_WRITE
    RTM_VERBS_MW=$mw RTM_VERBS_MR_WRITE=1 RTM_VERBS_ERDMA_THRESHOLD=0 LD_PRELOAD="$VRB_PRELOAD" \
        t_job 40 "$RTRUN" -n "$n" --oversubscribe "$prog" "$mode" >"$VRB_TMP/log" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    grep -E 'vrb_rma|FAIL|failed' "$VRB_TMP/log" | sed 's/^/  | /' | head -n 8
    echo "  (rtrun exit $rc after $secs s)"
    if [ $op = write ]; then what='RDMA write \(put\) to'; else what='atomic on'; fi
    ended $mode $rc "rank [0-9]+ \(.*\): verbs $what rank 0 \(.*\) failed: remote access error \(QP 0x[0-9a-f]+ -> 0x[0-9a-f]+ on .*\); the peer refused" \
        "ranks, hosts, QPs and the remote access error"
done
# a bind or invalidate that cannot complete (rank 1 stopped, so the send
# queued before it is never acknowledged): after RTM_VERBS_CONNECT_TIMEOUT
# the job ends naming it, and the window and region its WR names are not
# freed (before: the expose returned an error, or the revoke returned, with
# the WR still queued over a deallocated window)
for mode in stuckbind stuckinv; do
    echo "== $mode, 2 ranks, windows (expect: the job ends naming the stuck WR)"
    RTM_VERBS_MW=1 RTM_VERBS_CONNECT_TIMEOUT=1 LD_PRELOAD="$VRB_PRELOAD" t_job 40 "$RTRUN" \
        -n 2 --oversubscribe "$prog" $mode >"$VRB_TMP/log" 2>&1
    rc=$?
    grep -E 'vrb_rma|FAIL|did not complete' "$VRB_TMP/log" | sed 's/^/  | /' | head -n 6
    if [ $mode = stuckbind ]; then what='memory window bind'; else what='memory window invalidate'; fi
    ended $mode $rc "rank 0 \(.*\): verbs $what on QP 0x[0-9a-f]+ to rank 1 \(.*\) did not complete in 1 s .*the queue pair is put in error and the job ends" \
        "the stuck $what"
done
exit $failed
