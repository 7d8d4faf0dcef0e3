#!/bin/bash
# rtrun --check across namespace hosts, through the launch agent: every
# host's table under its name, all green; then one host's memlock too low
# for its (softib) RDMA device: that host is named with the failure and its
# fix, and rtrun exits 1; then every host's softib port held DOWN: named
# per host as a failed RDMA port with its fix.
. "${top_srcdir:?}/tests/multihost/netns.sh"
mh_setup 2
A=${MH_HOSTS[0]}
B=${MH_HOSTS[1]}
out=$MH_TMP/check
mh_rtrun --check --host "$A,$B" > "$out" 2>&1
rc=$?
[ "$rc" = 0 ] || { mh_fail "healthy hosts: exit $rc"; cat "$out" >&2; }
grep -q "^$A: all checks passed" "$out" || mh_fail "no green line for $A"
grep -q "^$B: all checks passed" "$out" || mh_fail "no green line for $B"
if t_softib_preload; then
    # every host sees an RDMA device (softib) and a 1 MiB memlock limit
    ( ulimit -l 1024 && export SOFTIB_DIR="$MH_TMP" LD_PRELOAD="$T_SOFTIB_PRELOAD" &&
      mh_rtrun --check --host "$A,$B" ) > "$out" 2>&1
    rc=$?
    [ "$rc" = 1 ] || { mh_fail "memlock: exit $rc, expected 1"; cat "$out" >&2; }
    grep -q "^$B: FAILED" "$out" || mh_fail "memlock: $B not named FAILED"
    grep -qF "fix: raise the limit: ulimit -l unlimited" "$out" || mh_fail "memlock: no fix"
    ( export SOFTIB_DIR="$MH_TMP" SOFTIB_PORT_STATE=down \
        LD_PRELOAD="$T_SOFTIB_PRELOAD" && mh_rtrun --check --host "$A,$B" ) > "$out" 2>&1
    rc=$?
    [ "$rc" = 1 ] || { mh_fail "port down: exit $rc, expected 1"; cat "$out" >&2; }
    for h in "$A" "$B"; do
        grep -q "^$h: FAILED" "$out" || mh_fail "port down: $h not named FAILED"
    done
    [ "$(grep -c "rdma softib0:1 *FAIL *port DOWN" "$out")" = 2 ] || mh_fail "port down: not on both hosts"
    grep -qF "fix: bring the port up" "$out" || mh_fail "port down: no fix"
fi
mh_finish
