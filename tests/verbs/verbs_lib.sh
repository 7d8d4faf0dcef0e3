# Shared by the verbs test drivers (sourced): real rtmsg jobs under rtrun on
# softib, the userspace verbs emulator, preloaded into every rank, with
# RTM_TRANSPORTS=self,verbs so verbs carries every message between ranks.
. "$top_srcdir/tests/integration/lib.sh"

t_softib_preload || t_skip "libsoftib is not built ($T_SOFTIB): no verbs device to test on"
t_require_rtrun
VRB_SIB=$T_SOFTIB
VRB_PRELOAD=$T_SOFTIB_PRELOAD

VRB_TMP=$(mktemp -d /tmp/rtm-verbs.XXXXXX) || exit 1
export SOFTIB_DIR="$VRB_TMP"
trap 'rm -rf "$VRB_TMP"' EXIT
trap 'exit 1' INT TERM
export RTM_TRANSPORTS=self,verbs

# vrb_run N PROG [ARGS...]: itest_run with softib preloaded (rtrun passes
# its environment to the ranks; rtrun itself makes no verbs call).
vrb_run() {
    LD_PRELOAD="$VRB_PRELOAD" itest_run "$@"
}

# vrb_check_used LOG N: the debug log shows every pair of N ranks on verbs
vrb_check_used() {
    local log=$1 n=$2 pairs
    pairs=$(grep -c 'reaches rank [0-9]* (.*) over verbs' "$log")
    if [ "$pairs" -lt $((n * (n - 1) / 2)) ]; then
        echo "FAIL: $n ranks: only $pairs 'reaches rank ... over verbs' lines in the debug log" >&2
        return 1
    fi
    return 0
}

# The connection mode under test (RTM_VERBS_CONN, default auto: full mesh for
# these small jobs), printed once so a log says which mode ran.
echo "== verbs connection mode: ${RTM_VERBS_CONN:-auto}${RTM_VERBS_XRC:+, RTM_VERBS_XRC=$RTM_VERBS_XRC}"

# vrb_check_qps LOG N WANT: every one of N ranks closed its verbs interface
# holding WANT RC QPs (the debug line "rank R closing: ... held K RC QPs").
vrb_check_qps() {
    local log=$1 n=$2 want=$3 r k bad=0
    for ((r = 0; r < n; r++)); do
        k=$(sed -n "s/.*verbs: rank $r closing: .*, held \([0-9]*\) RC QPs.*/\1/p" "$log" | head -n 1)
        if [ "$k" != "$want" ]; then
            echo "FAIL: rank $r of $n held ${k:-?} RC QPs, expected $want" >&2
            bad=1
        fi
    done
    return $bad
}

# vrb_check_xrc_qps LOG N: XRC with N ranks on one host: every rank closed
# its interface holding one XRC INI QP (one per remote host; here the one
# host), and the TGT QPs of all ranks add up to N (one per INI QP), so the
# host holds 2N QPs for its connections where RC holds N(N-1).
vrb_check_xrc_qps() {
    local log=$1 n=$2 r line ini tgt sum=0 bad=0
    for ((r = 0; r < n; r++)); do
        line=$(grep -m1 "verbs: rank $r closing: .*held [0-9]* XRC INI QPs" "$log")
        ini=$(sed -n 's/.*held \([0-9]*\) XRC INI QPs and \([0-9]*\) XRC TGT QPs.*/\1/p' <<<"$line")
        tgt=$(sed -n 's/.*held \([0-9]*\) XRC INI QPs and \([0-9]*\) XRC TGT QPs.*/\2/p' <<<"$line")
        if [ "$ini" != 1 ] || [ -z "$tgt" ]; then
            echo "FAIL: rank $r of $n held ${ini:-?} XRC INI QPs (${tgt:-?} TGT), expected 1 INI QP" >&2
            bad=1
            continue
        fi
        sum=$((sum + ini + tgt))
    done
    echo "  XRC, $n ranks on one host: $sum INI + TGT QPs in all (RC: $((n * (n - 1))))"
    if [ $bad = 0 ] && [ "$sum" -ne $((2 * n)) ]; then
        echo "FAIL: $n ranks hold $sum XRC QPs, expected $((2 * n)) (one INI and one TGT QP per rank)" >&2
        bad=1
    fi
    if [ $bad = 0 ] && [ "$n" -ge 4 ] && [ "$sum" -ge $((n * (n - 1))) ]; then
        echo "FAIL: XRC holds no fewer QPs than RC with $n ranks" >&2
        bad=1
    fi
    return $bad
}
