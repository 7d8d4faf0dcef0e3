# bench/netns-hosts.sh: sourced by the bench scripts that run jobs between
# two network namespace "hosts" made on this machine (root only).
#
# bench_netns_hosts HA HB NET: namespaces HA and HB joined by a veth pair,
#   both ends named rt0, NET.1/24 in HA and NET.2/24 in HB (addresses that
#   exist inside them only), loopbacks up
# bench_netns_del HA HB: kill what still runs in them and remove them

bench_netns_hosts() {
    local ha=$1 hb=$2 net=$3 h
    ip netns add "$ha"
    ip netns add "$hb"
    ip link add "${ha}0" type veth peer name "${hb}0"
    ip link set "${ha}0" netns "$ha"
    ip link set "${hb}0" netns "$hb"
    ip -n "$ha" link set "${ha}0" name rt0
    ip -n "$hb" link set "${hb}0" name rt0
    ip -n "$ha" addr add "$net.1/24" dev rt0
    ip -n "$hb" addr add "$net.2/24" dev rt0
    for h in "$ha" "$hb"; do
        ip -n "$h" link set rt0 up
        ip -n "$h" link set lo up
    done
}

bench_netns_del() {
    local h
    for h in "$@"; do
        ip netns pids "$h" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
        ip netns del "$h" 2>/dev/null || true
    done
}
