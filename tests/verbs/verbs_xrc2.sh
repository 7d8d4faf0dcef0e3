#!/bin/bash
# The verbs suite with XRC (RTM_VERBS_XRC=1), on demand: the second half of
# the protocol programs of verbs_protocols.sh with 2 and 4 ranks, and the QP
# counts of all-to-all connections made on demand. (SRQ exhaustion with XRC:
# vrb_flood.sh.)
export RTM_VERBS_XRC=1 RTM_VERBS_CONN=ondemand
VRB_PROGS="sendrecv barrier completion outstanding" VRB_CREDIT_RUNS=0 \
    bash "$top_srcdir/tests/verbs/verbs_protocols.sh"
failed=$?
. "$top_srcdir/tests/verbs/verbs_lib.sh"
log=$VRB_TMP/log

RTM_LOG_LEVEL=debug vrb_run 4 "$top_builddir/tests/verbs/vrb_conn" >"$log" 2>&1 || {
    failed=1; tail -n 30 "$log" >&2; }
grep 'vrb_conn:' "$log"
grep -q 'XRC on demand' "$log" || { echo "FAIL: no XRC on demand in the debug log" >&2; failed=1; }
echo "  $(grep -c 'requests to and from rank .* crossed' "$log") crossed requests seen"
vrb_check_xrc_qps "$log" 4 || failed=1
exit $failed
