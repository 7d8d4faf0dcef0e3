#!/bin/bash
# rtrun --check's link check on three namespace hosts (issue 18): healthy
# links all pass; one host's veth limited to 8 Mbit/s (tbf) makes its two
# links SLOW in bandwidth and the third link stays ok; one host's MTU
# lowered to 1400 FAILs its two links as an MTU mismatch naming the host and
# the fix; one host whose link adds 40 ms (netem, or softib's delay fault
# over verbs where the kernel has no netem) makes its two links SLOW in
# latency; RNR NAKs from one host's receivers (softib) show as port
# counters of the hosts that retried. The thresholds are set
# for a busy 2-core machine shared by three "hosts" and other tests (its
# round trips reach milliseconds under load: on a cluster the defaults
# are right): latency outliers from 20 ms on, bandwidth under 1/10 of the
# best (tbf makes it 1/100).
. "${top_srcdir:?}/tests/multihost/netns.sh"
t_need tc
mh_setup 3
A=${MH_HOSTS[0]} B=${MH_HOSTS[1]} C=${MH_HOSTS[2]}
out=$MH_TMP/check
MH_TIMEOUT=120
export RTM_CHECK_LAT_FLOOR_US=20000 RTM_CHECK_RATIO=10

links() { sed -n '/^links:/,$p' "$out"; }

mh_rtrun --check --host "$A,$B,$C" > "$out" 2>&1
rc=$?
links
[ "$rc" = 0 ] || { mh_fail "healthy links: exit $rc"; cat "$out" >&2; }
grep -q "^links: all links passed" "$out" || mh_fail "healthy links: no green line"
[ "$(grep -c "<->.*  ok  " "$out")" = 3 ] || mh_fail "healthy links: not 3 ok links"

tc -n "$C" qdisc add dev eth0 root tbf rate 8mbit burst 16kb latency 500ms ||
    t_die "cannot add a tbf qdisc to $C's eth0"
mh_rtrun --check --host "$A,$B,$C" > "$out" 2>&1
rc=$?
links
[ "$rc" = 1 ] || mh_fail "slow host: exit $rc, expected 1"
grep -q "^  $A <-> $C  SLOW .*bandwidth .*(the best link: " "$out" || mh_fail "slow host: $A <-> $C not SLOW"
grep -q "^  $B <-> $C  SLOW .*bandwidth .*(the best link: " "$out" || mh_fail "slow host: $B <-> $C not SLOW"
grep -q "^  $A <-> $B  ok " "$out" || mh_fail "slow host: $A <-> $B not ok"
grep -q "fix: look at this link's cable" "$out" || mh_fail "slow host: no fix"
tc -n "$C" qdisc del dev eth0 root

ip -n "$B" link set eth0 mtu 1400
mh_rtrun --check --host "$A,$B,$C" > "$out" 2>&1
rc=$?
links
[ "$rc" = 1 ] || mh_fail "MTU: exit $rc, expected 1"
grep -q "^  $A <-> $B  FAIL .*MTU 1500/1400: the two ends disagree" "$out" || mh_fail "MTU: $A <-> $B not FAIL"
grep -q "^  $B <-> $C  FAIL .*MTU 1400/1500: the two ends disagree" "$out" || mh_fail "MTU: $B <-> $C not FAIL"
grep -q "fix: set one MTU on both ends .*mtu 1500 on $B" "$out" || mh_fail "MTU: no fix naming $B"
ip -n "$B" link set eth0 mtu 1500

# A launch agent that gives a host the environment in $MH_TMP/env-HOST.
cat > "$MH_TMP/agent" <<EOA
#!/bin/bash
h=\$1; shift
[ -f "$MH_TMP/env-\$h" ] && . "$MH_TMP/env-\$h"
exec ip netns exec "\$h" "\$@"
EOA
chmod +x "$MH_TMP/agent"

# A host whose link adds 40 ms to everything it sends: netem where the
# kernel has it; else, over verbs, softib's delay fault on that host alone
# (a launch agent that sets SOFTIB_FAULT for it).
if tc -n "$C" qdisc add dev eth0 root netem delay 40ms 2>/dev/null; then
    mh_rtrun --check --host "$A,$B,$C" > "$out" 2>&1
    rc=$?
    tc -n "$C" qdisc del dev eth0 root
elif t_softib_preload; then
    echo "export SOFTIB_FAULT=delay=40000" > "$MH_TMP/env-$C"
    ( export SOFTIB_DIR="$MH_TMP" LD_PRELOAD="$T_SOFTIB_PRELOAD" RTM_CHECK_LAT_FLOOR_US=10000 &&
      MH_AGENT="$MH_TMP/agent {host}" && mh_rtrun --check --host "$A,$B,$C" ) > "$out" 2>&1
    rc=$?
    rm -f "$MH_TMP/env-$C"
else
    t_die "neither netem nor softib: cannot add delay to a link"
fi
links
[ "$rc" = 1 ] || mh_fail "delay: exit $rc, expected 1"
grep -q "^  $A <-> $C  SLOW .*(the fastest link: " "$out" || mh_fail "delay: $A <-> $C not SLOW"
grep -q "^  $B <-> $C  SLOW .*(the fastest link: " "$out" || mh_fail "delay: $B <-> $C not SLOW"
grep -q "^  $A <-> $B  ok " "$out" || mh_fail "delay: $A <-> $B not ok"

# RDMA retries: over verbs (softib), host B's receivers answer the first
# 20 packets with RNR NAKs; each host has a sysfs tree of its own, whose
# port counters softib keeps, and the senders' hosts show the retries.
if t_softib_preload; then
    for h in "$A" "$B" "$C"; do
        echo "export SOFTIB_SYSFS=$MH_TMP/sysfs-$h SYSFS_PATH=$MH_TMP/sysfs-$h" > "$MH_TMP/env-$h"
    done
    echo "export SOFTIB_FAULT=rnr=20" >> "$MH_TMP/env-$B"
    ( . "$MH_TMP/env-$A" && export SOFTIB_DIR="$MH_TMP" LD_PRELOAD="$T_SOFTIB_PRELOAD" &&
      MH_AGENT="$MH_TMP/agent {host}" && mh_rtrun --check --host "$A,$B,$C" ) > "$out" 2>&1
    links
    grep -Eq "^  ($A|$C)  info  softib0:1 rnr_nak_retry_err \+[0-9]+ during the test" "$out" ||
        mh_fail "RNR: no host shows its RNR NAK retries"
    grep -q "^  $B  info  softib0:1 rnr_nak_retry_err" "$out" &&
        mh_fail "RNR: host $B, which sent the NAKs, shows retries"
    rm -f "$MH_TMP"/env-*
fi
mh_finish
