#!/bin/bash
# A job-state report across namespace hosts: the probe hang (diag_probe.sh's:
# rank 0 behind exhausted flow control, rank 1 probing) with rank 0 on
# one host and rank 1 on another (tcp between them). rtrun asks its own
# rank, the rtd of the other host asks its rank and sends the answer up the
# tree; the summary has both ranks and the chain between them.
. "${top_srcdir:?}/tests/multihost/netns.sh"
mh_setup 2
A=${MH_HOSTS[0]}
B=${MH_HOSTS[1]}
err=$MH_TMP/err
(cd "$MH_TMP" && mh_rtrun --host "$A:1,$B:1" -n 2 --timeout 8 -x RTM_DETACHED_SENDS=16 \
    "$top_builddir/tests/diag/diag_hang" probe 100) > "$MH_TMP/out" 2> "$err"
rc=$?
[ "$rc" = 124 ] || mh_fail "exit code $rc, expected 124"
for want in "2 of 2 running ranks answered" \
            "MPI_Probe(0, tag 99, WORLD): rank 1" \
            "rank 1 waits in MPI_Probe(0, tag 99, WORLD) for rank 0" \
            "rank 0 waits in MPI_Send(1, tag 1, WORLD) for rank 1" \
            "no eager credit (64 of 64 in use), no detached send left (16 of 16 out)"; do
    grep -qF -- "$want" "$err" || mh_fail "no line with: $want"
done
json=$(sed -n 's/^rtrun: full per-rank state: //p' "$err" | tail -1)
python3 - "$json" <<'PY' || mh_fail "JSON"
import json, sys
d = json.load(open(sys.argv[1]))
ranks = {r["rank"]: r for r in d["ranks"]}
assert set(ranks) == {0, 1}, ranks.keys()
peer = [p for p in ranks[0]["peers"] if p["rank"] == 1][0]
assert peer["transport"] == "tcp", peer
assert peer["transport_state"]["connection"] == "up", peer
PY
[ "$rc" = 124 ] && grep -q "2 of 2" "$err" || cat "$err" >&2
mh_expect_clean "report across hosts" || MH_FAILURES=$((MH_FAILURES + 1))
mh_finish
