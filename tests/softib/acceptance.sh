# Sourced by softib's acceptance scripts: run unmodified Debian verbs tools
# on libsoftib through LD_PRELOAD, in a SOFTIB_DIR of their own, with every
# process bounded in time and reaped, and the directory removed at exit.
#
# Provides: sib_need TOOL...; sib_port; sib_pair NAME SERVER... -- CLIENT...
# (logs in $SIB_TMP/NAME.server and NAME.client); sib_fail MSG;
# sib_netns_hosts NS_A NS_B VETH_A VETH_B NET and sib_rx_packets.

set -u
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/lib.sh"

t_softib_preload || t_die "$T_SOFTIB was not built"
SIB_LIB=$T_SOFTIB
SIB_PRELOAD=$T_SOFTIB_PRELOAD
# uninstrumented tools: their leaks are not ours to report
if [ "$SIB_PRELOAD" != "$SIB_LIB" ]; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"

# tests/lib.sh's t_free_port reads it (set -u here)
T_PORTS_TAKEN=${T_PORTS_TAKEN:-}
SIB_TMP=$(mktemp -d /tmp/softib-acc.XXXXXX) || exit 1
export SOFTIB_DIR="$SIB_TMP"
SIB_PIDS=""

sib_cleanup() {
    for p in $SIB_PIDS; do
        kill -9 "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    if [ -n "${SIB_CLEANUP_HOOK:-}" ]; then
        $SIB_CLEANUP_HOOK
    fi
    rm -rf "$SIB_TMP"
}
trap sib_cleanup EXIT
trap 'exit 1' INT TERM

sib_fail() {
    t_die "$@"
}

sib_need() {
    t_need "$@"
}

# run a command with libsoftib preloaded (and an optional `ip netns exec`
# prefix in SIB_NS); with SIB_VIA_RUN=1 through this build's softib-run
# instead (its sysfs tree in SOFTIB_DIR, the device node as root)
sib_run() {
    if [ "${SIB_VIA_RUN:-0}" = 1 ]; then
        ${SIB_NS:-} env SOFTIB_LIB="$SIB_PRELOAD" "$top_builddir/softib-run" "$@"
    else
        ${SIB_NS:-} env LD_PRELOAD="$SIB_PRELOAD" "$@"
    fi
}

# a TCP port no socket listens on, below the ephemeral range
sib_port() {
    t_free_port
}

# wait until something listens on port $1 (in namespace SIB_SERVER_NS)
sib_wait_listen() {
    local i
    for i in $(seq 1 200); do
        if ${SIB_SERVER_NS:-} ss -Htln "sport = :$1" 2>/dev/null | grep -q .; then
            return 0
        fi
        sleep 0.05
    done
    return 1
}

# sib_pair NAME PORT LIMIT SERVER_ARGS... -- CLIENT_ARGS...
# Both run under `timeout LIMIT`; passes when both exit 0.
sib_pair() {
    local name=$1 port=$2 limit=$3
    shift 3
    local server=() client=() seen=0 spid rc_s rc_c
    for a in "$@"; do
        if [ "$a" = "--" ] && [ $seen = 0 ]; then
            seen=1
        elif [ $seen = 0 ]; then
            server+=("$a")
        else
            client+=("$a")
        fi
    done
    SIB_NS="${SIB_SERVER_NS:-}" sib_run timeout -k 2 "$limit" "${server[@]}" \
        >"$SIB_TMP/$name.server" 2>&1 &
    spid=$!
    SIB_PIDS="$SIB_PIDS $spid"
    if ! sib_wait_listen "$port"; then
        kill -9 $spid 2>/dev/null
        wait $spid 2>/dev/null
        cat "$SIB_TMP/$name.server" >&2
        sib_fail "$name: server did not listen on port $port"
    fi
    SIB_NS="${SIB_CLIENT_NS:-}" sib_run timeout -k 2 "$limit" "${client[@]}" \
        >"$SIB_TMP/$name.client" 2>&1
    rc_c=$?
    wait $spid
    rc_s=$?
    if [ $rc_s != 0 ] || [ $rc_c != 0 ]; then
        echo "--- $name server (exit $rc_s):" >&2
        cat "$SIB_TMP/$name.server" >&2
        echo "--- $name client (exit $rc_c):" >&2
        cat "$SIB_TMP/$name.client" >&2
        sib_fail "$name"
    fi
    echo "ok: $name"
}

# sib_netns_hosts NS_A NS_B VETH_A VETH_B NET: two network namespace hosts
# joined by a veth pair, VETH_A in NS_A at NET.1/30 and VETH_B in NS_B at
# NET.2/30, loopbacks up, both namespaces removed at exit; skips (77) where
# namespaces may not be made. sib_rx_packets then prints the packets VETH_A
# has received.
sib_netns_hosts() {
    SIB_NS_A=$1 SIB_NS_B=$2 SIB_VETH_A=$3
    local veth_b=$4 net=$5 n
    if ! ip netns add "$SIB_NS_A" 2>/dev/null; then
        echo "SKIP: 'ip netns add' is not permitted here (needs root / CAP_SYS_ADMIN)"
        exit 77
    fi
    SIB_CLEANUP_HOOK=sib_netns_cleanup
    ip netns add "$SIB_NS_B" || sib_fail "ip netns add $SIB_NS_B"
    ip link add "$SIB_VETH_A" netns "$SIB_NS_A" type veth peer name "$veth_b" netns "$SIB_NS_B" ||
        sib_fail "veth pair"
    ip -n "$SIB_NS_A" addr add "$net.1/30" dev "$SIB_VETH_A"
    ip -n "$SIB_NS_B" addr add "$net.2/30" dev "$veth_b"
    for n in "$SIB_NS_A" "$SIB_NS_B"; do
        ip -n "$n" link set lo up
    done
    ip -n "$SIB_NS_A" link set "$SIB_VETH_A" up
    ip -n "$SIB_NS_B" link set "$veth_b" up
}

sib_netns_cleanup() {
    ip netns del "$SIB_NS_A" 2>/dev/null
    ip netns del "$SIB_NS_B" 2>/dev/null
}

sib_rx_packets() {
    ip netns exec "$SIB_NS_A" cat "/sys/class/net/$SIB_VETH_A/statistics/rx_packets"
}
# sib_rx_bytes: the bytes VETH_A has received (a volume the data must reach,
# unlike a packet count, which offloads and coalescing change)
sib_rx_bytes() {
    ip netns exec "$SIB_NS_A" cat "/sys/class/net/$SIB_VETH_A/statistics/rx_bytes"
}
