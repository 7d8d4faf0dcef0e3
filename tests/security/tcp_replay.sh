#!/bin/bash
# A recorded handshake is of no use: rank 0 of a 4-rank tcp job connects to
# rank 1 under strace (the recording), then a stranger (an unprivileged
# local user) replays what rank 0 sent -- to rank 1 itself, to rank 2 as
# it was (its HELLO names rank 1), and to ranks 2 and 3 with the HELLO's
# peer rank rewritten -- each followed by an EAGER frame "from rank 0".
# Ranks 2 and 3 had no connection to rank 0 yet. Each replay must be
# refused (a fresh challenge, or the wrong rank) and logged once with its
# address; no replayed frame may arrive; the ring runs byte-checked, exit 0.
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/lib.sh"
. "$top_srcdir/tests/security/lib.sh"
. "$top_srcdir/tests/security/tcp_lib.sh"
t_require_rtrun
t_need /usr/bin/python3 strace
sec_need_attacker
dir=$(mktemp -d /tmp/rtm-tcpreplay.XXXXXX)
chmod 755 "$dir"   # the attacker reads the recording
trap 'sec_cleanup; rm -rf "$dir"' EXIT

RTMTEST_STRACE=$dir/rank0.strace RTM_TRANSPORTS=self,tcp RTM_LOG_LEVEL=debug \
    tcp_start_job "$dir" timeout -k 5 200 "$RTRUN" -n 4 --oversubscribe \
    /bin/sh "$top_srcdir/tests/security/tcp_strace0.sh" \
    "$top_builddir/tests/security/tcp_target" "$dir/go" record
tcp_wait_lines "$dir/out" "^phase1 done" 1
tcp_wait_lines "$dir/out" "^rank [0-9] waiting" 4
chmod 644 "$dir/rank0.strace"
grep -q 'x72\\x74\\x68\\x73' "$dir/rank0.strace" || t_die "strace recorded no handshake of rank 0"
for target in "1" "2" "2 patch" "3 patch"; do
    set -- $target
    port=$(tcp_rank_port "$1")
    [ -n "$port" ] || t_die "no tcp port of rank $1 in the debug log"
    sec_as_attacker "${TCP_ATTACK[@]}" replay 127.0.0.1 "$port" "$dir/rank0.strace" $target \
        >>"$dir/attack" 2>&1
done
touch "$dir/go"
tcp_finish_job
[ "$TCP_JOB_RC" = 0 ] || tcp_fail "the job exited $TCP_JOB_RC, expected 0"
[ "$(grep -c "ring ok" "$dir/out")" = 4 ] || tcp_fail "not every rank finished the ring"
tcp_check_refusals
tcp_report
