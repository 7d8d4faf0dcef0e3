#!/bin/bash
# A process of the job claiming another rank (issue 12, item 1: the proof
# is tied to the very rank's process, not only to the uid): rank 0's child,
# same user and admitted by the gate as rank 0's, runs PMIx_Init as rank 1
# and would PMIx_Abort(99). Must: its PMIx_Init never succeeds (it fails,
# or, as OpenPMIx 4.2's client sometimes does when the gate cuts it after
# the connect reply, never returns: rank 0 ends it once the cut is logged);
# the mismatch is logged once; the job ends with every rank's data right
# and exit 0.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/security/lib.sh"
. "$top_srcdir/tests/security/pmix_lib.sh"
t_require_rtrun
pj_init

touch "$PJ_DIR/start" "$PJ_DIR/go"
# Tells rank 0 the gate cut its child off (bounded only against a hang).
(for ((i = 0; i < 1200; i++)); do
    grep -q 'connected to the PMIx server of job .* as rank 1; closing' "$PJ_DIR/err" 2>/dev/null &&
        { touch "$PJ_DIR/cut"; exit 0; }
    sleep 0.1
done) &
watcher=$!
t_job 120 "$RTRUN" -n 2 --oversubscribe --bind-to none "$PJ_RANK" "$PJ_DIR" 0 \
    env PMIX_RANK=1 "$PJ_CLIENT" >"$PJ_DIR/out" 2>"$PJ_DIR/err"
rc=$?
kill "$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null
cat "$PJ_DIR/out"
cat "$PJ_DIR/err" >&2
echo "child of rank 0: $(cat "$PJ_DIR/child.status" 2>/dev/null)"
case "$(cat "$PJ_DIR/child.status" 2>/dev/null)" in
3|cut) ;;
*) t_fail "rank 0's child claiming rank 1 exited $(cat "$PJ_DIR/child.status" 2>/dev/null) (3: PMIx_Init refused; cut: cut off in PMIx_Init)" ;;
esac
grep -q 'attacker: PMIx_Init succeeded' "$PJ_DIR/out" && t_fail "the claim of rank 1 got through PMIx_Init"
[ "$rc" = 0 ] || t_fail "rtrun exited $rc, expected 0"
[ "$(grep -c ': data ok (job size 2)' "$PJ_DIR/out")" = 2 ] || t_fail "not every rank's data was right"
[ "$(grep -c 'a process of rank 0 connected to the PMIx server of job .* as rank 1' "$PJ_DIR/err")" = 1 ] ||
    t_fail "the claim of another rank was not logged once"
t_finish
