#!/bin/bash
# Garbage on every port a 2-host job listens on, from a stranger (an
# unprivileged user) on rtrun's host: each rank's tcp port (4 ranks, tcp
# between all of them) gets random bytes, a truncated HELLO, a HELLO then
# a frame header of 4 GiB, an old-style HELLO with a 4 GiB frame; rtrun's
# daemon-tree port gets random bytes, a header of 4 GiB, a truncated
# HELLO, a HELLO naming a host whose rtd is in already. Each connection
# must be refused and its refusal logged once with the stranger's address;
# the job then runs its byte-checked ring and exits 0.
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/multihost/netns.sh"
. "$top_srcdir/tests/security/lib.sh"
. "$top_srcdir/tests/security/tcp_lib.sh"
t_need /usr/bin/python3
sec_need_attacker
trap 'sec_cleanup; mh_cleanup' EXIT
mh_setup 2
dir=$MH_TMP
chmod 755 "$dir"
h0=${MH_HOSTS[0]}
h1=${MH_HOSTS[1]}

RTM_LOG_LEVEL=debug tcp_start_job "$dir" mh_rtrun --host "$h0:2,$h1:2" -n 4 \
    -x RTM_TRANSPORTS=self,tcp -x RTM_LOG_LEVEL=debug \
    "$top_builddir/tests/security/tcp_target" "$dir/go"
tcp_wait_lines "$dir/out" "^rank [0-9] waiting" 4
tree=$(sed -n "s/.*rtrun's addresses \([0-9.]*:[0-9]*\).*/\1/p" "$dir/err" | head -1)
[ -n "$tree" ] || t_die "no daemon-tree address in rtrun's debug log"
for kind in random tree-huge tree-trunc tree-badmac; do
    tcp_attack_from "$h0" garbage "${tree%:*}" "${tree#*:}" "$kind" >>"$dir/attack" 2>&1
done
for r in 0 1 2 3; do
    addr=$(tcp_rank_addr $r)
    port=$(tcp_rank_port $r)
    [ -n "$addr" ] && [ -n "$port" ] || t_die "no tcp address of rank $r in the debug log"
    for kind in random trunc-hello huge-frame huge-v1; do
        tcp_attack_from "$h0" garbage "$addr" "$port" "$kind" >>"$dir/attack" 2>&1
    done
done
touch "$dir/go"
tcp_finish_job
[ "$TCP_JOB_RC" = 0 ] || tcp_fail "the job exited $TCP_JOB_RC, expected 0"
[ "$(grep -c "ring ok" "$dir/out")" = 4 ] || tcp_fail "not every rank finished the ring"
[ "$(grep -c "^conn " "$dir/attack")" = 20 ] || tcp_fail "the attacker made $(grep -c "^conn " "$dir/attack") connections, expected 20"
tcp_check_refusals
mh_expect_clean "after the attacks" || TCP_FAILURES=$((TCP_FAILURES + 1))
tcp_report
