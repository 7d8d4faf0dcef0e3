#!/usr/bin/env bash
# bench/nbc-many.sh [BUILD_DIR]: many outstanding nonblocking collectives
# (bench/mpi/nbc_many.c: N/2 MPI_Iallreduce + N/2 MPI_Ibcast of one int, then
# one MPI_Waitall), with librtmsg, Open MPI and MPICH side by side.
#
# Two measurements:
#   time       each round runs ours, then Open MPI, then MPICH, at every rank
#              count, so load on a shared machine falls on all alike; the
#              program prints the median of REPS repetitions; the table gives
#              the median over ROUNDS rounds and ours / each peer. Only the
#              ratios of one run mean anything on a shared machine.
#   callgrind  (CALLGRIND=1) instructions executed inside the measured part
#              (the function measure_rounds, one repetition) per rank, with
#              valgrind callgrind: independent of the load except for the
#              polls a rank makes while it waits for a descheduled peer
#              (compare ours with BASE_BUILD, the same tree before a change,
#              and the peers, all under the same tool).
#
# BUILD_DIR defaults to build/ at the top of the tree. Environment:
#   NS ("2000 8000")   outstanding collectives per repetition
#   NPS ("2 4")        rank counts (oversubscribed beyond the CPUs)
#   ROUNDS (3), REPS (3)
#   IMPLS ("ours openmpi mpich")  which MPIs to run (time mode)
#   BASE_BUILD         a second librtmsg build dir, run as "base"
#   CALLGRIND (0)      1: the callgrind measurement instead of time
#   JOB_TIMEOUT (600)  seconds before one job is killed
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
read -r -a ns <<<"${NS:-2000 8000}"
read -r -a nps <<<"${NPS:-2 4}"
rounds=${ROUNDS:-3}
reps=${REPS:-3}
job_timeout=${JOB_TIMEOUT:-600}
read -r -a impls <<<"${IMPLS:-ours openmpi mpich}"
base=""
if [ -n "${BASE_BUILD:-}" ]; then
    base=$(cd "$BASE_BUILD" && pwd)
    impls=(ours base "${impls[@]/ours/}")
    read -r -a impls <<<"${impls[*]}"
fi
callgrind=${CALLGRIND:-0}
if [ "$callgrind" = 1 ]; then
    command -v valgrind >/dev/null || { echo "nbc-many.sh: valgrind not found" >&2; exit 2; }
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -C "$build" -s rtrun librtmsg.la tests/mpi/mpicc >/dev/null
[ -n "$base" ] && make -C "$base" -s rtrun librtmsg.la tests/mpi/mpicc >/dev/null

declare -A mpicc=([ours]="$build/tests/mpi/mpicc" [base]="$base/tests/mpi/mpicc"
                  [openmpi]=mpicc.openmpi [mpich]=mpicc.mpich)
root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(--allow-run-as-root)
launcher() {   # launcher IMPL NP: the launch command into the array lcmd
    case $1 in
    ours) lcmd=("$build/rtrun" -n "$2" --oversubscribe) ;;
    base) lcmd=("$base/rtrun" -n "$2" --oversubscribe) ;;
    openmpi) lcmd=(mpirun.openmpi "${root_flag[@]}" -n "$2" --oversubscribe --mca pml ob1
                   --mca btl self,vader) ;;
    mpich) lcmd=(mpirun.mpich -n "$2") ;;
    esac
}
for impl in "${impls[@]}"; do
    ${mpicc[$impl]} -O2 -g -Wall -Wno-stringop-overflow -o "$tmp/nbc_$impl" \
        "$top/bench/mpi/nbc_many.c"
done
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

if [ "$callgrind" = 1 ]; then
    echo "| ranks | outstanding | build | instructions in measure_rounds, per rank | per collective (rank mean) |"
    echo "|---|---|---|---|---|"
    for np in "${nps[@]}"; do
        for n in "${ns[@]}"; do
            for impl in "${impls[@]}"; do
                d="$tmp/cg-$impl-$np-$n"
                mkdir -p "$d"
                launcher "$impl" "$np"
                timeout -k 10 "$job_timeout" "${lcmd[@]}" valgrind --tool=callgrind \
                    --toggle-collect=measure_rounds --callgrind-out-file="$d/cg.%p" \
                    "$tmp/nbc_$impl" "$n" 1 >"$d/out" 2>"$d/err" ||
                    { echo "nbc-many.sh: $impl job failed" >&2; tail -5 "$d/err" >&2; continue; }
                counts=$(grep -h '^summary:' "$d"/cg.* | awk '{ print $2 }' | sort -n | tr '\n' ' ')
                mean=$(grep -h '^summary:' "$d"/cg.* | awk -v n="$n" '{ s += $2; k++ }
                       END { printf "%.0f", s / k / n }')
                echo "| $np | $n | $impl | $counts| $mean |"
            done
        done
    done
    exit 0
fi

for ((round = 1; round <= rounds; round++)); do
    for np in "${nps[@]}"; do
        for n in "${ns[@]}"; do
            for impl in "${impls[@]}"; do
                launcher "$impl" "$np"
                line=$(timeout -k 10 "$job_timeout" "${lcmd[@]}" "$tmp/nbc_$impl" "$n" \
                       "$reps" 2>/dev/null | grep '^nbc_many') || line="failed"
                ms=$(printf '%s\n' "$line" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
                echo "$impl $np $n ${ms:-nan}" >>"$tmp/results"
            done
        done
    done
    echo "round $round done (load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
done
awk -v impls="${impls[*]}" '
    { v[$1 " " $2 " " $3] = v[$1 " " $2 " " $3] " " $4; key[$2 " " $3] = 1 }
    function median(s,   a, n, i, j, t) {
        n = split(s, a, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    END {
        m = split(impls, im, " ")
        printf "| ranks | outstanding |"
        for (i = 1; i <= m; i++) printf " %s ms |", im[i]
        for (i = 2; i <= m; i++) printf " ours / %s |", im[i]
        printf "\n|---|---|"
        for (i = 1; i < 2 * m; i++) printf "---|"
        printf "\n"
        for (k in key) {
            split(k, kk, " ")
            printf "| %s | %s |", kk[1], kk[2]
            for (i = 1; i <= m; i++) { med[i] = median(v[im[i] " " k]); printf " %.2f |", med[i] }
            for (i = 2; i <= m; i++) printf " %.2f |", (med[i] > 0 ? med[1] / med[i] : 0)
            printf "\n"
        }
    }' "$tmp/results" | sort -t'|' -k2n -k3n
