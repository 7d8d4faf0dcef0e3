#!/bin/bash
# ibv_rc_pingpong between two network namespaces joined by a veth pair.
# softib sees that the peer lives in another namespace and carries its
# packets over TCP between the namespaces' addresses; the veth packet
# counters prove the traffic crossed the link.
. "$top_srcdir/tests/softib/acceptance.sh"
sib_need ibv_rc_pingpong ip

ns_a=sib_a_$$
ns_b=sib_b_$$
net_cleanup() {
    ip netns del $ns_a 2>/dev/null
    ip netns del $ns_b 2>/dev/null
}
if ! ip netns add $ns_a 2>/dev/null; then
    echo "SKIP: 'ip netns add' is not permitted here (needs root / CAP_SYS_ADMIN)"
    exit 77
fi
SIB_CLEANUP_HOOK=net_cleanup
ip netns add $ns_b || sib_fail "ip netns add $ns_b"
ip link add veth_sa$$ netns $ns_a type veth peer name veth_sb$$ netns $ns_b ||
    sib_fail "veth pair"
ip -n $ns_a addr add 10.213.7.1/30 dev veth_sa$$
ip -n $ns_b addr add 10.213.7.2/30 dev veth_sb$$
for n in $ns_a $ns_b; do
    ip -n $n link set lo up
done
ip -n $ns_a link set veth_sa$$ up
ip -n $ns_b link set veth_sb$$ up

rx_packets() {
    ip netns exec $ns_a cat /sys/class/net/veth_sa$$/statistics/rx_packets
}
rx_before=$(rx_packets) || sib_fail "cannot read the veth counters"
p=$(sib_port)
SIB_SERVER_NS="ip netns exec $ns_a" SIB_CLIENT_NS="ip netns exec $ns_b" \
    sib_pair netns $p 60 ibv_rc_pingpong -p $p -n 1000 -- ibv_rc_pingpong -p $p -n 1000 10.213.7.1
rx_after=$(rx_packets)
cat "$SIB_TMP/netns.client"
echo "veth packets received by the server's namespace: $((rx_after - rx_before))"
# 1000 ping-pongs: at least 1000 messages from the client, besides the
# few dozen packets of the tools' own TCP exchange
[ $((rx_after - rx_before)) -ge 1000 ] || sib_fail "softib traffic did not cross the veth link"
echo "ok: netns"
