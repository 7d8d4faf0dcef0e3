#!/bin/bash
# The fake-uid PMIx connect (issue 12, item 1): another local user, with an
# LD_PRELOAD shim making getuid/geteuid/getgid/getegid return 0, runs
# PMIx_Init as rank 1 of a running 3-rank root job, PMIx_Get(PMIX_JOB_SIZE),
# PMIx_Abort(99). Must: PMIx_Init fails; the job ends with every rank's
# data right and exit 0; the refusal is logged once, with the peer's
# address. (Before the gate, OpenPMIx's native security believed the
# claimed uid and the job ended with code 99.)
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/security/lib.sh"
. "$top_srcdir/tests/security/pmix_lib.sh"
t_require_rtrun
sec_need_attacker
pj_init
pj_preload

t_job 120 "$RTRUN" -n 3 --oversubscribe --bind-to none "$PJ_RANK" "$PJ_DIR" >"$PJ_DIR/out" 2>"$PJ_DIR/err" &
job=$!
pj_wait_files 'spawned.*' 3
touch "$PJ_DIR/start"
pj_wait_files 'ready.*' 3
pj_attack_env "$(pj_rank_pid 1)" 1
sec_as_attacker env "${PJ_ENV[@]}" LD_PRELOAD="$PJ_PRELOAD" \
    timeout -k 5 60 "$PJ_CLIENT" >"$PJ_DIR/attack" 2>&1
arc=$?
cat "$PJ_DIR/attack"
[ "$arc" = 3 ] || t_fail "the fake-uid client exited $arc (3: PMIx_Init refused)"
grep -q "job size" "$PJ_DIR/attack" && t_fail "the attacker read the job size"
touch "$PJ_DIR/go"
wait "$job"
rc=$?
cat "$PJ_DIR/out"
cat "$PJ_DIR/err" >&2
[ "$rc" = 0 ] || t_fail "rtrun exited $rc, expected 0"
[ "$(grep -c ': data ok (job size 3)' "$PJ_DIR/out")" = 3 ] || t_fail "not every rank's data was right"
[ "$(pj_refusals)" = 1 ] || t_fail "$(pj_refusals) refusals logged, expected 1"
grep -q "refused a PMIx connection from 127\.0\.0\.1:[0-9]* to job .*uid $T_ATTACKER_UID" \
    "$PJ_DIR/err" || t_fail "the refusal does not name the peer's address and uid"
t_finish
