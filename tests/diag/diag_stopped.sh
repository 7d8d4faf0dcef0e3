#!/bin/bash
# A rendezvous whose receiver stopped itself (SIGSTOP) before it received:
# the sender's 1 MiB RTS is not matched. rtrun names the sender's wait and
# the stopped rank as one that did not answer, and says it is stopped.
. "$(dirname "$0")/lib.sh"

diag_run -n 2 --timeout 5 "$HANG" rndv
[ "$diag_rc" = 124 ] || diag_fail "exit code $diag_rc, expected 124"
diag_expect_line "1 of 2 running ranks answered"
diag_expect_line "rank 0 waits in MPI_Send(1, tag 3, WORLD) for rank 1"
diag_expect_line "its send (tag 3, 1048576 bytes): RTS sent, not yet matched by the receiver"
diag_expect_line "-- rank 1 did not answer"
diag_expect_line "did not answer within 5 s: stopped (SIGSTOP or a debugger)"
if json=$(diag_json); then
    python3 - "$json" <<'PY' || diag_fail "JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
assert [r["rank"] for r in d["ranks"]] == [0], d["ranks"]
assert d["no_answer"][0]["rank"] == 1 and d["no_answer"][0]["process"].startswith("stopped"), d
PY
fi
diag_finish
