#!/bin/bash
# Refused and half-finished PMIx connections from another local user (issue
# 12, item 3) against a 4-rank job: a plain PMIx_Init as rank 1 before any
# rank has connected, a connection that sends nothing and stays open for
# the whole job, and a plain PMIx_Init as rank 2 while every rank is
# connected. Must: each fails; the job ends with every rank's data right
# and exit 0 while the idle connection is still open; each refusal is
# logged once, with its peer's address. (Before the gate, OpenPMIx refused
# the first itself and then never let another client finish PMIx_Init: the
# job hung; and an idle connection stalled every rank's PMIx_Init.)
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/security/lib.sh"
. "$top_srcdir/tests/security/pmix_lib.sh"
t_require_rtrun
sec_need_attacker
pj_init

t_job 120 "$RTRUN" -n 4 --oversubscribe --bind-to none "$PJ_RANK" "$PJ_DIR" >"$PJ_DIR/out" 2>"$PJ_DIR/err" &
job=$!
pj_wait_files 'spawned.*' 4
pj_attack_env "$(pj_rank_pid 1)" 1
sec_as_attacker env "${PJ_ENV[@]}" timeout -k 5 60 "$PJ_CLIENT" >"$PJ_DIR/attack1" 2>&1
arc=$?
cat "$PJ_DIR/attack1"
[ "$arc" = 3 ] || t_fail "the plain client (before the ranks) exited $arc (3: PMIx_Init refused)"
# An idle connection: open, nothing sent, held until the test ends.
port=$(printf '%s\n' "${PJ_ENV[@]}" | sed -n 's/^PMIX_SERVER_URI4=.*:\([0-9]*\)$/\1/p')
sec_as_attacker bash -c "exec 3<>/dev/tcp/127.0.0.1/$port && echo connected && exec sleep 110" \
    >"$PJ_DIR/idle" 2>&1 &
idle=$!
for ((i = 0; i < 100; i++)); do
    grep -q connected "$PJ_DIR/idle" && break
    sleep 0.1
done
grep -q connected "$PJ_DIR/idle" || t_fail "the idle connection could not connect"
touch "$PJ_DIR/start"
pj_wait_files 'ready.*' 4
pj_attack_env "$(pj_rank_pid 2)" 2
sec_as_attacker env "${PJ_ENV[@]}" timeout -k 5 60 "$PJ_CLIENT" >"$PJ_DIR/attack2" 2>&1
arc=$?
cat "$PJ_DIR/attack2"
[ "$arc" = 3 ] || t_fail "the plain client (ranks connected) exited $arc (3: PMIx_Init refused)"
touch "$PJ_DIR/go"
wait "$job"
rc=$?
kill -0 "$idle" 2>/dev/null || t_fail "the job ended only once the idle connection closed"
kill "$idle" 2>/dev/null
cat "$PJ_DIR/out"
cat "$PJ_DIR/err" >&2
[ "$rc" = 0 ] || t_fail "rtrun exited $rc, expected 0"
[ "$(grep -c ': data ok (job size 4)' "$PJ_DIR/out")" = 4 ] || t_fail "not every rank's data was right"
[ "$(pj_refusals)" = 3 ] || t_fail "$(pj_refusals) refusals logged, expected 3"
peers=$(sed -n 's/.*refused a PMIx connection from \(127\.0\.0\.1:[0-9]*\) .*/\1/p' "$PJ_DIR/err")
[ "$(printf '%s\n' $peers | sort -u | wc -l)" = 3 ] ||
    t_fail "the refusals do not name three peer addresses, once each: $peers"
t_finish
