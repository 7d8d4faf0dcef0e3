#!/bin/bash
# UCX's ucx_perftest, unmodified through softib-run, between two network
# namespaces joined by a veth pair (two hosts): tag-matching latency, put
# bandwidth, get and fetch-add over rc_verbs; softib carries its packets
# over TCP between the namespaces' addresses, and the veth counters prove
# the traffic crossed the link. (UCX needs the device node softib-run makes
# in a mount namespace: root only.)
. "$top_srcdir/tests/softib/acceptance.sh"
sib_need ucx_perftest ip
t_need_root "UCX on softib (the device node /dev/infiniband/uverbs_softib0)"

ns_a=sibu_a_$$
ns_b=sibu_b_$$
sib_netns_hosts $ns_a $ns_b vethua$$ vethub$$ 10.213.8

SIB_VIA_RUN=1
export UCX_NET_DEVICES=softib0:1 UCX_WARN_UNUSED_ENV_VARS=n UCX_TLS=rc_verbs,ud_verbs,self
rx_before=$(sib_rx_packets) || sib_fail "cannot read the veth counters"
for t in tag_lat ucp_put_bw ucp_get ucp_fadd; do
    p=$(sib_port)
    SIB_SERVER_NS="ip netns exec $ns_a" SIB_CLIENT_NS="ip netns exec $ns_b" \
        sib_pair "ucx-$t" $p 120 ucx_perftest -p $p -- ucx_perftest -p $p -t $t -n 500 10.213.8.1
    grep -q '^Final:' "$SIB_TMP/ucx-$t.client" || sib_fail "$t: no final report"
    grep -q 'softib0' "$SIB_TMP/ucx-$t.client" "$SIB_TMP/ucx-$t.server" &&
        sib_fail "$t: UCX complained about softib0"
done
rx_after=$(sib_rx_packets)
echo "veth packets received by the server's namespace: $((rx_after - rx_before))"
# 500 tag_lat round trips alone send 500 messages from the client
[ $((rx_after - rx_before)) -ge 500 ] || sib_fail "softib traffic did not cross the veth link"
echo "ok: netns ucx_perftest"
