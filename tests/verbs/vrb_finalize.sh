#!/bin/bash
# Finalize must not close a QP a peer still needs (transport.h, quiesce):
# with every packet of one rank held 150 ms on the wire (softib's delay
# fault), that rank receives its peer's last barrier message, finishes, and
# -- before the quiesce step and the fence after it -- destroyed its QPs
# with the ACK still held, so the peer died with "retry counter exceeded".
# Rank 0 gets the delay five times (the loss is a race: the peer must still
# be polling when its retries run out: without the fix one run in two or
# three failed), then rank 1; every job must end 0 with both ranks finished.
. "$top_srcdir/tests/verbs/verbs_lib.sh"
failed=0
log=$VRB_TMP/log
prog="$top_builddir/examples/ring"
for slow in 0 0 0 0 0 1; do
    SLOW=$slow LD_PRELOAD="$VRB_PRELOAD" timeout -k 5 120 "$RTRUN" -n 2 --oversubscribe \
        bash -c '[ "$PMIX_RANK" = "$SLOW" ] && export SOFTIB_FAULT=delay=150000; exec "$0" "$@"' \
        "$prog" >"$log" 2>&1
    rc=$?
    sed 's/^/  | /' "$log" | tail -n 4
    if [ "$rc" -ne 0 ]; then
        echo "FAIL: rank $slow's packets delayed 150 ms: the job ended $rc" >&2; failed=1
    elif grep -qi 'retry counter exceeded\|error' "$log"; then
        echo "FAIL: rank $slow delayed: an error was printed although the job ended 0" >&2; failed=1
    elif ! grep -q 'ring: also reduced' "$log"; then
        echo "FAIL: rank $slow delayed: the ring program did not finish" >&2; failed=1
    fi
done
[ "$failed" -eq 0 ] && echo "PASS: finalize waits for the last acknowledgements (150 ms link delay on either rank)"
exit $failed
