#!/bin/bash
# A peer killed mid-rendezvous (issue 5): rank 1 RDMA-Reads a 128 MiB
# message from rank 0 (SOFTIB_CMA=0: the reads go through rank 0's side) and
# SIGKILLs rank 0 once the first bytes are in its buffer and the last are
# not, so the transfer is in flight on any machine, fast or slow (no clock
# decides; vrb_kill.c says why the rest cannot arrive). The job must end,
# non-zero, within the bound, with a message naming rank 0 -- never hang,
# and rank 1 must never claim the message arrived.
. "$top_srcdir/tests/verbs/verbs_lib.sh"
failed=0
log=$VRB_TMP/log
start=$(date +%s)
SOFTIB_CMA=0 LD_PRELOAD="$VRB_PRELOAD" timeout -k 5 90 "$RTRUN" -n 2 --oversubscribe \
    "$top_builddir/tests/verbs/vrb_kill" >"$log" 2>&1
rc=$?
end=$(date +%s)
sed 's/^/  | /' "$log" | tail -n 20
echo "  (rtrun exit $rc after $((end - start)) s)"
if ! grep -q 'and not the last byte: SIGKILL to rank 0' "$log"; then
    echo "FAIL: rank 1 never caught the transfer in flight to kill rank 0" >&2; failed=1
fi
if [ "$rc" -eq 0 ]; then
    echo "FAIL: the job succeeded although rank 0 was killed" >&2; failed=1
elif [ "$rc" -eq 124 ] || [ $((end - start)) -ge 89 ]; then
    echo "FAIL: the job hung after rank 0 was killed" >&2; failed=1
fi
if grep -q 'received all' "$log"; then
    echo "FAIL: rank 1 completed a message its sender never finished" >&2; failed=1
fi
if ! grep -qiE 'rank 0\b.*(signal|killed|SIGKILL)|rank 0 \([^)]*\).*(failed|died)|from rank 0 .*failed' "$log"; then
    echo "FAIL: no message names rank 0 as the one that died" >&2; failed=1
fi
exit $failed
