#!/bin/bash
# A sender behind exhausted flow control: rank 0 sends 100 blocking 8 B
# messages with tag 1 (64 eager credits, 16 detached sends: the 81st waits
# for its receive); rank 1 probes for (0, 99), which never comes. At
# --timeout, before anything is killed, rtrun names the wait-for chain:
# rank 1 in MPI_Probe waits for rank 0, rank 0 in MPI_Send waits for rank 1
# with no eager credit and no detached send left; the JSON detail parses
# and holds both ranks.
. "$(dirname "$0")/lib.sh"

diag_run -n 2 --timeout 5 -x RTM_DETACHED_SENDS=16 "$HANG" probe 100
[ "$diag_rc" = 124 ] || diag_fail "exit code $diag_rc, expected 124"
diag_expect_line "job state (timeout of 5 s expired): 2 of 2 running ranks answered"
diag_expect_line "MPI_Probe(0, tag 99, WORLD): rank 1"
diag_expect_line "MPI_Send(1, tag 1, WORLD): rank 0"
diag_expect_line "rank 1 waits in MPI_Probe(0, tag 99, WORLD) for rank 0"
diag_expect_line "rank 0 waits in MPI_Send(1, tag 1, WORLD) for rank 1"
diag_expect_line "no eager credit (64 of 64 in use), no detached send left (16 of 16 out)"
diag_expect_line "its send (tag 1, 8 bytes): RTS sent, not yet matched by the receiver"
diag_expect_line "a cycle, nobody can move"
# the report came before the kill: the job ended after it
grep -n "full per-rank state" "$ERR" | head -1 | cut -d: -f1 > "$DIAG_DIR/l1"
grep -n "ending the job after the timeout" "$ERR" | head -1 | cut -d: -f1 > "$DIAG_DIR/l2"
[ -s "$DIAG_DIR/l1" ] && [ -s "$DIAG_DIR/l2" ] && [ "$(cat "$DIAG_DIR/l1")" -lt "$(cat "$DIAG_DIR/l2")" ] ||
    diag_fail "the report did not come before the job was ended"
if json=$(diag_json); then
    python3 - "$json" <<'PY' || diag_fail "JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
ranks = {r["rank"]: r for r in d["ranks"]}
assert set(ranks) == {0, 1}, ranks.keys()
r0, r1 = ranks[0], ranks[1]
assert r1["call"]["name"] == "MPI_Probe", r1["call"]
assert r0["waits_for"] == 1 and r1["waits_for"] == 0
peer = [p for p in r0["peers"] if p["rank"] == 1][0]
assert peer["eager_credits_in_use"] == peer["eager_credit_limit"] == 64, peer
assert peer["detached_sends_out"] == peer["detached_send_limit"] == 16, peer
assert "ring_lines" in peer["transport_state"], peer
sends = [q for q in r0["requests"] if q["kind"] == "send"]
assert len([q for q in sends if q["detached"]]) == 16, sends
send = [q for q in sends if not q["detached"]][0]
assert send["peer"] == 1 and send["tag"] == 1 and send["bytes"] == 8, send
comm = [c for c in r1["communicators"] if c["comm"] == "WORLD" and not c["collective_context"]][0]
assert comm["unexpected"] >= 64 + 16, comm
assert comm["unexpected_first"][0]["tag"] == 1, comm
PY
fi
diag_finish
