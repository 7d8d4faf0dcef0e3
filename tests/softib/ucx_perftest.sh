#!/bin/bash
# UCX's ucx_perftest (Debian ucx-utils) between two processes on softib,
# started unmodified through softib-run: tag-matching latency, put
# bandwidth, get, and the atomics (add, fetch-add, swap, compare-swap),
# over rc_verbs (ud_verbs for wireup) and over ud_verbs alone. UCX uses a
# device only when /dev/infiniband/<dev> is an accessible character device,
# which softib-run makes in a private mount namespace as root only.
. "$top_srcdir/tests/softib/acceptance.sh"
sib_need ucx_perftest
t_need_root "UCX on softib (the device node /dev/infiniband/uverbs_softib0)"
SIB_VIA_RUN=1
export UCX_NET_DEVICES=softib0:1 UCX_WARN_UNUSED_ENV_VARS=n

for tls in rc_verbs,ud_verbs ud_verbs; do
    for t in tag_lat ucp_put_bw ucp_get ucp_add ucp_fadd ucp_swap ucp_cswap; do
        n=1000
        [ "$tls" = ud_verbs ] && [ "$t" != tag_lat ] && n=300 # AM-emulated, answered by the helper
        p=$(sib_port)
        UCX_TLS=$tls,self sib_pair "$tls-$t" $p 120 ucx_perftest -p $p -- \
            ucx_perftest -p $p -t $t -n $n 127.0.0.1
        grep -q '^Final:' "$SIB_TMP/$tls-$t.client" || sib_fail "$tls $t: no final report"
        grep -q 'softib0' "$SIB_TMP/$tls-$t.client" "$SIB_TMP/$tls-$t.server" &&
            sib_fail "$tls $t: UCX complained about softib0"
    done
done
# (UCX_NET_DEVICES=softib0:1 with only verbs transports: without softib
# every run above ends "Destination is unreachable")
sib_run ucx_info -d > "$SIB_TMP/ucx_info" 2>&1
grep -q 'Transport: rc_verbs' "$SIB_TMP/ucx_info" && grep -q 'Device: softib0:1' "$SIB_TMP/ucx_info" ||
    { cat "$SIB_TMP/ucx_info" >&2; sib_fail "ucx_info -d does not list rc_verbs on softib0:1"; }
echo "ok: ucx_info lists softib0:1"
