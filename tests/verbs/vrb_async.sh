#!/bin/bash
# Device async events (issue 5 "Errors"): the vrb_evil module, preloaded,
# fakes IBV_EVENT_CQ_ERR on the transport's CQ, then IBV_EVENT_QP_FATAL on
# the QP of a rendezvous read, in the middle of that read (nothing in
# transport/verbs knows). Each must end the job, non-zero and without
# hanging, with one message naming the rank and host, the event, and for
# the QP event the peer rank and host and the QP number.
. "$top_srcdir/tests/verbs/verbs_lib.sh"
EVIL="$top_builddir/tests/verbs/.libs/libvrbevil.so"
if [ ! -f "$EVIL" ]; then
    echo "FAIL: the vrb_evil module is not built ($EVIL)" >&2
    exit 1
fi
failed=0
log=$VRB_TMP/log
for mode in cq_err qp_fatal; do
    case $mode in
    cq_err) want='rank 1 \([^)]*\): verbs device [^ ]+ port [0-9]+: async event "CQ error"; the completion queue' ;;
    qp_fatal) want='rank 1 \([^)]*\): verbs QP 0x[0-9a-f]+ to rank 0 \([^)]*, QP 0x[0-9a-f]+\) on [^ ]+ port [0-9]+: async event "[^"]+"; ' ;;
    esac
    echo "== VRB_EVIL=$mode"
    start=$(date +%s)
    VRB_EVIL=$mode LD_PRELOAD="${VRB_PRELOAD%%$VRB_SIB}$EVIL:$VRB_SIB" \
        timeout -k 5 60 "$RTRUN" -n 2 --oversubscribe "$top_builddir/tests/verbs/vrb_rkey" \
        >"$log" 2>&1
    rc=$?
    end=$(date +%s)
    grep -vE '^\[.*(warning|debug)' "$log" | sed 's/^/  | /' | tail -n 8
    echo "  (rtrun exit $rc after $((end - start)) s)"
    if [ "$rc" -eq 0 ]; then
        echo "FAIL: $mode: the job succeeded" >&2; failed=1
    elif [ "$rc" -eq 124 ] || [ $((end - start)) -ge 59 ]; then
        echo "FAIL: $mode: the job hung" >&2; failed=1
    fi
    if ! grep -q "injecting async event" "$log"; then
        echo "FAIL: $mode: the module injected nothing: the transport never polled the device's async events (or no RDMA read was seen)" >&2; failed=1
    elif ! grep -qE "$want" "$log"; then
        echo "FAIL: $mode: no message naming rank, host, device/QP and the event" >&2; failed=1
    fi
done
exit $failed
