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
#
# OSU=TREE: the same comparison with the OSU Micro-Benchmarks 7.x one-sided
# programs of TREE instead (built unmodified by bench/osu.sh with each
# implementation's mpicc, OSU_BUILD_ONLY=1), interleaved the same way, each
# with OSU's defaults -w allocate -s flush: osu_put_latency, osu_get_latency,
# osu_acc_latency (-m 8:8, -i 10000), osu_fop_latency, osu_cas_latency (one
# datatype, MPI_CHAR), osu_put_bw, osu_get_bw (-m 65536:1048576) and
# osu_put_bibw (its only modes are -s pscw/fence: pscw). Each round is one
# run per program and implementation; the table gives medians over rounds.
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
if [ -n "${OSU:-}" ]; then
    for impl in "${impls[@]}"; do
        peer=$impl
        [ "$impl" = ours ] && peer=rtmsg
        top_builddir=$build OSU_MPI=$peer OSU_BUILD_ONLY=1 OSU_VERSION=${OSU_VERSION:-7.x} \
            "$top/bench/osu.sh" "$OSU" "$tmp/osu-$impl" >/dev/null
    done
    # name args... (unit from the name: _bw/_bibw MB/s, else us)
    osu_runs=(
        "osu_put_latency -m 8:8 -i 10000 -x 1000"
        "osu_get_latency -m 8:8 -i 10000 -x 1000"
        "osu_acc_latency -m 8:8 -i 10000 -x 1000"
        "osu_fop_latency -i 10000 -x 1000"
        "osu_cas_latency -i 10000 -x 1000"
        "osu_put_bw -m 65536:1048576"
        "osu_get_bw -m 65536:1048576"
        "osu_put_bibw -m 65536:1048576 -s pscw"
    )
    for r in $(seq 1 "$rounds"); do
        echo "round $r/$rounds (load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
        for run in "${osu_runs[@]}"; do
            read -r -a argv <<<"$run"
            name=${argv[0]}
            unit=us
            [[ $name == *bw ]] && unit=MB/s
            for impl in "${impls[@]}"; do
                if launch "$impl" "$tmp/osu-$impl/bin/$name" "${argv[@]:1}" >"$tmp/out" 2>&1; then
                    awk -v impl="$impl" -v b="${name#osu_}" -v u="$unit" \
                        '/^[0-9]/ { printf "impl=%s bench=%s size=%s value=%s unit=%s\n", impl, b, $1, $2, u }' \
                        "$tmp/out" >>"$raw"
                else
                    echo "round $r: $name under $impl failed:" >&2
                    tail -n 20 "$tmp/out" >&2
                fi
            done
        done
    done
    echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    awk -v impls="ours openmpi mpich" -v names="librtmsg,Open MPI,MPICH" -v first=ours \
        -f "$top/bench/rma_table.awk" "$raw" | tee "${OUT:-/dev/null}"
    exit 0
fi
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
awk -v impls="ours openmpi mpich" -v names="librtmsg,Open MPI,MPICH" -v first=ours \
    -f "$top/bench/rma_table.awk" "$raw" | tee "${OUT:-/dev/null}"
