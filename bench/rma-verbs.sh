#!/usr/bin/env bash
# bench/rma-verbs.sh [BUILD_DIR]: MPI one-sided over verbs on softib, RDMA
# against librtmsg's own message path, in the same run (issue 15):
#
#   rdma   bench/rma_lat (2 ranks, RTM_TRANSPORTS=self,verbs, MPI_Win_allocate
#          window): contiguous Put/Get are RDMA writes/reads
#   msg    the same with rma_lat -n (info rtmsg_win_rdma=false): every
#          operation is a message the target applies
#
# interleaved: each round runs rdma then msg, so load on a shared machine
# falls on both alike; the table gives medians over ROUNDS rounds (min-max)
# and rdma / msg (below 1: RDMA faster, for us; above 1 for MB/s). Then the
# verbs work requests (softib's SOFTIB_STATS send_wr + recv_wr, summed over
# both ranks) per operation of put_lat 8 B, get_lat 8 B, fop_lat, cas_lat,
# acc_lat (each with its MPI_Win_flush) and lock_put_unlock: two runs of
# `rma_lat -m METRIC -r 1`
# with 1000 and 3000 iterations, the difference divided by the 2200
# operations between them (so wireup, window creation and finalize cancel
# out). Only ratios mean anything: the absolute figures are softib's, not an
# HCA's. The RDMA window is HCA-atomic (docs/mpi.md): Fetch_and_op(SUM,
# int64) and Compare_and_swap are one RDMA atomic each, acc_lat (MPI_DOUBLE
# SUM) a compare-and-swap loop (a read and a swap), and a lock and an unlock
# one atomic each on the target's lock word.
#
#   ROUNDS (3), REPS (3), ITERS (2000)   OUT (stdout)  the Markdown tables
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
rounds=${ROUNDS:-3}
reps=${REPS:-3}
iters=${ITERS:-2000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -C "$build" -s rtrun librtmsg.la tests/mpi/mpicc >/dev/null
lib="$build/softib/.libs/libsoftib.so"
[ -f "$lib" ] || { echo "no softib in $build" >&2; exit 1; }
"$build/tests/mpi/mpicc" -O2 -Wall -Wextra -I"$top/bench" -o "$tmp/rma_lat" "$top/bench/rma_lat.c"
mkdir "$tmp/sib"
launch() {   # launch MODE ARGS...: rma_lat on softib verbs, 2 ranks
    local mode=$1 flags=()
    shift
    [ "$mode" = msg ] && flags=(-n)
    SOFTIB_DIR=$tmp/sib LD_PRELOAD=$lib RTM_TRANSPORTS=self,verbs \
        timeout -k 10 600 "$build/rtrun" -n 2 "$tmp/rma_lat" "${flags[@]}" "$@"
}
raw=$tmp/raw
: >"$raw"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for r in $(seq 1 "$rounds"); do
    echo "round $r/$rounds (load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    for mode in rdma msg; do
        if launch "$mode" -r "$reps" -i "$iters" >"$tmp/out" 2>&1; then
            grep '^bench=' "$tmp/out" | sed "s/^/impl=$mode /" >>"$raw"
        else
            echo "round $r: $mode failed:" >&2
            tail -n 20 "$tmp/out" >&2
        fi
    done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
awk -v impls="rdma msg" -v names="RDMA,messages" -v first=RDMA \
    -f "$top/bench/rma_table.awk" "$raw" | tee "${OUT:-/dev/null}"
echo
{
    echo "| operation (+ MPI_Win_flush) | RDMA: work requests | messages: work requests |"
    echo "|---|---|---|"
    for m in put_lat get_lat fop_lat cas_lat acc_lat lock_put_unlock; do
        line="| $m 8 B |"
        for mode in rdma msg; do
            for i in 1000 3000; do
                d="$tmp/stats.$mode.$i"
                rm -rf "$d" && mkdir "$d"
                SOFTIB_STATS=$d launch "$mode" -m "$m" -s 8 -r 1 -i "$i" >"$tmp/out" 2>&1 ||
                    { echo "counts: $m $mode $i failed" >&2; tail -n 5 "$tmp/out" >&2; }
            done
            per=$(awk 'FNR == 1 { f = FILENAME ~ /\.3000\// } $1 == "send_wr" || $1 == "recv_wr" { v[f] += $2 }
                       END { printf "%.2f", (v[1] - v[0]) / 2200 }' "$tmp/stats.$mode.1000"/* "$tmp/stats.$mode.3000"/*)
            line="$line $per |"
        done
        echo "$line"
    done
} | tee -a "${OUT:-/dev/null}"
