#!/bin/bash
# The PMIx server: job info, put/commit/fence/get of every peer's key, with
# 1 to 4 ranks; no temp dir left behind.
. "$(dirname "$0")/common.sh"

for n in 1 2 3 4; do
    run 0 -n $n --oversubscribe "$PROBE" modex
    [ "$(grep -c "modex ok" "$OUT")" = $n ] || fail "$n ranks: not every rank passed the modex"
    for r in $(seq 0 $((n - 1))); do
        expect_out "^rank $r of $n: modex ok"
    done
done
# rtrun's per-job temp dir is /tmp/rtrun.<pid>.*: none may be left by a
# finished job (checked on one we know the pid of).
"$RTRUN" $RTRUN_X -n 2 --oversubscribe "$PROBE" modex >"$OUT" 2>"$ERR" </dev/null &
pid=$!
wait $pid || fail "modex under a known pid failed"
ls -d /tmp/rtrun.$pid.* >/dev/null 2>&1 && fail "temp dir /tmp/rtrun.$pid.* left behind"
expect_no_orphans
finish
