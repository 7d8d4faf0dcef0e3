#!/bin/bash
# A stranger (an unprivileged local user) sends every rank of a 4-rank tcp
# job a HELLO claiming to be another rank, then an EAGER frame, while no
# pair is connected yet (the ranks poll, nobody sends): once in the old
# handshake (the namespace's job tag, all it took before), once in the new
# (a PROOF it cannot compute). Each connection must be refused and logged
# once with its address; no forged message may reach a rank (the ranks
# fail on any message before the ring); the ring then runs byte-checked
# and the job exits 0.
. "${top_srcdir:?run through make check (top_srcdir unset)}/tests/lib.sh"
. "$top_srcdir/tests/security/lib.sh"
. "$top_srcdir/tests/security/tcp_lib.sh"
t_require_rtrun
t_need /usr/bin/python3
sec_need_attacker
dir=$(mktemp -d /tmp/rtm-tcpforge.XXXXXX)
trap 'sec_cleanup; rm -rf "$dir"' EXIT

RTM_TRANSPORTS=self,tcp RTM_LOG_LEVEL=debug tcp_start_job "$dir" \
    timeout -k 5 200 "$RTRUN" -n 4 --oversubscribe "$top_builddir/tests/security/tcp_target" \
    "$dir/go"
tcp_wait_lines "$dir/out" "^rank [0-9] waiting" 4
nspace=$(sed -n 's/.*PMIx job \([^:]*\): rank.*/\1/p' "$dir/err" | head -1)
[ -n "$nspace" ] || t_die "no namespace in the ranks' debug log"
for r in 0 1 2 3; do
    port=$(tcp_rank_port $r)
    [ -n "$port" ] || t_die "no tcp port of rank $r in the debug log"
    # claim the rank below (rank 3 for rank 0): a lower rank's connection
    # is the one the rule always accepts
    claim=$(((r + 3) % 4))
    sec_as_attacker "${TCP_ATTACK[@]}" forge 127.0.0.1 "$port" "$nspace" "$claim" "$r" 4 \
        >>"$dir/attack" 2>&1
done
touch "$dir/go"
tcp_finish_job
[ "$TCP_JOB_RC" = 0 ] || tcp_fail "the job exited $TCP_JOB_RC, expected 0"
[ "$(grep -c "ring ok" "$dir/out")" = 4 ] || tcp_fail "not every rank finished the ring"
tcp_check_refusals
tcp_report
