#!/bin/sh
# cg_loop (bench/mpi/cg_loop.c, the HPCG-like loop of bench/compare-mpi.sh):
# CG on the 27-point stencil with a halo exchange of all 26 neighbours (in
# three phases) and Allreduce, as a singleton and on 3 (3x1x1), 4 (2x2x1) and
# 8 (2x2x2) ranks. b comes from the global coordinates, so a halo exchange
# that loses or misplaces values (a face, an edge, a corner) changes the
# operator and the solution is no longer ones: the largest error must stay
# below 1e-9 (it is ~1e-15 when right; a lost edge gives ~0.25).
. "$top_srcdir/tests/mpi/common.sh"
require_rtrun
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for np in 1 3 4 8; do
    "$RTRUN" -n $np --oversubscribe --timeout 120 "$prog_dir/cg_loop" -n 6 -i 60 -r 1 >"$out" ||
        { echo "FAIL: cg_loop at $np ranks exited $?" >&2; cat "$out" >&2; exit 1; }
    line=$(grep '^# cg:' "$out") || { echo "FAIL: cg_loop at $np ranks printed no result" >&2; exit 1; }
    err=${line##*largest error }
    awk -v e="$err" 'BEGIN { exit !(e + 0 < 1e-9) }' ||
        { echo "FAIL: cg_loop at $np ranks: $line" >&2; exit 1; }
    grep -q '^bench=cg ' "$out" || { echo "FAIL: cg_loop at $np ranks: no bench= line" >&2; exit 1; }
done
echo "PASS: cg_loop"
