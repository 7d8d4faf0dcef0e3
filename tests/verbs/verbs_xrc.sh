#!/bin/bash
# The verbs suite with XRC (RTM_VERBS_XRC=1), full mesh: the first half of
# the protocol programs of verbs_protocols.sh with 2 and 4 ranks (all on one
# host: each rank's one INI QP reaches TGT QPs of its own host), then
# - QP counts: all ranks send to all at once (vrb_conn: requests cross in
#   every pair, eager and rendezvous sizes); each of 4 ranks must end with
#   one INI QP, and the host with 8 INI + TGT QPs where RC holds 12;
# - the XRC domain file (/dev/shm/rtm-<nspace>-xrc-<node>) is gone after the
#   job, and rtrun removes it when a rank is killed before it was unlinked
#   (re-created here while the job runs, then a rank is SIGKILLed).
# verbs_xrc2.sh runs the second half on demand, the credit and flood runs.
export RTM_VERBS_XRC=1 RTM_VERBS_CONN=fullmesh
VRB_PROGS="order unexpected truncate probe wildcard" VRB_CREDIT_RUNS=0 \
    bash "$top_srcdir/tests/verbs/verbs_protocols.sh"
failed=$?
. "$top_srcdir/tests/verbs/verbs_lib.sh"
log=$VRB_TMP/log

RTM_LOG_LEVEL=debug vrb_run 4 "$top_builddir/tests/verbs/vrb_conn" >"$log" 2>&1 || {
    failed=1; tail -n 30 "$log" >&2; }
grep 'vrb_conn:' "$log"
grep -q 'XRC full mesh, ' "$log" || { echo "FAIL: no XRC full mesh in the debug log" >&2; failed=1; }
vrb_check_xrc_qps "$log" 4 || failed=1
path=$(sed -n 's/.*XRC domain \(\/dev\/shm\/[^,]*\), XRC SRQ.*/\1/p' "$log" | head -n 1)
if [ -z "$path" ]; then
    echo "FAIL: the debug log names no XRC domain file" >&2; failed=1
elif [ -e "$path" ]; then
    echo "FAIL: $path is still there after the job" >&2; rm -f "$path"; failed=1
elif ! grep -q "XRC domain file $path removed" "$log"; then
    echo "FAIL: nobody removed $path" >&2; failed=1
else
    echo "  XRC domain file $path: removed at wireup"
fi

# A job killed while the file exists: rank 1 sleeps an hour in vrb_conn's
# silent mode (on demand, so nothing waits for it at wireup), so only the
# kill ends it, however slow the machine (with 20 s, a full CI under load
# took longer than that to see the job through init, the sleep ended, and the
# job succeeded); the bounds below only keep a broken run from hanging.
RTM_VERBS_CONN=ondemand RTM_LOG_LEVEL=debug LD_PRELOAD="$VRB_PRELOAD" timeout -k 5 600 \
    "$RTRUN" -n 2 --oversubscribe "$top_builddir/tests/verbs/vrb_conn" silent 3600 >"$log" 2>&1 &
job=$!
path= victim=
for ((i = 0; i < 3000; i++)); do
    path=$(sed -n 's/.*XRC domain \(\/dev\/shm\/[^,]*\), XRC SRQ.*/\1/p' "$log" | head -n 1)
    victim=$(sed -n 's/^\[[^]:]*:\([0-9]*\):1\] .*/\1/p' "$log" | head -n 1)
    [ -n "$path" ] && [ -n "$victim" ] && grep -q 'XRC domain file .* removed' "$log" && break
    sleep 0.1
done
if [ -z "$path" ] || [ -z "$victim" ]; then
    echo "FAIL: the silent job did not get through init" >&2; tail -n 20 "$log" >&2; failed=1
    kill "$job" 2>/dev/null
    wait "$job"
else
    : >"$path"          # as if the job had died before wireup removed it
    kill -KILL "$victim"
    wait "$job"
    rc=$?
    if [ "$rc" -eq 0 ]; then
        echo "FAIL: the job succeeded although rank 1 was killed" >&2; failed=1
    fi
    if [ -e "$path" ]; then
        echo "FAIL: $path is left after a killed job (rtrun exit $rc)" >&2; rm -f "$path"; failed=1
    else
        echo "  killed job (rtrun exit $rc): $path removed by rtrun"
    fi
fi
exit $failed
