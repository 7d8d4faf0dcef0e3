#!/bin/bash
# A process of the job claiming another rank (issue 12, item 1: the proof
# is tied to the very rank's process, not only to the uid): rank 0's child,
# same user and admitted by the gate as rank 0's, runs PMIx_Init as rank 1
# and would PMIx_Abort(99). Must: its PMIx_Init fails; the mismatch is
# logged once; the job ends with every rank's data right and exit 0.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/security/lib.sh"
. "$top_srcdir/tests/security/pmix_lib.sh"
t_require_rtrun
pj_init

touch "$PJ_DIR/start" "$PJ_DIR/go"
t_job 120 "$RTRUN" -n 2 --oversubscribe --bind-to none "$PJ_RANK" "$PJ_DIR" 0 \
    env PMIX_RANK=1 "$PJ_CLIENT" >"$PJ_DIR/out" 2>"$PJ_DIR/err"
rc=$?
cat "$PJ_DIR/out"
cat "$PJ_DIR/err" >&2
[ "$(cat "$PJ_DIR/child.status" 2>/dev/null)" = 3 ] ||
    t_fail "rank 0's child claiming rank 1 exited $(cat "$PJ_DIR/child.status" 2>/dev/null) (3: PMIx_Init refused)"
[ "$rc" = 0 ] || t_fail "rtrun exited $rc, expected 0"
[ "$(grep -c ': data ok (job size 2)' "$PJ_DIR/out")" = 2 ] || t_fail "not every rank's data was right"
[ "$(grep -c 'a process of rank 0 connected to the PMIx server of job .* as rank 1' "$PJ_DIR/err")" = 1 ] ||
    t_fail "the claim of another rank was not logged once"
t_finish
