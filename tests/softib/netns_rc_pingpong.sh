#!/bin/bash
# ibv_rc_pingpong between two network namespaces joined by a veth pair.
# softib sees that the peer lives in another namespace and carries its
# packets over TCP between the namespaces' addresses; the veth packet
# counters prove the traffic crossed the link.
. "$top_srcdir/tests/softib/acceptance.sh"
sib_need ibv_rc_pingpong ip

ns_a=sib_a_$$
ns_b=sib_b_$$
sib_netns_hosts $ns_a $ns_b veth_sa$$ veth_sb$$ 10.213.7

rx_before=$(sib_rx_packets) || sib_fail "cannot read the veth counters"
p=$(sib_port)
SIB_SERVER_NS="ip netns exec $ns_a" SIB_CLIENT_NS="ip netns exec $ns_b" \
    sib_pair netns $p 60 ibv_rc_pingpong -p $p -n 1000 -- ibv_rc_pingpong -p $p -n 1000 10.213.7.1
rx_after=$(sib_rx_packets)
cat "$SIB_TMP/netns.client"
echo "veth packets received by the server's namespace: $((rx_after - rx_before))"
# 1000 ping-pongs: at least 1000 messages from the client, besides the
# few dozen packets of the tools' own TCP exchange
[ $((rx_after - rx_before)) -ge 1000 ] || sib_fail "softib traffic did not cross the veth link"
echo "ok: netns"
