#!/bin/bash
# A report on demand, the job going on: SIGUSR1 to rtrun, and
# `rtrun --report-state PID` from another process (the summary printed
# there too), once both ranks of the probe hang (diag_probe.sh's: rank 0
# behind exhausted flow control, rank 1 probing) wait; then SIGINT ends
# the job. --report-state refuses a pid that is not an rtrun, and one of
# another user.
. "$(dirname "$0")/lib.sh"

(cd "$DIAG_DIR" && exec timeout -k 5 120 "$RTRUN" -x DIAG_TEST_MARK="$MARK" -x RTM_DETACHED_SENDS=16 -n 2 "$HANG" probe 100) \
    > "$OUT" 2> "$ERR" &
job=$!
for _ in $(seq 600); do
    [ "$(grep -c '^ready' "$OUT")" = 2 ] && break
    sleep 0.1
done
rtrun_pid=$(pgrep -P "$job" -x rtrun || pgrep -P "$job" -x lt-rtrun || echo "$job")
[ -n "$rtrun_pid" ] || diag_fail "no rtrun process"
# The ranks answer from inside their waits: until both wait the report
# names one as not answering; ask again until both answered (bounded).
ok=0
for _ in $(seq 20); do
    "$RTRUN" --report-state "$rtrun_pid" > "$DIAG_DIR/asked" 2>&1
    if grep -q "2 of 2 running ranks answered" "$DIAG_DIR/asked"; then ok=1; break; fi
    sleep 0.5
done
[ "$ok" = 1 ] || { diag_fail "--report-state: no full report"; cat "$DIAG_DIR/asked" >&2; }
grep -qF "rank 1 waits in MPI_Probe(0, tag 99, WORLD) for rank 0" "$DIAG_DIR/asked" ||
    diag_fail "--report-state output lacks the chain"
grep -qF "full per-rank state: " "$DIAG_DIR/asked" || diag_fail "--report-state names no JSON"
kill -USR1 "$rtrun_pid"
for _ in $(seq 300); do
    [ "$(grep -c 'full per-rank state' "$ERR")" -ge 2 ] && break
    sleep 0.1
done
[ "$(grep -c 'full per-rank state' "$ERR")" -ge 2 ] || diag_fail "no report after SIGUSR1"
grep -qF "job state (asked by SIGUSR1)" "$ERR" || diag_fail "the report does not say SIGUSR1"
kill -0 "$rtrun_pid" 2>/dev/null || diag_fail "the job did not go on after the reports"
for f in $(sed -n 's/^rtrun: full per-rank state: //p' "$ERR"); do
    python3 -m json.tool "$f" > /dev/null || diag_fail "$f does not parse"
done
kill -INT "$rtrun_pid"
wait "$job"
# refusals
"$RTRUN" --report-state $$ > "$DIAG_DIR/refused" 2>&1 && diag_fail "--report-state of a shell succeeded"
grep -q "not rtrun" "$DIAG_DIR/refused" || diag_fail "no 'not rtrun' refusal: $(cat "$DIAG_DIR/refused")"
if [ "$(id -u)" = 0 ] && id nobody > /dev/null 2>&1 && command -v setpriv > /dev/null; then
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$RTRUN" --report-state 1 \
        > "$DIAG_DIR/refused" 2>&1 && diag_fail "--report-state of another user's process succeeded"
    grep -q "another user" "$DIAG_DIR/refused" || diag_fail "no 'another user' refusal: $(cat "$DIAG_DIR/refused")"
fi
diag_finish
