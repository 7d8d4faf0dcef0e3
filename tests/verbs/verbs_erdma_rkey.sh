#!/bin/bash
# Eager RDMA least privilege (issue 5): a ring's rkey opens that ring to the
# one peer it was offered to, over that peer's QP. The vrb_erdma_evil module,
# preloaded into the ranks, saves the address and rkey of rank 0's ring from
# rank 1's first write into it, then writes 8 bytes there with that rkey:
#   owner  from rank 1 (whose ring it is): must succeed (the write is real)
#   third  from rank 2, offered no ring by rank 0: must fail with a remote
#          access error (its QP at rank 0 accepts no RDMA Write)
. "$top_srcdir/tests/verbs/verbs_lib.sh"
EVIL="$top_builddir/tests/verbs/.libs/libvrberdmaevil.so"
if [ ! -f "$EVIL" ]; then
    echo "FAIL: the vrb_erdma_evil module is not built ($EVIL)" >&2
    exit 1
fi
failed=0
log=$VRB_TMP/log
for mode in owner:1 third:2; do
    case ${mode%:*} in
    owner) want='success' ;;
    *) want='remote access error' ;;
    esac
    echo "== ${mode%:*}: rank ${mode#*:} writes into rank 0's ring for rank 1 (expect: $want)"
    rm -f "$VRB_TMP/ring"
    VRB_ERDMA_EVIL_FILE="$VRB_TMP/ring" RTM_VERBS_ERDMA_THRESHOLD=8 \
        LD_PRELOAD="${VRB_PRELOAD%%$VRB_SIB}$EVIL:$VRB_SIB" \
        timeout -k 5 60 "$RTRUN" -n 3 --oversubscribe "$top_builddir/tests/verbs/vrb_erdma_rkey" \
        "${mode#*:}" >"$log" 2>&1
    rc=$?
    grep -E 'vrb_erdma|FAIL' "$log" | sed 's/^/  | /' | head -n 10
    verdict=$(grep -E '^vrb_erdma_evil: write into' "$log" | head -n 1)
    if [ -z "$verdict" ]; then
        echo "FAIL: ${mode%:*}: no verdict from the module (rtrun exit $rc)" >&2
        sed 's/^/  | /' "$log" | tail -n 15
        failed=1
    elif [ "${verdict##*: }" != "$want" ]; then
        echo "FAIL: ${mode%:*}: the write got '${verdict##*: }', expected '$want'" >&2
        failed=1
    fi
done
exit $failed
