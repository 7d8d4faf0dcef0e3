#!/bin/bash
# A verbs peer whose link softib cut: the probe hang over verbs. Rank 0's
# softib alone gets SOFTIB_FAULT=cut=all@8 (after its eighth packet, every
# packet to or from rank 1 is dropped): MPI_Init's own traffic (the context
# id agreement of MPI_COMM_WORLD's collective twin) is fewer packets than
# that, so the cut falls in rank 0's eager sends. Cut on both sides, a rank 1
# slowed down by a loaded machine counted its own acknowledgements of those
# sends to its limit before it left MPI_Init, and never got out of it. Once both ranks
# are in their calls, SIGUSR1 to rtrun: rank 0's summary names its send
# queued at the transport and the QP (RTS, work requests outstanding, no
# send credits), the JSON holds the QP state; then the QP's retries run
# out (~8.6 s) and the job ends by itself with the error line naming the
# QP, as without a report.
. "$(dirname "$0")/lib.sh"
t_softib_preload || t_skip "libsoftib is not built: no verbs device to test on"
export SOFTIB_DIR=$DIAG_DIR RTM_TRANSPORTS=self,verbs

# shellcheck disable=SC2016 # expanded by each rank's shell
(cd "$DIAG_DIR" && LD_PRELOAD="$T_SOFTIB_PRELOAD" \
    exec timeout -k 5 120 "$RTRUN" -x DIAG_TEST_MARK="$MARK" -n 2 sh -c \
    '[ "$PMIX_RANK" = 0 ] && export SOFTIB_FAULT=cut=all@8; exec "$0" "$@"' "$HANG" probe 80) \
    > "$OUT" 2> "$ERR" &
job=$!
for _ in $(seq 600); do
    [ "$(grep -c '^ready' "$OUT")" = 2 ] && break
    sleep 0.1
done
rtrun_pid=$(pgrep -P "$job" -x rtrun || echo "$job")
for _ in $(seq 40); do
    kill -USR1 "$rtrun_pid" 2>/dev/null || break
    for _ in $(seq 100); do
        [ "$(grep -c 'full per-rank state' "$ERR")" -ge 1 ] && break
        sleep 0.05
    done
    grep -q "2 of 2 running ranks answered" "$ERR" && break
done
wait "$job"
rc=$?
[ "$rc" != 0 ] || diag_fail "the job succeeded although its link was cut"
diag_expect_line "2 of 2 running ranks answered"
diag_expect_line "rank 0 waits in MPI_Send(1, tag 1, WORLD) for rank 1"
diag_expect_line "the verbs transport takes no more to this peer for now"
grep -qE "\[verbs QP 0x[0-9a-f]+ RTS, [0-9]+ work requests outstanding, 0 send credits\]" "$ERR" ||
    diag_fail "no verbs QP hint in the summary"
grep -qE "transport retry counter exceeded.*QP 0x" "$ERR" ||
    diag_fail "the job did not end with the retry error naming the QP"
if json=$(diag_json); then
    python3 - "$json" <<'PY' || diag_fail "JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
r0 = [r for r in d["ranks"] if r["rank"] == 0][0]
ts = [p for p in r0["peers"] if p["rank"] == 1][0]["transport_state"]
assert ts["qp_state"] == "RTS" and int(ts["sq_outstanding"]) > 0, ts
assert ts["retry_cnt"] == 7 and ts["qp_num"].startswith("0x"), ts
PY
fi
diag_finish
