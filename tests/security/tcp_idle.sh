#!/bin/bash
# 40 idle connections at a 2-host launch. A stranger (an unprivileged user
# on rtrun's host) opens 40 connections to rtrun's daemon-tree port and
# sends nothing, reopening at once each one rtrun closes, so 40 are always
# open; only then does the launch agent start the other host's rtd (a gate
# file). Handshakes run concurrently, so the rtd is admitted while all 40
# are open: the ranks of both hosts complete their byte-checked ring and
# then hold (tcp_target hold), and at that moment the stranger still has
# all 40 open; then the job ends with exit 0. Before, rtrun
# read one connection at a time, 2 s each, and never left its accept loop
# while connections kept coming: the job never completed. Also: rtrun
# listens on the job's addresses, never on 0.0.0.0.
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/multihost/netns.sh"
. "$top_srcdir/tests/security/lib.sh"
. "$top_srcdir/tests/security/tcp_lib.sh"
t_need /usr/bin/python3 ss
sec_need_attacker
trap 'sec_cleanup; mh_cleanup' EXIT
mh_setup 2
dir=$MH_TMP
chmod 755 "$dir"
h0=${MH_HOSTS[0]}
h1=${MH_HOSTS[1]}
NIDLE=40
touch "$dir/go"   # tcp_target: no waiting, straight to the ring
MH_AGENT="/bin/sh $top_srcdir/tests/security/tcp_agent_gate.sh {host}"
MH_TIMEOUT=200

RTMTEST_GATE=$dir/gate RTM_LOG_LEVEL=debug tcp_start_job "$dir" mh_rtrun \
    --host "$h0:2,$h1:2" -n 4 "$top_builddir/tests/security/tcp_target" "$dir/go" hold
tcp_wait_lines "$dir/err" "rtrun's addresses" 1
tree=$(sed -n "s/.*rtrun's addresses \([0-9.]*:[0-9]*\).*/\1/p" "$dir/err" | head -1)
[ -n "$tree" ] || t_die "no daemon-tree address in rtrun's debug log"
listening=$(ip netns exec "$h0" ss -Hltnp | grep '"rtrun"')
echo "rtrun listens on: $listening"
echo "$listening" | grep -qE '(0\.0\.0\.0|\*|\[::\]):[0-9]' &&
    tcp_fail "rtrun listens on a wildcard address"

tcp_attack_from "$h0" idle "${tree%:*}" "${tree#*:}" $NIDLE >"$dir/idle" 2>&1 &
atk=$!
for ((i = 0; i < 600; i++)); do
    grep -q "^ready" "$dir/idle" && break
    kill -0 $atk 2>/dev/null || break
    sleep 0.1
done
grep -q "^ready" "$dir/idle" || t_die "the stranger did not open its connections: $(cat "$dir/idle")"
touch "$dir/gate"
# the rtd was admitted and every rank ran the ring: look at the stranger
# now, while the whole job (and rtrun's port) is still up
tcp_wait_lines "$dir/out" "ring ok" 4
atk_pid=$(sed -n 's/^pid \([0-9]*\)$/\1/p' "$dir/idle")
[ -n "$atk_pid" ] && kill -USR1 "$atk_pid" 2>/dev/null
for ((i = 0; i < 600; i++)); do
    grep -q "^idle open=" "$dir/idle" && break
    sleep 0.1
done
grep -q "^idle open=$NIDLE " "$dir/idle" ||
    tcp_fail "the stranger did not hold its $NIDLE connections while the job ran: $(grep idle "$dir/idle")"
touch "$dir/go.end"
tcp_finish_job
[ -n "$atk_pid" ] && kill -TERM "$atk_pid" 2>/dev/null
wait $atk
cat "$dir/idle"
[ "$TCP_JOB_RC" = 0 ] || tcp_fail "the job exited $TCP_JOB_RC, expected 0"
[ "$(grep -c "ring ok" "$dir/out")" = 4 ] || tcp_fail "not every rank finished the ring"
mh_expect_clean "after the job" || TCP_FAILURES=$((TCP_FAILURES + 1))
echo "attacker" >"$dir/attack"   # no per-connection refusals to check here
if [ "$TCP_FAILURES" -gt 0 ]; then
    echo "--- stdout:" >&2; cat "$dir/out" >&2
    echo "--- stderr:" >&2; grep -vE "debug:" "$dir/err" | tail -40 >&2
    echo "$TCP_FAILURES check(s) failed"
    exit 1
fi
echo PASS
