# Network-namespace "hosts" for the multi-host tests (sourced, not run).
#
#   mh_setup N     makes N hosts: namespaces rtmh<pid><a|b|c...>, each with
#                  loopback up and eth0 = 10.213.0.<i+1>/24, all plugged into
#                  a bridge that lives in one more namespace (rtmh<pid>sw), so
#                  nothing is added to the machine's own network. Skips the
#                  test (exit 77) when `ip netns` cannot be used.
#   MH_HOSTS[i]    the host names (= namespace names; rtrun is given these)
#   MH_AGENT       the launch agent: ip netns exec {host}
#   mh_rtrun ARGS  rtrun run inside host 0 (so host 0 is rtrun's own host),
#                  with --bind-to none, bounded by MH_TIMEOUT (default 60 s);
#                  stdout/stderr are the caller's
#   mh_leftovers   prints processes left in the hosts, and job files left in
#                  /tmp and /dev/shm by dead rtrun/rtd; empty when clean
# Everything is removed at exit (trap), processes first.
#
# The hosts share the machine's hostname (ip netns changes no UTS
# namespace): rtrun recognises its own host by namespace, and ranks learn
# which ranks share their host from PMIx (node ids), never from
# gethostname().

. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/lib.sh"
MH_TIMEOUT=${MH_TIMEOUT:-60}
MH_PREFIX="rtmh$$"
MH_AGENT='ip netns exec {host}'
MH_HOSTS=()
MH_SW=""
MH_TMP=$(mktemp -d /tmp/rtmh-test.XXXXXX)

mh_cleanup() {
    local ns p
    for ns in "${MH_HOSTS[@]}" $MH_SW; do
        for p in $(ip netns pids "$ns" 2>/dev/null); do
            kill -9 "$p" 2>/dev/null
        done
    done
    for ns in "${MH_HOSTS[@]}" $MH_SW; do
        ip netns del "$ns" 2>/dev/null
    done
    rm -rf "$MH_TMP"
}
trap mh_cleanup EXIT

# The job files present before the test (so other jobs' are not blamed).
mh_snapshot() {
    ls -d /tmp/rtrun.* /dev/shm/rtm-* 2>/dev/null | sort >"$MH_TMP/before"
}

mh_setup() {
    local n=$1 i letters=abcdefghijklmnop
    t_need_root "network namespaces"
    t_need ip
    t_require_rtrun
    [ -x "$top_builddir/rtd" ] || t_die "no rtd at $top_builddir/rtd"
    MH_SW="${MH_PREFIX}sw"
    ip netns add "$MH_SW" 2>"$MH_TMP/err" || t_skip "ip netns add failed: $(cat "$MH_TMP/err")"
    ip -n "$MH_SW" link set lo up
    ip -n "$MH_SW" link add br0 type bridge || t_skip "cannot create a bridge"
    ip -n "$MH_SW" link set br0 up
    for ((i = 0; i < n; i++)); do
        local h="${MH_PREFIX}${letters:i:1}"
        ip netns add "$h" || t_skip "ip netns add $h failed"
        MH_HOSTS+=("$h")
        ip -n "$MH_SW" link add "p$i" type veth peer name eth0 netns "$h" ||
            t_skip "cannot create a veth pair"
        ip -n "$MH_SW" link set "p$i" master br0
        ip -n "$MH_SW" link set "p$i" up
        ip -n "$h" link set lo up
        ip -n "$h" addr add "10.213.0.$((i + 1))/24" dev eth0
        ip -n "$h" link set eth0 up
    done
    # the bridge learns the ports: wait until host 0 reaches the last host
    for ((i = 0; i < 50; i++)); do
        ip netns exec "${MH_HOSTS[0]}" ping -c1 -W1 "10.213.0.$n" >/dev/null 2>&1 && break
        sleep 0.1
    done
    mh_snapshot
}

# --bind-to none: the namespace hosts share the machine's cores, so binding
# would put every host's local rank 0 on core 0 (pingpong across two hosts
# took 45 s bound, 3.6 s unbound on 2 cores).
MH_BIND=(--bind-to none)
mh_rtrun() {
    ip netns exec "${MH_HOSTS[0]}" timeout -k 5 "$MH_TIMEOUT" "$RTRUN" --launch-agent "$MH_AGENT" \
        "${MH_BIND[@]}" "$@"
}

mh_leftovers() {
    local ns p f pid
    for ns in "${MH_HOSTS[@]}"; do
        for p in $(ip netns pids "$ns" 2>/dev/null); do
            echo "process left in $ns: $(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null) (pid $p)"
        done
    done
    ls -d /tmp/rtrun.* /dev/shm/rtm-* 2>/dev/null | sort >"$MH_TMP/after"
    for f in $(comm -13 "$MH_TMP/before" "$MH_TMP/after"); do
        case $f in
        /tmp/rtrun.*) pid=${f#/tmp/rtrun.}; pid=${pid%%.*} ;;
        *) pid=$(echo "$f" | sed -n 's|^/dev/shm/rtm-rtm\.[^.]*\.\([0-9]*\).*|\1|p') ;;
        esac
        # a live owner is another job's (tests of other components run too)
        if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
            echo "file left: $f"
        fi
    done
}

