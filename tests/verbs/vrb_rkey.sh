#!/bin/bash
# rkey least privilege (issue 5): a peer may read exactly the buffer it was
# shown, and only until the FIN. The vrb_evil module, preloaded into the
# ranks, turns the receiving rank into a malicious peer that reads through
# the transport's own QP with the rkey it was given (nothing in
# transport/verbs knows): inside the shown buffer while exposed (must work:
# proves the module's reads are real), just beyond its end, and inside it
# after the FIN (both must fail with a remote access error). With the
# registration cache on and off.
. "$top_srcdir/tests/verbs/verbs_lib.sh"
EVIL="$top_builddir/tests/verbs/.libs/libvrbevil.so"
if [ ! -f "$EVIL" ]; then
    echo "FAIL: the vrb_evil module is not built ($EVIL)" >&2
    exit 1
fi
failed=0
log=$VRB_TMP/log
for rcache in 1 0; do
    for mode in within beyond after_fin; do
        case $mode in
        within) want='success' ;;
        *) want='remote access error' ;;
        esac
        echo "== RTM_VERBS_RCACHE=$rcache VRB_EVIL=$mode (expect: $want)"
        # the module goes ahead of softib so its ibv_open_device wraps softib's
        VRB_EVIL=$mode RTM_VERBS_RCACHE=$rcache LD_PRELOAD="${VRB_PRELOAD%%$VRB_SIB}$EVIL:$VRB_SIB" \
            timeout -k 5 60 "$RTRUN" -n 2 --oversubscribe "$top_builddir/tests/verbs/vrb_rkey" \
            >"$log" 2>&1
        rc=$?
        grep -E 'vrb_evil|vrb_rkey|FAIL' "$log" | sed 's/^/  | /' | head -n 10
        verdict=$(grep -E '^vrb_evil: [a-z_]+ read of' "$log" | head -n 1)
        if [ -z "$verdict" ]; then
            echo "FAIL: $mode (rcache=$rcache): no verdict from the malicious peer (rtrun exit $rc)" >&2
            sed 's/^/  | /' "$log" | tail -n 15
            failed=1
        elif [ "${verdict##*: }" != "$want" ]; then
            echo "FAIL: $mode (rcache=$rcache): the malicious read got '${verdict##*: }', expected '$want'" >&2
            failed=1
        fi
    done
done
exit $failed
