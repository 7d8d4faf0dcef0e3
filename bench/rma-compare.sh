#!/usr/bin/env bash
# bench/rma-compare.sh [BUILD_DIR]: bench/rma_lat.c (one-sided put/get
# latency and bandwidth, fetch_and_op, compare_and_swap and accumulate
# latency, 2 ranks of this host, MPI_Win_allocate window, lock_all +
# flush) built with BUILD_DIR/tests/mpi/mpicc (ours), mpicc.openmpi and
# mpicc.mpich, and run interleaved: each round runs ours, then Open MPI,
# then MPICH, so load on a shared machine falls on all three alike. Each run
# reports the median of REPS repetitions; the table gives, per metric, the
# median over ROUNDS rounds (min-max over rounds) and ours / peer (below 1
# is better for us, above 1 for MB/s). Open MPI runs with --mca osc sm.
#
#   ROUNDS (5), REPS (5), ITERS (20000)   OUT (stdout)  the Markdown table
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
rounds=${ROUNDS:-5}
reps=${REPS:-5}
iters=${ITERS:-20000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -C "$build" -s rtrun librtmsg.la tests/mpi/mpicc >/dev/null
impls=(ours openmpi mpich)
declare -A mpicc=([ours]="$build/tests/mpi/mpicc" [openmpi]=mpicc.openmpi [mpich]=mpicc.mpich)
for impl in "${impls[@]}"; do
    ${mpicc[$impl]} -O2 -Wall -Wextra -I"$top/bench" -o "$tmp/rma_lat_$impl" "$top/bench/rma_lat.c"
done
root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(--allow-run-as-root)
launch() {
    case $1 in
    ours) shift; timeout -k 10 600 "$build/rtrun" -n 2 --bind-to core "$@" ;;
    # osc sm: Open MPI 4.1's default osc rdma over btl vader segfaults in
    # MPI_Compare_and_swap (docs/benchmarks.md)
    openmpi) shift; timeout -k 10 600 mpirun.openmpi "${root_flag[@]}" -n 2 --bind-to core \
                 --mca pml ob1 --mca btl self,vader --mca osc sm "$@" ;;
    mpich) shift; timeout -k 10 600 mpirun.mpich -n 2 -bind-to core "$@" ;;
    esac
}
raw=$tmp/raw
: >"$raw"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for r in $(seq 1 "$rounds"); do
    echo "round $r/$rounds (load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    for impl in "${impls[@]}"; do
        if launch "$impl" "$tmp/rma_lat_$impl" -r "$reps" -i "$iters" >"$tmp/out" 2>&1; then
            grep '^bench=' "$tmp/out" | sed "s/^/impl=$impl /" >>"$raw"
        else
            echo "round $r: $impl failed:" >&2
            tail -n 20 "$tmp/out" >&2
        fi
    done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
awk '
function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
    lo = a[1]; hi = a[n]
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function fmt(v) { return v >= 100 ? sprintf("%.0f", v) : v >= 10 ? sprintf("%.1f", v) : v >= 1 ? sprintf("%.2f", v) : sprintf("%.3f", v) }
{
    delete f
    for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
    k = f["bench"] " " f["size"]
    if (!(k in unit)) { unit[k] = f["unit"]; order[++n] = k }
    v[k, f["impl"]] = v[k, f["impl"]] " " f["value"]
}
END {
    print "| metric | size (B) | unit | librtmsg | Open MPI | MPICH | ours / Open MPI | ours / MPICH |"
    print "|---|---|---|---|---|---|---|---|"
    for (i = 1; i <= n; i++) {
        k = order[i]; split(k, p, " ")
        line = "| " p[1] " | " p[2] " | " unit[k] " |"
        for (j = 1; j <= 3; j++) {
            im = j == 1 ? "ours" : j == 2 ? "openmpi" : "mpich"
            if ((k, im) in v) { m[im] = median(v[k, im]); line = line " " fmt(m[im]) " (" fmt(lo) "–" fmt(hi) ") |" }
            else { m[im] = ""; line = line " – |" }
        }
        for (j = 2; j <= 3; j++) {
            im = j == 2 ? "openmpi" : "mpich"
            line = line ((m["ours"] != "" && m[im] != "" && m[im] > 0) ? sprintf(" %.2f |", m["ours"] / m[im]) : " – |")
        }
        print line
    }
}' "$raw" | tee "${OUT:-/dev/null}"