# mh_expect_clean WHAT: fails (returns 1, prints) when something was left.
mh_expect_clean() {
    local left i
    for ((i = 0; i < 30; i++)); do
        left=$(mh_leftovers)
        [ -z "$left" ] && return 0
        sleep 0.1
    done
    echo "FAIL: $1: left behind:" >&2
    echo "$left" >&2
    return 1
}

# Checks: each failed check is counted, mh_finish exits accordingly.
MH_FAILURES=0
MH_OUT="$MH_TMP/out"
MH_ERR="$MH_TMP/err"
mh_fail() {
    echo "FAIL: $*" >&2
    echo "--- stdout:" >&2; cat "$MH_OUT" >&2 2>/dev/null
    echo "--- stderr:" >&2; cat "$MH_ERR" >&2 2>/dev/null
    MH_FAILURES=$((MH_FAILURES + 1))
}
# mh_job ARGS: mh_rtrun with output in $MH_OUT/$MH_ERR, exit code in $MH_RC,
# seconds taken in $MH_SECS
mh_job() {
    local start
    start=$(date +%s.%N)
    echo "+ rtrun $*"
    mh_rtrun "$@" >"$MH_OUT" 2>"$MH_ERR"
    MH_RC=$?
    MH_SECS=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    echo "  (exit $MH_RC after $MH_SECS s)"
}
mh_expect_rc() {
    [ "$MH_RC" = "$1" ] || mh_fail "$2: exit code $MH_RC, expected $1"
    # rtd's own stderr reaches rtrun's: a sanitizer report there is a failure
    if grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" "$MH_ERR" 2>/dev/null; then
        mh_fail "$2: sanitizer report"
    fi
}
mh_expect_err() {
    grep -qE -- "$1" "$MH_ERR" || mh_fail "$2: stderr lacks /$1/"
}
mh_finish() {
    if [ "$MH_FAILURES" -gt 0 ]; then
        echo "$MH_FAILURES check(s) failed"
        exit 1
    fi
    echo "PASS"
    exit 0
}

# Transport modes of the integration scripts across hosts:
#   tcp             nothing preloaded: between hosts the default is tcp
#   verbs-fullmesh  softib (the userspace verbs emulator; it reaches peers in
#   verbs-ondemand  other namespaces over TCP) preloaded into every rank: the
#                   default selection then takes verbs between hosts, with
#                   RTM_VERBS_CONN=fullmesh or ondemand
# MH_MODES (a space-separated list of these) overrides a script's choice.
# mh_mode_args MODE: the rtrun arguments of MODE in MH_MODE_ARGS; returns 1
#   (after saying why) when MODE cannot run here
# mh_check_mode MODE WHAT: the ranks' debug log ($MH_ERR) shows that MODE's
#   transport, and no other, carried messages between the hosts
mh_mode_args() {
    MH_MODE_ARGS=(-x RTM_LOG_LEVEL=debug)
    case $1 in
    tcp) ;;
    verbs-fullmesh | verbs-ondemand)
        if ! t_softib_preload; then
            echo "mode $1 not run: libsoftib is not built ($T_SOFTIB)"
            return 1
        fi
        # softib's sockets and device pages: one directory every host sees
        mkdir -p "$MH_TMP/softib"
        MH_MODE_ARGS+=(-x "LD_PRELOAD=$T_SOFTIB_PRELOAD" -x "SOFTIB_DIR=$MH_TMP/softib"
            -x "RTM_VERBS_CONN=${1#verbs-}")
        ;;
    *)
        echo "FAIL: unknown mode $1 in MH_MODES" >&2
        exit 1
        ;;
    esac
    return 0
}
mh_check_mode() {
    local mode=$1 what=$2 tl=${1%%-*} other used
    [ "$tl" = tcp ] && other=verbs || other=tcp
    used=$(grep -c "reaches rank [0-9]* (.*) over $tl\$" "$MH_ERR")
    [ "$used" -gt 0 ] || mh_fail "$what: no rank reached a peer over $tl"
    grep -q "reaches rank [0-9]* (.*) over $other\$" "$MH_ERR" &&
        mh_fail "$what: a rank reached a peer over $other in mode $mode"
    case $mode in
    verbs-fullmesh) grep -q "verbs: .*RC full mesh" "$MH_ERR" || mh_fail "$what: verbs not in full mesh" ;;
    verbs-ondemand) grep -q "verbs: .*on-demand RC" "$MH_ERR" || mh_fail "$what: verbs not on demand" ;;
    esac
    return 0
}
