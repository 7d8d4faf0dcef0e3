#!/bin/bash
# A receive no rank sends to (rank 1: MPI_Recv(0, tag 5); rank 0 waits in
# MPI_Barrier), and a collective one rank never joins (ranks 0-1 in
# MPI_Barrier, rank 2 in a receive): at --timeout the summary names each
# call, the ranks in it, whom they wait for and the schedule step; the same
# on an intercommunicator (evens and odds), whose steps name ranks of the
# remote group and the world rank they wait for, not the hidden bridge's.
. "$(dirname "$0")/lib.sh"

diag_run -n 2 --timeout 5 "$HANG" recv
[ "$diag_rc" = 124 ] || diag_fail "recv: exit code $diag_rc, expected 124"
diag_expect_line "2 of 2 running ranks answered"
diag_expect_line "MPI_Recv(0, tag 5, WORLD): rank 1"
diag_expect_line "rank 1 waits in MPI_Recv(0, tag 5, WORLD) for rank 0"
diag_expect_line "its receive (tag 5, 4 bytes): posted, no matching message has arrived"
diag_json > /dev/null

diag_run -n 3 --oversubscribe --timeout 5 "$HANG" coll
[ "$diag_rc" = 124 ] || diag_fail "coll: exit code $diag_rc, expected 124"
diag_expect_line "3 of 3 running ranks answered"
diag_expect_line "MPI_Barrier(WORLD): ranks 0-1"
diag_expect_line "MPI_Recv(ANY_SOURCE, tag 7, WORLD): rank 2"
diag_expect_line "waits in MPI_Barrier(WORLD), schedule round"
diag_expect_line "receive from rank 2 (tag 0) for rank 2"
diag_expect_line "rank 2 waits in MPI_Recv(ANY_SOURCE, tag 7, WORLD) for any rank"
if json=$(diag_json); then
    python3 - "$json" <<'PY' || diag_fail "coll: JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
ranks = {r["rank"]: r for r in d["ranks"]}
for r in (0, 1):
    c = ranks[r]["collective"]
    assert c["name"] == "MPI_Barrier" and c["comm"] == "WORLD" and c["waits_for"] == 2, c
    assert c["step"].startswith("schedule round"), c
assert ranks[2]["collective"] is None
PY
fi
diag_run -n 4 --oversubscribe --timeout 5 "$HANG" icoll
[ "$diag_rc" = 124 ] || diag_fail "icoll: exit code $diag_rc, expected 124"
diag_expect_line "MPI_Barrier(evens-odds): ranks 0-2"
diag_expect_line "rank 0 waits in MPI_Barrier(evens-odds), schedule round 1 of 2: receive from remote rank 1 (tag 0) for rank 3"
diag_expect_line "rank 2 waits in MPI_Barrier(evens-odds), schedule round 2 of 2: receive from remote rank 1 (tag 0) for rank 3"
if json=$(diag_json); then
    python3 - "$json" <<'PY' || diag_fail "icoll: JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
ranks = {r["rank"]: r for r in d["ranks"]}
for r in (0, 2):
    c = ranks[r]["collective"]
    assert c["comm"] == "evens-odds" and c["waits_for"] == 3, c
    assert "remote rank 1" in c["step"], c
assert ranks[3]["collective"] is None
PY
fi
diag_finish
