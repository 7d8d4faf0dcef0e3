#!/usr/bin/env bash
# bench/compare.sh [BUILD_DIR]: 8 B latency and 64 KiB / 1 MiB streaming
# bandwidth of librtmsg (bench/rtm_pingpong under rtrun) next to Open MPI
# and MPICH running the same measurement (bench/mpi_pingpong.c built with
# Debian's mpicc.openmpi and mpicc.mpich), 2 ranks on this host.
#
# The three run interleaved, ROUNDS times (default 5), so a noisy machine
# disturbs all of them alike; the table gives the median over the rounds of
# each program's own median, and our figure divided by each peer's. Only
# ratios from one run mean anything on a shared machine.
#
# BUILD_DIR defaults to build/ at the top of the tree (scripts/setup-and-demo
# makes it). Environment: ROUNDS, REPS (repetitions inside one program run),
# LAT_ITERS (round trips per latency repetition). Installs the MPI packages
# if they are missing.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$top/scripts/deps.sh"
build=$(cd "${1:-$top/build}" && pwd)
rounds=${ROUNDS:-5}
reps=${REPS:-9}
lat_iters=${LAT_ITERS:-20000}

rtm_install_packages openmpi-bin libopenmpi-dev mpich libmpich-dev
make -C "$build" -s bench/rtm_pingpong rtrun >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Both MPIs installed: `mpicc` points to one of them, so name each one.
mpicc.openmpi -O2 -o "$tmp/pp_openmpi" "$top/bench/mpi_pingpong.c"
# MPICH's MPI_STATUSES_IGNORE trips a false -Wstringop-overflow in gcc 12
mpicc.mpich -O2 -Wno-stringop-overflow -o "$tmp/pp_mpich" "$top/bench/mpi_pingpong.c"

root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(--allow-run-as-root)
args=(-r "$reps" -i "$lat_iters")

run_rtmsg() {
    "$build/rtrun" -n 2 --bind-to core "$build/bench/rtm_pingpong" "${args[@]}"
}
run_openmpi() {
    # ob1 + vader: Open MPI's shared-memory path (the UCX pml is not what
    # we compare against), one rank per core
    mpirun.openmpi "${root_flag[@]}" -n 2 --bind-to core --mca pml ob1 \
        --mca btl self,vader "$tmp/pp_openmpi" "${args[@]}" -n openmpi
}
run_mpich() {
    mpirun.mpich -n 2 -bind-to core "$tmp/pp_mpich" "${args[@]}" -n mpich
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname), $(nproc) cores, $(uname -r)"
echo "# $(mpirun.openmpi --version 2>&1 | head -n 1); $(mpirun.mpich --version 2>&1 | sed -n 's/^ *Version: *//p' | head -n 1 | sed 's/^/MPICH /')"
echo "# $rounds rounds x (rtmsg, openmpi, mpich); $reps reps per run; $lat_iters round trips per latency rep"
for r in $(seq 1 "$rounds"); do
    for impl in rtmsg openmpi mpich; do
        if ! "run_$impl" >"$tmp/out" 2>&1; then
            echo "round $r: $impl failed:" >&2
            cat "$tmp/out" >&2
            exit 1
        fi
        grep '^RESULT' "$tmp/out" | sed "s/^/round=$r /" | tee -a "$tmp/all" | sed 's/^/  /'
    done
done

# metric -> median over rounds, per implementation; then the table
awk '
function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
    for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
    key = f["metric"] SUBSEP f["impl"]
    vals[key] = vals[key] " " f["median"]
    if (!(f["metric"] in seen)) { seen[f["metric"]] = 1; order[++nm] = f["metric"] }
}
END {
    printf "\n| metric | rtmsg | Open MPI | MPICH | rtmsg / Open MPI | rtmsg / MPICH |\n"
    printf "|---|---|---|---|---|---|\n"
    for (m = 1; m <= nm; m++) {
        me = median(vals[order[m] SUBSEP "rtmsg"])
        om = median(vals[order[m] SUBSEP "openmpi"])
        mp = median(vals[order[m] SUBSEP "mpich"])
        printf "| %s | %.3f | %.3f | %.3f | %.2f | %.2f |\n", order[m], me, om, mp, me / om, me / mp
    }
    printf "\nlat: microseconds, half round trip, lower is better (ratio > 1: we are slower).\n"
    printf "bw: GB/s (1e9 bytes/s), higher is better (ratio > 1: we are faster).\n"
}' "$tmp/all"
