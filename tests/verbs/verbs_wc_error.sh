#!/bin/bash
# A link cut by softib (SOFTIB_FAULT=cut=all@N: after N packets every
# packet to and from every peer is dropped) in the middle of a job: the
# sender's retries run out (IBV_WC_RETRY_EXC_ERR), and the job must end,
# non-zero, with one line naming the local and peer ranks and hosts, the QP
# and the status -- never hang.
. "$top_srcdir/tests/verbs/verbs_lib.sh"
failed=0
log=$VRB_TMP/log
start=$(date +%s)
SOFTIB_FAULT=cut=all@300 LD_PRELOAD="$VRB_PRELOAD" timeout -k 5 90 "$RTRUN" -n 2 --oversubscribe \
    "$top_builddir/tests/tcp/tcp_pingpong" >"$log" 2>&1
rc=$?
end=$(date +%s)
sed 's/^/  | /' "$log" | tail -n 20
echo "  (rtrun exit $rc after $((end - start)) s)"
if [ "$rc" -eq 0 ]; then
    echo "FAIL: the job succeeded although the link was cut" >&2; failed=1
elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && [ $((end - start)) -ge 89 ]; then
    echo "FAIL: the job hung after the link was cut" >&2; failed=1
fi
if ! grep -qE 'rank [0-9]+ \(.*\): verbs (send to|RDMA read from|receive from) rank [0-9]+ \(.*\) failed: transport retry counter exceeded.*QP 0x' "$log"; then
    echo "FAIL: no error line naming ranks, hosts, QP and the status" >&2; failed=1
fi
exit $failed
